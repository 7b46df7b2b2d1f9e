"""The DuckDB sidecar ($GITMEM_HOME/index.duckdb): chunks, postings, embeddings and a
cursor per scope. Derived from git only, so it can be deleted at any time.

Concurrency. DuckDB lets one process open a file read-write and then refuses every
other open ("Could not set lock on file"); read-only opens share. So:
- one owner at a time: the process holding the flock `state/locks/index.lock` is the
  only one that opens the file read-write, and only for the short write of a batch
  whose tokens and vectors were computed beforehand (no DuckDB handle is held while
  embedding);
- everyone reads through a short read-only open that copies the tables into an
  in-memory DuckDB plus numpy vectors (`Snapshot`) and closes the file again, so a warm
  process (the API, a daemon) serves queries without holding any file lock;
- every open retries briefly on the lock error; a full rebuild writes a new file and
  swaps it in with os.replace, so readers never see half an index;
- git writes never touch this file or its lock.

The only module that imports duckdb."""

from __future__ import annotations

import hashlib
import os
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, ContextManager, Iterable, Sequence

import numpy as np

from . import model as mdl
from .errors import ConflictError, IndexError_
from .fsutil import file_lock
from .tokens import term_counts

SCHEMA_VERSION = "1"
INDEX_NAME = "index.duckdb"

# Documented defaults (config section [index]).
INDEX_DEFAULTS = {
    "chunk_lines": 20,      # a chunk of a long file spans at most this many lines
    "chunk_chars": 1500,    # ... and at most about this many characters
    "lock_timeout": 120.0,  # seconds to wait for another process building the index
    "open_retry": 10.0,     # seconds to retry a DuckDB open refused by a lock
}

Progress = Callable[[int, str], ContextManager[Any]]

# A 63-bit term hash computed by DuckDB at snapshot and query time alike.
_TERM_HASH = "(hash({}) >> 1)::BIGINT"
_HEADING = re.compile(r"^#{1,6}\s")
_DATE_IN_PATH = re.compile(r"(\d{4}-\d{2}-\d{2})")


def _duckdb():
    import duckdb

    return duckdb


def index_path(home: Path) -> Path:
    return Path(home) / INDEX_NAME


def lock_path(home: Path) -> Path:
    return Path(home) / "state" / "locks" / "index.lock"


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


# ---- what gets indexed ----------------------------------------------------------------
@dataclass
class Chunk:
    scope: str
    path: str
    mem_id: str
    key: str | None
    type: str
    importance: int
    created: float
    archived: bool
    start_line: int
    end_line: int
    text: str          # the chunk text: embedded, shown as the snippet
    search_text: str   # text + tags: what BM25 sees (a tag edit re-tokenises only)

    @property
    def hash(self) -> str:
        return text_hash(self.text)


def indexable(path: str) -> bool:
    if not path.endswith(".md"):
        return False
    return path.startswith(("memories/", "archive/", "daily/", "sessions/"))


def split_lines(text: str, max_lines: int, max_chars: int) -> list[tuple[int, int, str]]:
    """(first line, last line, text) chunks, 1-based, by heading, then by line windows."""
    lines = text.splitlines()
    if not lines:
        return []
    if len(lines) <= max_lines and len(text) <= max_chars:
        return [(1, len(lines), text.strip("\n"))] if text.strip() else []
    sections: list[tuple[int, int]] = []
    start = 0
    for i, ln in enumerate(lines):
        if i > start and _HEADING.match(ln):
            sections.append((start, i))
            start = i
    sections.append((start, len(lines)))
    out = []
    for a, b in sections:
        i = a
        while i < b:
            j, size = i, 0
            while j < b and j - i < max_lines and (size + len(lines[j]) <= max_chars or j == i):
                size += len(lines[j]) + 1
                j += 1
            body = "\n".join(lines[i:j])
            if body.strip():
                out.append((i + 1, j, body))
            i = j
    return out


