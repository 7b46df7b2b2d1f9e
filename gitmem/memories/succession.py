"""Supersession: which live memory replaced which (issue 22).

A memory names the memories it replaces in its own front matter (`supersedes: [id…]`);
nothing is written on the replaced one. So:
- a replaced memory keeps its file, its history and its place in `--at` reads as of
  any time before its successor was written;
- it is *superseded* exactly while a live memory (under memories/, same scope) names
  it: forget or archive the successor and the old one is current again; revert the
  commit that wrote the successor's front matter (undream) and the supersession is gone
  with it; an edit of the old memory (here or arriving by sync) changes nothing, since
  the edit touches only the old file;
- chains follow: A <- B <- C leaves only C current.

`successors(svc, scope, rev)` is the reverse map (old id -> live successors) of a tree.
It is kept per process and scope and brought forward by a tree diff, reading only the
memory files that changed and parsing only those whose front matter names a predecessor,
so a recall or a listing pays a diff, not a parse of every file. The map is saved in
state/succession.json (ids and paths, never text), so a new process (a CLI recall)
starts from it instead of reading every file (10k memories: 277 ms cold, a few ms from
the saved map; BENCHMARKS.md, Issue 22)."""

from __future__ import annotations

import json
import weakref
from dataclasses import dataclass, field
from typing import Iterable, Sequence

from gitmem.core import model, paths
from gitmem.core.errors import MalformedMemory, NotFound, UsageError
from gitmem.core.fsutil import atomic_write
from gitmem.core.model import Memory
from gitmem.store import Rev

_MARK = b"\nsupersedes:"
STATE_FILE = "succession.json"  # the map as of a commit per scope (ids and paths only, no text)
_LIVE_ROOT = "memories/"


@dataclass
class _Tree:
    commit: str
    named: dict[str, tuple[str, ...]] = field(default_factory=dict)  # path -> ids it supersedes
    _rev: dict[str, tuple[str, ...]] | None = field(default=None, repr=False, compare=False)

    def reverse(self) -> dict[str, tuple[str, ...]]:
        """old id -> successors; worked out once per tree (a recall asks on every query)
        and shared, so callers read it and never change it."""
        if self._rev is None:
            self._rev = self._reverse()
        return self._rev

    def _reverse(self) -> dict[str, tuple[str, ...]]:
        out: dict[str, list[str]] = {}
        for path, olds in self.named.items():
            succ = path.rsplit("/", 1)[-1][:-3]
            for old in olds:
                if old != succ:
                    out.setdefault(old, []).append(succ)
        return {k: tuple(sorted(v)) for k, v in out.items()}


# One cache per Memories service (and so per process and store), per scope.
_CACHE: "weakref.WeakKeyDictionary[object, dict[str, _Tree]]" = weakref.WeakKeyDictionary()


def _named(svc, path: str, oid: str) -> tuple[str, ...]:
    data = svc.git.blob(oid, path)
    end = data.find(b"\n---", 3)
    head = data[: end if end > 0 else len(data)]
    if _MARK not in head:
        return ()
    try:
        mem = model.parse(data, path=path)
    except MalformedMemory:  # names nothing (reads skip such a file too)
        return ()
    return tuple(s for s in mem.supersedes if model.is_id(s))


def _disk(svc) -> dict[str, _Tree]:
    try:
        data = json.loads(paths.state_file(svc.home, STATE_FILE).read_text(encoding="utf-8"))
        return {s: _Tree(v["commit"], {p: tuple(ids) for p, ids in v["named"].items()}) for s, v in data.items()}
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return {}  # none yet, or unreadable: it is only a cache


def _save(svc, per: dict[str, _Tree]) -> None:
    data = {s: {"commit": t.commit, "named": {p: list(ids) for p, ids in t.named.items()}} for s, t in per.items()}
    try:
        atomic_write(paths.state_file(svc.home, STATE_FILE), json.dumps(data).encode(), mode=0o600)
    except OSError:
        pass  # only a cache (a state/ that cannot be written is warned about by the index)


def _from_catalog(svc, scope: str, rev: Rev) -> dict[str, tuple[str, ...]] | None:
    """path -> ids it supersedes at the scope's tip, from the catalog's rows (which
    parsed every file once already), instead of reading every blob: the first map of a
    store (a new machine, an upgrade) costs one query, not a read of every memory (100k:
    about a second). None when the catalog is off, busy or never built, or `rev` is not the tip the
    catalog answered for: then the tree is walked."""
    tip = svc.git.tip(scope)
    if tip is None or tip.id != rev.id:
        return None
    got = svc.supersessions(scope)
    if got is None:
        return None
    after = svc.git.tip(scope)
    if after is None or after.id != rev.id:  # a write landed meanwhile: the rows may be newer than rev
        return None
    named: dict[str, tuple[str, ...]] = {}
    for path, ids in got:
        if path.endswith(".md"):
            ok = tuple(x for x in (ids or ()) if model.is_id(x))
            if ok:
                named[path] = ok
    return named


