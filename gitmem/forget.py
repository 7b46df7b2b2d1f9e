"""Forget: a revert commit, then a history rewrite that purges the text, then a prune.

The one operation that rewrites history. Everything runs under the store's write lock,
so no gitmem write is in flight while objects are pruned, and every ref moves in one
`git update-ref --stdin` transaction that checks each ref's old value.

What counts as "the forgotten text" of a memory id: every version of its file in any
scope's history (those blobs are replaced whole by a placeholder), plus, inside any
other blob or commit message, the text, its whitespace-collapsed form, its summary, its
key and its long lines. Needles shorter than MIN_BLOB_NEEDLE are searched for in commit
messages only, not inside other memories' files, so that forgetting "pin 4711" does
not silently edit another memory that mentions it; a commit whose only Gitmem-Id is a
forgotten memory has its subject (the summary) scrubbed whatever its length.
`redact --text` applies its string everywhere. Memories that dream merged into a
forgotten one (its `supersedes`) are forgotten with it.

The redaction record (for sync): one JSON file per operation, `records/<time>-<n>.json`
on `refs/gitmem/redactions` (a plain commit chain, never rewritten):

    {"op": "forget"|"redact", "ids": [...], "time": unix, "who": "Name <email>",
     "reason": str|null, "blobs": [old blob ids replaced or dropped],
     "commits": {old commit id: new commit id}, "refs": {ref: [old tip, new tip]}}

It holds no text. A clone that fetches it can map its refs through `commits`, refuse
to push any commit in its keys or any blob in `blobs`, and re-run the same purge for
`ids` locally (its own copies of these memories may differ).
"""

from __future__ import annotations

import datetime as dt
import json
import os
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

import pygit2

from . import access, model
from .errors import ConflictError, NotFound, UsageError
from .store import SCOPE_PREFIX, GitStore, format_message, git_env, parse_trailers, run_git

REDACTIONS_REF = "refs/gitmem/redactions"
MIN_NEEDLE = 6
MIN_BLOB_NEEDLE = 12  # shorter texts are not hunted inside *other* memories' files
MIN_LINE_NEEDLE = 24
FORGOTTEN_MARK = "[forgotten]"
REDACTED_MARK = "[redacted]"

_BLOB = pygit2.enums.ObjectType.BLOB
_TREE = pygit2.enums.ObjectType.TREE
_COMMIT = pygit2.enums.ObjectType.COMMIT


def placeholder(mem_id: str) -> bytes:
    """What every historical version of a forgotten memory's file becomes."""
    return (f"---\nid: {mem_id}\nsummary: '{FORGOTTEN_MARK}'\n---\n{FORGOTTEN_MARK}\n").encode()


def needles_of(mem: model.Memory) -> set[str]:
    """Strings that identify a memory's text inside other blobs and messages."""
    out = {mem.text.strip(), " ".join(mem.text.split()), mem.summary.rstrip("…").strip()}
    if mem.key:
        out.add(mem.key)
    out.update(ln.strip() for ln in mem.text.splitlines() if len(ln.strip()) >= MIN_LINE_NEEDLE)
    return {n for n in out if len(n) >= MIN_NEEDLE}


@dataclass
class Purge:
    """What a rewrite removes: whole files of some ids, and needles everywhere."""

    ids: set[str] = field(default_factory=set)
    needles: set[str] = field(default_factory=set)  # from the memories' versions
    strings: set[str] = field(default_factory=set)  # given explicitly (redact --text)
    key_paths: set[str] = field(default_factory=set)
    mark: str = FORGOTTEN_MARK


@dataclass
class Rewrite:
    commits: dict[str, str] = field(default_factory=dict)  # old -> new (changed only)
    blobs: set[str] = field(default_factory=set)  # old blob ids replaced or dropped
    refs: dict[str, tuple[str, str]] = field(default_factory=dict)  # ref -> (old, new)


