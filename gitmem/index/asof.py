"""The index as of a past revision or date (recall --at): a Snapshot of the scopes'
trees as they stood then, derived from the current one.

A file that is the same then and now is the same doc: its row, postings and vector are
reused from the current snapshot. Only the files that differ (one tree diff per scope,
in git's C code) are read from git at the old commit, chunked and tokenised here; their
vectors come from the embedding cache (`emb`, keyed by chunk text), and a text that
was never indexed is embedded once and added to that cache, so asking again embeds
nothing. BM25 runs over exactly this set: N, the average length and the document
frequencies are those of the trees then, not now. Memories in `forgotten` are left
out whichever version is met.

Why not index every historical blob in the file: the work here is proportional to what
changed since, the old texts stay out of the index file (a forget has nothing extra
to purge there), and BENCHMARKS.md ("recall --at") has the figures."""

from __future__ import annotations

import itertools
import time
from typing import Any, Callable, Mapping

import numpy as np

from gitmem.core.tokens import term_counts
from gitmem.index.chunks import Chunk, chunks_of, indexable
from gitmem.index.snapshot import Snapshot

_names = itertools.count(1)
# Chunks of historical files by (scope, path, blob id), for a warm process asking again.
_CHUNK_CACHE_MAX = 50_000


def build(base: Snapshot, git, revs: Mapping[str, str], forgotten: set[str], *, chunk_lines: int,
          chunk_chars: int, chunk_cache: dict, vectors: Callable[[dict[str, str]], tuple[dict, int]],
          reuse: bool = True) -> tuple[Snapshot, dict[str, Any]]:
    """A Snapshot of the scopes in `revs` (scope -> commit id) as of those commits,
    derived from `base` (the current snapshot), and what building it took.

    `vectors(hash -> text)` returns (hash -> vector, how many it embedded) for texts
    the current snapshot has no vector of; `chunk_cache` keeps the chunks of files read
    from git by (scope, path, blob id). `reuse=False` reads every file from git (to
    measure the difference)."""
    t0 = time.perf_counter()
    ci = {name: i for i, name in enumerate(base.columns)}
    changed: dict[str, set[str]] = {}
    files: list[tuple[str, str, str]] = []
    for scope, rev in revs.items():
        cur = base.cursors.get(scope) if reuse else None
        if cur == rev:
            continue
        paths = changed.setdefault(scope, set())
        for status, path, oid in git.diff_files(cur, rev):
            if indexable(path):
                paths.add(path)
                if status != "D" and oid:
                    files.append((scope, path, oid))
    # The current docs still true then: in these scopes, unchanged, not forgotten.
    codes = [base.scope_codes[s] for s in revs if s in base.scope_codes]
    keep = np.isin(base.scope_of, codes) if codes else np.zeros(base.size, dtype=bool)
    if changed or forgotten:
        i_scope, i_path, i_id = ci["scope"], ci["path"], ci["mem_id"]
        for i in np.flatnonzero(keep):
            r = base.table[i]
            if r[i_path] in changed.get(r[i_scope], ()) or r[i_id] in forgotten:
                keep[i] = False
    # The versions of the changed files then.
    chunks: list[Chunk] = []
    read = 0
    for f in files:
        got = chunk_cache.get(f)
        if got is None:
            scope, path, oid = f
            got = chunks_of(scope, path, git.blob(oid, path), chunk_lines, chunk_chars)
            read += 1
            if len(chunk_cache) >= _CHUNK_CACHE_MAX:
                chunk_cache.clear()
            chunk_cache[f] = got
        chunks.extend(c for c in got if c.mem_id not in forgotten)
    vecs = _from_base(base, chunks)
    more, embedded = vectors({c.hash: c.text for c in chunks if c.hash not in vecs}) if chunks else ({}, 0)
    vecs.update(more)
    snap = _derive(base, keep, chunks, vecs, dict(revs))
    info = {"cached": False, "reused_docs": int(keep.sum()), "changed_files": sum(map(len, changed.values())),
            "read_files": read, "historical_chunks": len(chunks), "embedded": embedded,
            "ms": round((time.perf_counter() - t0) * 1000, 3)}
    return snap, info


def _from_base(base: Snapshot, chunks: list[Chunk]) -> dict[str, np.ndarray]:
    """Vectors the current snapshot holds for the chunks' texts (by text hash)."""
    want = {c.hash for c in chunks}
    out: dict[str, np.ndarray] = {}
    if not want or base.vectors is None:
        return out
    i_hash = base.columns.index("text_hash")
    for i, r in enumerate(base.table):
        h = r[i_hash]
        if h in want and h not in out and base.has_vec[i]:
            out[h] = base.vectors[i]
    return out


