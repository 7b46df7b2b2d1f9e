"""The facade that the CLI, the daemon and the MCP server all call."""

from __future__ import annotations

import datetime as dt
import difflib
import getpass
import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Iterator

from . import model
from .config import Config, load_config
from .errors import ImportFormatError, NotFound, UsageError
from .model import Memory
from .redact import Redactor
from .store import Commit, GitStore, format_message

KNOWN_IMPORT_FIELDS = {"text", "key", "scope", "type", "importance", "tags", "created", "id"}
INTERNAL_TYPES = ("quarantine",)


@dataclass
class LogEntry:
    commit: str
    op: str | None
    ids: list[str]
    summary: str
    author: str
    time: str
    scope: str | None = None
    patch: str | None = None

    def to_dict(self) -> dict[str, Any]:
        d = {"commit": self.commit, "op": self.op, "ids": self.ids, "summary": self.summary,
             "author": self.author, "time": self.time, "scope": self.scope}
        if self.patch is not None:
            d["patch"] = self.patch
        return d


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


def key_path(key: str) -> str:
    h = hashlib.sha1(key.encode("utf-8")).hexdigest()
    return f"keys/{h[:2]}/{h[2:]}"


def daily_path(day: dt.date) -> str:
    return f"daily/{day:%Y-%m-%d}.md"


def init(home: str | os.PathLike[str] | None = None, **kw: Any) -> "Store":
    """Create a store (idempotent) and open it."""
    cfg = load_config(home, **kw)
    GitStore.init(cfg.home)
    return Store(cfg)


def open(home: str | os.PathLike[str] | None = None, **kw: Any) -> "Store":  # noqa: A001
    """Open an existing store at `home` (default $GITMEM_HOME or ~/.gitmem)."""
    return Store(load_config(home, **kw))