def _tree(svc, scope: str, rev: Rev) -> _Tree:
    if svc not in _CACHE:
        _CACHE[svc] = _disk(svc)  # another process's map: brought forward by a diff below
    per = _CACHE[svc]
    old = per.get(scope)
    if old is not None and old.commit == rev.id:
        return old
    if old is not None and not svc.git.has_commit(old.commit):
        old = None  # a forget rewrote history under it: start over
    tree = _Tree(rev.id)
    if old is None and (named := _from_catalog(svc, scope, rev)) is not None:
        tree.named = named
    elif old is None:
        for path, oid in svc.memory_files(rev):
            names = _named(svc, path, oid)
            if names:
                tree.named[path] = names
    else:
        tree.named = dict(old.named)
        for status, path, oid in svc.git.diff_files(old.commit, rev.id):
            if not (path.startswith(_LIVE_ROOT) and path.endswith(".md")):
                continue
            tree.named.pop(path, None)
            if status != "D" and oid:
                names = _named(svc, path, oid)
                if names:
                    tree.named[path] = names
    per[scope] = tree
    if old is None or old.named != tree.named:  # else a later process diffs a little further
        _save(svc, per)
    return tree


def successors(svc, scope: str, rev: Rev | None = None) -> dict[str, tuple[str, ...]]:
    """old id -> the live memories of `scope` (at `rev`, default its tip) that name it
    in their `supersedes` (one dict per tree, shared: read it, do not change it)."""
    rev = rev if rev is not None else svc.git.tip(scope)
    if rev is None:
        return {}
    return _tree(svc, scope, rev).reverse()


def current_successors(chain: dict[str, tuple[str, ...]], mem_id: str) -> tuple[str, ...]:
    """The ends of the chain from `mem_id` (A <- B <- C: C for A and for B)."""
    out: list[str] = []
    seen = {mem_id}
    todo = list(chain.get(mem_id, ()))
    while todo:
        s = todo.pop(0)
        if s in seen:
            continue
        seen.add(s)
        nxt = chain.get(s, ())
        if nxt:
            todo.extend(nxt)
        elif s not in out:
            out.append(s)
    return tuple(out)


def mark(svc, mems: Iterable[Memory]) -> list[Memory]:
    """The memories with `superseded_by` filled (the direct successors), per scope."""
    maps: dict[str, dict[str, tuple[str, ...]]] = {}
    out = []
    for m in mems:
        if m.scope is None:
            out.append(m)
            continue
        if m.scope not in maps:
            maps[m.scope] = successors(svc, m.scope)
        by = maps[m.scope].get(m.id, ())
        out.append(m.superseded(by) if by else m)
    return out


def current_in(mems: Sequence[Memory]) -> list[Memory]:
    """Those of a tree's live memories that none of the others names in `supersedes`
    (what MEMORY.md lists)."""
    named = {s for m in mems for s in m.supersedes if s != m.id}
    return [m for m in mems if m.id not in named]


def check_targets(svc, scope: str, refs: Iterable[str] | None, *, self_id: str | None = None,
                  self_key: str | None = None) -> tuple[str, ...]:
    """Resolve `supersedes` refs (ids or keys) to ids of live memories of `scope`.

    Refused with a hint: an unknown or forgotten one, one of another scope, an archived
    one, the writer itself, and one that already (through a chain) replaces the writer."""
    refs = [str(r).strip() for r in (refs or ()) if str(r).strip()]
    if not refs:
        return ()
    tip = svc.git.tip(scope)
    out: list[str] = []
    chain = successors(svc, scope, tip) if self_id else {}
    for ref in refs:
        mem_id = ref if model.is_id(ref) else svc.key_id(tip, ref)
        path = svc.find_in(tip, mem_id) if mem_id else None
        if path is None:
            elsewhere = _scope_of(svc, ref, scope)
            if elsewhere:
                raise UsageError(f"--supersedes {ref}: that memory is in scope {elsewhere}, not {scope}",
                                 hint="a memory replaces only memories of its own scope; write it there with --scope")
            raise NotFound(f"--supersedes {ref}: no live memory with that id or key in scope {scope}",
                           hint="`gitmem list` shows ids; a forgotten memory cannot be replaced")
        if not path.startswith(_LIVE_ROOT):
            raise UsageError(f"--supersedes {ref}: that memory is archived",
                             hint="only live memories are replaced; `gitmem list --archived` shows the archive")
        if mem_id == self_id or (self_key is not None and ref == self_key):
            raise UsageError(f"--supersedes {ref}: a memory cannot replace itself",
                             hint="name the older memory this one replaces")
        if self_id and mem_id in _chain_ids(chain, self_id):
            raise UsageError(f"--supersedes {ref}: {mem_id} already replaces {self_id}",
                             hint="supersession runs one way; update the newer memory instead")
        if mem_id not in out:
            out.append(mem_id)
    return tuple(out)


def _chain_ids(chain: dict[str, tuple[str, ...]], mem_id: str) -> set[str]:
    seen: set[str] = set()
    todo = list(chain.get(mem_id, ()))
    while todo:
        s = todo.pop()
        if s not in seen:
            seen.add(s)
            todo.extend(chain.get(s, ()))
    return seen


def _scope_of(svc, ref: str, scope: str) -> str | None:
    for s in svc.git.scopes():
        if s == scope:
            continue
        tip = svc.git.tip(s)
        mem_id = ref if model.is_id(ref) else svc.key_id(tip, ref)
        if mem_id and svc.find_in(tip, mem_id, archived=False):
            return s
    return None
