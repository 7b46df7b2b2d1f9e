"""The service layer: memories as files in scope trees, on top of the object layer.

Features (recall, forget, dream, capture, watch, links, importers) and the api facade
use this and never the git objects directly: locate an id or key, load a memory, write
a batch as one commit (upsert by key), update, append a journal line, resolve "as of a
revision or date", redact at write, and the commit trailers that make `git log` an
audit log."""

from __future__ import annotations

import datetime as dt
import getpass
import hashlib
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator, Mapping

from gitmem.core import model
from gitmem.core.config import Config
from gitmem.core.errors import MalformedMemory, NotFound, UsageError
from gitmem.core.model import Memory
from gitmem.core.trailers import Commit, format_message
from gitmem.memories import scopes as scoping
from gitmem.memories.asof import AT_HINT, AsOf, AsOfReads
from gitmem.memories.catalogued import CatalogReads
from gitmem.policy import gate, injection
from gitmem.policy.redact import Redactor
from gitmem.store import Change, Draft, GitStore, Rev, Signature, global_identity, signature

INTERNAL_TYPES = ("quarantine",)
ROOTS = ("memories", "archive")


def key_path(key: str) -> str:
    """Where the id of the memory with a caller's key is recorded in a scope's tree."""
    # surrogatepass: a key that is not valid Unicode is never stored (prepare refuses
    # it), so looking one up just finds nothing instead of failing.
    h = hashlib.sha1(key.encode("utf-8", "surrogatepass")).hexdigest()
    return f"keys/{h[:2]}/{h[2:]}"


def daily_path(day: dt.date) -> str:
    return f"daily/{day:%Y-%m-%d}.md"


@dataclass
class WriteResult:
    """What a batch write did: (memory, "created"|"updated"|"unchanged") pairs."""

    pairs: list[tuple[Memory, str]] = field(default_factory=list)
    commit: str | None = None
    redacted: list[dict[str, Any]] = field(default_factory=list)



PARSE_CACHE = 200_000  # parsed memory files kept per process (by blob id)