def _derive(base: Snapshot, keep: np.ndarray, chunks: list[Chunk], vecs: dict[str, np.ndarray],
            cursors: dict[str, str]) -> Snapshot:
    """The kept rows of `base` plus the historical chunks, as one Snapshot whose
    postings live in temp tables of `base`'s connection."""
    scope_codes = dict(base.scope_codes)
    type_codes = dict(base.type_codes)
    for c in chunks:
        scope_codes.setdefault(c.scope, len(scope_codes))
        type_codes.setdefault(c.type, len(type_codes))
    start = int(base.docs.max()) + 1 if base.size else 1
    m = len(chunks)
    new_docs = np.arange(start, start + m, dtype=np.int64)
    counts = [term_counts(c.search_text) for c in chunks]
    lens = [sum(tc.values()) for tc in counts]
    rows: list[tuple] = []
    for doc, c, n in zip(new_docs.tolist(), chunks, lens):
        vals = {"doc": doc, "scope": c.scope, "path": c.path, "mem_id": c.mem_id, "key": c.key, "type": c.type,
                "importance": c.importance, "created": c.created, "archived": c.archived,
                "start_line": c.start_line, "end_line": c.end_line, "len": n, "text_hash": c.hash,
                "text": c.text}
        rows.append(tuple(vals.get(col) for col in base.columns))
    kept = np.flatnonzero(keep)
    dim = base.vectors.shape[1] if base.vectors is not None else (
        len(next(iter(vecs.values()))) if vecs else 0)
    vectors = None
    has_vec = np.concatenate([base.has_vec[kept], np.array([c.hash in vecs for c in chunks], dtype=bool)])
    if dim:
        vectors = np.zeros((len(kept) + m, dim), dtype=np.float32)
        if base.vectors is not None:
            vectors[: len(kept)] = base.vectors[kept]
        for j, c in enumerate(chunks):
            v = vecs.get(c.hash)
            if v is not None and v.shape[0] == dim:
                vectors[len(kept) + j] = v
            else:
                has_vec[len(kept) + j] = False
    docs = np.concatenate([base.docs[kept], new_docs])
    n = next(_names)
    post, dfs = f"asof_{n}_postings", f"asof_{n}_dfs"
    con = base.con
    con.execute(f"CREATE TEMP TABLE {post} AS SELECT * FROM postings WHERE doc IN "
                "(SELECT unnest(?::BIGINT[]))", [base.docs[kept].tolist()])
    if m:
        terms, pdocs, tfs, plens, scs, arch, types, created = [], [], [], [], [], [], [], []
        for doc, c, tc, ln in zip(new_docs.tolist(), chunks, counts, lens):
            for t, f in tc.items():
                terms.append(t)
                pdocs.append(doc)
                tfs.append(f)
                plens.append(ln)
                scs.append(scope_codes[c.scope])
                arch.append(c.archived)
                types.append(c.type)
                created.append(c.created)
        con.execute(
            f"INSERT INTO {post} SELECT (hash(t) >> 1)::BIGINT, d, tf, ln, sc, a, ty, cr FROM (SELECT "
            "unnest(?::VARCHAR[]) AS t, unnest(?::BIGINT[]) AS d, unnest(?::INTEGER[]) AS tf, "
            "unnest(?::INTEGER[]) AS ln, unnest(?::INTEGER[]) AS sc, unnest(?::BOOLEAN[]) AS a, "
            "unnest(?::VARCHAR[]) AS ty, unnest(?::DOUBLE[]) AS cr)",
            [terms, pdocs, tfs, plens, scs, arch, types, created])
    con.execute(f"CREATE TEMP TABLE {dfs} AS SELECT sc, th, count(*)::DOUBLE AS df FROM {post} "
                "WHERE NOT archived GROUP BY sc, th ORDER BY th")
    table = [base.table[i] for i in kept.tolist()] + rows
    return Snapshot(
        con, cursors, base.model, docs,
        np.concatenate([base.scope_of[kept], np.array([scope_codes[c.scope] for c in chunks], dtype=np.int32)]),
        scope_codes,
        np.concatenate([base.archived[kept], np.array([c.archived for c in chunks], dtype=bool)]),
        np.concatenate([base.created[kept], np.array([c.created or 0.0 for c in chunks], dtype=np.float64)]),
        np.concatenate([base.type_of[kept], np.array([type_codes[c.type] for c in chunks], dtype=np.int32)]),
        type_codes, vectors, has_vec,
        np.concatenate([base.lens[kept], np.array(lens, dtype=np.float64)]),
        list(base.columns), table, {int(d): i for i, d in enumerate(docs.tolist())},
        postings_table=post, dfs_table=dfs, owns_con=False)