class _Rewriter:
    """Rebuilds commits oldest-first; untouched trees and commits keep their ids."""

    def __init__(self, repo: pygit2.Repository, purge: Purge):
        self.repo = repo
        self.purge = purge
        self.files = {f"{i}.md" for i in purge.ids}
        self.bids = [i.encode() for i in purge.ids]
        inside = {n for n in purge.needles if len(n) >= MIN_BLOB_NEEDLE} | purge.strings
        self.bneedles = sorted({n.encode() for n in inside}, key=len, reverse=True)
        self.sneedles = sorted(purge.needles | purge.strings, key=len, reverse=True)
        self.mark = purge.mark.encode()
        self.blob_cache: dict[str, pygit2.Oid | None] = {}
        self.tree_cache: dict[tuple[str, str], pygit2.Oid | None] = {}
        self.commit_map: dict[str, str] = {}
        self.replaced: set[str] = set()

    # blobs ------------------------------------------------------------------------
    def _blob(self, oid: pygit2.Oid, name: str, path: str) -> pygit2.Oid | None:
        if path in self.purge.key_paths:
            self.replaced.add(str(oid))
            return None
        if name in self.files:
            new = self.repo.create_blob(placeholder(name[:-3]))
            if new != oid:
                self.replaced.add(str(oid))
            return new
        key = str(oid)
        if name == "MEMORY.md":
            key += ":index"
        if key not in self.blob_cache:
            data = self.repo[oid].data
            out = data
            if name == "MEMORY.md" and self.bids:
                # The generated index names forgotten ids next to (possibly cut) summaries.
                out = b"".join(ln for ln in out.splitlines(True) if not any(i in ln for i in self.bids))
            for n in self.bneedles:
                if n in out:
                    out = out.replace(n, self.mark)
            if out != data:
                self.replaced.add(str(oid))
                self.blob_cache[key] = self.repo.create_blob(out)
            else:
                self.blob_cache[key] = oid
        return self.blob_cache[key]

    def tree(self, oid: pygit2.Oid, prefix: str = "") -> pygit2.Oid | None:
        ck = (str(oid), prefix)
        if ck in self.tree_cache:
            return self.tree_cache[ck]
        tree = self.repo[oid]
        tb = self.repo.TreeBuilder(tree)
        changed = False
        for e in tree:
            path = prefix + e.name
            if e.type == _TREE:
                new = self.tree(e.id, path + "/")
            elif e.type == _BLOB:
                new = self._blob(e.id, e.name, path)
            else:
                continue  # submodule links carry no text
            if new is None:
                tb.remove(e.name)
                changed = True
            elif new != e.id:
                tb.insert(e.name, new, e.filemode)
                changed = True
        if not changed:
            result: pygit2.Oid | None = oid
        elif len(tb) == 0 and prefix:
            result = None
        else:
            result = tb.write()
        self.tree_cache[ck] = result
        return result

    def notes_tree(self, oid: pygit2.Oid) -> pygit2.Oid:
        """Notes are keyed by commit id: re-key rewritten commits, scrub note texts."""
        flat: dict[str, tuple[pygit2.Oid, int]] = {}
        stack = [(self.repo[oid], "")]
        while stack:
            t, where = stack.pop()
            for e in t:
                if e.type == _TREE:
                    stack.append((self.repo[e.id], where + e.name))
                else:
                    flat[where + e.name] = (e.id, e.filemode)
        changed = False
        tb = self.repo.TreeBuilder()
        for name, (boid, mode) in sorted(flat.items()):
            new_name = self.commit_map.get(name, name)
            new_blob = self._blob(boid, "", "")
            changed |= new_name != name or new_blob != boid or "/" in name
            tb.insert(new_name, new_blob, mode)
        if not changed:
            return oid
        return tb.write()

    # messages and commits -----------------------------------------------------------
    def message(self, msg: str) -> str:
        for n in self.sneedles:
            if n in msg:
                msg = msg.replace(n, self.purge.mark)
        # A commit about exactly one forgotten memory has its summary as subject: scrub
        # it whatever its length (short summaries are not searched for as needles).
        trailers = parse_trailers(msg)
        ids = trailers.get("Gitmem-Id", [])
        if len(ids) == 1 and ids[0] in self.purge.ids and trailers.get("Gitmem-Op"):
            subject, sep, rest = msg.partition("\n")
            op = trailers["Gitmem-Op"][0]
            if op not in ("forget", "dream", "undream") and subject != f"{op}: {self.purge.mark}":
                msg = f"{op}: {self.purge.mark}" + sep + rest
        return msg

    def commit(self, c: pygit2.Commit, notes: bool = False) -> str:
        key = str(c.id)
        if key in self.commit_map:
            return self.commit_map[key]
        if notes:
            tree = self.notes_tree(c.tree_id)
        else:
            tree = self.tree(c.tree_id)
            if tree is None:
                tree = self.repo.TreeBuilder().write()
        parents = [pygit2.Oid(hex=self.commit_map.get(str(p), str(p))) for p in c.parent_ids]
        msg = self.message(c.message)
        if tree == c.tree_id and parents == list(c.parent_ids) and msg == c.message:
            new = key
        else:
            new = str(self.repo.create_commit(None, c.author, c.committer, msg, tree, parents))
        self.commit_map[key] = new
        return new

    def run(self, roots: dict[str, str]) -> Rewrite:
        out = Rewrite()
        # Scope history first: notes are keyed by the ids it produces.
        groups = [
            {r: t for r, t in roots.items() if not r.startswith("refs/notes/")},
            {r: t for r, t in roots.items() if r.startswith("refs/notes/")},
        ]
        for notes, group in enumerate(groups):
            if not group:
                continue
            tips = [pygit2.Oid(hex=t) for t in group.values()]
            walker = self.repo.walk(tips[0], pygit2.enums.SortMode.TOPOLOGICAL | pygit2.enums.SortMode.REVERSE)
            for t in tips[1:]:
                walker.push(t)
            for c in walker:
                self.commit(c, notes=bool(notes))
            for ref, tip in group.items():
                new = self.commit_map.get(tip, tip)
                if new != tip:
                    out.refs[ref] = (tip, new)
        out.commits = {k: v for k, v in self.commit_map.items() if k != v}
        out.blobs = set(self.replaced)
        return out


