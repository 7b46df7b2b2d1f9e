"""Moving memories in and out: JSONL import (validated whole before anything is
written), JSONL and markdown export."""

from __future__ import annotations

import json
import os
import sys
from contextlib import nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, ContextManager, Iterable, Iterator

from gitmem.core import model
from gitmem.core.errors import ImportFormatError, UsageError
from gitmem.core.fsutil import atomic_write
from gitmem.memories.service import Memories

LINE_HINT = 'one JSON object per line, e.g. {"text": "...", "tags": ["a"]}'
KNOWN_IMPORT_FIELDS = {"text", "key", "scope", "type", "importance", "tags", "created", "id"}


@dataclass
class ImportResult:
    scope_commits: dict[str, str] = field(default_factory=dict)
    created: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    redacted: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"commits": self.scope_commits, "created": len(self.created),
                "updated": len(self.updated), "unchanged": len(self.unchanged),
                "ids": self.created + self.updated, "redacted": self.redacted}


# progress(length, label) -> a context manager with update(n) (click.progressbar fits).
Progress = Callable[[int, str], ContextManager[Any]]


class _NoBar:
    def update(self, n: int) -> None:
        pass


def bar(progress: Progress | None, length: int, label: str) -> ContextManager[Any]:
    """progress(length, label), or a bar that shows nothing."""
    return progress(length, label) if progress is not None else nullcontext(_NoBar())


def import_items(svc: Memories, items: Iterable[dict[str, Any]], *, scope: str | None = None,
                 op: str = "import", subject: str | None = None,
                 progress: Progress | None = None) -> ImportResult:
    """Import dicts (`text` required; key/scope/type/importance/tags/created optional,
    anything else kept under metadata). Validates everything before writing; one
    commit per scope touched. progress: bars for checking and writing the items."""
    red = svc.redactor()
    per_scope: dict[str, list[dict[str, Any]]] = {}
    items = items if isinstance(items, list) else list(items)
    with bar(progress, len(items), "checking") as checking:
        for n, raw in enumerate(items, 1):
            _check_one(svc, red, scope, per_scope, n, raw)
            checking.update(1)
    result = ImportResult()
    with bar(progress, len(items), "writing") as writing:
        for target, batch in per_scope.items():
            written = svc.write_items(target, batch, red, op=op, subject=subject, tick=writing.update)
            for mem, status in written.pairs:
                getattr(result, status).append(mem.id)
                if status != "unchanged" and mem.commit:
                    result.scope_commits[target] = mem.commit
    result.redacted = list(red.findings)
    return result


def _check_one(svc: Memories, red: Any, scope: str | None, per_scope: dict[str, list[dict[str, Any]]],
               n: int, raw: Any) -> None:
    """Validate and prepare import line `n` into per_scope (ImportFormatError if bad)."""
    if isinstance(raw, dict) and "__line__" in raw:
        raw = dict(raw)
        n = raw.pop("__line__")
    if not isinstance(raw, dict):
        raise ImportFormatError("expected a JSON object", line=n, hint=LINE_HINT)
    if "text" not in raw or not isinstance(raw["text"], str):
        raise ImportFormatError("missing string field 'text'", line=n, hint=LINE_HINT)
    if raw.get("scope") is not None and not isinstance(raw["scope"], str):
        raise ImportFormatError(f"'scope' must be a string, got {raw['scope']!r:.40}", line=n,
                                hint="e.g. \"scope\": \"channel/slack\"")
    item = {k: raw.get(k) for k in ("text", "key", "type", "importance", "tags", "created")}
    meta = dict(raw.get("metadata") or {}) if isinstance(raw.get("metadata"), dict) else {}
    meta.update({k: v for k, v in raw.items() if k not in KNOWN_IMPORT_FIELDS and k != "metadata"})
    item["metadata"] = meta
    if item.get("tags") is not None and not isinstance(item["tags"], (list, str)):
        raise ImportFormatError("'tags' must be a list of strings", line=n)
    try:
        model.check_unicode(raw, "the line")
        target = svc.scope_for_write(raw.get("scope") or scope)
        prepared = svc.prepare(item, red)
    except UsageError as e:
        raise ImportFormatError(e.message, line=n, hint=e.hint) from e
    per_scope.setdefault(target, []).append(prepared)


def export_jsonl(mems: Iterable[model.Memory]) -> Iterator[dict[str, Any]]:
    """Items in the import format (a round trip through import_items)."""
    for m in sorted(mems, key=lambda m: m.id):
        d: dict[str, Any] = {"text": m.text, "scope": m.scope, "type": m.type,
                             "importance": m.importance, "tags": list(m.tags), "created": m.created}
        if m.key is not None:
            d["key"] = m.key
        d.update({k: v for k, v in m.metadata.items() if k not in d})
        yield d


def export_markdown(svc: Memories, out_dir: str | os.PathLike[str], *, scope: str | None = None) -> list[str]:
    """Write each scope's files as plain markdown under out_dir/<scope>/."""
    root = Path(out_dir).resolve()
    written = []
    chosen = [model.check_scope(scope)] if scope else list(svc.git.scopes())
    for s in chosen:
        tip = svc.git.tip(s)
        for path, oid in svc.git.walk_files(tip):
            if path.startswith("keys/"):
                continue
            target = (root / s / path).resolve()
            if not target.is_relative_to(root):
                raise UsageError(f"refusing to write outside {root}: {path}",
                                 hint="a link inside the folder points out of it; export into an empty folder")
            atomic_write(target, svc.git.blob(oid, path))
            written.append(str(target.relative_to(root)))
    return written


def read_jsonl(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """Parse a JSONL file strictly: a bad line raises ImportFormatError with its number."""
    try:
        raw = Path(path).read_bytes() if str(path) != "-" else sys.stdin.buffer.read()
    except OSError as e:
        raise UsageError(f"cannot read {path}: {e.strerror or e}", hint="check the path and permissions") from e
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        line = raw[: e.start].count(b"\n") + 1
        raise ImportFormatError("not valid UTF-8", line=line, hint="save the file as UTF-8") from e
    items = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as e:
            raise ImportFormatError(f"invalid JSON: {e.msg}", line=n,
                                    hint="one JSON object per line, e.g. {\"text\": \"...\"}") from e
        except RecursionError:
            raise ImportFormatError("JSON nested too deeply", line=n,
                                    hint="one flat JSON object per line, e.g. {\"text\": \"...\"}") from None
        if not isinstance(obj, dict):
            raise ImportFormatError("expected a JSON object", line=n, hint=LINE_HINT)
        obj.setdefault("__line__", n)
        items.append(obj)
    return items
