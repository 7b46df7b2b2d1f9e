"""`gitmem serve`: a warm daemon behind a Unix socket. It keeps one Store with its
embedding model and in-memory index snapshot loaded, so a hook or the CLI gets recall
in milliseconds instead of paying for imports, the index open and the model load.

- Socket $GITMEM_HOME/state/serve.sock (0600), pid file state/serve.pid; a flock on
  state/locks/serve.lock names the one daemon of a store (a second one exits at once),
  so a socket file without that lock is stale and is removed on start.
- The index stays consistent the way gitmem/index/ arranges it: the daemon reads
  through snapshots and holds no DuckDB file lock while serving; before every recall it
  compares the scope tips with its snapshot's cursors (a ref read) and catches up only
  when another process wrote.
- Requests are served by threads; recall calls are serialised (the Recaller and its
  snapshot are not thread-safe), ping and status are not.
- Indexing never stalls a query: a recall with `timeout_ms` answers by words (BM25)
  while vectors are pending, and a worker thread embeds them in the background
  (Store.index_catch_up with the recall lock: held to read and write the index, never
  while the model embeds), so a later query is hybrid without anyone running reindex.
  The same worker indexes what a command run here wrote (remember, append), what a
  `refresh` request announces (a hook's extract, an import in another process), and,
  on start, what was written while no daemon ran.
- `run` (gitmem/frontends/launch.py, the `gitmem` entry point): a whole CLI command of a client,
  with its stdin/stdout/stderr descriptors (SCM_RIGHTS), cwd, environment and umask.
  It runs the same click command as the client would, one at a time (run_lock: the
  process's cwd, environment and sys.std* are the client's meanwhile; hook requests
  take the lock too), with api.open handing the command a Store on the warm engines
  (Daemon.warm_open -> Store.sharing) for the client's session and agent.
- SIGTERM/SIGINT, `--idle-exit` seconds without a request, or the store's repository
  disappearing stop it; the socket and pid file are removed on the way out.

A front end: it calls only the api (gitmem.api.Store). Clients:
gitmem/serve_client.py (standard library only). No printing here."""

from __future__ import annotations

import io
import json
import os
import signal
import socketserver
import sys
import threading
import time
from pathlib import Path
from typing import Any

from gitmem.core.errors import ConflictError, GitmemError, UsageError
from gitmem.frontends import launch
from gitmem.frontends.daemon import client as serve_client
from gitmem.frontends.daemon.client import lock_path, pid_path, socket_path
from gitmem.frontends.runtime import Runtime

BUSY_WAIT = 0.5  # seconds a command waits for the one running before it runs in its own process
DEFAULT_IDLE_EXIT = 1800.0  # seconds without a request before the daemon exits (0: never)
MAX_REQUEST = 1 << 20
CATCH_UP_QUIET = 1.0  # seconds without writes before the daemon indexes what was written
_RECALL_KEYS = ("all_scopes", "type", "since", "archived", "mode", "mmr", "explain", "record", "at",
                "timeout_ms")
WARM_EMBED_LIMIT = 8  # on start, texts embedded before listening; the rest in the background