def tree_with(repo: pygit2.Repository, tree: pygit2.Tree | None, changes: dict[str, Any]) -> pygit2.Oid:
    """`tree` with path -> bytes | None changes, written as loose objects through libgit2
    (the rewrite creates its commits with libgit2, which must see every object)."""
    def build(t: pygit2.Tree | None, ch: dict[str, Any]) -> pygit2.Oid | None:
        tb = repo.TreeBuilder(t) if t is not None else repo.TreeBuilder()
        nested: dict[str, dict[str, Any]] = {}
        for path, value in ch.items():
            head, sep, rest = path.partition("/")
            if sep:
                nested.setdefault(head, {})[rest] = value
            elif value is None:
                if tb.get(head) is not None:
                    tb.remove(head)
            else:
                tb.insert(head, repo.create_blob(value), pygit2.enums.FileMode.BLOB)
        for name, sub in nested.items():
            existing = tb.get(name)
            subtree = repo[existing.id] if existing is not None and existing.type == _TREE else None
            new = build(subtree, sub)
            if new is None:
                if existing is not None:
                    tb.remove(name)
            else:
                tb.insert(name, new, pygit2.enums.FileMode.TREE)
        return tb.write() if len(tb) else None

    return build(tree, changes) or repo.TreeBuilder().write()


# ---- finding what to forget ------------------------------------------------------------
def rewrite_roots(git: GitStore) -> tuple[dict[str, str], dict[str, tuple[str, str]]]:
    """Every ref whose history may hold memory text (all but the redaction ledger):
    commit refs, and annotated tags as tag ref -> (tag object, peeled commit)."""
    out: dict[str, str] = {}
    tags: dict[str, tuple[str, str]] = {}
    for name, target in git.refs("refs/").items():
        if name == REDACTIONS_REF:
            continue
        obj = git.repo.get(target)
        if obj is None:
            continue
        if obj.type == _COMMIT:
            out[name] = target
        elif obj.type == pygit2.enums.ObjectType.TAG:
            try:
                tags[name] = (target, str(obj.peel(pygit2.Commit).id))
            except (ValueError, pygit2.GitError):
                pass  # a tag of a tree or blob: gitmem never writes one
    return out, tags


