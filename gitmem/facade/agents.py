"""Around agents and code: receipts, context, extract and flush, watch and changes, links, and what the hook runner and installer ask. Mixed into gitmem.api.Store."""


from __future__ import annotations

import os
from typing import Any, Iterable, Iterator

from gitmem.core.config import load_config
from gitmem.core.errors import UsageError
from gitmem.core.model import Memory
from gitmem.memories.service import Memories
from gitmem.policy import injection


class AgentsMixin:
    # ---- receipts -------------------------------------------------------------------
    def record_receipt(self, kind: str, query: str | None, hits: Iterable[Any]) -> dict[str, Any] | None:
        """Record that these hits (recall Hits or dicts with id/scope[/commit/path]) were
        put in front of a model; see gitmem.receipts."""
        from gitmem.agents import receipts

        items = [h if isinstance(h, dict) else {"id": h.id, "scope": h.scope, "commit": h.commit,
                                                  "path": h.path} for h in hits]
        return receipts.record(self.memories, kind, query, items)

    def receipts(self, *, session: str | None = None, id: str | None = None,  # noqa: A002
                 since: str | None = None) -> list[dict[str, Any]]:
        """Receipts, oldest first: what the agent saw, and from which version."""
        from gitmem.agents import receipts

        return receipts.read(self.memories, session=session, mem_id=id, since=since)

    # ---- agents ---------------------------------------------------------------------
    def context(self, *, scopes: Iterable[str] | None = None, hours: float | None = None,
                budget: int | None = None, cwd: str | None = None, at: str | None = None,
                query: str | None = None) -> dict[str, Any]:
        """The session-start bundle as data (render with context.render_context);
        `at` (a revision or date): the bundle as of then (see gitmem.timetravel).
        `query`: also a section of what is relevant to it, as the prompt hook would
        inject it (at most [hooks] max_results hits above prompt_min_relevance, within
        the budget; absent when none pass)."""
        from gitmem.agents.context import context, relevant_section

        if not query:
            return context(self.memories, scopes=scopes, hours=hours, budget=budget, cwd=cwd, at=at)
        if budget is None:
            budget = int(self.config.get("capture", "context_budget"))
        opts = {"at": at} if at is not None else {}
        hits = self.prompt_hits(self.search(query, scopes=scopes, cwd=cwd, record=False, **opts).hits)
        heading = _heading_cost(query)
        # The section takes at most half (its heading included); the rest of the bundle the rest.
        relevant, cost = relevant_section(hits, budget // 2 - heading)
        spent = cost + heading if relevant else 0
        try:
            bundle = context(self.memories, scopes=scopes, hours=hours, budget=budget - spent, cwd=cwd, at=at)
        except UsageError:
            if not relevant:
                raise
            # What is left would not hold the framing: the bundle as without a query.
            relevant = []
            bundle = context(self.memories, scopes=scopes, hours=hours, budget=budget, cwd=cwd, at=at)
        return relevant_into(bundle, query, relevant, budget)

    def extract(self, transcript: str | os.PathLike[str], *, session: str | None = None,
                scope: str | None = None, roles: Iterable[str] = ("user",), cwd: str | None = None,
                dry_run: bool = False) -> dict[str, Any]:
        """Keep durable statements of a transcript from the session's cursor on."""
        from gitmem.agents.extract import extract

        return extract(self.memories, transcript, session=session, scope=scope, roles=roles, cwd=cwd,
                       dry_run=dry_run)

    def flush(self, transcript: str | os.PathLike[str], *, summary: str | None = None,
              session: str | None = None, scope: str | None = None,
              cwd: str | None = None) -> dict[str, Any]:
        """Extract the rest of a transcript and store sessions/<date>-<session>.md."""
        from gitmem.agents.extract import flush

        return flush(self.memories, transcript, summary=summary, session=session, scope=scope, cwd=cwd)

    def watch_events(self, *, scopes: Iterable[str] | None = None, interval: float = 1.0,
                     from_start: bool = False, stop: Any = None, remote: str | None = None,
                     on_fetch: Any = None) -> Iterator[Any]:
        """Yield a watch.Event per new commit on the watched scopes, polling every interval.
        With `remote`, fetch it every interval and watch its tracking refs instead;
        `on_fetch(error | None)` hears when fetching starts failing and when it works again."""
        from gitmem.sync.watch import Watcher

        if not interval > 0:
            raise UsageError("interval must be positive", hint="e.g. --interval 0.5")
        w = Watcher(self.memories, scopes, from_start=from_start, remote=remote,
                    local=remote is None, fetch=remote is not None)
        return w.events(interval, stop=stop, on_fetch=on_fetch)

    def changes(self, cursor: str, *, scopes: Iterable[str] | None = None, session: str | None = None,
                from_start: bool = False, peek: bool = False, remote: str | None = None) -> list[Any]:
        """Events since the named cursor (which then moves); with `remote`, that remote's
        tracking refs too, as the last fetch left them. See watch.changes."""
        from gitmem.sync.watch import changes

        return changes(self.memories, cursor, scopes=scopes, session=session, from_start=from_start,
                       peek=peek, remote=remote)

    def link(self, path: str | os.PathLike[str] | None = None) -> dict[str, Any]:
        """Link the code repo at path (default cwd) to its project scope."""
        from gitmem.agents.links import link

        return self._reloaded(link(self.memories, path))

    def unlink(self, path: str | os.PathLike[str] | None = None) -> dict[str, Any]:
        from gitmem.agents.links import unlink

        return self._reloaded(unlink(self.memories, path))

    def _reloaded(self, result: dict[str, Any]) -> dict[str, Any]:
        """Config changed on disk (links): read it again, keeping session and agent."""
        self.config = load_config(self.home, session=self.config.session, agent=self.config.agent)
        self.memories = Memories(self.config, self.memories.git)
        self._recall_engine = None
        return result

    def why(self, spec: str, cwd: str | os.PathLike[str] | None = None) -> list[Any]:
        """Memories linked to the commits that wrote FILE[:LINE[-LINE]]."""
        from gitmem.agents.links import why

        return why(self.memories, spec, cwd)

    @staticmethod
    def memory_json(m: Memory) -> dict[str, Any]:
        return {"id": m.id, "key": m.key, "scope": m.scope, "type": m.type,
                "importance": m.importance, "tags": list(m.tags), "created": m.created,
                "updated": m.updated, "summary": m.summary, "text": m.text, "path": m.path,
                "commit": m.commit, "links": list(m.links), "supersedes": list(m.supersedes),
                "superseded_by": list(m.superseded_by), "metadata": m.metadata, "source": m.source}

    # ---- for the hook runner and the hook installer --------------------------------
    def top_preferences(self, scopes: Iterable[str] | None, n: int) -> list[Memory]:
        """The `n` heaviest preferences in these scopes that may go into a prompt."""
        from gitmem.agents.context import top_preferences

        return top_preferences(self.memories, self.list(type="preference", scopes=scopes), n)

    def may_inject(self, mem: Memory | None = None, text: str | None = None) -> bool:
        """Whether a memory (or a line of text) may go into an agent's prompt: not
        quarantined, and not scanning as an injection unless a person released it."""
        if mem is not None:
            return injection.injectable(mem.type, mem.text, mem.metadata)
        return not injection.suspect(text or "")

    def record_injected(self, ids: Iterable[str]) -> None:
        """Count these memories as put in front of a model (the access log)."""
        from gitmem.policy import access

        access.record(self.home, sorted(ids), kind="inject")

    def code_head(self, cwd: str) -> tuple[str, str, str]:
        """(top folder, HEAD commit id, subject) of the code repository at `cwd`."""
        from gitmem.agents.links import code_head

        return code_head(cwd)

    def code_hooks_dir(self, repo: str | None = None):
        """The git hooks folder of the code repository at `repo` (default: the cwd's)."""
        from gitmem.agents.links import code_hooks_dir

        return code_hooks_dir(repo)


def relevant_into(bundle: dict[str, Any], query: str, relevant: list[dict[str, Any]], budget: int) -> dict[str, Any]:
    """The bundle with its "relevant" section first; the other sections no longer repeat
    what it shows (their lines' cost given back)."""
    from gitmem.agents.context import line_cost as cost
    from gitmem.policy import gate

    ids = {m["id"] for m in relevant}
    out = {**bundle, "query": gate.scrub(query) or "", "relevant": relevant, "budget": budget}
    tokens = bundle["tokens"] + sum(cost(m) for m in relevant) + (_heading_cost(query) if relevant else 0)
    for k in ("preferences", "recent", "top"):
        out[k] = [m for m in bundle[k] if m["id"] not in ids]
        tokens -= sum(cost(m) for m in bundle[k] if m["id"] in ids)
    out["tokens"] = tokens
    return out


def _heading_cost(query: str) -> int:
    """Tokens of the relevant section's heading, which quotes the query (scrubbed of
    secrets: it goes into a prompt)."""
    from gitmem.core.tokens import count_tokens
    from gitmem.policy import gate

    return 8 + count_tokens(gate.scrub(query) or "")
