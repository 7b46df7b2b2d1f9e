"""The audit trail: the log of a scope or of one memory, a commit with its diff, and a
slice of any file as it stands or stood."""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Any

from gitmem.core import model
from gitmem.core.errors import NotFound, UsageError
from gitmem.core.trailers import Commit
from gitmem.memories import scopes as scoping
from gitmem.memories.service import Memories


@dataclass
class LogEntry:
    commit: str
    op: str | None
    ids: list[str]
    summary: str
    author: str
    time: str
    scope: str | None = None
    patch: str | None = None

    def to_dict(self) -> dict[str, Any]:
        d = {"commit": self.commit, "op": self.op, "ids": self.ids, "summary": self.summary,
             "author": self.author, "time": self.time, "scope": self.scope}
        if self.patch is not None:
            d["patch"] = self.patch
        return d


def _entry(c: Commit, scope: str) -> LogEntry:
    return LogEntry(commit=c.id, op=c.op, ids=c.ids, summary=c.subject, author=c.author,
                    time=c.iso_time, scope=c.scope or scope)


def locate_any(svc: Memories, ref: str, scope: str | None) -> tuple[str, str]:
    """Like locate, but also finds forgotten/removed ids via commit trailers."""
    try:
        s, mem_id, _ = svc.locate(ref, scope)
        return s, mem_id
    except NotFound:
        if not model.is_id(ref):
            raise
    chosen = [model.check_scope(scope)] if scope else list(svc.git.scopes())
    for s in chosen:
        for c in svc.history(s):
            if ref in c.ids:
                return s, ref
    raise NotFound(f"no memory {ref!r} in any history")


def log(svc: Memories, ref: str | None = None, *, scope: str | None = None, patch: bool = False,
        limit: int | None = None) -> list[LogEntry]:
    """The audit log of a scope, or the versions of one memory."""
    entries: list[LogEntry] = []
    if ref is not None:
        s, mem_id = locate_any(svc, ref, scope)
        seen = []
        for c in svc.history(s):
            if mem_id in c.ids:
                seen.append(c)
                if limit and len(seen) >= limit:
                    break
        for c in seen:
            e = _entry(c, s)
            if patch:
                e.patch = memory_patch(svc, c, mem_id)
            entries.append(e)
        return entries
    chosen = [model.check_scope(scope)] if scope else list(svc.git.scopes())
    for s in chosen:
        for c in svc.history(s, limit=limit):
            e = _entry(c, s)
            if patch:
                e.patch = diff(svc, c.parents[0] if c.parents else None, c.id)
            entries.append(e)
    entries.sort(key=lambda e: e.time, reverse=True)
    return entries[:limit] if limit else entries


def memory_patch(svc: Memories, c: Commit, mem_id: str) -> str:
    new = svc.git.commit_obj(c.id)
    old = svc.git.first_parent(new)

    def text(rev) -> str:
        p = svc.find_in(rev, mem_id)
        return model.parse(svc.git.read(rev, p) or b"").text if p else ""

    a, b = text(old), text(new)
    return "\n".join(difflib.unified_diff(a.splitlines(), b.splitlines(),
                                         f"a/{mem_id}", f"b/{mem_id}", lineterm="")) + "\n"


def show(svc: Memories, rev: str) -> dict[str, Any]:
    """A commit: its message, trailers and the change it made."""
    info = svc.git.info(svc.git.commit_obj(rev))
    parent = info.parents[0] if info.parents else None
    return {"commit": info.id, "op": info.op, "ids": info.ids, "summary": info.subject,
            "author": info.author, "time": info.iso_time, "message": info.message,
            "diff": diff(svc, parent, info.id)}


def diff(svc: Memories, rev1: str | None, rev2: str) -> str:
    """A unified diff of memory files between two revisions."""
    b = svc.git.commit_obj(rev2)
    a = svc.git.commit_obj(rev1) if rev1 else None
    chunks = []
    for status, path, _ in svc.git.diff_files(a.id if a else None, b.id):
        old = (svc.git.read(a, path) or b"").decode("utf-8", "replace")
        new = (svc.git.read(b, path) or b"").decode("utf-8", "replace")
        chunks.append("".join(difflib.unified_diff(
            old.splitlines(True), new.splitlines(True),
            "/dev/null" if status == "A" else f"a/{path}",
            "/dev/null" if status == "D" else f"b/{path}")))
    return "\n".join(c if c.endswith("\n") else c + "\n" for c in chunks if c)


def check_path(path: str) -> str:
    """A repository-relative path that cannot leave the tree."""
    p = path.strip().lstrip("./") if path.startswith("./") else path.strip()
    parts = p.split("/")
    if not p or p.startswith("/") or any(x in ("", ".", "..") for x in parts) or "\x00" in p:
        raise UsageError(f"bad path {path!r}", hint="a path inside a scope, e.g. daily/2024-05-01.md")
    return p


def read_slice(svc: Memories, path: str, scope: str | None = None, at: str | None = None,
               start: int | None = None, count: int | None = None) -> dict[str, Any]:
    """A slice of a file in a scope's tree; memory files are sliced by body lines,
    the numbering recall hits cite."""
    path = check_path(path)
    chosen = [model.check_scope(scope)] if scope else scoping.lookup_order(svc.config, svc.git.scopes())
    for s in chosen:
        rev = svc.rev_at(s, at)
        data = svc.git.read(rev, path)
        if data is None:
            continue
        if path.startswith(("memories/", "archive/")):
            text = model.parse(data, path=path).text
        else:
            text = data.decode("utf-8", "replace")
        lines = text.splitlines(True)
        first = max(1, int(start or 1))
        if count is not None and count < 0:
            raise UsageError("--lines must be positive")
        end = len(lines) if count is None else min(len(lines), first - 1 + int(count))
        return {"text": "".join(lines[first - 1 : end]), "path": path, "scope": s,
                "start_line": first, "end_line": max(first - 1, end), "commit": rev.id}
    raise NotFound(f"no file {path!r}" + (f" in scope {scope}" if scope else " in any scope"),
                   hint="recall hits cite paths; `gitmem export` lists every file")
