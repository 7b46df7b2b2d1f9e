"""Hybrid recall: BM25 and vector rankings fused, then optional MMR, recency decay and an
importance boost. Every weight is in config section [recall]; defaults below.

The fusion was chosen by measurement on the LoCoMo development split
(benchmarks/recall_locomo.py, table in BENCHMARKS.md), not by taste."""

from __future__ import annotations

import atexit
import shutil
import tempfile
import time
from collections import OrderedDict
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, ContextManager

import numpy as np

from gitmem.core.errors import UsageError
from gitmem.core.model import parse_when
from gitmem.core.tokens import tokenize
from gitmem.index import Index, Progress, Snapshot, embed, index_home_problem
from gitmem.policy import access
from gitmem.recall import currency
from gitmem.recall.dates import favour_window, query_window
from gitmem.recall.hits import Hit
from gitmem.recall.neighbours import Neighbours
from gitmem.recall.ranking import bm25_scale, finish, fuse
from gitmem.recall.relevance import cjk_share, far_in_meaning, has_cjk, query_view, scorer
from gitmem.recall.request import RecallRequest, RecallResult
from gitmem.recall.vectors import mmr_rerank, vector_top

if TYPE_CHECKING:
    from gitmem.memories.service import Memories

__all__ = ["Hit", "Recaller", "VECTOR_FLOORS", "mmr_rerank", "vector_top"]

# The [recall] settings and their documented defaults are in gitmem.config.SCHEMA
# (BENCHMARKS.md "Recall settings" says why each has its value).

# What each model reads. An English-only model matches Chinese to Chinese mostly by
# shared characters, worse than BM25's bigrams do (BENCHMARKS.md, Chinese set: vector
# alone R@5 0.67 against BM25 0.89), so by default a CJK query's fusion takes BM25's
# scores alone (vector rank still orders what BM25 leaves unscored) unless the model
# is multilingual. Unknown models are taken as multilingual (no penalty).
MODEL_LANGUAGES: dict[str, str] = {
    "sentence-transformers/all-MiniLM-L6-v2": "en",
    "BAAI/bge-small-en-v1.5": "en",
    "BAAI/bge-base-en-v1.5": "en",
    "sentence-transformers/paraphrase-multilingual-MiniLM-L12-v2": "multilingual",
    "intfloat/multilingual-e5-small": "multilingual",
    "BAAI/bge-small-zh-v1.5": "zh",
}
# recall(timeout_ms=...): texts assumed embeddable per second when deciding whether to
# embed new memories inside the query (all-MiniLM-L6-v2 int8: ~170/s on 2 cores).
EMBED_RATE_GUESS = 100.0

# catch_up(lock=...), in the background: texts embedded per step without the lock (all-
# MiniLM-L6-v2 int8: ~0.2 s), new texts embedded inline with the words, and seconds of
# embedding between two writes of vectors to the index's cache.
BACKGROUND_BATCH = 32
BACKGROUND_INLINE = 8
BACKGROUND_FLUSH = 2.0

# A query is "CJK" when at least this share of its letters are CJK characters.
CJK_QUERY_SHARE = 0.5

# Vector-side floors per model: a vector hit below its model's cosine floor is only
# kept when BM25 found it too. Cosines are not comparable across models, hence per model.
VECTOR_FLOORS: dict[str, float] = {
    "sentence-transformers/all-MiniLM-L6-v2": 0.2,   # unrelated text measured up to 0.15
    # Not measured here (no network for these models): starting points, override with
    # [recall.vector_floors] "model id" = value.
    "sentence-transformers/paraphrase-multilingual-MiniLM-L12-v2": 0.25,
    "BAAI/bge-small-zh-v1.5": 0.35,
    "BAAI/bge-small-en-v1.5": 0.45,
    "fake": 0.05,
}


