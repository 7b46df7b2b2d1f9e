"""Change notification by ref polling: events, named cursors, the watch loop.

A watcher remembers each scope's tip; a poll compares the refs with what it remembers
and turns every new commit into one event. Refs that moved backwards or sideways (a
forget rewrote history) are handled without losing or repeating events: commits the
watcher has already reported are recognised by their author line and trailers, which a
rewrite keeps, rather than by their ids, which it changes."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

from .errors import UsageError
from .fsutil import atomic_write, file_lock
from .memories import Memories
from .model import check_scope
from .store import SCOPE_PREFIX
from .trailers import Commit

# Ops whose subject may not be shown: the event names the ids, never the text.
_QUIET_OPS = ("forget", "redact")
_CURSOR_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")
# How many already-reported commits per ref the watcher keeps to recognise after a rewrite
# (the newest one is what matters; a few more cover commits made in the same second).
_SEEN_LIMIT = 64


@dataclass
class Event:
    """One new commit on a watched ref (or a ref deleted: op `delete`)."""

    ref: str
    scope: str
    old: str | None
    new: str | None
    commit: str | None
    op: str | None
    ids: list[str]
    summary: str
    time: str
    author: str = ""
    session: str | None = None
    agent: str | None = None
    rewritten: bool = False

    def to_dict(self) -> dict[str, Any]:
        d = {"ref": self.ref, "scope": self.scope, "old": self.old, "new": self.new,
             "commit": self.commit, "op": self.op, "ids": self.ids, "summary": self.summary,
             "time": self.time, "author": self.author, "session": self.session,
             "agent": self.agent}
        if self.rewritten:
            d["rewritten"] = True
        return d

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False)


def _iso(ts: int) -> str:
    return dt.datetime.fromtimestamp(ts, dt.timezone.utc).isoformat().replace("+00:00", "Z")


def _fingerprint(c: Commit) -> str:
    """What survives a history rewrite: author, time and the trailers (not the subject,
    which a redaction may rewrite). Hashed, so that cursor files hold no memory text.
    The time is the commit's: gitmem writes author and committer alike, and a rewrite
    keeps both."""
    t = c.trailers
    raw = "\x00".join([c.email, str(c.time), *(t.get("Gitmem-Op") or [""]),
                       ",".join(t.get("Gitmem-Id", [])), *(t.get("Gitmem-Session") or [""])])
    return hashlib.sha1(raw.encode("utf-8", "replace")).hexdigest()[:16]


def _summary(c: Commit) -> str:
    if c.op in _QUIET_OPS:
        return f"{c.op}: {', '.join(c.ids)}" if c.ids else f"{c.op}"
    return c.subject


def _event(ref: str, old: str | None, new: str | None, c: Commit, rewritten: bool = False) -> Event:
    first = lambda k: (c.trailers.get(k) or [None])[0]  # noqa: E731
    return Event(ref=ref, scope=ref[len(SCOPE_PREFIX):], old=old, new=new, commit=c.id, op=c.op,
                 ids=list(c.ids), summary=_summary(c), time=c.iso_time, author=c.author,
                 session=first("Gitmem-Session"), agent=first("Gitmem-Agent"), rewritten=rewritten)


@dataclass
class RefState:
    tip: str
    seen: list[str] = field(default_factory=list)  # fingerprints, newest last
    time: int = 0  # time of the tip: after a rewrite, older commits are not news

    def to_dict(self) -> dict[str, Any]:
        return {"tip": self.tip, "time": self.time, "seen": self.seen[-_SEEN_LIMIT:]}


class Watcher:
    """Polls a store's scope refs and yields one Event per new commit, oldest first."""

    def __init__(self, svc: Memories, scopes: Iterable[str] | None = None,
                 state: dict[str, RefState] | None = None, from_start: bool = False):
        self.git = svc.git
        self.scopes = [check_scope(s) for s in scopes] if scopes else None
        if state is not None:
            wanted = {SCOPE_PREFIX + s for s in self.scopes or ()}
            self.state = {r: s for r, s in state.items() if self.scopes is None or r in wanted}
        elif from_start:
            self.state = {}
        else:
            self.state = {ref: RefState(tip, self._fp(tip), self._time(tip))
                          for ref, tip in self._refs().items()}

    def _fp(self, oid: str) -> list[str]:
        """Fingerprints of the tip's recent history, newest last."""
        out = []
        for n, rev in enumerate(self.git.walk([oid], topological=True)):
            if n >= 16:
                break
            out.append(_fingerprint(self.git.info(rev)))
        return out[::-1]

    def _time(self, oid: str) -> int:
        return self.git.info(oid).time if self.git.has_commit(oid) else 0

    def _refs(self) -> dict[str, str]:
        refs = self.git.refs(SCOPE_PREFIX)
        if self.scopes is None:
            return refs
        wanted = {SCOPE_PREFIX + s for s in self.scopes}
        return {r: t for r, t in refs.items() if r in wanted}

    def poll(self) -> list[Event]:
        """Compare refs with the last poll; return the events in between."""
        events: list[Event] = []
        refs = self._refs()
        for ref in sorted(set(refs) | set(self.state)):
            new = refs.get(ref)
            prev = self.state.get(ref)
            old = prev.tip if prev else None
            if new == old:
                continue
            if new is None:
                events.append(Event(ref=ref, scope=ref[len(SCOPE_PREFIX):], old=old, new=None,
                                    commit=None, op="delete", ids=[], summary="scope deleted",
                                    time=_iso(int(time.time()))))
                del self.state[ref]
                continue
            evs, seen = self._between(ref, prev, new)
            events.extend(evs)
            self.state[ref] = RefState(new, seen[-_SEEN_LIMIT:], self._time(new))
        return events

    def _between(self, ref: str, prev: RefState | None, new: str) -> tuple[list[Event], list[str]]:
        git = self.git
        old = prev.tip if prev else None
        seen = list(prev.seen) if prev else []
        old_known = old is not None and git.has_commit(old)
        fast_forward = old_known and git.is_ancestor(old, new)
        hide: list[str] = []
        if fast_forward:
            hide.append(old)
        elif old_known:
            base = git.merge_base(old, new)
            if base is not None:
                hide.append(base)  # the untouched part of a rewritten history
        commits = [git.info(rev) for rev in git.walk([new], topological=True, hide=hide)]  # newest first
        rewritten = old is not None and not fast_forward
        if rewritten:
            # The ref was rewritten (forget): its commits got new ids. Going back from the
            # new tip, everything up to the first commit we have already reported (in its
            # rewritten form: same fingerprint) is new. If none is found (the old objects
            # pruned and our record too short), fall back to "not older than the old tip".
            known = set(seen)
            fresh = []
            for c in commits:
                if _fingerprint(c) in known:
                    break
                fresh.append(c)
            else:
                since = prev.time if prev else 0
                fresh = [c for c in fresh if c.time >= since]
            commits = fresh
        commits.reverse()  # oldest first
        out = []
        for c in commits:
            out.append(_event(ref, old, new, c, rewritten=rewritten))
            seen.append(_fingerprint(c))
        if rewritten and not out:
            # Nothing new, but say that the ref moved so a listener can refresh.
            tip = git.info(new)
            ev = _event(ref, old, new, tip, rewritten=True)
            ev.op, ev.ids, ev.summary = "rewrite", [], "history rewritten"
            out.append(ev)
        return out, seen

    def events(self, interval: float = 1.0, stop: Callable[[], bool] | None = None,
               sleep: Callable[[float], None] = time.sleep) -> Iterator[Event]:
        """Poll forever (or until `stop()` is true), yielding events as they appear."""
        if interval <= 0:
            raise UsageError("interval must be positive", hint="e.g. --interval 0.5")
        while True:
            start = time.monotonic()
            for ev in self.poll():
                yield ev
            if stop is not None and stop():
                return
            sleep(max(0.0, interval - (time.monotonic() - start)))


