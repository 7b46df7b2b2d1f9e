"""The memory-aware three-way merge of one scope (DESIGN.md §4), file by file.

Memory files are matched by id (their file name), wherever they sit (a type change or
an archive move changes the path, not the memory):
- changed on one side only: that side wins (a move, an edit, a removal);
- changed on both sides to different versions: the later `updated` wins and the other
  version is kept as a conflict copy under `conflicts/<id>/<blob>.md`, which
  `list --conflicts` shows and `resolve` settles;
- removed on one side, edited on the other: the edit is kept (nothing acknowledged is
  lost) and the conflict reported; a memory forgotten through the redaction ledger is
  dropped whatever the other side did;
- the same key created on both sides: one live memory (the later), the other a
  conflict copy of it.
Journals (`daily/`) and session files merge as a union of lines, journal lines in
time order; `MEMORY.md` is regenerated from the merged memories; conflict copies merge
as a union. Anything else changed on both sides keeps this side's version (reported).

Pure: reads through the service, returns the changes against `ours`; the caller writes
them as one merge commit."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from gitmem.core import model
from gitmem.memories import memory_md
from gitmem.memories.service import Memories
from gitmem.store import Change, Keep, Rev

CONFLICTS = "conflicts"
_MEMORY_ROOTS = ("memories/", "archive/")
_JOURNAL_LINE = re.compile(r"^- (\d\d:\d\d) ")


@dataclass
class MergeResult:
    changes: dict[str, Change] = field(default_factory=dict)
    conflicts: list[dict[str, Any]] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)  # forgotten ids kept out


def conflict_path(mem_id: str, blob: str) -> str:
    return f"{CONFLICTS}/{mem_id}/{blob[:12]}.md"


def _files(svc: Memories, rev: Rev | None) -> dict[str, str]:
    return dict(svc.git.walk_files(rev)) if rev is not None else {}


def _memory_id(path: str) -> str | None:
    if not path.startswith(_MEMORY_ROOTS) or not path.endswith(".md"):
        return None
    name = path.rsplit("/", 1)[-1][:-3]
    return name if model.is_id(name) else None


def _by_id(files: dict[str, str]) -> dict[str, tuple[str, str]]:
    out = {}
    for path, blob in files.items():
        mid = _memory_id(path)
        if mid:
            out[mid] = (path, blob)
    return out


def merge_scope(svc: Memories, scope: str, base: Rev | None, ours: Rev, theirs: Rev,
                forgotten: set[str] = frozenset()) -> MergeResult:
    """The changes that turn `ours` into the merge of `ours` and `theirs` from `base`."""
    res = MergeResult()
    fb, fo, ft = _files(svc, base), _files(svc, ours), _files(svc, theirs)
    mb, mo, mt = _by_id(fb), _by_id(fo), _by_id(ft)
    live: dict[str, tuple[str, str, Rev]] = {}  # merged memory files: id -> (path, blob, where)

    def read_mem(where: Rev, path: str) -> model.Memory:
        return model.parse(svc.git.read(where, path) or b"", path=path)

    for mid in sorted(set(mb) | set(mo) | set(mt)):
        b, o, t = mb.get(mid), mo.get(mid), mt.get(mid)
        if mid in forgotten:
            if o is not None:
                res.changes[o[0]] = None
            if t is not None and t != b:
                res.conflicts.append({"id": mid, "kind": "forgotten", "detail": "edited on the other side; the forget wins"})
            res.dropped.append(mid)
            continue
        choice = o
        if o == t or t == b:
            pass
        elif o == b:
            choice = t
        elif o is None:  # removed here, edited there: keep the edit
            choice = t
            res.conflicts.append({"id": mid, "kind": "removed-here", "detail": "removed on this side, edited on the other; kept"})
        elif t is None:
            choice = o
            res.conflicts.append({"id": mid, "kind": "removed-there", "detail": "removed on the other side, edited here; kept"})
        else:
            mo_, mt_ = read_mem(ours, o[0]), read_mem(theirs, t[0])
            if (mt_.updated, t[1]) > (mo_.updated, o[1]):
                choice, loser = t, o
            else:
                choice, loser = o, t
            res.changes[conflict_path(mid, loser[1])] = Keep(loser[1])
            res.conflicts.append({"id": mid, "kind": "edited-both", "kept": choice[1][:12], "copy": conflict_path(mid, loser[1])})
        if choice is not None:
            live[mid] = (choice[0], choice[1], ours if choice == o else theirs)
        if choice != o:
            if o is not None and (choice is None or choice[0] != o[0]):
                res.changes[o[0]] = None
            if choice is not None:
                res.changes[choice[0]] = Keep(choice[1])

    # Keys: the same key created on both sides names two memories; one stays live.
    for path in sorted(set(fb) | set(fo) | set(ft)):
        if not path.startswith("keys/"):
            continue
        b, o, t = fb.get(path), fo.get(path), ft.get(path)
        if o == t or t == b:
            continue
        if o == b or o is None:
            res.changes[path] = Keep(t) if t is not None else None
            continue
        if t is None:
            continue
        id_o = (svc.git.read(ours, path) or b"").decode().strip()
        id_t = (svc.git.read(theirs, path) or b"").decode().strip()
        if id_o not in live or id_t not in live:
            winner = id_o if id_o in live else id_t
        else:
            up_o = read_mem(live[id_o][2], live[id_o][0]).updated
            up_t = read_mem(live[id_t][2], live[id_t][0]).updated
            winner = id_t if (up_t, id_t) > (up_o, id_o) else id_o
        loser = id_t if winner == id_o else id_o
        res.changes[path] = Keep(o if winner == id_o else t)
        if loser in live and loser != winner:
            lpath, lblob, _ = live.pop(loser)
            res.changes[lpath] = None
            res.changes[conflict_path(winner, lblob)] = Keep(lblob)
            res.conflicts.append({"id": winner, "kind": "same-key", "detail": f"{loser} was created with the same key",
                                  "copy": conflict_path(winner, lblob)})

    # Journals, sessions, conflict copies, MEMORY.md and anything else.
    rebuild_md = False
    for path in sorted(set(fb) | set(fo) | set(ft)):
        if _memory_id(path) or path.startswith("keys/"):
            continue
        b, o, t = fb.get(path), fo.get(path), ft.get(path)
        if o == t or t == b:
            continue
        if path == "MEMORY.md":
            rebuild_md = True
            continue
        if o == b:
            res.changes[path] = Keep(t) if t is not None else None
            continue
        if o is None or t is None:
            kept = o if o is not None else t
            res.changes[path] = Keep(kept)
            continue
        if path.startswith(("daily/", "sessions/")):
            base_text = (svc.git.read(base, path) or b"").decode("utf-8", "replace") if base else ""
            merged = union_lines(base_text, (svc.git.read(ours, path) or b"").decode("utf-8", "replace"),
                                 (svc.git.read(theirs, path) or b"").decode("utf-8", "replace"),
                                 journal=path.startswith("daily/"))
            res.changes[path] = merged.encode()
        elif path.startswith(CONFLICTS + "/"):
            pass  # named by content: the same path means the same copy
        else:
            res.conflicts.append({"path": path, "kind": "file", "detail": "changed on both sides; kept this side's"})
    if rebuild_md:
        from gitmem.lifecycle.consolidate import render_memory_md

        # Only the fields: the catalog's rows for the files it holds, the rest parsed.
        known = memory_md.catalogued(svc, scope)
        mems = [known.get((p, b)) or read_mem(where, p) for p, b, where in live.values() if p.startswith("memories/")]
        res.changes["MEMORY.md"] = render_memory_md(svc.config, scope, mems)[0]
    return res


def union_lines(base: str, ours: str, theirs: str, journal: bool = False) -> str:
    """Every line of either side (a line removed on one side stays removed), in this
    side's order with the other side's new lines after; journal entries sorted by time."""
    b = base.splitlines()
    o = ours.splitlines()
    t = theirs.splitlines()
    removed = (set(b) - set(o)) | (set(b) - set(t))
    out = [ln for ln in o if ln not in removed]
    seen = set(out)
    for ln in t:
        if ln not in seen and ln not in removed:
            out.append(ln)
            seen.add(ln)
    if journal:
        head = [ln for ln in out if not _JOURNAL_LINE.match(ln)]
        entries = [ln for ln in out if _JOURNAL_LINE.match(ln)]
        entries.sort(key=lambda ln: _JOURNAL_LINE.match(ln).group(1))  # stable: same minute keeps order
        while head and not head[-1].strip():
            head.pop()
        out = head + ([""] if head else []) + entries
    return "\n".join(out) + "\n" if out else ""


def union_notes(base: str, ours: str, theirs: str) -> str:
    """Notes merge as a union of lines (per-machine access lines are summed by readers)."""
    return union_lines(base, ours, theirs)
