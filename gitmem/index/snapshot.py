"""The in-memory view queries run on: the index file's tables copied into an in-memory
DuckDB (postings keyed by integer term hashes and scope codes, for BM25 in SQL) plus
numpy arrays of the doc columns and vectors. Taken by a short read-only open, so a warm
process holds no lock on the file; refreshed in place by re-reading changed paths."""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

import numpy as np

from gitmem.core.errors import IndexError_
from gitmem.index.db import SCHEMA_VERSION, attach, load_duckdb

# A 63-bit term hash computed by DuckDB at snapshot and query time alike.
_TERM_HASH = "(hash({}) >> 1)::BIGINT"

_POSTINGS_FROM = (f"SELECT {_TERM_HASH.format('p.term')} AS th, p.doc, p.tf, d.len, m.sc, d.archived, d.type, "
                  "d.created FROM f.postings p JOIN {docs} d USING (doc) JOIN scope_codes m ON m.scope = d.scope")
_DFS_FROM = "SELECT sc, th, count(*)::DOUBLE AS df FROM postings WHERE NOT archived GROUP BY sc, th"
_VECS_FROM = ("SELECT d.doc, any_value(e.vec) FROM {docs} d JOIN f.emb e ON e.text_hash = d.text_hash "
              "WHERE e.model = ? GROUP BY d.doc")

_SERIALS = itertools.count(1)
# Doc ids of rows added in memory start here (the file counts from 1).
LOCAL_DOCS = 1 << 60
# The smallest vector buffer splice_rows allocates (it grows by a quarter when full).
MIN_BUFFER_ROWS = 64

# (old commit, new commit) -> the paths that differ, or None when the old one is gone.
ChangedPaths = Callable[[str, str], "Iterable[str] | None"]


