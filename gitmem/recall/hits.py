"""A recall hit: what recall returns in-process and what the daemon sends back.

Standard library only, so the light client (serve_client) rebuilds the same Hit from
the daemon's JSON without importing numpy or the index."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import Any


@dataclass
class Hit:
    """One recall result, with its citation and the parts of its score."""

    id: str
    key: str | None
    scope: str
    type: str
    path: str
    start_line: int
    end_line: int
    score: float
    scores: dict[str, float | None]
    snippet: str
    commit: str | None
    created: str | None
    text: str = field(default="", repr=False)
    relevance: float | None = None  # gitmem.recall.relevance: probability the hit is relevant
    explain: dict[str, Any] | None = field(default=None, repr=False)
    doc: int | None = field(default=None, repr=False, compare=False)  # its index row (in process only; not in JSON)
    # Its relevance before the query's form gate (relevance.form_cap), in process only: what
    # ranking asks of a hit ("is it about what the query asks?") is not the question's form.
    topical: float | None = field(default=None, repr=False, compare=False)

    def redacted(self, red: Any) -> "Hit":
        """This hit with its snippet and text passed through a redact.Redactor."""
        from dataclasses import replace

        return replace(self, snippet=red.text(self.snippet or "", "snippet"), text=red.text(self.text or "", "text"))

    def to_dict(self, explain: bool = False) -> dict[str, Any]:
        """The JSON form (`recall --json`); `text` is left out, `explain` on request."""
        d = asdict(self)
        d.pop("text")
        d.pop("explain")
        d.pop("doc")
        d.pop("topical")
        if explain and self.explain is not None:
            d["explain"] = self.explain
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "Hit":
        """A Hit from its JSON form (plus `text`, `explain` when present); missing fields
        are None, so an answer from an older daemon still reads."""
        kw = {f.name: d.get(f.name) for f in fields(cls)}
        kw["text"] = kw["text"] or ""
        return cls(**kw)
