"""The facade that the CLI, the daemon, the hooks and the MCP server all call.

Thin: validation and defaults of the public signatures, then one call into the service
layer (memories.py) or a feature module. No git objects here."""

from __future__ import annotations

import datetime as dt
import os
from typing import Any, Callable, Iterable, Iterator

from gitmem.core import model, paths
from gitmem.core.config import Config, load_config
from gitmem.core.errors import UsageError
from gitmem.core.model import Memory
from gitmem.memories import history, transfer
from gitmem.memories import scopes as scopes_mod
from gitmem.memories.history import LogEntry
from gitmem.memories.service import INTERNAL_TYPES, Memories, daily_path, key_path
from gitmem.memories.transfer import ImportResult, read_jsonl
from gitmem.policy import injection
from gitmem.store import GitStore, test_encrypt

__all__ = ["ImportResult", "INTERNAL_TYPES", "LogEntry", "Store", "daily_path", "init", "key_path",
           "open", "read_jsonl"]


def init(home: str | os.PathLike[str] | None = None, *, encrypt: bool = False, **kw: Any) -> "Store":
    """Create a store (idempotent) and open it. `encrypt`: a new store starts encrypted
    (an existing plain one with memories is refused: see Store.encrypt_enable)."""
    cfg = load_config(home, **kw)
    created = GitStore.init(cfg.home)
    store = Store(cfg)
    if created and test_encrypt():
        encrypt = True
    if encrypt and not store.git.encryption():
        if any(store.git.scopes().values()):
            raise UsageError("this store already holds plain memories",
                             hint="`gitmem encrypt enable` encrypts it (one rewrite of its history)")
        store.encrypt_enable()
    return store


def open(home: Any = None, **kw: Any) -> "Store":  # noqa: A001 - gitmem.open mirrors it
    """Open an existing store at `home` (default $GITMEM_HOME or ~/.gitmem)."""
    return Store(load_config(home, **kw))


