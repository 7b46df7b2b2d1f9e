"""The three single writes as the facade offers them: remember, update and append, each
with its arguments checked (model's rules) and redacted on the way in, as one commit.
Every value a write takes passes here or through `Memories.prepare` before it reaches git."""

from __future__ import annotations

import datetime as dt
from typing import Any, Iterable

from gitmem.core import model
from gitmem.core.model import Memory
from gitmem.memories import succession
from gitmem.memories.service import Memories, WriteResult
from gitmem.policy import gate, injection


def remember(svc: Memories, scope: str, item: dict[str, Any], op: str = "remember") -> WriteResult:
    """Write one memory (or update the live one with the same key) in `scope`.
    `supersedes` (ids or keys) must name live memories of `scope` (succession.check_targets)."""
    if item.get("supersedes"):
        key = item.get("key")
        self_id = svc.key_id(svc.git.tip(scope), str(key)) if key is not None else None
        item = {**item, "supersedes": succession.check_targets(svc, scope, item["supersedes"], self_id=self_id,
                                                                self_key=key)}
    red = svc.redactor()
    return svc.write_items(scope, [svc.prepare(item, red)], red, op=op)


def update(svc: Memories, ref: str, text: str | None = None, *, scope: str | None = None,
           type: str | None = None, importance: int | None = None,  # noqa: A002
           tags: Iterable[str] | str | None = None, op: str = "update",
           subject: str | None = None, supersedes: Iterable[str] | None = None) -> tuple[Memory, list[dict[str, Any]]]:
    """Change a memory's text and/or fields as one commit: (memory, what was redacted).
    `supersedes`: more memories this one (the same memory, edited) now replaces."""
    scope, mem_id, _ = svc.locate(ref, scope)
    more = succession.check_targets(svc, scope, supersedes, self_id=mem_id)
    red = svc.redactor()
    if text is not None:
        text = red.text(model.check_text(text, svc.config.max_text_bytes), "text")
    if type is not None:
        model.check_type(type, svc.types())
    if importance is not None:
        importance = model.check_importance(importance)
    new_tags = gate.check_names("tag", model.check_tags(tags), red.allow) if tags is not None else None

    def change(old: Memory) -> Memory:
        new_text = old.text if text is None else text
        typ, meta, tg = injection.on_update(old.type, old.metadata, old.tags if new_tags is None else new_tags,
                                            new_text, type, op=op, who="{} <{}>".format(*svc.identity()),
                                            when=svc.now_iso())
        return old.with_(
            text=new_text,
            summary=old.summary if text is None else model.summarise(text),
            type=typ,
            importance=old.importance if importance is None else importance,
            tags=tg,
            metadata=meta,
            supersedes=old.supersedes + tuple(s for s in more if s not in old.supersedes),
        )

    mem, _ = svc.update(scope, mem_id, change, op=op, subject=subject, red=red)
    return mem, list(red.findings)


def append(svc: Memories, scope: str, text: str, day: dt.date | None = None) -> dict[str, Any]:
    """Add a journal line to daily/YYYY-MM-DD.md (default: today, by the service's clock)."""
    red = svc.redactor()
    text = red.text(model.check_text(text, svc.config.max_text_bytes), "text")
    out = svc.append(scope, text, day or svc.today(), red)
    out["redacted"] = list(red.findings)
    return out


def scope_rows(svc: Memories, linked_roots: dict[str, list[str]]) -> list[dict[str, Any]]:
    """Every scope with its tip, memory count and last change; a project scope a code
    repository is linked to (`linked_roots`: scope -> folders) is listed, empty, before
    anything is written there."""
    out = []
    existing = svc.git.scopes()
    counts = svc.memory_counts(existing)  # the catalog's, when there is one
    for s in sorted(set(existing) | set(linked_roots)):
        tip = svc.git.tip(s) if s in existing else None
        row: dict[str, Any] = {"scope": s, "tip": existing.get(s), "memories": 0, "updated": None}
        if tip is not None:
            row["memories"] = counts[s] if counts is not None else sum(1 for _ in svc.memory_files(tip))
            row["updated"] = dt.datetime.fromtimestamp(tip.time, dt.timezone.utc) \
                .isoformat().replace("+00:00", "Z")
        if s in linked_roots:
            row["linked"] = sorted(linked_roots[s])
        out.append(row)
    return out
