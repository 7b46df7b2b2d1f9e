"""Commands between sessions and around code: watch, changes, link, unlink, why, mcp."""

from __future__ import annotations

import os
import sys
from typing import Any

import click

from gitmem.frontends.cli import emit, emit_json, json_option, pass_store


def _event_line(ev) -> str:
    ids = f" [{', '.join(ev.ids[:3])}{'…' if len(ev.ids) > 3 else ''}]" if ev.ids else ""
    who = f" {ev.author}:" if ev.author else ""
    mark = " (rewritten)" if ev.rewritten else ""
    scope = f"{ev.remote}/{ev.scope}" if ev.remote else ev.scope
    return f"{(ev.commit or '-')[:10]} {ev.time} {scope:<12}{who} {ev.summary}{ids}{mark}"


@click.command()
@click.option("--scope", "-s", "scopes", multiple=True, help="Watch only this scope (repeatable).")
@click.option("--remote", "-r", metavar="NAME",
              help="Fetch remote NAME every interval and report the commits that arrive from it.")
@click.option("--interval", type=float, default=1.0, show_default=True,
              help="Seconds between polls of the refs (with --remote: between fetches).")
@click.option("--exec", "command", help="Shell command run per event, the event JSON on stdin.")
@click.option("--from-start", is_flag=True, help="Report every existing commit first.")
@click.option("--count", type=int, help="Exit after N events.")
@json_option
@pass_store
def watch(store, scopes, remote, interval, command, from_start, count, as_json):
    """Print an event for every new commit on the store's scopes, as it happens.

    Polls the refs every --interval seconds. Each event: ref, scope, old and new tip,
    commit, op, ids, summary, time, author, session, agent. When a ref is rewritten (a
    forget) it keeps going and reports only what is new (a rewrite with nothing new is
    one event with op `rewrite`). A forget's event names the ids, never the text.
    --exec runs CMD once per event, in order, the event JSON on its stdin.

    With --remote NAME it fetches NAME every interval (only its tracking refs
    refs/remotes/NAME/<scope> move; your scopes are untouched until `gitmem sync`) and
    reports the commits that arrive there instead of local ones: the same events, with
    `ref` the tracking ref and `"remote": NAME` added ($GITMEM_EVENT_REMOTE for --exec).
    That includes this machine's own commits once a sync pushed them. When the remote
    cannot be reached it prints one warning on stderr and keeps polling.

    \b
    Examples:
      gitmem watch --json
      gitmem watch --scope main --exec 'jq -r .summary >> ~/changes.log'
      gitmem watch --remote origin --interval 30 --json
    """

    def on_fetch(err) -> None:
        if err is None:
            click.echo(f"watch: fetching {remote} works again", err=True)
        else:
            # One line per failure streak: the watcher goes on polling meanwhile.
            click.echo(f"warning: {err.message}; still watching, retrying every {interval:g}s", err=True)

    n = 0
    events = store.watch_events(scopes=scopes or None, interval=interval, from_start=from_start,
                                remote=remote, on_fetch=on_fetch if remote else None)
    # On stderr, once the starting tips are taken: scripts can wait for it.
    what = ", ".join(scopes) if scopes else "all scopes"
    where = f" on remote {remote}" if remote else ""
    click.echo(f"watching {what}{where} every {interval:g}s", err=True)
    for ev in events:
        if as_json:
            click.echo(ev.to_json())
        elif not command:
            click.echo(_event_line(ev))
        sys.stdout.flush()
        if command:
            rc = run_exec(command, ev)
            if rc != 0:
                click.echo(f"warning: --exec exited {rc} for {(ev.commit or '')[:10]}", err=True)
        n += 1
        if count and n >= count:
            return


@click.command()
@click.option("--cursor", "-c", required=True, help="Cursor name, e.g. the session id.")
@click.option("--scope", "-s", "scopes", multiple=True, help="Only this scope (repeatable).")
@click.option("--session", "own_session", help="Leave out this session's own writes "
              "(default: the global --session / $GITMEM_SESSION).")
@click.option("--include-own", is_flag=True, help="Also show this session's own writes.")
@click.option("--from-start", is_flag=True, help="On a new cursor, report everything.")
@click.option("--peek", is_flag=True, help="Show the changes without moving the cursor.")
@click.option("--remote", "-r", metavar="NAME",
              help="Also follow remote NAME's tracking refs (as the last fetch left them).")