def scan_versions(git: GitStore, roots: Iterable[str], ids: set[str]) -> dict[str, set[str]]:
    """id -> blob ids of every version of its file anywhere in the given histories."""
    names = {f"{i}.md": i for i in ids}
    found: dict[str, set[str]] = {}
    seen_trees: set[str] = set()
    tips = [pygit2.Oid(hex=t) for t in roots]
    if not tips or not names:
        return found
    walker = git.repo.walk(tips[0], pygit2.enums.SortMode.NONE)
    for t in tips[1:]:
        walker.push(t)
    for c in walker:
        stack = [c.tree_id]
        while stack:
            toid = stack.pop()
            if str(toid) in seen_trees:
                continue
            seen_trees.add(str(toid))
            for e in git.repo[toid]:
                if e.type == _TREE:
                    stack.append(e.id)
                elif e.name in names:
                    found.setdefault(names[e.name], set()).add(str(e.id))
    return found


def _live(store, ids: Iterable[str]) -> dict[str, list[tuple[str, str]]]:
    """id -> [(scope, path)] where the id is live (memories/ or archive/) at a tip."""
    out: dict[str, list[tuple[str, str]]] = {}
    for scope in store.git.scopes():
        tip = store.git.tip(scope)
        for i in ids:
            path = store._find_in(tip, i)
            if path:
                out.setdefault(i, []).append((scope, path))
    return out


def resolve(store, refs: Iterable[str]) -> list[str]:
    """Ids for ids-or-keys; ids that are only in history are accepted too."""
    out: list[str] = []
    for ref in refs:
        try:
            _, mem_id, _ = store.locate(ref)
        except NotFound:
            if not model.is_id(ref):
                raise
            mem_id = ref  # maybe only in history (soft-forgotten, merged): checked later
        if mem_id not in out:
            out.append(mem_id)
    if not out:
        raise UsageError("no ids given", hint="gitmem forget ID... or gitmem forget --query Q")
    return out


def find(store, query: str, *, archived: bool = True) -> list[model.Memory]:
    """Live memories whose text, summary, key or tags contain every word of `query`."""
    words = [w.casefold() for w in query.split()]
    if not words:
        raise UsageError("empty query")
    out = []
    for m in store.list(all_scopes=True, archived=archived):
        hay = " ".join([m.text, m.summary, m.key or "", " ".join(m.tags)]).casefold()
        if all(w in hay for w in words):
            out.append(m)
    return out


# ---- the operations --------------------------------------------------------------------
def _revert_changes(store, tip, mem_id: str, path: str) -> dict[str, Any]:
    changes: dict[str, Any] = {path: None}
    data = store.git.read(tip, path)
    mem = model.parse(data, path=path) if data else None
    if mem and mem.key:
        from .api import key_path

        kp = key_path(mem.key)
        if store._key_id(tip, mem.key) == mem_id:
            changes[kp] = None
    return changes


def _revert_message(store, op: str, ids: list[str], scope: str, reason: str | None) -> str:
    red = store._redactor()
    n = len(ids)
    if n:
        subject = f"{op}: {n} memor{'y' if n == 1 else 'ies'} ({', '.join(ids[:3])}{'…' if n > 3 else ''})"
    else:
        subject = f"{op}: purged a leaked string from this scope's history"
    trailers = store._trailers(op, ids, scope, red)
    if reason:
        trailers.append(("Gitmem-Reason", red.text(reason, "reason")))
    return format_message(subject, None, trailers)


