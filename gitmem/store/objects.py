"""Values the object layer takes: a change that places an existing blob (Keep),
signatures, a commit draft (for merges), the commit handle (Rev) and the layer's names
(ref prefixes, modes, object types)."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Mapping

import pygit2

SCOPE_PREFIX = "refs/heads/"        # scopes are branches
NOTES_REF = "refs/notes/gitmem"
BLOB_MODE = 0o100644
OBJ_TYPE_BLOB = pygit2.enums.ObjectType.BLOB
OBJ_TYPE_TREE = pygit2.enums.ObjectType.TREE
OBJ_TYPE_COMMIT = pygit2.enums.ObjectType.COMMIT
OBJ_TYPE_TAG = pygit2.enums.ObjectType.TAG


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


class Rev:
    """One commit of the memory repository, as the layers above see it."""

    __slots__ = ("commit", "id")

    def __init__(self, c: pygit2.Commit):
        self.commit = c  # the pygit2 object: for the object layer only
        self.id = str(c.id)

    @property
    def time(self) -> int:
        return int(self.commit.commit_time)

    @property
    def parents(self) -> list[str]:
        return [str(p) for p in self.commit.parent_ids]

    @property
    def tree_id(self) -> str:
        return str(self.commit.tree_id)

    @property
    def raw_message(self) -> str:
        """The message as stored (before the codec decodes it)."""
        return self.commit.message

    def raw(self) -> bytes:
        """The commit object's raw bytes."""
        return self.commit.read_raw()

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Rev) and other.id == self.id

    def __hash__(self) -> int:
        return hash(self.id)

    def __repr__(self) -> str:
        return f"Rev({self.id[:12]})"
