"""Grouping near duplicates: which texts of a scope state one fact.

Pairs come from the embeddings (cosine); a pair joins two groups when it is similar
enough and nothing tells any two of their members apart (gitmem.lifecycle.samefact:
values, names, entities; or two different stable keys). Similar enough: the scope's
near threshold, or `anchored_margin` less when the two texts share a date, number or
name. Single linkage on similarity, complete linkage on conflicts: a group never holds
two texts that differ in a value or an entity."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gitmem.lifecycle import samefact, updates


class Groups:
    """Union-find over item indexes, members kept per root."""

    def __init__(self, n: int):
        self.parent = list(range(n))
        self.members = {i: [i] for i in range(n)}

    def find(self, i: int) -> int:
        while self.parent[i] != i:
            self.parent[i] = self.parent[self.parent[i]]
            i = self.parent[i]
        return i

    def union(self, a: int, b: int) -> None:
        a, b = self.find(a), self.find(b)
        if a != b:
            self.parent[b] = a
            self.members[a].extend(self.members.pop(b))


@dataclass
class Near:
    """The outcome: groups, and pairs held apart (with why) at or above the threshold."""

    groups: Groups
    held_apart: list[dict[str, Any]] = field(default_factory=list)
    sims: list[tuple[float, int, int]] = field(default_factory=list)


NEIGHBOURS = 16  # per memory, the most similar others considered (near duplicates are few)


def candidate_pairs(vecs: Any, floor: float, step: int = 1024,
                    neighbours: int = NEIGHBOURS) -> list[tuple[float, int, int]]:
    """(cosine, i, j), i < j, most similar first: each vector's `neighbours` most similar
    others at or above `floor`. Blocks of rows keep memory at O(step * n), and the cap
    keeps the pairs at O(n) on a store of look-alike notes."""
    import numpy as np

    n = len(vecs)
    los, his, vals = [], [], []
    for lo in range(0, n, step):
        block = vecs[lo:lo + step] @ vecs.T
        hit = block >= floor
        per_row = hit.sum(axis=1)
        busy = np.nonzero(per_row > neighbours + 1)[0]  # + itself
        if len(busy):  # only rows with too many neighbours pay for a partial sort
            top = np.argpartition(-block[busy], neighbours, axis=1)[:, :neighbours + 1]
            hit[busy] = False
            hit[busy[:, None], top] = block[busy[:, None], top] >= floor
        rows, cols = np.nonzero(hit)
        a = rows + lo
        keep = a != cols
        a, c = a[keep], cols[keep]
        los.append(np.minimum(a, c))
        his.append(np.maximum(a, c))
        vals.append(block[rows[keep], cols[keep]])
    if not los:
        return []
    lo_all, hi_all, v_all = np.concatenate(los), np.concatenate(his), np.concatenate(vals)
    # A pair found from both of its rows counts once.
    _, first = np.unique(lo_all.astype(np.int64) * n + hi_all, return_index=True)
    order = first[np.lexsort((-hi_all[first], -lo_all[first], -v_all[first]))]
    cand = list(zip(v_all[order].astype(float).tolist(), lo_all[order].tolist(), hi_all[order].tolist()))
    return cand


def group(texts: list[str], keys: list[str | None], ids: list[str], sims: list[tuple[float, int, int]],
          threshold: float, margin: float) -> Near:
    """Group items `texts` (with their stable keys and ids) from the pairs `sims`."""
    groups = Groups(len(texts))
    out = Near(groups=groups, sims=sims)
    verdict: dict[tuple[int, int], str | None] = {}

    def apart(a: int, b: int) -> str | None:
        k = (a, b) if a < b else (b, a)
        if k not in verdict:
            if keys[a] and keys[b] and keys[a] != keys[b]:
                verdict[k] = "different keys"
            elif (updates.cue(texts[a]) is None) != (updates.cue(texts[b]) is None):
                verdict[k] = "possible update"  # one says something changed: not a copy
            else:
                verdict[k] = samefact.conflict(texts[a], texts[b])
        return verdict[k]

    for s, a, b in sims:
        if s < threshold - margin:
            continue
        if s < threshold and not samefact.anchors(texts[a], texts[b]):
            continue
        why = apart(a, b)
        if why is not None:
            if s >= threshold:
                out.held_apart.append({"a": ids[a], "b": ids[b], "cosine": round(s, 4), "why": why})
            continue
        ra, rb = groups.find(a), groups.find(b)
        if ra == rb:
            continue
        if all(apart(x, y) is None for x in groups.members[ra] for y in groups.members[rb]):
            groups.union(ra, rb)
    return out