def forget(store, refs: Iterable[str], reason: str | None = None, keep_history: bool = False) -> dict[str, Any]:
    """Remove memories with one revert commit per scope, then (unless keep_history)
    purge their text from every object, reflog and the index."""
    ids = resolve(store, refs)
    if keep_history:
        live = _live(store, ids)
        missing = [i for i in ids if i not in live]
        if missing:
            raise NotFound(f"no live memory {missing[0]}", hint="`gitmem list` shows ids")
        commits = {}
        for scope in sorted({s for places in live.values() for s, _ in places}):
            mine = [i for i in ids if any(s == scope for s, _ in live[i])]

            def build(tip, mine=mine, scope=scope):
                changes: dict[str, Any] = {}
                for i in mine:
                    path = store._find_in(tip, i)
                    if path:
                        changes.update(_revert_changes(store, tip, i, path))
                if not changes:
                    return None
                return changes, _revert_message(store, "forget", mine, scope, reason)

            c = store.git.commit(scope, build, store._author())
            if c:
                commits[scope] = c
        return {"ids": ids, "commits": commits, "keep_history": True, "purged": False}
    return _purge(store, ids=ids, text=None, reason=reason)


def redact_text(store, text: str, reason: str | None = None) -> dict[str, Any]:
    """Purge a leaked string from every scope's history and the index."""
    if not isinstance(text, str) or len(text.strip()) < MIN_NEEDLE:
        raise UsageError(f"the string to redact must be at least {MIN_NEEDLE} characters",
                         hint="a shorter string would rewrite unrelated memories")
    return _purge(store, ids=[], text=text, reason=reason)


