"""The memory repository: scopes as branches, Rev (a commit as the layers above see
it), reading trees and files, history walks, notes and remotes. GitStore's write path is
writes.py (Writes) and its health checks health.py (Health), mixed in.

Every blob read or written here passes the codec (see codec.py); the pack writer
(pack.py) is the only code that writes objects."""

from __future__ import annotations

from pathlib import Path
from typing import Iterable, Iterator

import pygit2

from gitmem.core import paths
from gitmem.core.errors import CorruptObject, GitmemError, NotFound, StoreMissing
from gitmem.core.fsutil import file_lock
from gitmem.core.model import FORMAT_VERSION, PERSON_SCOPE
from gitmem.core.trailers import Commit, parse_trailers
from gitmem.store import crypto, gitcmd
from gitmem.store.codec import Codec, select_codec
from gitmem.store.health import Health
from gitmem.store.maintenance import Maintenance
from gitmem.store.objects import (
    NOTES_REF,
    OBJ_TYPE_BLOB,
    OBJ_TYPE_COMMIT,
    OBJ_TYPE_TREE,
    SCOPE_PREFIX,
    Change,
    Rev,
    Signature,
)
from gitmem.store.transport import Transport
from gitmem.store.writes import Writes


class GitStore(Writes, Health):
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
        repo = pygit2.init_repository(str(path), bare=True, initial_head=PERSON_SCOPE)  # a plain clone checks out the person's memory
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

    def lookup(self, oid: str | pygit2.Oid) -> pygit2.Object:
        """The object `oid`; when it cannot be read, once more through a fresh handle.
        A long-lived process (the daemon) may hold the index of a small pack that a
        background repack has since folded into a bigger one and deleted: libgit2 then
        fails to open that pack rather than report the object missing, so it never looks
        at the new pack (seen under load: a tip "missing" right after a write)."""
        try:
            return self._repo[oid]
        except (KeyError, pygit2.GitError):
            self.reopen()
            return self._repo[oid]

    def ref_tip(self, name: str) -> Rev | None:
        target = self.ref(name)
        if target is None:
            return None
        try:
            return Rev(self.lookup(target).peel(pygit2.Commit))
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
        return self.lookup(key).read_raw()

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
        return obj is not None and obj.type == OBJ_TYPE_COMMIT

    # ---- reading trees ------------------------------------------------------------
    def _entry(self, rev: Rev | None, path: str):
        if rev is None:
            return None
        try:
            return rev.commit.tree[path]
        except KeyError:
            return None

    def read(self, rev: Rev | None, path: str) -> bytes | None:
        """The decoded content of the file at `path`, or None."""
        e = self._entry(rev, path)
        if e is None or e.type != OBJ_TYPE_BLOB:
            return None
        return self.decode_blob(path, e.data)

    def read_text(self, rev: Rev | None, path: str) -> str | None:
        data = self.read(rev, path)
        return None if data is None else data.decode("utf-8", "replace")

    def read_raw(self, rev: Rev | None, path: str) -> bytes | None:
        """The stored bytes at `path`, not decoded: for refs gitmem writes raw (the
        keyring, the store marker), which must be readable without a key."""
        e = self._entry(rev, path)
        if e is None or e.type != OBJ_TYPE_BLOB:
            return None
        return e.data

    def blob(self, oid: str, path: str) -> bytes:
        """The decoded content of blob `oid`, which sits at `path` in its tree."""
        return self.decode_blob(path, self.lookup(oid).data)

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
        if e is None or e.type != OBJ_TYPE_TREE:
            return []
        return [x.name for x in self.lookup(e.id) if x.type == OBJ_TYPE_TREE]

    def walk_files(self, rev: Rev | None, prefix: str = "") -> Iterator[tuple[str, str]]:
        """(path, blob id) of every file under `prefix` (a folder path or '')."""
        if rev is None:
            return
        tree = rev.commit.tree
        if prefix:
            e = self._entry(rev, prefix.rstrip("/"))
            if e is None or e.type != OBJ_TYPE_TREE:
                return
            tree = self.lookup(e.id)
        base = prefix.rstrip("/") + "/" if prefix else ""
        stack = [(tree, base)]
        while stack:
            t, where = stack.pop()
            for e in t:
                if e.type == OBJ_TYPE_TREE:
                    stack.append((self.lookup(e.id), where + e.name + "/"))
                elif e.type == OBJ_TYPE_BLOB:
                    yield where + e.name, str(e.id)

    def diff_files(self, old: str | None, new: str) -> Iterator[tuple[str, str, str | None]]:
        """(status 'A'|'M'|'D', path, new blob id or None) between two commits, by path."""
        new_c = self.lookup(new).peel(pygit2.Commit)
        if old is None:
            for path, oid in self.walk_files(Rev(new_c)):
                yield "A", path, oid
            return
        old_tree = self.lookup(old).peel(pygit2.Commit).tree
        yield from self._tree_changes(old_tree, new_c.tree, "")

    def _tree_changes(self, a, b, where: str) -> Iterator[tuple[str, str, str | None]]:
        """The files that differ between two trees, entering only subtrees whose ids
        differ: the cost follows the change, not the tree (libgit2's tree diff read every
        entry, ~30 ms a call at 100k memories)."""
        ea = {e.name: e for e in a} if a is not None else {}
        eb = {e.name: e for e in b} if b is not None else {}
        for name in sorted(ea.keys() | eb.keys()):
            x, y = ea.get(name), eb.get(name)
            if x is not None and y is not None and x.id == y.id and x.filemode == y.filemode:
                continue
            x_tree = x is not None and x.type == OBJ_TYPE_TREE
            y_tree = y is not None and y.type == OBJ_TYPE_TREE
            if x_tree or y_tree:
                yield from self._tree_changes(self.lookup(x.id) if x_tree else None,
                                              self.lookup(y.id) if y_tree else None, where + name + "/")
            x_blob = x is not None and x.type == OBJ_TYPE_BLOB
            y_blob = y is not None and y.type == OBJ_TYPE_BLOB
            if y_blob:
                yield ("M" if x_blob else "A"), where + name, str(y.id)
            elif x_blob:
                yield "D", where + name, None

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
        c = rev.commit if isinstance(rev, Rev) else self.lookup(rev).peel(pygit2.Commit)
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
        if rev is None or not rev.commit.parent_ids:
            return None
        return Rev(rev.commit.parents[0])


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
