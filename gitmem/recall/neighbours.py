"""Neighbours: the memory beside a hit in its session (or the chunk beside it in a file), and the share of a hit's score it lends them."""

from __future__ import annotations

import numpy as np

from gitmem.core.model import id_time
from gitmem.index import Snapshot

# A `created` further than this from the instant in the memory's id was stated by its
# source (gitmem dates what it writes when the write starts; a large import takes a while).
STATED_AFTER_S = 600.0


def stated(created: float, mem_id: str) -> bool:
    """Whether a memory's `created` was given by its source rather than by the write."""
    try:
        written = id_time(mem_id).timestamp()
    except (ValueError, TypeError, OverflowError, OSError):
        return True
    return abs(created - written) > STATED_AFTER_S


def _group(path: str, created, mem_id: str, scope: str, line) -> tuple | None:
    """A row's (group, order within it), or None: a memory whose date gitmem gave."""
    if path.startswith(("memories/", "archive/")):
        if not created or not stated(created, mem_id):
            return None
        return (scope, "m", created), mem_id
    return (scope, "f", path), line


def _link(members: list[tuple], prev: np.ndarray, nxt: np.ndarray) -> None:
    """Sort one group's (order, row) members and link each row to the ones beside it."""
    if len(members) < 2:
        return
    members.sort()
    rows = np.fromiter((i for _, i in members), dtype=np.int64, count=len(members))
    nxt[rows[:-1]] = rows[1:]
    prev[rows[1:]] = rows[:-1]


class Neighbours:
    """Which row sits beside which in a snapshot (cached per snapshot state), and the
    share of a hit's score it lends them. `share` leaves the order independent of k."""

    def __init__(self) -> None:
        self._cache: tuple | None = None
        self._memo: dict[tuple, tuple | None] = {}
        self._groups: dict[tuple, list[tuple]] = {}
        # ((serial, epoch), size, groups, prev, next) of the last call, to grow when rows are appended
        self._last: tuple | None = None

    def rows(self, snap: Snapshot) -> tuple[np.ndarray, np.ndarray]:
        """(previous, next) row of each snapshot row (-1: none): the memory beside it in
        the same session (same scope, same stated `created`, in id order — ids of one
        batch are made in order) or the chunk beside it in the same journal or session
        file. Cached per snapshot state.

        Only a `created` the source stated counts (an imported session's date, far from
        the instant in the memory's id): memories gitmem dated when it wrote them (two
        `remember`s in one second, a batch of notes without dates) are not a session."""
        key = (snap.serial, snap.epoch, snap.size, tuple(sorted(snap.cursors.items())))
        cached = self._cache
        if cached is not None and cached[0] == key:
            return cached[1]
        ci = {c: i for i, c in enumerate(snap.columns)}
        cols = (ci["path"], ci["created"], ci["mem_id"], ci["scope"], ci["start_line"])
        last = self._last
        # The same snapshot with rows only appended since (index/snapshot.py splice_rows).
        if last is not None and last[0] == (snap.serial, snap.epoch) and last[1] <= snap.size:
            prev, nxt = self._grow(snap, cols, *last[1:])
        else:
            prev, nxt = self._build(snap, cols)
        self._last = ((snap.serial, snap.epoch), snap.size, self._groups, prev, nxt)
        self._cache = (key, (prev, nxt))
        return prev, nxt

    def _build(self, snap: Snapshot, cols: tuple) -> tuple[np.ndarray, np.ndarray]:
        """Every row's neighbours from scratch."""
        groups: dict[tuple, list[tuple]] = {}
        # Each row's (group, order) is a pure function of these five values: remember it
        # from the last build so an edit costs only its rows (`stated` is the slow part).
        memo, seen = self._memo, {}
        for i, row in enumerate(snap.table):
            vals = tuple(row[c] for c in cols)
            got = memo.get(vals, memo)
            if got is memo:
                got = _group(*vals)
            seen[vals] = got
            if got is not None:
                groups.setdefault(got[0], []).append((got[1], i))
        self._memo, self._groups = seen, groups
        prev = np.full(snap.size, -1, dtype=np.int64)
        nxt = np.full(snap.size, -1, dtype=np.int64)
        for members in groups.values():
            _link(members, prev, nxt)
        return prev, nxt

    def _grow(self, snap: Snapshot, cols: tuple, n0: int, groups: dict, prev: np.ndarray,
              nxt: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The last rows' neighbours plus rows appended since (the first `n0` rows are
        where they were): only the groups the new rows join are linked again."""
        touched = set()
        for i in range(n0, snap.size):
            row = snap.table[i]
            got = _group(*(row[c] for c in cols))
            if got is not None:
                groups.setdefault(got[0], []).append((got[1], i))
                touched.add(got[0])
        pad = np.full(snap.size - n0, -1, dtype=np.int64)
        prev, nxt = np.concatenate([prev, pad]), np.concatenate([nxt, pad])
        for g in touched:
            members = groups[g]
            ids = [i for _, i in members]
            prev[ids] = -1
            nxt[ids] = -1
            _link(members, prev, nxt)
        self._groups = groups
        return prev, nxt

    def share(self, snap: Snapshot, fused: dict[int, float], allowed: np.ndarray, weight: float,
              boosts: dict[int, str] | None, *, both_sides: bool = True, cap: int = 0,
              lent: dict[int, int] | None = None) -> None:
        """Each candidate with a score lends `weight` of it to the memory beside it (in
        dialogue the answer is the turn after the question that matched). Only scores
        from fusion lend, so the order stays independent of k. A memory beside several
        lenders takes the largest share (ties: the first lender in fusion's order).
        `lent` gets each borrower's lender."""
        prev, nxt = self.rows(snap)
        sides = (nxt, prev) if both_sides else (nxt,)
        lenders = [(d, f) for d, f in fused.items() if f > 0]
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
        if lent is not None:
            lent.update(zip(snap.docs[tgt[pick]].tolist(), src[pick].tolist()))
        if boosts is not None:
            c_mem = snap.columns.index("mem_id")
            for nb, v, lender in zip(snap.docs[tgt[pick]].tolist(), val[pick].tolist(), src[pick].tolist()):
                boosts[nb] = f"beside {snap.table[snap.row_of[lender]][c_mem]} (+{v:.3f})"
