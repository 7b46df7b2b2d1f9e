"""History rewrites: rebuild every commit reachable from a set of refs, oldest first,
with blobs and messages passed through a policy. Untouched trees and commits keep their
ids. New objects go through the codec and out as one pack (pack.py)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from gitmem.store.objects import Rev
from gitmem.store.pack import OBJ_BLOB, OBJ_COMMIT, OBJ_TREE, TREE_MODE, PackWriter, parse_tree, tree_bytes
from gitmem.store.repo import GitStore

_GITLINK = 0o160000


class Policy(Protocol):
    """What a rewrite changes. `blob` gets a file's path and plaintext and returns the
    new plaintext (the same object when unchanged) or None to drop the file;
    `message` gets a decoded commit message and returns the new one. Blobs whose id is
    in `blob_ids` are not read at all: `whole(path)` replaces them (None drops them)."""

    blob_ids: set[str]

    def whole(self, path: str) -> bytes | None: ...

    def blob(self, path: str, data: bytes) -> bytes | None: ...

    def message(self, message: str) -> str: ...


@dataclass
class Rewrite:
    commits: dict[str, str] = field(default_factory=dict)  # old -> new (changed only)
    blobs: set[str] = field(default_factory=set)  # old blob ids replaced or dropped
    blob_map: dict[str, str] = field(default_factory=dict)  # old -> new blob id ("" dropped)
    refs: dict[str, tuple[str, str]] = field(default_factory=dict)  # ref -> (old, new)


class _Rewriter:
    def __init__(self, git: GitStore, policy: Policy, recode=None):
        self.git = git
        self.codec = git.codec
        # `recode`: the codec the history was written with, when it differs from the
        # store's (turning encryption on): every blob and message is re-encoded.
        self.decoder = recode or git.codec
        self.recode = recode is not None
        # Blobs and messages sealed with a key that is being shredded are re-encoded.
        self.stale = getattr(self.codec, "stale", None)
        self.policy = policy
        self.pack = PackWriter()
        self.blob_cache: dict[tuple[bytes, str], bytes | None] = {}
        self.tree_cache: dict[tuple[bytes, str], bytes | None] = {}
        self.commit_map: dict[str, str] = {}
        self.replaced: set[str] = set()
        self.known_blobs: dict[str, str] = {}  # old -> new, from another clone's rewrite
        self.known_commits: dict[str, str] = {}
        self.blob_map: dict[str, str] = {}

    def _blob(self, oid: bytes, path: str, new_path: str | None = None) -> bytes | None:
        name = path.rsplit("/", 1)[-1]
        key = (oid, name if new_path is None else name + "\x00" + new_path)
        if key in self.blob_cache:
            return self.blob_cache[key]
        target = path if new_path is None else new_path
        known = self.known_blobs.get(oid.hex())
        if known is not None and new_path is None:
            # What another clone made of it, itself under this policy (so a later record
            # that clone had not applied yet still holds).
            result = self._blob(bytes.fromhex(known), path) if known else None
            self.replaced.add(oid.hex())
            self.blob_map[oid.hex()] = result.hex() if result is not None else ""
            self.blob_cache[key] = result
            return result
        if oid.hex() in self.policy.blob_ids:
            out = self.policy.whole(path)  # replaced unread
            unchanged = False
        else:
            raw = self.git.object_bytes(oid)
            plain = self._decode(path, raw)
            out = self.policy.blob(path, plain)
            unchanged = out is not None and target == path and (out is plain or out == plain)
            if unchanged and (self.recode or (self.stale is not None and self.stale(raw))):
                unchanged = False
        if out is None:
            result = None
        elif unchanged:
            result = oid
        else:
            result = self.pack.add(OBJ_BLOB, self.codec.encode(target, out))
        if result != oid:
            self.replaced.add(oid.hex())
            self.blob_map[oid.hex()] = result.hex() if result is not None else ""
        self.blob_cache[key] = result
        return result

    def _decode(self, path: str, raw: bytes) -> bytes:
        if not self.recode:
            return self.git.decode_blob(path, raw)
        try:
            return self.decoder.decode(path, raw)
        except ValueError as e:
            from gitmem.core.errors import CorruptObject
            raise CorruptObject(f"cannot decode {path}: {e}", hint="`git fsck`") from e

    def _decode_message(self, raw: str) -> str:
        return self.decoder.decode_message(raw)

    def tree(self, oid: bytes, prefix: str = "") -> bytes | None:
        ck = (oid, prefix)
        if ck in self.tree_cache:
            return self.tree_cache[ck]
        entries = parse_tree(self.git.object_bytes(oid))
        out: dict[str, tuple[int, bytes]] = {}
        changed = False
        for name, (mode, eid) in entries.items():
            path = prefix + name
            if mode == TREE_MODE:
                new = self.tree(eid, path + "/")
            elif mode == _GITLINK:
                new = eid  # submodule links carry no text
            else:
                new = self._blob(eid, path)
            if new is None:
                changed = True
                continue
            changed |= new != eid
            out[name] = (mode, new)
        if not changed:
            result: bytes | None = oid
        elif not out and prefix:
            result = None
        else:
            result = self.pack.add(OBJ_TREE, tree_bytes(out))
        self.tree_cache[ck] = result
        return result

    def notes_tree(self, oid: bytes) -> bytes:
        """Notes are keyed by commit id: re-key rewritten commits, scrub note texts."""
        flat: dict[str, tuple[int, bytes]] = {}
        stack = [(oid, "")]
        while stack:
            toid, where = stack.pop()
            for name, (mode, eid) in parse_tree(self.git.object_bytes(toid)).items():
                if mode == TREE_MODE:
                    stack.append((eid, where + name))
                else:
                    flat[where + name] = (mode, eid)
        changed = False
        out: dict[str, tuple[int, bytes]] = {}
        for name, (mode, eid) in sorted(flat.items()):
            new_name = self.commit_map.get(name, name)
            new = self._blob(eid, name, new_path=new_name if new_name != name else None)
            changed |= new_name != name or new != eid or len(name) != 40
            if new is not None:
                out[new_name] = (mode, new)
        if not changed:
            return oid
        return self.pack.add(OBJ_TREE, tree_bytes(out))

    def commit(self, c: Rev, notes: bool) -> str:
        key = c.id
        if key in self.commit_map:
            return self.commit_map[key]
        other = self.known_commits.get(key)
        if other is not None and other != key:
            # Another clone rewrote this commit: take its result, rewritten in turn under
            # this policy (unchanged when it already is clean), so histories converge.
            self.known_commits.pop(key)
            new = self.commit(self.git.commit_obj(other), notes)
            self.commit_map[key] = new
            return new
        old_tree = bytes.fromhex(c.tree_id)
        if notes:
            tree = self.notes_tree(old_tree)
        else:
            tree = self.tree(old_tree)
            if tree is None:
                tree = self.pack.add(OBJ_TREE, b"")
        parents = [self.commit_map.get(p, p) for p in c.parents]
        plain_msg = self._decode_message(c.raw_message)
        msg = self.policy.message(plain_msg)
        same_msg = msg == plain_msg and not self.recode and not (
            self.stale is not None and self.stale(c.raw_message.encode("utf-8")))
        if tree == old_tree and parents == c.parents and same_msg:
            new = key
        else:
            enc = c.raw_message if same_msg else self.codec.encode_message(msg)
            new = self.pack.add(OBJ_COMMIT, _commit_raw(c.raw(), tree, parents, enc)).hex()
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
            for c in self.git.walk(list(group.values()), reverse=True):
                self.commit(c, notes=bool(notes))
            for ref, tip in group.items():
                new = self.commit_map.get(tip, tip)
                if new != tip:
                    out.refs[ref] = (tip, new)
        keyring = self.git.stage_keys(self.pack)
        self.pack.write(self.git.path, self.git.fsync)
        self.git.publish_keys(keyring)
        out.commits = {k: v for k, v in self.commit_map.items() if k != v}
        out.blobs = set(self.replaced)
        out.blob_map = dict(self.blob_map)
        return out


def _commit_raw(raw: bytes, tree: bytes, parents: list[str], message: str) -> bytes:
    """The raw commit with a new tree, parents and message; author, committer and
    other headers kept as they were (a signature would no longer match: dropped)."""
    head, _, _ = raw.partition(b"\n\n")
    lines = [b"tree " + tree.hex().encode()] + [b"parent " + p.encode() for p in parents]
    skipping = False
    for line in head.split(b"\n"):
        if line.startswith(b" ") and skipping:
            continue
        skipping = False
        if line.startswith((b"tree ", b"parent ")):
            continue
        if line.startswith((b"gpgsig", b"gpgsig-sha256")):
            skipping = True
            continue
        lines.append(line)
    return b"\n".join(lines) + b"\n\n" + message.encode("utf-8")


def rewrite(git: GitStore, roots: dict[str, str], policy: Policy,
            known: dict[str, str] | None = None, known_blobs: dict[str, str] | None = None,
            recode=None) -> Rewrite:
    """Rewrite the histories of `roots` (ref -> commit) under `policy`; objects are
    written, refs are not moved (use GitStore.update_refs with the result). `known`
    maps commits another clone already rewrote to its results: where the result is
    here too, the commit maps to it unread (so clones that share history end with the
    same rewritten history, commit for commit; the result is itself rewritten under
    this policy, which leaves it as it is when it is clean); `known_blobs` does the same
    for blobs
    ("" meaning the other clone dropped the file)."""
    rw = _Rewriter(git, policy, recode)
    for old, new in (known or {}).items():
        if old != new and git.has_commit(new):
            rw.known_commits[old] = new
    for old, new in (known_blobs or {}).items():
        if not new or git.has_object(new):
            rw.known_blobs[old] = new
    out = rw.run(roots)
    return out


def raw_ref(name: str) -> bool:
    """Refs gitmem writes raw, outside the codec (the keyring, the store marker, and
    their copies fetched from remotes): no rewrite touches them."""
    tail = name.rsplit("/", 1)[-1]
    return name.startswith("refs/gitmem/") and tail in ("keyring", "meta")


def rewrite_roots(git: GitStore, exclude: tuple[str, ...] = ()) -> tuple[dict[str, str], dict[str, tuple[str, str]]]:
    """Every ref whose history may hold memory text: commit refs, and annotated tags as
    tag ref -> (tag object, peeled commit)."""
    out: dict[str, str] = {}
    tags: dict[str, tuple[str, str]] = {}
    for name, target in git.refs("refs/").items():
        if name in exclude or raw_ref(name):
            continue
        if git.has_commit(target):
            out[name] = target
        else:
            peeled = git.peel_tag(target)
            if peeled is not None:
                tags[name] = (target, peeled)
    return out, tags


def scan_versions(git: GitStore, roots: list[str], names: dict[str, str], hide: list[str] = (),
                  blob_ids: set[str] = frozenset(), commit_ids: set[str] = frozenset()) -> dict[str, set[str]]:
    """file name -> label map; returns label -> blob ids of every file with that name
    anywhere in the histories of `roots` (not of `hide`): e.g. every version of a
    memory's file. Blobs whose id is in `blob_ids`, and commits whose id is in
    `commit_ids`, are reported under the label ''."""
    found: dict[str, set[str]] = {}
    seen: set[bytes] = set()
    if not roots or not (names or blob_ids or commit_ids):
        return found
    for c in git.walk(roots, hide=hide):
        if c.id in commit_ids:
            found.setdefault("", set()).add(c.id)
        stack = [bytes.fromhex(c.tree_id)]
        while stack:
            toid = stack.pop()
            if toid in seen:
                continue
            seen.add(toid)
            for name, (mode, eid) in parse_tree(git.object_bytes(toid)).items():
                if mode == TREE_MODE:
                    stack.append(eid)
                elif name in names:
                    found.setdefault(names[name], set()).add(eid.hex())
                elif blob_ids and eid.hex() in blob_ids:
                    found.setdefault("", set()).add(eid.hex())
    return found
