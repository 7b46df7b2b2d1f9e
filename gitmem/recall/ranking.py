"""Ranking: the two rankings fused (min-max weighted sum or RRF), BM25's confidence
scale, and the final order (recency and importance, one hit per memory, optional MMR)
with each hit's citation and --explain parts. Pure functions of the snapshot and the
[recall] settings (`opt`)."""

from __future__ import annotations

import time
from typing import Any, Callable

import numpy as np

from gitmem.core.model import DEFAULT_IMPORTANCE
from gitmem.index import Snapshot
from gitmem.policy.weight import recall_factors
from gitmem.recall.explain import iso_time, rounded, snippet, why
from gitmem.recall.hits import Hit
from gitmem.recall.vectors import mmr_rerank


def fuse(opt: Callable[[str], Any], floor: float, bm: list[tuple[int, float]], vec: list[tuple[int, float]], mode: str,
          ref: int, wv: float, bm25_from_zero: bool = False, bm_scale: float = 1.0
          ) -> tuple[dict[int, float], dict[int, tuple[float, float]], set[int] | None]:
    """Fused score per candidate, each side's part of it, and the vector candidates
    kept (None: all). Only the first `ref`
    of each ranking count (and set the normalisation), so a doc's score does not
    depend on how deep the lists go."""
    wb = float(opt("w_bm25"))
    if mode in ("bm25", "vector"):
        # Beyond the first `ref`, 0: they follow in their ranking's order (the tie
        # break), so a boost there cannot lift one over a hit that a smaller k shows.
        ranked = bm if mode == "bm25" else vec
        out = {d: (max(s, 0.0) if i < ref else 0.0) for i, (d, s) in enumerate(ranked)}
        return out, {d: ((v, 0.0) if mode == "bm25" else (0.0, v)) for d, v in out.items()}, None
    # A vector candidate below the model's cosine floor counts only if BM25 found it
    # too, so an unrelated query returns nothing rather than noise. (Inert on
    # LoCoMo dev: measured identical for floors 0-0.3 with all-MiniLM-L6-v2.)
    in_bm = {d for d, _ in bm[:ref]}
    kept = {d for i, (d, s) in enumerate(vec) if s >= floor or (i < ref and d in in_bm)}
    vec = [(d, s) for i, (d, s) in enumerate(vec) if i < ref and d in kept]
    parts: dict[int, list[float]] = {d: [0.0, 0.0] for d, _ in bm}
    for d in kept:
        parts.setdefault(d, [0.0, 0.0])
    if opt("fusion") == "linear":
        # Min-max normalise against the top `ref` of each list, then a weighted sum
        # (absent, or below the ref-th score = 0).
        norm = opt("norm")
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
        rk = float(opt("rrf_k"))
        for side, (w, ranked) in enumerate(((wb, bm), (wv, vec))):
            for rank, (d, _) in enumerate(ranked[:ref], 1):
                parts[d][side] = w / (rk + rank)
    return {d: p[0] + p[1] for d, p in parts.items()}, {d: (p[0], p[1]) for d, p in parts.items()}, kept


def bm25_scale(opt: Callable[[str], Any], bm: list[tuple[int, float]], mass: float, mode: str, wv: float) -> float:
    """[recall] bm25_confidence: BM25's side in a min-max linear fusion is scaled by
    min(1, top score / (c0 x the query's idf mass)), so a top hit that covers little
    of what the query's words could score (one light word of several) weighs less
    against meaning. 1.0 when there is no vector side to weigh against (a CJK query
    under the language rule) or nothing to say (no hit; a negative idf in a tiny
    filtered set)."""
    c0 = float(opt("bm25_confidence"))
    if (mode != "hybrid" or c0 <= 0 or wv <= 0 or not bm or mass <= 0 or bm[0][1] <= 0
            or opt("fusion") != "linear" or opt("norm") != "minmax"):
        return 1.0
    return min(1.0, bm[0][1] / mass / c0)


