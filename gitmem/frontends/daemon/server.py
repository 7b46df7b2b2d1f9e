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

import json
import os
import socketserver
import threading
import time
from pathlib import Path
from typing import Any

from gitmem.core.errors import GitmemError, UsageError
from gitmem.frontends import launch
from gitmem.frontends.daemon import client as serve_client
from gitmem.frontends.daemon import runner
from gitmem.frontends.daemon.client import socket_path
from gitmem.frontends.daemon.worker import IndexWorker
from gitmem.frontends.runtime import Runtime

BUSY_WAIT = 0.5  # seconds a command waits for the one running before it runs in its own process
CATCH_UP_QUIET = 1.0  # seconds without writes before the daemon indexes what was written
_RECALL_KEYS = ("all_scopes", "type", "since", "archived", "mode", "mmr", "explain", "record", "at",
                "timeout_ms", "min_relevance", "include_superseded")
WARM_EMBED_LIMIT = 8  # on start, texts embedded before listening; the rest in the background


class Daemon:
    """The state behind the socket: one warm Store, a recall lock, counters."""

    def __init__(self, home: str | os.PathLike[str] | None = None, idle_exit: float | None = None):
        from gitmem import api
        from gitmem.core.config import load_config

        # Absolute: the daemon changes directory to each client's while running its command.
        self.home = Path(os.path.abspath(load_config(home).home))
        self.real_home = os.path.realpath(self.home)
        self._open = lambda: api.open(self.home).keep_views()  # context here chooses from rows kept in memory
        self.store = self._open()
        self.code = launch.code_id()
        # --idle-exit, else [serve] idle_exit (the schema holds the default).
        self.idle_exit = float(self.store.config.get("serve", "idle_exit") if idle_exit is None else idle_exit)
        self.env = serve_client.env_fingerprint()
        self.started = time.time()
        self.last_request = time.monotonic()
        self.requests = 0
        self.recall_lock = threading.Lock()
        # Held while a client's command runs (cwd, environment and sys.std* are the
        # client's then) and by hook requests, which read them too. Taken before recall_lock.
        self.run_lock = threading.Lock()
        self._run_thread: int | None = None
        self.count_lock = threading.Lock()
        self._config_stamp = self._stamp()
        self.server: socketserver.BaseServer | None = None
        # What commands and hooks run here get instead of a cold open: the warm Store,
        # pending vectors to the worker, recall in process, never our own socket.
        self.runtime = Runtime(warm_open=self.warm_open, index_later=self.index_later, recall=self.warm_recall,
                               ask_daemon=False)
        self.stopping = threading.Event()
        # Indexes what commands here wrote, what a refresh announces, and vectors queries
        # found pending; holds the recall lock only to read and write the index.
        self.worker = IndexWorker(lambda: self.store, self.recall_lock, CATCH_UP_QUIET, self.stopping)
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
        self.store.index_status()  # the index's counts, kept per file state: not on the first status's clock

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
        with self.count_lock:
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
                self.catch_up_later(after_write=not req.get("now"))
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
            self.catch_up_later(after_write=False)  # the next query is hybrid, nobody runs reindex
        elif self._file_behind():
            self.catch_up_later()  # the recall took a write in memory only: the file follows
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
            self.catch_up_later(after_write=False)
        elif self._file_behind():
            self.catch_up_later()
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

    def run(self, req: dict[str, Any], fds: list[int], conn: Any) -> dict[str, Any] | None:
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
        if code == 0 and (launch.warm_command(req["argv"]) in ("remember", "append") or self._file_behind()):
            self.catch_up_later()
        return {"ok": True, "exit": code}

    def _file_behind(self) -> bool:
        """Whether a recall here took a write into the snapshot in memory only (the
        index file catches up in the worker, off the queries' clock)."""
        return bool(self.store.index.file_behind)

    def catch_up_later(self, after_write: bool = True) -> None:
        """Index and embed in the background (the worker): see worker.IndexWorker.later."""
        self.worker.later(after_write)

    def index_later(self, home: Any) -> bool:
        """Runtime.index_later: a command run here found vectors pending (recall --timeout)."""
        if threading.get_ident() != self._run_thread or os.path.realpath(home) != self.real_home:
            return False
        self.catch_up_later(after_write=False)
        return True

    def _invoke(self, req: dict[str, Any], fds: list[int], client: Any = None) -> int:
        self._run_thread = threading.get_ident()  # warm_open and index_later answer this thread only
        try:
            return runner.run_command(req, fds, self.runtime, client)
        finally:
            self._run_thread = None

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
                "pending": warm["snapshot_pending"], "indexing": self.worker.running,
                "embedded": self.worker.embedded, "last_catch_up": self.worker.last}

    # ---- lifecycle ---------------------------------------------------------------------
    def stop(self, reason: str) -> None:
        """Ask serve_forever to return (safe from a signal handler or another thread)."""
        if self.stopping.is_set():
            return
        self.stop_reason = reason
        self.stopping.set()
        if self.server is not None:
            threading.Thread(target=self.server.shutdown, daemon=True).start()

    def watchdog(self) -> None:
        """Stop when the store goes away or after idle_exit seconds without a request
        (runs in its own thread)."""
        while not self.stopping.wait(1.0):
            if not (self.home / "repo.git").exists():
                self.stop("the store is gone")
            elif self.idle_exit > 0 and time.monotonic() - self.last_request > self.idle_exit:
                self.stop(f"idle for {self.idle_exit:g} s")


def _jsonable(d: dict[str, Any]) -> dict[str, Any]:
    return json.loads(json.dumps(d, default=str))


