"""The facade that the CLI, the daemon, the hooks and the MCP server all call.

Thin: validation and defaults of the public signatures, then one call into the service
layer (memories.py) or a feature module. No git objects here."""

from __future__ import annotations

import datetime as dt
import os
from typing import Any, Iterable, Iterator

from gitmem.core import model, paths
from gitmem.core.config import Config, load_config
from gitmem.core.errors import UsageError
from gitmem.core.model import Memory
from gitmem.facade.agents import AgentsMixin
from gitmem.facade.keeping import KeepingMixin
from gitmem.facade.sharing import SharingMixin
from gitmem.memories import history, transfer
from gitmem.memories import scopes as scopes_mod
from gitmem.memories.history import LogEntry
from gitmem.memories.service import INTERNAL_TYPES, Memories, daily_path, key_path
from gitmem.memories.transfer import ImportResult, read_jsonl
from gitmem.policy import injection
from gitmem.store import GitStore, test_encrypt

__all__ = ["ImportResult", "INTERNAL_TYPES", "LogEntry", "Store", "daily_path", "init", "key_path",
           "open", "read_jsonl", "scrub"]


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


def scrub(text: str | None) -> str | None:
    """A message for a person or an agent with every secret in it replaced: an error may
    quote the value it refused (front ends pass every error and note through here)."""
    from gitmem.policy import gate

    return gate.scrub(text)


def open(home: Any = None, **kw: Any) -> "Store":  # noqa: A001 - gitmem.open mirrors it
    """Open an existing store at `home` (default $GITMEM_HOME or ~/.gitmem)."""
    return Store(load_config(home, **kw))