@dataclass
class Snapshot:
    """An in-memory copy of the index: DuckDB tables for BM25, numpy for vectors."""

    con: Any
    cursors: dict[str, str]
    model: str | None
    docs: np.ndarray                     # doc ids, aligned with the arrays below
    scope_of: np.ndarray                 # scope code per doc
    scope_codes: dict[str, int]
    archived: np.ndarray
    created: np.ndarray
    type_of: np.ndarray
    type_codes: dict[str, int]
    vectors: np.ndarray | None           # (n, dim) float32, L2-normalised, or None
    has_vec: np.ndarray                  # bool per doc
    lens: np.ndarray                     # token count per doc
    columns: list[str]                   # names of the docs columns
    table: list[tuple]                   # the docs rows, aligned with `docs`
    row_of: dict[int, int] = field(default_factory=dict)
    # A snapshot as of a past revision (index/asof.py) keeps its postings in temp
    # tables of the current snapshot's connection, which it does not own.
    postings_table: str = "postings"
    dfs_table: str = "dfs"
    owns_con: bool = True
    vec_pending: bool = False            # the file has chunks waiting for vectors
    # The vectors' storage when rows were appended in place: `vectors` is a view of its
    # first `size` rows (see splice_rows).
    vec_buf: np.ndarray | None = None
    # The next doc id of a row added in memory from git (index/overlay.py): a range the
    # file never reaches, so a later refresh from the file cannot collide with it.
    next_local_doc: int = LOCAL_DOCS
    # Which snapshot this is, and how often rows were dropped from it: rows only appended
    # since a (serial, epoch, size) keep their positions (recall/neighbours.py grows on that).
    serial: int = field(default_factory=lambda: next(_SERIALS))
    epoch: int = 0

    @property
    def pending(self) -> int:
        """Chunks whose vectors are not computed yet (a build under recall --timeout
        left them for later); 0 when the file says none are."""
        if not self.model or not self.vec_pending:
            return 0
        return int(self.size - int(self.has_vec.sum()))

    @property
    def size(self) -> int:
        return int(self.docs.shape[0])

    def mask(self, scopes: Sequence[str] | None, types: Sequence[str] | None,
             since: float | None, archived: bool) -> np.ndarray:
        """Which docs pass the filters (bool per doc)."""
        m = np.ones(self.size, dtype=bool)
        if scopes is not None:
            codes = [self.scope_codes[s] for s in scopes if s in self.scope_codes]
            m &= np.isin(self.scope_of, codes)
        if types:
            codes = [self.type_codes[t] for t in types if t in self.type_codes]
            m &= np.isin(self.type_of, codes)
        if since is not None:
            m &= self.created >= since
        if not archived:
            m &= ~self.archived
        return m

    def bm25(self, terms: Sequence[str], scopes: Sequence[str] | None, types: Sequence[str] | None,
             since: float | None, archived: bool, k1: float, b: float, limit: int) -> list[tuple[int, float]]:
        """Okapi BM25 in SQL over the postings. N and avgdl are those of the searched
        docs; document frequencies are summed over the searched scopes (live memories)."""
        return self.bm25_mass(terms, scopes, types, since, archived, k1, b, limit)[0]

    def bm25_mass(self, terms: Sequence[str], scopes: Sequence[str] | None, types: Sequence[str] | None,
                  since: float | None, archived: bool, k1: float, b: float, limit: int,
                  also: Sequence[int] = ()) -> tuple[list[tuple[int, float]], float]:
        """`bm25`, and the query's idf mass: the sum of its terms' idf (a term no doc has
        counts at df 0), about what a doc holding every term once at average length
        scores — what a BM25 score is out of. 0.0 when nothing matched. `also`: archived
        docs scored too (the caller checked their other filters), with N and avgdl of
        the others, so their presence changes no other doc's score (a term only they
        hold counts at df 0)."""
        terms = list(dict.fromkeys(terms))
        if not terms or self.size == 0:
            return [], 0.0
        sel = self.mask(scopes, types, since, archived)
        n = int(sel.sum())
        if n == 0:
            return [], 0.0
        avgdl = max(float(self.lens[sel].mean()), 1.0)
        codes = sorted(self.scope_codes.values()) if scopes is None else sorted(
            self.scope_codes[s] for s in scopes if s in self.scope_codes)
        if not codes:
            return [], 0.0
        # One statement (each round trip to DuckDB costs); only integer scope codes are
        # spliced into the SQL text, everything else binds.
        sc = ",".join(map(str, codes))
        where, params = _filters(None, types, since, archived or bool(len(also)), prefix="p.")
        dz = ",\n            dz AS (SELECT th, coalesce(d.df, 0) AS df FROM q LEFT JOIN d USING (th))" if len(also) else ""
        if len(also) and not archived:
            where += " AND (NOT p.archived OR p.doc IN (SELECT unnest(?::BIGINT[])))"
            params.append([int(d) for d in also])
        sql = f"""
            WITH q AS (SELECT DISTINCT {_TERM_HASH.format('t')} AS th FROM (SELECT unnest(?::VARCHAR[]) AS t)),
            d AS (SELECT th, sum(df) AS df FROM {self.dfs_table} WHERE sc IN ({sc}) AND th IN (SELECT th FROM q) GROUP BY th),
            m AS (SELECT sum(ln(1 + (? - least(coalesce(d.df, 0), ?) + 0.5) / (least(coalesce(d.df, 0), ?) + 0.5)))
                  AS mass FROM q LEFT JOIN d USING (th)){dz}
            SELECT p.doc, sum(ln(1 + (? - d.df + 0.5) / (d.df + 0.5))
                   * p.tf * (? + 1) / (p.tf + ? * (1 - ? + ? * p.len / ?))) AS score, (SELECT mass FROM m)
            FROM {self.postings_table} p JOIN {"dz" if len(also) else "d"} d USING (th)
            WHERE p.sc IN ({sc}) AND {where}
            GROUP BY p.doc ORDER BY score DESC, p.doc LIMIT ?"""
        nf = float(n)
        rows = self.con.execute(sql, [terms, nf, nf, nf, nf, k1, k1, b, b, avgdl] + params + [limit]).fetchall()
        return [(int(d), float(s)) for d, s, _ in rows], float(rows[0][2] or 0.0) if rows else 0.0

    def dfs(self, terms: Sequence[str], scopes: Sequence[str] | None) -> tuple[dict[str, float], int]:
        """The document frequency of each of `terms` in the live docs of `scopes` (terms
        none holds left out), and how many live docs those scopes have."""
        terms = list(dict.fromkeys(terms))
        codes = sorted(self.scope_codes.values()) if scopes is None else sorted(
            self.scope_codes[s] for s in scopes if s in self.scope_codes)
        n = int(self.mask(scopes, None, None, False).sum())
        if not terms or not codes:
            return {}, n
        sql = (f"SELECT q.t, sum(d.df) FROM (SELECT unnest(?::VARCHAR[]) AS t) q JOIN {self.dfs_table} d "
               f"ON d.th = {_TERM_HASH.format('q.t')} WHERE d.sc IN ({','.join(map(str, codes))}) GROUP BY q.t")
        return {t: float(df) for t, df in self.con.execute(sql, [terms]).fetchall() if df}, n

    def rows(self, docs: Sequence[int]) -> dict[int, dict[str, Any]]:
        """Full rows of the given docs (held in memory: no query per hit)."""
        out = {}
        for d in docs:
            i = self.row_of.get(int(d))
            if i is not None:
                out[int(d)] = dict(zip(self.columns, self.table[i]))
        return out

    def close(self) -> None:
        try:
            if self.owns_con:
                self.con.close()
            else:
                for t in (self.postings_table, self.dfs_table):
                    self.con.execute(f"DROP TABLE IF EXISTS {t}")
        except Exception:
            pass


