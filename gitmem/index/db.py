"""The index file ($GITMEM_HOME/index.duckdb): its schema, opening it under the lock
rules of the package docstring, reading its state and writing a batch of chunks."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any, Iterable

from gitmem.core import paths
from gitmem.core.fsutil import file_lock, private_dir
from gitmem.core.tokens import TOKENIZER_VERSION, term_counts
from gitmem.index.chunks import Chunk

# The tables' shape and the tokenizer that filled postings: either changing rebuilds.
SCHEMA_VERSION = f"1/{TOKENIZER_VERSION}"
INDEX_NAME = "index.duckdb"
# Without a Config (drop_ids from a bare home): the [index] lock_timeout default.
DEFAULT_LOCK_TIMEOUT = 120.0


SCHEMA = [
    "CREATE TABLE IF NOT EXISTS meta (k VARCHAR, v VARCHAR)",
    "CREATE TABLE IF NOT EXISTS cursors (scope VARCHAR, commit_id VARCHAR)",
    """CREATE TABLE IF NOT EXISTS docs (doc BIGINT, scope VARCHAR, path VARCHAR, mem_id VARCHAR,
        key VARCHAR, type VARCHAR, importance INTEGER, created DOUBLE, archived BOOLEAN,
        start_line INTEGER, end_line INTEGER, len INTEGER, text_hash VARCHAR, text VARCHAR)""",
    "CREATE TABLE IF NOT EXISTS postings (term VARCHAR, doc BIGINT, tf INTEGER)",
    "CREATE TABLE IF NOT EXISTS emb (model VARCHAR, text_hash VARCHAR, vec BLOB)",
]


def load_duckdb():
    """The duckdb module, imported on first use (the CLI's --help must not pay for it)."""
    import duckdb

    return duckdb


def index_path(home: Path) -> Path:
    return Path(home) / INDEX_NAME


def index_home_problem(home: Path) -> str | None:
    """Why the index cannot live in `home` (its file is not a file, its lock folder
    cannot be made or written), or None."""
    path = index_path(home)
    if path.exists() and not path.is_file():
        return f"{path} is not a file"
    locks = lock_path(home).parent
    try:
        locks.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        return f"cannot write in {locks}: {e.strerror or e}"
    for d in (Path(home), locks):
        if not os.access(d, os.W_OK | os.X_OK):
            return f"{d} is not writable"
    return None


def lock_path(home: Path) -> Path:
    return paths.lock(home, "index")


def sql_str(s: str) -> str:
    """`s` as the body of a SQL string literal (ATTACH takes no bound parameters)."""
    return s.replace("'", "''")


def is_lock_error(e: Exception) -> bool:
    """A file held by another process, or by another handle of this one (a thread's
    open with other settings: the catalog read beside a recall): retried, not fatal."""
    msg = str(e)
    low = msg.lower()
    return ("lock" in low or "Conflicting" in msg or "different configuration" in low
            or "unique file handle conflict" in low)


def is_busy(e: Exception) -> bool:
    """Whether a DuckDB open failed because the file is in use (not damaged)."""
    msg = str(e).lower()
    return is_lock_error(e) or any(w in msg for w in ("conflict", "different configuration",
                                                        "already attached", "in use"))


def is_damaged(e: Exception) -> bool:
    """Whether a DuckDB open failed because the file is not a database (only then is it
    deleted and rebuilt)."""
    msg = str(e).lower()
    return not is_busy(e) and any(w in msg for w in ("not a valid duckdb", "corrupt", "checksum"))


def connect(path: Path, read_only: bool, retry: float = 10.0):
    """Open the DuckDB file, retrying while another process holds a conflicting lock."""
    duckdb = load_duckdb()
    deadline = time.monotonic() + retry
    delay = 0.005
    while True:
        try:
            con = duckdb.connect(str(path), read_only=read_only)
            if not read_only and private_dir(Path(path).parent):
                for p in (Path(path), Path(str(path) + ".wal")):
                    if p.exists():
                        os.chmod(p, 0o600)  # an encrypted home's index holds plaintext
            return con
        except duckdb.Error as e:
            if not is_lock_error(e) or time.monotonic() > deadline:
                raise
            time.sleep(delay)
            delay = min(delay * 2, 0.1)


def attach(mem, path: Path, retry: float) -> None:
    """ATTACH the index file read-only as `f`, retrying while a writer holds it."""
    duckdb = load_duckdb()
    deadline = time.monotonic() + retry
    delay = 0.005
    while True:
        try:
            mem.execute(f"ATTACH '{sql_str(str(path))}' AS f (READ_ONLY)")
            return
        except duckdb.Error as e:
            if not is_lock_error(e) or time.monotonic() > deadline:
                raise
            time.sleep(delay)
            delay = min(delay * 2, 0.1)


def read_meta(con) -> dict[str, str]:
    return dict(con.execute("SELECT k, v FROM meta").fetchall())


def set_meta(con, **kv: str) -> None:
    for k, v in kv.items():
        con.execute("DELETE FROM meta WHERE k = ?", [k])
        con.execute("INSERT INTO meta VALUES (?, ?)", [k, str(v)])


# ---- reading the file's state ------------------------------------------------------------
def read_state(path: Path, retry: float) -> tuple[dict[str, str], dict[str, str]] | None:
    """(meta, cursors) of the file, or None when it is missing or unreadable."""
    if not path.exists():
        return None
    try:
        con = connect(path, read_only=True, retry=retry)
    except Exception:
        return None
    try:
        meta = read_meta(con)
        cursors = dict(con.execute("SELECT scope, commit_id FROM cursors").fetchall())
    except Exception:
        return None
    finally:
        con.close()
    if meta.get("schema") != SCHEMA_VERSION:
        return None
    return meta, cursors


def readable(path: Path, retry: float) -> bool:
    """Whether the file opens and has an embedding cache to carry over."""
    try:
        con = connect(path, read_only=True, retry=retry)
    except Exception:
        return False
    try:
        con.execute("SELECT count(*) FROM emb").fetchone()
        return True
    except Exception:
        return False
    finally:
        con.close()


def known_hashes(path: Path, model: str, retry: float, among: set[str] | None = None) -> set[str]:
    """Hashes with a cached vector for `model` (only those in `among`, if given)."""
    if among is not None and not among:
        return set()
    try:
        con = connect(path, read_only=True, retry=retry)
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


def cached_vectors(path: Path, model: str, hashes: Iterable[str], retry: float) -> dict[str, bytes]:
    """hash -> cached vector bytes of `model`, for those of `hashes` the file has."""
    hashes = sorted(set(hashes))
    if not hashes or not path.exists():
        return {}
    try:
        con = connect(path, read_only=True, retry=retry)
    except Exception:
        return {}
    try:
        rows = con.execute("SELECT text_hash, any_value(vec) FROM emb WHERE model = ? AND text_hash IN "
                           "(SELECT unnest(?::VARCHAR[])) GROUP BY text_hash", [model, hashes]).fetchall()
        return {h: bytes(v) for h, v in rows}
    except Exception:
        return {}
    finally:
        con.close()


def add_vectors(home: Path, model: str, vectors: dict[str, bytes], timeout: float, retry: float) -> bool:
    """Add vectors to the embedding cache (those not there yet), under the index lock.
    False when there is no index file to add them to (the caller keeps them anyway)."""
    path = index_path(home)
    if not vectors or not path.exists():
        return False
    with file_lock(lock_path(home), timeout=timeout):
        con = connect(path, read_only=False, retry=retry)
        try:
            con.execute("BEGIN")
            con.execute("CREATE TEMP TABLE new_emb AS SELECT unnest(?::VARCHAR[]) AS text_hash, "
                        "unnest(?::BLOB[]) AS vec", [list(vectors), list(vectors.values())])
            con.execute("INSERT INTO emb SELECT ?, n.text_hash, n.vec FROM new_emb n WHERE NOT EXISTS "
                        "(SELECT 1 FROM emb e WHERE e.model = ? AND e.text_hash = n.text_hash)", [model, model])
            con.execute("DROP TABLE new_emb")
            con.execute("COMMIT")
        finally:
            con.close()
    return True


def texts_without_vectors(path: Path, model: str, known: set[str], retry: float) -> list[tuple[str, str]]:
    """(hash, text) of indexed chunks with no cached vector for `model`."""
    con = connect(path, read_only=True, retry=retry)
    try:
        rows = con.execute(
            "SELECT DISTINCT d.text_hash, d.text FROM docs d WHERE NOT EXISTS "
            "(SELECT 1 FROM emb e WHERE e.model = ? AND e.text_hash = d.text_hash)", [model]).fetchall()
    finally:
        con.close()
    return [(h, t) for h, t in rows if h not in known]


def counts(path: Path, model: str | None, retry: float) -> dict[str, int]:
    """Memories indexed, chunks, and chunks with a vector of `model` (for status)."""
    out = {"indexed": 0, "chunks": 0, "vectors": 0}
    con = connect(path, read_only=True, retry=retry)
    try:
        out["indexed"] = con.execute(
            "SELECT count(DISTINCT scope || mem_id) FROM docs WHERE path LIKE 'memories/%'").fetchone()[0]
        out["chunks"] = con.execute("SELECT count(*) FROM docs").fetchone()[0]
        if model:
            out["vectors"] = con.execute(
                "SELECT count(*) FROM docs d WHERE EXISTS (SELECT 1 FROM emb e WHERE "
                "e.text_hash = d.text_hash AND e.model = ?)", [model]).fetchone()[0]
    finally:
        con.close()
    return out


# ---- writing ------------------------------------------------------------------------------
def copy_cache(con, source: Path) -> None:
    """Carry the embedding cache into a rebuilt file (skipped if the old one is damaged)."""
    try:
        con.execute(f"ATTACH '{sql_str(str(source))}' AS old (READ_ONLY)")
    except Exception:
        return
    try:
        con.execute("INSERT INTO emb SELECT * FROM old.emb")
    except Exception:
        pass
    finally:
        con.execute("DETACH old")


def write_batch(con, drops: list[tuple[str, str]], drop_scopes: list[str], chunks: list[Chunk],
                vectors: dict[str, bytes], model: str | None) -> None:
    """Drop the paths and scopes that changed, add the new chunks, their postings and
    any new vectors (inside the caller's transaction)."""
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


def remove_stale_builds(path: Path) -> None:
    """Temp files of rebuilds whose process died (the caller holds the index lock)."""
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


# ---- maintenance for other features ---------------------------------------------------------
def drop_ids(home: Path, ids: Iterable[str], config: Any = None) -> int:
    """Delete the chunks of these memory ids (any scope) and any vector no longer used.

    For forget/dream: call it after the git change; the cursors stay, and the next
    catch-up re-reads whatever the new tips hold. Returns the chunks removed."""
    ids = [i for i in ids if i]
    path = index_path(home)
    if not ids or not path.exists():
        return 0
    timeout = float(config.get("index", "lock_timeout")) if config else DEFAULT_LOCK_TIMEOUT
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
            if con.execute("SELECT count(*) FROM information_schema.tables "
                           "WHERE table_name = 'catalog'").fetchone()[0]:
                con.execute("DELETE FROM catalog WHERE id IN (SELECT unnest(?::VARCHAR[]))", [ids])
            con.execute("COMMIT")
            con.execute("CHECKPOINT")
        finally:
            con.close()
    return int(n)


def delete_index(home: Path) -> None:
    """Remove the index file (it is rebuilt by the next command)."""
    with file_lock(lock_path(home), timeout=DEFAULT_LOCK_TIMEOUT):
        for p in (index_path(home), Path(str(index_path(home)) + ".wal")):
            p.unlink(missing_ok=True)
