"""Values the object layer takes: a change that places an existing blob (Keep),
signatures, and a commit draft (for merges). The commit handle, Rev, lives with
GitStore in repo.py."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Mapping


@dataclass(frozen=True)
class Keep:
    """A change that places an existing blob (by id) at a path: a move keeps its id."""

    blob: str


# A change set maps a path to new plaintext bytes, to Keep(blob id), or to None (delete).
Change = bytes | Keep | None


@dataclass(frozen=True)
class Signature:
    name: str
    email: str
    time: int
    offset: int = 0


@dataclass
class Draft:
    """What a commit builder returns: changes against `base` (default: the tip) and a
    message; extra parents make it a merge commit."""

    changes: Mapping[str, Change]
    message: str
    extra_parents: tuple[str, ...] = ()
    base: Any = None  # a Rev of repo.py: the tree the changes apply to (default: the tip)


def signature(name: str, email: str, when: int | None = None) -> Signature:
    return Signature(name, email, int(time.time()) if when is None else int(when), 0)