def _purge(store, ids: list[str], text: str | None, reason: str | None) -> dict[str, Any]:
    git: GitStore = store.git
    op = "forget" if ids else "redact"
    with git.write_lock(timeout=120.0):
        roots, tags = rewrite_roots(git)
        tag_roots = {f"{ref}^{{}}": peeled for ref, (_, peeled) in tags.items()}
        purge = Purge(mark=FORGOTTEN_MARK if ids else REDACTED_MARK)
        if text is not None:
            purge.strings.add(text)
        # Close over supersedes: texts dream merged into a forgotten memory go too.
        todo = set(ids)
        versions: dict[str, set[str]] = {}
        while todo:
            purge.ids |= todo
            found = scan_versions(git, list(roots.values()) + list(tag_roots.values()), todo)
            todo = set()
            for i, blobs in found.items():
                versions.setdefault(i, set()).update(blobs)
                for b in blobs:
                    mem = model.parse(git.blob(b))
                    purge.needles |= needles_of(mem)
                    if mem.key:
                        from .api import key_path

                        purge.key_paths.add(key_path(mem.key))
                    todo |= {s for s in mem.supersedes if model.is_id(s)} - purge.ids
        missing = [i for i in ids if i not in versions]
        if missing:
            raise NotFound(f"no memory {missing[0]} in any scope or history",
                           hint="`gitmem list` shows ids; `gitmem log` shows history")
        all_ids = sorted(purge.ids & set(versions))
        # 1. The revert commits: the audit trail (ids, who, when, why; never text).
        reverts: dict[str, str] = {}
        live = _live(store, all_ids)
        scopes_hit = sorted({s for places in live.values() for s, _ in places})
        for scope in scopes_hit:
            tip = git.tip(scope)
            mine = [i for i in all_ids if any(s == scope for s, _ in live.get(i, []))]
            changes: dict[str, Any] = {}
            for i in mine:
                for s, path in live[i]:
                    if s == scope:
                        changes.update(_revert_changes(store, tip, i, path))
            tree = tree_with(git.repo, tip.tree, changes)
            msg = _revert_message(store, op, mine, scope, reason)
            c = git.repo.create_commit(None, store._author(), store._author(), msg, tree, [tip.id])
            reverts[scope] = str(c)
        if op == "redact":
            # The audit commit for a redaction: which scopes, never the string.
            for scope, tip_id in git.scopes().items():
                tip = git.tip(scope)
                msg = _revert_message(store, "redact", [], scope, reason)
                c = git.repo.create_commit(None, store._author(), store._author(), msg, tip.tree_id, [tip.id])
                reverts[scope] = str(c)
        # 2. Rewrite every history that holds the text (the new revert commits included).
        start = {**roots, **tag_roots}
        for scope, c in reverts.items():
            start[SCOPE_PREFIX + scope] = c
        # Entries of rebuilt trees are old objects or ones we just wrote: skip libgit2's
        # per-entry existence check, which costs a lookup in every pack of the store.
        pygit2.settings.enable_strict_object_creation(False)
        try:
            rw = _Rewriter(git.repo, purge).run(start)
        finally:
            pygit2.settings.enable_strict_object_creation(True)
        if op == "redact":
            # Scopes the string never touched keep their history: drop their audit commit.
            for scope, c in reverts.items():
                ref = SCOPE_PREFIX + scope
                new = rw.refs.get(ref, (c, c))[1]
                tip_before = roots[ref]
                parent = str(git.repo[new].parent_ids[0])
                if parent == tip_before:
                    rw.refs.pop(ref, None)
                    start[ref] = tip_before
        updates = []
        for ref, old in roots.items():
            new = rw.refs[ref][1] if ref in rw.refs else start.get(ref, old)
            if new != old:
                updates.append((ref, new, old))
        # An annotated tag would keep the old history reachable: it goes (reported).
        dropped_tags = []
        for ref, (tag_obj, peeled) in tags.items():
            if rw.refs.get(f"{ref}^{{}}", (peeled, peeled))[1] != peeled:
                updates.append((ref, "", tag_obj))
                dropped_tags.append(ref)
        if op == "redact" and not updates:
            raise NotFound("the string is in no memory, message or history",
                           hint="nothing was changed")
        # 3. The redaction record: ids, blob hashes, the commit map; never the text.
        now = int(time.time())
        record = {
            "op": op, "ids": all_ids, "time": now,
            "who": "{} <{}>".format(*store.identity()),
            "reason": reason, "blobs": sorted(rw.blobs),
            "commits": rw.commits,
            "refs": {r: [o, n] for r, n, o in updates},
        }
        ledger_old = git.refs(REDACTIONS_REF).get(REDACTIONS_REF)
        ledger_tip = git.repo[ledger_old] if ledger_old else None
        rec_path = f"records/{dt.datetime.fromtimestamp(now, dt.timezone.utc):%Y%m%dT%H%M%SZ}-{model.new_id()}.json"
        rec_tree = tree_with(git.repo, ledger_tip.tree if ledger_tip else None, {rec_path: (json.dumps(record, indent=1, sort_keys=True) + "\n").encode()})
        trailers = [("Gitmem-Op", op)] + [("Gitmem-Id", i) for i in all_ids]
        rec_msg = format_message(f"{op}: redaction record {rec_path.rsplit('/', 1)[-1]}", None, trailers)
        ledger_new = git.repo.create_commit(None, store._author(), store._author(), rec_msg, rec_tree,
                                            [ledger_tip.id] if ledger_tip else [])
        updates.append((REDACTIONS_REF, str(ledger_new), ledger_old))
        update_refs_cas(git, updates, message=f"gitmem {op}")
        # 4. No way back: expire reflogs, drop unreachable objects, purge derived copies.
        touched = set(all_ids)
        for ref, old in roots.items():
            if ref.startswith(SCOPE_PREFIX):
                for path, blob in git.walk_files(git.repo[old]):
                    name = path.rsplit("/", 1)[-1]
                    if blob in rw.blobs and name.endswith(".md") and model.is_id(name[:-3]):
                        touched.add(name[:-3])
        prune(git)
        reopen(git)
        access.drop(store.home, all_ids)
        index_note = purge_index(store, touched)
    return {
        "op": op, "ids": all_ids, "merged": [i for i in all_ids if i not in ids],
        "reason": reason, "commits": {r[len(SCOPE_PREFIX):]: n for r, n, _ in updates if r.startswith(SCOPE_PREFIX)},
        "rewritten_commits": len(rw.commits), "replaced_blobs": len(rw.blobs),
        "refs": [u[0] for u in updates], "deleted_tags": dropped_tags, "record": rec_path, "index": index_note, "purged": True,
        "keep_history": False,
    }


