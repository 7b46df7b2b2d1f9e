"""What `context` chooses from (Catalog.picks): in SQL over the index file, or, in a
long-lived process (the daemon), from the catalog's live rows held in memory (`View`),
so a `context` neither opens the file nor weighs every row in a query (issue 21).

The view is kept per scope tips like the index's snapshot: after a tip moves it
re-reads only the rows of the files that differ (a tree diff, then one short read of
those rows from the caught-up file), and loads whole when a scope came or went or a
history was rewritten. Its weights are policy.weight's formula in the same operations
in the same order as weight_sql (so equal to the last bit), used only while the SQL
expression handed in is the one it was written for (anything else: the SQL path); its
order of ties is the query's (weight or time, then id newest first, scope order, path).
tests/test_catalog_view.py compares the two."""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

# The columns a pick returns (then its weight), and the rows a view holds per live
# memory: those, then what weighs them.
PICKED = ("scope", "id", "path", "blob", "type", "importance", "updated", "when_ts", "qlen", "qcjk")
LOAD = PICKED + ("flag", "updated_ts", "entered_ts")
# policy.weight.weight_sql's expression: the view computes exactly this (else SQL).
WEIGHT_EXPR = ("(importance + least(coalesce(n, 0), ?::BIGINT) * ?::DOUBLE - greatest(0.0::DOUBLE, "
               "(?::DOUBLE - greatest(coalesce(last_access, 0)::DOUBLE, updated_ts, entered_ts)) / 86400.0) "
               "* ?::DOUBLE)")
# More changed files than this: a whole load. Fewer candidates than SMALL: sorted in Python.
MAX_CHANGED = 2000
SMALL = 64
_LIVE = "NOT archived AND error IS NULL"


