"""Which scopes a write goes to and a read looks at: the one owner of scope defaulting.

A write without `--scope` goes to the linked project of the working directory, else
`store.default_scope`. A read without scopes looks at the linked project, the default
scope and `main`. Pure functions of the config and a directory."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterable

from gitmem.core import model
from gitmem.core.config import Config
from gitmem.core.model import check_scope


def linked_scope(config: Config, cwd: str | os.PathLike[str] | None = None) -> str | None:
    """The project scope of the linked code repo containing `cwd` (default: the process's)."""
    links = config.section("links")
    if not links:
        return None
    here = Path(cwd or os.getcwd()).resolve()
    best = None
    for root, scope in links.items():
        try:
            here.relative_to(Path(root))
        except ValueError:
            continue
        if best is None or len(root) > len(best[0]):
            best = (root, scope)
    return best[1] if best else None


def write_scope(config: Config, scope: str | None = None, cwd: str | os.PathLike[str] | None = None) -> str:
    """Where a write goes: the given scope, else the linked project, else the default."""
    if scope:
        return check_scope(scope)
    return linked_scope(config, cwd) or check_scope(str(config.get("store", "default_scope")))


def read_scopes(config: Config, existing: Iterable[str], scopes: Iterable[str] | None = None,
                all_scopes: bool = False, cwd: str | os.PathLike[str] | None = None) -> list[str]:
    """Scopes a read looks at: the given ones, all existing ones, or linked + default + main."""
    if all_scopes:
        return list(existing)
    if scopes:
        return [check_scope(s) for s in scopes]
    out: list[str] = []
    linked = linked_scope(config, cwd)
    if linked:
        out.append(linked)
    for s in (str(config.get("store", "default_scope")), model.PERSON_SCOPE):
        if s not in out:
            out.append(s)
    return out


def session_scopes(config: Config, existing: Iterable[str], cwd: str | os.PathLike[str] | None) -> list[str]:
    """What an agent session in `cwd` reads: the default read scopes that exist."""
    have = set(existing)
    return [s for s in read_scopes(config, have, cwd=cwd) if s in have]


def lookup_order(config: Config, existing: Iterable[str], cwd: str | os.PathLike[str] | None = None) -> list[str]:
    """Every scope, the ones a write would use first (for finding a path or an id)."""
    out: list[str] = []
    for s in [write_scope(config, cwd=cwd), model.PERSON_SCOPE, *existing]:
        if s not in out:
            out.append(s)
    return out
