"""Change notification by ref polling: events, named cursors, the watch loop.

A watcher remembers each scope's tip; a poll compares the refs with what it remembers
and turns every new commit into one event. Refs that moved backwards or sideways (a
forget rewrote history) are handled without losing or repeating events: commits the
watcher has already reported are recognised by their author line and trailers, which a
rewrite keeps, rather than by their ids, which it changes.

With a remote (`watch --remote NAME`), each poll first fetches NAME into its tracking
refs (`refs/remotes/NAME/<scope>`, through the object layer's transport) and the same
comparison runs on those refs: the commits that arrived from the remote become the same
events, with `ref` the tracking ref and `remote` set. A failed fetch is reported once per
failure streak (a callback; library code does not print) and polling goes on. A named
cursor may include a remote's tracking refs too (`changes --remote NAME`); it never
fetches, it reads them as the last fetch (watch, sync or plain git fetch) left them."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

from gitmem.core import paths
from gitmem.core.errors import GitmemError, LockBusy, UsageError
from gitmem.core.fsutil import atomic_write, file_lock
from gitmem.core.model import check_scope
from gitmem.core.trailers import Commit
from gitmem.memories.service import Memories
from gitmem.policy import gate
from gitmem.store import SCOPE_PREFIX
from gitmem.store.transport import tracking_prefix
from gitmem.sync.remotes import sync_lock_path

# Ops whose subject may not be shown: the event names the ids, never the text.
_QUIET_OPS = ("forget", "redact")
_CURSOR_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}\Z")
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
    remote: str | None = None  # set when the commit arrived on a remote's tracking ref

    def to_dict(self) -> dict[str, Any]:
        d = {"ref": self.ref, "scope": self.scope, "old": self.old, "new": self.new,
             "commit": self.commit, "op": self.op, "ids": self.ids, "summary": self.summary,
             "time": self.time, "author": self.author, "session": self.session,
             "agent": self.agent}
        if self.rewritten:
            d["rewritten"] = True
        if self.remote:
            d["remote"] = self.remote
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


def split_ref(ref: str) -> tuple[str, str | None]:
    """(scope, remote) of a watched ref: refs/heads/<scope> or refs/remotes/NAME/<scope>
    (remote names have no '/', so the first component is the remote)."""
    if ref.startswith(SCOPE_PREFIX):
        return ref[len(SCOPE_PREFIX):], None
    name, _, scope = ref[len("refs/remotes/"):].partition("/")
    return scope, name


def _event(ref: str, old: str | None, new: str | None, c: Commit, rewritten: bool = False) -> Event:
    first = lambda k: (c.trailers.get(k) or [None])[0]  # noqa: E731
    scope, remote = split_ref(ref)
    return Event(ref=ref, scope=scope, old=old, new=new, commit=c.id, op=c.op,
                 ids=list(c.ids), summary=_summary(c), time=c.iso_time, author=c.author,
                 session=first("Gitmem-Session"), agent=first("Gitmem-Agent"), rewritten=rewritten,
                 remote=remote)


@dataclass
class RefState:
    tip: str
    seen: list[str] = field(default_factory=list)  # fingerprints, newest last
    time: int = 0  # time of the tip: after a rewrite, older commits are not news

    def to_dict(self) -> dict[str, Any]:
        return {"tip": self.tip, "time": self.time, "seen": self.seen[-_SEEN_LIMIT:]}


class Watcher:
    """Polls a store's scope refs (and/or one remote's tracking refs) and yields one
    Event per new commit, oldest first.

    `remote`: also watch refs/remotes/NAME/<scope>; `local=False` leaves the store's own
    scopes out. `fetch=True` (with a remote) fetches it before taking the starting tips
    and before every poll of `events`; `on_fetch` hears of a failure streak (the error,
    once, when it starts) and of its end (None)."""

    def __init__(self, svc: Memories, scopes: Iterable[str] | None = None,
                 state: dict[str, RefState] | None = None, from_start: bool = False,
                 remote: str | None = None, local: bool = True, fetch: bool = False,
                 on_fetch: Callable[[GitmemError | None], None] | None = None):
        self.svc = svc
        self.git = svc.git
        self.scopes = [check_scope(s) for s in scopes] if scopes else None
        self.remote = remote
        self.local = local
        self.on_fetch = on_fetch
        self.fetch_error: GitmemError | None = None  # the current failure streak's first error
        self._pending: list[GitmemError | None] = []  # heard before events() started
        if remote is not None:
            # An unknown remote is a usage error now, not a fetch failure on every poll.
            self._transport().url(remote)
        self._fetching = fetch and remote is not None
        if self._fetching:
            self.fetch()  # the remote as it is now: the starting point, like local tips
        if state is not None:
            self.state = {r: s for r, s in state.items() if self.wants(r)}
        elif from_start:
            self.state = {}
        else:
            self.state = {ref: RefState(tip, self._fp(tip), self._time(tip))
                          for ref, tip in self._refs().items()}

    def _transport(self):
        return self.git.transport(timeout=float(self.svc.config.get("sync", "timeout")))

    def fetch(self) -> bool:
        """Fetch the remote into its tracking refs; False if that failed (reported once
        per streak through on_fetch). Skipped (True) while a `gitmem sync` holds the sync
        lock: it is fetching anyway, and a fetch in the middle of its round would move
        the tracking refs it reads its leases from."""
        lock = sync_lock_path(self.svc.home)
        try:
            with file_lock(lock, timeout=0):
                self._transport().fetch(self.remote)
        except LockBusy:
            return True
        except GitmemError as e:
            return self._failed(e)
        except OSError as e:
            return self._failed(GitmemError(f"fetching {self.remote}: {e}"))
        if self.fetch_error is not None:
            self.fetch_error = None
            self._tell(None)
        return True

    def _failed(self, e: GitmemError) -> bool:
        if self.fetch_error is None:
            self.fetch_error = e
            self._tell(e)
        return False

    def _tell(self, e: GitmemError | None) -> None:
        if self.on_fetch is not None:
            self.on_fetch(e)
        else:
            self._pending.append(e)

    def wants(self, ref: str) -> bool:
        """Whether `ref` is one this watcher follows."""
        if ref.startswith(SCOPE_PREFIX):
            if not self.local:
                return False
            scope = ref[len(SCOPE_PREFIX):]
        elif self.remote is not None and ref.startswith(tracking_prefix(self.remote)):
            scope = ref[len(tracking_prefix(self.remote)):]
        else:
            return False
        return self.scopes is None or scope in self.scopes

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
        refs = dict(self.git.refs(SCOPE_PREFIX)) if self.local else {}
        if self.remote is not None:
            prefix = tracking_prefix(self.remote)
            for ref, tip in self.git.refs(prefix).items():
                try:
                    check_scope(ref[len(prefix):])
                except UsageError:
                    continue  # not a scope (a HEAD symref plain git may have set)
                refs[ref] = tip
        return {r: t for r, t in refs.items() if self.wants(r)}

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
                scope, remote = split_ref(ref)
                events.append(Event(ref=ref, scope=scope, old=old, new=None,
                                    commit=None, op="delete", ids=[], summary="scope deleted",
                                    time=_iso(int(time.time())), remote=remote))
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
               sleep: Callable[[float], None] = time.sleep,
               on_fetch: Callable[[GitmemError | None], None] | None = None) -> Iterator[Event]:
        """Poll forever (or until `stop()` is true), yielding events as they appear; with
        a remote, fetch it first on every round (a failure does not stop the loop)."""
        if interval <= 0:
            raise UsageError("interval must be positive", hint="e.g. --interval 0.5")
        if on_fetch is not None:
            self.on_fetch = on_fetch
        if self.on_fetch is not None:
            pending, self._pending = self._pending, []
            for e in pending:  # what the first fetch (in __init__) ran into
                self.on_fetch(e)
        first = True
        while True:
            start = time.monotonic()
            if self._fetching and not first:
                self.fetch()
            first = False
            for ev in self.poll():
                yield ev
            if stop is not None and stop():
                return
            sleep(max(0.0, interval - (time.monotonic() - start)))


# ---- named cursors --------------------------------------------------------------------
def cursor_path(svc: Memories, name: str) -> Path:
    gate.check_name("cursor name", name, svc.config.get("redact", "allow") or ())
    if not _CURSOR_RE.match(name or "") or name.endswith(".lock"):
        raise UsageError(f"bad cursor name {name!r}",
                         hint="letters, digits, '.', '_' and '-', e.g. --cursor session-42")
    return paths.state_file(svc.home, "cursors", f"{name}.json")


def _load_cursor(path: Path) -> tuple[dict[str, RefState], list[str]] | None:
    """(positions, remotes the cursor follows), or None for a new cursor."""
    try:
        data = json.loads(path.read_text())
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as e:
        raise UsageError(f"cannot read cursor {path.name}: {e}",
                         hint=f"delete {path} to start the cursor afresh") from e
    refs = data.get("refs", {}) if isinstance(data, dict) else {}
    remotes = data.get("remotes", []) if isinstance(data, dict) else []
    return ({r: RefState(str(v.get("tip", "")), list(v.get("seen", [])), int(v.get("time", 0)))
             for r, v in refs.items() if isinstance(v, dict)},
            [str(r) for r in remotes] if isinstance(remotes, list) else [])


def changes(svc: Memories, cursor: str, *, scopes: Iterable[str] | None = None,
            session: str | None = None, from_start: bool = False,
            peek: bool = False, remote: str | None = None) -> list[Event]:
    """What changed since the named cursor; moves the cursor (unless `peek`).

    The first call starts the cursor at the current tips and returns nothing, unless
    `from_start` (then everything is new). With `session`, that session's own commits
    are left out (the cursor still moves past them). With `remote`, the cursor also
    follows that remote's tracking refs (events with `remote` set) as the last fetch
    left them: no network here. The first time an existing cursor is asked about a
    remote, that remote starts where its tracking refs are: their history is not news."""
    path = cursor_path(svc, cursor)
    lock = paths.lock(svc.home, f"cursor-{cursor}")
    with file_lock(lock, timeout=30):
        loaded = _load_cursor(path)
        state, followed = loaded if loaded is not None else (None, [])
        if state is None:
            w = Watcher(svc, scopes, from_start=from_start, remote=remote)
            events = w.poll() if from_start else []
        else:
            w = Watcher(svc, scopes, state=state, remote=remote)
            if remote is not None and remote not in followed:
                w.state.update(Watcher(svc, scopes, remote=remote, local=False).state)
            events = w.poll()
        if not peek:
            data: dict[str, Any] = {"refs": {r: s.to_dict() for r, s in w.state.items()},
                                    "updated": _iso(int(time.time()))}
            if state is not None:
                # Keep the positions of refs this call did not look at (other scopes,
                # another remote's tracking refs).
                for r, s in state.items():
                    if not w.wants(r):
                        data["refs"].setdefault(r, s.to_dict())
            remotes = sorted(set(followed) | ({remote} if remote else set()))
            if remotes:
                data["remotes"] = remotes
            atomic_write(path, json.dumps(data).encode())
    if session:
        events = [e for e in events if e.session != session]
    return events


def list_cursors(svc: Memories) -> list[str]:
    d = paths.state_file(svc.home, "cursors")
    return sorted(p.stem for p in d.glob("*.json")) if d.is_dir() else []