class Store(KeepingMixin, SharingMixin, AgentsMixin):
    """A gitmem store: memories in a bare git repository, one branch per scope."""

    def __init__(self, config: Config, *, git: GitStore | None = None, recaller: Any = None):
        self.config = config
        self.home = config.home
        self.memories = Memories(config, git)
        self._recall_engine: Any = recaller
        self._last_redactions: list[dict[str, Any]] = []
        self._last_write: dict[str, Any] = {}
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
        store = Store(config, git=self.memories.git, recaller=self.recaller)
        store.memories.share_caches(self.memories)  # parsed files and the catalog handle
        return store

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
        detect: bool = False,
    ) -> Memory:
        """Write one memory (or update the live one with the same key) as one commit.
        `link="REV[:PATH]"` attaches it to a commit of the code repo at cwd and notes
        the memory's id on that commit. `supersedes`: ids or keys of live memories of
        the scope it replaces (gitmem.memories.succession). `last_write` then says what
        the service did (created | updated | unchanged) and, with `detect` (a recall of its
        text: the front ends ask for it, bulk writers do not), which live memories it
        probably updates or repeats (gitmem.recall.currency.detect)."""
        from gitmem.agents import links as linking
        from gitmem.memories import edits

        svc = self.memories
        scope = svc.scope_for_write(scope, cwd)
        links = list(links or ())
        if link:
            links.append(linking.resolve_link(link, cwd))
        res = edits.remember(svc, scope, dict(text=text, type=type, importance=importance, tags=tags, key=key,
                                              created=created, source=source, links=links, metadata=metadata,
                                              supersedes=supersedes), op=op)
        self._last_redactions = res.redacted
        mem, status = res.pairs[0]
        if link:
            linking.note_code_commit(svc, mem, links[-1], cwd)
        self._last_write = {"status": status, "possible_updates": [], "possible_duplicates": []}
        if detect and status != "unchanged":
            self._last_write.update(self._detect(mem))
        return mem

    def _detect(self, mem: Memory) -> dict[str, Any]:
        """What a new memory probably updates or repeats; a failing index only warns
        (the write is done)."""
        from gitmem.core.errors import GitmemError
        from gitmem.recall import currency

        try:
            return currency.detect(self.recaller, mem)
        except GitmemError as e:
            self.memories.warn(f"update detection skipped: {e.message}")
            return {}

    @property
    def last_write(self) -> dict[str, Any]:
        """What the last `remember` did: {"status": created | updated | unchanged,
        "possible_updates": [...], "possible_duplicates": [...]} (each {id, summary,
        scope, similarity, cues, overlap})."""
        return self._last_write

    def update(self, ref: str, text: str | None = None, *, scope: str | None = None,
               type: str | None = None, importance: int | None = None,  # noqa: A002
               tags: Iterable[str] | str | None = None, op: str = "update",
               subject: str | None = None, supersedes: Iterable[str] | None = None) -> Memory:
        """Change a memory's text and/or fields as one commit. `supersedes`: more
        memories this one (edited or not) now replaces."""
        from gitmem.memories import edits

        mem, self._last_redactions = edits.update(self.memories, ref, text, scope=scope, type=type,
                                                  importance=importance, tags=tags, op=op, subject=subject,
                                                  supersedes=supersedes)
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
        from gitmem.memories import edits

        out = edits.append(self.memories, self.memories.scope_for_write(scope, cwd), text, day)
        self._last_redactions = list(out["redacted"])
        return out

    # ---- reads ----------------------------------------------------------------------
    def locate(self, ref: str, scope: str | None = None) -> tuple[str, str, str]:
        """Resolve an id or key to (scope, id, path) at the scope tips."""
        return self.memories.locate(ref, scope)

    def get(self, ref: str, *, at: str | None = None, scope: str | None = None) -> Memory:
        """A memory by id or key, at the tip or as it was at a revision or date."""
        from gitmem.memories import succession

        svc = self.memories
        if at is None:
            s, _, path = svc.locate(ref, scope)
            return succession.mark(svc, [svc.load(svc.git.tip(s), path, s)])[0]
        return svc.get_at(ref, at, scope)

    def list(self, *, scope: str | None = None, type: str | None = None,  # noqa: A002
             archived: bool = False, scopes: Iterable[str] | None = None,
             all_scopes: bool = False, limit: int | None = None) -> list[Memory]:
        """Live memories of the scope(s), newest first (the first `limit`); a replaced one
        says by what (`superseded_by`)."""
        from gitmem.memories import succession

        if limit is not None and limit < 0:
            raise UsageError(f"bad limit {limit}", hint="-n takes 0 or more, e.g. -n 50")
        chosen = [model.check_scope(scope)] if scope else self.read_scopes(scopes, all_scopes)
        return succession.mark(self.memories, self.memories.list(chosen, type=type, archived=archived, limit=limit))

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
        from gitmem.memories.edits import scope_rows

        linked: dict[str, list[str]] = {}
        for root, scope in (self.config.section("links") or {}).items():
            linked.setdefault(scope, []).append(root)
        return scope_rows(self.memories, linked)

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
        self._last_recall = result.info
        return result

    def injectable(self, hits: Iterable[Any]) -> list[Any]:
        """The hits that may go into an agent's prompt (`recall --format prompt`, the
        prompt hook, MCP search): at least `[recall] prompt_min_relevance` relevant (and
        scoring at least `prompt_min_score`), not quarantined, and scanning clean unless
        a person released exactly that text (gitmem.injection)."""
        from gitmem.core.errors import GitmemError

        floor = float(self.config.get("recall", "prompt_min_score"))
        rel_floor = float(self.config.get("recall", "prompt_min_relevance"))
        out = []
        for h in hits:
            if (h.score or 0.0) < floor or h.type == "quarantine":
                continue
            if h.relevance is not None and h.relevance < rel_floor:
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

    def prompt_hits(self, hits: Iterable[Any], k: int | None = None) -> list[Any]:
        """What a prompt gets of these hits: the injectable ones (above the prompt's
        relevance floor), at most `k` (default [hooks] max_results); none when none pass."""
        cap = int(self.config.get("hooks", "max_results")) if k is None else int(k)
        return self.injectable(hits)[:cap]

    def index_catch_up(self, progress=None, *, lock=None, stop=None) -> dict[str, Any]:
        """Index what is new and embed the vectors a `recall(timeout_ms=...)` left
        pending: {"chunks", "pending", "embedded"}. With `lock` (what serialises the
        threads using this Store), it is held only to read and write the index, never
        while embedding: run it in a thread beside queries. stop() ends it early."""
        return self.recaller.catch_up(progress=progress, lock=lock, stop=stop)

    def keep_views(self) -> "Store":
        """For a long-lived process (the daemon): the catalog keeps its live rows in memory
        per scope tips, so `context` chooses without a query over every row. Returns the
        store."""
        cat = self.memories.catalog
        if cat is not None:
            cat.keep_view = True
        return self

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