# ---- named cursors --------------------------------------------------------------------
def cursor_path(svc: Memories, name: str) -> Path:
    if not _CURSOR_RE.match(name or "") or name.endswith(".lock"):
        raise UsageError(f"bad cursor name {name!r}",
                         hint="letters, digits, '.', '_' and '-', e.g. --cursor session-42")
    return svc.home / "state" / "cursors" / f"{name}.json"


def _load_cursor(path: Path) -> dict[str, RefState] | None:
    try:
        data = json.loads(path.read_text())
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as e:
        raise UsageError(f"cannot read cursor {path.name}: {e}",
                         hint=f"delete {path} to start the cursor afresh") from e
    refs = data.get("refs", {}) if isinstance(data, dict) else {}
    return {r: RefState(str(v.get("tip", "")), list(v.get("seen", [])), int(v.get("time", 0)))
            for r, v in refs.items() if isinstance(v, dict)}


def changes(svc: Memories, cursor: str, *, scopes: Iterable[str] | None = None,
            session: str | None = None, from_start: bool = False,
            peek: bool = False) -> list[Event]:
    """What changed since the named cursor; moves the cursor (unless `peek`).

    The first call starts the cursor at the current tips and returns nothing, unless
    `from_start` (then everything is new). With `session`, that session's own commits
    are left out (the cursor still moves past them)."""
    path = cursor_path(svc, cursor)
    lock = svc.home / "state" / "locks" / f"cursor-{cursor}.lock"
    with file_lock(lock, timeout=30):
        state = _load_cursor(path)
        if state is None:
            w = Watcher(svc, scopes, from_start=from_start)
            events = w.poll() if from_start else []
        else:
            w = Watcher(svc, scopes, state=state)
            events = w.poll()
        if not peek:
            data = {"refs": {r: s.to_dict() for r, s in w.state.items()},
                    "updated": _iso(int(time.time()))}
            if state is not None and scopes:
                # Keep the positions of refs this call did not look at.
                for r, s in state.items():
                    data["refs"].setdefault(r, s.to_dict())
            atomic_write(path, json.dumps(data).encode())
    if session:
        events = [e for e in events if e.session != session]
    return events


def list_cursors(svc: Memories) -> list[str]:
    d = svc.home / "state" / "cursors"
    return sorted(p.stem for p in d.glob("*.json")) if d.is_dir() else []


def run_exec(command: str, event: Event, timeout: float | None = 60) -> int:
    """Run `command` through the shell with the event as JSON on stdin."""
    import subprocess

    env = dict(os.environ, GITMEM_EVENT_REF=event.ref, GITMEM_EVENT_OP=event.op or "",
               GITMEM_EVENT_COMMIT=event.commit or "", GITMEM_EVENT_SCOPE=event.scope)
    try:
        res = subprocess.run(command, shell=True, input=(event.to_json() + "\n").encode(),
                             env=env, timeout=timeout)
    except subprocess.TimeoutExpired:
        return 124
    return res.returncode
