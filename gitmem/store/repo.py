"""The memory repository: scopes as branches, trees of memory files, commits with any
number of parents, compare-and-swap ref moves and multi-ref transactions, notes.

Every blob read or written here passes the codec (see codec.py); the pack writer
(pack.py) is the only code that writes objects."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Callable, Iterable, Iterator, Mapping

import pygit2

from gitmem.core import paths
from gitmem.core.errors import ConflictError, CorruptObject, GitmemError, NotFound, StoreMissing, UsageError
from gitmem.core.fsutil import file_lock
from gitmem.core.model import FORMAT_VERSION, check_scope
from gitmem.core.trailers import Commit, parse_trailers
from gitmem.store import crypto, gitcmd
from gitmem.store import refs as refmod
from gitmem.store.codec import Codec, select_codec
from gitmem.store.maintenance import Maintenance
from gitmem.store.objects import Change, Draft, Keep, Signature
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
from gitmem.store.transport import Transport

SCOPE_PREFIX = "refs/heads/"
NOTES_REF = "refs/notes/gitmem"
BLOB_MODE = 0o100644
_BLOB = pygit2.enums.ObjectType.BLOB
_TREE = pygit2.enums.ObjectType.TREE
_COMMIT = pygit2.enums.ObjectType.COMMIT
_TAG = pygit2.enums.ObjectType.TAG


class Rev:
    """One commit of the memory repository, as the layers above see it."""

    __slots__ = ("_c", "id")

    def __init__(self, c: pygit2.Commit):
        self._c = c
        self.id = str(c.id)

    @property
    def time(self) -> int:
        return int(self._c.commit_time)

    @property
    def parents(self) -> list[str]:
        return [str(p) for p in self._c.parent_ids]

    @property
    def tree_id(self) -> str:
        return str(self._c.tree_id)

    @property
    def raw_message(self) -> str:
        """The message as stored (before the codec decodes it)."""
        return self._c.message

    def raw(self) -> bytes:
        """The commit object's raw bytes."""
        return self._c.read_raw()

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Rev) and other.id == self.id

    def __hash__(self) -> int:
        return hash(self.id)

    def __repr__(self) -> str:
        return f"Rev({self.id[:12]})"


