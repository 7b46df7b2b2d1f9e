"""Append-only access log under state/: which memory was recalled or injected, when.

It lives outside the index so that deleting the index loses no usage; dream folds the
counts into notes (refs/notes/gitmem) so they travel with the repository."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Iterable

from gitmem.core import paths
from gitmem.core.fsutil import file_mode

LOG_NAME = "access.log"


def log_path(home: Path) -> Path:
    return paths.state_file(home, LOG_NAME)


def record(home: Path, ids: Iterable[str], kind: str = "recall", when: float | None = None) -> None:
    """Append one line per id. O_APPEND writes under PIPE_BUF are atomic across processes.
    Best effort: use counts only tune ranking, so a state/ folder that cannot be written
    (see `gitmem doctor`) loses them rather than the command."""
    ids = [i for i in ids if i]
    if not ids:
        return
    ts = int(when if when is not None else time.time())
    data = "".join(json.dumps({"id": i, "t": ts, "k": kind}) + "\n" for i in ids).encode()
    path = log_path(home)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, file_mode(path.parent))
    except OSError:
        return
    try:
        os.write(fd, data)
    except OSError:
        pass
    finally:
        os.close(fd)


def counts(home: Path) -> dict[str, tuple[int, int]]:
    """id -> (access count, last access unix time)."""
    out: dict[str, tuple[int, int]] = {}
    try:
        fh = open(log_path(home), encoding="utf-8", errors="replace")
    except OSError:  # none yet, or a state/ folder that cannot be read (see record)
        return out
    with fh:
        for line in fh:
            try:
                rec = json.loads(line)
                i, t = rec["id"], int(rec["t"])
            except (ValueError, KeyError, TypeError):
                continue  # a torn last line after a crash is skipped, not fatal
            n, last = out.get(i, (0, 0))
            out[i] = (n + 1, max(last, t))
    return out


def drop(home: Path, ids: Iterable[str]) -> None:
    """Remove forgotten ids from the log (rewrite atomically)."""
    from gitmem.core.fsutil import atomic_write

    gone = set(ids)
    path = log_path(home)
    if not path.exists() or not gone:
        return
    keep = []
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines(True):
        try:
            if json.loads(line).get("id") in gone:
                continue
        except ValueError:
            continue
        keep.append(line)
    atomic_write(path, "".join(keep).encode())
