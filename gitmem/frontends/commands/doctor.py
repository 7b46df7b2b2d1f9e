"""`gitmem doctor`: health checks of the store, and safe repairs with --fix."""

from __future__ import annotations

from pathlib import Path

import click

from gitmem.core.errors import GitmemError
from gitmem.frontends.cli import emit_json, json_option, pass_store

MARK = {"ok": "ok   ", "warn": "warn ", "error": "ERROR"}


def _hooks(store) -> dict:
    from gitmem.frontends.hooks_install import check_installed

    st = check_installed(Path(store.home))
    if st["problems"]:
        return {"check": "hooks", "status": "warn", "detail": "; ".join(st["problems"]), "fix": None, "fixed": False}
    detail = f"installed in {len(st['files'])} agent settings file(s)" if st["files"] else "not installed"
    return {"check": "hooks", "status": "ok", "detail": detail, "fix": None, "fixed": False}


def _serve(store, fix: bool) -> dict:
    from gitmem.frontends.daemon import client as serve_client

    home = Path(store.home)
    sock = serve_client.socket_path(home)
    if serve_client.running(home):
        st = serve_client.request(home, {"op": "status"}, timeout=2.0) or {}
        return {"check": "serve", "status": "ok", "detail": f"daemon running (pid {st.get('pid', '?')})",
                "fix": None, "fixed": False}
    if sock.exists() or serve_client.pid_path(home).exists():
        out = {"check": "serve", "status": "warn", "detail": "a stale daemon socket or pid file (no daemon runs)",
               "fix": "remove them", "fixed": False}
        if fix:
            for p in (sock, serve_client.pid_path(home)):
                p.unlink(missing_ok=True)
            out.update(status="ok", fixed=True, was=out["detail"], detail="stale socket and pid file removed")
        return out
    return {"check": "serve", "status": "ok", "detail": "no daemon (commands run in-process)", "fix": None,
            "fixed": False}


@click.command()
@click.option("--fix", is_flag=True, help="Repair what is safe: rebuild the index, remove stale git locks and "
                                          "daemon files, tighten an encrypted home's permissions.")
@json_option
@pass_store
def doctor(store, fix, as_json):
    """Check the store: git fsck, malformed memories, the index against the trees,
    stale locks, the key of an encrypted store, hooks, the daemon, remotes.

    Exits 1 when a check fails (after --fix: when one still fails). --fix never edits
    a memory: a malformed one is listed with the reason and how to fix it.

    \b
    Examples:
      gitmem doctor
      gitmem doctor --fix --json
    """
    checks = store.doctor(fix=fix) + [_hooks(store), _serve(store, fix)]
    failed = [c for c in checks if c["status"] == "error"]
    if as_json:
        emit_json({"ok": not failed, "checks": checks})
    else:
        for c in checks:
            fixed = " (fixed)" if c.get("fixed") else ""
            click.echo(f"{MARK[c['status']]} {c['check']:<10} {c['detail']}{fixed}")
            if c["status"] != "ok" and c.get("fix") and not fix:
                click.echo(f"      {'':<10} --fix: {c['fix']}")
    if failed:
        raise GitmemError(f"{len(failed)} check(s) failed: {', '.join(c['check'] for c in failed)}",
                          hint="`gitmem doctor --fix` repairs what it safely can" if not fix
                          else "see the lines above for what to do by hand")