class Store:
    """A gitmem store: memories in a bare git repository, one branch per scope."""

    def __init__(self, config: Config):
        self.config = config
        self.home = config.home
        self.git = GitStore(config.home, fsync=config.fsync, gc_every=int(config.get("store", "gc_every")))

    # ---- identity and scopes --------------------------------------------------------
    def identity(self) -> tuple[str, str]:
        name = self.config.agent or self.config.get("identity", "name")
        email = self.config.get("identity", "email")
        if not name or not email:
            try:
                gcfg = __import__("pygit2").Config.get_global_config()
                name = name or gcfg["user.name"]
                email = email or gcfg["user.email"]
            except (KeyError, OSError, Exception):  # no global git config is fine
                pass
        name = name or getpass.getuser() or "gitmem"
        email = email or f"{name.replace(' ', '.').lower()}@gitmem.local"
        return name, email

    def _author(self, when: int | None = None):
        name, email = self.identity()
        return self.git.signature(name, email, when)

    def default_scope(self) -> str:
        """`--scope` absent: the linked project's scope inside a linked repo, else config."""
        linked = self.linked_scope()
        if linked:
            return linked
        return model.check_scope(str(self.config.get("store", "default_scope")))

    def linked_scope(self, cwd: str | None = None) -> str | None:
        """The project scope of the code repo containing cwd, if it was linked."""
        links = self.config.section("links")
        if not links:
            return None
        here = Path(cwd or os.getcwd()).resolve()
        best = None
        for root, scope in links.items():
            try:
                here.relative_to(Path(root))
            except ValueError:
                continue
            if best is None or len(root) > len(best[0]):
                best = (root, scope)
        return best[1] if best else None

    def read_scopes(self, scopes: Iterable[str] | None = None, all_scopes: bool = False) -> list[str]:
        """Scopes a read looks at: given ones, all, or the linked project + main."""
        existing = list(self.git.scopes())
        if all_scopes:
            return existing
        if scopes:
            return [model.check_scope(s) for s in scopes]
        out = []
        linked = self.linked_scope()
        if linked:
            out.append(linked)
        default = str(self.config.get("store", "default_scope"))
        for s in (default, "main"):
            if s not in out:
                out.append(s)
        return out

    def _scope(self, scope: str | None) -> str:
        return model.check_scope(scope) if scope else self.default_scope()

    def _types(self) -> tuple[str, ...]:
        return self.config.types + INTERNAL_TYPES

    def _redactor(self) -> Redactor:
        return Redactor(self.config.get("redact", "allow") or (), bool(self.config.get("redact", "entropy")))

    def _trailers(self, op: str, ids: Iterable[str], scope: str, red: Redactor) -> list[tuple[str, str]]:
        t = [("Gitmem-Op", op)]
        t += [("Gitmem-Id", i) for i in ids]
        t.append(("Gitmem-Scope", scope))
        if self.config.session:
            t.append(("Gitmem-Session", red.text(self.config.session, "session")))
        if self.config.agent:
            t.append(("Gitmem-Agent", red.text(self.config.agent, "agent")))
        return t

    def _source(self, extra: dict[str, Any] | None = None) -> dict[str, Any]:
        src: dict[str, Any] = {}
        if self.config.session:
            src["session"] = self.config.session
        if self.config.agent:
            src["agent"] = self.config.agent
        src.update(extra or {})
        return src

    # ---- lookup ---------------------------------------------------------------------
    def _find_in(self, tip, mem_id: str, archived: bool = True) -> str | None:
        if tip is None or not model.is_id(mem_id):
            return None
        roots = ("memories", "archive") if archived else ("memories",)
        for root in roots:
            for t in self.git.subdirs(tip, root):
                path = model.memory_path(mem_id, t, root)
                if self.git.exists(tip, path):
                    return path
        return None

    def _key_id(self, tip, key: str) -> str | None:
        data = self.git.read(tip, key_path(key))
        return data.decode().strip() if data else None

    def locate(self, ref: str, scope: str | None = None) -> tuple[str, str, str]:
        """Resolve an id or key to (scope, id, path) at the scope tips."""
        scopes = [model.check_scope(scope)] if scope else list(self.git.scopes())
        for s in scopes:
            tip = self.git.tip(s)
            path = self._find_in(tip, ref)
            if path:
                return s, ref, path
        for s in scopes:
            tip = self.git.tip(s)
            mem_id = self._key_id(tip, ref)
            if mem_id:
                path = self._find_in(tip, mem_id)
                if path:
                    return s, mem_id, path
        raise NotFound(f"no memory {ref!r}" + (f" in scope {scope}" if scope else ""),
                       hint="`gitmem list` shows ids; `gitmem log ID` finds forgotten ones")

    def _load(self, commit, path: str, scope: str) -> Memory:
        data = self.git.read(commit, path)
        if data is None:
            raise NotFound(f"{path} not found at {str(commit.id)[:10]}")
        mem = model.parse(data, path=path)
        return mem.with_(scope=scope, path=path, commit=str(commit.id))

    # ---- writes ---------------------------------------------------------------------
    def remember(
        self,
        text: str,
        *,
        scope: str | None = None,
        type: str = "note",  # noqa: A002
        importance: int = model.DEFAULT_IMPORTANCE,
        tags: Iterable[str] | str | None = None,
        key: str | None = None,
        created: Any = None,
        source: dict[str, Any] | None = None,
        links: Iterable[dict[str, Any]] | None = None,
        metadata: dict[str, Any] | None = None,
        supersedes: Iterable[str] | None = None,
        op: str = "remember",
    ) -> Memory:
        """Write one memory (or update the live one with the same key) as one commit."""
        scope = self._scope(scope)
        items = [dict(text=text, type=type, importance=importance, tags=tags, key=key, created=created,
                      source=source, links=links, metadata=metadata, supersedes=supersedes)]
        red = self._redactor()
        prepared = [self._prepare(it, red) for it in items]
        mems = self._write_items(scope, prepared, red, op=op)
        return mems[0][0]

    def _prepare(self, item: dict[str, Any], red: Redactor) -> dict[str, Any]:
        """Validate and redact one item's fields (raises UsageError)."""
        text = model.check_text(item["text"], self.config.max_text_bytes)
        out = dict(item)
        out["text"] = red.text(text, "text")
        out["type"] = model.check_type(item.get("type") or "note", self._types())
        out["importance"] = model.check_importance(
            model.DEFAULT_IMPORTANCE if item.get("importance") is None else item["importance"])
        out["tags"] = red.value(model.check_tags(item.get("tags")), "tags")
        key = item.get("key")
        if key is not None:
            key = str(key)
            if not key.strip() or "\x00" in key or len(key) > 512:
                raise UsageError(f"bad key {key[:40]!r}", hint="keys are 1-512 characters, no NUL")
            key = red.text(key, "key")
        out["key"] = key
        out["created"] = model.normalise_when(item["created"]) if item.get("created") else None
        out["metadata"] = red.value(dict(item.get("metadata") or {}), "metadata")
        out["source"] = red.value(self._source(item.get("source")), "source")
        out["links"] = tuple(item.get("links") or ())
        out["supersedes"] = tuple(item.get("supersedes") or ())
        # An importer may carry a summary of its own (e.g. a topic file's description).
        out["summary"] = red.text(" ".join(str(item["summary"]).split()), "summary") if item.get("summary") else None
        return out

    def _write_items(self, scope: str, items: list[dict[str, Any]], red: Redactor, op: str,
                     subject: str | None = None, when: int | None = None) -> list[tuple[Memory, str]]:
        """Write prepared items to one scope in one commit. Returns (memory, status) pairs."""
        results: list[tuple[Memory, str]] = []

        def build(tip):
            results.clear()
            changes: dict[str, Any] = {}
            now = model.now_iso()
            pending_keys: dict[str, str] = {}
            for it in items:
                existing = None
                key = it["key"]
                if key is not None:
                    mem_id = pending_keys.get(key) or self._key_id(tip, key)
                    if mem_id:
                        if mem_id in pending_keys.values() and key in pending_keys:
                            prev = next(m for m, _ in results if m.id == mem_id)
                            existing = prev
                        else:
                            path = self._find_in(tip, mem_id, archived=False)
                            existing = self._load(tip, path, scope) if path else None
                if existing is not None:
                    mem = existing.with_(
                        text=it["text"], type=it["type"], importance=it["importance"],
                        tags=it["tags"] or existing.tags, summary=it.get("summary") or model.summarise(it["text"]),
                        metadata={**existing.metadata, **it["metadata"]},
                        links=existing.links + tuple(l for l in it["links"] if l not in existing.links),
                        supersedes=existing.supersedes + tuple(s for s in it["supersedes"] if s not in existing.supersedes),
                        created=it["created"] or existing.created,
                    )
                    if model.render(mem) == model.render(existing):
                        results.append((existing, "unchanged"))
                        continue
                    mem = mem.with_(updated=now)
                    if existing.path and existing.path != model.memory_path(mem.id, mem.type):
                        changes[existing.path] = None
                    status = "updated"
                else:
                    mem_id = model.new_id()
                    mem = Memory(
                        id=mem_id, text=it["text"], type=it["type"], summary=it.get("summary") or model.summarise(it["text"]),
                        importance=it["importance"], tags=it["tags"], created=it["created"] or now,
                        updated=now, source=it["source"], key=key, links=it["links"],
                        supersedes=it["supersedes"], metadata=it["metadata"],
                    )
                    status = "created"
                    if key is not None:
                        changes[key_path(key)] = (mem.id + "\n").encode()
                        pending_keys[key] = mem.id
                path = model.memory_path(mem.id, mem.type)
                changes[path] = model.render(mem)
                results.append((mem.with_(scope=scope, path=path), status))
            touched = [m.id for m, st in results if st != "unchanged"]
            if not touched:
                return None
            if subject is not None:
                subj = subject
            elif len(results) == 1:
                m, st = results[0]
                verb = op if st == "created" else "update"
                subj = f"{verb}: {m.summary or m.id}"
            else:
                subj = f"{op}: {len(touched)} memories"
            message = format_message(subj, None, self._trailers(op if len(results) > 1 or results[0][1] == "created" else "update", touched, scope, red))
            return changes, message

        commit = self.git.commit(scope, build, self._author(when))
        out = []
        for mem, status in results:
            mem = mem.with_(commit=commit if status != "unchanged" else mem.commit)
            out.append((mem.with_(metadata=mem.metadata), status))
        self._last_redactions = list(red.findings)
        return out

    @property
    def last_redactions(self) -> list[dict[str, Any]]:
        """What the last write redacted (kinds and fields, never the secret)."""
        return getattr(self, "_last_redactions", [])

    def update(self, ref: str, text: str | None = None, *, scope: str | None = None,
               type: str | None = None, importance: int | None = None,  # noqa: A002
               tags: Iterable[str] | str | None = None, op: str = "update",
               subject: str | None = None) -> Memory:
        """Change a memory's text and/or fields as one commit."""
        scope, mem_id, _ = self.locate(ref, scope)
        red = self._redactor()
        if text is not None:
            text = red.text(model.check_text(text, self.config.max_text_bytes), "text")
        if type is not None:
            model.check_type(type, self._types())
        if importance is not None:
            importance = model.check_importance(importance)
        new_tags = red.value(model.check_tags(tags), "tags") if tags is not None else None
        result: list[Memory] = []

        def build(tip):
            result.clear()
            path = self._find_in(tip, mem_id)
            if path is None:
                raise NotFound(f"memory {mem_id} was removed meanwhile")
            old = self._load(tip, path, scope)
            mem = old.with_(
                text=old.text if text is None else text,
                summary=old.summary if text is None else model.summarise(text),
                type=old.type if type is None else type,
                importance=old.importance if importance is None else importance,
                tags=old.tags if new_tags is None else new_tags,
            )
            if model.render(mem) == model.render(old):
                result.append(old)
                return None
            mem = mem.with_(updated=model.now_iso())
            root = path.split("/", 1)[0]
            new_path = model.memory_path(mem.id, mem.type, root)
            changes: dict[str, Any] = {new_path: model.render(mem)}
            if new_path != path:
                changes[path] = None
            result.append(mem.with_(path=new_path))
            msg = format_message(subject or f"{op}: {mem.summary or mem.id}", None,
                                 self._trailers(op, [mem.id], scope, red))
            return changes, msg

        commit = self.git.commit(scope, build, self._author())
        self._last_redactions = list(red.findings)
        mem = result[0]
        return mem.with_(commit=commit or mem.commit, scope=scope)

    def restore(self, ref: str, rev: str, scope: str | None = None) -> Memory:
        """Bring the version of a memory at `rev` back as a new commit."""
        old = self.get(ref, at=rev, scope=scope)
        return self.update(old.id, old.text, scope=old.scope, type=old.type,
                           importance=old.importance, tags=old.tags, op="restore",
                           subject=f"restore: {old.id} from {rev[:12]}")

    def append(self, text: str, *, scope: str | None = None, day: dt.date | None = None) -> dict[str, Any]:
        """Add a journal line to daily/YYYY-MM-DD.md as one commit."""
        scope = self._scope(scope)
        text = model.check_text(text, self.config.max_text_bytes)
        red = self._redactor()
        text = red.text(text, "text")
        day = day or dt.datetime.now(dt.timezone.utc).date()
        path = daily_path(day)
        stamp = dt.datetime.now(dt.timezone.utc).strftime("%H:%M")
        line = f"- {stamp} " + " ".join(text.split("\n")).strip() + "\n"
        info: dict[str, Any] = {}

        def build(tip):
            old = self.git.read(tip, path) or f"# {day:%Y-%m-%d}\n\n".encode()
            new = old + line.encode()
            info["line"] = new.decode().count("\n")
            msg = format_message(f"append: {day:%Y-%m-%d} {model.summarise(text, 60)}", None,
                                 self._trailers("append", [], scope, red))
            return {path: new}, msg

        commit = self.git.commit(scope, build, self._author())
        self._last_redactions = list(red.findings)
        return {"scope": scope, "commit": commit, "path": path, "line": info["line"],
                "redacted": red.findings}

    # ---- reads ----------------------------------------------------------------------
    def get(self, ref: str, *, at: str | None = None, scope: str | None = None) -> Memory:
        """A memory by id or key, at the tip or as it was at a revision or date."""
        if at is None:
            s, mem_id, path = self.locate(ref, scope)
            return self._load(self.git.tip(s), path, s)
        commit, s = self._resolve_at(at, scope, ref)
        path = self._find_in(commit, ref)
        if path is None:
            mem_id = self._key_id(commit, ref)
            path = self._find_in(commit, mem_id) if mem_id else None
        if path is None:
            raise NotFound(f"no memory {ref!r} at {at}", hint="`gitmem log ID` lists its versions")
        return self._load(commit, path, s)

    def _resolve_at(self, at: str, scope: str | None, ref: str):
        """A revision, or a date meaning 'the scope as it was then'."""
        try:
            when = model.parse_when(at)
        except UsageError:
            when = None
        scopes = [model.check_scope(scope)] if scope else list(self.git.scopes())
        if when is None:
            commit = self.git.commit_obj(at)
            s = scope or self._scope_of_commit(commit) or (scopes[0] if scopes else "main")
            return commit, s
        ts = when.timestamp()
        if len(at.strip()) == 10:  # a bare date means the end of that day
            ts += 86400 - 1
        for s in scopes:
            tip = self.git.tip(s)
            if tip is None:
                continue
            for c in self.git.repo.walk(tip.id):
                if c.commit_time <= ts:
                    if self._find_in(c, ref) or self._key_id(c, ref):
                        return c, s
                    break
        raise NotFound(f"no memory {ref!r} as of {at}")

    def _scope_of_commit(self, commit) -> str | None:
        from .store import parse_trailers
        scope = (parse_trailers(commit.message).get("Gitmem-Scope") or [None])[0]
        return scope

    def list(self, *, scope: str | None = None, type: str | None = None,  # noqa: A002
             archived: bool = False, scopes: Iterable[str] | None = None,
             all_scopes: bool = False) -> list[Memory]:
        """Live memories of the scope(s), newest first."""
        chosen = [model.check_scope(scope)] if scope else self.read_scopes(scopes, all_scopes)
        out: list[Memory] = []
        for s in chosen:
            tip = self.git.tip(s)
            if tip is None:
                continue
            roots = ["memories"] + (["archive"] if archived else [])
            for root in roots:
                prefix = f"{root}/{type}" if type else root
                for path, _ in self.git.walk_files(tip, prefix):
                    if path.endswith(".md"):
                        out.append(self._load(tip, path, s))
        out.sort(key=lambda m: m.id, reverse=True)
        return out

    def iter_memories(self, scope: str) -> Iterator[Memory]:
        tip = self.git.tip(scope)
        for path, _ in self.git.walk_files(tip, "memories"):
            if path.endswith(".md"):
                yield self._load(tip, path, scope)

    def log(self, ref: str | None = None, *, scope: str | None = None, patch: bool = False,
            limit: int | None = None) -> list[LogEntry]:
        """The audit log of a scope, or the versions of one memory."""
        entries: list[LogEntry] = []
        if ref is not None:
            s, mem_id = self._locate_any(ref, scope)
            tip = self.git.tip(s)
            seen = []
            for c in self.git.history(str(tip.id)):
                if mem_id in c.ids:
                    seen.append(c)
                    if limit and len(seen) >= limit:
                        break
            for c in seen:
                e = self._entry(c, s)
                if patch:
                    e.patch = self._memory_patch(c, mem_id)
                entries.append(e)
            return entries
        scopes = [model.check_scope(scope)] if scope else list(self.git.scopes())
        for s in scopes:
            tip = self.git.tip(s)
            if tip is None:
                continue
            for c in self.git.history(str(tip.id), limit=limit):
                e = self._entry(c, s)
                if patch:
                    e.patch = self.diff(c.parents[0], c.id) if c.parents else self.diff(None, c.id)
                entries.append(e)
        entries.sort(key=lambda e: e.time, reverse=True)
        if limit:
            entries = entries[:limit]
        return entries

    def _locate_any(self, ref: str, scope: str | None) -> tuple[str, str]:
        """Like locate, but also finds forgotten/removed ids via commit trailers."""
        try:
            s, mem_id, _ = self.locate(ref, scope)
            return s, mem_id
        except NotFound:
            if not model.is_id(ref):
                raise
        scopes = [model.check_scope(scope)] if scope else list(self.git.scopes())
        for s in scopes:
            tip = self.git.tip(s)
            if tip is None:
                continue
            for c in self.git.history(str(tip.id)):
                if ref in c.ids:
                    return s, ref
        raise NotFound(f"no memory {ref!r} in any history")

    def _entry(self, c: Commit, scope: str) -> LogEntry:
        return LogEntry(commit=c.id, op=c.op, ids=c.ids, summary=c.subject, author=c.author,
                        time=c.iso_time, scope=(c.trailers.get("Gitmem-Scope") or [scope])[0])

    def _memory_patch(self, c: Commit, mem_id: str) -> str:
        new = self.git.commit_obj(c.id)
        old = new.parents[0] if new.parents else None
        def text(commit):
            p = self._find_in(commit, mem_id)
            return model.parse(self.git.read(commit, p)).text if p else ""
        a, b = text(old), text(new)
        return "\n".join(difflib.unified_diff(a.splitlines(), b.splitlines(),
                                             f"a/{mem_id}", f"b/{mem_id}", lineterm="")) + "\n"

    def show(self, rev: str) -> dict[str, Any]:
        """A commit: its message, trailers and the change it made."""
        c = self.git.commit_obj(rev)
        from .store import to_commit
        info = to_commit(c)
        parent = str(c.parents[0].id) if c.parents else None
        return {"commit": info.id, "op": info.op, "ids": info.ids, "summary": info.subject,
                "author": info.author, "time": info.iso_time, "message": info.message,
                "diff": self.diff(parent, info.id)}

    def diff(self, rev1: str | None, rev2: str) -> str:
        """A unified diff of memory files between two revisions."""
        b = self.git.commit_obj(rev2)
        a = self.git.commit_obj(rev1) if rev1 else None
        chunks = []
        for status, path, _ in self.git.diff_files(str(a.id) if a else None, str(b.id)):
            old = (self.git.read(a, path) or b"").decode("utf-8", "replace")
            new = (self.git.read(b, path) or b"").decode("utf-8", "replace")
            chunks.append("".join(difflib.unified_diff(
                old.splitlines(True), new.splitlines(True),
                "/dev/null" if status == "A" else f"a/{path}",
                "/dev/null" if status == "D" else f"b/{path}")))
        return "\n".join(c if c.endswith("\n") else c + "\n" for c in chunks if c)

    def scopes(self) -> list[dict[str, Any]]:
        out = []
        for s, tip in self.git.scopes().items():
            c = self.git.tip(s)
            count = sum(1 for p, _ in self.git.walk_files(c, "memories") if p.endswith(".md"))
            out.append({"scope": s, "tip": tip, "memories": count,
                        "updated": dt.datetime.fromtimestamp(c.commit_time, dt.timezone.utc)
                        .isoformat().replace("+00:00", "Z")})
        return out

    def status(self) -> dict[str, Any]:
        from . import __version__
        st: dict[str, Any] = {
            "home": str(self.home), "version": __version__,
            "format": self.git.format_version(), "scopes": self.scopes(),
            "default_scope": self.default_scope(),
        }
        st["memories"] = sum(s["memories"] for s in st["scopes"])
        st.update(self._index_status())
        return st

    def _index_status(self) -> dict[str, Any]:
        """Backend (hybrid | bm25), model, memories indexed, lag behind each scope tip."""
        return self._recaller().status()

    # ---- import / export ------------------------------------------------------------
    def import_items(self, items: Iterable[dict[str, Any]], *, scope: str | None = None,
                     op: str = "import", subject: str | None = None) -> ImportResult:
        """Import dicts (`text` required; key/scope/type/importance/tags/created optional,
        anything else kept under metadata). Validates everything before writing; one
        commit per scope touched."""
        red = self._redactor()
        per_scope: dict[str, list[dict[str, Any]]] = {}
        for n, raw in enumerate(items, 1):
            if isinstance(raw, dict) and "__line__" in raw:
                raw = dict(raw)
                n = raw.pop("__line__")
            if not isinstance(raw, dict):
                raise ImportFormatError("expected a JSON object", line=n)
            if "text" not in raw or not isinstance(raw["text"], str):
                raise ImportFormatError("missing string field 'text'", line=n)
            item = {k: raw.get(k) for k in ("text", "key", "type", "importance", "tags", "created")}
            meta = dict(raw.get("metadata") or {}) if isinstance(raw.get("metadata"), dict) else {}
            meta.update({k: v for k, v in raw.items() if k not in KNOWN_IMPORT_FIELDS and k != "metadata"})
            item["metadata"] = meta
            if item.get("tags") is not None and not isinstance(item["tags"], (list, str)):
                raise ImportFormatError("'tags' must be a list of strings", line=n)
            try:
                target = self._scope(raw.get("scope") or scope)
                prepared = self._prepare(item, red)
            except UsageError as e:
                raise ImportFormatError(e.message, line=n, hint=e.hint) from e
            per_scope.setdefault(target, []).append(prepared)
        result = ImportResult()
        for target, batch in per_scope.items():
            pairs = self._write_items(target, batch, red, op=op, subject=subject)
            for mem, status in pairs:
                getattr(result, status).append(mem.id)
                if status != "unchanged" and mem.commit:
                    result.scope_commits[target] = mem.commit
        result.redacted = red.findings
        self._last_redactions = list(red.findings)
        return result

    def export_jsonl(self, *, scope: str | None = None, all_scopes: bool = False) -> Iterator[dict[str, Any]]:
        """Items in the import format (a round trip through import_items)."""
        mems = self.list(scope=scope, all_scopes=all_scopes or scope is None)
        for m in sorted(mems, key=lambda m: m.id):
            d: dict[str, Any] = {"text": m.text, "scope": m.scope, "type": m.type,
                                 "importance": m.importance, "tags": list(m.tags), "created": m.created}
            if m.key is not None:
                d["key"] = m.key
            d.update({k: v for k, v in m.metadata.items() if k not in d})
            yield d

    def export_markdown(self, out_dir: str | os.PathLike[str], *, scope: str | None = None) -> list[str]:
        """Write each scope's memory files as plain markdown under out_dir/<scope>/."""
        from .fsutil import atomic_write
        root = Path(out_dir).resolve()
        written = []
        scopes = [model.check_scope(scope)] if scope else list(self.git.scopes())
        for s in scopes:
            tip = self.git.tip(s)
            for path, oid in self.git.walk_files(tip):
                if path.startswith("keys/"):
                    continue
                target = (root / s / path).resolve()
                if not target.is_relative_to(root):
                    raise UsageError(f"refusing to write outside {root}: {path}")
                atomic_write(target, self.git.blob(oid))
                written.append(str(target.relative_to(root)))
        return written

    # ==== recall (issue 3): recall, read_path, _index_status, reindex ====
    def _recaller(self):
        rec = getattr(self, "_recall_engine", None)
        if rec is None:
            from .recall import Recaller

            rec = self._recall_engine = Recaller(self)
        return rec

    def recall(self, query: str, k: int = 10, scopes: Iterable[str] | None = None, **filters: Any):
        """Hybrid recall: a list of Hit (id, key, scope, type, path, start_line, end_line,
        score, scores, snippet, commit, created). Filters: all_scopes, type, since,
        archived, mode ("hybrid"|"bm25"|"vector"), mmr, explain, record, progress."""
        return self._recaller().recall(query, k=k, scopes=scopes, **filters)

    def reindex(self, progress=None) -> dict[str, Any]:
        """Rebuild the derived index from git (into a new file, swapped in)."""
        return self._recaller().reindex(progress=progress)

    @property
    def index(self):
        """The derived index (gitmem.index.Index): drop_ids, vectors_for, rebuild."""
        return self._recaller().index

    def read_path(self, path: str, scope: str | None = None, at: str | None = None,
                  start: int | None = None, count: int | None = None) -> dict[str, Any]:
        """A slice of a file in a scope's tree; memory files are sliced by body lines,
        the numbering recall hits cite."""
        from .render import read_slice

        return read_slice(self, path, scope=scope, at=at, start=start, count=count)

    # ==== lifecycle (issue 4): forget, redact, dream, undream ====
    def forget(self, ids: Iterable[str], reason: str | None = None, keep_history: bool = False) -> dict[str, Any]:
        """Remove memories (ids or keys); unless keep_history, purge their text from history."""
        from .forget import forget
        return forget(self, list(ids), reason=reason, keep_history=keep_history)

    def redact_text(self, text: str, reason: str | None = None) -> dict[str, Any]:
        """Purge a leaked string from every scope, its history and the index."""
        from .forget import redact_text
        return redact_text(self, text, reason=reason)

    def dream(self, scope: str | None = None, dry_run: bool = False, force: bool = False,
              now: float | None = None) -> dict[str, Any]:
        """Consolidate a scope (default: every scope) as one commit each; see gitmem.dream."""
        from .dream import dream
        return dream(self, scope=scope, dry_run=dry_run, force=force, now=now)

    def undream(self, scope: str | None = None) -> dict[str, Any]:
        """Revert the last dream commit of a scope with a new commit."""
        from .dream import undream
        return undream(self, scope=scope)


    # ==== agents (issue 5): context, extract, flush, watch, changes, link, why ====

    # -- capture (5b)
    def context(self, *, scopes: Iterable[str] | None = None, hours: float | None = None,
                budget: int | None = None, cwd: str | None = None) -> dict[str, Any]:
        """The session-start bundle as data (render with capture.render_context)."""
        from .capture import context

        return context(self, scopes=scopes, hours=hours, budget=budget, cwd=cwd)

    def extract(self, transcript: str | os.PathLike[str], *, session: str | None = None,
                scope: str | None = None, roles: Iterable[str] = ("user",), cwd: str | None = None,
                dry_run: bool = False) -> dict[str, Any]:
        """Keep durable statements of a transcript from the session's cursor on."""
        from .capture import extract

        return extract(self, transcript, session=session, scope=scope, roles=roles, cwd=cwd,
                       dry_run=dry_run)

    def flush(self, transcript: str | os.PathLike[str], *, summary: str | None = None,
              session: str | None = None, scope: str | None = None,
              cwd: str | None = None) -> dict[str, Any]:
        """Extract the rest of a transcript and store sessions/<date>-<session>.md."""
        from .capture import flush

        return flush(self, transcript, summary=summary, session=session, scope=scope, cwd=cwd)

    # -- watch/links/import (5a)
    def watch_events(self, *, scopes: Iterable[str] | None = None, interval: float = 1.0,
                     from_start: bool = False, stop: Any = None) -> Iterator[Any]:
        """Yield a watch.Event per new commit on the watched scopes, polling every interval."""
        from .watch import Watcher

        if not interval > 0:
            raise UsageError("interval must be positive", hint="e.g. --interval 0.5")
        return Watcher(self, scopes, from_start=from_start).events(interval, stop=stop)

    def changes(self, cursor: str, *, scopes: Iterable[str] | None = None,
                session: str | None = None, from_start: bool = False, peek: bool = False) -> list[Any]:
        """Events since the named cursor (which then moves); see watch.changes."""
        from .watch import changes

        return changes(self, cursor, scopes=scopes, session=session, from_start=from_start, peek=peek)

    def link(self, path: str | os.PathLike[str] | None = None) -> dict[str, Any]:
        """Link the code repo at path (default cwd) to its project scope."""
        from .links import link

        return link(self, path)

    def unlink(self, path: str | os.PathLike[str] | None = None) -> dict[str, Any]:
        from .links import unlink

        return unlink(self, path)

    def why(self, spec: str, cwd: str | os.PathLike[str] | None = None) -> list[Any]:
        """Memories linked to the commits that wrote FILE[:LINE[-LINE]]."""
        from .links import why

        return why(self, spec, cwd)

    def import_dir(self, kind: str, directory: str | os.PathLike[str], *,
                   scope: str | None = None) -> dict[str, Any]:
        """Import an agent memory folder (openclaw, qwen, claude, markdown)."""
        from .importers import import_dir

        return import_dir(self, kind, directory, scope=scope)

    def memory_json(self, m: Memory) -> dict[str, Any]:
        return {"id": m.id, "key": m.key, "scope": m.scope, "type": m.type,
                "importance": m.importance, "tags": list(m.tags), "created": m.created,
                "updated": m.updated, "summary": m.summary, "text": m.text, "path": m.path,
                "commit": m.commit, "links": list(m.links), "supersedes": list(m.supersedes),
                "metadata": m.metadata, "source": m.source}


def read_jsonl(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """Parse a JSONL file strictly: a bad line raises ImportFormatError with its number."""
    p = Path(path)
    try:
        raw = p.read_bytes() if str(path) != "-" else __import__("sys").stdin.buffer.read()
    except OSError as e:
        raise UsageError(f"cannot read {path}: {e.strerror or e}", hint="check the path and permissions") from e
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        line = raw[: e.start].count(b"\n") + 1
        raise ImportFormatError("not valid UTF-8", line=line) from e
    items = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as e:
            raise ImportFormatError(f"invalid JSON: {e.msg}", line=n,
                                    hint="one JSON object per line, e.g. {\"text\": \"...\"}") from e
        if not isinstance(obj, dict):
            raise ImportFormatError("expected a JSON object", line=n)
        obj.setdefault("__line__", n)
        items.append(obj)
    return items
