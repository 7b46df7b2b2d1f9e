"""Vector kernels over a snapshot: the chunks nearest a query, and MMR diversity."""

from __future__ import annotations

import numpy as np

from gitmem.index import Snapshot


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
