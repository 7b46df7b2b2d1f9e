"""Importers for agents' memory folders, and the OpenClaw export.

- openclaw: a workspace with `MEMORY.md` (curated long-term memory, one memory per
  `## ` section), optional `USER.md`, and daily notes `memory/YYYY-MM-DD[-slug].md`.
- qwen / claude: auto-memory folders: topic files with `name/description/type` front
  matter and a `MEMORY.md` index (whose link lines are not imported again); qwen's
  `QWEN.md` "Qwen Added Memories" bullets too.
- markdown: every `.md` file is one memory.

Every item gets a stable key (`<kind>:<relative path without .md>[#section]`, or a
topic file's `name`), so importing again
updates what changed and leaves the rest alone. Files whose name starts with a date are
committed one per file, oldest first, dated that day: history is kept. Paths are
resolved and anything that resolves outside DIR (a symlink out) is skipped, never read.
"""

from __future__ import annotations

import datetime as dt
import os
import re
from pathlib import Path
from typing import Any

from gitmem.core.errors import ImportFormatError, UsageError
from gitmem.core.fsutil import atomic_write
from gitmem.core.model import split_front_matter
from gitmem.memories.service import Memories
from gitmem.memories.transfer import Progress, bar

KINDS = ("openclaw", "qwen", "claude", "markdown")
TOPIC_TYPES = {"user": "preference", "feedback": "lesson", "project": "fact",
               "reference": "reference"}
_DATE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})(?:[-_ ].*)?\.md$")
_LINK_LINE = re.compile(r"^\s*[-*]\s*\[[^\]]*\]\(([^)\s]+)\)")
_MAX_FILE = 4 * 1024 * 1024
_TAG = re.compile(r"^[^\s\x00-\x1f,]{1,64}\Z")


def _safe_files(root: Path) -> tuple[list[Path], list[str]]:
    """Regular .md files under root whose real path stays inside root; and the skipped."""
    files, skipped = [], []
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        d = Path(dirpath)
        # A symlinked folder is listed in dirnames but not entered; report it if it leaves.
        for name in list(dirnames):
            if name.startswith("."):
                dirnames.remove(name)
                continue
            p = d / name
            if p.is_symlink():
                real = p.resolve()
                if not real.is_relative_to(root):
                    skipped.append(str(p.relative_to(root)))
        for name in sorted(filenames):
            if not name.endswith(".md") or name.startswith("."):
                continue
            p = d / name
            real = p.resolve()
            if not real.is_relative_to(root) or not real.is_file():
                skipped.append(str(p.relative_to(root)))
                continue
            if real.stat().st_size > _MAX_FILE:
                skipped.append(str(p.relative_to(root)))
                continue
            files.append(p)
    files.sort(key=lambda p: p.relative_to(root).as_posix())
    return files, skipped


def _read(p: Path) -> str:
    return p.read_bytes().decode("utf-8", errors="replace").replace("\r\n", "\n")


def _front_matter(text: str) -> tuple[dict[str, Any], str]:
    """A file's front matter and body; a file whose front matter is not YAML is all body."""
    try:
        fm, body = split_front_matter(text)
    except UsageError:
        return {}, text
    return fm, body.lstrip("\n")


def _file_date(name: str) -> dt.date | None:
    m = _DATE.match(name)
    if not m:
        return None
    try:
        return dt.date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
    except ValueError:
        return None


def _sections(text: str) -> list[tuple[str, str]]:
    """Split markdown at `## ` headings: (slug, text); text before the first one is 'intro'."""
    out: list[tuple[str, list[str]]] = [("intro", [])]
    fence = False
    for line in text.splitlines(keepends=True):
        if line.lstrip().startswith("```"):
            fence = not fence
        if not fence and line.startswith("## "):
            title = line[3:].strip()
            slug = re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-") or "section"
            taken = {s for s, _ in out}
            base, n = slug, 2
            while slug in taken:
                slug, n = f"{base}-{n}", n + 1
            out.append((slug, [line]))
        else:
            out[-1][1].append(line)
    return [(s, "".join(lines).strip("\n") + "\n") for s, lines in out if "".join(lines).strip()
            and not re.fullmatch(r"[ \t]*#[^\n]*\s*", "".join(lines).lstrip("\n"))]