class View:
    """The live rows of every scope's catalog at `tips`, with arrays to weigh them."""

    def __init__(self, tips: dict[str, str], rows: list[tuple]):
        self.tips = dict(tips)
        self.rows: list[tuple | None] = []
        self.at: dict[tuple[str, str], int] = {}
        self.by_id: dict[str, list[int]] = {}
        self.scode: dict[str, int] = {}
        self.alive = np.zeros(0, dtype=bool)
        self.sc = np.zeros(0, dtype=np.int32)
        # importance, when_ts, updated_ts, entered_ts, flag, a preference, the least its line costs
        self.num = np.zeros((0, 7), dtype=np.float64)
        self.dead = 0
        self._id_rank: np.ndarray | None = None   # order-preserving ranks of the ids (ties equal)
        self._max_id = ""
        self._add(rows)

    @classmethod
    def load(cls, con: Any, tips: dict[str, str]) -> "View":
        return cls(tips, con.execute(f"SELECT {', '.join(LOAD)} FROM catalog WHERE {_LIVE}").fetchall())

    def _add(self, rows: list[tuple]) -> None:
        base = len(self.rows)
        self.rows.extend(rows)
        for j, r in enumerate(rows, base):
            self.at[(r[0], r[2])] = j
            self.by_id.setdefault(r[1], []).append(j)
            self.scode.setdefault(r[0], len(self.scode))
        self.alive = np.concatenate([self.alive, np.ones(len(rows), dtype=bool)])
        self.sc = np.concatenate([self.sc, np.array([self.scode[r[0]] for r in rows], dtype=np.int32)])
        self.num = np.concatenate([self.num, np.array(
            [(r[5], r[7], r[11], r[12], 1.0 if r[10] else 0.0, 1.0 if r[4] == "preference" else 0.0,
              _least_cost(r)) for r in rows], dtype=np.float64).reshape(-1, 7)])
        ids = sorted({r[1] for r in rows})
        if self._id_rank is not None and (not ids or ids[0] > self._max_id):
            # New ids after every id so far (ids are time-sortable): ranked after them.
            top = int(self._id_rank.max()) + 1 if len(self._id_rank) else 0
            rank = {x: top + k for k, x in enumerate(ids)}
            self._id_rank = np.concatenate([self._id_rank, np.array([rank[r[1]] for r in rows], dtype=np.int64)])
        else:
            self._id_rank = None
        self._max_id = max([self._max_id] + ids[-1:])

    def id_rank(self) -> np.ndarray:
        """Each row's id as a rank that orders as the ids do (equal ids, equal ranks)."""
        if self._id_rank is None:
            ids = np.array([r[1] if r else "" for r in self.rows], dtype=str)
            self._id_rank = np.unique(ids, return_inverse=True)[1].astype(np.int64).reshape(-1)
        return self._id_rank

    def update(self, con: Any, changed: set[tuple[str, str]], tips: dict[str, str]) -> None:
        """Take the rows of the changed (scope, path) files again from the caught-up file."""
        for key in changed:
            i = self.at.pop(key, None)
            if i is not None:
                self.by_id[self.rows[i][1]].remove(i)   # type: ignore[index]
                self.rows[i] = None
                self.alive[i] = False
                self.dead += 1
        if changed:
            con.execute("CREATE OR REPLACE TEMP TABLE chg AS SELECT unnest(?::VARCHAR[]) AS scope, "
                        "unnest(?::VARCHAR[]) AS path", [[s for s, _ in changed], [p for _, p in changed]])
            try:
                self._add(con.execute(f"SELECT {', '.join('c.' + k for k in LOAD)} FROM catalog c JOIN chg "
                                      f"USING (scope, path) WHERE {_LIVE}").fetchall())
            finally:
                con.execute("DROP TABLE IF EXISTS chg")
        if self.dead > 1000 and self.dead * 4 > len(self.rows):
            self.__init__(tips, [r for r in self.rows if r is not None])   # type: ignore[misc]
        self.tips = dict(tips)

    # ---- the picks --------------------------------------------------------------------
    def picks(self, scopes: Sequence[str], params: Sequence[Any], counts: dict[str, tuple[int, int]],
              since: float, n_prefs: int, n_top: int, recent_limit: int | None,
              exclude: Sequence[str]) -> dict[str, Any]:
        """Catalog.picks from memory."""
        cap, aw, now, iw = int(params[0]), float(params[1]), float(params[2]), float(params[3])
        pos = {s: k for k, s in enumerate(scopes, 1)}
        codes = [self.scode[s] for s in scopes if s in self.scode]
        sel = self.alive & np.isin(self.sc, codes)
        for x in exclude:
            for i in self.by_id.get(x, ()):
                sel[i] = False
        n = np.zeros(len(self.rows), dtype=np.float64)
        last = np.zeros(len(self.rows), dtype=np.float64)
        for mid, (cnt, la) in counts.items():
            for i in self.by_id.get(mid, ()):
                n[i], last[i] = min(int(cnt), cap), float(la)
        imp, when, upd, ent, flag, pref, least = (self.num[:, k] for k in range(7))
        # weight_sql's operations in its order: importance + min(n, cap) * aw - max(0, idle days) * iw
        w = (imp + n * aw) - np.maximum(0.0, (now - np.maximum(np.maximum(last, upd), ent)) / 86400.0) * iw
        on = sel & (flag > 0)
        rows = self.rows
        pos_of = np.zeros(len(self.scode) + 1, dtype=np.int64)
        for s, k in pos.items():
            if s in self.scode:
                pos_of[self.scode[s]] = k

        def order(idx: np.ndarray, key: np.ndarray) -> list[int]:
            """By key (newest or heaviest) first, then id newest first, scope order, path."""
            if len(idx) > SMALL:
                ids, p = self.id_rank()[idx], pos_of[self.sc[idx]]
                o = np.lexsort((p, -ids, -key[idx]))
                same = (key[idx][o][1:] == key[idx][o][:-1]) & (ids[o][1:] == ids[o][:-1]) & (p[o][1:] == p[o][:-1])
                if not same.any():
                    return idx[o].tolist()
                idx = idx[o]   # a run equal but for the path (two files of one id): a few, by path below
            out = idx.tolist()
            out.sort(key=lambda i: (pos[rows[i][0]], rows[i][2]))   # type: ignore[index]
            out.sort(key=lambda i: rows[i][1], reverse=True)          # type: ignore[index]  (stable)
            out.sort(key=lambda i: key[i], reverse=True)
            return out

        def heaviest(mask: np.ndarray, k: int) -> list[int]:
            idx = np.flatnonzero(mask)
            if k <= 0 or not len(idx):
                return []
            if len(idx) > k:
                floor = np.partition(w[idx], len(idx) - k)[len(idx) - k]
                idx = idx[w[idx] >= floor]
            return order(idx, w)[:k]

        def out_row(i: int) -> tuple:
            return tuple(rows[i][:len(PICKED)]) + (float(w[i]),)   # type: ignore[index]

        prefs = heaviest(on & (pref > 0), int(n_prefs))
        top = heaviest(on, int(n_top))
        recent = np.flatnonzero(on & (when >= float(since)))
        got: dict[str, Any] = {"prefs": [out_row(i) for i in prefs], "top": [out_row(i) for i in top],
                               "withheld": int((sel & ~(flag > 0)).sum()), "total": int(on.sum())}
        if recent_limit is None:
            got["recent"] = [out_row(i) for i in order(recent, when)]
            return got
        lim = max(0, int(recent_limit))
        if len(recent) > lim:   # only the first `lim` in order; the rest are counted
            floor = np.partition(when[recent], len(recent) - lim)[len(recent) - lim] if lim else np.inf
            head = order(recent[when[recent] >= floor], when)[:lim]
        else:
            head = order(recent, when)
        got["recent"] = [out_row(i) for i in head]
        rest = np.setdiff1d(recent, np.asarray(head, dtype=np.int64), assume_unique=True)
        got["tail"] = (len(rest), int(least[rest].min()) if len(rest) else 0)
        if len(recent) <= SMALL:
            got["ids"] = len({rows[i][1] for i in recent.tolist() + prefs + top})   # type: ignore[index]
        else:
            ranks = self.id_rank()
            seen = np.zeros(int(ranks.max()) + 1, dtype=bool)
            seen[ranks[recent]] = True
            seen[ranks[np.asarray(prefs + top, dtype=np.int64)]] = True
            got["ids"] = int(seen.sum())
        return got

