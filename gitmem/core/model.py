"""Memory records, ids and the front-matter file format. Pure: no I/O."""

from __future__ import annotations

import copy
import datetime as dt
import os
import re
import threading
import time
from dataclasses import asdict, dataclass, field, replace
from typing import Any

import yaml

from gitmem.core.errors import MalformedMemory, UsageError

FORMAT_VERSION = 1
DEFAULT_IMPORTANCE = 5
PERSON_SCOPE = "main"  # the person's own long-term memory (DESIGN: scopes are branches)

_ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz"
ID_RE = re.compile(r"^[0-9a-z]{13}\Z")


def _b36(n: int, width: int) -> str:
    out = []
    for _ in range(width):
        n, r = divmod(n, 36)
        out.append(_ALPHABET[r])
    return "".join(reversed(out))


_LAST_ID: list[str | None] = [None]  # the last id this process made on the clock (new_id)
_LAST_LOCK = threading.Lock()


def new_id(now_ms: int | None = None, after: str | None = None) -> str:
    """13 chars: 8 base36 digits of milliseconds (sortable until 2059) + 5 random.

    `after`: the previous id this writer made; the new one sorts after it (a small
    random step when the clock has not moved on), so the items of one batch keep
    their order in id order (recall's neighbours rely on it). On the clock (`now_ms`
    None) a process is one writer: with no `after`, its last id is the one, so two ids
    it makes never collide (thousands made in one millisecond drew from 36**5 random
    endings, and a CI run saw two of 5000 meet)."""
    if now_ms is None:
        with _LAST_LOCK:
            known = [i for i in (after, _LAST_ID[0]) if i is not None and ID_RE.match(i)]
            made = _new_id(int(time.time() * 1000), max(known) if known else after)
            _LAST_ID[0] = max(made, _LAST_ID[0] or made)
            return made
    return _new_id(now_ms, after)


def _new_id(ms: int, after: str | None) -> str:
    rnd = int.from_bytes(os.urandom(4), "big") % (36**5)
    if after is not None and ID_RE.match(after):
        prev = int(after, 36)
        # (A clock set back on purpose, as dated test histories do, is obeyed.)
        if ms * 36**5 + rnd <= prev and prev // 36**5 - ms < 2000:
            n = prev + 1 + rnd % 1024
            return _b36(n, 13)
    return _b36(ms, 8) + _b36(rnd, 5)


def id_time(mem_id: str) -> dt.datetime:
    """The creation instant encoded in an id."""
    ms = int(mem_id[:8], 36)
    return dt.datetime.fromtimestamp(ms / 1000, tz=dt.timezone.utc)


def is_id(value: str) -> bool:
    return bool(ID_RE.match(value))


def id_dir(mem_id: str) -> str:
    """`<yyyy-mm>/<c>/<c>`: the fan-out under a type folder, derived from the id alone.

    Two levels of one random character each keep every tree a write rewrites small
    (36 + 36 + n/1296 entries for n memories a month) instead of one folder of n/36."""
    return f"{id_time(mem_id):%Y-%m}/{mem_id[-1]}/{mem_id[-2]}"


def memory_path(mem_id: str, mem_type: str, root: str = "memories") -> str:
    return f"{root}/{mem_type}/{id_dir(mem_id)}/{mem_id}.md"


def now_iso() -> str:
    return dt.datetime.now(dt.timezone.utc).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def parse_when(value: str) -> dt.datetime:
    """Parse an ISO date or datetime (`2024-05-01`, `2024-05-01T10:00:00Z`) as UTC."""
    v = value.strip()
    if v.endswith("Z"):
        v = v[:-1] + "+00:00"
    try:
        when = dt.datetime.fromisoformat(v)
    except ValueError as e:
        raise UsageError(
            f"not a date: {value!r}", hint="use ISO 8601, e.g. 2024-05-01 or 2024-05-01T10:00:00Z"
        ) from e
    if when.tzinfo is None:
        when = when.replace(tzinfo=dt.timezone.utc)
    return when


def normalise_when(value: Any) -> str:
    if isinstance(value, dt.datetime):
        when = value if value.tzinfo else value.replace(tzinfo=dt.timezone.utc)
    elif isinstance(value, dt.date):
        when = dt.datetime(value.year, value.month, value.day, tzinfo=dt.timezone.utc)
    else:
        when = parse_when(str(value))
    when = when.astimezone(dt.timezone.utc).replace(microsecond=0)
    return when.isoformat().replace("+00:00", "Z")


def summarise(text: str, limit: int = 80) -> str:
    first = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
    first = first.lstrip("#").strip()
    return first if len(first) <= limit else first[: limit - 1].rstrip() + "…"


