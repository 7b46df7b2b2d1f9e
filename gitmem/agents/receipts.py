"""Recall receipts: every time memories are put in front of a model (the prompt hook,
`context`, `recall --format prompt`, MCP `memory_search`), one JSON line records when,
the session and agent, the query (redacted), and for each memory its id, scope, the
commit it was read at and its blob id — "what did the agent see, and from which
version". Never memory text.

Local state (`state/receipts.jsonl`), append-only under a lock, rotated by size
(ROTATE_BYTES, KEEP generations); it survives an index rebuild, and forget purges the
forgotten ids from every generation."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Iterable, Iterator

from gitmem.core import model, paths
from gitmem.core.errors import GitmemError
from gitmem.core.fsutil import atomic_write, file_lock
from gitmem.memories.service import Memories
from gitmem.policy import gate

NAME = "receipts.jsonl"
ROTATE_BYTES = 4 * 1024 * 1024
KEEP = 3  # receipts.jsonl, .1, .2


def _path(home: Path, n: int = 0) -> Path:
    return paths.state_file(home, NAME if n == 0 else f"{NAME}.{n}")


def _lock(home: Path):
    return file_lock(paths.lock(home, "receipts"), timeout=10)


def record(svc: Memories, kind: str, query: str | None, items: Iterable[dict[str, Any]]) -> dict[str, Any] | None:
    """Append one receipt. `items`: dicts with id, scope and, when known, commit and
    path (the blob id is looked up here); items without an id are skipped."""
    git = svc.git
    revs: dict[str, Any] = {}  # commit id or "tip:<scope>" -> Rev, looked up once per receipt

    def rev_of(key: str, lookup):
        if key not in revs:
            try:
                revs[key] = lookup()
            except Exception:  # noqa: BLE001 - a receipt never fails the injection it records
                revs[key] = None
        return revs[key]

    allow = svc.config.get("redact", "allow") or ()
    gate.check_name("receipt kind", kind, allow)
    rows = []
    for it in items:
        mem_id, scope = it.get("id"), it.get("scope")
        if not mem_id or not scope:
            continue
        gate.check_names("receipt item", (str(mem_id), str(scope)), allow)
        commit, path = it.get("commit"), it.get("path")
        rev = rev_of(commit, lambda: git.commit_obj(commit)) if commit else None
        if rev is None:
            rev = rev_of(f"tip:{scope}", lambda: git.tip(scope))
        if rev is not None and (not path or not git.exists(rev, path)):
            path = svc.find_in(rev, mem_id)
        rows.append({"id": mem_id, "scope": scope, "commit": rev.id if rev else None,
                     "blob": git.blob_id(rev, path) if rev is not None and path else None})
    if not rows:
        return None
    red = svc.redactor()
    receipt = {"time": model.now_iso(),
               "kind": kind, "session": svc.config.session, "agent": svc.config.agent,
               "query": red.text(" ".join(query.split())[:300], "query") if query else None,
               "items": rows}
    line = (json.dumps(receipt, sort_keys=True) + "\n").encode()
    try:
        _append(svc.home, line)
    except (GitmemError, OSError) as e:
        # The answer still goes out; the receipt is lost, and the person is told.
        svc.warn(f"no receipt recorded: {getattr(e, 'message', None) or e}")
        return None
    return receipt


def _append(home: Path, line: bytes) -> None:
    with _lock(home):
        path = _path(home)
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            if path.stat().st_size + len(line) > ROTATE_BYTES:
                for n in range(KEEP - 1, 0, -1):
                    if _path(home, n - 1).exists():
                        os.replace(_path(home, n - 1), _path(home, n))
        except FileNotFoundError:
            pass
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(fd, line)
        finally:
            os.close(fd)


def _all(home: Path) -> Iterator[dict[str, Any]]:
    for n in range(KEEP - 1, -1, -1):  # oldest generation first
        try:
            text = _path(home, n).read_text(encoding="utf-8")
        except FileNotFoundError:
            continue
        for line in text.splitlines():
            try:
                yield json.loads(line)
            except ValueError:
                continue  # a line cut by a crash: the others stand


def read(svc: Memories, *, session: str | None = None, mem_id: str | None = None,
         since: str | None = None) -> list[dict[str, Any]]:
    """Receipts, oldest first, filtered by session, memory id and a date or time."""
    floor = model.parse_when(since).timestamp() if since else None
    out = []
    for r in _all(svc.home):
        if session and r.get("session") != session:
            continue
        if mem_id and not any(i.get("id") == mem_id for i in r.get("items", ())):
            continue
        if floor is not None:
            try:
                if model.parse_when(r["time"]).timestamp() < floor:
                    continue
            except Exception:  # noqa: BLE001
                continue
        out.append(r)
    return out


def purge(home: Path, ids: Iterable[str], text: str | None = None) -> int:
    """Drop the ids from every receipt (a receipt left empty goes), and a redacted
    `text` from the queries; returns how many items went. Files that lose nothing are
    left as they are."""
    ids = set(ids)
    if not ids and not text:
        return 0
    dropped = 0
    with _lock(home):
        for n in range(KEEP):
            path = _path(home, n)
            try:
                lines = path.read_text(encoding="utf-8").splitlines()
            except FileNotFoundError:
                continue
            kept, changed = [], False
            for line in lines:
                try:
                    r = json.loads(line)
                except ValueError:
                    changed = True
                    continue
                items = [i for i in r.get("items", ()) if i.get("id") not in ids]
                if len(items) != len(r.get("items", ())) or (text and text in (r.get("query") or "")):
                    changed = True
                    dropped += len(r.get("items", ())) - len(items)
                    r["items"] = items
                    if text and r.get("query"):
                        r["query"] = r["query"].replace(text, "[redacted]")
                if items:
                    kept.append(json.dumps(r, sort_keys=True))
            if changed:
                atomic_write(path, ("\n".join(kept) + "\n" if kept else "").encode(), mode=0o600)
    return dropped
