"""A small change applied to a warm snapshot straight from git (issue 21): the files that
differ between the snapshot's cursors and the scope tips are read, chunked, tokenised
and embedded here and spliced into the in-memory view, without opening the index file.
This is what a recall right after a write pays: that write, not the file's catch-up.

The file is left behind on purpose and catches up later (the daemon's index worker, or
the next `Index.ensure_fresh`), by its own diff: nothing here writes it, so the file's
cursors only ever name rows the file holds. Rows added here take doc ids from
`snapshot.LOCAL_DOCS` up, which the file never reaches, so a later refresh from the file
cannot collide with them."""

from __future__ import annotations

from typing import Any, Callable, Mapping

import numpy as np

from gitmem.core.tokens import term_counts
from gitmem.index.chunks import Chunk, chunks_of, indexable
from gitmem.index.snapshot import LOCAL_DOCS, Snapshot, rows_of_files, splice_postings, splice_rows

# More changed files than this in one catch-up: the file's catch-up and a refresh (an
# import or a sync is not what a recall right after a write waits for).
MAX_FILES = 64


# A change with more texts to embed than this asks the file's embedding cache first (one
# read-only open); fewer go straight to the model.
ASK_CACHE = 8


class Declined(Exception):
    """Raised by a vectors callback to leave the change to the file's catch-up."""


def plan(git: Any, cursors: Mapping[str, str], tips: Mapping[str, str], chunk_lines: int, chunk_chars: int,
         max_files: int = MAX_FILES) -> tuple[set[tuple[str, str]], list[Chunk]] | None:
    """(files whose rows go, chunks to add) from the snapshot's cursors to the tips; None
    when this is no small change: a scope came or went, a cursor's commit is gone (history
    rewritten by forget), or more than `max_files` indexable files changed."""
    if set(cursors) != set(tips):
        return None
    gone: set[tuple[str, str]] = set()
    chunks: list[Chunk] = []
    files = 0
    for scope, tip in tips.items():
        old = cursors[scope]
        if old == tip:
            continue
        if not git.has_commit(old):
            return None
        for status, path, oid in git.diff_files(old, tip):
            if not indexable(path):
                continue
            files += 1
            if files > max_files:
                return None
            if status != "A":
                gone.add((scope, path))
            if status != "D" and oid:
                chunks.extend(chunks_of(scope, path, git.blob(oid, path), chunk_lines, chunk_chars))
    return gone, chunks


