"""The index of one store: catch the file up with the scope tips (by diffing each
scope's cursor against its tip through the object layer), rebuild it, and hand queries
a fresh in-memory snapshot."""

from __future__ import annotations

import contextlib
import itertools
import os
import time
from collections import OrderedDict
from pathlib import Path
from typing import Any, Callable, ContextManager, Iterable, Iterator, Sequence

import numpy as np

from gitmem.core.errors import ConflictError, IndexError_
from gitmem.core.fsutil import file_lock
from gitmem.index import asof, catalog, db, overlay
from gitmem.index.chunks import Chunk, chunks_of, indexable
from gitmem.index.snapshot import Snapshot, load_snapshot, mean_vectors, refresh

# progress(length, label) -> a context manager with update(n): click.progressbar fits.
Progress = Callable[[int, str], ContextManager[Any]]


# A process without an index worker (the API in a script) catches the file up itself
# after this many changes applied in memory only (a daemon's worker does it sooner).
MAX_AHEAD = 32


class _NullBar:
    def __enter__(self):
        return self

    def __exit__(self, *a):
        return False

    def update(self, n: int) -> None:
        pass


class Index:
    """The derived index of one store. Cheap to construct; nothing opens until used.

    `git` is the store's GitStore: the index reads tips, diffs and decoded blobs
    through it and nothing else."""

    def __init__(self, home: Path, git, config, embedder=None):
        self.home = Path(home)
        self.git = git
        self.config = config
        self.embedder = embedder
        self.path = db.index_path(self.home)
        self._snap: Snapshot | None = None
        self.last_build: dict[str, Any] = {}
        self._asof: OrderedDict[tuple, Snapshot] = OrderedDict()   # the last two as-of views
        self._asof_chunks: dict[tuple[str, str, str], list[Chunk]] = {}
        self._counts: tuple | None = None   # (file state, db.counts) for status
        self._state_memo: tuple | None = None   # (the file's stat, db.read_state) for status
        # Vectors computed for changes applied in memory (overlay.py) that the file has not
        # caught up with yet: its catch-up takes them from here instead of embedding again.
        self._fresh_vecs: dict[str, bytes] = {}
        self._ahead = 0   # changes applied in memory since the file was last caught up
        self.last_change: dict[str, Any] = {}   # what the last change applied in memory took

    def _opt(self, key: str) -> Any:
        return self.config.get("index", key)

    @property
    def _retry(self) -> float:
        return float(self._opt("open_retry"))

    @property
    def model_id(self) -> str | None:
        return self.embedder.model_id if self.embedder is not None else None

    @property
    def warm_size(self) -> int:
        """Chunks in the snapshot held in memory (0 before the first query)."""
        return self._snap.size if self._snap is not None else 0

    @property
    def warm_pending(self) -> int:
        """Chunks of the snapshot in memory that wait for a vector."""
        return self._snap.pending if self._snap is not None else 0

    # ---- freshness ----------------------------------------------------------------
    def _tips(self) -> dict[str, str]:
        return dict(self.git.scopes())

    def snapshot(self, progress: Progress | None = None, embed_limit: int | None = None) -> Snapshot:
        """A fresh in-memory view, catching the file up with git first if needed.

        embed_limit: embed at most this many new texts now; with more, index their
        words only and leave their vectors pending (`Snapshot.pending`) for the next
        call without a limit (recall --timeout: a query never waits on a bulk embed)."""
        tips = self._tips()
        snap = self._snap
        if (snap is not None and snap.cursors == tips and snap.model == self.model_id
                and (embed_limit is not None or not snap.pending)):
            return snap
        if snap is not None and self._apply_change(snap, tips, embed_limit):
            if self._ahead > MAX_AHEAD:
                self.ensure_fresh(tips=tips)   # a process without an index worker: now and then
            return snap
        self.ensure_fresh(tips=tips, progress=progress, embed_limit=embed_limit)
        if snap is not None and snap.model == self.model_id and not snap.pending:
            try:
                if refresh(snap, self.path, self._retry, self._changed_paths):
                    return snap
            except Exception:
                pass  # any surprise: fall back to a full copy below
        self.close()
        try:
            self._snap = load_snapshot(self.path, self.model_id, self._retry)
        except Exception as e:
            if isinstance(e, IndexError_) or isinstance(e, db.load_duckdb().Error):
                # Replaced or damaged between the check and the copy: rebuild once.
                self.rebuild(progress=progress)
                self._snap = load_snapshot(self.path, self.model_id, self._retry)
            else:
                raise
        return self._snap

    @property
    def file_behind(self) -> bool:
        """Whether the snapshot in memory holds changes the file has not caught up with
        (a long-running process then runs ensure_fresh in the background)."""
        return self._ahead > 0

    def _apply_change(self, snap: Snapshot, tips: dict[str, str], embed_limit: int | None) -> bool:
        """Bring the warm snapshot to `tips` from git alone when the change is small
        (index/overlay.py): that change's words and vectors, no open of the file. False:
        not applicable (the caller catches the file up and refreshes or reloads)."""
        if snap.model != self.model_id or snap.pending or snap.vec_pending:
            return False
        planned = overlay.plan(self.git, snap.cursors, tips, int(self._opt("chunk_lines")),
                               int(self._opt("chunk_chars")))
        if planned is None:
            return False
        gone, chunks = planned
        new: dict[str, bytes] = {}

        def vectors(reuse: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
            if self.model_id is None or not chunks:
                return {}
            have, made = overlay.vectors_for(
                chunks, reuse, self._fresh_vecs, embed=lambda texts: self._embed_missing(texts, None),
                cached=lambda texts: db.cached_vectors(self.path, self.model_id, texts, self._retry), limit=embed_limit)
            new.update(made)
            self._fresh_vecs.update(made)
            return have

        try:
            if not overlay.apply(snap, gone, chunks, vectors, tips):
                return False
        except overlay.Declined:
            return False   # the file's catch-up leaves those vectors pending instead
        except Exception:
            self.close()   # half applied: the caller loads a fresh copy
            raise
        self.last_change = {"files": len({(c.scope, c.path) for c in chunks} | gone), "chunks": len(chunks),
                            "embedded": len(new)}
        self._ahead += 1
        return True

    def _changed_paths(self, old: str, new: str) -> Iterator[str] | None:
        """Paths that differ between two commits; None when `old` is gone (rewritten)."""
        if not self.git.has_commit(old):
            return None
        return (p for _, p, _ in self.git.diff_files(old, new))

    def snapshot_at(self, revs: dict[str, str], forgotten: set[str] | frozenset[str] = frozenset(), *,
                    reuse: bool = True, progress: Progress | None = None) -> tuple[Snapshot, dict[str, Any]]:
        """A view of the index as of past commits (scope -> commit id; scopes not named
        are left out), without the memories in `forgotten`; and what building it took.
        See index/asof.py. The last two views are kept while the current snapshot lasts."""
        t0 = time.perf_counter()
        base = self.snapshot(progress=progress)
        base_ms = round((time.perf_counter() - t0) * 1000, 3)
        key = (id(base), tuple(sorted(base.cursors.items())), tuple(sorted(revs.items())),
               frozenset(forgotten), reuse, base.model)
        snap = self._asof.get(key)
        if snap is not None:
            self._asof.move_to_end(key)
            return snap, {"cached": True, "embedded": 0, "base_ms": base_ms,
                          "ms": round((time.perf_counter() - t0) * 1000, 3)}
        snap, info = asof.build(base, self.git, revs, set(forgotten), chunk_lines=int(self._opt("chunk_lines")),
                                chunk_chars=int(self._opt("chunk_chars")), chunk_cache=self._asof_chunks,
                                vectors=lambda want: self._cached_or_embedded(want, progress), reuse=reuse)
        self._asof[key] = snap
        while len(self._asof) > 2:
            self._asof.popitem(last=False)[1].close()
        info["base_ms"] = base_ms
        info["ms"] = round((time.perf_counter() - t0) * 1000, 3)
        return snap, info

    def _cached_or_embedded(self, want: dict[str, str], progress: Progress | None) -> tuple[dict[str, np.ndarray], int]:
        """hash -> vector for these texts: from the file's embedding cache, else embedded
        now and added to it (so no text is embedded twice). Also how many were embedded."""
        model = self.model_id
        if not want or model is None:
            return {}, 0
        out = {h: np.frombuffer(b, dtype=np.float32)
               for h, b in db.cached_vectors(self.path, model, want, self._retry).items()}
        new = self._embed_missing({h: t for h, t in want.items() if h not in out}, progress)
        if new:
            db.add_vectors(self.home, model, new, timeout=float(self._opt("lock_timeout")), retry=self._retry)
            out.update((h, np.frombuffer(b, dtype=np.float32)) for h, b in new.items())
        return out, len(new)

    def close(self) -> None:
        """Drop the in-memory snapshot (and the as-of views that lean on it)."""
        while self._asof:
            self._asof.popitem()[1].close()
        if self._snap is not None:
            self._snap.close()
            self._snap = None

    def _fresh(self, state, tips: dict[str, str], pending_ok: bool = False) -> bool:
        meta, cursors = state
        if pending_ok and meta.get("vec_pending") == self.model_id:
            return cursors == tips
        return cursors == tips and (self.model_id is None or meta.get("vec_model") == self.model_id)

    def ensure_fresh(self, tips: dict[str, str] | None = None, progress: Progress | None = None,
                     embed_limit: int | None = None, lock: ContextManager[Any] | None = None) -> bool:
        """Bring the file up to date with every scope tip; True if anything changed.
        With `embed_limit`, vectors beyond it are left pending (see snapshot). `lock`:
        what serialises this Index's users (a daemon's recall lock, not held by the
        caller), then held to read git and this object's state but never while waiting for
        the file's lock or writing the file (a recall under it may take the file's lock)."""
        if lock is not None:
            return self._fresh_beside(lock, progress, embed_limit)
        tips = self._tips() if tips is None else tips
        state = db.read_state(self.path, self._retry)
        pending_ok = embed_limit is not None
        if state is not None and self._fresh(state, tips, pending_ok):
            self._caught_up(tips)
            return False
        with self._file_lock():
            # Another process may have done the work while we waited for the lock.
            tips = self._tips()
            state = db.read_state(self.path, self._retry)
            if state is not None and self._fresh(state, tips, pending_ok):
                self._caught_up(tips)
                return False
            self._build(state, tips, progress, new_file=state is None, embed_limit=embed_limit)
            self._caught_up(tips)
            return True

    def _fresh_beside(self, lock: ContextManager[Any], progress: Progress | None, embed_limit: int | None) -> bool:
        """ensure_fresh beside queries on other threads (the daemon's index worker)."""
        state = db.read_state(self.path, self._retry)
        with lock:
            tips = self._tips()
            if state is not None and self._fresh(state, tips, embed_limit is not None):
                self._caught_up(tips)
                return False
            planned = self._planned(None if state is None else state[1], tips)
        with self._file_lock():
            same = db.read_state(self.path, self._retry) == state
            if same:
                self._build(state, tips, progress, new_file=state is None, embed_limit=embed_limit, planned=planned)
        with lock:
            if not same:   # another process wrote meanwhile: the whole catch-up under the lock
                return self.ensure_fresh(progress=progress, embed_limit=embed_limit)
            self._caught_up(tips)
        return True

    @contextlib.contextmanager
    def _file_lock(self) -> Iterator[None]:
        try:
            flock = file_lock(db.lock_path(self.home), timeout=float(self._opt("lock_timeout")))
            flock.__enter__()
        except ConflictError as e:
            raise IndexError_("the index is busy: another process has been building it for too long",
                              hint="retry, or run `gitmem reindex` once it finishes") from e
        try:
            yield
        finally:
            flock.__exit__(None, None, None)

    def _caught_up(self, tips: dict[str, str]) -> None:
        """The file stands at `tips`: what the snapshot applied in memory up to them is durable."""
        if self._snap is None or self._snap.cursors == tips:
            self._ahead = 0
            self._fresh_vecs.clear()

    def rebuild(self, progress: Progress | None = None) -> dict[str, Any]:
        """Rebuild into a new file and swap it in (`gitmem reindex`)."""
        with file_lock(db.lock_path(self.home), timeout=float(self._opt("lock_timeout"))):
            self._build(None, self._tips(), progress, new_file=True)
        self.close()
        return dict(self.last_build)

    # ---- building -----------------------------------------------------------------
    def _plan(self, cursors: dict[str, str], tips: dict[str, str]):
        """Paths to drop and chunks to add, per scope, by diffing cursors against tips."""
        max_lines, max_chars = int(self._opt("chunk_lines")), int(self._opt("chunk_chars"))
        drops: list[tuple[str, str]] = []     # (scope, path)
        drop_scopes: list[str] = [s for s in cursors if s not in tips]
        chunks: list[Chunk] = []
        for scope, tip in tips.items():
            old = cursors.get(scope)
            if old == tip:
                continue
            if old is not None and not self.git.has_commit(old):
                drop_scopes.append(scope)   # history was rewritten (forget): index afresh
                old = None
            for status, path, oid in self.git.diff_files(old, tip):
                if old is not None:
                    drops.append((scope, path))
                if status != "D" and oid and indexable(path):
                    chunks.extend(chunks_of(scope, path, self.git.blob(oid, path), max_lines, max_chars))
        return drops, drop_scopes, chunks

    def _embed_missing(self, texts: dict[str, str], progress: Progress | None) -> dict[str, bytes]:
        """hash -> vector bytes for the given (hash -> text), embedding in batches."""
        out: dict[str, bytes] = {}
        if not texts or self.embedder is None:
            return out
        # Similar lengths batched together waste less padding (about 2x faster here).
        items = sorted(texts.items(), key=lambda kv: (len(kv[1]), kv[0]))
        batch = 256
        bar = progress(len(items), "embedding") if progress and len(items) > batch else None
        ctx = bar if bar is not None else _NullBar()
        with ctx as b:
            for i in range(0, len(items), batch):
                part = items[i : i + batch]
                vecs = np.asarray(self.embedder.embed([t for _, t in part]), dtype=np.float32)
                for (h, _), v in zip(part, vecs):
                    out[h] = v.tobytes()
                b.update(len(part))
        return out

    def _planned(self, cursors: dict[str, str] | None, tips: dict[str, str]) -> tuple:
        """_plan, in the snapshot's order, and the vectors computed in memory for it."""
        drops, drop_scopes, chunks = self._plan(cursors or {}, tips)
        if self._ahead and self._snap is not None and self._snap.cursors == tips:
            # The rows in memory came in write order: the file numbers them the same way,
            # so a fresh load breaks ties between equal scores as this process did.
            chunks = overlay.in_snapshot_order(self._snap, chunks)
        return drops, drop_scopes, chunks, dict(self._fresh_vecs)

    def _build(self, state, tips: dict[str, str], progress: Progress | None, new_file: bool,
               embed_limit: int | None = None, planned: tuple | None = None) -> None:
        t0 = time.perf_counter()
        meta = {} if state is None else state[0]
        drops, drop_scopes, chunks, fresh_vecs = planned or self._planned(
            None if new_file or state is None else state[1], tips)
        target = self.path
        if new_file:
            db.remove_stale_builds(self.path)
            target = self.path.with_name(f".{db.INDEX_NAME}.{os.getpid()}.tmp")
            for p in (target, Path(str(target) + ".wal")):
                p.unlink(missing_ok=True)
        # Which vectors exist already: in this file, or (rebuilding) in the old one.
        model = self.model_id
        retry = self._retry
        known: set[str] = set()
        need_fill: list[tuple[str, str]] = []
        # (A catch-up needs no check: a file that does not open fails the write below.)
        source = self.path if self.path.exists() and (not new_file or db.readable(self.path, retry)) else None
        if model and source is not None:
            known = db.known_hashes(source, model, retry, {c.hash for c in chunks} if not new_file else None)
        if model and not new_file and meta.get("vec_model") != model and not (
                embed_limit is not None and meta.get("vec_pending") == model):
            # The model changed (or came back): vectors for everything already indexed.
            need_fill = db.texts_without_vectors(source, model, known, retry) if source else []
        wanted = {c.hash: c.text for c in chunks if c.hash not in known}
        wanted.update({h: t for h, t in need_fill if h not in known})
        # Vectors the snapshot computed for these changes already (overlay.py).
        ready = {h: fresh_vecs[h] for h in wanted if h in fresh_vecs} if model else {}
        wanted = {h: t for h, t in wanted.items() if h not in ready}
        pending = embed_limit is not None and model is not None and len(wanted) > embed_limit
        fresh = {} if pending else self._embed_missing(wanted, progress)
        vectors = {**ready, **fresh}
        con = db.connect(target, read_only=False, retry=retry)
        try:
            for stmt in db.SCHEMA:
                con.execute(stmt)
            if new_file and source is not None:
                db.copy_cache(con, source)
            if new_file and self.path.exists():
                catalog.copy_from(con, self.path)
            con.execute("BEGIN")
            db.write_batch(con, drops, drop_scopes, chunks, vectors, model)
            con.execute("DELETE FROM cursors")
            con.execute("INSERT INTO cursors SELECT unnest(?::VARCHAR[]), unnest(?::VARCHAR[])",
                        [list(tips), list(tips.values())])
            # vec_model names the model every chunk has a vector of; vec_pending, the
            # model whose vectors some chunks still wait for (words indexed already).
            still = pending or (embed_limit is not None and not new_file and model is not None
                                and meta.get("vec_pending") == model and meta.get("vec_model") != model)
            db.set_meta(con, schema=db.SCHEMA_VERSION, vec_model="" if still else (model or ""),
                        vec_pending=(model or "") if still else "", updated=str(time.time()))
            con.execute("COMMIT")
            con.execute("CHECKPOINT")
        except BaseException:
            try:
                con.execute("ROLLBACK")
            except Exception:
                pass
            con.close()
            if new_file:
                target.unlink(missing_ok=True)
            raise
        con.close()
        if new_file:
            Path(str(self.path) + ".wal").unlink(missing_ok=True)
            os.replace(target, self.path)
        self.last_build = {"chunks": len(chunks), "embedded": len(fresh), "dropped_paths": len(drops),
                           "pending": len(wanted) if pending else 0,
                           "seconds": round(time.perf_counter() - t0, 3), "rebuilt": new_file}

    # ---- vectors in the background (Recaller.catch_up with a lock) -------------------
    def pending_texts(self) -> dict[str, str]:
        """hash -> text of the indexed chunks still waiting for a vector of this model
        ({} when there is no model or file, or every chunk has one). Embeds nothing."""
        model = self.model_id
        if model is None:
            return {}
        state = db.read_state(self.path, self._retry)
        if state is None or state[0].get("vec_model") == model:
            return {}
        return dict(db.texts_without_vectors(self.path, model, set(), self._retry))

    def embed_texts(self, texts: dict[str, str]) -> dict[str, bytes]:
        """hash -> vector bytes by the model alone: touches neither the file nor the
        snapshot, so it may run beside queries on this Index in other threads."""
        return self._embed_missing(texts, None)

    def add_vectors(self, vectors: dict[str, bytes]) -> None:
        """Keep computed vectors in the file's embedding cache (under the index lock): the
        next snapshot() takes them from there instead of embedding."""
        if vectors and self.model_id is not None:
            db.add_vectors(self.home, self.model_id, vectors, timeout=float(self._opt("lock_timeout")),
                           retry=self._retry)

    # ---- maintenance for other features --------------------------------------------
    def drop_ids(self, ids: Iterable[str]) -> int:
        """Remove memories (and their now unreferenced vectors) from the index; returns
        the number of chunks removed. Used by forget so no trace stays in the index."""
        return db.drop_ids(self.home, ids, config=self.config)

    def vectors_for(self, ids: Iterable[str], scopes: Sequence[str] | None = None) -> dict[str, np.ndarray]:
        """id -> L2-normalised mean vector of its chunks (for near-duplicate detection)."""
        return mean_vectors(self.snapshot(), ids, scopes)

    def status(self, tips: dict[str, str] | None = None) -> dict[str, Any]:
        """Indexed counts and lag (commits behind each scope tip), without building."""
        tips = self._tips() if tips is None else tips
        # The state and counts are functions of the file: a daemon asks again only after it changed.
        stamp = tuple((st.st_ino, st.st_mtime_ns, st.st_size) for st in (os.stat(p) for p in (
            self.path, Path(str(self.path) + ".wal")) if p.exists()))
        if not stamp or self._state_memo is None or self._state_memo[0] != stamp:
            self._state_memo = (stamp, db.read_state(self.path, self._retry))
        state = self._state_memo[1]
        info: dict[str, Any] = {"index": str(self.path), "index_exists": state is not None}
        cursors = state[1] if state else {}
        info["lag"] = {scope: self._lag(cursors.get(scope), tip) for scope, tip in tips.items()}
        counts = {"indexed": 0, "chunks": 0, "vectors": 0}
        if state is not None:
            key = (tuple(sorted(cursors.items())), tuple(sorted(state[0].items())), self.model_id, stamp)
            try:
                if self._counts is None or self._counts[0] != key:
                    self._counts = (key, db.counts(self.path, self.model_id, self._retry))
                counts = dict(self._counts[1])
            except Exception:
                info["index_exists"] = False
        info.update(counts)
        return info

    def _lag(self, cursor: str | None, tip: str) -> int:
        """Commits on the tip that the index has not seen (all of them if never indexed)."""
        if cursor == tip:
            return 0
        try:
            if cursor is not None and self.git.has_commit(cursor):
                ahead, _ = self.git.ahead_behind(tip, cursor)
                return int(ahead)
        except Exception:
            pass
        return sum(1 for _ in itertools.islice(self.git.walk([tip]), 100000))
