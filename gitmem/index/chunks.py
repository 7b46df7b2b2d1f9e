"""What gets indexed: the chunks of a memory, journal or session file. Pure functions of
a file's path and decoded content (no git, no DuckDB)."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

from gitmem.core import model as mdl

_HEADING = re.compile(r"^#{1,6}\s")
_DATE_IN_PATH = re.compile(r"(\d{4}-\d{2}-\d{2})")


def text_hash(text: str) -> str:
    """The key of a chunk's cached vector: equal texts share one embedding."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


@dataclass
class Chunk:
    scope: str
    path: str
    mem_id: str
    key: str | None
    type: str
    importance: int
    created: float
    archived: bool
    start_line: int
    end_line: int
    text: str          # the chunk text: embedded, shown as the snippet
    search_text: str   # text + tags: what BM25 sees (a tag edit re-tokenises only)

    @property
    def hash(self) -> str:
        return text_hash(self.text)


def indexable(path: str) -> bool:
    """Whether a file of a scope's tree is searched (memories, archive, journal, sessions)."""
    if not path.endswith(".md"):
        return False
    return path.startswith(("memories/", "archive/", "daily/", "sessions/"))


def split_lines(text: str, max_lines: int, max_chars: int) -> list[tuple[int, int, str]]:
    """(first line, last line, text) chunks, 1-based, by heading, then by line windows."""
    lines = text.splitlines()
    if not lines:
        return []
    if len(lines) <= max_lines and len(text) <= max_chars:
        return [(1, len(lines), text.strip("\n"))] if text.strip() else []
    sections: list[tuple[int, int]] = []
    start = 0
    for i, ln in enumerate(lines):
        if i > start and _HEADING.match(ln):
            sections.append((start, i))
            start = i
    sections.append((start, len(lines)))
    out = []
    for a, b in sections:
        i = a
        while i < b:
            j, size = i, 0
            while j < b and j - i < max_lines and (size + len(lines[j]) <= max_chars or j == i):
                size += len(lines[j]) + 1
                j += 1
            body = "\n".join(lines[i:j])
            if body.strip():
                out.append((i + 1, j, body))
            i = j
    return out


def _epoch(value: str | None, fallback: float = 0.0) -> float:
    if not value:
        return fallback
    try:
        return mdl.parse_when(value).timestamp()
    except Exception:
        return fallback


def chunks_of(scope: str, path: str, data: bytes, max_lines: int, max_chars: int) -> list[Chunk]:
    """The chunks of one file at a scope's tip (`data` is its decoded content)."""
    archived = path.startswith("archive/")
    if path.startswith(("memories/", "archive/")):
        try:
            mem = mdl.parse(data, path=path)
        except Exception:
            return []
        created = _epoch(mem.created)
        if not created and mdl.is_id(mem.id):
            created = mdl.id_time(mem.id).timestamp()
        tags = " ".join(mem.tags)
        parts = split_lines(mem.text, max_lines, max_chars)
        return [Chunk(scope, path, mem.id, mem.key, mem.type, mem.importance, created, archived,
                      a, b, t, t + ("\n" + tags if tags and n == 0 else ""))
                for n, (a, b, t) in enumerate(parts)]
    text = data.decode("utf-8", "replace")
    m = _DATE_IN_PATH.search(path)
    created = _epoch(m.group(1)) if m else 0.0
    kind = "journal" if path.startswith("daily/") else "session"
    return [Chunk(scope, path, path, None, kind, mdl.DEFAULT_IMPORTANCE, created, archived, a, b, t, t)
            for a, b, t in split_lines(text, max_lines, max_chars)]
