"""The git command, for what libgit2 lacks (ref transactions, repack, prune, blame,
transports with the user's credential helpers and ssh set-up)."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import time
from pathlib import Path
from typing import Iterator

from gitmem.core.errors import ConflictError, GitmemError, UsageError
from gitmem.core.fsutil import file_lock


def git_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """The environment without GIT_DIR & co., so we never touch the caller's repo."""
    keep = ("GIT_SSH", "GIT_SSH_COMMAND", "GIT_ASKPASS", "GIT_TERMINAL_PROMPT",
            "GIT_CONFIG_GLOBAL", "GIT_CONFIG_NOSYSTEM")
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_") or k in keep}
    env.update(extra or {})
    return env


def run(git_dir: Path | str | None, *args: str, input: bytes | None = None, check: bool = True,
        cwd: str | os.PathLike[str] | None = None, timeout: float | None = None) -> str:
    """Run git on a repository (`git_dir` None: the one containing `cwd`); stdout as text."""
    cmd = ["git"] + ([f"--git-dir={git_dir}"] if git_dir is not None else []) + list(args)
    try:
        res = subprocess.run(cmd, input=input, capture_output=True, env=git_env(), cwd=cwd, timeout=timeout)
    except FileNotFoundError as e:
        if shutil.which("git") is None:
            raise GitmemError("the git command is not installed", hint="install git 2.30 or newer") from e
        raise UsageError(f"no such folder: {cwd}", hint="check the path") from e
    except subprocess.TimeoutExpired as e:
        raise GitmemError(f"git {args[0]} timed out after {timeout} s") from e
    if check and res.returncode != 0:
        raise GitmemError(f"git {args[0]} failed: {res.stderr.decode(errors='replace').strip()}")
    return res.stdout.decode(errors="replace")


def run_status(git_dir: Path | str, *args: str, timeout: float | None = None) -> tuple[int, str]:
    """Run git; (exit code, stdout and stderr together) without raising on failure."""
    try:
        res = subprocess.run(["git", f"--git-dir={git_dir}", *args], capture_output=True, env=git_env(),
                             timeout=timeout)
    except FileNotFoundError as e:
        raise GitmemError("the git command is not installed", hint="install git 2.30 or newer") from e
    return res.returncode, (res.stdout + res.stderr).decode(errors="replace")


def background(git_dir: Path, args: list[str], lock_path: Path, wait: bool = False) -> None:
    """Run a git maintenance command detached, at most one of each kind at a time."""
    cmd = ["git", f"--git-dir={git_dir}", *args]
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
def maintenance_paused(repack_lock: Path, gc_lock: Path, timeout: float = 120.0) -> Iterator[None]:
    """Hold the locks background maintenance runs under (see `background`)."""
    with file_lock(repack_lock, timeout=timeout), file_lock(gc_lock, timeout=timeout):
        yield


def wait_for_gc(git_dir: Path, timeout: float) -> None:
    """Wait for a `git gc` started by git itself (its gc.pid) to finish."""
    pidfile = Path(git_dir) / "gc.pid"
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
                            hint="retry when it has finished")