def _filters(scopes, types, since, archived, prefix: str = "") -> tuple[str, list[Any]]:
    where, params = ["TRUE"], []
    if scopes is not None:
        where.append(f"{prefix}scope IN (SELECT unnest(?::VARCHAR[]))")
        params.append(list(scopes))
    if types:
        where.append(f"{prefix}type IN (SELECT unnest(?::VARCHAR[]))")
        params.append(list(types))
    if since is not None:
        where.append(f"{prefix}created >= ?")
        params.append(float(since))
    if not archived:
        where.append(f"NOT {prefix}archived")
    return " AND ".join(where), params


def load_snapshot(path: Path, model_id: str | None, retry: float) -> Snapshot:
    """A full copy of the file at `path` (vectors of `model_id` only)."""
    duckdb = load_duckdb()
    mem = duckdb.connect(":memory:")
    try:
        attach(mem, path, retry)
    except Exception:
        mem.close()
        raise
    try:
        meta = dict(mem.execute("SELECT k, v FROM f.meta").fetchall())
        if meta.get("schema") != SCHEMA_VERSION:
            raise IndexError_("index schema is out of date")
        cursors = dict(mem.execute("SELECT scope, commit_id FROM f.cursors").fetchall())
        cur = mem.execute("SELECT * FROM f.docs ORDER BY doc")
        columns = [c[0] for c in cur.description]
        table = cur.fetchall()
        # Column arrays straight from DuckDB (numpy), not through Python tuples.
        arr = mem.execute("SELECT doc, scope, archived, created, type, len FROM f.docs ORDER BY doc").fetchnumpy()
        scope_names, scope_of = np.unique(np.asarray(arr["scope"], dtype=object).astype(str), return_inverse=True)
        type_names, type_of = np.unique(np.asarray(arr["type"], dtype=object).astype(str), return_inverse=True)
        scope_codes = {str(name): i for i, name in enumerate(scope_names)}
        type_codes = {str(name): i for i, name in enumerate(type_names)}
        # Postings carry the filter columns of their doc so a query needs no join, and
        # integer term hashes and scope codes: comparing strings dominated query time.
        mem.execute("CREATE TABLE scope_codes (scope VARCHAR, sc INTEGER)")
        if scope_codes:
            mem.execute("INSERT INTO scope_codes SELECT unnest(?::VARCHAR[]), unnest(?::INTEGER[])",
                        [list(scope_codes), list(scope_codes.values())])
        mem.execute("CREATE TABLE postings AS " + _POSTINGS_FROM.format(docs="f.docs") + " ORDER BY th")
        mem.execute("CREATE TABLE dfs AS " + _DFS_FROM + " ORDER BY th")
        vec = None
        if model_id:
            vec = mem.execute(_VECS_FROM.format(docs="f.docs") + " ORDER BY d.doc", [model_id]).fetchnumpy()
    finally:
        try:
            mem.execute("DETACH f")
        except duckdb.Error:
            pass
    n = len(table)
    docs = np.asarray(arr["doc"], dtype=np.int64)
    archived = np.asarray(arr["archived"], dtype=bool)
    created = np.nan_to_num(np.asarray(arr["created"], dtype=np.float64))
    lens = np.nan_to_num(np.asarray(arr["len"], dtype=np.float64))
    row_of = {int(d): i for i, d in enumerate(docs.tolist())}
    vectors = None
    has_vec = np.zeros(n, dtype=bool)
    if vec is not None and len(vec["doc"]):
        blobs = list(vec[list(vec)[1]])
        dim = len(blobs[0]) // 4
        if dim and all(len(x) == dim * 4 for x in blobs):
            mat = np.frombuffer(b"".join(blobs), dtype=np.float32).reshape(len(blobs), dim)
            pos = np.searchsorted(docs, np.asarray(vec["doc"], dtype=np.int64))
            vectors = np.zeros((n, dim), dtype=np.float32)
            vectors[pos] = mat
            has_vec[pos] = True
    return Snapshot(mem, cursors, model_id, docs, scope_of.astype(np.int32), scope_codes, archived, created,
                    type_of.astype(np.int32), type_codes, vectors, has_vec, lens, columns, table, row_of,
                    vec_pending=bool(model_id) and meta.get("vec_pending") == model_id)


