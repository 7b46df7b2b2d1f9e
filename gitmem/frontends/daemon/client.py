"""The light side of `gitmem serve`: ask a running daemon, or say there is none.

Imports only the standard library and gitmem.hits (no numpy, duckdb, fastembed,
pygit2), so the hook runner and the CLI can try the daemon before paying for a cold
start. Every failure (no socket, a stale one, a refused connection, a timeout, a daemon
started with another configuration) comes back as None and the caller recalls
in-process as before.

Protocol: one JSON object per line each way over the Unix socket
$GITMEM_HOME/state/serve.sock (mode 0600). Requests carry `op` (ping, status, recall);
answers carry `ok` and either the data or `error`."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Iterable

from gitmem.core import paths
from gitmem.core.fsutil import is_locked
from gitmem.frontends.daemon import wire
from gitmem.recall.hits import Hit

# Environment the daemon must share with a client for its answers to be the client's
# answers: every GITMEM_* variable except those that only say who or how a hook runs.
_ENV_IGNORED = {"GITMEM_HOME", "GITMEM_SESSION", "GITMEM_AGENT", "GITMEM_PYTHON", "GITMEM_DEBUG",
                "GITMEM_HOOK_BUDGET", "GITMEM_HOOK_T0", "GITMEM_HOOK_AUTOSTART", "GITMEM_NO_DAEMON"}



def socket_path(home: str | os.PathLike[str]) -> Path:
    return Path(paths.serve_socket(home))


def pid_path(home: str | os.PathLike[str]) -> Path:
    return paths.state_file(home, "serve.pid")


def lock_path(home: str | os.PathLike[str]) -> Path:
    return paths.lock(home, "serve")


def log_path(home: str | os.PathLike[str]) -> Path:
    return paths.state_file(home, "serve.log")


def env_fingerprint(env: dict[str, str] | None = None) -> dict[str, str]:
    """The configuration-bearing GITMEM_* variables of this process."""
    env = os.environ if env is None else env
    return {k: v for k, v in env.items() if k.startswith("GITMEM_") and k not in _ENV_IGNORED}


def request(home: str | os.PathLike[str], payload: dict[str, Any], timeout: float = 5.0) -> dict[str, Any] | None:
    """Send one request; the answer, or None when no daemon answered in time."""
    path = socket_path(home)
    if os.environ.get("GITMEM_NO_DAEMON") == "1" or not path.exists():
        return None
    deadline = time.monotonic() + max(0.01, timeout)
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        s.settimeout(max(0.01, min(timeout, 0.5)))
        while True:
            try:
                s.connect(str(path))
                break
            except BlockingIOError:  # the daemon's backlog is full: it is busy, not gone
                if time.monotonic() > deadline:
                    return None
                time.sleep(0.005)
        s.sendall(wire.encode(payload))

        def recv() -> bytes:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("no answer in time")
            s.settimeout(left)
            return s.recv(65536)

        data = wire.read(recv, bytearray())
    except (OSError, ValueError):
        return None
    finally:
        s.close()
    return data if isinstance(data, dict) else None


def ping(home: str | os.PathLike[str], timeout: float = 1.0) -> dict[str, Any] | None:
    res = request(home, {"op": "ping"}, timeout)
    return res if res and res.get("ok") else None


def recall(home: str | os.PathLike[str], query: str, k: int = 10, scopes: Iterable[str] | None = None, *,
           timeout: float = 5.0, cwd: str | None = None, **filters: Any) -> tuple[list[Hit], dict[str, Any]] | None:
    """(hits, info) from the daemon, or None: no daemon, a timeout, another
    configuration, or an error (the caller then recalls in-process and meets it there).
    Filters as Store.recall: all_scopes, type, since, archived, mode, mmr, explain, record."""
    req = {"op": "recall", "query": query, "k": int(k), "scopes": list(scopes) if scopes else None,
           "cwd": cwd or os.getcwd(), "env": env_fingerprint(), **filters}
    res = request(home, req, timeout)
    if not res or not res.get("ok") or not isinstance(res.get("hits"), list):
        return None
    return [Hit.from_dict(h) for h in res["hits"]], res.get("info") or {}


def try_recall(home: str | os.PathLike[str], query: str, k: int = 10, scopes: Iterable[str] | None = None,
               timeout: float = 5.0, **filters: Any) -> list[dict[str, Any]] | None:
    """Hits as dicts (Hit.to_dict plus `text`) from a running daemon; None when there is none."""
    out = recall(home, query, k, scopes, timeout=timeout, **filters)
    if out is None:
        return None
    return [dict(h.to_dict(explain=True), text=h.text) for h in out[0]]


def running(home: str | os.PathLike[str]) -> bool:
    """Whether a daemon holds this store's serve lock (it may still be warming up)."""
    return is_locked(lock_path(home))


def spawn(home: str | os.PathLike[str], idle_exit: float | None = None,
          python: str | None = None) -> int | None:
    """Start a daemon for `home` in its own session, output to state/serve.log; its pid,
    or None when one is already running or it could not be started. Does not wait."""
    if running(home) or len(os.fsencode(str(socket_path(home)))) >= 108:
        return None  # one is there, or it could not bind (AF_UNIX path limit): don't try every prompt
    cmd = [python or sys.executable, "-m", "gitmem", "--home", str(home), "serve"]
    if idle_exit is not None:
        cmd += ["--idle-exit", f"{float(idle_exit):g}"]
    try:
        log = log_path(home)
        log.parent.mkdir(parents=True, exist_ok=True)
        with open(log, "ab") as fh:
            proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=fh, stderr=fh,
                                    start_new_session=True, cwd="/", close_fds=True)
    except OSError:
        return None
    return proc.pid
