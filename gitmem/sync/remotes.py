"""Remote bookkeeping for sync: which remotes, the per-remote state file (tips seen at
the last sync, clean tips, time), status (ahead/behind, ledger records not yet pushed)
and private scopes. No network except through the transport sync uses."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from gitmem.core import model, paths
from gitmem.core.errors import NotFound
from gitmem.core.fsutil import atomic_write
from gitmem.memories import ledger
from gitmem.memories.service import Memories
from gitmem.policy import gate
from gitmem.store.transport import Transport, tracking_prefix, tracking_ref


def sync_lock_path(home: Path) -> Path:
    """The flock a sync holds for its whole run (a watcher's fetch takes it too)."""
    return paths.lock(home, "sync")


def private_scopes(svc: Memories) -> set[str]:
    return set(svc.config.get("sync", "private") or ())


def state_path(home: Path, name: str) -> Path:
    return paths.state_file(home, "sync", f"{name}.json")


def read_state(home: Path, name: str) -> dict[str, Any]:
    try:
        return json.loads(state_path(home, name).read_text())
    except (OSError, ValueError):
        return {}


def write_state(home: Path, name: str, data: dict[str, Any]) -> None:
    atomic_write(state_path(home, name), (json.dumps(data, indent=1, sort_keys=True) + "\n").encode())


def transport(svc: Memories) -> Transport:
    return svc.git.transport(timeout=float(svc.config.get("sync", "timeout")))


def remote_names(svc: Memories, name: str | None) -> list[str]:
    tr = transport(svc)
    if name is not None:
        tr.url(name)
        return [name]
    names = list(tr.remotes())
    if not names:
        raise NotFound("no remotes yet", hint="`gitmem remote add origin URL` adds one")
    return names


def remote_status(svc: Memories) -> list[dict[str, Any]]:
    """Each remote: URL, per scope ahead/behind against its tracking ref, last sync,
    ledger records not yet pushed."""
    git = svc.git
    tr = git.transport()
    out = []
    private = private_scopes(svc)
    for name, url in tr.remotes().items():
        state = read_state(svc.home, name)
        scopes = []
        for s, tip in git.scopes().items():
            theirs = git.ref(tracking_prefix(name) + s)
            if s in private:
                scopes.append({"scope": s, "private": True})
                continue
            ahead, behind = git.ahead_behind(tip, theirs) if theirs else (len(list(git.walk([tip]))), 0)
            scopes.append({"scope": s, "ahead": ahead, "behind": behind})
        remote_records = {p for p, _ in ledger.records(git, tracking_ref(name, ledger.REDACTIONS_REF))}
        pending = [p for p, _ in ledger.records(git) if p not in remote_records]
        out.append({"remote": name, "url": url, "last_sync": state.get("last_sync"), "scopes": scopes,
                    "pending_ledger_records": len(pending)})
    return out


def set_private(svc: Memories, scope: str, private: bool) -> list[str]:
    """Mark a scope private (never pushed or merged) or public again; returns the list."""
    from gitmem.core.config import write_config_value

    scope = gate.check_name("scope name", model.check_scope(scope), svc.config.get("redact", "allow") or ())
    current = [s for s in (svc.config.get("sync", "private") or ())]
    if private and scope not in current:
        current.append(scope)
    if not private:
        current = [s for s in current if s != scope]
    write_config_value(svc.home, "sync", "private", sorted(current) or None)
    return sorted(current)