@dataclass(frozen=True)
class Memory:
    id: str
    text: str
    type: str = "note"
    summary: str = ""
    importance: int = DEFAULT_IMPORTANCE
    tags: tuple[str, ...] = ()
    created: str = ""
    updated: str = ""
    source: dict[str, Any] = field(default_factory=dict)
    key: str | None = None
    links: tuple[dict[str, Any], ...] = ()
    supersedes: tuple[str, ...] = ()
    metadata: dict[str, Any] = field(default_factory=dict)
    # Where it was read from; not part of the file.
    scope: str | None = None
    path: str | None = None
    commit: str | None = None
    # The live memories that name this one in their `supersedes` (derived when read,
    # gitmem.memories.succession); not part of the file.
    superseded_by: tuple[str, ...] = ()

    def with_(self, **changes: Any) -> "Memory":
        return replace(self, **changes)

    def located(self, scope: str | None, path: str | None, commit: str | None) -> "Memory":
        """A copy that says where it was read (10x cheaper than `with_`, which
        re-runs the dataclass constructor: this is on the path of every listing)."""
        m = copy.copy(self)
        object.__setattr__(m, "scope", scope)
        object.__setattr__(m, "path", path)
        object.__setattr__(m, "commit", commit)
        return m

    def superseded(self, by: tuple[str, ...]) -> "Memory":
        """A copy that says which live memories replaced it (cheap, as `located`)."""
        m = copy.copy(self)
        object.__setattr__(m, "superseded_by", tuple(by))
        return m

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["tags"] = list(self.tags)
        d["links"] = [dict(x) for x in self.links]
        d["supersedes"] = list(self.supersedes)
        d["superseded_by"] = list(self.superseded_by)
        return d


_FM_FIELDS = (
    "id", "type", "summary", "importance", "tags", "created", "updated",
    "source", "key", "links", "supersedes", "metadata",
)


# libyaml's C emitter/parser are ~5x faster than the pure-Python ones.
_BaseDumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _Dumper(_BaseDumper):  # type: ignore[misc, valid-type]
    pass


_YAML_RISKY = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\ufeff]")


def _str_representer(dumper: Any, value: str) -> yaml.Node:
    # With allow_unicode, PyYAML writes NEL/LS/PS raw and they read back as line
    # breaks; double quotes make the emitter escape them.
    style = '"' if _YAML_RISKY.search(value) else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _str_representer)


def render(mem: Memory) -> bytes:
    """Serialise to `---\\n<yaml>---\\n<body>`; the body is stored verbatim."""
    fm: dict[str, Any] = {}
    for name in _FM_FIELDS:
        value = getattr(mem, name)
        if isinstance(value, tuple):
            value = [dict(v) if isinstance(v, dict) else v for v in value]
        if name in ("key",) and value is None:
            continue
        if name in ("source", "metadata", "links", "supersedes", "tags") and not value:
            continue
        # Values `parse` derives are not written: the summary when it is the text's first
        # line, the default importance, `updated` equal to `created` (a memory file is
        # about 40% front matter otherwise; see BENCHMARKS.md, repository bytes).
        if (name == "summary" and value == summarise(mem.text)) or \
                (name == "importance" and value == DEFAULT_IMPORTANCE) or \
                (name == "updated" and value == mem.created):
            continue
        fm[name] = value
    return front_matter(fm, mem.text)


def front_matter(fields: dict[str, Any], body: str) -> bytes:
    """`---\n<yaml of fields, in order>---\n<body>`: the one writer of front matter."""
    head = yaml.dump(fields, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=1 << 30)
    return ("---\n" + head + "---\n" + body).encode("utf-8")


def split_front_matter(text: str, *, parse: bool = True, path: str | None = None) -> tuple[dict[str, Any], str]:
    """(front matter, body) of `---\\n<yaml>---\\n<body>`, the closing `---` on a line
    of its own or ending the text; ({}, text) without front matter. parse=False skips
    the YAML (the dict is empty): the body alone, cheaply. Bad YAML raises UsageError."""
    if not text.startswith("---\n"):
        return {}, text
    end = text.find("\n---\n", 3)
    if end == -1:
        if not text.endswith("\n---"):
            return {}, text
        end = len(text) - 4
    body = text[end + 5 :]
    if not parse:
        return {}, body
    try:
        loaded = yaml.load(text[4 : end + 1], Loader=_Loader)
    except yaml.YAMLError as e:
        problem = getattr(e, "problem", None) or str(e).splitlines()[0]
        mark = getattr(e, "problem_mark", None)
        where = f" (front matter line {mark.line + 1})" if mark is not None else ""
        raise MalformedMemory(f"bad front matter in {path or 'memory'}: {problem}{where}", path=path) from e
    return (loaded if isinstance(loaded, dict) else {}), body


