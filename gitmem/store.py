"""The git object model: scopes as branches, trees of memory files, CAS ref updates,
notes. The only module besides sync that touches pygit2."""

from __future__ import annotations

import contextlib
import datetime as dt
import os
import random
import shutil
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator, Mapping

import pygit2

from .errors import ConflictError, GitmemError, NotFound, StoreMissing, UsageError
from .fsutil import file_lock
from .model import FORMAT_VERSION, check_scope
from .packwrite import OBJ_BLOB, OBJ_COMMIT, OBJ_TREE, TREE_MODE, PackWriter, commit_bytes, parse_tree, tree_bytes

SCOPE_PREFIX = "refs/heads/"
NOTES_REF = "refs/notes/gitmem"
BLOB = pygit2.enums.FileMode.BLOB
TREE = pygit2.enums.FileMode.TREE

# A change set maps a path to new bytes, to an existing blob id (a move), or to None (delete).
Change = bytes | pygit2.Oid | None


@dataclass
class Commit:
    """One commit as gitmem reads it: trailers parsed out of the message."""

    id: str
    subject: str
    message: str
    author: str
    email: str
    time: int
    parents: list[str]
    trailers: dict[str, list[str]] = field(default_factory=dict)

    @property
    def op(self) -> str | None:
        return (self.trailers.get("Gitmem-Op") or [None])[0]

    @property
    def ids(self) -> list[str]:
        return self.trailers.get("Gitmem-Id", [])

    @property
    def iso_time(self) -> str:
        when = dt.datetime.fromtimestamp(self.time, tz=dt.timezone.utc)
        return when.isoformat().replace("+00:00", "Z")


def parse_trailers(message: str) -> dict[str, list[str]]:
    """Trailers are `Key: value` lines in the last paragraph of the message."""
    paras = message.strip().split("\n\n")
    if len(paras) < 2:
        return {}
    out: dict[str, list[str]] = {}
    for line in paras[-1].splitlines():
        key, sep, value = line.partition(": ")
        if not sep or not key or " " in key:
            return {}
        out.setdefault(key, []).append(value.strip())
    return out


def format_message(subject: str, body: str | None, trailers: list[tuple[str, str]]) -> str:
    subject = " ".join(subject.split()) or "(no subject)"
    parts = [subject]
    if body:
        parts.append(body.strip())
    if trailers:
        parts.append("\n".join(f"{k}: {' '.join(str(v).split())}" for k, v in trailers if v))
    return "\n\n".join(parts) + "\n"


def to_commit(c: pygit2.Commit) -> Commit:
    msg = c.message
    return Commit(
        id=str(c.id),
        subject=msg.split("\n", 1)[0],
        message=msg,
        author=c.author.name,
        email=c.author.email,
        time=c.commit_time,
        parents=[str(p) for p in c.parent_ids],
        trailers=parse_trailers(msg),
    )


