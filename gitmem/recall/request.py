"""What a recall asks (RecallRequest) and what it answers (RecallResult). Standard
library only."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence

from gitmem.recall.hits import Hit


@dataclass(frozen=True)
class RecallRequest:
    """One recall: the query and every filter and switch it takes.

    scopes: searched scopes (None: the linked project of `cwd`, the default scope and main;
    all_scopes: every scope). types / since / archived filter memories. mode: "hybrid"
    (default with a model), "bm25" or "vector". mmr: diversity (None: [recall] mmr).
    explain: each hit's parts and why. record: count the hits as used (access log).
    at: a revision or date, the memory as it stood then (gitmem.recall.timetravel).
    timeout_ms: never wait on embedding more than fits in about this long (BM25 only
    while new memories wait for their vectors). min_relevance: hits below this relevance
    are left out (None: [recall] min_relevance; 0 keeps every hit). include_superseded:
    keep memories a live memory replaced (gitmem.recall.currency), each below its successor."""

    query: str
    k: int = 10
    scopes: tuple[str, ...] | None = None
    all_scopes: bool = False
    types: tuple[str, ...] | None = None
    since: str | float | None = None
    archived: bool = False
    mode: str | None = None
    mmr: bool | None = None
    explain: bool = False
    record: bool = True
    cwd: str | None = None
    at: str | None = None
    timeout_ms: float | None = None
    min_relevance: float | None = None
    include_superseded: bool = False

    @classmethod
    def of(cls, query: str, k: int = 10, scopes: Iterable[str] | None = None, *,
           type: str | Sequence[str] | None = None, **filters: Any) -> "RecallRequest":  # noqa: A002
        """From the keyword form Store.recall takes (`type` a name or a list)."""
        types = (type,) if isinstance(type, str) else (tuple(type) if type else None)
        return cls(query=query, k=k, scopes=tuple(scopes) if scopes else None, types=types, **filters)


@dataclass
class RecallResult:
    """The hits, best first, and how the recall ran: `info` has backend, reason (why no
    model), ms, scopes searched, and when they apply language (a CJK query's note),
    vectors ({ready, pending}), note (why nothing or BM25 only), at (what was searched
    then)."""

    hits: list[Hit]
    info: dict[str, Any] = field(default_factory=dict)