def _epoch(value: str | None, fallback: float = 0.0) -> float:
    if not value:
        return fallback
    try:
        return mdl.parse_when(value).timestamp()
    except Exception:
        return fallback


def chunks_of(scope: str, path: str, data: bytes, max_lines: int, max_chars: int) -> list[Chunk]:
    """The chunks of one file at a scope's tip."""
    archived = path.startswith("archive/")
    if path.startswith(("memories/", "archive/")):
        try:
            mem = mdl.parse(data, path=path)
        except Exception:
            return []
        created = _epoch(mem.created)
        if not created and mdl.is_id(mem.id):
            created = mdl.id_time(mem.id).timestamp()
        tags = " ".join(mem.tags)
        parts = split_lines(mem.text, max_lines, max_chars)
        return [Chunk(scope, path, mem.id, mem.key, mem.type, mem.importance, created, archived,
                      a, b, t, t + ("\n" + tags if tags and n == 0 else ""))
                for n, (a, b, t) in enumerate(parts)]
    text = data.decode("utf-8", "replace")
    m = _DATE_IN_PATH.search(path)
    created = _epoch(m.group(1)) if m else 0.0
    kind = "journal" if path.startswith("daily/") else "session"
    return [Chunk(scope, path, path, None, kind, mdl.DEFAULT_IMPORTANCE, created, archived, a, b, t, t)
            for a, b, t in split_lines(text, max_lines, max_chars)]


# ---- the file ---------------------------------------------------------------------------
_SCHEMA = [
    "CREATE TABLE IF NOT EXISTS meta (k VARCHAR, v VARCHAR)",
    "CREATE TABLE IF NOT EXISTS cursors (scope VARCHAR, commit_id VARCHAR)",
    """CREATE TABLE IF NOT EXISTS docs (doc BIGINT, scope VARCHAR, path VARCHAR, mem_id VARCHAR,
        key VARCHAR, type VARCHAR, importance INTEGER, created DOUBLE, archived BOOLEAN,
        start_line INTEGER, end_line INTEGER, len INTEGER, text_hash VARCHAR, text VARCHAR)""",
    "CREATE TABLE IF NOT EXISTS postings (term VARCHAR, doc BIGINT, tf INTEGER)",
    "CREATE TABLE IF NOT EXISTS emb (model VARCHAR, text_hash VARCHAR, vec BLOB)",
]


def _is_lock_error(e: Exception) -> bool:
    msg = str(e)
    return "lock" in msg.lower() or "Conflicting" in msg


def connect(path: Path, read_only: bool, retry: float = 10.0):
    """Open the DuckDB file, retrying while another process holds a conflicting lock."""
    duckdb = _duckdb()
    deadline = time.monotonic() + retry
    delay = 0.005
    while True:
        try:
            return duckdb.connect(str(path), read_only=read_only)
        except duckdb.Error as e:
            if not _is_lock_error(e) or time.monotonic() > deadline:
                raise
            time.sleep(delay)
            delay = min(delay * 2, 0.1)


def _meta(con) -> dict[str, str]:
    return dict(con.execute("SELECT k, v FROM meta").fetchall())


def _set_meta(con, **kv: str) -> None:
    for k, v in kv.items():
        con.execute("DELETE FROM meta WHERE k = ?", [k])
        con.execute("INSERT INTO meta VALUES (?, ?)", [k, str(v)])


