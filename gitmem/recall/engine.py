"""Hybrid recall: BM25 and vector rankings fused, then optional MMR, recency decay and an
importance boost. Every weight is in config section [recall]; defaults below.

The fusion was chosen by measurement on the LoCoMo development split
(benchmarks/recall_locomo.py, table in BENCHMARKS.md), not by taste."""

from __future__ import annotations

import atexit
import datetime as dt
import re
import shutil
import tempfile
import time
import unicodedata
from collections import OrderedDict
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, ContextManager, Iterable, Sequence

import numpy as np

from gitmem.core.errors import UsageError
from gitmem.core.model import id_time, parse_when
from gitmem.core.tokens import CJK_CHAR, tokenize
from gitmem.index import Index, Progress, Snapshot, embed, index_home_problem
from gitmem.policy import access
from gitmem.recall.hits import Hit

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


def _iso(ts: float | None) -> str | None:
    if not ts:
        return None
    return dt.datetime.fromtimestamp(ts, dt.timezone.utc).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def _snippet(text: str, terms: Sequence[str], width: int = 240) -> str:
    flat = " ".join(text.split())
    if len(flat) <= width:
        return flat
    low = flat.casefold()
    pos = min((p for p in (low.find(t) for t in terms if t) if p >= 0), default=0)
    start = max(0, pos - width // 3)
    out = flat[start : start + width]
    return ("…" if start else "") + out + ("…" if start + width < len(flat) else "")


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
        self.last: dict[str, Any] = {}

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
    def recall(self, query: str, k: int = 10, scopes: Iterable[str] | None = None, *,
               all_scopes: bool = False, type: str | Sequence[str] | None = None,  # noqa: A002
               since: str | float | None = None, archived: bool = False, mode: str | None = None,
               mmr: bool | None = None, explain: bool = False, record: bool = True,
               progress: Progress | None = None, cwd: str | None = None, at: str | None = None,
               timeout_ms: float | None = None) -> list[Hit]:
        """Top-k hits for `query` in the given scopes (default: the linked project of
        `cwd`, the default scope and main).

        mode: "hybrid" (default when a model loads), "bm25" or "vector".
        at: a revision or date: search the memory as it stood then (see
        gitmem.timetravel); hits cite the commit each scope stood at, recency counts
        from that instant, forgotten memories stay out, and no use is recorded.
        timeout_ms: never wait on embedding more than fits in about this long: new
        memories are indexed by their words at once and, while vectors are pending,
        the answer is BM25 only (`last["vectors"]` says so; `catch_up` embeds them).
        `last["at"]` says what was searched; `last["note"]` why nothing was."""
        if not isinstance(query, str) or not query.strip():
            raise UsageError("empty query", hint="give some words to search for")
        if k < 1:
            raise UsageError("k must be at least 1")
        t0 = time.perf_counter()
        chosen = self.svc.scopes_for_read(list(scopes) if scopes else None, all_scopes, cwd)
        types = [type] if isinstance(type, str) else (list(type) if type else None)
        since_ts = since if isinstance(since, (int, float)) or since is None else parse_when(str(since)).timestamp()
        want = mode or ("hybrid" if self.embedder() is not None else "bm25")
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
                self.last = {"backend": want, "reason": self._embed_reason, "scopes": [], "at": at_info,
                             "note": timetravel.empty_note(self.svc, asof, chosen),
                             "ms": (time.perf_counter() - t0) * 1000}
                return []
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
        depth = max(ref, k)

        bm: list[tuple[int, float]] = []
        mass = 0.0  # what the query's words could score in BM25 (bm25_confidence)
        if want in ("hybrid", "bm25"):
            bm, mass = snap.bm25_mass(terms, chosen, types, since_ts, archived, float(self.opt("bm25_k1")),
                                      float(self.opt("bm25_b")), depth)
        vec: list[tuple[int, float]] = []
        qv = None
        if want in ("hybrid", "vector") and snap.vectors is not None:
            qv = self.query_vector(query)
            vec = vector_top(snap, qv, snap.mask(chosen, types, since_ts, archived), depth)
        wv, lang_note = self.vector_weight(query)
        # Under the language rule BM25 is scaled from 0, not from its last hit: with a
        # short BM25 list the last one would score 0 and fall behind vector-only docs.
        bm_scale = self.bm25_scale(bm, mass, want, wv)
        fused, parts, kept = self._fuse(bm, vec, want, ref, wv, bm25_from_zero=lang_note is not None,
                                        bm_scale=bm_scale)
        boosts: dict[int, str] | None = {} if explain else None  # why a hit was lifted (--explain)
        nw, dw = float(self.opt("neighbour_weight")), float(self.opt("date_weight"))
        window = query_window(query, time.time() if now is None else now) if dw > 0 else None
        # Neighbours share in hybrid and BM25 rankings (measured there); raw cosines are
        # too close together for a share of one to mean anything.
        nw = nw if want != "vector" else 0.0
        if (nw > 0 and fused) or window:
            allowed = snap.mask(chosen, types, since_ts, archived)
            if nw > 0:
                self._share_with_neighbours(snap, fused, allowed, nw, boosts)
            if window:
                _favour_window(snap, fused, allowed, window, dw, boosts)
        hits = self._finish(snap, fused, bm, vec, qv, terms, k, want, mmr, explain, now=now, ref=ref,
                            parts=parts, kept=kept, boosts=boosts, lang_note=lang_note if want == "hybrid" else None,
                            bm_scale=bm_scale)
        self.last = {"backend": want, "reason": self._embed_reason, "ms": (time.perf_counter() - t0) * 1000,
                     "scopes": chosen}
        if lang_note and want == "hybrid":
            self.last["language"] = lang_note
        if timeout_ms is not None or pending:
            self.last["vectors"] = {"ready": not pending, "pending": pending}
            if pending:
                self.last["note"] = (f"vectors for {pending} chunk(s) are not ready: BM25 only "
                                     "(the next recall without --timeout, or `gitmem reindex`, embeds them)")
        if at_info is not None:
            self.last["at"] = at_info
            return hits  # a look back is not a use of what is known now
        if record and hits:
            access.record(self.svc.home, [h.id for h in hits], "recall")
        return hits

    def _fuse(self, bm: list[tuple[int, float]], vec: list[tuple[int, float]], mode: str,
              ref: int, wv: float, bm25_from_zero: bool = False, bm_scale: float = 1.0
              ) -> tuple[dict[int, float], dict[int, tuple[float, float]], set[int] | None]:
        """Fused score per candidate, each side's part of it, and the vector candidates
        kept (None: all). Only the first `ref`
        of each ranking count (and set the normalisation), so a doc's score does not
        depend on how deep the lists go."""
        wb = float(self.opt("w_bm25"))
        if mode in ("bm25", "vector"):
            # Beyond the first `ref`, 0: they follow in their ranking's order (the tie
            # break), so a boost there cannot lift one over a hit that a smaller k shows.
            ranked = bm if mode == "bm25" else vec
            out = {d: (max(s, 0.0) if i < ref else 0.0) for i, (d, s) in enumerate(ranked)}
            return out, {d: ((v, 0.0) if mode == "bm25" else (0.0, v)) for d, v in out.items()}, None
        # A vector candidate below the model's cosine floor counts only if BM25 found it
        # too, so an unrelated query returns nothing rather than noise. (Inert on
        # LoCoMo dev: measured identical for floors 0-0.3 with all-MiniLM-L6-v2.)
        floor = self.vector_floor()
        in_bm = {d for d, _ in bm[:ref]}
        kept = {d for i, (d, s) in enumerate(vec) if s >= floor or (i < ref and d in in_bm)}
        vec = [(d, s) for i, (d, s) in enumerate(vec) if i < ref and d in kept]
        parts: dict[int, list[float]] = {d: [0.0, 0.0] for d, _ in bm}
        for d in kept:
            parts.setdefault(d, [0.0, 0.0])
        if self.opt("fusion") == "linear":
            # Min-max normalise against the top `ref` of each list, then a weighted sum
            # (absent, or below the ref-th score = 0).
            norm = self.opt("norm")
            for side, (w, ranked) in enumerate(((wb, bm), (wv, vec))):
                if not ranked:
                    continue
                top = ranked[:ref]
                xs = np.fromiter((s for _, s in top), dtype=np.float64, count=len(top))
                hi, lo = xs[0], (0.0 if side == 0 and bm25_from_zero else xs[-1])
                if norm == "minmax":
                    span = hi - lo
                    vals = (xs - lo) / span if span > 0 else np.ones_like(xs)
                    if side == 0:
                        vals = vals * bm_scale
                else:
                    # By its own spread: a ranking whose top stands out weighs more.
                    sd = xs.std()
                    if sd <= 0:
                        vals = np.ones_like(xs)
                    elif norm == "std":
                        vals = (xs - lo) / sd
                    else:
                        vals = np.maximum(0.0, (xs - xs.mean()) / sd)
                for (d, _), v in zip(top, vals.tolist()):
                    parts[d][side] = w * v
        else:
            rk = float(self.opt("rrf_k"))
            for side, (w, ranked) in enumerate(((wb, bm), (wv, vec))):
                for rank, (d, _) in enumerate(ranked[:ref], 1):
                    parts[d][side] = w / (rk + rank)
        return {d: p[0] + p[1] for d, p in parts.items()}, {d: (p[0], p[1]) for d, p in parts.items()}, kept

    def bm25_scale(self, bm: list[tuple[int, float]], mass: float, mode: str, wv: float) -> float:
        """[recall] bm25_confidence: BM25's side in a min-max linear fusion is scaled by
        min(1, top score / (c0 x the query's idf mass)), so a top hit that covers little
        of what the query's words could score (one light word of several) weighs less
        against meaning. 1.0 when there is no vector side to weigh against (a CJK query
        under the language rule) or nothing to say (no hit; a negative idf in a tiny
        filtered set)."""
        c0 = float(self.opt("bm25_confidence"))
        if (mode != "hybrid" or c0 <= 0 or wv <= 0 or not bm or mass <= 0 or bm[0][1] <= 0
                or self.opt("fusion") != "linear" or self.opt("norm") != "minmax"):
            return 1.0
        return min(1.0, bm[0][1] / mass / c0)

    def _finish(self, snap: Snapshot, fused: dict[int, float], bm, vec, qv, terms, k: int, mode: str,
                mmr: bool | None, explain: bool, now: float | None = None, ref: int = 100,
                parts: dict[int, tuple[float, float]] | None = None, kept: set[int] | None = None,
                boosts: dict[int, str] | None = None, lang_note: str | None = None,
                bm_scale: float = 1.0) -> list[Hit]:
        if not fused:
            return []
        bm_s, vec_s = dict(bm), dict(vec)
        bm_rank = {d: i for i, (d, _) in enumerate(bm, 1)}
        vec_rank = {d: i for i, (d, _) in enumerate(vec, 1)}
        # Ranks that break ties: those of the candidates fusion kept (depth-independent).
        kept_rank = vec_rank if kept is None else {d: r for d, r in vec_rank.items() if d in kept}
        rw, half = float(self.opt("recency_weight")), float(self.opt("half_life_days"))
        iw = float(self.opt("importance_weight"))
        now = time.time() if now is None else now
        # Ties fall to the best rank on either side, then the doc id. Candidates are
        # scored best fused first until none left can reach the top `need` (recency and
        # importance can lift a score by at most 1 + importance_weight): the same order
        # as scoring them all, so the first N never depend on k, at a fraction of the cost.
        best_rank = {d: min(bm_rank.get(d, 1 << 30), kept_rank.get(d, 1 << 30)) for d in fused}
        # A scored doc ranked below `ref` on both sides (a date or neighbour boost brought
        # it in) ties by doc id alone: how deep the lists went must not order it.
        for d, f in fused.items():
            if f > 0 and best_rank[d] > ref:
                best_rank[d] = 1 << 30
        order = sorted(fused.items(), key=lambda kv: (-kv[1], best_rank[kv[0]], kv[0]))
        use_mmr = self.opt("mmr") if mmr is None else mmr
        need = max(k, ref) if use_mmr and snap.vectors is not None else k
        lift = 1.0 + iw
        ci = {c: i for i, c in enumerate(snap.columns)}
        c_created, c_imp, c_path, c_scope = ci["created"], ci["importance"], ci["path"], ci["scope"]
        scored: list = []
        uniq: list = []
        pos = 0
        while pos < len(order):
            batch = order[pos : pos + max(need, 16)]
            pos += len(batch)
            for d, base in batch:
                i = snap.row_of.get(d)
                if i is None:
                    continue
                row = snap.table[i]
                created = row[c_created] or now
                age_days = max(0.0, (now - created) / 86400.0)
                rec = 0.5 ** (age_days / half) if half > 0 else 1.0
                imp_f = 1.0 + iw * (min(10, max(1, int(row[c_imp] or 5))) - 5) / 5.0
                scored.append((base * (1.0 - rw + rw * rec) * imp_f, d, row, rec, imp_f, base))
            scored.sort(key=lambda x: (-x[0], best_rank[x[1]], x[1]))
            # One hit per memory: its best chunk. Journal and session files keep each chunk.
            seen: set[tuple[str, str]] = set()
            uniq = []
            for item in scored:
                row = item[2]
                if row[c_path].startswith(("memories/", "archive/")):
                    key = (row[c_scope], row[c_path])
                    if key in seen:
                        continue
                    seen.add(key)
                uniq.append(item)
            if pos < len(order) and len(uniq) >= need and order[pos][1] * lift < uniq[need - 1][0]:
                break
        if use_mmr and snap.vectors is not None and len(uniq) > 1:
            # Greedy over a pool of fixed size, so its first N picks are the same for any k.
            uniq = mmr_rerank(snap, uniq[:ref], ref, float(self.opt("mmr_lambda"))) + uniq[ref:]
        hits = []
        for final, d, row, rec, imp_f, base in uniq[:k]:
            r = dict(zip(snap.columns, row))
            ex = None
            if explain:
                part = (parts or {}).get(d, (0.0, 0.0))
                ex = {"mode": mode, "chunk": d,
                      "bm25": None if d not in bm_rank else {
                          "rank": bm_rank[d], "score": _round(bm_s[d]), "part": _round(part[0])},
                      "vector": None if d not in vec_rank else {
                          "rank": vec_rank[d], "similarity": _round(vec_s[d]), "part": _round(part[1])},
                      "bm25_confidence": _round(bm_scale) if mode == "hybrid" else None,
                      "fused": _round(base), "recency_factor": _round(1.0 - rw + rw * rec),
                      "importance_factor": _round(imp_f), "final": _round(final),
                      "why": _why(mode, bm_rank.get(d), vec_rank.get(d), vec_s.get(d), ref, part,
                                  int(r["importance"] or 5), imp_f, (boosts or {}).get(d))
                             + (f"; {lang_note}" if lang_note else "")}
            hits.append(Hit(
                id=r["mem_id"], key=r["key"], scope=r["scope"], type=r["type"], path=r["path"],
                start_line=int(r["start_line"]), end_line=int(r["end_line"]), score=round(float(final), 6),
                scores={"bm25": _round(bm_s.get(d)), "vector": _round(vec_s.get(d)),
                        "recency": round(rec, 6), "importance": int(r["importance"] or 5)},
                snippet=_snippet(r["text"], terms), commit=snap.cursors.get(r["scope"]),
                created=_iso(r["created"]), text=r["text"], explain=ex))
        return hits

    def neighbour_rows(self, snap: Snapshot) -> tuple[np.ndarray, np.ndarray]:
        """(previous, next) row of each snapshot row (-1: none): the memory beside it in
        the same session (same scope, same stated `created`, in id order — ids of one
        batch are made in order) or the chunk beside it in the same journal or session
        file. Cached per snapshot state.

        Only a `created` the source stated counts (an imported session's date, far from
        the instant in the memory's id): memories gitmem dated when it wrote them (two
        `remember`s in one second, a batch of notes without dates) are not a session."""
        key = (id(snap), snap.size, tuple(sorted(snap.cursors.items())))
        cached = getattr(self, "_nb_cache", None)
        if cached is not None and cached[0] == key:
            return cached[1]
        ci = {c: i for i, c in enumerate(snap.columns)}
        c_path, c_created, c_mem, c_scope, c_line = (ci["path"], ci["created"], ci["mem_id"], ci["scope"],
                                                     ci["start_line"])
        groups: dict[tuple, list[tuple]] = {}
        for i, row in enumerate(snap.table):
            path = row[c_path]
            if path.startswith(("memories/", "archive/")):
                created = row[c_created]
                if not created or not _stated(created, row[c_mem]):
                    continue
                g, order = (row[c_scope], "m", created), row[c_mem]
            else:
                g, order = (row[c_scope], "f", path), row[c_line]
            groups.setdefault(g, []).append((order, i))
        prev = np.full(snap.size, -1, dtype=np.int64)
        nxt = np.full(snap.size, -1, dtype=np.int64)
        for members in groups.values():
            if len(members) < 2:
                continue
            members.sort()
            rows = np.fromiter((i for _, i in members), dtype=np.int64, count=len(members))
            nxt[rows[:-1]] = rows[1:]
            prev[rows[1:]] = rows[:-1]
        self._nb_cache = (key, (prev, nxt))
        return prev, nxt

    def _share_with_neighbours(self, snap: Snapshot, fused: dict[int, float], allowed: np.ndarray,
                               weight: float, boosts: dict[int, str] | None) -> None:
        """Each candidate with a score lends `weight` of it to the memory beside it (in
        dialogue the answer is the turn after the question that matched). Only scores
        from fusion lend, so the order stays independent of k. A memory beside several
        lenders takes the largest share (ties: the first lender in fusion's order)."""
        prev, nxt = self.neighbour_rows(snap)
        sides = (nxt,) if self.opt("neighbours") == "next" else (nxt, prev)
        lenders = [(d, f) for d, f in fused.items() if f > 0]
        cap = int(self.opt("neighbour_lenders"))
        if cap and len(lenders) > cap:
            # The order fusion gives them (fused score, then doc id): independent of k.
            lenders = sorted(lenders, key=lambda kv: (-kv[1], kv[0]))[:cap]
        if not lenders:
            return
        n, ns = len(lenders), len(sides)
        src = np.fromiter((d for d, _ in lenders), dtype=np.int64, count=n)
        val = np.fromiter((f for _, f in lenders), dtype=np.float64, count=n) * weight
        rows = np.fromiter((snap.row_of.get(d, -1) for d, _ in lenders), dtype=np.int64, count=n)
        ok = rows >= 0
        # One entry per (lender, side), in the order a loop over lenders then sides takes.
        tgt = np.stack([np.where(ok, side[np.maximum(rows, 0)], -1) for side in sides], axis=1).ravel()
        val, src = np.repeat(val, ns), np.repeat(src, ns)
        keep = tgt >= 0
        keep[keep] = allowed[tgt[keep]]
        if not keep.any():
            return
        pos = np.flatnonzero(keep)
        # Largest share per target, the first such entry on ties.
        pos = pos[np.lexsort((pos, -val[pos]))]
        _, first = np.unique(tgt[pos], return_index=True)
        pick = pos[first]
        for nb, v in zip(snap.docs[tgt[pick]].tolist(), val[pick].tolist()):
            fused[nb] = fused.get(nb, 0.0) + v
        if boosts is not None:
            c_mem = snap.columns.index("mem_id")
            for nb, v, lender in zip(snap.docs[tgt[pick]].tolist(), val[pick].tolist(), src[pick].tolist()):
                boosts[nb] = f"beside {snap.table[snap.row_of[lender]][c_mem]} (+{v:.3f})"

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
            return {"chunks": snap.size, "pending": snap.pending,
                    "embedded": self.index.last_build.get("embedded", 0)}
        embedded = 0
        kept: set[str] = set()  # hashes written to the cache by this call
        while True:
            with lock:
                if stop is not None and stop():
                    return {"chunks": self.index.warm_size, "pending": None, "embedded": embedded, "stopped": True}
                # Words now (and the vectors of a handful of new texts); the rest waits.
                self.index.ensure_fresh(embed_limit=BACKGROUND_INLINE if self.embedder() else None)
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


# A `created` further than this from the instant in the memory's id was stated by its
# source (gitmem dates what it writes when the write starts; a large import takes a while).
STATED_AFTER_S = 600.0


def _stated(created: float, mem_id: str) -> bool:
    """Whether a memory's `created` was given by its source rather than by the write."""
    try:
        written = id_time(mem_id).timestamp()
    except (ValueError, TypeError, OverflowError, OSError):
        return True
    return abs(created - written) > STATED_AFTER_S


def cjk_share(text: str) -> float:
    """Share of a text's letters that are in a CJK script."""
    letters = [c for c in text if c.isalpha()]
    if not letters:
        return 0.0
    return sum(1 for c in letters if CJK_CHAR.match(c)) / len(letters)




def _why(mode: str, b: int | None, v: int | None, cos: float | None, ref: int,
         part: tuple[float, float], importance: int, imp_f: float, boost: str | None = None) -> str:
    """One line on why a hit ranked where it did."""
    bits = []
    if boost and not (part[0] or part[1]):
        return boost + ("" if importance == 5 else f"; importance {importance} (x{imp_f:.2f})")
    in_b = b is not None and b <= ref
    in_v = v is not None and v <= ref
    if mode == "bm25":
        bits.append(f"BM25 #{b}" if b else "no BM25 match")
    elif mode == "vector":
        bits.append(f"vector #{v} (cosine {cos:.2f})" if v else "no vector match")
    elif in_b and in_v:
        lead = ("weak on both" if part[0] + part[1] <= 0 else "mostly words" if part[0] >= 2 * part[1] else
                "mostly meaning" if part[1] >= 2 * part[0] else "words and meaning")
        bits.append(f"BM25 #{b} and vector #{v} (cosine {cos:.2f}): {lead}")
    elif in_b:
        bits.append(f"BM25 #{b} only (shares words with the query)" + (
            f"; vector #{v} below the floor or the top {ref}" if v else ""))
    elif in_v:
        bits.append(f"vector #{v} only (cosine {cos:.2f}: similar meaning, few shared words)")
    else:
        bits.append(f"beyond the top {ref} of both rankings (listed in rank order)")
    if boost:
        bits.append(boost)
    if importance != 5:
        bits.append(f"importance {importance} (x{imp_f:.2f})")
    return "; ".join(bits)


_MONTHS = {m: i for i, m in enumerate(("january february march april may june july august september "
                                       "october november december").split(), 1)}
_MONTHS.update({m[:3]: i for m, i in list(_MONTHS.items())})
_MONTHS["sept"] = 9
_MON = r"(january|february|march|april|may|june|july|august|september|october|november|december|" \
       r"jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)\.?"
_DATE_PATTERNS = [
    ("ymd", re.compile(r"\b(\d{4})-(\d{1,2})-(\d{1,2})\b")),
    ("dmy", re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?(?:\s+of)?\s+{_MON},?\s+(\d{{4}})\b", re.I)),
    ("mdy", re.compile(rf"\b{_MON}\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+(\d{{4}})\b", re.I)),
    ("my", re.compile(rf"\b{_MON},?\s+(\d{{4}})\b", re.I)),
    ("y", re.compile(r"\b(?:in|during|of|from)\s+(\d{4})\b", re.I)),
    ("rel", re.compile(r"\b(today|yesterday|this week|last week|this month|last month|this year|last year)\b",
                       re.I)),
]


def query_window(query: str, now: float) -> tuple[float, float, str] | None:
    """The period a query names ("on 9 November 2022", "in January 2024", "2024-03-01",
    "last week", "2023年5月9日", "上个月"), as [start, end) epoch seconds (UTC) and the
    words that named it."""
    for kind, rx in _DATE_PATTERNS:
        m = rx.search(query)
        if not m:
            continue
        try:
            if kind == "ymd":
                a = dt.datetime(int(m[1]), int(m[2]), int(m[3]), tzinfo=dt.timezone.utc)
                b = a + dt.timedelta(days=1)
            elif kind == "dmy":
                a = dt.datetime(int(m[3]), _MONTHS[m[2].lower()], int(m[1]), tzinfo=dt.timezone.utc)
                b = a + dt.timedelta(days=1)
            elif kind == "mdy":
                a = dt.datetime(int(m[3]), _MONTHS[m[1].lower()], int(m[2]), tzinfo=dt.timezone.utc)
                b = a + dt.timedelta(days=1)
            elif kind == "my":
                y, mo = int(m[2]), _MONTHS[m[1].lower()]
                a = dt.datetime(y, mo, 1, tzinfo=dt.timezone.utc)
                b = dt.datetime(y + (mo == 12), mo % 12 + 1, 1, tzinfo=dt.timezone.utc)
            elif kind == "y":
                a = dt.datetime(int(m[1]), 1, 1, tzinfo=dt.timezone.utc)
                b = dt.datetime(int(m[1]) + 1, 1, 1, tzinfo=dt.timezone.utc)
            else:
                a, b = _relative(m[1].lower(), now)
        except (ValueError, KeyError):
            continue
        return a.timestamp(), b.timestamp(), m[0]
    return _zh_window(query, now) if CJK_CHAR.search(query) else None


# Chinese dates: 2023年5月9日 (or 号), 2023年5月, 5月9日 (the current year), 2023年, and
# 今天 昨天 前天 本周/这周 上周 这个月 上个月 今年 去年. Month and day in digits or in
# Chinese numerals (五月九号, 十二月二十日).
_ZH_NUM = r"\d{1,2}|[一二三四五六七八九十]{1,3}"
_ZH_DATE_PATTERNS = [
    ("ymd", re.compile(rf"(\d{{4}})\s*年\s*({_ZH_NUM})\s*月\s*({_ZH_NUM})\s*[日号號]")),
    ("ym", re.compile(rf"(\d{{4}})\s*年\s*({_ZH_NUM})\s*月")),
    ("md", re.compile(rf"(?<![\d年])({_ZH_NUM})\s*月\s*({_ZH_NUM})\s*[日号號]")),
    ("y", re.compile(r"(?<!\d)(\d{4})\s*年")),
    # 上 after 晚/早/马… is another word (晚上周末, 马上个月): not a period.
    ("rel", re.compile("今天|今日|昨天|昨日|前天|本周|这周|这个?星期|这个?礼拜|这个月|本月|今年|去年"
                       "|(?<![晚早马路楼桌身台])上(?:周|个?星期|个?礼拜|个?月)")),
]
_ZH_REL = {"今天": "today", "今日": "today", "昨天": "yesterday", "昨日": "yesterday",
           "本周": "this week", "这周": "this week", "上周": "last week",
           "这个月": "this month", "本月": "this month", "今年": "this year", "去年": "last year"}


def _zh_number(text: str) -> int:
    """1-99 in digits or Chinese numerals (九, 十, 十二, 二十, 三十一)."""
    if text.isdigit():
        return int(text)
    digits = "一二三四五六七八九"
    if "十" not in text:
        if len(text) != 1:
            raise ValueError(text)
        return digits.index(text) + 1
    tens, _, ones = text.partition("十")
    if len(tens) > 1 or len(ones) > 1 or "十" in ones:
        raise ValueError(text)
    return (digits.index(tens) + 1 if tens else 1) * 10 + (digits.index(ones) + 1 if ones else 0)


def _zh_window(query: str, now: float) -> tuple[float, float, str] | None:
    """query_window for the Chinese forms (UTC days, like the English ones)."""
    text = unicodedata.normalize("NFKC", query)
    utc = dt.timezone.utc
    for kind, rx in _ZH_DATE_PATTERNS:
        for m in rx.finditer(text):
            try:
                if kind == "ymd":
                    a = dt.datetime(int(m[1]), _zh_number(m[2]), _zh_number(m[3]), tzinfo=utc)
                    b = a + dt.timedelta(days=1)
                elif kind == "md":
                    year = dt.datetime.fromtimestamp(now, utc).year
                    a = dt.datetime(year, _zh_number(m[1]), _zh_number(m[2]), tzinfo=utc)
                    b = a + dt.timedelta(days=1)
                elif kind == "ym":
                    y, mo = int(m[1]), _zh_number(m[2])
                    a = dt.datetime(y, mo, 1, tzinfo=utc)
                    b = dt.datetime(y + (mo == 12), mo % 12 + 1, 1, tzinfo=utc)
                elif kind == "y":
                    a = dt.datetime(int(m[1]), 1, 1, tzinfo=utc)
                    b = dt.datetime(int(m[1]) + 1, 1, 1, tzinfo=utc)
                else:
                    word = m[0]
                    if word == "前天":
                        a, b = _relative("yesterday", now - 86400)
                    else:
                        key = _ZH_REL.get(word) or ("last week" if word[-1] in "期拜" and word[0] == "上" else
                                                    "this week" if word[-1] in "期拜" else "last month")
                        a, b = _relative(key, now)
            except (ValueError, KeyError, OverflowError):
                continue
            return a.timestamp(), b.timestamp(), m[0]
    return None


def _relative(word: str, now: float) -> tuple[dt.datetime, dt.datetime]:
    day = dt.datetime.fromtimestamp(now, dt.timezone.utc).replace(hour=0, minute=0, second=0, microsecond=0)
    one = dt.timedelta(days=1)
    week = day - dt.timedelta(days=day.weekday())
    month = day.replace(day=1)
    year = month.replace(month=1)
    return {
        "today": (day, day + one), "yesterday": (day - one, day),
        "this week": (week, week + 7 * one), "last week": (week - 7 * one, week),
        "this month": (month, (month + 32 * one).replace(day=1)),
        "last month": ((month - one).replace(day=1), month),
        "this year": (year, year.replace(year=year.year + 1)), "last year": (year.replace(year=year.year - 1), year),
    }[word]


# Memories in a named period joining the candidates: at most this many (latest first).
_WINDOW_CAP = 500


def _favour_window(snap: Snapshot, fused: dict[int, float], allowed: np.ndarray,
                   window: tuple[float, float, str], weight: float, boosts: dict[int, str] | None) -> None:
    """Memories created in the period the query names gain `weight` x the top score."""
    start, end, words = window
    idx = np.flatnonzero(allowed & (snap.created >= start) & (snap.created < end))
    if idx.size == 0:
        return
    if idx.size > _WINDOW_CAP:
        idx = idx[np.argsort(-snap.created[idx], kind="stable")[:_WINDOW_CAP]]
    top = max(fused.values(), default=0.0) or 1.0
    add = weight * top
    for i in idx.tolist():
        d = int(snap.docs[i])
        fused[d] = fused.get(d, 0.0) + add
        if boosts is not None:
            boosts[d] = (boosts[d] + "; " if d in boosts else "") + f"created in the period named ({words!r}, +{add:.3f})"


def _round(v: float | None) -> float | None:
    return None if v is None else round(float(v), 6)


def vector_top(snap: Snapshot, qv: np.ndarray, mask: np.ndarray, depth: int) -> list[tuple[int, float]]:
    """The `depth` docs of `mask` nearest to the query vector: (doc, cosine), best first."""
    mask = mask & snap.has_vec
    idx = np.flatnonzero(mask)
    if idx.size == 0 or snap.vectors is None:
        return []
    # A full matrix product is faster than gathering rows when most rows qualify.
    sub = snap.vectors @ qv if idx.size == snap.size else snap.vectors[idx] @ qv
    n = min(depth, sub.shape[0])
    top = np.argpartition(-sub, n - 1)[:n]
    # Ties at the cut or inside the list go to the lower doc, as in BM25's ORDER BY.
    cut = sub[top].min()
    top = np.flatnonzero(sub >= cut) if np.count_nonzero(sub >= cut) > n else top
    top = top[np.lexsort((snap.docs[idx[top]], -sub[top]))][:n]
    return [(int(snap.docs[idx[i]]), float(sub[i])) for i in top]


def mmr_rerank(snap: Snapshot, items: list, k: int, lam: float) -> list:
    """Greedy maximal marginal relevance over the fused scores and chunk vectors (ties
    to the earlier item, so the first N picks never depend on k)."""
    n = len(items)
    if n == 0:
        return items
    dim = snap.vectors.shape[1]
    mat = np.zeros((n, dim), dtype=np.float32)
    for j, it in enumerate(items):
        i = snap.row_of.get(it[1])
        if i is not None and snap.has_vec[i]:
            mat[j] = snap.vectors[i]
    top = items[0][0] or 1.0
    rel = lam * np.array([it[0] for it in items], dtype=np.float64) / top
    max_sim = np.zeros(n, dtype=np.float64)
    free = np.ones(n, dtype=bool)
    chosen: list[int] = []
    while len(chosen) < min(k, n):
        val = np.where(free, rel - (1 - lam) * max_sim, -np.inf)
        best = int(np.argmax(val))
        chosen.append(best)
        free[best] = False
        max_sim = np.maximum(max_sim, mat @ mat[best])
    return [items[j] for j in chosen] + [items[j] for j in range(n) if free[j]]