def refresh(snap: Snapshot, path: Path, retry: float, changed_paths: ChangedPaths,
            max_paths: int = 5000) -> bool:
    """Bring a warm snapshot up to the file by re-reading only the files that changed
    between its cursors and the file's (`changed_paths` asks git). False: do a full copy."""
    mem = snap.con
    attach(mem, path, retry)
    try:
        meta = dict(mem.execute("SELECT k, v FROM f.meta").fetchall())
        if meta.get("schema") != SCHEMA_VERSION:
            return False
        cursors = dict(mem.execute("SELECT scope, commit_id FROM f.cursors").fetchall())
        if set(cursors) != set(snap.cursors) or any(s not in snap.scope_codes for s in cursors):
            return False
        if snap.model and meta.get("vec_pending") == snap.model:
            return False   # some vectors wait: a full copy knows which
        changed: list[tuple[str, str]] = []
        for scope, new in cursors.items():
            old = snap.cursors[scope]
            if old == new:
                continue
            paths = changed_paths(old, new)
            if paths is None:
                return False
            changed.extend((scope, p) for p in paths)
            if len(changed) > max_paths:
                return False
        if not changed:
            snap.cursors = cursors
            return True
        mem.execute("CREATE OR REPLACE TEMP TABLE chg AS SELECT unnest(?::VARCHAR[]) AS scope, "
                    "unnest(?::VARCHAR[]) AS path", [[c[0] for c in changed], [c[1] for c in changed]])
        mem.execute("CREATE OR REPLACE TEMP TABLE chg_docs AS SELECT d.* FROM f.docs d JOIN chg USING (scope, path)")
        cur = mem.execute("SELECT * FROM chg_docs ORDER BY doc")
        if [c[0] for c in cur.description] != snap.columns:
            return False
        new_table = cur.fetchall()
        ci = {name: i for i, name in enumerate(snap.columns)}
        if any(r[ci["scope"]] not in snap.scope_codes for r in new_table):
            return False
        drop_idx = rows_of_files(snap, set(changed))
        old_docs = [int(snap.table[i][ci["doc"]]) for i in drop_idx]
        vec_rows = []
        if snap.model:
            vec_rows = mem.execute(_VECS_FROM.format(docs="chg_docs"), [snap.model]).fetchall()
        if vec_rows and snap.vectors is None:
            return False
        splice_postings(mem, old_docs, lambda t: mem.execute(
            f"INSERT INTO {t} " + _POSTINGS_FROM.format(docs="chg_docs")))
    finally:
        for stmt in ("DROP TABLE IF EXISTS chg", "DROP TABLE IF EXISTS chg_docs", "DETACH f"):
            try:
                mem.execute(stmt)
            except Exception:
                pass
    for r in new_table:
        snap.type_codes.setdefault(r[ci["type"]], len(snap.type_codes))
    m = len(new_table)
    new_vecs, has_new = None, np.zeros(m, dtype=bool)
    if snap.vectors is not None:
        dim = snap.vectors.shape[1]
        new_vecs = np.zeros((m, dim), dtype=np.float32)
        at = {int(r[ci["doc"]]): j for j, r in enumerate(new_table)}
        for d, blob in vec_rows:
            j = at.get(int(d))
            if j is not None and len(blob) == dim * 4:
                new_vecs[j] = np.frombuffer(blob, dtype=np.float32)
                has_new[j] = True
    splice_rows(snap, drop_idx, new_table, new_vecs, has_new)
    snap.cursors = cursors
    return True