# Each plan item is one memory; each batch is one commit.
class _Batch:
    def __init__(self, subject: str, when: dt.date | None = None):
        self.subject = subject
        self.when = when
        self.items: list[dict[str, Any]] = []


def _item(kind: str, rel: str, text: str, *, key_suffix: str = "", type_: str = "note",
          created: dt.date | None = None, tags: list[str] | None = None,
          summary: str | None = None, meta: dict[str, Any] | None = None) -> dict[str, Any]:
    it: dict[str, Any] = {
        # No `.md` in keys: `gitmem get` reads `a/b.md` as a file path, not a key.
        "text": text, "key": f"{kind}:{rel.removesuffix('.md')}{key_suffix}", "type": type_,
        "tags": [kind] + (tags or []),
        "created": dt.datetime(created.year, created.month, created.day, tzinfo=dt.timezone.utc)
        if created else None,
        "metadata": {"imported_from": kind, "file": rel, **(meta or {})},
    }
    if summary:
        it["summary"] = summary
    return it


def _plan_openclaw(root: Path, files: list[Path]) -> list[_Batch]:
    main = _Batch("import: openclaw MEMORY.md")
    dated: list[_Batch] = []
    other = _Batch("import: openclaw notes")
    for p in files:
        rel = p.relative_to(root).as_posix()
        text = _read(p)
        if not text.strip():
            continue
        if rel == "MEMORY.md":
            for order, (slug, body) in enumerate(_sections(text)):
                main.items.append(_item("openclaw", rel, body, key_suffix=f"#{slug}",
                                        meta={"order": order}))
        elif rel == "USER.md":
            main.items.append(_item("openclaw", rel, text, type_="preference", tags=["user"]))
        elif rel.startswith("memory/"):
            day = _file_date(p.name)
            if day and "/" not in rel[len("memory/"):]:
                b = _Batch(f"import: openclaw {rel}", when=day)
                b.items.append(_item("openclaw", rel, text, created=day, tags=["daily"],
                                     meta={"date": day.isoformat()}))
                dated.append(b)
            else:
                other.items.append(_item("openclaw", rel, text))
        # AGENTS.md, SOUL.md, TOOLS.md ... are instructions, not memory: left alone.
    dated.sort(key=lambda b: (b.when, b.subject))
    return [b for b in (main, other) if b.items] + dated


def _plan_topics(kind: str, root: Path, files: list[Path]) -> list[_Batch]:
    batch = _Batch(f"import: {kind} memory")
    dated: list[_Batch] = []
    topic_names = {p.relative_to(root).as_posix() for p in files}
    for p in files:
        rel = p.relative_to(root).as_posix()
        text = _read(p)
        if not text.strip():
            continue
        if p.name == "MEMORY.md":
            # The index: link lines point at topic files (imported on their own); keep
            # any other content. Links are not followed, least of all out of DIR.
            rest = []
            for line in text.splitlines(keepends=True):
                m = _LINK_LINE.match(line)
                if m and _inside(root, p.parent, m.group(1)) in topic_names:
                    continue
                rest.append(line)
            body = "".join(rest)
            if re.sub(r"(?m)^\s*#.*$", "", body).strip():
                batch.items.append(_item(kind, rel, body, meta={"index": True}))
            continue
        if p.name == "QWEN.md":
            m = re.search(r"(?ms)^## Qwen Added Memories\s*\n(.*?)(?=^## |\Z)", text)
            for n, fact in enumerate(re.findall(r"(?m)^\s*[-*]\s+(.+)$", m.group(1) if m else "")):
                batch.items.append(_item(kind, rel, fact.strip() + "\n", key_suffix=f"#{n + 1}",
                                         type_="fact"))
            continue
        fm, body = _front_matter(text)
        if not body.strip():
            body = str(fm.get("description") or "").strip() + "\n"
            if not body.strip():
                continue
        ftype = str(fm.get("type") or "").strip().lower()
        meta = {k: fm[k] for k in ("name", "description", "type") if k in fm}
        desc = str(fm.get("description") or "").strip()
        name = str(fm.get("name") or "").strip()
        it = _item(kind, rel, body, type_=TOPIC_TYPES.get(ftype, "note"),
                   summary=" ".join(desc.split())[:200] or None, meta=meta)
        if name:
            it["key"] = name
        _place(it, f"{kind} {rel}", p, batch, dated)
    return _batches(batch, dated)


