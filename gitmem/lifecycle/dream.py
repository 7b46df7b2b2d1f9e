"""Dream: consolidation of a scope as ONE commit on top of its history.

The plan (gitmem.consolidate) is a pure function of a scope's tip, the access counts
and the clock: exact duplicates merge; near duplicates merge when their embeddings
agree and they do not differ in numbers or names; memories whose weight fell below
`dream.archive_below` move to `archive/`; `MEMORY.md` is rebuilt. Nothing is
rewritten: the pre-dream tip stays reachable (and is pinned at
`refs/gitmem/archive/<scope>/<time>`), and `undream` reverts the commit.

Gates ("since the last dream" = since the newest dream or undream commit on the
scope, or since the scope's first commit if it never dreamt): `dream.min_hours` of
wall time and `dream.min_sessions` distinct sessions, counted from the
`Gitmem-Session` trailers of the commits since. Commits written without a session
(a person at the CLI) count as one session per UTC day, so a store used by hand still
dreams after five active days.
"""

from __future__ import annotations

import datetime as dt
import json
import time
from typing import Any, Iterator

from gitmem.core import model, paths
from gitmem.core.errors import ConflictError, NotFound, UsageError
from gitmem.core.fsutil import pid_lock
from gitmem.core.trailers import Commit, format_message
from gitmem.index.embed import get_embedder
from gitmem.lifecycle.consolidate import Plan, make_plan, setting
from gitmem.memories.service import Memories
from gitmem.policy import access
from gitmem.policy.weight import Counts
from gitmem.store import Change, GitStore, Keep, Rev

ARCHIVE_REF_PREFIX = "refs/gitmem/archive/"

__all__ = ["ARCHIVE_REF_PREFIX", "access_counts", "dream", "dream_apply", "dream_plan", "gates", "last_dream",
           "undream"]


# ---- history: last dream, sessions, access counts ----------------------------------------
def first_parent_line(git: GitStore, tip: Rev | None) -> Iterator[Commit]:
    """The scope's own line of commits, newest first (clock skew cannot reorder it)."""
    rev = tip
    while rev is not None:
        yield git.info(rev)
        rev = git.first_parent(rev)


def last_dream(svc: Memories, scope: str, ops: tuple[str, ...] = ("dream", "undream")) -> Commit | None:
    """The newest dream (or undream) commit on the scope's line."""
    for c in first_parent_line(svc.git, svc.git.tip(scope)):
        if c.op in ops:
            return c
    return None


def access_counts(svc: Memories, scope: str) -> dict[str, tuple[int, int]]:
    """Local access log merged (max) with the counts last flushed to notes."""
    counts = dict(access.counts(svc.home))
    last = last_dream(svc, scope, ops=("dream",))
    if last is not None:
        raw = svc.git.note(last.id)
        try:
            flushed = json.loads(raw).get("access", {}) if raw else {}
        except ValueError:
            flushed = {}
        for i, v in flushed.items():
            try:
                n, t = int(v[0]), int(v[1])
            except (TypeError, ValueError, IndexError):
                continue
            old = counts.get(i, (0, 0))
            counts[i] = (max(old[0], n), max(old[1], t))
    return counts


def gates(svc: Memories, scope: str, now: float) -> dict[str, Any]:
    """Hours and sessions since the last dream, against `dream.min_hours` / `min_sessions`."""
    since = None
    sessions: set[str] = set()
    first_time = None
    for c in first_parent_line(svc.git, svc.git.tip(scope)):
        if c.op in ("dream", "undream"):
            since = c.time
            break
        first_time = c.time
        found = c.trailers.get("Gitmem-Session")
        if found:
            sessions.update(found)
        else:
            sessions.add("day:" + dt.datetime.fromtimestamp(c.time, dt.timezone.utc).strftime("%Y-%m-%d"))
    ref_time = since if since is not None else (first_time if first_time is not None else now)
    hours = (now - ref_time) / 3600.0
    need_h, need_s = float(setting(svc.config, "min_hours")), int(setting(svc.config, "min_sessions"))
    return {"hours_since": round(hours, 2), "sessions_since": len(sessions), "min_hours": need_h,
            "min_sessions": need_s, "open": hours >= need_h and len(sessions) >= need_s,
            "last_dream": since}


