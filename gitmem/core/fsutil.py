"""Atomic writes and every lock gitmem takes (one owner for both).

- file_lock: an flock, dropped by the kernel when the process dies: never stale.
- pid_lock: a file naming its holder, for long operations a person may want to see
  (dream); stale after a time or when the holder is gone.
- is_locked: whether another process holds an flock (a running `gitmem serve`).
The object layer also moves refs with git's own `<ref>.lock` files (store/repo.py):
that protocol is git's, shared with plain git, and stays there."""

from __future__ import annotations

import contextlib
import fcntl
import os
import tempfile
import time
from pathlib import Path
from typing import Iterator

from gitmem.core.errors import ConflictError, GitmemError, LockBusy


def unusable(folder: Path, e: OSError) -> GitmemError:
    """A store folder gitmem cannot write (a lock or state file cannot be made there)."""
    return GitmemError(f"cannot write in {folder}: {e.strerror or e}",
                       hint="the store's state/ folder must be a folder gitmem can write; "
                            "`gitmem doctor` checks the store")


def private_dir(path: Path) -> bool:
    """Whether a folder is its owner's alone (an encrypted home's state/: files made in
    it are 0600 too)."""
    try:
        return Path(path).stat().st_mode & 0o077 == 0
    except OSError:
        return False


def file_mode(folder: Path, mode: int = 0o644) -> int:
    """`mode`, or 0600 in a private folder."""
    return 0o600 if private_dir(folder) else mode


def atomic_write(path: Path, data: bytes, mode: int = 0o644) -> None:
    """Write via mkstemp + fsync + os.replace so readers never see half a file."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = file_mode(path.parent, mode)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


@contextlib.contextmanager
def file_lock(path: Path, timeout: float = 30.0, shared: bool = False, fair: bool = False) -> Iterator[None]:
    """An flock on `path`; the kernel drops it if the process dies, so it is never stale.

    `fair` (exclusive only): waiters queue at a turnstile (`<path>.queue`, a second
    flock) before they take the lock, and the one at the turnstile polls the lock
    closely; a holder that releases and comes straight back must pass the turnstile
    too, so it cannot starve the others (without it, a process writing in a loop kept
    a `gitmem remember` waiting for seconds)."""
    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise unusable(path.parent, e) from e
    deadline = time.monotonic() + timeout
    if fair and not shared:
        with _flock(path.with_name(path.name + ".queue"), fcntl.LOCK_EX, deadline, path):
            fd = _take(path, fcntl.LOCK_EX, deadline, path, max_delay=0.002)
    else:
        fd = _take(path, fcntl.LOCK_SH if shared else fcntl.LOCK_EX, deadline, path)
    try:
        yield
    finally:
        os.close(fd)


@contextlib.contextmanager
def _flock(path: Path, op: int, deadline: float, name: Path) -> Iterator[None]:
    fd = _take(path, op, deadline, name)
    try:
        yield
    finally:
        os.close(fd)


def _take(path: Path, op: int, deadline: float, name: Path, max_delay: float = 0.05) -> int:
    """An open fd of `path` holding the flock `op`, polled until `deadline`."""
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, file_mode(path.parent))
    except OSError as e:
        raise unusable(path.parent, e) from e
    delay = 0.001
    while True:
        try:
            fcntl.flock(fd, op | fcntl.LOCK_NB)
            return fd
        except BlockingIOError:
            if time.monotonic() > deadline:
                os.close(fd)
                raise LockBusy(
                    f"timed out waiting for lock {name}",
                    hint="another gitmem process is holding it; retry shortly",
                ) from None
            time.sleep(delay)
            delay = min(delay * 2, max_delay)
        except BaseException:
            os.close(fd)
            raise


def is_locked(path: Path) -> bool:
    """Whether some process holds an flock on `path` (without waiting for it)."""
    try:
        fd = os.open(path, os.O_RDWR)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    except OSError:
        return False
    finally:
        os.close(fd)  # closing drops the lock if we took it
    return False


def pid_alive(pid: int) -> bool:
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


@contextlib.contextmanager
def pid_lock(path: Path, stale_after: float, what: str = "operation") -> Iterator[None]:
    """A lock file holding our PID; stale after `stale_after` seconds or when the PID is
    gone. Not an flock: the file names the holder, so a person can see who holds it and
    the ConflictError says so."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    mine = f"{os.getpid()} {int(time.time())}\n"
    for attempt in range(2):
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, file_mode(path.parent))
        except FileExistsError:
            try:
                pid_s, t_s = path.read_text().split()[:2]
                pid, started = int(pid_s), int(t_s)
            except (OSError, ValueError):
                pid, started = 0, 0
            if attempt == 0 and (time.time() - started > stale_after or not pid_alive(pid)):
                with contextlib.suppress(FileNotFoundError):
                    path.unlink()
                continue
            raise ConflictError(f"another {what} is running (pid {pid})",
                                hint=f"wait for it, or remove {path} if that process is gone") from None
        with os.fdopen(fd, "w") as fh:
            fh.write(mine)
        break
    try:
        yield
    finally:
        with contextlib.suppress(OSError):
            if path.read_text() == mine:
                path.unlink()
