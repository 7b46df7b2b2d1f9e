"""How one front-end invocation reaches the store: passed explicitly (click's `ctx.obj`,
a keyword of the hook runner), never patched into module globals.

In a client process the defaults hold: open the store cold, ask a running daemon. The
daemon runs a client's command with a Runtime that opens a Store on its warm engines,
hands pending vectors to its index worker, answers a hook's recall in process, and
never asks itself over its own socket. A client the daemon declined runs the command
with `ask_daemon=False`. Standard library only."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable


@dataclass(frozen=True)
class Runtime:
    """warm_open(home, **kw): a Store on warm engines, or None to open one as usual.
    index_later(home): True when a daemon took the store's pending vectors.
    recall(query, k, scopes, timeout_ms): hits from a warm Store in this process.
    ask_daemon: whether requests may go to a running `gitmem serve`."""

    warm_open: Callable[..., Any] | None = None
    index_later: Callable[[Any], bool] | None = None
    recall: Callable[..., list[Any]] | None = None
    ask_daemon: bool = True

    def open(self, home: Any = None, **kw: Any) -> Any:
        """The store for this invocation (gitmem.api.open unless warm engines take it)."""
        if self.warm_open is not None:
            store = self.warm_open(home, **kw)
            if store is not None:
                return store
        from gitmem import api

        return api.open(home, **kw)

    def served_recall(self, home: Any, query: str, k: int, scopes: Any, *, timeout: float,
                      **filters: Any) -> tuple[list[Any], dict[str, Any]] | None:
        """Recall answered by a running `gitmem serve`, when this invocation may ask one
        and it answers within `timeout` s: (hits, how it ran). None: the caller recalls in
        its own process (inside the daemon, on its warm Store)."""
        if not self.ask_daemon:
            return None
        from gitmem.frontends.daemon import client

        return client.recall(home, query, k, scopes, timeout=timeout, **filters)

    def ask_refresh(self, home: Any, *, now: bool = False, timeout: float = 1.0) -> dict[str, Any] | None:
        """Ask a running `gitmem serve` to index (and embed, with its loaded model) what
        was written: its answer, or None when there is none to ask (the caller does the
        work itself). `now`: without waiting for writes to pause."""
        if not self.ask_daemon:
            return None
        from gitmem.frontends.daemon import client

        req: dict[str, Any] = {"op": "refresh", "env": client.env_fingerprint()}
        if now:
            req["now"] = True
        ans = client.request(home, req, timeout=timeout)
        return ans if ans and ans.get("ok") else None

    def hand_off_indexing(self, home: Any) -> bool:
        """Give pending vectors to the daemon this runs in: False when there is none."""
        return self.index_later is not None and bool(self.index_later(home))


DEFAULT = Runtime()


def of(ctx: Any) -> Runtime:
    """The Runtime a click command runs with (the root context's obj["runtime"])."""
    obj = ctx.find_root().obj if ctx is not None else None
    rt = obj.get("runtime") if isinstance(obj, dict) else None
    return rt if isinstance(rt, Runtime) else DEFAULT