def _least_cost(r: tuple) -> int:
    """The SQL path's `lb`: a row's line measure, counting no CJK outside the quote."""
    qlen, qcjk = int(r[8]), int(r[9])
    return qcjk + (qlen + len(f"- ({r[4]}, {r[0]}, {r[1]}) ") - qcjk + 3) // 4 + 1


def changed_files(git: Any, old: dict[str, str], new: dict[str, str],
                  is_memory_file: Callable[[str], bool]) -> set[tuple[str, str]] | None:
    """The (scope, path) memory files that differ between two sets of tips; None when a
    scope came or went, a history was rewritten or too much changed (load whole)."""
    if set(old) != set(new):
        return None
    out: set[tuple[str, str]] = set()
    for scope, tip in new.items():
        if old[scope] == tip:
            continue
        if not git.has_commit(old[scope]):
            return None
        out.update((scope, p) for _, p, _ in git.diff_files(old[scope], tip) if is_memory_file(p))
        if len(out) > MAX_CHANGED:
            return None
    return out


def picks_sql(con: Any, scopes: list[str], picked: Sequence[str], *, weight: tuple[str, list[Any]],
              counts: dict[str, tuple[int, int]], since: float, n_prefs: int, n_top: int,
              recent_limit: int | None, exclude: Sequence[str]) -> dict[str, Any]:
    """Catalog.picks in SQL over the catalog table of `con` (a fresh read-only handle)."""
    out: dict[str, Any] = {"prefs": [], "recent": [], "top": [], "withheld": 0, "total": 0}
    expr, wparams = weight
    con.execute("CREATE TEMP TABLE acc (id VARCHAR, n BIGINT, last_access DOUBLE)")
    if counts:
        con.execute("INSERT INTO acc SELECT unnest(?::VARCHAR[]), unnest(?::BIGINT[]), unnest(?::DOUBLE[])",
                    [list(counts), [int(v[0]) for v in counts.values()],
                     [float(v[1]) for v in counts.values()]])
    # One pass over the live rows: the fields context chooses by, the weight once.
    con.execute(
        f"CREATE TEMP TABLE live AS SELECT {', '.join('c.' + k for k in picked)}, c.flag, c.pos, "
        f"{expr} AS w FROM (SELECT *, list_position(?::VARCHAR[], scope) AS pos FROM catalog WHERE "
        "NOT archived AND error IS NULL AND scope IN (SELECT unnest(?::VARCHAR[])) AND id NOT IN "
        "(SELECT unnest(?::VARCHAR[]))) c LEFT JOIN "
        "(SELECT id, sum(n) AS n, max(last_access) AS last_access FROM acc GROUP BY id) a USING (id)",
        list(wparams) + [scopes, scopes, list(exclude)])
    out["withheld"], out["total"] = con.execute(
        "SELECT count(*) FILTER (WHERE NOT flag), count(*) FILTER (WHERE flag) FROM live").fetchone()
    cols = ", ".join(picked) + ", w"
    order = "id DESC, pos, path"
    out["prefs"] = con.execute(f"SELECT {cols} FROM live WHERE flag AND type = 'preference' ORDER BY "
                               f"w DESC, {order} LIMIT {max(0, int(n_prefs))}").fetchall()
    out["top"] = con.execute(f"SELECT {cols} FROM live WHERE flag ORDER BY w DESC, {order} "
                             f"LIMIT {max(0, int(n_top))}").fetchall()
    if recent_limit is None:
        out["recent"] = con.execute(f"SELECT {cols} FROM live WHERE flag AND when_ts >= ? ORDER BY "
                                    f"when_ts DESC, {order}", [float(since)]).fetchall()
    else:
        lb = "qcjk + (qlen + length('- (' || type || ', ' || scope || ', ' || id || ') ') - qcjk + 3) // 4 + 1"
        lim = max(0, int(recent_limit))
        # The first `lim` by a top-n (no sort of every recent row: a fresh import makes all
        # of them recent); the rest only counted, their least cost and their ids.
        out["recent"] = con.execute(f"SELECT {cols} FROM live WHERE flag AND when_ts >= ? ORDER BY "
                                    f"when_ts DESC, {order} LIMIT {lim}", [float(since)]).fetchall()
        con.execute("CREATE TEMP TABLE head AS SELECT unnest(?::VARCHAR[]) AS scope, unnest(?::VARCHAR[]) AS path",
                    [[r[0] for r in out["recent"]], [r[2] for r in out["recent"]]])
        out["tail"] = con.execute(f"SELECT count(*), coalesce(min({lb}), 0) FROM live WHERE flag AND when_ts >= ? "
                                  "AND (scope, path) NOT IN (SELECT (scope, path) FROM head)",
                                  [float(since)]).fetchone()
        picked_ids = [r[1] for r in out["prefs"] + out["top"]]
        out["ids"] = con.execute("SELECT count(DISTINCT id) FROM (SELECT id FROM live WHERE flag AND when_ts >= ? "
                                 "UNION ALL SELECT unnest(?::VARCHAR[]))", [float(since), picked_ids]).fetchone()[0]
    return out