def update_refs_cas(git: GitStore, updates: list[tuple[str, str, str | None]], message: str = "gitmem") -> None:
    """Move refs atomically, each only if it still points where it did.

    `updates` holds (ref, new, expected old); old None means "must not exist yet", new
    "" means delete.
    libgit2's create_commit only checks fast-forwards, so a history rewrite goes through
    `git update-ref --stdin`: every ref moves or none does."""
    if not updates:
        return
    zero = "0" * 40
    script = "".join(f"update {name} {new} {old or zero}\n" if new else f"delete {name} {old}\n"
                     for name, new, old in updates)
    res = subprocess.run(["git", f"--git-dir={git.path}", "update-ref", "-m", message, "--stdin"],
                         input=script.encode(), capture_output=True, env=git_env())
    if res.returncode != 0:
        detail = res.stderr.decode(errors="replace").strip().splitlines()
        raise ConflictError("refs moved during the operation; nothing was changed"
                            + (f": {detail[-1]}" if detail else ""),
                            hint="another process wrote to the store; retry")


def reopen(git: GitStore) -> None:
    """Drop libgit2's handles on the packs a repack deleted."""
    git.repo = pygit2.Repository(str(git.path))


def prune(git: GitStore, gc_wait: float = 120.0) -> None:
    """Expire every reflog and drop every unreachable object, loose or packed."""
    # A background `gc --auto` started by an earlier write would repack from the old
    # refs and could write the old objects into a fresh pack after our prune: wait it out.
    # The store's background maintenance (geometric repack, gc --auto) runs under these
    # locks; holding them waits for a running one and keeps new ones out meanwhile, so
    # none can fold the old objects into a fresh pack behind our back.
    with git.maintenance_paused(timeout=gc_wait):
        _wait_for_gc(git.path, gc_wait)
        run_git(git.path, "reflog", "expire", "--expire=now", "--expire-unreachable=now", "--all")
        run_git(git.path, "repack", "-a", "-d", "-q")
        run_git(git.path, "prune", "--expire=now")
        for stale in ("ORIG_HEAD", "FETCH_HEAD"):
            (git.path / stale).unlink(missing_ok=True)


def _wait_for_gc(path: Path, timeout: float) -> None:
    pidfile = Path(path) / "gc.pid"
    deadline = time.monotonic() + timeout
    while pidfile.exists() and time.monotonic() < deadline:
        try:
            pid = int(pidfile.read_text().split()[0])
            os.kill(pid, 0)
        except (OSError, ValueError, IndexError):
            return  # stale pid file (or another host's): nothing running here
        time.sleep(0.1)
    if pidfile.exists() and time.monotonic() >= deadline:
        raise ConflictError("a `git gc` is still running on the store",
                            hint="retry the forget when it has finished")


def purge_index(store, ids: Iterable[str]) -> str:
    """Remove the index's copy of forgotten text: drop the ids, then rebuild into a new
    file that is swapped in (compacting in place would leave old pages behind). If that
    fails, delete the index files: the index is derived and rebuilds itself."""
    ids = sorted(set(ids))
    home = Path(store.home)
    try:
        from .index import Index, drop_ids, index_path
    except ImportError:
        return _delete_index(home)
    if not index_path(home).exists():
        return "absent"
    try:
        from .dream import get_embedder

        drop_ids(home, ids, config=store.config)
        Index(home, store.git, store.config, get_embedder(store.config)[0]).rebuild()
        return "rebuilt"
    except Exception:  # any index trouble: the safe fallback is no index at all
        return _delete_index(home)


def _delete_index(home: Path) -> str:
    removed = 0
    for p in home.glob("index.duckdb*"):
        p.unlink(missing_ok=True)
        removed += 1
    for p in home.glob(".index.duckdb*"):
        p.unlink(missing_ok=True)
    return "deleted" if removed else "absent"
