"""What a MEMORY.md rebuild reads: the fields of every live memory, never a body. The
catalog (gitmem.index.catalog, through the service's `entries`) has them for the files
at the scope's tip; a file is matched by path and blob id, so a row stands only for
those very bytes, and a file the catalog does not hold (another side of a merge, the
catalog off or busy) is parsed as before. Same input to `render_memory_md`, so the
same MEMORY.md, with or without the catalog."""

from __future__ import annotations

from gitmem.core.model import Memory
from gitmem.memories.service import Memories
from gitmem.store import Rev


def catalogued(svc: Memories, scope: str) -> dict[tuple[str, str], Memory]:
    """(path, blob id) -> the catalog's Memory without text, of the scope's live memory
    files; {} when the catalog is off or busy."""
    entries = svc.entries([scope])
    return {(e.path, e.blob): e.stub() for e in entries or ()}


def fields(svc: Memories, known: dict[tuple[str, str], Memory], rev: Rev, path: str, blob: str,
           scope: str) -> Memory:
    """The memory file `path` (blob `blob`) of `rev`: the catalog's row when it holds
    those bytes, else the file parsed."""
    m = known.get((path, blob))
    return m if m is not None else svc.load(rev, path, scope, blob)
