"""Running a client's whole CLI command inside the daemon, as its own process would.

Concurrency, by design: a command's cwd, environment (TZ included), umask, sys.argv and
sys.std* are process-wide, so whole commands run ONE AT A TIME: the daemon takes its
run lock around run_command, and every other request that reads process-wide state
(hooks, which read the environment) takes the same lock. Recall and status requests read
no process-wide state (their scopes, cwd and settings come in the request) and run beside
a command on their own threads. This module is the one place that swaps that state, and
it puts every piece back before the lock is released.

Streams: click caches the text stream it made for each sys.std* it saw, keyed weakly by
that stream and valued by it, so never freed; the command sees its client's streams as
ClientStream (no weak references), which click's cache passes over by design, so a
long-lived daemon keeps no client's streams (tests/test_warm_cli.py checks it)."""

from __future__ import annotations

import io
import os
import sys
import time
from typing import Any

from gitmem.core.errors import EXIT_INTERNAL


def _swap_env(new: dict[str, str]) -> dict[str, str]:
    """Make os.environ `new`, touching only the variables that differ; the old one."""
    old = dict(os.environ)
    for k in old.keys() - new.keys():
        del os.environ[k]
    for k, v in new.items():
        if old.get(k) != v:
            os.environ[k] = v
    if old.get("TZ") != new.get("TZ"):
        time.tzset()
    return old


def _stdio(fd: int, mode: str, encoding: str | None, errors: str | None, line: bool,
           client: Any = None) -> Any:
    """A text stream on a client's descriptor made the way Python makes sys.std* (POSIX:
    newline "\n", block buffered by st_blksize, line buffered on a terminal and for stderr).
    stdin stops waiting (KeyboardInterrupt, as Ctrl-C would in-process) when the
    `client` connection closes: a client interrupted while its command reads a terminal
    must not leave the daemon reading that terminal."""
    import io

    if mode == "r" and client is not None:
        raw: Any = io.BufferedReader(_ClientStdin(fd, client))
    else:
        raw = io.open(fd, mode + "b", buffering=-1, closefd=True)
    return io.TextIOWrapper(raw, encoding=encoding, errors=errors, newline="\n",
                            line_buffering=mode == "w" and (line or os.isatty(fd)))


_DEVNULL: Any = None


def _devnull() -> Any:
    global _DEVNULL
    if _DEVNULL is None:
        _DEVNULL = open(os.devnull, "w", encoding="utf-8")
    return _DEVNULL


class _ClientStdin(io.RawIOBase):
    """A client's stdin that gives up when the client goes away (see _stdio)."""

    def __init__(self, fd: int, client: Any):
        super().__init__()
        self.fd, self.client = fd, client

    def readable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self.fd

    def isatty(self) -> bool:
        return os.isatty(self.fd)

    def readinto(self, b: Any) -> int:
        import select

        poll = select.poll()
        poll.register(self.fd, select.POLLIN | select.POLLHUP | select.POLLERR)
        poll.register(self.client.fileno(), select.POLLIN | select.POLLHUP | select.POLLERR)
        while True:
            ready = dict(poll.poll())
            if self.client.fileno() in ready:
                # The client closed the connection: it was stopped, and has said so
                # itself. Nobody reads what the command says from now on.
                sys.stdout = sys.stderr = _devnull()
                raise KeyboardInterrupt
            if self.fd in ready:
                data = os.read(self.fd, len(b))
                b[: len(data)] = data
                return len(data)

    def close(self) -> None:
        if not self.closed:
            try:
                os.close(self.fd)
            finally:
                super().close()


class ClientStream:
    """A client's stream as sys.std* shows it to the command: the text stream behind, minus
    weak-reference support. click caches the stream it made for each sys.std* it sees in a
    WeakKeyDictionary whose value is that stream itself (so an entry never dies), and
    skips the cache for a stream that cannot be weakly referenced: so a finished command's
    streams are not kept, without touching click's private caches."""

    __slots__ = ("stream",)

    def __init__(self, stream: Any):
        object.__setattr__(self, "stream", stream)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.stream, name)

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self.stream, name, value)

    def __iter__(self) -> Any:
        return iter(self.stream)

    def __next__(self) -> Any:
        return next(self.stream)

    def __enter__(self) -> "ClientStream":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stream.close()


def _exit_code(code: Any) -> int:
    """What a process exiting with SystemExit(code) returns."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    try:
        sys.stderr.write(f"{code}\n")
    except (OSError, ValueError):
        pass
    return 1


def run_command(req: dict[str, Any], fds: list[int], rt: Any, client: Any = None) -> int:
    """Run a client's `gitmem ARGV` in this process as its own process would: on its
    descriptors (`fds`: stdin, stdout, stderr), in its directory, environment and umask,
    with `rt` (the daemon's Runtime) as the command's ctx.obj['runtime']. Its exit code.
    The caller holds the daemon's run lock: see the module docstring."""
    from gitmem.frontends import cli

    try:
        saved_cwd = os.getcwd()
    except OSError:  # the daemon was started in a folder removed since
        saved_cwd = "/"
    saved = (sys.stdin, sys.stdout, sys.stderr, sys.argv)
    saved_env = _swap_env(req["env"])
    mask = req.get("umask")
    saved_mask = os.umask(mask & 0o777 if isinstance(mask, int) else 0o022)
    streams = []
    try:
        os.chdir(req["cwd"])
        for (enc, errors), mode, is_err in zip(req["streams"], ("r", "w", "w"), (False, False, True)):
            fd = fds.pop(0)  # the stream owns it from here
            try:
                streams.append(_stdio(fd, mode, enc, errors, line=is_err, client=client))
            except BaseException:
                os.close(fd)
                raise
        sys.stdin, sys.stdout, sys.stderr = (ClientStream(f) for f in streams)
        sys.argv = [str(req.get("argv0") or "gitmem"), *req["argv"]]
        try:
            cli.cli.main(args=list(req["argv"]), prog_name="gitmem", obj={"runtime": rt})
            code = 0
        except SystemExit as e:
            code = _exit_code(e.code)
        except BaseException:  # noqa: BLE001 - run_reporting_errors lets nothing else out
            code = EXIT_INTERNAL
        for f in (sys.stdout, sys.stderr):
            try:
                f.flush()
            except (OSError, ValueError):
                pass
        return code
    finally:
        sys.stdin, sys.stdout, sys.stderr, sys.argv = saved
        for f in streams:
            try:
                f.close()
            except (OSError, ValueError):
                pass
        os.umask(saved_mask)
        try:
            os.chdir(saved_cwd)
        except OSError:
            os.chdir("/")
        _swap_env(saved_env)
