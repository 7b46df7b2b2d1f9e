"""Moving refs: git's own lock-file protocol for one ref (compare-and-swap under the
store's write lock) and `git update-ref --stdin` for several at once."""

from __future__ import annotations

import os
import time
from pathlib import Path

from gitmem.core.errors import ConflictError, GitmemError
from gitmem.store import gitcmd

ZERO = "0" * 40


def clear_stale_lock(git_dir: Path, ref: str, age: float = 2.0) -> None:
    """A ref lock left by a killed process would block every later write. The caller
    holds the store write lock, so no gitmem writer owns it; git maintenance holds ref
    locks for milliseconds, so one older than `age` seconds is stale."""
    lock = Path(git_dir) / (ref + ".lock")
    try:
        if time.time() - lock.stat().st_mtime > age:
            lock.unlink()
    except FileNotFoundError:
        pass


def clear_stale_locks(git_dir: Path, refs: list[str], age: float = 2.0) -> bool:
    """clear_stale_lock for each of `refs`; True when none of them is locked now."""
    for ref in refs:
        clear_stale_lock(git_dir, ref, age)
    return not any((Path(git_dir) / (ref + ".lock")).exists() for ref in refs)


def write_ref(git_dir: Path, name: str, new: str, fsync: bool) -> None:
    """Point `name` at `new` with git's protocol: create `<ref>.lock` exclusively, fsync,
    rename. Not through libgit2, which also appends and fsyncs a reflog: the commits
    are the audit trail, and this halves the fsyncs per write. A `.lock` held by git
    maintenance raises FileExistsError (the caller retries)."""
    path = Path(git_dir) / name
    path.parent.mkdir(parents=True, exist_ok=True)
    lock = path.with_name(path.name + ".lock")
    fd = os.open(lock, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    try:
        os.write(fd, (new + "\n").encode())
        if fsync:
            os.fsync(fd)
    except BaseException:
        os.close(fd)
        os.unlink(lock)
        raise
    os.close(fd)
    os.replace(lock, path)
    if fsync:
        dfd = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)


def update_refs(git_dir: Path, updates: list[tuple[str, str, str | None]], message: str = "gitmem") -> None:
    """Move several refs atomically, each only if it still points where it did.

    `updates` holds (ref, new, expected old); old None means "must not exist yet",
    new "" means delete. Every ref moves or none does (`git update-ref --stdin`)."""
    if not updates:
        return
    script = "".join(f"update {name} {new} {old or ZERO}\n" if new else f"delete {name} {old}\n"
                     for name, new, old in updates)
    try:
        gitcmd.run(git_dir, "update-ref", "-m", message, "--stdin", input=script.encode())
    except GitmemError as e:
        raise ConflictError("refs moved during the operation; nothing was changed: "
                            + e.message.splitlines()[-1],
                            hint="another process wrote to the store; retry") from e