class Recaller:
    """Recall over one store. Keeps the model, the index view and a query-vector cache
    warm for as long as the Store lives (the API, a daemon, the MCP server)."""

    def __init__(self, svc: "Memories"):
        self.svc = svc
        self.config = svc.config
        self._embedder = None
        self._embed_reason: str | None = None
        self._loaded = False
        self._index: Index | None = None
        self._qcache: OrderedDict[str, np.ndarray] = OrderedDict()
        self.neighbours = Neighbours()
        self.rows_by_id = currency.RowsById()

    def opt(self, key: str) -> Any:
        return self.config.get("recall", key)

    # ---- parts --------------------------------------------------------------------
    def embedder(self):
        """The embedding model, loaded on first use; None means BM25 only."""
        if not self._loaded:
            self._embedder, self._embed_reason = embed.load_embedder(self.config)
            self._loaded = True
        return self._embedder

    @property
    def backend(self) -> str:
        return "hybrid" if self.embedder() is not None else "bm25"

    @property
    def index(self) -> Index:
        """The store's derived index, with this recaller's embedder."""
        if self._index is None:
            home = Path(self.svc.home)
            problem = index_home_problem(home)
            if problem is not None:
                # Degrade, do not fail: a private index in a temporary folder for this
                # process (built from git, so the answer is the same), and one warning.
                home = Path(tempfile.mkdtemp(prefix="gitmem-index-"))
                atexit.register(shutil.rmtree, home, True)
                self.svc.warn(f"{problem}; using a temporary index for this command (`gitmem doctor`)")
            self._index = Index(home, self.svc.git, self.config, self.embedder())
        return self._index

    def vector_floor(self) -> float:
        """The cosine below which a vector-only candidate is dropped (per model)."""
        emb = self.embedder()
        if emb is None:
            return 1.0
        floors = dict(VECTOR_FLOORS)
        floors.update(self.config.get("recall", "vector_floors", {}) or {})
        mid = emb.model_id
        return float(floors.get(mid, floors.get(mid.split("-", 1)[0], 0.0)))

    def model_languages(self) -> str | None:
        """"en", "zh", "multilingual" (or unknown: None) for the loaded model."""
        emb = self.embedder()
        if emb is None:
            return None
        mid = emb.model_id
        return MODEL_LANGUAGES.get(mid) or ("en" if mid.endswith("-en-v1.5") else None)

    def vector_weight(self, query: str) -> tuple[float, str | None]:
        """The vector side's weight for this query, and a note when the language cut it:
        [recall] vector_weights (per model), else w_vector; times the model's
        cjk_vector_weights share for a query in a CJK script."""
        emb = self.embedder()
        wv = float(self.opt("w_vector"))
        if emb is None:
            return wv, None
        wv = float((self.opt("vector_weights") or {}).get(emb.model_id, wv))
        if cjk_share(query) < CJK_QUERY_SHARE:
            return wv, None
        langs = self.model_languages()
        default = 0.0 if langs == "en" else 1.0
        share = float((self.opt("cjk_vector_weights") or {}).get(emb.model_id, default))
        if share >= 1.0:
            return wv, None
        return wv * share, (f"CJK query and an English-only model ({emb.model_id}): "
                            f"{'BM25 alone' if share == 0 else f'vector side at {share:g} x'}")

    def query_vector(self, query: str) -> np.ndarray | None:
        """The embedding of `query` (cached for the last 256 queries); None without a model."""
        emb = self.embedder()
        if emb is None:
            return None
        v = self._qcache.get(query)
        if v is None:
            v = np.asarray(emb.embed([query])[0], dtype=np.float32)
            self._qcache[query] = v
            if len(self._qcache) > 256:
                self._qcache.popitem(last=False)
        else:
            self._qcache.move_to_end(query)
        return v

    # ---- the query ----------------------------------------------------------------
    def run(self, req: RecallRequest, progress: Progress | None = None) -> RecallResult:
        """The top `req.k` hits for `req.query` (see RecallRequest), and how it ran.
        Hits cite the commit each scope stood at (with `at`, then: recency counts from
        that instant, forgotten memories stay out and no use is recorded). While
        vectors are pending under `timeout_ms` the answer is BM25 only (info["vectors"]
        says so; `catch_up` embeds them); info["note"] says why nothing was found."""
        query, k, explain, at, timeout_ms = req.query, req.k, req.explain, req.at, req.timeout_ms
        if not isinstance(query, str) or not query.strip():
            raise UsageError("empty query", hint="give some words to search for")
        if k < 1:
            raise UsageError("k must be at least 1")
        t0 = time.perf_counter()
        chosen = self.svc.scopes_for_read(list(req.scopes) if req.scopes else None, req.all_scopes, req.cwd)
        types = list(req.types) if req.types else None
        since, archived = req.since, req.archived
        since_ts = since if isinstance(since, (int, float)) or since is None else parse_when(str(since)).timestamp()
        want = req.mode or ("hybrid" if self.embedder() is not None else "bm25")
        if want not in ("hybrid", "bm25", "vector"):
            raise UsageError(f"unknown recall mode {want!r}", hint="hybrid, bm25 or vector")
        if want != "bm25" and self.embedder() is None:
            want = "bm25"
        at_info: dict[str, Any] | None = None
        now = None
        if at is not None:
            from gitmem.recall import timetravel

            asof = timetravel.resolve(self.svc, at, chosen)
            then = [s for s in chosen if s in asof.revs] + [s for s in asof.revs if s not in chosen]
            at_info = {"at": at, "time": asof.iso(), "commits": {s: asof.revs[s].id for s in then},
                       "rev_scope": asof.rev_scope}
            if not then:
                return RecallResult([], {"backend": want, "reason": self._embed_reason, "scopes": [], "at": at_info,
                                         "note": timetravel.empty_note(self.svc, asof, chosen),
                                         "ms": (time.perf_counter() - t0) * 1000})
            chosen, now = then, asof.time
            snap, at_info["index"] = self.index.snapshot_at(
                {s: asof.revs[s].id for s in then}, asof.forgotten, progress=progress)
        elif timeout_ms is not None:
            limit = int(max(0.0, float(timeout_ms)) / 1000.0 * EMBED_RATE_GUESS) if self.embedder() else None
            snap = self.index.snapshot(progress=progress, embed_limit=limit)
        else:
            snap = self.index.snapshot(progress=progress)
        pending = snap.pending if at is None else 0
        if pending and want != "bm25":
            want = "bm25"
        if types is None and "quarantine" in snap.type_codes:
            # Flagged as possible prompt injection by extract: never recalled unless asked for.
            types = [t for t in snap.type_codes if t != "quarantine"]
        terms = tokenize(query)
        # Every score is relative to the top `candidates` of each ranking, never to how
        # many hits were asked for: a deeper list (k > candidates) only appends.
        ref = int(self.opt("candidates"))
        # Newer statements move above older ones among the first WINDOW hits whatever k
        # is (a small k shows the first hits of a larger one: the same depth and list).
        shown = max(k, currency.WINDOW) if self.opt("prefer_newer") else k
        depth = max(ref, shown)

        # Superseded memories (gitmem.memories.succession) lend their match to their
        # successors (currency.carry): archived ones are ranked too, only to lend.
        hidden = currency.hidden_map(self.svc, chosen, asof.revs if at is not None else None)
        by_id: dict[str, list[int]] = {}
        lenders: list[int] = []
        live = None
        if hidden:
            by_id = self.rows_by_id.of(snap)
            live = snap.mask(chosen, types, since_ts, archived)
            if not archived:
                lenders = self.rows_by_id.lenders(snap, hidden, live, snap.mask(chosen, types, since_ts, True),
                                                  (tuple(chosen), tuple(types or ()), since_ts))
        bm: list[tuple[int, float]] = []
        mass = 0.0  # what the query's words could score in BM25 (bm25_confidence)
        if want in ("hybrid", "bm25"):
            bm, mass = snap.bm25_mass(terms, chosen, types, since_ts, archived, float(self.opt("bm25_k1")),
                                      float(self.opt("bm25_b")), depth, also=lenders)
        vec: list[tuple[int, float]] = []
        qv = None
        if want in ("hybrid", "vector") and snap.vectors is not None:
            qv = self.query_vector(query)
            vmask = live.copy() if live is not None else snap.mask(chosen, types, since_ts, archived)
            if lenders:
                vmask[[snap.row_of[d] for d in lenders]] = True
            vec = vector_top(snap, qv, vmask, depth)
        wv, lang_note = self.vector_weight(query)
        # Under the language rule BM25 is scaled from 0, not from its last hit: with a
        # short BM25 list the last one would score 0 and fall behind vector-only docs.
        bm_scale = bm25_scale(self.opt, bm, mass, want, wv)
        fused, parts, kept = fuse(self.opt, self.vector_floor(), bm, vec, want, ref, wv, bm25_from_zero=lang_note is not None,
                                        bm_scale=bm_scale)
        boosts: dict[int, str] | None = {} if explain else None  # why a hit was lifted (--explain)
        heirs = currency.carry(snap, by_id, hidden, fused, parts, live, lenders, boosts) if hidden else {}
        nw, dw = float(self.opt("neighbour_weight")), float(self.opt("date_weight"))
        window = query_window(query, time.time() if now is None else now) if dw > 0 else None
        # Neighbours share in hybrid and BM25 rankings (measured there); raw cosines are
        # too close together for a share of one to mean anything.
        nw = nw if want != "vector" else 0.0
        lent: dict[int, int] = {}   # borrower -> lender, and memories of the named period:
        dated: set[int] = set()     # both carry relevance over (gitmem.recall.relevance)
        if (nw > 0 and fused) or window:
            allowed = snap.mask(chosen, types, since_ts, archived)
            if nw > 0:
                self.neighbours.share(snap, fused, allowed, nw, boosts, both_sides=self.opt("neighbours") != "next",
                                      cap=int(self.opt("neighbour_lenders")), lent=lent)
            if window:
                dated = favour_window(snap, fused, allowed, window, dw, boosts)
        # Relevance (gitmem.recall.relevance): by words alone when the vector side has no
        # say (BM25 mode, a CJK query under the language rule), by meaning in vector mode.
        side = "meaning" if want == "vector" else "words" if want == "bm25" or wv <= 0 or qv is None else "hybrid"
        # Chinese judged by words unless the model reads it (gitmem.recall.relevance, "cjk").
        if side != "meaning" and has_cjk(query) and (side == "words" or self.model_languages() == "en"):
            side = "cjk"
        view = query_view(snap, terms, chosen, bm[:ref], mass, vec, self.vector_floor(), known=side == "cjk",
                          query=query, form=side == "hybrid")
        floor = float(self.opt("min_relevance") if req.min_relevance is None else req.min_relevance)
        depth_hits = shown + currency.spare(set(hidden), shown)
        hits = finish(self.opt, snap, fused, bm, vec, qv, terms, depth_hits, want, req.mmr,
                      explain, now=now, ref=ref, parts=parts, kept=kept, boosts=boosts,
                      lang_note=lang_note if want == "hybrid" else None, bm_scale=bm_scale,
                      rel=currency.inherit(scorer(snap, bm[:ref], mass, qv, side, lent, nw, dated,
                                                  self.vector_floor(), view,
                                                  cjk_blind=self.model_languages() == "en"), heirs),
                      floor=floor)
        hits = currency.settle(hits, hidden, k, include_superseded=req.include_superseded,
                               prefer_newer=bool(self.opt("prefer_newer")), snap=snap, terms=terms)
        info: dict[str, Any] = {"backend": want, "reason": self._embed_reason,
                                "ms": (time.perf_counter() - t0) * 1000, "scopes": chosen}
        if explain:
            info["relevance"] = {"side": side, **view.as_dict(), "far": far_in_meaning(side, view)}
        if fused and not hits:
            info["note"] = (f"nothing relevant enough (every candidate below min_relevance {floor:g}; "
                            "--min-relevance 0 shows them)")
        if lang_note and want == "hybrid":
            info["language"] = lang_note
        if req.include_superseded and any(h.id in hidden for h in hits):
            info["superseded"] = {h.id: list(hidden[h.id]) for h in hits if h.id in hidden}
        if timeout_ms is not None or pending:
            info["vectors"] = {"ready": not pending, "pending": pending}
            if pending:
                info["note"] = (f"vectors for {pending} chunk(s) are not ready: BM25 only "
                                "(the next recall without --timeout, or `gitmem reindex`, embeds them)")
        # Redacted again on the way out: a secret that reached the store by a hand edit or
        # plain git is not handed on.
        red = self.svc.redactor()
        hits = [h.redacted(red) for h in hits]
        if at_info is not None:
            info["at"] = at_info
            return RecallResult(hits, info)  # a look back is not a use of what is known now
        if req.record and hits:
            access.record(self.svc.home, [h.id for h in hits], "recall")
        return RecallResult(hits, info)


    def neighbour_rows(self, snap: Snapshot) -> tuple[np.ndarray, np.ndarray]:
        """(previous, next) row of each snapshot row: see Neighbours.rows."""
        return self.neighbours.rows(snap)

    def catch_up(self, progress: Progress | None = None, *, lock: ContextManager[Any] | None = None,
                 stop: Callable[[], bool] | None = None) -> dict[str, Any]:
        """Index what git has and the index lacks, and embed what a recall under a
        timeout left pending: {"chunks", "pending", "embedded"}.

        lock: what serialises this recaller's users (a daemon's, an MCP server's
        threads). Held to read and write the index, never while the model embeds: a
        query beside this waits one short step at most, and with `timeout_ms` answers
        by words while vectors are pending. Vectors are kept in the index's cache as
        they come (every BACKGROUND_FLUSH seconds), so a process that stops mid-way
        loses little. stop() is asked between batches; True leaves the rest pending."""
        if lock is None:
            snap = self.index.snapshot(progress=progress)
            self.index.ensure_fresh(progress=progress)  # the file too, not only the view in memory
            return {"chunks": snap.size, "pending": snap.pending,
                    "embedded": self.index.last_build.get("embedded", 0)}
        embedded = 0
        kept: set[str] = set()  # hashes written to the cache by this call
        while True:
            with lock:
                if stop is not None and stop():
                    return {"chunks": self.index.warm_size, "pending": None, "embedded": embedded, "stopped": True}
            # Words now (and the vectors of a handful of new texts); the rest waits. The lock
            # is held to read git, not while the file is written (a recall goes on meanwhile).
            self.index.ensure_fresh(embed_limit=BACKGROUND_INLINE if self.embedder() else None, lock=lock)
            with lock:
                todo = self.index.pending_texts()
                if not todo:
                    snap = self.index.snapshot()  # the pending mark goes, the vectors load
                    return {"chunks": snap.size, "pending": snap.pending, "embedded": embedded}
                if kept.issuperset(todo):  # written, yet still missing: do not spin on it
                    return {"chunks": self.index.warm_size, "pending": len(todo), "embedded": embedded}
            items = sorted(todo.items(), key=lambda kv: (len(kv[1]), kv[0]))
            done: dict[str, bytes] = {}
            flush_at = time.monotonic() + BACKGROUND_FLUSH
            for i in range(0, len(items), BACKGROUND_BATCH):
                if (stop is not None and stop()) or time.monotonic() > flush_at:
                    break
                done.update(self.index.embed_texts(dict(items[i:i + BACKGROUND_BATCH])))
            with lock:
                self.index.add_vectors(done)
            embedded += len(done)
            kept.update(done)

    # ---- status -------------------------------------------------------------------
    def warm(self, embed_limit: int | None = None) -> None:
        """Load the model and catch the index up now (a daemon, before its first
        client); with embed_limit, vectors beyond it are left pending (catch_up)."""
        self.embedder()
        self.index.snapshot(embed_limit=embed_limit if self._embedder is not None else None)

    def warm_state(self) -> dict[str, Any]:
        """What is loaded now, loading nothing: model, backend, chunks in memory (and
        how many of them wait for a vector)."""
        emb = self._embedder
        return {"model": emb.model_id if emb is not None else None,
                "backend": "hybrid" if emb is not None else "bm25",
                "snapshot_chunks": self._index.warm_size if self._index is not None else 0,
                "snapshot_pending": self._index.warm_pending if self._index is not None else 0}

    def close(self) -> None:
        """Drop the in-memory index snapshot."""
        if self._index is not None:
            self._index.close()

    def status(self) -> dict[str, Any]:
        """Backend, model, index counts and lag, and a note when recall is degraded."""
        emb = self.embedder()
        info = self.index.status()
        out: dict[str, Any] = {
            "backend": "hybrid" if emb is not None else "bm25",
            "model": emb.model_id if emb is not None else None,
            "indexed": info.get("indexed", 0),
            "index_chunks": info.get("chunks", 0),
            "index_vectors": info.get("vectors", 0),
            # Chunks indexed by their words and waiting for a vector (recall --timeout
            # answers them by BM25 meanwhile; a daemon embeds them in the background).
            "index_pending": max(0, info.get("chunks", 0) - info.get("vectors", 0)) if emb is not None else 0,
            "index_lag": info.get("lag", {}),
            "index_path": info.get("index"),
        }
        notes = []
        if emb is None:
            notes.append(f"recall is BM25 only: {self._embed_reason}")
        if not info.get("index_exists"):
            notes.append("no index yet: the next recall builds it")
        elif any(info.get("lag", {}).values()):
            notes.append("index behind some scopes: the next recall catches up")
        out["index_note"] = "; ".join(notes) or None
        langs = self.model_languages()
        out["languages"] = None if emb is None else (
            "English only: queries in Chinese, Japanese or Korean use BM25 (character bigrams and "
            "single characters) alone; a multilingual [embed] model matches them by meaning" if langs == "en"
            else "multilingual" if langs == "multilingual" else langs)
        return out

    def reindex(self, progress: Progress | None = None) -> dict[str, Any]:
        """Rebuild the index from git; without a model, try loading it again first."""
        # `reindex` is also how a user says "the model is there now": try it again.
        if self._embedder is None:
            embed.clear_failure(self.config)
            embed.forget_failures()
            self._loaded = False
            if self._index is not None:
                self._index.close()
            self._index = None
        return self.index.rebuild(progress=progress)
