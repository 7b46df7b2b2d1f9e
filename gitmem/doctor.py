"""`gitmem doctor`: what is wrong with this store, and what `--fix` can repair safely.

Each check returns {"check", "status": ok|warn|error, "detail", "fix": what --fix does
or None, "fixed": bool}. Checks here: the repository (`git fsck --strict`), memory files
whose front matter does not parse (committed by hand or plain git: the rest stays
readable, and these are listed with the reason), the index against the trees (lag,
a missing or unreadable file, counts that disagree), stale git lock files, the key of an
encrypted store, remotes. The front end adds what only it owns (hooks, the daemon).

--fix repairs what cannot lose anything: rebuild the derived index, remove git lock
files older than a minute, tighten the permissions of an encrypted home. It never
edits a memory (a malformed one is the person's to fix: the hint says how)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from gitmem.core import model
from gitmem.core.errors import GitmemError, MalformedMemory
from gitmem.encryption import convert, marker
from gitmem.memories.service import Memories
from gitmem.store import masterkey
from gitmem.sync.remotes import remote_status

LOCK_AGE = 60.0


def _check(name: str, status: str, detail: str, fix: str | None = None, **extra: Any) -> dict[str, Any]:
    return {"check": name, "status": status, "detail": detail, "fix": fix, "fixed": False, **extra}


def check_repository(svc: Memories) -> dict[str, Any]:
    problems = svc.git.fsck()
    if not problems:
        return _check("repository", "ok", "git fsck --strict: clean")
    return _check("repository", "error", f"git fsck --strict: {len(problems)} problem(s): " + "; ".join(problems[:5]),
                  problems=problems)


def check_memories(svc: Memories) -> dict[str, Any]:
    git = svc.git
    bad: list[dict[str, Any]] = []
    count = 0
    for scope, _ in git.scopes().items():
        tip = git.tip(scope)
        for path, _oid in svc.memory_files(tip, archived=True):
            count += 1
            try:
                model.parse(git.read(tip, path) or b"", path=path)
            except MalformedMemory as e:
                bad.append({"scope": scope, "path": path, "error": e.message})
            except GitmemError as e:  # a blob that does not decode (CorruptObject)
                bad.append({"scope": scope, "path": path, "error": e.message})
    if not bad:
        return _check("memories", "ok", f"{count} memory file(s) parse")
    lines = "; ".join(f"{b['scope']}:{b['path']}: {b['error'].split(': ', 1)[-1]}" for b in bad[:5])
    return _check("memories", "warn", f"{len(bad)} of {count} memory file(s) are malformed (skipped by list, "
                  f"context and export; fix them with `gitmem edit ID` or plain git): {lines}", malformed=bad)


def check_index(svc: Memories, malformed: int = 0) -> dict[str, Any]:
    from gitmem.recall.engine import Recaller

    rec = Recaller(svc)
    try:
        st = rec.status()
    except Exception as e:  # an unreadable index file: derived, so rebuilt by --fix
        return _check("index", "error", f"the index cannot be read: {type(e).__name__}: {e}",
                      fix="rebuild the index from git")
    finally:
        rec.close()
    lag = {s: n for s, n in (st.get("index_lag") or {}).items() if n}
    live = 0
    for scope in svc.git.scopes():
        live += sum(1 for _ in svc.memory_files(svc.git.tip(scope), archived=True))
    live -= malformed  # not indexed: they do not parse
    indexed = int(st.get("indexed") or 0)
    detail = f"{st['backend']}, {indexed} memories indexed"
    if st.get("index_path") is None or not Path(str(st.get("index_path"))).exists():
        return _check("index", "warn", "no index yet (the next recall builds it)", fix="build the index now")
    if lag:
        return _check("index", "warn", detail + "; behind " + ", ".join(f"{s} by {n}" for s, n in lag.items())
                      + " (the next recall catches up)", fix="catch up now")
    if indexed != live:
        return _check("index", "error", detail + f", but the trees hold {live}: the index disagrees with git",
                      fix="rebuild the index from git")
    return _check("index", "ok", detail + (f" ({st['index_note']})" if st.get("index_note") else ""))


def check_locks(svc: Memories) -> dict[str, Any]:
    stale = svc.git.stale_locks(LOCK_AGE)
    if not stale:
        return _check("locks", "ok", "no stale git lock files")
    return _check("locks", "error", f"{len(stale)} git lock file(s) older than {LOCK_AGE:.0f} s (a killed process "
                  "left them; they block writes): " + ", ".join(str(p.relative_to(svc.git.path)) for p in stale[:5]),
                  fix="remove them", paths=[str(p) for p in stale])


def check_keys(svc: Memories) -> dict[str, Any]:
    st = marker.status(svc)
    if not st["encrypted"]:
        return _check("keys", "ok", "not encrypted")
    if st["key"] != "present":
        return _check("keys", "error", f"encrypted store, key {st['fingerprint']} is {st['key']}: nothing can be read",
                      hint="import the key: `gitmem key import FILE`")
    home = Path(svc.home)
    loose = [p for p in [home, home / "keys", home / "keys" / "master.json"]
             if p.exists() and p.stat().st_mode & 0o077]
    if loose:
        return _check("keys", "warn", "encrypted store, but readable by others: " + ", ".join(map(str, loose)),
                      fix="make the home 0700 and its files 0600")
    return _check("keys", "ok", f"encrypted, key {st['fingerprint']} present (epoch {st.get('epoch')})")


def check_remotes(svc: Memories) -> dict[str, Any]:
    rows = remote_status(svc)
    if not rows:
        return _check("remotes", "ok", "no remotes")
    parts = []
    status = "ok"
    for r in rows:
        ahead = sum(s.get("ahead", 0) for s in r["scopes"])
        pending = r.get("pending_ledger_records", 0)
        parts.append(f"{r['remote']} (last sync {r['last_sync'] or 'never'}, {ahead} commit(s) to push, "
                     f"{pending} ledger record(s) to push)")
        if pending:
            status = "warn"  # a forget not yet pushed: the remote still holds the text
    return _check("remotes", status, "; ".join(parts))


CHECKS = (check_repository, check_memories, check_index, check_locks, check_keys, check_remotes)


def run(svc: Memories, fix: bool = False) -> list[dict[str, Any]]:
    """Every check; with `fix`, repair what is safe and check again."""
    out: list[dict[str, Any]] = []
    for c in CHECKS:
        out.append(_safe(c, svc, out))
    if not fix:
        return out
    for i, c in enumerate(out):
        if c["status"] == "ok" or not c.get("fix"):
            continue
        _repair(svc, c)
        again = _safe(CHECKS[i], svc, out)
        again["fixed"] = again["status"] == "ok"
        again["was"] = c["detail"]
        out[i] = again
    return out


def _safe(check, svc: Memories, done: list[dict[str, Any]]) -> dict[str, Any]:
    """One check; a store error on the way (a ref to a missing object, say) is its result."""
    name = check.__name__.removeprefix("check_")
    try:
        if check is check_index:
            return check(svc, len(done[1].get("malformed", [])) if len(done) > 1 else 0)
        return check(svc)
    except GitmemError as e:
        return _check(name, "error", e.message + (f" ({e.hint})" if e.hint else ""))


def _repair(svc: Memories, c: dict[str, Any]) -> None:
    if c["check"] == "index":
        from gitmem.recall.engine import Recaller

        rec = Recaller(svc)
        try:
            rec.reindex()
        finally:
            rec.close()
    elif c["check"] == "locks":
        for p in c.get("paths", []):
            svc.git.remove_lock(Path(p))
    elif c["check"] == "keys":
        convert.secure_home(svc.home)
        key = masterkey.master_path(svc.home)
        if key.exists():
            os.chmod(key, 0o600)
            os.chmod(key.parent, 0o700)