class Daemon:
    """The state behind the socket: one warm Store, a recall lock, counters."""

    def __init__(self, home: str | os.PathLike[str] | None = None, idle_exit: float = DEFAULT_IDLE_EXIT):
        from gitmem import api
        from gitmem.core.config import load_config

        # Absolute: the daemon changes directory to each client's while running its command.
        self.home = Path(os.path.abspath(load_config(home).home))
        self.real_home = os.path.realpath(self.home)
        self._open = lambda: api.open(self.home)
        self.store = self._open()
        self.code = launch.code_id()
        self.idle_exit = float(idle_exit)
        self.env = serve_client.env_fingerprint()
        self.started = time.time()
        self.last_request = time.monotonic()
        self.requests = 0
        self.recall_lock = threading.Lock()
        # Held while a client's command runs (cwd, environment and sys.std* are the
        # client's then) and by hook requests, which read them too. Taken before recall_lock.
        self.run_lock = threading.Lock()
        self._run_thread: int | None = None
        self._written = 0.0  # when a command run here last wrote
        self._catching = False  # the index worker runs
        self._again = False  # ... and must look (again) once writes pause
        self.last_catch_up: dict[str, Any] | None = None
        self._worker: threading.Thread | None = None
        self.embedded = 0  # vectors the worker computed since the start
        self._count_lock = threading.Lock()
        self._config_stamp = self._stamp()
        self.server: socketserver.BaseServer | None = None
        # What commands and hooks run here get instead of a cold open: the warm Store,
        # pending vectors to the worker, recall in process, never our own socket.
        self.runtime = Runtime(warm_open=self.warm_open, index_later=self.index_later, recall=self.warm_recall,
                               ask_daemon=False)
        self._stopping = threading.Event()
        self.stop_reason: str | None = None

    def _stamp(self) -> tuple[int, int] | None:
        try:
            st = (self.home / "config.toml").stat()
            return (st.st_mtime_ns, st.st_size)
        except OSError:
            return None

    def warm(self) -> None:
        """Load the model and index the words now, not on the first client's clock;
        vectors of a big batch written meanwhile follow in the background."""
        self.store.recaller.warm(embed_limit=WARM_EMBED_LIMIT)

    def _refresh_config(self) -> None:
        # config.toml changed (a link, a recall weight): start over with a new Store.
        stamp = self._stamp()
        if stamp != self._config_stamp:
            old, self.store = self.store, self._open()
            self._config_stamp = stamp
            try:
                old.recaller.close()  # drop the old in-memory snapshot
            except Exception:  # noqa: BLE001 - it is being thrown away
                pass

    # ---- requests ----------------------------------------------------------------------
    def handle(self, req: Any) -> dict[str, Any]:
        with self._count_lock:
            self.last_request = time.monotonic()
            self.requests += 1
        if not isinstance(req, dict):
            return {"ok": False, "error": "a request is a JSON object"}
        op = req.get("op")
        try:
            if op == "ping":
                return {"ok": True, "pid": os.getpid(), "home": str(self.home)}
            if op == "status":
                return {"ok": True, **self.status()}
            if op == "recall":
                return self.recall(req)
            if op == "hook":
                return self.hook(req)
            if op == "refresh":
                # Another process wrote (a hook's extract): index it here, with the
                # model that is loaded already, once writes pause.
                if req.get("env") is not None and req["env"] != self.env:
                    return {"ok": False, "error": "the daemon runs with another GITMEM_* environment",
                            "kind": "config"}
                self._catch_up_later(quiet=not req.get("now"))
                return {"ok": True, "pid": os.getpid()}
            return {"ok": False, "error": f"unknown op {op!r}", "hint": "ping, status, recall, hook, refresh or run"}
        except GitmemError as e:
            return {"ok": False, "error": e.message, "hint": e.hint, "kind": type(e).__name__}
        except Exception as e:  # noqa: BLE001 - one bad request must not take the daemon down
            return {"ok": False, "error": f"{type(e).__name__}: {e}", "kind": "internal"}

    def recall(self, req: dict[str, Any]) -> dict[str, Any]:
        if req.get("env") is not None and req["env"] != self.env:
            # Another model or weights in the client's environment: its answer, not ours.
            return {"ok": False, "error": "the daemon runs with another GITMEM_* environment",
                    "kind": "config"}
        query = req.get("query")
        if not isinstance(query, str):
            raise UsageError("recall needs a query string")
        filters = {k: req[k] for k in _RECALL_KEYS if req.get(k) is not None}
        explain = bool(filters.get("explain"))
        with self.recall_lock:
            self._refresh_config()
            store = self.store
            t0 = time.perf_counter()
            # The client's cwd, not the daemon's, picks the linked project's scope.
            result = store.search(query, k=int(req.get("k") or 10), scopes=req.get("scopes") or None,
                                  cwd=req.get("cwd"), **filters)
            hits, info = result.hits, dict(result.info)
            info["daemon_ms"] = round((time.perf_counter() - t0) * 1000, 3)
        if (info.get("vectors") or {}).get("pending"):
            self._catch_up_later(quiet=False)  # the next query is hybrid, nobody runs reindex
        return {"ok": True, "hits": [dict(h.to_dict(explain=explain), text=h.text) for h in hits],
                "info": _jsonable(info)}

    def warm_recall(self, query: str, k: int, scopes: list[str], timeout_ms: float | None = None) -> list[Any]:
        """Runtime.recall for a hook run in this process; with a timeout,
        by words while vectors are pending, which the worker then embeds."""
        with self.recall_lock:
            self._refresh_config()
            result = self.store.search(query, k=k, scopes=scopes, timeout_ms=timeout_ms)
            hits, pending = result.hits, (result.info.get("vectors") or {}).get("pending")
        if pending:
            self._catch_up_later(quiet=False)
        return hits

    def hook(self, req: dict[str, Any]) -> dict[str, Any]:
        """Run a hook for a client (the prompt hook, on the agent's clock) and hand back
        what it would print. Its deadline counts the client's time so far."""
        from gitmem.frontends import hookrun

        if req.get("env") is not None and req["env"] != self.env:
            return {"ok": False, "error": "the daemon runs with another GITMEM_* environment",
                    "kind": "config"}
        event = req.get("event")
        payload = req.get("payload")
        if event not in hookrun.SERVED_EVENTS or not isinstance(payload, dict):
            raise UsageError(f"hook {event!r} is not served here")
        started = time.monotonic() - max(0.0, float(req.get("elapsed") or 0.0))
        budget = req.get("budget")
        wait = (float(budget) if budget is not None else float(hookrun.hook_setting(None, "budget"))) \
            - (time.monotonic() - started) - 0.2
        if not self.run_lock.acquire(timeout=max(0.0, wait)):
            return {"ok": False, "error": "busy running a command", "kind": "busy"}
        try:
            res = hookrun.run(event, payload, home=str(self.home), agent=req.get("agent"),
                              budget=None if budget is None else float(budget), started=started,
                              session=req.get("session"), runtime=self.runtime)
        finally:
            self.run_lock.release()
        return {"ok": True, "stdout": res.stdout, "notes": res.notes, "timings": res.timings}

    # ---- whole commands (gitmem.frontends.launch) --------------------------------------------------
    def _refusal(self, req: dict[str, Any], fds: list[int]) -> str | None:
        """Why this daemon will not run the client's command (it then runs in-process)."""
        argv = req.get("argv")
        if not isinstance(argv, list) or not all(isinstance(a, str) for a in argv):
            return "argv is a list of strings"
        if launch.warm_command(argv) is None:
            return "not a command the daemon runs"
        if req.get("code") != self.code:
            if launch.code_id() != self.code:
                self.stop("gitmem changed on disk")  # upgraded under us: make way for a new one
            return "the daemon runs another copy or version of gitmem"
        env = req.get("env")
        if not isinstance(env, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in env.items()):
            return "env is an object of strings"
        if serve_client.env_fingerprint(env) != self.env:
            return "the daemon runs with another GITMEM_* environment"
        if os.path.realpath(launch.resolve_home(argv, env)) != self.real_home:
            return "another store"
        streams = req.get("streams")
        if len(fds) != 3 or not isinstance(streams, list) or len(streams) != 3:
            return "stdin, stdout and stderr are passed with the request"
        if not isinstance(req.get("cwd"), str) or not os.path.isdir(req["cwd"]):
            return "the working directory is gone"
        return None

    def run(self, req: dict[str, Any], fds: list[int], conn: "_Conn") -> dict[str, Any] | None:
        """Run a client's `gitmem ARGV` (a WARM_COMMANDS command) as its own process would,
        on its descriptors, in its directory and environment, on the warm Store: {"exit":
        N} once done. Declined before "go" (the client then runs it itself), never after."""
        why = self._refusal(req, fds)
        if why is not None:
            return {"ok": False, "error": why, "kind": "declined"}
        # One command at a time here. When another one is still running after BUSY_WAIT,
        # decline: the client runs this one in its own process (in parallel) instead of
        # queueing behind a burst (8 writers queued CLI recalls for 38 s in the load test).
        if not self.run_lock.acquire(timeout=BUSY_WAIT):
            return {"ok": False, "error": "busy with another command", "kind": "declined"}
        try:
            conn.send({"ok": True, "accepted": True})
            go = conn.recv()
            if not isinstance(go, dict) or go.get("op") != "go":
                return None  # the client gave up waiting and runs the command itself
            with self.recall_lock:
                try:
                    self._refresh_config()
                except GitmemError:
                    pass  # config.toml is broken now: the command reports it as in-process
                try:
                    code = self._invoke(req, fds, conn.sock)
                except Exception as e:  # noqa: BLE001 - e.g. its directory went away meanwhile
                    return {"ok": False, "error": f"{type(e).__name__}: {e}", "kind": "internal"}
        finally:
            self.run_lock.release()
        if code == 0 and launch.warm_command(req["argv"]) in ("remember", "append"):
            self._catch_up_later()
        return {"ok": True, "exit": code}

    def _catch_up_later(self, quiet: bool = True) -> None:
        """Index and embed in the background (the worker thread, one at a time). After
        a write (`quiet`), once writes pause for CATCH_UP_QUIET seconds: a burst of
        writes must not queue behind each catch-up. For vectors a query found pending,
        as soon as no write is that recent."""
        with self._count_lock:
            if quiet:
                self._written = time.monotonic()
            self._again = True
            if self._catching:
                return
            self._catching = True
        self._worker = threading.Thread(target=self._catch_up, daemon=True, name="gitmem-index")
        self._worker.start()

    def _catch_up(self) -> None:
        try:
            while True:
                while not self._stopping.is_set():
                    wait = self._written + CATCH_UP_QUIET - time.monotonic()
                    if wait <= 0:
                        break
                    self._stopping.wait(wait)
                with self._count_lock:
                    if not self._again or self._stopping.is_set():
                        self._catching = False
                        return
                    self._again = False
                store = self.store
                t0 = time.monotonic()
                try:
                    # The recall lock is held only to read and write the index: queries go
                    # on meanwhile (with a timeout, by words until the vectors are in).
                    info = store.index_catch_up(
                        lock=self.recall_lock, stop=lambda: self._stopping.is_set() or self.store is not store)
                except Exception as e:  # noqa: BLE001 - the next recall tries again and reports it
                    info = {"error": f"{type(e).__name__}: {e}"}
                info["seconds"] = round(time.monotonic() - t0, 3)
                info["finished"] = time.time()
                self.last_catch_up = info
                self.embedded += int(info.get("embedded") or 0)
                if info.get("stopped") and not self._stopping.is_set():
                    with self._count_lock:
                        self._again = True  # a new Store (config.toml changed): once more on it
        finally:
            with self._count_lock:
                self._catching = False

    def index_later(self, home: Any) -> bool:
        """Runtime.index_later: a command run here found vectors pending (recall --timeout)."""
        if threading.get_ident() != self._run_thread or os.path.realpath(home) != self.real_home:
            return False
        self._catch_up_later(quiet=False)
        return True

    def _invoke(self, req: dict[str, Any], fds: list[int], client: Any = None) -> int:
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
            sys.stdin, sys.stdout, sys.stderr = streams
            sys.argv = [str(req.get("argv0") or "gitmem"), *req["argv"]]
            self._run_thread = threading.get_ident()
            try:
                cli.cli.main(args=list(req["argv"]), prog_name="gitmem", obj={"runtime": self.runtime})
                code = 0
            except SystemExit as e:
                code = _exit_code(e.code)
            except BaseException:  # noqa: BLE001 - run_reporting_errors lets nothing else out
                code = launch.EXIT_INTERNAL
            for f in (sys.stdout, sys.stderr):
                try:
                    f.flush()
                except (OSError, ValueError):
                    pass
            return code
        finally:
            self._run_thread = None
            sys.stdin, sys.stdout, sys.stderr, sys.argv = saved
            _click_forget(streams)
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

    def warm_open(self, home: Any = None, **kw: Any) -> Any:
        """Runtime.warm_open while a client's command runs on this thread: a Store on the warm
        engines when it names this store with these settings, else None (a cold open)."""
        if threading.get_ident() != self._run_thread or set(kw) - {"session", "agent"}:
            return None
        from gitmem.core.config import load_config

        cfg = load_config(home, **kw)  # the client's environment and directory are ours now
        if os.path.realpath(cfg.home) != self.real_home or cfg.data != self.store.config.data:
            return None
        return self.store.sharing(cfg)

    def status(self) -> dict[str, Any]:
        warm = self.store.recaller.warm_state()
        return {"pid": os.getpid(), "home": str(self.home), "socket": str(socket_path(self.home)),
                "started": self.started, "uptime": round(time.time() - self.started, 3),
                "requests": self.requests, "idle_exit": self.idle_exit,
                "running_command": self._run_thread is not None,
                "model": warm["model"], "backend": warm["backend"],
                "snapshot_chunks": warm["snapshot_chunks"],
                # Chunks answered by words only until the index worker embeds them.
                "pending": warm["snapshot_pending"], "indexing": self._catching,
                "embedded": self.embedded, "last_catch_up": self.last_catch_up}

    # ---- lifecycle ---------------------------------------------------------------------
    def stop(self, reason: str) -> None:
        """Ask serve_forever to return (safe from a signal handler or another thread)."""
        if self._stopping.is_set():
            return
        self.stop_reason = reason
        self._stopping.set()
        if self.server is not None:
            threading.Thread(target=self.server.shutdown, daemon=True).start()

    def watchdog(self) -> None:
        """Stop when the store goes away or after idle_exit seconds without a request
        (runs in its own thread)."""
        while not self._stopping.wait(1.0):
            if not (self.home / "repo.git").exists():
                self.stop("the store is gone")
            elif self.idle_exit > 0 and time.monotonic() - self.last_request > self.idle_exit:
                self.stop(f"idle for {self.idle_exit:g} s")