def apply(snap: Snapshot, gone: set[tuple[str, str]], chunks: list[Chunk],
          vectors: Callable[[dict[str, np.ndarray]], Mapping[str, np.ndarray]], cursors: Mapping[str, str]) -> bool:
    """Replace the rows of the files in `gone` by `chunks` in `snap`, which then stands at
    `cursors`. `vectors(reuse)` gives the chunks' vectors by text hash; `reuse` holds the
    vectors of the rows that go (an edit of tags only keeps its text). False, or
    Declined from `vectors`, leave `snap` as it was: a chunk of a scope the snapshot has
    no code for. Any other exception may leave `snap` half changed: drop it then."""
    if any(c.scope not in snap.scope_codes for c in chunks):
        return False
    drop_idx = rows_of_files(snap, gone)
    old_docs = [int(snap.docs[i]) for i in drop_idx]
    reuse: dict[str, np.ndarray] = {}
    if snap.vectors is not None and drop_idx:
        i_hash = snap.columns.index("text_hash")
        reuse = {snap.table[i][i_hash]: snap.vectors[i].copy() for i in drop_idx if snap.has_vec[i]}
    vecs = vectors(reuse)
    first = max(snap.next_local_doc, int(snap.docs.max()) + 1 if snap.size else 1)
    rows: list[tuple] = []
    post: tuple[list, ...] = ([], [], [], [], [], [], [], [])
    for n, c in enumerate(chunks):
        doc = first + n
        tc = term_counts(c.search_text)
        length = sum(tc.values())
        vals = {"doc": doc, "scope": c.scope, "path": c.path, "mem_id": c.mem_id, "key": c.key, "type": c.type,
                "importance": c.importance, "created": c.created, "archived": c.archived,
                "start_line": c.start_line, "end_line": c.end_line, "len": length, "text_hash": c.hash,
                "text": c.text}
        rows.append(tuple(vals.get(col) for col in snap.columns))
        snap.type_codes.setdefault(c.type, len(snap.type_codes))
        sc = snap.scope_codes[c.scope]
        for t, f in tc.items():
            for col, v in zip(post, (t, doc, f, length, sc, c.archived, c.type, c.created)):
                col.append(v)
    splice_postings(snap.con, old_docs, lambda table: snap.con.execute(
        f"INSERT INTO {table} SELECT (hash(t) >> 1)::BIGINT, d, tf, ln, sc, a, ty, cr FROM (SELECT "
        "unnest(?::VARCHAR[]) AS t, unnest(?::BIGINT[]) AS d, unnest(?::INTEGER[]) AS tf, "
        "unnest(?::INTEGER[]) AS ln, unnest(?::INTEGER[]) AS sc, unnest(?::BOOLEAN[]) AS a, "
        "unnest(?::VARCHAR[]) AS ty, unnest(?::DOUBLE[]) AS cr)", list(post)) if post[0] else None)
    m = len(chunks)
    has = np.array([c.hash in vecs for c in chunks], dtype=bool)
    new_vecs = None
    dim = snap.vectors.shape[1] if snap.vectors is not None else (
        len(next(iter(vecs.values()))) if vecs else 0)
    if dim:
        new_vecs = np.zeros((m, dim), dtype=np.float32)
        for j, c in enumerate(chunks):
            v = vecs.get(c.hash)
            if v is not None and v.shape[0] == dim:
                new_vecs[j] = v
            else:
                has[j] = False
    splice_rows(snap, drop_idx, rows, new_vecs, has)
    snap.next_local_doc = first + m
    snap.cursors = dict(cursors)
    return True


def in_snapshot_order(snap: Snapshot, chunks: list[Chunk]) -> list[Chunk]:
    """`chunks` in the order the snapshot holds the rows added here (others last, as given)."""
    local = np.flatnonzero(snap.docs >= LOCAL_DOCS).tolist()
    if not local:
        return chunks
    ci = {name: i for i, name in enumerate(snap.columns)}
    cols = (ci["scope"], ci["path"], ci["start_line"])
    at = {tuple(snap.table[i][c] for c in cols): i for i in local}
    end = snap.size
    return sorted(chunks, key=lambda c: at.get((c.scope, c.path, c.start_line), end))


def vectors_for(chunks: list[Chunk], reuse: Mapping[str, np.ndarray], fresh: Mapping[str, bytes], *,
                embed: Callable[[dict[str, str]], dict[str, bytes]],
                cached: Callable[[dict[str, str]], dict[str, bytes]],
                limit: int | None) -> tuple[dict[str, np.ndarray], dict[str, bytes]]:
    """(vector by text hash for every chunk, the ones embedded now). A text the snapshot
    (`reuse`: a tag edit keeps its text) or an earlier change (`fresh`) has a vector of is
    not embedded again; a bigger change asks the file's cache first. Declined when more
    than `limit` would be embedded (the file's catch-up leaves them pending instead)."""
    want = {c.hash: c.text for c in chunks}
    have = {h: np.frombuffer(fresh[h], dtype=np.float32) for h in want if h in fresh}
    have.update((h, v) for h, v in reuse.items() if h in want and h not in have)
    missing = {h: t for h, t in want.items() if h not in have}
    if len(missing) > ASK_CACHE:
        have.update((h, np.frombuffer(b, dtype=np.float32)) for h, b in cached(missing).items())
        missing = {h: t for h, t in missing.items() if h not in have}
    if limit is not None and len(missing) > limit:
        raise Declined("more texts to embed than the limit allows")
    made = embed(missing) if missing else {}
    have.update((h, np.frombuffer(b, dtype=np.float32)) for h, b in made.items())
    return have, made