@json_option
@pass_store
def changes(store, cursor, scopes, own_session, include_own, from_start, peek, remote, as_json):
    """What changed since cursor NAME was last read; moves the cursor.

    The first call starts the cursor at the current tips and prints nothing
    (--from-start prints everything). How an open session learns what another wrote.

    With --remote NAME the cursor also follows NAME's tracking refs
    refs/remotes/NAME/<scope>: commits that a fetch (`watch --remote`, `sync`, plain
    `git fetch`) brought in are events with `"remote": NAME`. It does not fetch. The
    first --remote call on an existing cursor starts the remote at its current tips.

    \b
    Examples:
      gitmem --session s1 changes --cursor s1 --json
      gitmem changes --cursor nightly --from-start
      gitmem changes --cursor laptop --remote origin --json
    """
    session = None if include_own else (own_session or store.config.session)
    events = store.changes(cursor, scopes=scopes or None, session=session,
                           from_start=from_start, peek=peek, remote=remote)
    if as_json:
        emit_json([e.to_dict() for e in events])
    else:
        for ev in events:
            click.echo(_event_line(ev))


@click.command()
@click.argument("path", required=False, type=click.Path(file_okay=False))
@json_option
@pass_store
def link(store, path, as_json):
    """Link the code repository at PATH (default: here) to scope project/<key>.

    The key comes from the `origin` URL (github.com/owner/repo), else the folder name
    plus a short hash of its path. Inside a linked repo, writes go to that scope and
    reads look at it plus main.

    \b
    Examples:
      cd ~/src/app && gitmem link
      gitmem remember --link HEAD "Chose SQLite for the cache: one file, no daemon"
    """
    info = store.link(path)
    emit(info, as_json, f"linked {info['root']} -> {info['scope']}")


@click.command()
@click.argument("path", required=False, type=click.Path(file_okay=False))
@json_option
@pass_store
def unlink(store, path, as_json):
    """Undo `gitmem link` for the repository at PATH (default: here).

    \b
    Example:
      gitmem unlink ~/src/app
    """
    info = store.unlink(path)
    emit(info, as_json, f"unlinked {info['root']} (was {info['scope']})")


@click.command()
@click.argument("spec")
@json_option
@pass_store
def why(store, spec, as_json):
    """Show the memories linked to the commits that wrote FILE[:LINE[-LINE]].

    Blames the lines in the code repository, then reads each commit's gitmem note
    (and memories whose links name the commit).

    \b
    Examples:
      gitmem why src/cache.py:40-60
      gitmem why README.md --json
    """
    entries = store.why(spec)
    if as_json:
        emit_json([e.to_dict() for e in entries])
        return
    for e in entries:
        lines = ", ".join(f"{a}" if a == b else f"{a}-{b}" for a, b in e.lines)
        click.echo(f"{e.commit[:10]} {e.time} {e.author}: {e.summary}  (lines {lines})")
        if not e.memories:
            click.echo("    (no linked memories)")
        for m in e.memories:
            if m["found"]:
                click.echo(f"    {m['id']}  {m['scope']}  {m.get('type', '')}: {m['summary']}")
            else:
                click.echo(f"    {m['id']}  {m['scope']}  (not in this store; forgotten or not synced)")


@click.command()
@click.option("--allow-redact", is_flag=True,
              help="Let memory_forget rewrite history (default: forget keeps history).")
@click.pass_context
def mcp(ctx, allow_redact):
    """Run an MCP server on stdio with memory_search, memory_get, memory_remember,
    memory_append and memory_forget.

    \b
    Example (an MCP client config):
      {"command": "gitmem", "args": ["mcp"], "env": {"GITMEM_AGENT": "claude"}}
    """
    from gitmem.frontends.cli import store_from
    from gitmem.frontends.mcp import serve

    serve(store_from(ctx), allow_redact=allow_redact)


def run_exec(command: str, event: Any, timeout: float | None = 60) -> int:
    """Run `command` through the shell with the event as JSON on stdin."""
    import subprocess

    env = dict(os.environ, GITMEM_EVENT_REF=event.ref, GITMEM_EVENT_OP=event.op or "",
               GITMEM_EVENT_COMMIT=event.commit or "", GITMEM_EVENT_SCOPE=event.scope,
               GITMEM_EVENT_REMOTE=event.remote or "")
    try:
        res = subprocess.run(command, shell=True, input=(event.to_json() + "\n").encode(),
                             env=env, timeout=timeout)
    except subprocess.TimeoutExpired:
        return 124
    return res.returncode
