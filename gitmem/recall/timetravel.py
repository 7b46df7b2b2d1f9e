"""Time travel: what the store held at a revision or date, for `recall --at` and
`context --at` (what the agent knew then).

Which commit each scope stood at is decided by Memories.as_of, the one owner of "as of
a revision or date" (`get --at` parses the same way):

- a DATE (2024-03-03, or 2024-03-03T09:30:00Z; a bare date is the end of that day,
  UTC): every searched scope at its last commit on or before that instant;
- a REV (a commit id, an abbreviation, main~3): the scope that commit belongs to is
  read at exactly that commit, and is searched even if not asked for; every other
  searched scope at its last commit on or before the commit's time.

A scope with no commit yet at that instant is left out. Memories that a forget removed
stay forgotten: the ids in the redaction ledger (purged; their old versions are
placeholders now) and the ids of any forget commit since that instant (forget
--keep-history), even when an old commit that still holds them is named directly."""

from __future__ import annotations

import datetime as dt
from collections import OrderedDict

from gitmem.memories import ledger
from gitmem.memories.asof import AsOf
from gitmem.memories.service import Memories

__all__ = ["AsOf", "empty_note", "resolve"]

# The answer depends only on `at`, the scopes, their tips and the ledgers' tips: a warm
# process (the daemon, the MCP server) asking again skips the history walk.
_RESOLVED: OrderedDict[tuple, AsOf] = OrderedDict()


def resolve(svc: Memories, at: str, scopes: list[str]) -> AsOf:
    """The scopes as of `at`, with every id that stays forgotten."""
    git = svc.git
    key = (str(svc.home), at, tuple(scopes), tuple(sorted(git.scopes().items())),
           tuple((r, git.ref(r)) for r in ledger.ledger_refs(git)))
    out = _RESOLVED.get(key)
    if out is not None:
        _RESOLVED.move_to_end(key)
        return out
    out = svc.as_of(at, scopes)
    out.forgotten |= ledger.forgotten_ids(git)
    _RESOLVED[key] = out
    while len(_RESOLVED) > 16:
        _RESOLVED.popitem(last=False)
    return out


def _iso(ts: float) -> str:
    return dt.datetime.fromtimestamp(ts, dt.timezone.utc).isoformat().replace("+00:00", "Z")


def empty_note(svc: Memories, asof: AsOf, scopes: list[str]) -> str | None:
    """Why a look back found nothing to search (None when some scope had commits)."""
    if asof.revs:
        return None
    firsts = []
    for s in scopes:
        tip = svc.git.tip(s)
        if tip is not None:
            first = min((r.time for r in svc.git.walk([tip.id])), default=None)
            if first is not None:
                firsts.append(first)
    named = ", ".join(scopes) or "no scope"
    if not firsts:
        return f"nothing to search: {named} has no commits"
    return (f"nothing in {named} as of {_iso(asof.time)}: the first commit is from "
            f"{_iso(min(firsts))}")
