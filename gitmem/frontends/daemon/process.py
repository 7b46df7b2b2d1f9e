"""The daemon's process life: the one-daemon lock, the pid file and the socket, signals,
the threaded Unix-socket server and its connections (JSON lines from wire.py, descriptors
by SCM_RIGHTS), running in the foreground and starting detached."""

from __future__ import annotations

import contextlib
import os
import signal
import socketserver
import threading
import time
from pathlib import Path
from typing import Any

from gitmem.core.errors import ConflictError, GitmemError, UsageError
from gitmem.core.fsutil import file_lock
from gitmem.frontends.daemon import client as serve_client
from gitmem.frontends.daemon import wire
from gitmem.frontends.daemon.client import lock_path, pid_path, socket_path
from gitmem.frontends.daemon.server import Daemon


class _Conn:
    """One client connection: JSON lines each way, with the descriptors a request carries."""

    def __init__(self, sock: Any):
        self.sock = sock
        self.buf = bytearray()
        self.fds: list[int] = []

    def recv(self) -> Any:
        """The next request (ValueError when not JSON), or None at the end. Descriptors
        that came with it are in self.fds."""
        return wire.read(self._recv, self.buf)

    def _recv(self) -> bytes:
        import socket as socket_mod

        data, fds, _flags, _addr = socket_mod.recv_fds(self.sock, 65536, 8)
        self.fds += fds
        return data

    def send(self, obj: Any) -> None:
        self.sock.sendall(wire.encode(obj))

    def close_fds(self) -> None:
        for fd in self.fds:
            try:
                os.close(fd)
            except OSError:
                pass
        self.fds = []


class _Handler(socketserver.BaseRequestHandler):
    timeout = 30  # a client that sends nothing is dropped

    def handle(self) -> None:
        daemon = self.server.daemon_state  # type: ignore[attr-defined]
        conn = _Conn(self.request)
        self.request.settimeout(self.timeout)
        try:
            while True:
                try:
                    req = conn.recv()
                except ValueError:
                    req = ValueError
                except OSError:
                    return
                if req is None:
                    return
                fds, conn.fds = conn.fds, []
                try:
                    if req is ValueError:
                        res: Any = {"ok": False, "error": "not a JSON line"}
                    elif isinstance(req, dict) and req.get("op") == "run":
                        with daemon.count_lock:
                            daemon.last_request = time.monotonic()
                            daemon.requests += 1
                        res = daemon.run(req, fds, conn)
                        if res is None:
                            return
                    else:
                        res = daemon.handle(req)
                finally:
                    for fd in fds:  # not taken by a command: ours to close
                        try:
                            os.close(fd)
                        except OSError:
                            pass
                try:
                    conn.send(res)
                except OSError:
                    return
        finally:
            conn.close_fds()


class _Server(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True
    allow_reuse_address = False
    request_queue_size = 128  # the default 5 refuses a burst of hooks (EAGAIN on connect)


def _take_lock(home: Path) -> contextlib.ExitStack:
    """The serve lock, held for the daemon's life (it names the one daemon of a store);
    close() the returned stack to let it go."""
    stack = contextlib.ExitStack()
    try:
        stack.enter_context(file_lock(lock_path(home), timeout=0))
    except ConflictError:
        pid = _read_pid(home)
        raise ConflictError(f"gitmem serve is already running for {home}" + (f" (pid {pid})" if pid else ""),
                            hint="`gitmem serve --status` shows it; stop it with kill -TERM PID") from None
    return stack


def _read_pid(home: Path) -> int | None:
    try:
        return int(pid_path(home).read_text().strip())
    except (OSError, ValueError):
        return None


def _exited(pid: int) -> bool:
    try:
        done, _ = os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return True
    return done == pid


def _remove(path: Path) -> None:
    try:
        path.unlink()
    except FileNotFoundError:
        pass


def serve(home: str | os.PathLike[str] | None = None, idle_exit: float | None = None,
          ready: Any = None) -> str:
    """Run the daemon in this process until SIGTERM/SIGINT, the idle timeout or the store
    going away; returns why it stopped. `ready(info)` is called once it listens."""
    daemon = Daemon(home, idle_exit)
    home_p = daemon.home
    if not (home_p / "repo.git").exists():
        raise UsageError(f"no gitmem store at {home_p}", hint="run `gitmem init` first")
    lock_fd = _take_lock(home_p)
    sock = socket_path(home_p)
    pidf = pid_path(home_p)
    server = None
    try:
        # We hold the serve lock, so any socket file is a dead daemon's: clear it.
        _remove(sock)
        from gitmem.core.fsutil import atomic_write

        atomic_write(pidf, f"{os.getpid()}\n".encode())
        try:
            daemon.warm()
        except GitmemError:
            pass  # the first recall retries and reports it to its client
        old_mask = os.umask(0o177)  # the socket is born 0600: no window for others
        try:
            server = _Server(str(sock), _Handler, bind_and_activate=True)
        except OSError as e:
            raise GitmemError(f"cannot listen on {sock}: {e}",
                              hint="a Unix socket path must stay under 108 bytes: use a shorter GITMEM_HOME") from e
        finally:
            os.umask(old_mask)
        os.chmod(sock, 0o600)
        server.daemon_state = daemon  # type: ignore[attr-defined]
        daemon.server = server
        daemon.last_request = time.monotonic()
        previous = {}
        if threading.current_thread() is threading.main_thread():
            for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
                previous[sig] = signal.signal(sig, lambda s, f: daemon.stop(signal.Signals(s).name))
        threading.Thread(target=daemon.watchdog, daemon=True).start()
        daemon.catch_up_later(after_write=False)  # vectors warm() left pending, if any
        if ready is not None:
            ready({"pid": os.getpid(), "socket": str(sock), "home": str(home_p)})
        try:
            server.serve_forever(poll_interval=0.5)
        finally:
            for sig, h in previous.items():
                signal.signal(sig, h)
        return daemon.stop_reason or "stopped"
    finally:
        if server is not None:
            server.server_close()
        daemon.worker.stop(10.0)  # it stops between two batches: not in the middle of a write
        # Only remove what is ours: a socket we bound and our own pid in the pid file.
        _remove(sock)
        if _read_pid(home_p) == os.getpid():
            _remove(pidf)
        lock_fd.close()


def start_detached(home: str | os.PathLike[str], idle_exit: float | None = None,
                   wait: float = 60.0) -> dict[str, Any]:
    """Start a daemon in the background and wait until it answers a ping (or `wait`
    seconds pass): {"pid", "socket", "already": bool, "ready": bool}."""
    home_p = Path(home)
    if not (home_p / "repo.git").exists():
        raise UsageError(f"no gitmem store at {home_p}", hint="run `gitmem init` first")
    pong = serve_client.ping(home_p)
    if pong:
        return {"pid": pong.get("pid"), "socket": str(socket_path(home_p)), "already": True, "ready": True}
    already = serve_client.running(home_p)
    pid = None if already else serve_client.spawn(home_p, idle_exit)
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        pong = serve_client.ping(home_p, timeout=0.5)
        if pong:
            return {"pid": pong.get("pid"), "socket": str(socket_path(home_p)), "already": already, "ready": True}
        if pid is not None and _exited(pid):
            break  # it gave up (its reason is in the log)
        time.sleep(0.05)
    return {"pid": pid or _read_pid(home_p), "socket": str(socket_path(home_p)), "already": already,
            "ready": False, "log": str(serve_client.log_path(home_p))}