# ---- the in-memory view used by queries ---------------------------------------------------
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

    @property
    def size(self) -> int:
        return int(self.docs.shape[0])

    def mask(self, scopes: Sequence[str] | None, types: Sequence[str] | None,
             since: float | None, archived: bool) -> np.ndarray:
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
        terms = list(dict.fromkeys(terms))
        if not terms or self.size == 0:
            return []
        sel = self.mask(scopes, types, since, archived)
        n = int(sel.sum())
        if n == 0:
            return []
        avgdl = max(float(self.lens[sel].mean()), 1.0)
        codes = sorted(self.scope_codes.values()) if scopes is None else sorted(
            self.scope_codes[s] for s in scopes if s in self.scope_codes)
        if not codes:
            return []
        # One statement (each round trip to DuckDB costs); only integer scope codes are
        # spliced into the SQL text, everything else binds.
        sc = ",".join(map(str, codes))
        where, params = _filters(None, types, since, archived, prefix="p.")
        sql = f"""
            WITH q AS (SELECT DISTINCT {_TERM_HASH.format('t')} AS th FROM (SELECT unnest(?::VARCHAR[]) AS t)),
            d AS (SELECT th, sum(df) AS df FROM dfs WHERE sc IN ({sc}) AND th IN (SELECT th FROM q) GROUP BY th)
            SELECT p.doc, sum(ln(1 + (? - d.df + 0.5) / (d.df + 0.5))
                   * p.tf * (? + 1) / (p.tf + ? * (1 - ? + ? * p.len / ?))) AS score
            FROM postings p JOIN d USING (th)
            WHERE p.sc IN ({sc}) AND {where}
            GROUP BY p.doc ORDER BY score DESC, p.doc LIMIT ?"""
        rows = self.con.execute(sql, [terms, float(n), k1, k1, b, b, avgdl] + params + [limit]).fetchall()
        return [(int(d), float(s)) for d, s in rows]

    def rows(self, docs: Sequence[int]) -> dict[int, dict[str, Any]]:
        """Full rows of the given docs (held in memory: no query per hit)."""
        out = {}
        for d in docs:
            i = self.row_of.get(int(d))
            if i is not None:
                out[int(d)] = dict(zip(self.columns, self.table[i]))
        return out


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


def _attach(mem, path: Path, retry: float) -> None:
    """ATTACH the index file read-only as `f`, retrying while a writer holds it."""
    duckdb = _duckdb()
    deadline = time.monotonic() + retry
    delay = 0.005
    while True:
        try:
            mem.execute(f"ATTACH '{_sql_str(str(path))}' AS f (READ_ONLY)")
            return
        except duckdb.Error as e:
            if not _is_lock_error(e) or time.monotonic() > deadline:
                raise
            time.sleep(delay)
            delay = min(delay * 2, 0.1)


_POSTINGS_FROM = (f"SELECT {_TERM_HASH.format('p.term')} AS th, p.doc, p.tf, d.len, m.sc, d.archived, d.type, "
                  "d.created FROM f.postings p JOIN {docs} d USING (doc) JOIN scope_codes m ON m.scope = d.scope")
_DFS_FROM = "SELECT sc, th, count(*)::DOUBLE AS df FROM postings WHERE NOT archived GROUP BY sc, th"
_VECS_FROM = ("SELECT d.doc, any_value(e.vec) FROM {docs} d JOIN f.emb e ON e.text_hash = d.text_hash "
              "WHERE e.model = ? GROUP BY d.doc")


def _load_snapshot(path: Path, model_id: str | None, retry: float) -> Snapshot:
    duckdb = _duckdb()
    mem = duckdb.connect(":memory:")
    try:
        _attach(mem, path, retry)
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
                    type_of.astype(np.int32), type_codes, vectors, has_vec, lens, columns, table, row_of)


def _sql_str(s: str) -> str:
    return s.replace("'", "''")