def finish(opt: Callable[[str], Any], snap: Snapshot, fused: dict[int, float], bm, vec, qv, terms, k: int, mode: str,
            mmr: bool | None, explain: bool, now: float | None = None, ref: int = 100,
            parts: dict[int, tuple[float, float]] | None = None, kept: set[int] | None = None,
            boosts: dict[int, str] | None = None, lang_note: str | None = None,
            bm_scale: float = 1.0, rel: Callable[[int], tuple[float, float, float, float]] | None = None,
            floor: float = 0.0) -> list[Hit]:
    """The top `k` hits, best first, of the candidates at least `floor` relevant (`rel`:
    doc -> (relevance, coverage, cosine, relevance before the form gate)); each hit
    carries its relevance (and, in process, `topical`)."""
    if not fused:
        return []
    bm_s, vec_s = dict(bm), dict(vec)
    bm_rank = {d: i for i, (d, _) in enumerate(bm, 1)}
    vec_rank = {d: i for i, (d, _) in enumerate(vec, 1)}
    # Ranks that break ties: those of the candidates fusion kept (depth-independent).
    kept_rank = vec_rank if kept is None else {d: r for d, r in vec_rank.items() if d in kept}
    rw, half = float(opt("recency_weight")), float(opt("half_life_days"))
    iw = float(opt("importance_weight"))
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
    use_mmr = opt("mmr") if mmr is None else mmr
    need = max(k, ref) if use_mmr and snap.vectors is not None else k
    lift = 1.0 + iw
    ci = {c: i for i, c in enumerate(snap.columns)}
    c_created, c_imp, c_path, c_scope = ci["created"], ci["importance"], ci["path"], ci["scope"]
    scored: list = []
    uniq: list = []
    pos = 0
    rels: dict[int, tuple[float, float, float, float]] = {}

    def relevant(d: int) -> bool:
        if rel is None:
            return True
        if d not in rels:
            rels[d] = rel(d)
        return rels[d][0] >= floor
    while pos < len(order):
        batch = order[pos : pos + max(need, 16)]
        pos += len(batch)
        for d, base in batch:
            i = snap.row_of.get(d)
            if i is None:
                continue
            row = snap.table[i]
            rec, imp_f = recall_factors(row[c_created], now, half, row[c_imp], iw)
            scored.append((base * (1.0 - rw + rw * rec) * imp_f, d, row, rec, imp_f, base))
        scored.sort(key=lambda x: (-x[0], best_rank[x[1]], x[1]))
        # One hit per memory: its best chunk. Journal and session files keep each chunk.
        seen: set[tuple[str, str]] = set()
        uniq = []
        for item in scored:
            if not relevant(item[1]):
                continue
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
        uniq = mmr_rerank(snap, uniq[:ref], ref, float(opt("mmr_lambda"))) + uniq[ref:]
    hits = []
    for final, d, row, rec, imp_f, base in uniq[:k]:
        r = dict(zip(snap.columns, row))
        p, cov, cos, topical = rels[d] if rel is not None else (None, None, None, None)
        ex = None
        if explain:
            part = (parts or {}).get(d, (0.0, 0.0))
            ex = {"mode": mode, "chunk": d,
                  "bm25": None if d not in bm_rank else {
                      "rank": bm_rank[d], "score": rounded(bm_s[d]), "part": rounded(part[0])},
                  "vector": None if d not in vec_rank else {
                      "rank": vec_rank[d], "similarity": rounded(vec_s[d]), "part": rounded(part[1])},
                  "bm25_confidence": rounded(bm_scale) if mode == "hybrid" else None,
                  "fused": rounded(base), "recency_factor": rounded(1.0 - rw + rw * rec),
                  "importance_factor": rounded(imp_f), "final": rounded(final),
                  "relevance": None if p is None else {"p": p, "coverage": cov, "cosine": cos},
                  "why": why(mode, bm_rank.get(d), vec_rank.get(d), vec_s.get(d), ref, part,
                              int(r["importance"] or DEFAULT_IMPORTANCE), imp_f, (boosts or {}).get(d))
                         + (f"; {lang_note}" if lang_note else "")}
        hits.append(Hit(
            id=r["mem_id"], key=r["key"], scope=r["scope"], type=r["type"], path=r["path"],
            start_line=int(r["start_line"]), end_line=int(r["end_line"]), score=round(float(final), 6),
            scores={"bm25": rounded(bm_s.get(d)), "vector": rounded(vec_s.get(d)),
                    "recency": round(rec, 6), "importance": int(r["importance"] or DEFAULT_IMPORTANCE)},
            snippet=snippet(r["text"], terms), commit=snap.cursors.get(r["scope"]),
            created=iso_time(r["created"]), text=r["text"], explain=ex, relevance=p, doc=int(d),
            topical=topical))
    return hits