def rows_of_files(snap: Snapshot, files: set[tuple[str, str]]) -> list[int]:
    """Positions of the rows of these (scope, path) files (a scan of the rows)."""
    if not files:
        return []
    ci = {name: i for i, name in enumerate(snap.columns)}
    c_scope, c_path, paths = ci["scope"], ci["path"], {p for _, p in files}
    return [i for i, r in enumerate(snap.table) if r[c_path] in paths and (r[c_scope], r[c_path]) in files]


def splice_postings(mem: Any, old_docs: list[int], add: Callable[[str], Any]) -> None:
    """Drop the postings of `old_docs` and add new ones (`add(table)` inserts them into
    the temp table named), adjusting the document frequencies by the difference: no
    GROUP BY over every posting on each write."""
    mem.execute("CREATE OR REPLACE TEMP TABLE newp AS SELECT * FROM postings LIMIT 0")
    try:
        mem.execute("CREATE OR REPLACE TEMP TABLE dfd (sc INTEGER, th BIGINT, d DOUBLE)")
        if old_docs:
            mem.execute("CREATE OR REPLACE TEMP TABLE oldd AS SELECT unnest(?::BIGINT[]) AS doc", [old_docs])
            mem.execute("INSERT INTO dfd SELECT sc, th, -count(*) FROM postings WHERE doc IN (SELECT doc FROM oldd) "
                        "AND NOT archived GROUP BY sc, th")
            mem.execute("DELETE FROM postings WHERE doc IN (SELECT doc FROM oldd)")
        add("newp")
        mem.execute("INSERT INTO dfd SELECT sc, th, count(*) FROM newp WHERE NOT archived GROUP BY sc, th")
        mem.execute("INSERT INTO postings SELECT * FROM newp")
        mem.execute("CREATE OR REPLACE TEMP TABLE dfx AS SELECT sc, th, sum(d) AS d FROM dfd GROUP BY sc, th "
                    "HAVING sum(d) <> 0")
        mem.execute("UPDATE dfs SET df = dfs.df + dfx.d FROM dfx WHERE dfs.sc = dfx.sc AND dfs.th = dfx.th")
        mem.execute("INSERT INTO dfs SELECT sc, th, d FROM dfx WHERE d > 0 AND NOT EXISTS "
                    "(SELECT 1 FROM dfs WHERE dfs.sc = dfx.sc AND dfs.th = dfx.th)")
        mem.execute("DELETE FROM dfs WHERE df < 0.5 AND th IN (SELECT th FROM dfx)")
    finally:
        for t in ("newp", "dfd", "dfx", "oldd"):
            mem.execute(f"DROP TABLE IF EXISTS {t}")