def _plan_markdown(root: Path, files: list[Path]) -> list[_Batch]:
    batch = _Batch("import: markdown files")
    dated: list[_Batch] = []
    for p in files:
        rel = p.relative_to(root).as_posix()
        text = _read(p)
        fm, body = _front_matter(text)
        if not body.strip():
            continue
        it = _item("markdown", rel, body, meta={"front_matter": _plain(fm)} if fm else None)
        if isinstance(fm.get("type"), str):
            it["type"] = fm["type"]
        if isinstance(fm.get("tags"), list):
            # Tags gitmem cannot hold ("two words") are dropped rather than failing the import.
            it["tags"] += [str(t) for t in fm["tags"] if _TAG.match(str(t))]
        if isinstance(fm.get("importance"), int):
            it["importance"] = fm["importance"]
        _place(it, f"markdown {rel}", p, batch, dated)
    return _batches(batch, dated)


def _place(it: dict[str, Any], label: str, p: Path, batch: "_Batch", dated: list["_Batch"]) -> None:
    """A dated file (YYYY-MM-DD in its name) becomes its own commit with that date."""
    day = _file_date(p.name)
    if day:
        it["created"] = dt.datetime(day.year, day.month, day.day, tzinfo=dt.timezone.utc)
        b = _Batch(f"import: {label}", when=day)
        b.items.append(it)
        dated.append(b)
    else:
        batch.items.append(it)


def _batches(batch: "_Batch", dated: list["_Batch"]) -> list["_Batch"]:
    dated.sort(key=lambda b: (b.when, b.subject))
    return ([batch] if batch.items else []) + dated