# ---- the lock ----------------------------------------------------------------------------
# ---- the operations ----------------------------------------------------------------------
def dream(svc: Memories, scope: str | None = None, dry_run: bool = False, force: bool = False,
          now: float | None = None) -> dict[str, Any]:
    """Dream every scope (or one); each gets at most one commit."""
    now = time.time() if now is None else float(now)
    scopes = [model.check_scope(scope)] if scope else list(svc.git.scopes())
    if scope and svc.git.tip(scope) is None:
        raise NotFound(f"no scope {scope}", hint="`gitmem scopes` lists them")
    out: dict[str, Any] = {"dry_run": dry_run, "scopes": {}}
    if dry_run:
        for s in scopes:
            plan = make_plan(svc, s, svc.git.tip(s), now, access_counts(svc, s))
            plan.gates = gates(svc, s, now)
            out["scopes"][s] = {**plan.to_dict(), "commit": None, "skipped": None}
        return out
    with pid_lock(paths.lock(svc.home, "dream"), float(setting(svc.config, "lock_stale_seconds")),
                  what="dream"):
        for s in scopes:
            out["scopes"][s] = _dream_scope(svc, s, force, now)
    return out


def _dream_scope(svc: Memories, scope: str, force: bool, now: float) -> dict[str, Any]:
    g = gates(svc, scope, now)
    if not force and not g["open"]:
        why = (f"{g['hours_since']:.1f} h and {g['sessions_since']} session(s) since the last dream; "
               f"needs {g['min_hours']:g} h and {g['min_sessions']} (or --force)")
        return {"scope": scope, "skipped": why, "gates": g, "commit": None, "merges": [], "archive": [],
                "possible_updates": [], "supersessions": []}
    counts: Counts = access_counts(svc, scope)
    embedder, _ = get_embedder(svc.config)
    first = make_plan(svc, scope, svc.git.tip(scope), now, counts, embedder)
    state: dict[str, Plan] = {}
    stamp = dt.datetime.fromtimestamp(now, dt.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    ref = f"{ARCHIVE_REF_PREFIX}{scope}/{stamp}"

    def build(tip: Rev | None):
        plan = first if (tip is not None and tip.id == first.tip) else make_plan(
            svc, scope, tip, now, counts, embedder)
        state["plan"] = plan
        if plan.empty or tip is None:
            return None
        red = svc.redactor()
        trailers = svc.trailers("dream", plan.ids, scope, red)
        for e in plan.merges:
            trailers += [("Gitmem-Merged", f"{m} into {e['survivor']}") for m in e["merged"]]
        trailers += [("Gitmem-Superseded", f"{p['old']} by {p['by']}") for p in plan.supersessions]
        trailers += [("Gitmem-Archived", a["id"]) for a in plan.archive if not a.get("superseded_by")]
        # Pin the pre-dream tip now, under the write lock, so no forget can prune it
        # between our commit and the pin (a retry re-pins the newer tip).
        svc.git.set_ref(ref, tip.id)
        n_merged = sum(len(e["merged"]) for e in plan.merges)
        n_sup = len(plan.supersessions)
        subject = (f"dream: merged {n_merged}, " + (f"superseded {n_sup}, " if n_sup else "")
                   + f"archived {len(plan.archive) - n_sup}, MEMORY.md {plan.memory_md_lines} lines")
        return plan.changes, format_message(subject, None, trailers)

    commit = svc.git.commit(scope, build, svc.author())
    plan = state.get("plan", first)
    result = {**plan.to_dict(), "gates": g, "commit": commit, "skipped": None, "archive_ref": None}
    if commit:
        result["archive_ref"] = ref
        note = {"access": {i: [n, t] for i, (n, t) in sorted(counts.items())}, "flushed": int(now)}
        svc.git.set_note(commit, json.dumps(note, sort_keys=True), svc.author())
    return result


def dream_plan(svc: Memories, scope: str | None = None, now: float | None = None) -> dict[str, Any]:
    """The candidate groups an agent decides about (gitmem.lifecycle.agentplan)."""
    from gitmem.lifecycle.agentplan import agent_plan

    now = time.time() if now is None else float(now)
    return agent_plan(svc, scope, now, lambda s: access_counts(svc, s))


def dream_apply(svc: Memories, raw: Any, scope: str | None = None, now: float | None = None) -> dict[str, Any]:
    """An agent's decisions (gitmem.lifecycle.decisions), checked whole, as ONE dream
    commit; refused whole (UsageError) with nothing written."""
    from gitmem.lifecycle import decisions

    now = time.time() if now is None else float(now)
    doc = decisions.parse(raw)
    if scope and doc["scope"] and scope != doc["scope"]:
        raise UsageError(f"the decision list is for scope {doc['scope']}, not {scope}",
                         hint="leave out --scope or make them agree")
    target = model.check_scope(scope or doc["scope"] or svc.scope_for_write(None))
    ref = f"{ARCHIVE_REF_PREFIX}{target}/{decisions.stamp(now)}"
    with pid_lock(paths.lock(svc.home, "dream"), float(setting(svc.config, "lock_stale_seconds")),
                  what="dream"):
        return decisions.commit(svc, target, doc["decisions"], ref)


def undream(svc: Memories, scope: str | None = None) -> dict[str, Any]:
    """Revert the newest not-yet-reverted dream commit of a scope with a new commit.
    Paths written after the dream keep their newer content."""
    scope = svc.scope_for_write(scope)
    tip = svc.git.tip(scope)
    if tip is None:
        raise NotFound(f"no scope {scope}")
    reverted: set[str] = set()
    target = None
    for c in first_parent_line(svc.git, tip):
        if c.op == "undream":
            reverted.update(c.trailers.get("Gitmem-Reverts", []))
        elif c.op == "dream" and c.id not in reverted:
            target = c
            break
    if target is None:
        raise NotFound(f"no dream to undo in {scope}", hint="`gitmem log --scope SCOPE` shows dreams")
    git = svc.git
    dc = git.commit_obj(target.id)
    parent = git.first_parent(dc)
    info: dict[str, list[str]] = {}

    def build(cur: Rev | None):
        restored, kept = [], []
        changes: dict[str, Change] = {}
        for _, path, _ in git.diff_files(parent.id if parent is not None else None, dc.id):
            dream_blob = git.blob_id(dc, path)
            before = git.blob_id(parent, path)
            if git.blob_id(cur, path) != dream_blob:
                kept.append(path)  # written again after the dream: the newer write wins
                continue
            name = path.rsplit("/", 1)[-1]
            if before and name.endswith(".md") and model.is_id(name[:-3]):
                elsewhere = svc.find_in(cur, name[:-3])
                if elsewhere and elsewhere != path and git.blob_id(cur, elsewhere) != git.blob_id(dc, elsewhere):
                    kept.append(path)  # it lives on elsewhere (say archive/), changed since
                    continue
            changes[path] = Keep(before) if before else None
            restored.append(path)
        info.update(restored=restored, kept=kept)
        if not changes:
            return None
        red = svc.redactor()
        trailers = svc.trailers("undream", target.ids, scope, red) + [("Gitmem-Reverts", target.id)]
        return changes, format_message(f"undream: revert {target.id[:12]}", None, trailers)

    commit = git.commit(scope, build, svc.author())
    if commit is None:
        raise ConflictError("everything the dream changed was changed again since; nothing to revert")
    return {"scope": scope, "reverted": target.id, "commit": commit, **info}