class GitStore:
    """A bare repository holding one branch per scope."""

    def __init__(self, home: Path, fsync: bool = True, gc_every: int = 200, codec: Codec | None = None):
        self.home = Path(home)
        self.path = self.home / "repo.git"
        self.fsync = bool(fsync)
        self.maintenance = Maintenance(self.path, self.home, gc_every)
        if not (self.path / "HEAD").exists():
            raise StoreMissing(f"no gitmem store at {self.home}")
        try:
            self._repo = pygit2.Repository(str(self.path))
        except pygit2.GitError as e:
            raise StoreMissing(f"cannot open {self.path}: {e}") from e
        lineage = self.encryption()
        self.codec: Codec = codec or (crypto.Aead(self, lineage, self.plain_history()) if lineage
                                      else select_codec())
        version = self.format_version()
        if version > FORMAT_VERSION:
            raise GitmemError(
                f"store format {version} is newer than this gitmem understands ({FORMAT_VERSION})",
                hint="upgrade gitmem",
            )

    # ---- creation -----------------------------------------------------------------
    @classmethod
    def init(cls, home: Path) -> bool:
        """Create the bare repository; returns False if it already existed."""
        path = Path(home) / "repo.git"
        if (path / "HEAD").exists():
            return False
        path.parent.mkdir(parents=True, exist_ok=True)
        repo = pygit2.init_repository(str(path), bare=True, initial_head="main")
        repo.config["gitmem.formatVersion"] = str(FORMAT_VERSION)
        repo.config["gc.auto"] = "1000"
        # Small packs are folded by a geometric repack (see maintenance.py), not by a full gc.
        repo.config["gc.autoPackLimit"] = "0"
        paths.locks(home).mkdir(parents=True, exist_ok=True)
        return True

    def format_version(self) -> int:
        try:
            return int(self._repo.config["gitmem.formatVersion"])
        except (KeyError, ValueError):
            return FORMAT_VERSION

    def encryption(self) -> str | None:
        """The lineage id of an encrypted store (see crypto.py), or None for a plain one."""
        try:
            return self._repo.config["gitmem.encryption"] or None
        except KeyError:
            return None

    def plain_history(self) -> bool:
        """An encrypted store that still holds plain history (its own, just keyed by
        `key import`, or a remote's, after `encrypt enable`) until a sync seals it."""
        try:
            return self._repo.config.get_bool("gitmem.plainHistory")
        except (KeyError, pygit2.GitError):
            return False

    def set_plain_history(self, on: bool) -> None:
        if on:
            self._repo.config["gitmem.plainHistory"] = "true"
        else:
            try:
                del self._repo.config["gitmem.plainHistory"]
            except KeyError:
                pass
        if hasattr(self.codec, "plain_ok"):
            self.codec.plain_ok = on

    def set_encryption(self, lineage: str | None) -> None:
        """Mark the store encrypted under `lineage` (None: plain) and switch codecs."""
        if lineage:
            self._repo.config["gitmem.encryption"] = lineage
            self.codec = crypto.Aead(self, lineage, self.plain_history())
        else:
            try:
                del self._repo.config["gitmem.encryption"]
            except KeyError:
                pass
            self.codec = select_codec()

    def reopen(self) -> None:
        """Drop libgit2's handles on packs that a repack or prune deleted."""
        self._repo = pygit2.Repository(str(self.path))

    @property
    def write_lock_path(self) -> Path:
        return paths.lock(self.home, "write")

    def write_lock(self, timeout: float = 60.0):
        """The store-wide write lock; history rewrites hold it for their whole run."""
        return file_lock(self.write_lock_path, timeout=timeout, fair=True)

    # ---- refs ---------------------------------------------------------------------
    def scopes(self) -> dict[str, str]:
        """Scope name -> tip commit id."""
        return {name[len(SCOPE_PREFIX):]: tip for name, tip in sorted(self.refs(SCOPE_PREFIX).items())}

    def refs(self, prefix: str = "refs/") -> dict[str, str]:
        """Direct refs under `prefix` -> target id."""
        out = {}
        for name in self._repo.references:
            if name.startswith(prefix):
                ref = self._repo.references.get(name)
                if ref is not None and ref.type == pygit2.enums.ReferenceType.DIRECT:
                    out[name] = str(ref.target)
        return out

    def ref(self, name: str) -> str | None:
        ref = self._repo.references.get(name)
        return str(ref.target) if ref is not None and ref.type == pygit2.enums.ReferenceType.DIRECT else None

    def tip(self, scope: str) -> Rev | None:
        return self.ref_tip(SCOPE_PREFIX + scope)

    def ref_tip(self, name: str) -> Rev | None:
        target = self.ref(name)
        if target is None:
            return None
        try:
            return Rev(self._repo[target].peel(pygit2.Commit))
        except (KeyError, ValueError, pygit2.GitError) as e:
            raise CorruptObject(f"{name} points to {target[:12]}, which is missing or not a commit",
                                hint="`gitmem doctor` checks the repository; delete or repair the ref "
                                     f"(`git --git-dir {self.path} update-ref -d {name}`)") from e

    def commit_obj(self, rev: str) -> Rev:
        """A revision (id, abbreviation, ref, `main~2`) as a Rev."""
        try:
            return Rev(self._repo.revparse_single(rev).peel(pygit2.Commit))
        except (KeyError, ValueError, pygit2.GitError, pygit2.InvalidSpecError) as e:
            raise NotFound(f"unknown revision {rev!r}", hint="see `gitmem log` for commit ids") from e

    def object_bytes(self, oid: str | bytes) -> bytes:
        """An object's raw content (blob data, tree entries, commit text), not decoded:
        for history rewrites, which decode blobs themselves (decode_blob)."""
        key = pygit2.Oid(raw=oid) if isinstance(oid, bytes) else pygit2.Oid(hex=oid)
        return self._repo[key].read_raw()

    def has_object(self, oid: str) -> bool:
        try:
            return self._repo.get(oid) is not None
        except (ValueError, pygit2.GitError):
            return False

    def has_commit(self, oid: str) -> bool:
        try:
            obj = self._repo.get(oid)
        except (ValueError, pygit2.GitError):
            return False
        return obj is not None and obj.type == _COMMIT

    # ---- reading trees ------------------------------------------------------------
    def _entry(self, rev: Rev | None, path: str):
        if rev is None:
            return None
        try:
            return rev._c.tree[path]
        except KeyError:
            return None

    def read(self, rev: Rev | None, path: str) -> bytes | None:
        """The decoded content of the file at `path`, or None."""
        e = self._entry(rev, path)
        if e is None or e.type != _BLOB:
            return None
        return self.decode_blob(path, e.data)

    def read_text(self, rev: Rev | None, path: str) -> str | None:
        data = self.read(rev, path)
        return None if data is None else data.decode("utf-8", "replace")

    def read_raw(self, rev: Rev | None, path: str) -> bytes | None:
        """The stored bytes at `path`, not decoded: for refs gitmem writes raw (the
        keyring, the store marker), which must be readable without a key."""
        e = self._entry(rev, path)
        if e is None or e.type != _BLOB:
            return None
        return e.data

    def blob(self, oid: str, path: str) -> bytes:
        """The decoded content of blob `oid`, which sits at `path` in its tree."""
        return self.decode_blob(path, self._repo[oid].data)

    def decode_blob(self, path: str, data: bytes) -> bytes:
        """Raw object bytes -> plaintext through the codec (a clean error if they do not decode)."""
        try:
            return self.codec.decode(path, data)
        except ValueError as e:
            raise CorruptObject(f"cannot decode {path}: {e}",
                                hint="the object was written around gitmem or is damaged; `git fsck`") from e

    def blob_id(self, rev: Rev | None, path: str) -> str | None:
        e = self._entry(rev, path)
        return str(e.id) if e is not None else None

    def exists(self, rev: Rev | None, path: str) -> bool:
        return self._entry(rev, path) is not None

    def subdirs(self, rev: Rev | None, path: str) -> list[str]:
        e = self._entry(rev, path)
        if e is None or e.type != _TREE:
            return []
        return [x.name for x in self._repo[e.id] if x.type == _TREE]

    def walk_files(self, rev: Rev | None, prefix: str = "") -> Iterator[tuple[str, str]]:
        """(path, blob id) of every file under `prefix` (a folder path or '')."""
        if rev is None:
            return
        tree = rev._c.tree
        if prefix:
            e = self._entry(rev, prefix.rstrip("/"))
            if e is None or e.type != _TREE:
                return
            tree = self._repo[e.id]
        base = prefix.rstrip("/") + "/" if prefix else ""
        stack = [(tree, base)]
        while stack:
            t, where = stack.pop()
            for e in t:
                if e.type == _TREE:
                    stack.append((self._repo[e.id], where + e.name + "/"))
                elif e.type == _BLOB:
                    yield where + e.name, str(e.id)

    def diff_files(self, old: str | None, new: str) -> Iterator[tuple[str, str, str | None]]:
        """(status 'A'|'M'|'D', path, new blob id or None) between two commits."""
        new_c = self._repo[new].peel(pygit2.Commit)
        if old is None:
            for path, oid in self.walk_files(Rev(new_c)):
                yield "A", path, oid
            return
        old_tree = self._repo[old].peel(pygit2.Commit).tree
        for d in old_tree.diff_to_tree(new_c.tree).deltas:
            st = d.status_char()
            if st == "D":
                yield "D", d.old_file.path, None
            elif st == "R":
                yield "D", d.old_file.path, None
                yield "A", d.new_file.path, str(d.new_file.id)
            else:
                yield ("A" if st == "A" else "M"), d.new_file.path, str(d.new_file.id)

    # ---- history ------------------------------------------------------------------
    def is_ancestor(self, ancestor: str, descendant: str) -> bool:
        if ancestor == descendant:
            return True
        try:
            return self._repo.descendant_of(descendant, ancestor)
        except (pygit2.GitError, KeyError, ValueError):
            return False

    def ahead_behind(self, local: str, upstream: str) -> tuple[int, int]:
        """(commits only in local, commits only in upstream)."""
        return self._repo.ahead_behind(local, upstream)

    def merge_base(self, a: str, b: str) -> str | None:
        base = self._repo.merge_base(a, b)
        return str(base) if base is not None else None

    def walk(self, tips: Iterable[str], *, topological: bool = False, reverse: bool = False,
             hide: Iterable[str] = ()) -> Iterator[Rev]:
        """Commits reachable from `tips` (not from `hide`); newest first by default."""
        tips = [t for t in tips if t]
        if not tips:
            return
        mode = pygit2.enums.SortMode.TOPOLOGICAL if topological else pygit2.enums.SortMode.TIME
        if topological:
            mode |= pygit2.enums.SortMode.TIME
        if reverse:
            mode = pygit2.enums.SortMode.TOPOLOGICAL | pygit2.enums.SortMode.REVERSE
        walker = self._repo.walk(pygit2.Oid(hex=tips[0]), mode)
        for t in tips[1:]:
            walker.push(pygit2.Oid(hex=t))
        for h in hide:
            if h and self.has_commit(h):
                walker.hide(pygit2.Oid(hex=h))
        for c in walker:
            yield Rev(c)

    def info(self, rev: Rev | str) -> Commit:
        """The commit's decoded message, trailers, author and parents."""
        c = rev._c if isinstance(rev, Rev) else self._repo[rev].peel(pygit2.Commit)
        msg = self.codec.decode_message(c.message)
        return Commit(
            id=str(c.id), subject=msg.split("\n", 1)[0], message=msg, author=c.author.name,
            email=c.author.email, time=c.commit_time, parents=[str(p) for p in c.parent_ids],
            trailers=parse_trailers(msg),
        )

    def history(self, start: str, limit: int | None = None) -> Iterator[Commit]:
        """Commits reachable from `start`, newest first."""
        for n, rev in enumerate(self.walk([start])):
            if limit is not None and n >= limit:
                return
            yield self.info(rev)

    def first_parent(self, rev: Rev | None) -> Rev | None:
        if rev is None or not rev._c.parent_ids:
            return None
        return Rev(rev._c.parents[0])

    # ---- writing ------------------------------------------------------------------
    def _build_tree(self, pack: PackWriter, tree_raw_id: bytes | None,
                    changes: Mapping[str, Change], prefix: str = "", raw: bool = False) -> bytes | None:
        """Add the changed trees (and encoded new blobs) to `pack`; returns the root's raw id."""
        entries = parse_tree(self._repo[pygit2.Oid(raw=tree_raw_id)].read_raw()) if tree_raw_id else {}
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
        root = self._build_tree(pack, base._c.tree_id.raw if base is not None else None, changes, raw=raw)
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
            if obj.type == _COMMIT and not obj.parent_ids and obj.message == "gitmem keyring\n" \
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
                # clear_stale_lock takes away at 2 s): wait without building a commit
                # and a pack each time round.
                with self.write_lock():
                    refmod.clear_stale_lock(self.path, ref)
                if ref_lock.exists():
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
        while True:
            for name in names:
                refmod.clear_stale_lock(self.path, name)
            if not any((self.path / (n + ".lock")).exists() for n in names) or time.monotonic() > deadline:
                break
            time.sleep(0.05)
        refmod.update_refs(self.path, updates, message)

    def set_ref(self, name: str, target: str) -> None:
        """Point `name` at `target` unconditionally (only for refs gitmem alone writes,
        such as pins of old tips; never for scopes)."""
        self._repo.create_reference_direct(name, pygit2.Oid(hex=target), True)

    def peel_tag(self, target: str) -> str | None:
        """The commit an annotated tag object points to, or None for non-tags."""
        obj = self._repo.get(target)
        if obj is None or obj.type != _TAG:
            return None
        try:
            return str(obj.peel(pygit2.Commit).id)
        except (ValueError, pygit2.GitError):
            return None

    # ---- notes --------------------------------------------------------------------
    def note(self, commit_id: str, ref: str = NOTES_REF) -> str | None:
        """The note on `commit_id` (flat or fanned-out notes trees are both read)."""
        tip = self.ref_tip(ref)
        for path in (commit_id, f"{commit_id[:2]}/{commit_id[2:]}"):
            data = self.read(tip, path)
            if data is not None:
                return data.decode("utf-8", "replace")
        return None

    def set_note(self, commit_id: str, text: str, author: Signature, ref: str = NOTES_REF) -> str | None:
        """Attach (replace) the note on `commit_id` as one commit on the notes ref."""
        def build(tip: Rev | None):
            changes: dict[str, Change] = {commit_id: text.encode("utf-8")}
            if self.exists(tip, f"{commit_id[:2]}/{commit_id[2:]}"):
                changes[f"{commit_id[:2]}/{commit_id[2:]}"] = None
            return changes, "Notes added by gitmem\n"
        return self.commit_ref(ref, build, author)

    # ---- remotes ------------------------------------------------------------------
    def transport(self, timeout: float | None = None) -> Transport:
        """The remotes of this repository (fetch and push through the git command)."""
        return Transport(self.path, timeout)

    def objects_between(self, tips: Iterable[str], exclude: Iterable[str]) -> set[str]:
        """Ids of every object reachable from `tips` and not from `exclude` (what a
        push of `tips` to a remote holding `exclude` sends)."""
        tips = [t for t in tips if t]
        if not tips:
            return set()
        hide = [f"^{x}" for x in exclude if x and self.has_commit(x)]
        out = gitcmd.run(self.path, "rev-list", "--objects", "--stdin",
                         input=("\n".join(tips + hide) + "\n").encode())
        return {line.split(" ", 1)[0] for line in out.splitlines() if line}

    # ---- health (doctor) ----------------------------------------------------------
    def fsck(self) -> list[str]:
        """`git fsck --strict` of the repository: the problems it reports ([] if clean)."""
        with self.maintenance_paused():
            code, out = gitcmd.run_status(self.path, "fsck", "--strict", "--no-dangling", "--no-progress")
        lines = [ln for ln in out.splitlines() if ln.strip()]
        return lines or (["git fsck failed"] if code != 0 else [])

    def stale_locks(self, age: float = 60.0) -> list[Path]:
        """git `*.lock` files older than `age` seconds (left by a killed process)."""
        now = time.time()
        out = []
        for p in self.path.rglob("*.lock"):
            try:
                if p.is_file() and now - p.stat().st_mtime > age:
                    out.append(p)
            except OSError:
                continue
        return sorted(out)

    def remove_lock(self, path: Path) -> None:
        """Remove a stale git lock file (under the store's write lock)."""
        with self.write_lock():
            Path(path).unlink(missing_ok=True)

    # ---- maintenance --------------------------------------------------------------
    def maintenance_paused(self, timeout: float = 120.0):
        """Wait for a running background repack / gc and keep new ones out meanwhile."""
        return self.maintenance.paused(timeout)

    def gc_auto(self, wait: bool = False) -> None:
        self.maintenance.gc_auto(wait)

    def prune(self, gc_wait: float = 120.0) -> None:
        """Expire every reflog and drop every unreachable object; reopen the packs."""
        self.maintenance.prune(gc_wait)
        self.reopen()


def global_identity() -> tuple[str | None, str | None]:
    """user.name / user.email from git's global configuration, if set."""
    try:
        cfg = pygit2.Config.get_global_config()
    except (OSError, pygit2.GitError):
        return None, None
    out = []
    for key in ("user.name", "user.email"):
        try:
            out.append(cfg[key])
        except (KeyError, pygit2.GitError):
            out.append(None)
    return out[0], out[1]