class Memories(AsOfReads, CatalogReads):
    """Memories of one store: reads and writes through the object layer."""

    def __init__(self, config: Config, git: GitStore | None = None):
        self.config = config
        self.home = config.home
        self.git = git or GitStore(config.home, fsync=config.fsync, gc_every=int(config.get("store", "gc_every")))
        # Malformed memory files passed over by list/iter_memories ({scope, path, error}).
        self.skipped: list[dict[str, Any]] = []
        self._parsed: dict[tuple[str, str], Memory] = {}
        # One-line warnings for the front end to show (a degraded index, say).
        self.warnings: list[str] = []
        # The session and the agent become trailers, receipts, cursors, file and author
        # names: one holding a secret is refused before anything is read or written.
        allow = config.get("redact", "allow") or ()
        gate.check_name("session id", config.session, allow)
        gate.check_name("agent name", config.agent, allow)
        # Where write times come from (commit times, ids, created/updated): the wall
        # clock, or a fixed one for tests and benchmarks that build a dated history.
        self.clock: Callable[[], float] = time.time

    def now_iso(self) -> str:
        return dt.datetime.fromtimestamp(int(self.clock()), dt.timezone.utc).isoformat().replace("+00:00", "Z")

    def today(self) -> dt.date:
        """Today (UTC) by the service's clock."""
        return dt.datetime.fromtimestamp(self.clock(), dt.timezone.utc).date()

    def new_id(self) -> str:
        """A fresh id, after every id this service made before (batch order = id order)."""
        self._last_id = model.new_id(int(self.clock() * 1000), getattr(self, "_last_id", None))
        return self._last_id

    # ---- who and where ------------------------------------------------------------
    def identity(self) -> tuple[str, str]:
        """(name, email) for commits: agent/config, else git's global identity, else the user."""
        allow = self.config.get("redact", "allow") or ()
        name = gate.check_name("agent name", self.config.agent, allow) or self.config.get("identity", "name")
        email = self.config.get("identity", "email")
        if not name or not email:
            gname, gemail = global_identity()
            name = name or gname
            email = email or gemail
        name = name or getpass.getuser() or "gitmem"
        email = email or f"{name.replace(' ', '.').lower()}@gitmem.local"
        # The author of every commit: [identity] or GITMEM_NAME/EMAIL pass the gate too.
        return gate.check_name("author name", name, allow), gate.check_name("author email", email, allow)

    def author(self, when: int | None = None) -> Signature:
        name, email = self.identity()
        return signature(name, email, int(self.clock()) if when is None else when)

    def scope_for_write(self, scope: str | None = None, cwd: str | None = None) -> str:
        chosen = scoping.write_scope(self.config, scope, cwd)
        return gate.check_name("scope name", chosen, self.config.get("redact", "allow") or ())

    def scopes_for_read(self, scopes: Iterable[str] | None = None, all_scopes: bool = False,
                        cwd: str | None = None) -> list[str]:
        return scoping.read_scopes(self.config, self.git.scopes(), scopes, all_scopes, cwd)

    def linked_scope(self, cwd: str | None = None) -> str | None:
        return scoping.linked_scope(self.config, cwd)

    def types(self) -> tuple[str, ...]:
        return self.config.types + INTERNAL_TYPES

    def redactor(self) -> Redactor:
        return Redactor(self.config.get("redact", "allow") or (), bool(self.config.get("redact", "entropy")))

    def trailers(self, op: str, ids: Iterable[str], scope: str, red: Redactor | None = None) -> list[tuple[str, str]]:
        red = red or self.redactor()
        t = [("Gitmem-Op", gate.check_name("op", op, red.allow))]
        t += [("Gitmem-Id", i) for i in ids]
        t.append(("Gitmem-Scope", scope))
        if self.config.session:
            t.append(("Gitmem-Session", red.text(self.config.session, "session")))
        if self.config.agent:
            t.append(("Gitmem-Agent", red.text(self.config.agent, "agent")))
        return t

    def message(self, subject: str, op: str, ids: Iterable[str], scope: str,
                red: Redactor | None = None, extra: Iterable[tuple[str, str]] = ()) -> str:
        red = red or self.redactor()
        # A subject can come from a caller (update, import): redacted like any text.
        return format_message(red.text(subject, "subject"), None, self.trailers(op, ids, scope, red) + list(extra))

    def source(self, extra: dict[str, Any] | None = None) -> dict[str, Any]:
        src: dict[str, Any] = {}
        if self.config.session:
            src["session"] = self.config.session
        if self.config.agent:
            src["agent"] = self.config.agent
        src.update(extra or {})
        return src

    # ---- lookup -------------------------------------------------------------------
    def find_in(self, rev: Rev | None, mem_id: str, archived: bool = True) -> str | None:
        """The path of memory `mem_id` in a commit's tree (memories/, then archive/)."""
        if rev is None or not model.is_id(mem_id):
            return None
        for root in (ROOTS if archived else ROOTS[:1]):
            for t in self.git.subdirs(rev, root):
                path = model.memory_path(mem_id, t, root)
                if self.git.exists(rev, path):
                    return path
        return None

    def key_id(self, rev: Rev | None, key: str) -> str | None:
        data = self.git.read(rev, key_path(key))
        return data.decode().strip() if data else None

    def locate(self, ref: str, scope: str | None = None) -> tuple[str, str, str]:
        """Resolve an id or key to (scope, id, path) at the scope tips."""
        chosen = [model.check_scope(scope)] if scope else list(self.git.scopes())
        tips = {s: self.git.tip(s) for s in chosen}
        for s in chosen:
            path = self.find_in(tips[s], ref)
            if path:
                return s, ref, path
        for s in chosen:
            mem_id = self.key_id(tips[s], ref)
            if mem_id:
                path = self.find_in(tips[s], mem_id)
                if path:
                    return s, mem_id, path
        raise NotFound(f"no memory {ref!r}" + (f" in scope {scope}" if scope else ""),
                       hint="`gitmem list` shows ids; `gitmem log ID` finds forgotten ones")

    def load(self, rev: Rev, path: str, scope: str, blob: str | None = None) -> Memory:
        """The memory file at `path` of `rev`. Parsed files are kept by blob id (a blob
        never changes), so a long-lived process (the daemon, MCP) parses each version
        once: `context` and `list` over 10k memories stop re-reading YAML every call."""
        blob = blob or self.git.blob_id(rev, path)
        if blob is None:
            raise NotFound(f"{path} not found at {rev.id[:10]}")
        key = (blob, path.rsplit("/", 1)[-1])
        mem = self._parsed.get(key)
        if mem is None:
            data = self.git.blob(blob, path)
            mem = model.parse(data, path=path)
            if len(self._parsed) >= PARSE_CACHE:
                self._parsed.clear()
            self._parsed[key] = mem
        return mem.located(scope, path, rev.id)

    def warn(self, message: str) -> None:
        if message not in self.warnings:
            self.warnings.append(message)

    def drop_parsed(self) -> None:
        """Forget every parsed file (after a forget: no copy of purged text stays here)."""
        self._parsed.clear()

    def memory_files(self, rev: Rev | None, *, archived: bool = False, type: str | None = None) -> Iterator[tuple[str, str]]:  # noqa: A002
        """(path, blob id) of the memory files in a tree."""
        for root in (ROOTS if archived else ROOTS[:1]):
            prefix = f"{root}/{type}" if type else root
            for path, oid in self.git.walk_files(rev, prefix):
                if path.endswith(".md"):
                    yield path, oid

    def iter_memories(self, scope: str, rev: Rev | None = None, archived: bool = False) -> Iterator[Memory]:
        """Every memory of a tree; a malformed file (front matter written by hand that
        does not parse) is skipped and noted in `self.skipped`, not fatal to the rest."""
        rev = rev if rev is not None else self.git.tip(scope)
        for path, blob in self.memory_files(rev, archived=archived):
            mem = self._load_or_skip(rev, path, scope, blob)
            if mem is not None:
                yield mem

    def _load_or_skip(self, rev: Rev, path: str, scope: str, blob: str | None = None) -> Memory | None:
        try:
            return self.load(rev, path, scope, blob)
        except MalformedMemory as e:
            entry = {"scope": scope, "path": path, "error": e.message}
            if entry not in self.skipped:
                self.skipped.append(entry)
            return None

    def list(self, scopes: Iterable[str], *, type: str | None = None, archived: bool = False,  # noqa: A002
             limit: int | None = None) -> list[Memory]:
        """Live memories of the scopes, newest first (the first `limit` of them). Reads
        the catalog when there is one, loading only the bodies it returns."""
        scopes = list(scopes)
        got = self.entries(scopes, archived=archived, type=type, limit=limit)
        if got is not None:
            return self.bodies(got)
        out: list[Memory] = []
        for s in scopes:
            tip = self.git.tip(s)
            if tip is None:
                continue
            for path, blob in self.memory_files(tip, archived=archived, type=type):
                mem = self._load_or_skip(tip, path, s, blob)
                if mem is not None:
                    out.append(mem)
        out.sort(key=lambda m: m.id, reverse=True)
        return out if limit is None else out[:max(0, limit)]

    def read_file(self, rev: Rev | None, path: str) -> str | None:
        """Any file of a scope's tree as text (journals, sessions, MEMORY.md)."""
        return self.git.read_text(rev, path)

    def history(self, scope: str, *, limit: int | None = None) -> Iterator[Commit]:
        tip = self.git.tip(scope)
        if tip is None:
            return iter(())
        return self.git.history(tip.id, limit=limit)


    # ---- writes -------------------------------------------------------------------
    def prepare(self, item: Mapping[str, Any], red: Redactor) -> dict[str, Any]:
        """Validate and redact one item's fields (raises UsageError)."""
        text = model.check_text(item["text"], self.config.max_text_bytes)
        out = dict(item)
        out["text"] = red.text(text, "text")
        out["type"] = model.check_type(item.get("type") or "note", self.types())
        out["importance"] = model.check_importance(
            model.DEFAULT_IMPORTANCE if item.get("importance") is None else item["importance"])
        out["tags"] = gate.check_names("tag", model.check_tags(item.get("tags")), red.allow)
        key = item.get("key")
        if key is not None:
            if isinstance(key, (list, dict, bool)):
                raise UsageError(f"bad key {key!r:.40}", hint="a key is a string, e.g. deploy-window")
            key = model.check_unicode(str(key), "key")
            if not key.strip() or "\x00" in key or len(key) > 512:
                raise UsageError(f"bad key {key[:40]!r}", hint="keys are 1-512 characters, no NUL")
            key = gate.check_name("key", key, red.allow)
        out["key"] = key
        out["created"] = model.normalise_when(item["created"]) if item.get("created") else None
        out["metadata"] = red.value(model.check_unicode(dict(item.get("metadata") or {}), "metadata"), "metadata")
        out["source"] = red.value(self.source(item.get("source")), "source")
        out["links"] = tuple(red.value(item.get("links") or (), "links"))
        out["supersedes"] = tuple(gate.check_names("superseded id", [str(i) for i in item.get("supersedes") or ()],
                                                   red.allow))
        # An importer may carry a summary of its own (e.g. a topic file's description).
        out["summary"] = red.text(" ".join(str(item["summary"]).split()), "summary") if item.get("summary") else None
        return injection.quarantine_item(out)

    def write_items(self, scope: str, items: list[dict[str, Any]], red: Redactor, op: str,
                    subject: str | None = None, when: int | None = None,
                    extra_files: Mapping[str, bytes] | None = None,
                    tick: Callable[[int], None] | None = None) -> WriteResult:
        """Write prepared items to one scope as one commit; an item whose key names a
        live memory updates it. `extra_files` (path -> plaintext) go in the same commit.
        tick(n): n more items are built (a bulk import's progress; a retried commit
        counts them again)."""
        results: list[tuple[Memory, str]] = []

        def build(tip: Rev | None):
            results.clear()
            changes: dict[str, Change] = dict(extra_files or {})
            now = self.now_iso()
            pending: dict[str, Memory] = {}
            for it in items:
                existing = None
                key = it["key"]
                if key is not None:
                    if key in pending:
                        existing = pending[key]
                    else:
                        mem_id = self.key_id(tip, key)
                        path = self.find_in(tip, mem_id, archived=False) if mem_id else None
                        existing = self.load(tip, path, scope) if path else None
                if existing is not None:
                    mem = existing.with_(
                        text=it["text"], type=it["type"], importance=it["importance"],
                        tags=it["tags"] or existing.tags, summary=it.get("summary") or model.summarise(it["text"]),
                        metadata={**existing.metadata, **it["metadata"]},
                        links=existing.links + tuple(x for x in it["links"] if x not in existing.links),
                        supersedes=existing.supersedes + tuple(s for s in it["supersedes"] if s not in existing.supersedes),
                        created=it["created"] or existing.created,
                    )
                    if model.render(mem) == model.render(existing):
                        results.append((existing, "unchanged"))
                        if tick is not None:
                            tick(1)
                        continue
                    mem = mem.with_(updated=now)
                    if existing.path and existing.path != model.memory_path(mem.id, mem.type):
                        changes[existing.path] = None
                    status = "updated"
                else:
                    mem = Memory(
                        id=self.new_id(), text=it["text"], type=it["type"],
                        summary=it.get("summary") or model.summarise(it["text"]),
                        importance=it["importance"], tags=it["tags"], created=it["created"] or now,
                        updated=now, source=it["source"], key=key, links=it["links"],
                        supersedes=it["supersedes"], metadata=it["metadata"],
                    )
                    status = "created"
                    if key is not None:
                        changes[key_path(key)] = (mem.id + "\n").encode()
                path = model.memory_path(mem.id, mem.type)
                changes[path] = model.render(mem)
                placed = mem.with_(scope=scope, path=path)
                if key is not None:
                    pending[key] = placed
                results.append((placed, status))
                if tick is not None:
                    tick(1)
            touched = [m.id for m, st in results if st != "unchanged"]
            if not touched:
                return None
            if subject is not None:
                subj = subject
            elif len(results) == 1:
                m, st = results[0]
                subj = f"{op if st == 'created' else 'update'}: {m.summary or m.id}"
            else:
                subj = f"{op}: {len(touched)} memories"
            trailer_op = op if len(results) > 1 or results[0][1] == "created" else "update"
            return changes, self.message(subj, trailer_op, touched, scope, red)

        commit = self.git.commit(scope, build, self.author(when))
        out = WriteResult(commit=commit, redacted=list(red.findings))
        for mem, status in results:
            out.pairs.append((mem.with_(commit=commit if status != "unchanged" else mem.commit), status))
        return out

    def update(self, scope: str, mem_id: str, change: Callable[[Memory], Memory], *, op: str = "update",
               subject: str | None = None, red: Redactor | None = None) -> tuple[Memory, str | None]:
        """Apply `change` to the live memory as one commit (a type change moves its file).
        Returns (memory, commit or None when nothing changed)."""
        result: list[Memory] = []

        def build(tip: Rev | None):
            result.clear()
            path = self.find_in(tip, mem_id)
            if path is None:
                raise NotFound(f"memory {mem_id} was removed meanwhile")
            old = self.load(tip, path, scope)
            mem = change(old)
            if model.render(mem) == model.render(old):
                result.append(old)
                return None
            mem = mem.with_(updated=self.now_iso())
            new_path = model.memory_path(mem.id, mem.type, path.split("/", 1)[0])
            changes: dict[str, Change] = {new_path: model.render(mem)}
            if new_path != path:
                changes[path] = None
            result.append(mem.with_(path=new_path))
            return changes, self.message(subject or f"{op}: {mem.summary or mem.id}", op, [mem.id], scope, red)

        commit = self.git.commit(scope, build, self.author())
        mem = result[0]
        return mem.with_(commit=commit or mem.commit, scope=scope), commit

    def append(self, scope: str, text: str, day: dt.date, red: Redactor) -> dict[str, Any]:
        """Add a journal line to daily/YYYY-MM-DD.md as one commit."""
        path = daily_path(day)
        stamp = dt.datetime.fromtimestamp(self.clock(), dt.timezone.utc).strftime("%H:%M")
        line = f"- {stamp} " + " ".join(text.split("\n")).strip() + "\n"
        info: dict[str, Any] = {}

        def build(tip: Rev | None):
            old = self.git.read(tip, path) or f"# {day:%Y-%m-%d}\n\n".encode()
            new = old + line.encode()
            info["line"] = new.decode("utf-8", "replace").count("\n")
            return {path: new}, self.message(f"append: {day:%Y-%m-%d} {model.summarise(text, 60)}",
                                             "append", [], scope, red, extra=[("Gitmem-Path", path)])

        commit = self.git.commit(scope, build, self.author())
        return {"scope": scope, "commit": commit, "path": path, "line": info["line"]}

    def commit(self, scope: str, build: Callable[[Rev | None], Any], when: int | None = None) -> str | None:
        """A compare-and-swap commit of `build(tip)` -> (changes, message) | Draft | None."""
        return self.git.commit(scope, build, self.author(when))


__all__ = ["AT_HINT", "AsOf", "Draft", "INTERNAL_TYPES", "Memories", "WriteResult", "daily_path", "key_path"]
