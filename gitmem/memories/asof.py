"""Reads "as of" a revision or date (the one owner: get --at, recall --at, context --at),
mixed into the Memories service."""


from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field
from typing import Iterable, Iterator

from gitmem.core import model
from gitmem.core.errors import NotFound, UsageError
from gitmem.core.model import Memory
from gitmem.store import Rev


@dataclass
class AsOf:
    """What a read "as of" a revision or date looks at (Memories.as_of).

    A date: every scope at its last commit on or before that instant (a bare date
    means the end of that day, UTC). A revision: the scope it belongs to at exactly
    that commit, every other scope at its last commit on or before the revision's
    commit time."""

    at: str
    time: float                       # the instant: the date, or the revision's commit time
    revs: dict[str, Rev]              # scope -> its commit then; scopes empty then are left out
    rev: Rev | None = None            # the commit a revision named (None for a date)
    rev_scope: str | None = None      # the scope that commit belongs to
    forgotten: set[str] = field(default_factory=set)  # ids forgotten since, in these scopes

    def iso(self) -> str:
        return dt.datetime.fromtimestamp(self.time, dt.timezone.utc).isoformat().replace("+00:00", "Z")


# A revision as git spells one (ids, refs, main~2, HEAD@{1}); anything else is neither.
_REV_CHARS = re.compile(r"^[\w./~^@{}:+-]+$")
_DATE_LIKE = re.compile(r"^\d{4}-\d{1,2}")
AT_HINT = "give a commit id (see `gitmem log`) or an ISO date: 2024-05-01, 2024-05-01T10:00:00Z"


class AsOfReads:
    """Memories' reads as of a revision or date (see AsOf)."""

    # ---- as of a revision or date (the one owner: get --at, recall --at, context --at)
    @staticmethod
    def as_of_time(at: str) -> float | None:
        """`at` as a timestamp if it is a date (a bare date means the end of that day),
        None if it is not a date."""
        try:
            when = model.parse_when(at)
        except UsageError:
            return None
        ts = when.timestamp()
        if len(at.strip()) == 10:
            ts += 86400 - 1
        return ts

    def parse_at(self, at: str) -> tuple[float | None, Rev | None]:
        """(timestamp, None) for a date, (None, commit) for a revision. A malformed date
        or something that is neither is a UsageError; a revision that does not exist
        is NotFound."""
        text = (at or "").strip() if isinstance(at, str) else ""
        if not text:
            raise UsageError("--at needs a revision or a date", hint=AT_HINT)
        ts = self.as_of_time(text)
        if ts is not None:
            return ts, None
        if _DATE_LIKE.match(text):
            raise UsageError(f"not a date: {text!r}", hint=AT_HINT)
        if not _REV_CHARS.match(text):
            raise UsageError(f"not a revision or a date: {text!r}", hint=AT_HINT)
        try:
            return None, self.git.commit_obj(text)
        except NotFound as e:
            raise NotFound(f"unknown revision {text!r}", hint=AT_HINT) from e

    def scope_of(self, rev: Rev, prefer: str | None = None) -> str:
        """The scope whose history holds `rev`: `prefer`, the commit's Gitmem-Scope
        trailer, or the first scope that has it as an ancestor."""
        tips = self.git.scopes()
        order = [s for s in (prefer, self.git.info(rev).scope) if s]
        for s in order + [s for s in tips if s not in order]:
            if s in tips and self.git.is_ancestor(rev.id, tips[s]):
                return s
        raise NotFound(f"revision {rev.id[:12]} is in no scope's history",
                       hint="`gitmem log --scope S` lists a scope's commits")

    def rev_at(self, scope: str, at: str | None) -> Rev | None:
        """The scope as it stood at a revision or date (None: nothing yet then). A
        revision is taken as named, whichever scope it belongs to."""
        tip = self.git.tip(scope)
        if at is None or tip is None:
            return tip
        ts, rev = self.parse_at(at)
        if rev is not None:
            return rev
        for r in self.git.walk([tip.id]):
            if r.time <= ts:
                return r
        return None

    def as_of(self, at: str, scopes: Iterable[str]) -> AsOf:
        """The given scopes as they stood at a revision or date (see AsOf), plus the
        ids that a forget removed from them since then (soft forgets included: what
        was forgotten stays forgotten in a look back). A revision's own scope is added
        to `scopes` if missing."""
        ts, rev = self.parse_at(at)
        chosen = list(dict.fromkeys(scopes))
        rev_scope = None
        if rev is not None:
            rev_scope = self.scope_of(rev, prefer=chosen[0] if len(chosen) == 1 else None)
            ts = float(rev.time)
            if rev_scope not in chosen:
                chosen.append(rev_scope)
        out = AsOf(at=at, time=float(ts), revs={}, rev=rev, rev_scope=rev_scope)
        for s in chosen:
            tip = self.git.tip(s)
            if tip is None:
                continue
            if s == rev_scope:
                later = self.git.walk([tip.id], hide=[rev.id])
                out.revs[s] = rev
            else:
                later = self._walk_until(tip, ts, out, s)
            for r in later:
                self._note_forgets(r, out.forgotten)
        return out

    def _walk_until(self, tip: Rev, ts: float, out: AsOf, scope: str) -> Iterator[Rev]:
        """The commits of a scope newer than `ts`, newest first; records in `out` the
        first one that is not."""
        for r in self.git.walk([tip.id]):
            if r.time <= ts:
                out.revs[scope] = r
                return
            yield r

    def _note_forgets(self, rev: Rev, into: set[str]) -> None:
        tr = self.git.info(rev).trailers
        if "forget" in tr.get("Gitmem-Op", ()):
            into.update(tr.get("Gitmem-Id", ()))

    def get_at(self, ref: str, at: str, scope: str | None = None) -> Memory:
        """A memory by id or key as it was at a revision or date."""
        ts, rev = self.parse_at(at)
        if rev is not None:
            s = scope or self.git.info(rev).scope or (next(iter(self.git.scopes()), model.PERSON_SCOPE))
            candidates = [(s, rev)]
        else:
            chosen = [model.check_scope(scope)] if scope else list(self.git.scopes())
            candidates = ((s, self.rev_at(s, at)) for s in chosen)  # stops at the first match
        for s, r in candidates:
            if r is None:
                continue
            path = self.find_in(r, ref)
            if path is None:
                mem_id = self.key_id(r, ref)
                path = self.find_in(r, mem_id) if mem_id else None
            if path is not None:
                return self.load(r, path, s)
        raise NotFound(f"no memory {ref!r} at {at}", hint="`gitmem log ID` lists its versions")