class GitStore:
    """A bare repository holding one branch per scope."""

    def __init__(self, home: Path, fsync: bool = True, gc_every: int = 200):
        self.home = Path(home)
        self.path = self.home / "repo.git"
        self.gc_every = gc_every
        self.fsync = bool(fsync)
        self._repack_started = -1e9
        if not (self.path / "HEAD").exists():
            raise StoreMissing(f"no gitmem store at {self.home}")
        pygit2.settings.enable_fsync_gitdir(bool(fsync))
        try:
            self.repo = pygit2.Repository(str(self.path))
        except pygit2.GitError as e:
            raise StoreMissing(f"cannot open {self.path}: {e}") from e
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
        # Small packs are folded by a geometric repack (see _maybe_gc), not by a full gc.
        repo.config["gc.autoPackLimit"] = "0"
        for sub in ("state", "state/locks"):
            (Path(home) / sub).mkdir(parents=True, exist_ok=True)
        return True

    def format_version(self) -> int:
        try:
            return int(self.repo.config["gitmem.formatVersion"])
        except (KeyError, ValueError):
            return FORMAT_VERSION

    @property
    def write_lock_path(self) -> Path:
        return self.home / "state" / "locks" / "write.lock"

    def write_lock(self, timeout: float = 60.0):
        """The store-wide write lock; forget holds it for its whole run."""
        return file_lock(self.write_lock_path, timeout=timeout)

    # ---- refs ---------------------------------------------------------------------
    def scopes(self) -> dict[str, str]:
        """Scope name -> tip commit id."""
        out = {}
        for name in self.repo.references:
            if name.startswith(SCOPE_PREFIX):
                ref = self.repo.references.get(name)
                if ref is not None:
                    out[name[len(SCOPE_PREFIX):]] = str(ref.target)
        return dict(sorted(out.items()))

    def refs(self, prefix: str = "refs/") -> dict[str, str]:
        out = {}
        for name in self.repo.references:
            if name.startswith(prefix):
                ref = self.repo.references.get(name)
                if ref is not None and ref.type == pygit2.enums.ReferenceType.DIRECT:
                    out[name] = str(ref.target)
        return out

    def tip(self, scope: str) -> pygit2.Commit | None:
        ref = self.repo.references.get(SCOPE_PREFIX + scope)
        if ref is None:
            return None
        return self.repo[ref.target].peel(pygit2.Commit)

    def commit_obj(self, rev: str) -> pygit2.Commit:
        try:
            return self.repo.revparse_single(rev).peel(pygit2.Commit)
        except (KeyError, ValueError, pygit2.GitError, pygit2.InvalidSpecError) as e:
            raise NotFound(f"unknown revision {rev!r}", hint="see `gitmem log` for commit ids") from e

    # ---- reading trees ------------------------------------------------------------
    def read(self, commit: pygit2.Commit | None, path: str) -> bytes | None:
        if commit is None:
            return None
        try:
            obj = commit.tree[path]
        except KeyError:
            return None
        return obj.data if obj.type == pygit2.enums.ObjectType.BLOB else None

    def blob_id(self, commit: pygit2.Commit | None, path: str) -> str | None:
        if commit is None:
            return None
        try:
            return str(commit.tree[path].id)
        except KeyError:
            return None

    def exists(self, commit: pygit2.Commit | None, path: str) -> bool:
        return self.blob_id(commit, path) is not None

    def subdirs(self, commit: pygit2.Commit | None, path: str) -> list[str]:
        if commit is None:
            return []
        try:
            tree = commit.tree[path]
        except KeyError:
            return []
        return [e.name for e in tree if e.type == pygit2.enums.ObjectType.TREE]

    def walk_files(self, commit: pygit2.Commit | None, prefix: str = "") -> Iterator[tuple[str, str]]:
        """(path, blob id) of every file under `prefix` (a folder path or '')."""
        if commit is None:
            return
        tree = commit.tree
        if prefix:
            try:
                tree = tree[prefix.rstrip("/")]
            except KeyError:
                return
            if tree.type != pygit2.enums.ObjectType.TREE:
                return
        base = prefix.rstrip("/") + "/" if prefix else ""
        stack = [(tree, base)]
        while stack:
            t, where = stack.pop()
            for e in t:
                if e.type == pygit2.enums.ObjectType.TREE:
                    stack.append((self.repo[e.id], where + e.name + "/"))
                else:
                    yield where + e.name, str(e.id)

    def blob(self, oid: str) -> bytes:
        return self.repo[oid].data

    def diff_files(self, old: str | None, new: str) -> Iterator[tuple[str, str, str | None]]:
        """(status 'A'|'M'|'D', path, new blob id or None) between two commits."""
        new_tree = self.repo[new].peel(pygit2.Commit).tree
        if old is None:
            for path, oid in self.walk_files(self.repo[new].peel(pygit2.Commit)):
                yield "A", path, oid
            return
        old_tree = self.repo[old].peel(pygit2.Commit).tree
        diff = old_tree.diff_to_tree(new_tree)
        for d in diff.deltas:
            st = d.status_char()
            if st == "D":
                yield "D", d.old_file.path, None
            elif st == "R":
                yield "D", d.old_file.path, None
                yield "A", d.new_file.path, str(d.new_file.id)
            else:
                yield ("A" if st == "A" else "M"), d.new_file.path, str(d.new_file.id)

    def is_ancestor(self, ancestor: str, descendant: str) -> bool:
        if ancestor == descendant:
            return True
        try:
            return self.repo.descendant_of(descendant, ancestor)
        except (pygit2.GitError, KeyError, ValueError):
            return False

    # ---- history ------------------------------------------------------------------
    def history(self, start: str, path: str | None = None, limit: int | None = None) -> Iterator[Commit]:
        """Commits reachable from `start` (newest first), optionally only those touching `path`."""
        walker = self.repo.walk(self.repo[start].id, pygit2.enums.SortMode.TIME)
        n = 0
        for c in walker:
            if path is not None:
                mine = self.blob_id(c, path)
                parent = c.parents[0] if c.parents else None
                theirs = self.blob_id(parent, path)
                if mine == theirs:
                    continue
            yield to_commit(c)
            n += 1
            if limit is not None and n >= limit:
                return

    # ---- writing ------------------------------------------------------------------
    def signature(self, name: str, email: str, when: int | None = None) -> pygit2.Signature:
        if when is None:
            return pygit2.Signature(name, email)
        return pygit2.Signature(name, email, int(when), 0)

    def _build_tree(self, pack: PackWriter, tree: pygit2.Tree | None,
                    changes: Mapping[str, Change]) -> bytes | None:
        """Add the changed trees (and new blobs) to `pack`; returns the root's raw id."""
        entries = parse_tree(tree.read_raw()) if tree is not None else {}
        nested: dict[str, dict[str, Change]] = {}
        for path, value in changes.items():
            head, sep, rest = path.partition("/")
            if not head or head in (".", ".."):
                raise UsageError(f"invalid path {path!r}")
            if sep:
                nested.setdefault(head, {})[rest] = value
            elif value is None:
                entries.pop(head, None)
            else:
                raw = value.raw if isinstance(value, pygit2.Oid) else pack.add(OBJ_BLOB, bytes(value))
                entries[head] = (int(BLOB), raw)
        for name, sub in nested.items():
            existing = entries.get(name)
            subtree = None
            if existing is not None and existing[0] == TREE_MODE:
                subtree = self.repo[pygit2.Oid(raw=existing[1])]
            new = self._build_tree(pack, subtree, sub)
            if new is None:
                entries.pop(name, None)
            else:
                entries[name] = (TREE_MODE, new)
        if not entries:
            return None
        return pack.add(OBJ_TREE, tree_bytes(entries))

    def write_tree(self, base: pygit2.Commit | None, changes: Mapping[str, Change]) -> pygit2.Oid:
        """Write the tree of `base` with `changes` applied; returns its id."""
        pack = PackWriter()
        root = self._build_tree(pack, base.tree if base is not None else None, changes)
        if root is None:
            root = pack.add(OBJ_TREE, b"")
        pack.write(self.path, self.fsync)
        return pygit2.Oid(raw=root)

    def commit(
        self,
        scope: str,
        build: Callable[[pygit2.Commit | None], tuple[Mapping[str, Change], str] | None],
        author: pygit2.Signature,
        committer: pygit2.Signature | None = None,
        retries: int = 500,
    ) -> str | None:
        """Compare-and-swap commit on a scope's branch.

        `build(tip)` returns (changes, message) computed against the current tip, or None
        for "nothing to do". Under the store's write lock the tip is read, the new
        objects are written as one pack, and the ref moves only if it still points at
        the tip that was read (a writer bypassing the lock, such as a push into the
        store, makes us rebuild)."""
        check_scope(scope)
        ref = SCOPE_PREFIX + scope
        committer = committer or author
        last_err: Exception | None = None
        for _ in range(retries):
            with self.write_lock():
                tip = self.tip(scope)
                built = build(tip)
                if built is None:
                    return None
                changes, message = built
                pack = PackWriter()
                root = self._build_tree(pack, tip.tree if tip is not None else None, changes)
                if root is None:
                    root = pack.add(OBJ_TREE, b"")
                parents = [tip.id.raw] if tip is not None else []
                oid = pack.add(OBJ_COMMIT, commit_bytes(root, parents, author, committer, message))
                pack.write(self.path, self.fsync)
                try:
                    moved = self._cas_ref(ref, pygit2.Oid(raw=oid), tip.id if tip is not None else None,
                                          message.split("\n", 1)[0])
                except (pygit2.GitError, OSError) as e:
                    # `git gc` packing refs holds ref locks for a moment: try again.
                    last_err = e
                    moved = False
                    self._clear_stale_ref_lock(ref)
                    time.sleep(0.01)
                if moved:
                    self._maybe_gc()
                    return oid.hex()
        raise ConflictError(
            f"could not update {scope} after {retries} attempts: {last_err}",
            hint="another process keeps moving this scope; retry",
        )

    def _clear_stale_ref_lock(self, ref: str, age: float = 2.0) -> None:
        """A ref lock left by a killed process would block every later write. We hold
        the store write lock, so no gitmem writer owns it; git maintenance holds ref
        locks for milliseconds, so one older than `age` seconds is stale."""
        lock = self.path / (ref + ".lock")
        try:
            if time.time() - lock.stat().st_mtime > age:
                lock.unlink()
        except FileNotFoundError:
            pass

    def _cas_ref(self, name: str, new: pygit2.Oid, old: pygit2.Oid | None, log: str) -> bool:
        """Move `name` to `new` if it still points at `old` (caller holds the write lock).

        Written with git's own protocol (create `<ref>.lock` exclusively, fsync, rename)
        rather than through libgit2, which also appends and fsyncs a reflog: the
        commits are the audit trail, and this halves the fsyncs per write. A `.lock`
        held by git maintenance makes us retry."""
        current = self.repo.references.get(name)
        if (current.target if current is not None else None) != old:
            return False
        path = self.path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        lock = path.with_name(path.name + ".lock")
        fd = os.open(lock, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        try:
            os.write(fd, (str(new) + "\n").encode())
            if self.fsync:
                os.fsync(fd)
        except BaseException:
            os.close(fd)
            os.unlink(lock)
            raise
        os.close(fd)
        os.replace(lock, path)
        if self.fsync:
            dfd = os.open(path.parent, os.O_RDONLY)
            try:
                os.fsync(dfd)
            finally:
                os.close(dfd)
        return True

    def set_ref(self, name: str, target: str, message: str = "gitmem") -> None:
        self.repo.create_reference_direct(name, pygit2.Oid(hex=target), True, message)

    def delete_ref(self, name: str) -> None:
        ref = self.repo.references.get(name)
        if ref is not None:
            ref.delete()

    # ---- notes --------------------------------------------------------------------
    def note(self, commit_id: str, ref: str = NOTES_REF) -> str | None:
        try:
            return self.repo.lookup_note(commit_id, ref).message
        except KeyError:
            return None

    def set_note(self, commit_id: str, text: str, sig: pygit2.Signature, ref: str = NOTES_REF) -> None:
        with self.write_lock():
            self.repo.create_note(text, sig, sig, commit_id, ref, True)

    # ---- maintenance --------------------------------------------------------------
    MAX_PACKS = 32

    def _maybe_gc(self) -> None:
        """Keep the object store compact: every write adds one small pack, and readers
        pay per pack, so a geometric repack folds them once there are more than
        MAX_PACKS; `git gc --auto` now and then handles refs and stray loose objects."""
        try:
            packs = sum(1 for e in os.scandir(self.path / "objects" / "pack") if e.name.endswith(".pack"))
        except OSError:
            packs = 0
        if packs > self.MAX_PACKS:
            now = time.monotonic()
            if now - self._repack_started > 2.0:  # one running repack is enough
                self._repack_started = now
                self._background(["repack", "-d", "-q", "--geometric=2"], "repack")
        elif self.gc_every > 0 and random.randrange(self.gc_every) == 0:
            self.gc_auto()

    def _background(self, args: list[str], lock: str, wait: bool = False) -> None:
        """Run a git maintenance command detached, at most one of each kind at a time."""
        cmd = ["git", f"--git-dir={self.path}", *args]
        lock_path = self.home / "state" / "locks" / f"{lock}.lock"
        if shutil.which("flock"):
            cmd = ["flock", "-n", str(lock_path), *cmd]
        try:
            proc = subprocess.Popen(
                cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                start_new_session=True, env=git_env(),
            )
            if wait:
                proc.wait()
        except OSError:
            pass  # git missing: packing is an optimisation, never a failure

    @contextlib.contextmanager
    def maintenance_paused(self, timeout: float = 120.0) -> Iterator[None]:
        """Wait for a running background repack / gc and keep new ones out meanwhile
        (they run under these locks, see _background)."""
        locks = self.home / "state" / "locks"
        with file_lock(locks / "repack.lock", timeout=timeout), file_lock(locks / "gc.lock", timeout=timeout):
            yield

    def gc_auto(self, wait: bool = False) -> None:
        """`git gc --auto` in the background."""
        # No auto-detach: the flock must cover the whole gc, not just its parent.
        self._background(["-c", "gc.autoDetach=false", "gc", "--auto", "--quiet"], "gc", wait=wait)


def git_env() -> dict[str, str]:
    """The environment without GIT_DIR & co., so we never touch the caller's repo."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_") or k in ("GIT_SSH", "GIT_SSH_COMMAND")}
    return env


def run_git(git_dir: Path | str, *args: str, input: bytes | None = None, check: bool = True) -> str:
    """Run the git command on a repository (for maintenance libgit2 lacks)."""
    try:
        res = subprocess.run(
            ["git", f"--git-dir={git_dir}", *args], input=input, capture_output=True, env=git_env()
        )
    except FileNotFoundError as e:
        raise GitmemError("the git command is not installed", hint="install git 2.30 or newer") from e
    if check and res.returncode != 0:
        raise GitmemError(f"git {args[0]} failed: {res.stderr.decode(errors='replace').strip()}")
    return res.stdout.decode(errors="replace")


def validate_ref_component(name: str) -> None:
    if not pygit2.reference_is_valid_name(SCOPE_PREFIX + name):
        raise UsageError(f"invalid scope {name!r}")
