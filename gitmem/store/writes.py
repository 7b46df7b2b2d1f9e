"""GitStore's write path (mixed into GitStore): trees and commits staged into one pack with
the data keys the codec made, then a compare-and-swap move of the ref under the store's
write lock; multi-ref transactions; pins. pack.py writes the objects."""

from __future__ import annotations

import time
from typing import Callable, Mapping

import pygit2

from gitmem.core.errors import ConflictError, UsageError
from gitmem.core.model import check_scope
from gitmem.store import crypto
from gitmem.store import refs as refmod
from gitmem.store.objects import (
    BLOB_MODE,
    OBJ_TYPE_COMMIT,
    OBJ_TYPE_TAG,
    SCOPE_PREFIX,
    Change,
    Draft,
    Keep,
    Rev,
    Signature,
)
from gitmem.store.pack import (
    OBJ_BLOB,
    OBJ_COMMIT,
    OBJ_TREE,
    TREE_MODE,
    PackWriter,
    commit_bytes,
    parse_tree,
    tree_bytes,
)


class Writes:
    # ---- writing ------------------------------------------------------------------
    def _build_tree(self, pack: PackWriter, tree_raw_id: bytes | None,
                    changes: Mapping[str, Change], prefix: str = "", raw: bool = False) -> bytes | None:
        """Add the changed trees (and encoded new blobs) to `pack`; returns the root's raw id."""
        entries = parse_tree(self.object_bytes(tree_raw_id.hex())) if tree_raw_id else {}
        nested: dict[str, dict[str, Change]] = {}
        for path, value in changes.items():
            head, sep, rest = path.partition("/")
            if not head or head in (".", "..") or "\x00" in head:
                raise UsageError(f"invalid path {prefix + path!r}")
            if sep:
                nested.setdefault(head, {})[rest] = value
            elif value is None:
                entries.pop(head, None)
            elif isinstance(value, Keep):
                entries[head] = (BLOB_MODE, bytes.fromhex(value.blob))
            else:
                data = bytes(value) if raw else self.codec.encode(prefix + path, bytes(value))
                entries[head] = (BLOB_MODE, pack.add(OBJ_BLOB, data))
        for name, sub in nested.items():
            existing = entries.get(name)
            sub_id = existing[1] if existing is not None and existing[0] == TREE_MODE else None
            new = self._build_tree(pack, sub_id, sub, prefix + name + "/", raw)
            if new is None:
                entries.pop(name, None)
            else:
                entries[name] = (TREE_MODE, new)
        if not entries:
            return None
        return pack.add(OBJ_TREE, tree_bytes(entries))

    def _stage_commit(self, pack: PackWriter, base: Rev | None, changes: Mapping[str, Change],
                      message: str, parents: list[str], author: Signature,
                      committer: Signature | None, raw: bool = False) -> bytes:
        root = self._build_tree(pack, bytes.fromhex(base.tree_id) if base is not None else None, changes, raw=raw)
        if root is None:
            root = pack.add(OBJ_TREE, b"")
        raw_parents = [bytes.fromhex(p) for p in parents]
        body = commit_bytes(root, raw_parents, author, committer or author,
                            message if raw else self.codec.encode_message(message))
        return pack.add(OBJ_COMMIT, body)

    def stage_keys(self, pack: PackWriter, author: Signature | None = None) -> str | None:
        """New data keys the codec made for this write, as a new keyring commit in the
        same pack (moved by publish_keys before the ref that needs them)."""
        entries = self.codec.staged_entries() if hasattr(self.codec, "staged_entries") else {}
        if not entries:
            return None
        tip = self.ref_tip(crypto.KEYRING_REF)
        sig = Signature("gitmem", "gitmem@localhost", int(time.time()))
        return self._stage_commit(pack, tip, entries, "gitmem keyring\n", [], sig, None, raw=True).hex()

    def publish_keys(self, keyring: str | None) -> None:
        """Move the keyring ref to a commit stage_keys made (caller holds the write
        lock). Not fsynced: the commit itself is in the fsynced pack, and a key a lost
        ref update leaves out is found in it again (crypto.Aead._recover)."""
        if keyring is not None:
            refmod.write_ref(self.path, crypto.KEYRING_REF, keyring, False)
            self.codec.committed(keyring)

    def orphan_keyrings(self) -> list[Rev]:
        """Keyring commits no ref names (see publish_keys), newest first."""
        current = self.ref(crypto.KEYRING_REF)
        out = []
        for oid in self._repo.odb:
            try:
                obj = self._repo[oid]
            except (KeyError, ValueError, pygit2.GitError):
                continue
            if obj.type == OBJ_TYPE_COMMIT and not obj.parent_ids and obj.message == "gitmem keyring\n" \
                    and str(obj.id) != current:
                out.append(Rev(obj))
        return sorted(out, key=lambda r: -r.time)

    def write_raw_commit(self, base: Rev | None, changes: Mapping[str, Change], message: str,
                         author: Signature, parents: list[str]) -> str:
        """Write a commit of raw (not encoded) files, no ref moved: for the refs gitmem
        writes raw (the keyring, the store marker)."""
        pack = PackWriter()
        oid = self._stage_commit(pack, base, changes, message, parents, author, None, raw=True).hex()
        pack.write(self.path, self.fsync)
        return oid

    def write_commit(self, base: Rev | None, changes: Mapping[str, Change], message: str,
                     author: Signature, *, parents: list[str] | None = None,
                     committer: Signature | None = None) -> str:
        """Write `base`'s tree with `changes` applied and a commit of it (parents default
        to [base]); no ref moves. Returns the commit id."""
        if parents is None:
            parents = [base.id] if base is not None else []
        pack = PackWriter()
        oid = self._stage_commit(pack, base, changes, message, parents, author, committer)
        keyring = self.stage_keys(pack, author)
        pack.write(self.path, self.fsync)
        self.publish_keys(keyring)
        return oid.hex()

    def commit(self, scope: str, build: Callable[[Rev | None], Draft | tuple | None],
               author: Signature, committer: Signature | None = None, retries: int = 500) -> str | None:
        """Compare-and-swap commit on a scope's branch (see commit_ref)."""
        check_scope(scope)
        return self.commit_ref(SCOPE_PREFIX + scope, build, author, committer, retries)

    def commit_ref(self, ref: str, build: Callable[[Rev | None], Draft | tuple | None],
                   author: Signature, committer: Signature | None = None, retries: int = 500,
               raw: bool = False) -> str | None:
        """Compare-and-swap commit on any ref (`raw`: files and message not encoded).

        `build(tip)` returns (changes, message), a Draft (for extra parents, a merge), or
        None for "nothing to do", computed against the current tip. Under the store's
        write lock the tip is read, the new objects are written as one pack, and the ref
        moves only if it still points at the tip that was read (a writer bypassing the
        lock, such as a push into the store, makes us rebuild)."""
        last_err: Exception | None = None
        ref_lock = self.path / (ref + ".lock")
        for _ in range(retries):
            if ref_lock.exists():
                # A git process holds the ref (or a killed writer left its lock, which
                # clear_stale_locks takes away at 2 s): wait without building a commit
                # and a pack each time round.
                with self.write_lock():
                    free = refmod.clear_stale_locks(self.path, [ref])
                if not free:
                    last_err = FileExistsError(f"{ref_lock} exists")
                    time.sleep(0.01)
                    continue
            with self.write_lock():
                if hasattr(self.codec, "refresh"):
                    self.codec.refresh()
                tip = self.ref_tip(ref)
                built = build(tip)
                if built is None:
                    return None
                draft = built if isinstance(built, Draft) else Draft(*built)
                parents = ([tip.id] if tip is not None else []) + list(draft.extra_parents)
                pack = PackWriter()
                base = draft.base if draft.base is not None else tip
                oid = self._stage_commit(pack, base, draft.changes, draft.message, parents, author, committer, raw)
                keyring = self.stage_keys(pack, author)
                pack.write(self.path, self.fsync)
                self.publish_keys(keyring)
                try:
                    moved = self._cas_ref(ref, oid.hex(), tip.id if tip is not None else None)
                except (pygit2.GitError, OSError) as e:
                    # `git gc` packing refs holds ref locks for a moment: try again.
                    last_err = e
                    moved = False
                    refmod.clear_stale_lock(self.path, ref)
                    time.sleep(0.01)
                if moved:
                    self.maintenance.after_write()
                    return oid.hex()
        raise ConflictError(
            f"could not update {ref} after {retries} attempts: {last_err}",
            hint="another process keeps moving this ref; retry",
        )

    def _cas_ref(self, name: str, new: str, old: str | None) -> bool:
        """Move `name` to `new` if it still points at `old` (caller holds the write lock)."""
        if self.ref(name) != old:
            return False
        refmod.write_ref(self.path, name, new, self.fsync)
        return True

    def update_refs(self, updates: list[tuple[str, str, str | None]], message: str = "gitmem") -> None:
        """Move several refs atomically, each only if it still points where it did
        ((ref, new, expected old); old None: must not exist; new "": delete).

        A lock file a killed process left on one of the refs (or on packed-refs) would
        make `git update-ref` refuse every later transaction: such a lock is cleared
        once it is 2 s old (a live git process holds one for milliseconds), waiting
        for it at most a few seconds."""
        names = [u[0] for u in updates] + ["packed-refs"]
        deadline = time.monotonic() + 5.0
        while not refmod.clear_stale_locks(self.path, names) and time.monotonic() <= deadline:
            time.sleep(0.05)
        refmod.update_refs(self.path, updates, message)

    def set_ref(self, name: str, target: str) -> None:
        """Point `name` at `target` unconditionally (only for refs gitmem alone writes,
        such as pins of old tips; never for scopes)."""
        self._repo.create_reference_direct(name, pygit2.Oid(hex=target), True)

    def peel_tag(self, target: str) -> str | None:
        """The commit an annotated tag object points to, or None for non-tags."""
        obj = self._repo.get(target)
        if obj is None or obj.type != OBJ_TYPE_TAG:
            return None
        try:
            return str(obj.peel(pygit2.Commit).id)
        except (ValueError, pygit2.GitError):
            return None