def _plain(v: Any) -> Any:
    """Front matter made JSON/YAML-safe (dates as strings)."""
    if isinstance(v, dict):
        return {str(k): _plain(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_plain(x) for x in v]
    if isinstance(v, (dt.date, dt.datetime)):
        return v.isoformat()
    return v


def _inside(root: Path, base: Path, target: str) -> str | None:
    """A markdown link target as a root-relative path, or None if it leaves root."""
    if "://" in target or target.startswith("#"):
        return None
    p = (base / target.split("#", 1)[0]).resolve()
    return p.relative_to(root).as_posix() if p.is_relative_to(root) else None


def _split(item: dict[str, Any], limit: int) -> list[dict[str, Any]]:
    """An item over the size limit becomes parts at line boundaries (keys `#partN`)."""
    text = item["text"]
    if len(text.encode("utf-8")) <= limit:
        return [item]
    chunks: list[str] = []
    cur = ""
    for line in text.splitlines(keepends=True):
        while len(line.encode("utf-8")) > limit:  # one enormous line: cut it
            cut = line.encode("utf-8")[:limit].decode("utf-8", "ignore")
            if cur:
                chunks.append(cur)
                cur = ""
            chunks.append(cut)
            line = line[len(cut):]
        if len((cur + line).encode("utf-8")) > limit:
            chunks.append(cur)
            cur = ""
        cur += line
    if cur.strip():
        chunks.append(cur)
    parts = []
    for n, chunk in enumerate(c for c in chunks if c.strip()):
        part = dict(item, text=chunk, metadata={**item["metadata"], "part": n + 1})
        if n:
            part["key"] = f"{item['key']}#part{n + 1}"
            part.pop("summary", None)
        parts.append(part)
    return parts


def plan(kind: str, directory: str | os.PathLike[str]) -> tuple[list[_Batch], list[str]]:
    if kind not in KINDS:
        raise UsageError(f"unknown import kind {kind!r}", hint="one of: " + ", ".join(KINDS))
    root = Path(directory).resolve()
    if not root.is_dir():
        raise UsageError(f"not a directory: {directory}", hint="give the agent's memory folder")
    files, skipped = _safe_files(root)
    if kind == "openclaw":
        batches = _plan_openclaw(root, files)
    elif kind in ("qwen", "claude"):
        batches = _plan_topics(kind, root, files)
    else:
        batches = _plan_markdown(root, files)
    return batches, skipped


def import_dir(svc: Memories, kind: str, directory: str | os.PathLike[str], *,
               scope: str | None = None, progress: Progress | None = None) -> dict[str, Any]:
    """Import an agent's memory folder. Validates everything first, then writes one
    commit per batch (dated files: one each, with their date). Returns counts.
    progress: bars for checking the files and writing the memories."""
    batches, skipped = plan(kind, directory)
    red = svc.redactor()
    target = svc.scope_for_write(scope)
    prepared: list[tuple[_Batch, list[dict[str, Any]]]] = []
    limit = svc.config.max_text_bytes
    with bar(progress, sum(len(b.items) for b in batches), "checking") as checking:
        for b in batches:
            items = []
            for whole in b.items:
                for it in _split(whole, limit):
                    if it["type"] not in svc.config.types:
                        it["type"] = "note"
                    try:
                        items.append(svc.prepare(it, red))
                    except UsageError as e:
                        raise ImportFormatError(f"{it['metadata']['file']}: {e.message}", hint=e.hint) from e
                checking.update(1)
            prepared.append((b, items))
    out: dict[str, Any] = {"created": 0, "updated": 0, "unchanged": 0, "ids": [], "commits": [],
                           "skipped": skipped, "scope": target}
    with bar(progress, sum(len(items) for _, items in prepared), "writing") as writing:
        for b, items in prepared:
            when = None
            if b.when is not None:
                when = int(dt.datetime(b.when.year, b.when.month, b.when.day, 12,
                                       tzinfo=dt.timezone.utc).timestamp())
            res = svc.write_items(target, items, red, op="import", subject=b.subject, when=when,
                                  tick=writing.update)
            for mem, status in res.pairs:
                out[status] += 1
                if status != "unchanged":
                    out["ids"].append(mem.id)
            if res.commit:
                out["commits"].append(res.commit)
    out["redacted"] = red.findings
    return out


# ---- export -------------------------------------------------------------------------------
def export_openclaw(svc: Memories, directory: str | os.PathLike[str], *,
                    scope: str | None = None) -> list[str]:
    """Write an OpenClaw workspace: MEMORY.md (imported sections in their order, then the
    other memories by type) and memory/YYYY-MM-DD.md (imported daily notes plus the
    scope's own `daily/` journal). Returns the files written, relative to DIR."""
    root = Path(directory).resolve()
    scope = svc.scope_for_write(scope)
    mems = sorted(svc.list([scope]), key=lambda m: m.id)
    # Imported memories go back to their file; a file split into parts is joined again.
    pieces: dict[tuple[str, int], list[tuple[int, str]]] = {}
    by_type: dict[str, list[str]] = {}
    for m in mems:
        meta = m.metadata or {}
        f = str(meta.get("file", "")) if meta.get("imported_from") == "openclaw" else ""
        if f in ("MEMORY.md", "USER.md") or (f.startswith("memory/") and f.endswith(".md")):
            order = int(meta.get("order", 0)) if f == "MEMORY.md" else 0
            pieces.setdefault((f, order), []).append((int(meta.get("part", 1)), m.text))
        else:
            by_type.setdefault(m.type, []).append(m.text)
    whole = {k: "".join(t for _, t in sorted(v)) for k, v in pieces.items()}
    files: dict[str, str] = {}
    for (f, _), text in sorted(whole.items()):
        if f != "MEMORY.md":
            files[f] = text
    tip = svc.git.tip(scope)
    for path, oid in svc.git.walk_files(tip, "daily"):
        name = path.rsplit("/", 1)[-1]
        if _file_date(name):
            journal = svc.git.blob(oid, path).decode("utf-8", "replace")
            before = files.get(f"memory/{name}")
            files[f"memory/{name}"] = (before.rstrip("\n") + "\n\n" if before else "") + journal
    parts = [t.rstrip("\n") + "\n" for (f, _), t in sorted(whole.items()) if f == "MEMORY.md"]
    for t in sorted(by_type):
        lines = []
        for text in by_type[t]:
            body = text.strip()
            lines.append("- " + body.replace("\n", "\n  "))
        parts.append(f"## {t.capitalize()}\n\n" + "\n".join(lines) + "\n")
    if parts:
        if not parts[0].startswith("# "):
            parts.insert(0, "# Long-term memory\n")
        files["MEMORY.md"] = "\n".join(parts)
    written = []
    for rel, text in sorted(files.items()):
        target = (root / rel).resolve()
        if not target.is_relative_to(root):
            raise UsageError(f"refusing to write outside {root}: {rel}",
                             hint="a link inside the folder points out of it; export into an empty folder")
        atomic_write(target, text.encode())
        written.append(rel)
    return written