def splice_rows(snap: Snapshot, drop_idx: list[int], new_table: list[tuple], new_vecs: np.ndarray | None,
                has_new: np.ndarray) -> None:
    """The array side of a change: rows at `drop_idx` out, `new_table` (in snap.columns
    order, their vectors in `new_vecs`) appended. A write that only adds rows, the usual
    case, keeps the old rows as they are and the vectors in a buffer with a quarter of
    headroom, so it costs what it adds (amortised), not a copy of every vector."""
    ci = {name: i for i, name in enumerate(snap.columns)}
    m = len(new_table)
    keep = None
    if drop_idx:
        keep = np.ones(snap.size, dtype=bool)
        keep[drop_idx] = False

    def kept(a: np.ndarray) -> np.ndarray:
        return a if keep is None else a[keep]

    n_keep = snap.size - len(drop_idx)
    old_vectors = snap.vectors
    snap.table = (snap.table + new_table if keep is None else
                  [r for r, k in zip(snap.table, keep.tolist()) if k] + new_table)
    snap.docs = np.concatenate([kept(snap.docs), np.array([r[ci["doc"]] for r in new_table], dtype=np.int64)])
    snap.scope_of = np.concatenate([kept(snap.scope_of), np.array(
        [snap.scope_codes[r[ci["scope"]]] for r in new_table], dtype=np.int32)])
    snap.type_of = np.concatenate([kept(snap.type_of), np.array(
        [snap.type_codes[r[ci["type"]]] for r in new_table], dtype=np.int32)])
    snap.archived = np.concatenate([kept(snap.archived), np.array(
        [bool(r[ci["archived"]]) for r in new_table], dtype=bool)])
    snap.created = np.concatenate([kept(snap.created), np.array(
        [r[ci["created"]] or 0.0 for r in new_table], dtype=np.float64)])
    snap.lens = np.concatenate([kept(snap.lens), np.array([r[ci["len"]] or 0 for r in new_table], dtype=np.float64)])
    snap.has_vec = np.concatenate([kept(snap.has_vec), has_new[:m].astype(bool)])
    if keep is not None:
        snap.epoch += 1
        snap.row_of = {int(d): i for i, d in enumerate(snap.docs.tolist())}
    else:
        snap.row_of.update((int(d), i) for i, d in enumerate(snap.docs[n_keep:].tolist(), n_keep))
    if new_vecs is None and old_vectors is None:
        return
    dim = (old_vectors if old_vectors is not None else new_vecs).shape[1]
    need = n_keep + m
    buf = snap.vec_buf if snap.vec_buf is not None and snap.vec_buf.shape[1] == dim else None
    if buf is None or buf.shape[0] < need:
        buf = np.zeros((max(need + need // 4, MIN_BUFFER_ROWS), dim), dtype=np.float32)
        if old_vectors is not None:
            buf[:n_keep] = kept(old_vectors)
    elif keep is not None:
        buf[:n_keep] = old_vectors[keep]   # in place: the rows before the first drop stay
    if m:
        buf[n_keep:need] = new_vecs if new_vecs is not None else 0.0
    snap.vec_buf = buf
    snap.vectors = buf[:need]


def mean_vectors(snap: Snapshot, ids: Iterable[str], scopes: Sequence[str] | None = None) -> dict[str, np.ndarray]:
    """id -> L2-normalised mean vector of its chunks in `snap` (for near-duplicate detection)."""
    wanted = list(dict.fromkeys(ids))
    if snap.vectors is None or not wanted:
        return {}
    want = set(wanted)
    ci = {name: i for i, name in enumerate(snap.columns)}
    rows = [(r[ci["mem_id"]], r[ci["doc"]], r[ci["scope"]]) for r in snap.table if r[ci["mem_id"]] in want]
    acc: dict[str, list[np.ndarray]] = {}
    for mem_id, doc, scope in rows:
        if scopes is not None and scope not in scopes:
            continue
        i = snap.row_of.get(int(doc))
        if i is not None and snap.has_vec[i]:
            acc.setdefault(mem_id, []).append(snap.vectors[i])
    out = {}
    for mem_id, vs in acc.items():
        v = np.mean(vs, axis=0)
        n = np.linalg.norm(v)
        out[mem_id] = (v / n if n else v).astype(np.float32)
    return out