def _jsonable(d: dict[str, Any]) -> dict[str, Any]:
    return json.loads(json.dumps(d, default=str))


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


def _click_forget(streams: list[Any]) -> None:
    """Drop a finished command's streams from click's stream caches. click keeps each
    sys.std* it has seen in a WeakKeyDictionary whose value is the stream itself, so the
    entry never dies by itself: in a daemon that would keep every client's streams."""
    import weakref

    # click's own module, already loaded by the command that ran; its caches are private
    # to it, and a click without them leaves nothing to drop.
    _compat = sys.modules.get("click._compat")
    for name in ("_default_text_stdin", "_default_text_stdout", "_default_text_stderr"):
        for cell in getattr(getattr(_compat, name, None), "__closure__", None) or ():
            try:
                cache = cell.cell_contents
            except ValueError:
                continue
            if isinstance(cache, weakref.WeakKeyDictionary):
                for s in streams:
                    cache.pop(s, None)


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


class _Conn:
    """One client connection: JSON lines each way, with the descriptors a request carries."""

    def __init__(self, sock: Any):
        self.sock = sock
        self.buf = bytearray()
        self.fds: list[int] = []

    def recv(self) -> Any:
        """The next request (ValueError when not JSON), or None at the end. Descriptors
        that came with it are in self.fds."""
        import socket as socket_mod

        while b"\n" not in self.buf:
            if len(self.buf) > MAX_REQUEST:
                raise OSError("request too long")
            data, fds, _flags, _addr = socket_mod.recv_fds(self.sock, 65536, 8)
            self.fds += fds
            if not data:
                return None
            self.buf += data
        line, _, rest = bytes(self.buf).partition(b"\n")
        self.buf[:] = rest
        return json.loads(line)

    def send(self, obj: Any) -> None:
        self.sock.sendall(json.dumps(obj, ensure_ascii=False, default=str).encode("utf-8") + b"\n")

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
        daemon: Daemon = self.server.daemon_state  # type: ignore[attr-defined]
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
                        with daemon._count_lock:
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


def _take_lock(home: Path) -> int:
    import fcntl

    path = lock_path(home)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        pid = _read_pid(home)
        raise ConflictError(f"gitmem serve is already running for {home}" + (f" (pid {pid})" if pid else ""),
                            hint="`gitmem serve --status` shows it; stop it with kill -TERM PID") from None
    return fd


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


def serve(home: str | os.PathLike[str] | None = None, idle_exit: float = DEFAULT_IDLE_EXIT,
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
        daemon._catch_up_later(quiet=False)  # vectors warm() left pending, if any
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
        worker = daemon._worker
        if worker is not None:
            daemon._stopping.set()
            worker.join(10.0)  # it stops between two batches: not in the middle of a write
        # Only remove what is ours: a socket we bound and our own pid in the pid file.
        _remove(sock)
        if _read_pid(home_p) == os.getpid():
            _remove(pidf)
        os.close(lock_fd)


def start_detached(home: str | os.PathLike[str], idle_exit: float = DEFAULT_IDLE_EXIT,
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