# ---- the index ----------------------------------------------------------------------------
class Index:
    """The derived index of one store. Cheap to construct; nothing opens until used."""

    def __init__(self, home: Path, git, config, embedder=None):
        self.home = Path(home)
        self.git = git
        self.config = config
        self.embedder = embedder
        self.path = index_path(self.home)
        self._snap: Snapshot | None = None
        self.last_build: dict[str, Any] = {}

    def _opt(self, key: str) -> Any:
        return self.config.get("index", key, INDEX_DEFAULTS[key])

    @property
    def model_id(self) -> str | None:
        return self.embedder.model_id if self.embedder is not None else None

    # ---- freshness ----------------------------------------------------------------
    def _tips(self) -> dict[str, str]:
        return dict(self.git.scopes())

    def snapshot(self, progress: Progress | None = None) -> Snapshot:
        """A fresh in-memory view, catching the file up with git first if needed."""
        tips = self._tips()
        snap = self._snap
        if snap is not None and snap.cursors == tips and snap.model == self.model_id:
            return snap
        self.ensure_fresh(tips=tips, progress=progress)
        if snap is not None and snap.model == self.model_id:
            try:
                if self._refresh(snap):
                    return snap
            except Exception:
                pass  # any surprise: fall back to a full copy below
        self.close()
        try:
            self._snap = _load_snapshot(self.path, self.model_id, float(self._opt("open_retry")))
        except Exception as e:
            if isinstance(e, IndexError_) or isinstance(e, _duckdb().Error):
                # Replaced or damaged between the check and the copy: rebuild once.
                self.rebuild(progress=progress)
                self._snap = _load_snapshot(self.path, self.model_id, float(self._opt("open_retry")))
            else:
                raise
        return self._snap

    def _refresh(self, snap: Snapshot, max_paths: int = 5000) -> bool:
        """Bring a warm snapshot up to the file by re-reading only the files that changed
        between its cursors and the file's (git tells which). False: do a full copy."""
        mem = snap.con
        _attach(mem, self.path, float(self._opt("open_retry")))
        try:
            meta = dict(mem.execute("SELECT k, v FROM f.meta").fetchall())
            if meta.get("schema") != SCHEMA_VERSION:
                return False
            cursors = dict(mem.execute("SELECT scope, commit_id FROM f.cursors").fetchall())
            if set(cursors) != set(snap.cursors) or any(s not in snap.scope_codes for s in cursors):
                return False
            changed: list[tuple[str, str]] = []
            for scope, new in cursors.items():
                old = snap.cursors[scope]
                if old == new:
                    continue
                if not self._has_commit(old):
                    return False
                changed.extend((scope, p) for _, p, _ in self.git.diff_files(old, new))
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
            gone = set(changed)
            drop_idx = [i for i, r in enumerate(snap.table) if (r[ci["scope"]], r[ci["path"]]) in gone]
            old_docs = [int(snap.table[i][ci["doc"]]) for i in drop_idx]
            vec_rows = []
            if snap.model:
                vec_rows = mem.execute(_VECS_FROM.format(docs="chg_docs"), [snap.model]).fetchall()
            if vec_rows and snap.vectors is None:
                return False
            if old_docs:
                mem.execute("DELETE FROM postings WHERE doc IN (SELECT unnest(?::BIGINT[]))", [old_docs])
            mem.execute("INSERT INTO postings " + _POSTINGS_FROM.format(docs="chg_docs"))
            mem.execute("DELETE FROM dfs")
            mem.execute("INSERT INTO dfs " + _DFS_FROM)
        finally:
            for stmt in ("DROP TABLE IF EXISTS chg", "DROP TABLE IF EXISTS chg_docs", "DETACH f"):
                try:
                    mem.execute(stmt)
                except Exception:
                    pass
        keep = np.ones(snap.size, dtype=bool)
        keep[drop_idx] = False
        m = len(new_table)
        for r in new_table:
            snap.type_codes.setdefault(r[ci["type"]], len(snap.type_codes))
        snap.table = [r for r, k in zip(snap.table, keep) if k] + new_table
        snap.docs = np.concatenate([snap.docs[keep], np.array([r[ci["doc"]] for r in new_table], dtype=np.int64)])
        snap.scope_of = np.concatenate([snap.scope_of[keep], np.array(
            [snap.scope_codes[r[ci["scope"]]] for r in new_table], dtype=np.int32)])
        snap.type_of = np.concatenate([snap.type_of[keep], np.array(
            [snap.type_codes[r[ci["type"]]] for r in new_table], dtype=np.int32)])
        snap.archived = np.concatenate([snap.archived[keep], np.array(
            [bool(r[ci["archived"]]) for r in new_table], dtype=bool)])
        snap.created = np.concatenate([snap.created[keep], np.array(
            [r[ci["created"]] or 0.0 for r in new_table], dtype=np.float64)])
        snap.lens = np.concatenate([snap.lens[keep], np.array([r[ci["len"]] or 0 for r in new_table], dtype=np.float64)])
        snap.row_of = {int(d): i for i, d in enumerate(snap.docs)}
        has_new = np.zeros(m, dtype=bool)
        if snap.vectors is not None:
            dim = snap.vectors.shape[1]
            new_vecs = np.zeros((m, dim), dtype=np.float32)
            base = snap.size - m
            for d, blob in vec_rows:
                i = snap.row_of.get(int(d))
                if i is not None and i >= base and len(blob) == dim * 4:
                    new_vecs[i - base] = np.frombuffer(blob, dtype=np.float32)
                    has_new[i - base] = True
            snap.vectors = np.concatenate([snap.vectors[keep], new_vecs])
        snap.has_vec = np.concatenate([snap.has_vec[keep], has_new])
        snap.cursors = cursors
        return True

    def close(self) -> None:
        if self._snap is not None:
            try:
                self._snap.con.close()
            except Exception:
                pass
            self._snap = None

    def _read_state(self) -> tuple[dict[str, str], dict[str, str]] | None:
        """(meta, cursors) of the file, or None when it is missing or unreadable."""
        if not self.path.exists():
            return None
        try:
            con = connect(self.path, read_only=True, retry=float(self._opt("open_retry")))
        except Exception:
            return None
        try:
            meta = _meta(con)
            cursors = dict(con.execute("SELECT scope, commit_id FROM cursors").fetchall())
        except Exception:
            return None
        finally:
            con.close()
        if meta.get("schema") != SCHEMA_VERSION:
            return None
        return meta, cursors

    def _fresh(self, state, tips: dict[str, str]) -> bool:
        meta, cursors = state
        return cursors == tips and (self.model_id is None or meta.get("vec_model") == self.model_id)

    def ensure_fresh(self, tips: dict[str, str] | None = None, progress: Progress | None = None) -> bool:
        """Bring the file up to date with every scope tip; True if anything changed."""
        tips = self._tips() if tips is None else tips
        state = self._read_state()
        if state is not None and self._fresh(state, tips):
            return False
        try:
            lock = file_lock(lock_path(self.home), timeout=float(self._opt("lock_timeout")))
            lock.__enter__()
        except ConflictError as e:
            raise IndexError_("the index is busy: another process has been building it for too long",
                              hint="retry, or run `gitmem reindex` once it finishes") from e
        try:
            # Another process may have done the work while we waited for the lock.
            tips = self._tips()
            state = self._read_state()
            if state is None:
                self._build(None, tips, progress, new_file=True)
                return True
            if self._fresh(state, tips):
                return False
            self._build(state, tips, progress, new_file=False)
            return True
        finally:
            lock.__exit__(None, None, None)

    def rebuild(self, progress: Progress | None = None) -> dict[str, Any]:
        """Rebuild into a new file and swap it in (`gitmem reindex`)."""
        with file_lock(lock_path(self.home), timeout=float(self._opt("lock_timeout"))):
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
            if old is not None and not self._has_commit(old):
                drop_scopes.append(scope)   # history was rewritten (forget): index afresh
                old = None
            for status, path, oid in self.git.diff_files(old, tip):
                if old is not None:
                    drops.append((scope, path))
                if status != "D" and oid and indexable(path):
                    chunks.extend(chunks_of(scope, path, self.git.blob(oid), max_lines, max_chars))
        return drops, drop_scopes, chunks

    def _has_commit(self, oid: str) -> bool:
        try:
            self.git.commit_obj(oid)
            return True
        except Exception:
            return False

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

    def _build(self, state, tips: dict[str, str], progress: Progress | None, new_file: bool) -> None:
        t0 = time.perf_counter()
        cursors = {} if new_file or state is None else state[1]
        meta = {} if state is None else state[0]
        drops, drop_scopes, chunks = self._plan(cursors, tips)
        target = self.path
        if new_file:
            _remove_stale_builds(self.path)
            target = self.path.with_name(f".{INDEX_NAME}.{os.getpid()}.tmp")
            for p in (target, Path(str(target) + ".wal")):
                p.unlink(missing_ok=True)
        # Which vectors exist already: in this file, or (rebuilding) in the old one.
        model = self.model_id
        known: set[str] = set()
        need_fill: list[tuple[str, str]] = []
        source = self.path if self.path.exists() and self._readable(self.path) else None
        if model and source is not None:
            known = self._known_hashes(source, model, {c.hash for c in chunks} if not new_file else None)
        if model and not new_file and meta.get("vec_model") != model:
            # The model changed (or came back): vectors for everything already indexed.
            need_fill = self._texts_without_vectors(source, model, known) if source else []
        wanted = {c.hash: c.text for c in chunks if c.hash not in known}
        wanted.update({h: t for h, t in need_fill if h not in known})
        vectors = self._embed_missing(wanted, progress)
        con = connect(target, read_only=False, retry=float(self._opt("open_retry")))
        try:
            for stmt in _SCHEMA:
                con.execute(stmt)
            if new_file and source is not None:
                self._copy_cache(con, source)
            con.execute("BEGIN")
            self._apply(con, drops, drop_scopes, chunks, vectors, model)
            con.execute("DELETE FROM cursors")
            con.execute("INSERT INTO cursors SELECT unnest(?::VARCHAR[]), unnest(?::VARCHAR[])",
                        [list(tips), list(tips.values())])
            _set_meta(con, schema=SCHEMA_VERSION, vec_model=model or "",
                      updated=str(time.time()))
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
        self.last_build = {"chunks": len(chunks), "embedded": len(vectors), "dropped_paths": len(drops),
                           "seconds": round(time.perf_counter() - t0, 3), "rebuilt": new_file}

    def _readable(self, path: Path) -> bool:
        try:
            con = connect(path, read_only=True, retry=float(self._opt("open_retry")))
        except Exception:
            return False
        try:
            con.execute("SELECT count(*) FROM emb").fetchone()
            return True
        except Exception:
            return False
        finally:
            con.close()

    def _known_hashes(self, path: Path, model: str, among: set[str] | None = None) -> set[str]:
        """Hashes with a cached vector for `model` (only those in `among`, if given)."""
        if among is not None and not among:
            return set()
        try:
            con = connect(path, read_only=True, retry=float(self._opt("open_retry")))
        except Exception:
            return set()
        try:
            if among is None:
                rows = con.execute("SELECT text_hash FROM emb WHERE model = ?", [model]).fetchall()
            else:
                rows = con.execute("SELECT text_hash FROM emb WHERE model = ? AND text_hash IN "
                                   "(SELECT unnest(?::VARCHAR[]))", [model, sorted(among)]).fetchall()
            return {r[0] for r in rows}
        except Exception:
            return set()
        finally:
            con.close()

    def _texts_without_vectors(self, path: Path, model: str, known: set[str]) -> list[tuple[str, str]]:
        """(hash, text) of indexed chunks with no cached vector for `model`."""
        con = connect(path, read_only=True, retry=float(self._opt("open_retry")))
        try:
            rows = con.execute(
                "SELECT DISTINCT d.text_hash, d.text FROM docs d WHERE NOT EXISTS "
                "(SELECT 1 FROM emb e WHERE e.model = ? AND e.text_hash = d.text_hash)", [model]).fetchall()
        finally:
            con.close()
        return [(h, t) for h, t in rows if h not in known]

    def _copy_cache(self, con, source: Path) -> None:
        """Carry the embedding cache into a rebuilt file (skipped if the old one is damaged)."""
        try:
            con.execute(f"ATTACH '{_sql_str(str(source))}' AS old (READ_ONLY)")
        except Exception:
            return
        try:
            con.execute("INSERT INTO emb SELECT * FROM old.emb")
        except Exception:
            pass
        finally:
            con.execute("DETACH old")

    def _apply(self, con, drops, drop_scopes, chunks: list[Chunk], vectors: dict[str, bytes], model) -> None:
        if drop_scopes:
            con.execute("DELETE FROM postings WHERE doc IN (SELECT doc FROM docs WHERE scope IN "
                        "(SELECT unnest(?::VARCHAR[])))", [drop_scopes])
            con.execute("DELETE FROM docs WHERE scope IN (SELECT unnest(?::VARCHAR[]))", [drop_scopes])
        if drops:
            con.execute("CREATE TEMP TABLE gone AS SELECT unnest(?::VARCHAR[]) AS scope, unnest(?::VARCHAR[]) AS path",
                        [[s for s, _ in drops], [p for _, p in drops]])
            con.execute("DELETE FROM postings WHERE doc IN (SELECT doc FROM docs JOIN gone USING (scope, path))")
            con.execute("DELETE FROM docs WHERE doc IN (SELECT doc FROM docs JOIN gone USING (scope, path))")
            con.execute("DROP TABLE gone")
        if chunks:
            start = con.execute("SELECT coalesce(max(doc), 0) + 1 FROM docs").fetchone()[0]
            cols: dict[str, list] = {k: [] for k in (
                "doc", "scope", "path", "mem_id", "key", "type", "importance", "created", "archived",
                "start_line", "end_line", "len", "text_hash", "text")}
            terms: list[str] = []
            pdocs: list[int] = []
            tfs: list[int] = []
            for n, c in enumerate(chunks):
                doc = start + n
                tc = term_counts(c.search_text)
                for name, value in (("doc", doc), ("scope", c.scope), ("path", c.path), ("mem_id", c.mem_id),
                                    ("key", c.key), ("type", c.type), ("importance", c.importance),
                                    ("created", c.created), ("archived", c.archived),
                                    ("start_line", c.start_line), ("end_line", c.end_line),
                                    ("len", sum(tc.values())), ("text_hash", c.hash), ("text", c.text)):
                    cols[name].append(value)
                for t, f in tc.items():
                    terms.append(t)
                    pdocs.append(doc)
                    tfs.append(f)
            con.execute(
                "INSERT INTO docs SELECT unnest(?::BIGINT[]), unnest(?::VARCHAR[]), unnest(?::VARCHAR[]), "
                "unnest(?::VARCHAR[]), unnest(?::VARCHAR[]), unnest(?::VARCHAR[]), unnest(?::INTEGER[]), "
                "unnest(?::DOUBLE[]), unnest(?::BOOLEAN[]), unnest(?::INTEGER[]), unnest(?::INTEGER[]), "
                "unnest(?::INTEGER[]), unnest(?::VARCHAR[]), unnest(?::VARCHAR[])", list(cols.values()))
            con.execute("INSERT INTO postings SELECT unnest(?::VARCHAR[]), unnest(?::BIGINT[]), unnest(?::INTEGER[])",
                        [terms, pdocs, tfs])
        if vectors and model:
            con.execute("INSERT INTO emb SELECT ?, unnest(?::VARCHAR[]), unnest(?::BLOB[])",
                        [model, list(vectors), list(vectors.values())])

    # ---- maintenance for other features --------------------------------------------
    def drop_ids(self, ids: Iterable[str]) -> int:
        """Remove memories (and their now unreferenced vectors) from the index; returns
        the number of chunks removed. Used by forget so no trace stays in the index."""
        return drop_ids(self.home, ids, config=self.config)

    def vectors_for(self, ids: Iterable[str], scopes: Sequence[str] | None = None) -> dict[str, np.ndarray]:
        """id -> L2-normalised mean vector of its chunks (for near-duplicate detection)."""
        snap = self.snapshot()
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

    def status(self, tips: dict[str, str] | None = None) -> dict[str, Any]:
        """Indexed counts and lag (commits behind each scope tip), without building."""
        tips = self._tips() if tips is None else tips
        state = self._read_state()
        info: dict[str, Any] = {"index": str(self.path), "index_exists": state is not None}
        cursors = state[1] if state else {}
        lag = {}
        for scope, tip in tips.items():
            lag[scope] = self._lag(cursors.get(scope), tip)
        info["lag"] = lag
        counts = {"indexed": 0, "chunks": 0, "vectors": 0}
        if state is not None:
            try:
                con = connect(self.path, read_only=True, retry=float(self._opt("open_retry")))
                try:
                    counts["indexed"] = con.execute(
                        "SELECT count(DISTINCT scope || mem_id) FROM docs WHERE path LIKE 'memories/%'").fetchone()[0]
                    counts["chunks"] = con.execute("SELECT count(*) FROM docs").fetchone()[0]
                    if self.model_id:
                        counts["vectors"] = con.execute(
                            "SELECT count(*) FROM docs d WHERE EXISTS (SELECT 1 FROM emb e WHERE "
                            "e.text_hash = d.text_hash AND e.model = ?)", [self.model_id]).fetchone()[0]
                finally:
                    con.close()
            except Exception:
                info["index_exists"] = False
        info.update(counts)
        return info

    def _lag(self, cursor: str | None, tip: str) -> int:
        """Commits on the tip that the index has not seen (all of them if never indexed)."""
        if cursor == tip:
            return 0
        try:
            if cursor is not None and self._has_commit(cursor):
                ahead, _ = self.git.repo.ahead_behind(tip, cursor)
                return int(ahead)
        except Exception:
            pass
        return sum(1 for _ in self.git.history(tip, limit=100000))


