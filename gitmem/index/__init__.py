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

The only package that imports duckdb or fastembed. It reads git only through the object layer's
GitStore (tips, diffs, decoded blobs).

- chunks.py    what gets indexed: files split into chunks (pure)
- db.py        the file: schema, lock-aware opens, state, batch writes, drop_ids
- catalog.py   the catalog: one row per memory file (its front matter and a few derived
               values), caught up from its own cursors; what context/list/scopes/status read
- snapshot.py  the in-memory view: BM25 in SQL, vectors in numpy, in-place refresh
- overlay.py   a small change (a write) applied to the warm view straight from git, before
               the file catches up (what a recall right after a write pays)
- indexer.py   Index: catch-up from git, rebuild, status, vectors for dream
- embed.py     the embedder (fastembed, or a local ONNX copy); the only code that loads the model
"""

from gitmem.index.chunks import Chunk, chunks_of, indexable, split_lines, text_hash
from gitmem.index.db import (
           INDEX_NAME,
           SCHEMA_VERSION,
           connect,
           delete_index,
           drop_ids,
           index_home_problem,
           index_path,
           lock_path,
)
from gitmem.index.indexer import Index, Progress
from gitmem.index.snapshot import Snapshot

__all__ = ["Chunk", "INDEX_NAME", "Index", "Progress", "SCHEMA_VERSION", "Snapshot",
           "chunks_of", "connect", "delete_index", "drop_ids", "index_home_problem", "index_path", "indexable",
           "lock_path",
           "split_lines", "text_hash"]