class Store:
    """A gitmem store: memories in a bare git repository, one branch per scope."""

    def __init__(self, config: Config, *, git: GitStore | None = None, recaller: Any = None):
        self.config = config
        self.home = config.home
        self.memories = Memories(config, git)
        self._recall_engine: Any = recaller
        self._last_redactions: list[dict[str, Any]] = []
        self._last_recall: dict[str, Any] = {}
        if paths.state_file(self.home, "purge-pending.json").exists():
            # A forget killed after its history rewrite: finish its purge first.
            from gitmem.lifecycle.purge import finish_interrupted

            finish_interrupted(self.memories)

    def sharing(self, config: Config) -> "Store":
        """A Store for `config` (the same home and settings; another session, agent or
        spelling of the home) on this one's git repository and recall engine: what a
        daemon hands each command it runs, so the model and index stay loaded once."""
        if config.data != self.config.data:
            raise UsageError("a shared Store needs the same settings")
        return Store(config, git=self.memories.git, recaller=self.recaller)

    @property
    def git(self) -> GitStore:
        """The object layer (for maintenance commands and tests; features use memories)."""
        return self.memories.git

    # ---- identity and scopes --------------------------------------------------------
    def identity(self) -> tuple[str, str]:
        return self.memories.identity()

    def default_scope(self, cwd: str | None = None) -> str:
        """`--scope` absent: the linked project's scope inside a linked repo, else config."""
        return self.memories.scope_for_write(None, cwd)

    def linked_scope(self, cwd: str | None = None) -> str | None:
        """The project scope of the code repo containing cwd, if it was linked."""
        return self.memories.linked_scope(cwd)

    def session_scopes(self, cwd: str | None = None) -> list[str]:
        """What an agent session in cwd reads: the default read scopes that exist."""
        return scopes_mod.session_scopes(self.config, self.memories.git.scopes(), cwd)

    def read_scopes(self, scopes: Iterable[str] | None = None, all_scopes: bool = False,
                    cwd: str | None = None) -> list[str]:
        """Scopes a read looks at: given ones, all, or the linked project + main."""
        return self.memories.scopes_for_read(scopes, all_scopes, cwd)

    def warnings(self) -> list[str]:
        """One-line warnings of this session so far (a degraded index, say)."""
        return list(self.memories.warnings)

    def skipped(self) -> list[dict[str, Any]]:
        """Malformed memory files that reads so far passed over ({scope, path, error})."""
        return list(self.memories.skipped)

    @property
    def last_redactions(self) -> list[dict[str, Any]]:
        """What the last write redacted (kinds and fields, never the secret)."""
        return self._last_redactions

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
        link: str | None = None,
        cwd: str | None = None,
        op: str = "remember",
    ) -> Memory:
        """Write one memory (or update the live one with the same key) as one commit.
        `link="REV[:PATH]"` attaches it to a commit of the code repo at cwd and notes
        the memory's id on that commit."""
        from gitmem.agents import links as linking

        svc = self.memories
        scope = svc.scope_for_write(scope, cwd)
        links = list(links or ())
        if link:
            links.append(linking.resolve_link(link, cwd))
        red = svc.redactor()
        item = svc.prepare(dict(text=text, type=type, importance=importance, tags=tags, key=key,
                                created=created, source=source, links=links, metadata=metadata,
                                supersedes=supersedes), red)
        res = svc.write_items(scope, [item], red, op=op)
        self._last_redactions = res.redacted
        mem = res.pairs[0][0]
        if link:
            linking.note_code_commit(svc, mem, links[-1], cwd)
        return mem

    def update(self, ref: str, text: str | None = None, *, scope: str | None = None,
               type: str | None = None, importance: int | None = None,  # noqa: A002
               tags: Iterable[str] | str | None = None, op: str = "update",
               subject: str | None = None) -> Memory:
        """Change a memory's text and/or fields as one commit."""
        svc = self.memories
        scope, mem_id, _ = svc.locate(ref, scope)
        red = svc.redactor()
        if text is not None:
            text = red.text(model.check_text(text, self.config.max_text_bytes), "text")
        if type is not None:
            model.check_type(type, svc.types())
        if importance is not None:
            importance = model.check_importance(importance)
        new_tags = red.value(model.check_tags(tags), "tags") if tags is not None else None

        def change(old: Memory) -> Memory:
            new_text = old.text if text is None else text
            typ, meta, tg = injection.on_update(old.type, old.metadata, old.tags if new_tags is None else new_tags,
                                                new_text, type, op=op, who="{} <{}>".format(*self.identity()),
                                                when=model.now_iso())
            return old.with_(
                text=new_text,
                summary=old.summary if text is None else model.summarise(text),
                type=typ,
                importance=old.importance if importance is None else importance,
                tags=tg,
                metadata=meta,
            )

        mem, _ = svc.update(scope, mem_id, change, op=op, subject=subject, red=red)
        self._last_redactions = list(red.findings)
        return mem

    def restore(self, ref: str, rev: str, scope: str | None = None) -> Memory:
        """Bring the version of a memory at `rev` back as a new commit."""
        old = self.get(ref, at=rev, scope=scope)
        return self.update(old.id, old.text, scope=old.scope, type=old.type,
                           importance=old.importance, tags=old.tags, op="restore",
                           subject=f"restore: {old.id} from {rev[:12]}")

    def append(self, text: str, *, scope: str | None = None, day: dt.date | None = None,
               cwd: str | None = None) -> dict[str, Any]:
        """Add a journal line to daily/YYYY-MM-DD.md as one commit."""
        svc = self.memories
        scope = svc.scope_for_write(scope, cwd)
        red = svc.redactor()
        text = red.text(model.check_text(text, self.config.max_text_bytes), "text")
        out = svc.append(scope, text, day or dt.datetime.now(dt.timezone.utc).date(), red)
        self._last_redactions = list(red.findings)
        out["redacted"] = list(red.findings)
        return out

    # ---- reads ----------------------------------------------------------------------
    def locate(self, ref: str, scope: str | None = None) -> tuple[str, str, str]:
        """Resolve an id or key to (scope, id, path) at the scope tips."""
        return self.memories.locate(ref, scope)

    def get(self, ref: str, *, at: str | None = None, scope: str | None = None) -> Memory:
        """A memory by id or key, at the tip or as it was at a revision or date."""
        svc = self.memories
        if at is None:
            s, _, path = svc.locate(ref, scope)
            return svc.load(svc.git.tip(s), path, s)
        return svc.get_at(ref, at, scope)

    def list(self, *, scope: str | None = None, type: str | None = None,  # noqa: A002
             archived: bool = False, scopes: Iterable[str] | None = None,
             all_scopes: bool = False) -> list[Memory]:
        """Live memories of the scope(s), newest first."""
        chosen = [model.check_scope(scope)] if scope else self.read_scopes(scopes, all_scopes)
        return self.memories.list(chosen, type=type, archived=archived)

    def iter_memories(self, scope: str) -> Iterator[Memory]:
        return self.memories.iter_memories(scope)

    def log(self, ref: str | None = None, *, scope: str | None = None, patch: bool = False,
            limit: int | None = None) -> list[LogEntry]:
        """The audit log of a scope, or the versions of one memory."""
        return history.log(self.memories, ref, scope=scope, patch=patch, limit=limit)

    def show(self, rev: str) -> dict[str, Any]:
        """A commit: its message, trailers and the change it made."""
        return history.show(self.memories, rev)

    def diff(self, rev1: str | None, rev2: str) -> str:
        """A unified diff of memory files between two revisions."""
        return history.diff(self.memories, rev1, rev2)

    def read_path(self, path: str, scope: str | None = None, at: str | None = None,
                  start: int | None = None, count: int | None = None) -> dict[str, Any]:
        """A slice of a file in a scope's tree; memory files are sliced by body lines,
        the numbering recall hits cite."""
        return history.read_slice(self.memories, path, scope=scope, at=at, start=start, count=count)

    def scopes(self) -> list[dict[str, Any]]:
        """Every scope with its tip, memory count and last change; a project scope a
        code repository is linked to is listed (empty) before anything is written there,
        with the repository's path under "linked"."""
        svc = self.memories
        linked: dict[str, list[str]] = {}
        for root, scope in (self.config.section("links") or {}).items():
            linked.setdefault(scope, []).append(root)
        out = []
        existing = svc.git.scopes()
        for s in sorted(set(existing) | set(linked)):
            tip = svc.git.tip(s) if s in existing else None
            row: dict[str, Any] = {"scope": s, "tip": existing.get(s), "memories": 0, "updated": None}
            if tip is not None:
                row["memories"] = sum(1 for _ in svc.memory_files(tip))
                row["updated"] = dt.datetime.fromtimestamp(tip.time, dt.timezone.utc) \
                    .isoformat().replace("+00:00", "Z")
            if s in linked:
                row["linked"] = sorted(linked[s])
            out.append(row)
        return out

    def status(self) -> dict[str, Any]:
        from gitmem.core.version import __version__
        st: dict[str, Any] = {
            "home": str(self.home), "version": __version__,
            "format": self.git.format_version(), "scopes": self.scopes(),
            "default_scope": self.default_scope(),
        }
        st["memories"] = sum(s["memories"] for s in st["scopes"])
        st.update(self.index_status())
        st["remotes"] = self.remotes()
        st["encryption"] = self.encryption()
        return st

    def info(self) -> dict[str, Any]:
        """Where the store lives (for `init`)."""
        return {"home": str(self.home), "repo": str(self.git.path), "format": self.git.format_version()}

    # ---- import / export ------------------------------------------------------------
    def import_items(self, items: Iterable[dict[str, Any]], *, scope: str | None = None,
                     op: str = "import", subject: str | None = None, progress=None) -> ImportResult:
        """Import dicts (`text` required; key/scope/type/importance/tags/created optional,
        anything else kept under metadata). Validates everything before writing; one
        commit per scope touched. progress(length, label): a bar per phase (checking,
        writing), as click.progressbar makes them."""
        res = transfer.import_items(self.memories, items, scope=scope, op=op, subject=subject,
                                    progress=progress)
        self._last_redactions = list(res.redacted)
        return res

    def export_jsonl(self, *, scope: str | None = None, all_scopes: bool = False) -> Iterator[dict[str, Any]]:
        """Items in the import format (a round trip through import_items)."""
        return transfer.export_jsonl(self.list(scope=scope, all_scopes=all_scopes or scope is None))

    def export_markdown(self, out_dir: str | os.PathLike[str], *, scope: str | None = None) -> list[str]:
        """Write each scope's memory files as plain markdown under out_dir/<scope>/."""
        return transfer.export_markdown(self.memories, out_dir, scope=scope)

    def import_dir(self, kind: str, directory: str | os.PathLike[str], *,
                   scope: str | None = None, progress=None) -> dict[str, Any]:
        """Import an agent memory folder (openclaw, qwen, claude, markdown); progress as
        import_items."""
        from gitmem.agents.importers import import_dir

        out = import_dir(self.memories, kind, directory, scope=scope, progress=progress)
        self._last_redactions = list(out["redacted"])
        return out

    def export_dir(self, kind: str, directory: str | os.PathLike[str], *,
                   scope: str | None = None) -> dict[str, Any]:
        """Write a scope as an agent memory folder (openclaw: MEMORY.md + daily logs)."""
        from gitmem.agents.importers import export_openclaw

        if kind != "openclaw":
            raise UsageError(f"cannot export to {kind!r}", hint="supported: openclaw")
        return export_openclaw(self.memories, directory, scope=scope)

    # ---- recall ---------------------------------------------------------------------
    @property
    def recaller(self):
        """The recall engine (index + embedder), created on first use."""
        if self._recall_engine is None:
            from gitmem.recall.engine import Recaller

            self._recall_engine = Recaller(self.memories)
        return self._recall_engine

    def recall(self, query: str, k: int = 10, scopes: Iterable[str] | None = None, **filters: Any):
        """Hybrid recall: a list of Hit (id, key, scope, type, path, start_line, end_line,
        score, scores, snippet, commit, created). Filters: all_scopes, type, since,
        archived, mode ("hybrid"|"bm25"|"vector"), mmr, explain, record, progress, cwd, timeout_ms
        (BM25 only while new memories wait for their vectors, never embedding in the query),
        at (a revision or date: the memory as it stood then, hits citing those commits;
        see gitmem.recall.timetravel). How it ran: `search` returns it with the hits."""
        return self.search(query, k, scopes, **filters).hits

    def search(self, query: str, k: int = 10, scopes: Iterable[str] | None = None, *, progress=None,
               **filters: Any):
        """`recall`, answered as a RecallResult: the hits and how the recall ran (backend,
        scopes, pending vectors, notes). Snippets and text are redacted again on the way
        out: a secret that reached the store by a hand edit or plain git is not handed on."""
        from gitmem.recall.request import RecallRequest

        result = self.recaller.run(RecallRequest.of(query, k, scopes, **filters), progress=progress)
        red = self.memories.redactor()
        result.hits = [h.redacted(red) for h in result.hits]
        self._last_recall = result.info
        return result

    def injectable(self, hits: Iterable[Any]) -> list[Any]:
        """The hits that may go into an agent's prompt (`recall --format prompt`, the
        prompt hook, MCP search): scoring at least `[recall] prompt_min_score`, not
        quarantined, and scanning clean unless a person released exactly that text
        (gitmem.injection)."""
        from gitmem.core.errors import GitmemError

        floor = float(self.config.get("recall", "prompt_min_score"))
        out = []
        for h in hits:
            if (h.score or 0.0) < floor or h.type == "quarantine":
                continue
            if injection.suspect(h.text or h.snippet):  # a snippet is part of the text
                try:  # a released memory carries its release in metadata
                    m = self.get(h.id, scope=h.scope)
                except GitmemError:
                    continue
                if not injection.injectable(m.type, m.text, m.metadata):
                    continue
            out.append(h)
        return out

    def index_catch_up(self, progress=None, *, lock=None, stop=None) -> dict[str, Any]:
        """Index what is new and embed the vectors a `recall(timeout_ms=...)` left
        pending: {"chunks", "pending", "embedded"}. With `lock` (what serialises the
        threads using this Store), it is held only to read and write the index, never
        while embedding: run it in a thread beside queries. stop() ends it early."""
        return self.recaller.catch_up(progress=progress, lock=lock, stop=stop)

    @property
    def last_recall(self) -> dict[str, Any]:
        """How this Store's last recall ran (backend, model, timings): `search` hands the
        same with its hits, which is what a threaded caller should use."""
        return self._last_recall

    def index_status(self) -> dict[str, Any]:
        """Backend (hybrid | bm25), model, memories indexed, lag behind each scope tip."""
        return self.recaller.status()

    def reindex(self, progress=None) -> dict[str, Any]:
        """Rebuild the derived index from git (into a new file, swapped in)."""
        return self.recaller.reindex(progress=progress)

    @property
    def index(self):
        """The derived index (gitmem.index.Index): drop_ids, vectors_for, rebuild."""
        return self.recaller.index

    def doctor(self, fix: bool = False) -> list[dict[str, Any]]:
        """Health checks (repository, malformed memories, index, locks, keys, remotes);
        `fix` repairs what is safe (index rebuild, stale git locks, permissions)."""
        from gitmem import doctor

        return doctor.run(self.memories, fix=fix)

    # ---- encryption -----------------------------------------------------------------
    def encryption(self) -> dict[str, Any]:
        """Whether the store is encrypted, its key's fingerprint and state."""
        from gitmem.encryption import marker

        return marker.status(self.memories)

    def encrypt_enable(self, progress: Callable[[str], None] | None = None) -> dict[str, Any]:
        """Encrypt this store: a new master key, its whole history rewritten sealed."""
        from gitmem.encryption import convert

        return convert.enable(self.memories, progress)

    def key_export(self) -> str:
        """The master key as a key file's text (keep it secret)."""
        from gitmem.encryption import keys

        return keys.export_key(self.memories)

    def key_import(self, text: str, source: str = "key file") -> dict[str, Any]:
        """Install a key made by `key_export` (refused when the store has another one)."""
        from gitmem.encryption import keys

        return keys.import_key(self.memories, text, source)

    def key_rotate(self) -> dict[str, Any]:
        """A new master key; the keyring re-wrapped; the old key opens nothing here."""
        from gitmem.encryption import keys

        return keys.rotate(self.memories)

    # ---- lifecycle ------------------------------------------------------------------
    def forget(self, ids: Iterable[str], reason: str | None = None, keep_history: bool = False) -> dict[str, Any]:
        """Remove memories (ids or keys); unless keep_history, purge their text from history."""
        from gitmem.lifecycle.forget import forget

        return forget(self.memories, list(ids), reason=reason, keep_history=keep_history)

    def find(self, query: str, *, archived: bool = True) -> list[Memory]:
        """Live memories whose text, summary, key or tags contain every word of `query`
        (what `forget --query` acts on)."""
        from gitmem.lifecycle.forget import find

        return find(self.memories, query, archived=archived)

    def redact_text(self, text: str, reason: str | None = None) -> dict[str, Any]:
        """Purge a leaked string from every scope, its history and the index."""
        from gitmem.lifecycle.forget import redact_text

        return redact_text(self.memories, text, reason=reason)

    def dream(self, scope: str | None = None, dry_run: bool = False, force: bool = False,
              now: float | None = None) -> dict[str, Any]:
        """Consolidate a scope (default: every scope) as one commit each; see gitmem.lifecycle.dream."""
        from gitmem.lifecycle.dream import dream

        return dream(self.memories, scope=scope, dry_run=dry_run, force=force, now=now)

    def undream(self, scope: str | None = None) -> dict[str, Any]:
        """Revert the last dream commit of a scope with a new commit."""
        from gitmem.lifecycle.dream import undream

        return undream(self.memories, scope=scope)

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

    # ---- sync -----------------------------------------------------------------------
    def remote_add(self, name: str, url: str) -> dict[str, Any]:
        """Add a git remote (any URL git understands) to repo.git/config."""
        self.git.transport().add(name, url)
        return {"remote": name, "url": url}

    def remote_remove(self, name: str) -> dict[str, Any]:
        self.git.transport().remove(name)
        return {"remote": name, "removed": True}

    def remote_names(self) -> list[str]:
        """The configured remotes' names (no network; no ahead/behind)."""
        return list(self.git.transport().remotes())

    def remotes(self) -> list[dict[str, Any]]:
        """Every remote with its URL, last sync and per-scope ahead/behind."""
        from gitmem.sync.remotes import remote_status

        return remote_status(self.memories)

    def sync(self, remote: str | None = None, *, scopes: Iterable[str] | None = None,
             dry_run: bool = False, progress: Any = None) -> dict[str, Any]:
        """Fetch, apply the redaction ledger, merge every scope, push (see gitmem.sync);
        `progress(line)` is told each step."""
        from gitmem.sync.engine import sync

        out = sync(self.memories, remote, scopes=scopes, dry_run=dry_run, progress=progress)
        self._recall_engine = None  # scopes moved under the index: it catches up on next use
        return out

    def set_private(self, scope: str, private: bool = True) -> dict[str, Any]:
        """A private scope never leaves this machine (not pushed, not merged)."""
        from gitmem.sync.remotes import set_private

        listed = set_private(self.memories, scope, private)
        self._reloaded({})
        return {"scope": scope, "private": private, "private_scopes": listed}

    def conflicts(self, *, scope: str | None = None) -> list[dict[str, Any]]:
        """Conflict copies a sync kept, per memory."""
        from gitmem.sync.conflicts import list_conflicts

        chosen = [model.check_scope(scope)] if scope else list(self.git.scopes())
        return list_conflicts(self.memories, chosen)

    def resolve(self, ref: str, keep: str = "current", *, scope: str | None = None) -> dict[str, Any]:
        """Settle a conflict as one commit: keep "current", "other" (the copy), or TEXT."""
        from gitmem.sync.conflicts import resolve

        return resolve(self.memories, ref, keep, scope=scope)

    # ---- agents ---------------------------------------------------------------------
    def context(self, *, scopes: Iterable[str] | None = None, hours: float | None = None,
                budget: int | None = None, cwd: str | None = None, at: str | None = None) -> dict[str, Any]:
        """The session-start bundle as data (render with context.render_context);
        `at` (a revision or date): the bundle as of then (see gitmem.timetravel)."""
        from gitmem.agents.context import context

        return context(self.memories, scopes=scopes, hours=hours, budget=budget, cwd=cwd, at=at)

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
                "metadata": m.metadata, "source": m.source}

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