def _remove_stale_builds(path: Path) -> None:
    """Temp files of rebuilds whose process died (we hold the index lock here)."""
    for p in path.parent.glob(f".{INDEX_NAME}.*.tmp*"):
        try:
            pid = int(p.name.split(".")[3])
            os.kill(pid, 0)
            continue  # still running (cannot happen under the lock, but be safe)
        except (ValueError, IndexError):
            pass
        except ProcessLookupError:
            pass
        except PermissionError:
            continue
        p.unlink(missing_ok=True)


class _NullBar:
    def __enter__(self):
        return self

    def __exit__(self, *a):
        return False

    def update(self, n: int) -> None:
        pass


def drop_ids(home: Path, ids: Iterable[str], config=None) -> int:
    """Delete the chunks of these memory ids (any scope) and any vector no longer used.

    For forget/dream: call it after the git change; the cursors stay, and the next
    catch-up re-reads whatever the new tips hold. Returns the chunks removed."""
    ids = [i for i in ids if i]
    path = index_path(home)
    if not ids or not path.exists():
        return 0
    timeout = float(config.get("index", "lock_timeout", INDEX_DEFAULTS["lock_timeout"])) if config else 120.0
    with file_lock(lock_path(home), timeout=timeout):
        try:
            con = connect(path, read_only=False)
        except Exception:
            path.unlink(missing_ok=True)  # unreadable: the next command rebuilds it
            return 0
        try:
            con.execute("BEGIN")
            con.execute("CREATE TEMP TABLE dead AS SELECT doc FROM docs WHERE mem_id IN "
                        "(SELECT unnest(?::VARCHAR[]))", [ids])
            n = con.execute("SELECT count(*) FROM dead").fetchone()[0]
            con.execute("DELETE FROM postings WHERE doc IN (SELECT doc FROM dead)")
            con.execute("DELETE FROM docs WHERE doc IN (SELECT doc FROM dead)")
            con.execute("DELETE FROM emb WHERE text_hash NOT IN (SELECT text_hash FROM docs)")
            con.execute("COMMIT")
            con.execute("CHECKPOINT")
        finally:
            con.close()
    return int(n)


def delete_index(home: Path) -> None:
    """Remove the index file (it is rebuilt by the next command)."""
    with file_lock(lock_path(home), timeout=INDEX_DEFAULTS["lock_timeout"]):
        for p in (index_path(home), Path(str(index_path(home)) + ".wal")):
            p.unlink(missing_ok=True)