def parse(data: bytes, *, path: str | None = None) -> Memory:
    """Parse a memory file written by `render` (or by hand, leniently)."""
    fm, body = split_front_matter(data.decode("utf-8", errors="replace"), path=path)
    mem_id = str(fm.get("id") or (path.rsplit("/", 1)[-1].removesuffix(".md") if path else ""))
    imp = fm.get("importance", DEFAULT_IMPORTANCE)
    try:
        imp = int(imp)
    except (TypeError, ValueError):
        imp = DEFAULT_IMPORTANCE

    def _str(v: Any) -> str:
        if isinstance(v, (dt.datetime, dt.date)):
            return normalise_when(v)
        return "" if v is None else str(v)

    def _list(v: Any) -> list[Any]:
        # Hand-written front matter: `tags: ops` means one tag, a mapping means none.
        if v is None or isinstance(v, dict):
            return []
        return list(v) if isinstance(v, (list, tuple)) else [v]

    def _dict(v: Any) -> dict[str, Any]:
        return dict(v) if isinstance(v, dict) else {}

    key = fm.get("key")
    return Memory(
        id=mem_id,
        text=body,
        type=str(fm.get("type") or "note"),
        summary=_str(fm.get("summary")) or summarise(body),
        importance=imp,
        tags=tuple(str(t) for t in _list(fm.get("tags"))),
        created=_str(fm.get("created")),
        updated=_str(fm.get("updated")) or _str(fm.get("created")),
        source=_dict(fm.get("source")),
        key=None if key is None else str(key),
        links=tuple(dict(x) for x in _list(fm.get("links")) if isinstance(x, dict)),
        supersedes=tuple(str(s) for s in _list(fm.get("supersedes"))),
        metadata=_dict(fm.get("metadata")),
        path=path,
    )


def check_text(text: str, max_bytes: int) -> str:
    """Validate memory text; returns it unchanged or raises UsageError."""
    if not isinstance(text, str):
        raise UsageError("text must be a string")
    if "\x00" in text:
        raise UsageError("text contains a NUL byte", hint="memories are text; strip binary data")
    if not text.strip():
        raise UsageError("empty text", hint="give the memory some text, or `-` to read stdin")
    check_unicode(text, "text")
    size = len(text.encode("utf-8"))
    if size > max_bytes:
        raise UsageError(
            f"text is {size} bytes, over the {max_bytes}-byte limit",
            hint="split it into several memories or raise store.max_text_bytes in config.toml",
        )
    return text


def check_unicode(value: Any, what: str) -> Any:
    """`value` (a string, or lists and dicts of them) unchanged if every string in it is
    valid Unicode; a lone surrogate (a JSON `\\ud800` escape, or invalid UTF-8 bytes in a
    command-line argument) is a UsageError, not a crash when the file is written."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as e:
            raise UsageError(f"{what} is not valid Unicode (a lone surrogate {value[e.start]!r} "
                             f"at character {e.start})",
                             hint="give UTF-8 text; invalid bytes or \\udXXX escapes cannot be stored") from None
    elif isinstance(value, dict):
        for k, v in value.items():
            check_unicode(k, what)
            check_unicode(v, what)
    elif isinstance(value, (list, tuple)):
        for v in value:
            check_unicode(v, what)
    return value


def check_importance(value: Any) -> int:
    try:
        imp = int(value)
    except (TypeError, ValueError, OverflowError):
        raise UsageError(f"importance must be an integer 1-10, got {value!r}", hint="e.g. --importance 7") from None
    if not 1 <= imp <= 10:
        raise UsageError(f"importance must be 1-10, got {imp}", hint="1 is trivia, 5 the default, 8+ is never archived")
    return imp


_TAG_RE = re.compile(r"^[^\s\x00-\x1f,]{1,64}\Z")


def check_tags(tags: Any) -> tuple[str, ...]:
    if tags is None:
        return ()
    if isinstance(tags, str):
        tags = [t for t in tags.split(",")]
    out: list[str] = []
    for t in tags:
        t = str(t).strip()
        if not t:
            continue
        if not _TAG_RE.match(t):
            raise UsageError(f"bad tag {t!r}", hint="tags are 1-64 chars, no spaces or commas")
        check_unicode(t, "tag")
        if t not in out:
            out.append(t)
    return tuple(out)


_SCOPE_PART = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}\Z")


def check_scope(scope: str) -> str:
    """`main`, `channel/<name>` or `project/<key>` (key may hold slashes)."""
    if not isinstance(scope, str) or not scope:
        raise UsageError("empty scope", hint="scopes are main, channel/<name> or project/<key>")
    hint = "scopes are main, channel/<name> or project/<key>, e.g. channel/slack or project/github.com/me/app"
    if scope == PERSON_SCOPE:
        return scope
    kind, _, rest = scope.partition("/")
    if kind not in ("channel", "project") or not rest:
        raise UsageError(f"invalid scope {scope!r}", hint=hint)
    parts = rest.split("/")
    if kind == "channel" and len(parts) != 1:
        raise UsageError(f"invalid scope {scope!r}: channel names have no '/'", hint=hint)
    for p in parts:
        if not _SCOPE_PART.match(p) or p.endswith(".lock") or ".." in p or p.endswith("."):
            raise UsageError(f"invalid scope {scope!r}", hint=hint)
    return scope


def check_type(mem_type: str, allowed: tuple[str, ...]) -> str:
    if mem_type not in allowed:
        raise UsageError(
            f"unknown type {mem_type!r}",
            hint="one of: " + ", ".join(t for t in allowed if t != "quarantine") + " (store.types in config)"
        )
    return mem_type
