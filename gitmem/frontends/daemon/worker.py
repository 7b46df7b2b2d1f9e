"""The index worker of a long-running front end (the daemon, the MCP server): indexes
what was written and embeds pending vectors in a background thread, one run at a time,
holding the front end's lock only to read and write the index (Store.index_catch_up), so
queries go on meanwhile (by words, with a timeout, until the vectors are in).

`quiet`: after a write, wait until writes pause for that many seconds (a burst of writes
must not queue behind each catch-up); 0 starts at once. Asked again while running, it
runs once more when the current run ends."""

from __future__ import annotations

import threading
import time
from typing import Any, Callable


class IndexWorker:
    def __init__(self, store: Callable[[], Any], lock: Any, quiet: float = 1.0,
                 stopping: threading.Event | None = None):
        self._store = store            # the Store to index (a daemon replaces its Store on a config change)
        self.lock = lock
        self.quiet = quiet
        self.stopping = stopping or threading.Event()
        self.thread: threading.Thread | None = None
        self.last: dict[str, Any] | None = None  # what the last run did (or its error)
        self.embedded = 0                        # vectors computed since the start
        self._guard = threading.Lock()
        self._written = 0.0   # when the last write was announced
        self._running = False
        self._again = False

    @property
    def running(self) -> bool:
        return self._running

    def later(self, after_write: bool = True) -> None:
        """Index and embed in the background: after a write (`after_write`) once writes
        pause; for vectors a query found pending, as soon as no write is that recent."""
        with self._guard:
            if after_write:
                self._written = time.monotonic()
            self._again = True
            if self._running:
                return
            self._running = True
        self.thread = threading.Thread(target=self._loop, daemon=True, name="gitmem-index")
        self.thread.start()

    def stop(self, wait: float = 10.0) -> None:
        """Stop between two batches (never in the middle of a write) and wait for it."""
        self.stopping.set()
        if self.thread is not None:
            self.thread.join(wait)

    def _loop(self) -> None:
        try:
            while True:
                while not self.stopping.is_set():
                    wait = self._written + self.quiet - time.monotonic()
                    if wait <= 0:
                        break
                    self.stopping.wait(wait)
                with self._guard:
                    if not self._again or self.stopping.is_set():
                        self._running = False
                        return
                    self._again = False
                store = self._store()
                t0 = time.monotonic()
                try:
                    info = store.index_catch_up(
                        lock=self.lock, stop=lambda: self.stopping.is_set() or self._store() is not store)
                except Exception as e:  # noqa: BLE001 - the next recall tries again and reports it
                    info = {"error": f"{type(e).__name__}: {e}"}
                info["seconds"] = round(time.monotonic() - t0, 3)
                info["finished"] = time.time()
                self.last = info
                self.embedded += int(info.get("embedded") or 0)  # before the counts below: a status
                # that sees the snapshot's vectors ready sees them counted too
                if "error" not in info:
                    try:
                        with self.lock:
                            store.index_status()  # counts of the file as it is now, for the next status
                    except Exception:  # noqa: BLE001 - only a head start: the next status counts itself
                        pass
                if info.get("stopped") and not self.stopping.is_set():
                    with self._guard:
                        self._again = True  # a new Store (config.toml changed): once more on it
        finally:
            with self._guard:
                self._running = False
