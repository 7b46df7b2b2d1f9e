"""Forget: a revert commit, then a history rewrite that purges the text, then a prune.

The one operation that rewrites history. Everything runs under the store's write lock,
so no gitmem write is in flight while objects are pruned, and every ref moves in one
`git update-ref --stdin` transaction that checks each ref's old value
(GitStore.update_refs). The rewrite itself is the object layer's generic one
(store/rewrite.py); what it changes is decided here, by a PurgePolicy.

What counts as "the forgotten text" of a memory id: every version of its file in any
scope's history (those blobs are replaced whole by a placeholder), plus, inside any
other blob or commit message, the text, its whitespace-collapsed form, its summary, its
key and its long lines. Needles shorter than MIN_BLOB_NEEDLE are searched for in commit
messages only, not inside other memories' files, so that forgetting "pin 4711" does
not silently edit another memory that mentions it; a commit whose only Gitmem-Id is a
forgotten memory has its subject (the summary) scrubbed whatever its length.
`redact --text` applies its string everywhere. Memories that dream merged into a
forgotten one (its `supersedes`, no longer live) are forgotten with it; one it merely
replaced (still live under memories/) is not, and is current again.

Every operation leaves a redaction record (ids, blob hashes, the commit map; never the
text) on `refs/gitmem/redactions`, moved in the same ref transaction: see ledger.py for
its format and what a clone does with it.
"""

from __future__ import annotations

import json
from typing import Any, Callable, Iterable

from gitmem.agents import receipts
from gitmem.core import model
from gitmem.core.errors import NotFound, UsageError
from gitmem.core.fsutil import atomic_write
from gitmem.core.trailers import format_message
from gitmem.encryption import shred as shredding
from gitmem.lifecycle.purge import (
    FORGOTTEN_MARK,
    MIN_NEEDLE,
    REDACTED_MARK,
    Purge,
    PurgePolicy,
    ids_with_replaced_blobs,
    live_places,
    needles_of,
    pending_path,
    placeholder,
    purge_index,
    ref_updates,
)
from gitmem.memories import ledger, ledger_clean
from gitmem.memories.service import Memories, key_path
from gitmem.policy import access
from gitmem.store import SCOPE_PREFIX, Change, GitStore
from gitmem.store.rewrite import rewrite, rewrite_roots, scan_versions


NOTES_PREFIXES = ("refs/notes/",)


def clean_tips(git: GitStore) -> list[str]:
    """Every commit tip that history rewrites cover (not the ledgers, the marker, the
    keyring): what a forget or a sync leaves checked against the ledger."""
    roots, _ = rewrite_roots(git, exclude=tuple(ledger.ledger_refs(git)))
    return sorted(set(roots.values()))


def resolve(svc: Memories, refs: Iterable[str]) -> list[str]:
    """Ids for ids-or-keys; ids that are only in history are accepted too."""
    out: list[str] = []
    for ref in refs:
        try:
            _, mem_id, _ = svc.locate(ref)
        except NotFound:
            if not model.is_id(ref):
                raise
            mem_id = ref  # maybe only in history (soft-forgotten, merged): checked later
        if mem_id not in out:
            out.append(mem_id)
    if not out:
        raise UsageError("no ids given", hint="gitmem forget ID... or gitmem forget --query Q")
    return out


def find(svc: Memories, query: str, *, archived: bool = True) -> list[model.Memory]:
    """Live memories whose text, summary, key or tags contain every word of `query`."""
    words = [w.casefold() for w in query.split()]
    if not words:
        raise UsageError("empty query")
    out = []
    for m in svc.list(svc.scopes_for_read(all_scopes=True), archived=archived):
        hay = " ".join([m.text, m.summary, m.key or "", " ".join(m.tags)]).casefold()
        if all(w in hay for w in words):
            out.append(m)
    return out


# ---- the operations --------------------------------------------------------------------
def _revert_changes(svc: Memories, tip, mem_id: str, path: str) -> dict[str, Change]:
    changes: dict[str, Change] = {path: None}
    data = svc.git.read(tip, path)
    mem = model.parse(data, path=path) if data else None
    if mem and mem.key and svc.key_id(tip, mem.key) == mem_id:
        changes[key_path(mem.key)] = None
    return changes


def _revert_message(svc: Memories, op: str, ids: list[str], scope: str, reason: str | None) -> str:
    red = svc.redactor()
    n = len(ids)
    if n:
        subject = f"{op}: {n} memor{'y' if n == 1 else 'ies'} ({', '.join(ids[:3])}{'…' if n > 3 else ''})"
    else:
        subject = f"{op}: purged a leaked string from this scope's history"
    trailers = svc.trailers(op, ids, scope, red)
    if reason:
        trailers.append(("Gitmem-Reason", red.text(reason, "reason")))
    return format_message(subject, None, trailers)


def forget(svc: Memories, refs: Iterable[str], reason: str | None = None, keep_history: bool = False) -> dict[str, Any]:
    """Remove memories with one revert commit per scope, then (unless keep_history)
    purge their text from every object, reflog and the index. The reason is redacted
    before it reaches the commit, the ledger every clone fetches, or the answer."""
    reason = svc.redactor().text(reason, "reason") if reason else reason
    ids = resolve(svc, refs)
    if keep_history:
        live = live_places(svc, ids)
        missing = [i for i in ids if i not in live]
        if missing:
            raise NotFound(f"no live memory {missing[0]}", hint="`gitmem list` shows ids")
        commits = {}
        for scope in sorted({s for places in live.values() for s, _ in places}):
            mine = [i for i in ids if any(s == scope for s, _ in live[i])]

            def build(tip, mine=mine, scope=scope):
                changes: dict[str, Change] = {}
                for i in mine:
                    path = svc.find_in(tip, i)
                    if path:
                        changes.update(_revert_changes(svc, tip, i, path))
                if not changes:
                    return None
                return changes, _revert_message(svc, "forget", mine, scope, reason)

            c = svc.git.commit(scope, build, svc.author())
            if c:
                commits[scope] = c
        return {"ids": ids, "commits": commits, "keep_history": True, "purged": False}
    return _purge(svc, ids=ids, text=None, reason=reason)


def redact_text(svc: Memories, text: str, reason: str | None = None) -> dict[str, Any]:
    """Purge a leaked string from every scope's history and the index."""
    if not isinstance(text, str) or len(text.strip()) < MIN_NEEDLE:
        raise UsageError(f"the string to redact must be at least {MIN_NEEDLE} characters",
                         hint="a shorter string would rewrite unrelated memories")
    reason = svc.redactor().text(reason, "reason") if reason else reason
    return _purge(svc, ids=[], text=text, reason=reason)


def _collect(git: GitStore, roots: list[str], ids: list[str], text: str | None,
             found_first: dict[str, set[str]] | None = None,
             still_live: Callable[[str], bool] = lambda _: False) -> tuple[Purge, set[str]]:
    """The purge for `ids` (closed over what dream merged into them) and `text`, and
    the ids that have any version in the given histories. A memory a forgotten one
    `supersedes` that is still live (not merged away: `still_live`) is not forgotten
    with it: it is current again (issue 22)."""
    purge = Purge(mark=FORGOTTEN_MARK if ids else REDACTED_MARK)
    if text is not None:
        purge.strings.add(text)
    todo = set(ids)
    found_ids: set[str] = set()
    while todo:
        purge.ids |= todo
        if found_first is not None:  # the caller scanned for these ids already
            found, found_first = {i: b for i, b in found_first.items() if i in todo}, None
        else:
            found = scan_versions(git, roots, {f"{i}.md": i for i in todo})
        todo = set()
        for i, blobs in found.items():
            found_ids.add(i)
            for b in blobs:
                # scan_versions knows blobs by file name, not full path: the name is
                # what identifies a memory's file wherever it moved (memories/, archive/).
                mem = model.parse(git.blob(b, f"{i}.md"))
                purge.needles |= needles_of(mem)
                if mem.key:
                    purge.key_paths.add(key_path(mem.key))
                todo |= {s for s in mem.supersedes if model.is_id(s) and not still_live(s)} - purge.ids
    return purge, found_ids


def _audit_commits(svc: Memories, op: str, all_ids: list[str], reason: str | None) -> dict[str, str]:
    """The revert commits (objects only): the audit trail of ids, who, when and why,
    never text. A redaction gets one per scope with the tree unchanged."""
    git = svc.git
    out: dict[str, str] = {}
    live = live_places(svc, all_ids)
    for scope in sorted({s for places in live.values() for s, _ in places}):
        tip = git.tip(scope)
        mine = [i for i in all_ids if any(s == scope for s, _ in live.get(i, []))]
        changes: dict[str, Change] = {}
        for i in mine:
            for s, path in live[i]:
                if s == scope:
                    changes.update(_revert_changes(svc, tip, i, path))
        msg = _revert_message(svc, op, mine, scope, reason)
        out[scope] = git.write_commit(tip, changes, msg, svc.author())
    if op == "redact":
        # Which scopes, never the string.
        for scope in git.scopes():
            msg = _revert_message(svc, "redact", [], scope, reason)
            out[scope] = git.write_commit(git.tip(scope), {}, msg, svc.author())
    return out


def remove_live(svc: Memories, scope: str, ids: Iterable[str], reason: str | None = None) -> str | None:
    """One commit removing the forgotten `ids` still live in `scope` (after sync applied
    a ledger record and merged); None when none is."""
    ids = sorted(set(ids))

    def build(tip):
        gone = [(i, p) for i in ids if (p := svc.find_in(tip, i))]
        if not gone:
            return None
        changes: dict[str, Change] = {}
        for i, p in gone:
            changes.update(_revert_changes(svc, tip, i, p))
        return changes, _revert_message(svc, "forget", [i for i, _ in gone], scope, reason)

    return svc.git.commit(scope, build, svc.author()) if ids else None


def apply_records(svc: Memories, ids: Iterable[str], blob_ids: Iterable[str],
                  groups: list[tuple[set[str], set[str], set[str], list[str]]], *,
                  commits: dict[str, str] | None = None, blob_map: dict[str, str] | None = None,
                  keys: Iterable[str] = ()) -> dict[str, Any] | None:
    """Apply redaction records another clone wrote (sync): purge their ids and blobs
    from every local ref, tracking refs of remotes included, the same way, without a
    new record. None when nothing here holds them. `groups` splits the records by what
    is already checked against them: (ids, blob ids, commit ids, tips to hide) each;
    history reachable from a group's checked tips is not scanned again for it. Only refs
    with history outside a group's checked tips, for a group that has a hit, are
    rewritten (the others hold none of it)."""
    ids, blob_ids = sorted(set(ids)), set(blob_ids)
    git = svc.git
    roots, tags = rewrite_roots(git, exclude=tuple(ledger.ledger_refs(git)))
    commits = dict(commits or {})
    found: dict[str, set[str]] = {}
    hit_hides: list[list[str]] = []
    for g_ids, g_blobs, g_commits, hide in groups:
        got = scan_versions(git, list(roots.values()), {f"{i}.md": i for i in g_ids}, hide=hide,
                            blob_ids=g_blobs, commit_ids=g_commits)
        # A version that is already the placeholder holds nothing to purge.
        got = {i: {b for b in bs if i == "" or git.blob(b, f"{i}.md") != placeholder(i)} for i, bs in got.items()}
        got = {i: bs for i, bs in got.items() if bs}
        if got:
            hit_hides.append(hide)
        for i, bs in got.items():
            found.setdefault(i, set()).update(bs)
    # Data keys a record shredded that this store still holds: whatever here is sealed
    # with them is re-sealed (an encrypted store), even where no id matched.
    keys = shredding.held(svc, keys)
    if not found and not keys:
        return None
    # Notes are keyed by commit ids: they are always rewritten along.
    skip = {} if keys or tags else {
        r: tip for r, tip in roots.items() if not r.startswith(NOTES_PREFIXES)
        and all(next(iter(git.walk([tip], hide=hide)), None) is None for hide in hit_hides)}
    return _purge(svc, ids=[i for i in ids if i in found], text=None,
                  reason="applied from the redaction ledger", record=False, blob_ids=blob_ids,
                  known=commits, known_blobs=blob_map, found=found, keys=keys,
                  skip=skip, record_ids=set(ids))


def _purge(svc: Memories, ids: list[str], text: str | None, reason: str | None, *,
           record: bool = True, blob_ids: set[str] = frozenset(),
           known: dict[str, str] | None = None,
           known_blobs: dict[str, str] | None = None,
           found: dict[str, set[str]] | None = None, keys: Iterable[str] = (),
           skip: dict[str, str] | None = None, record_ids: set[str] = frozenset()) -> dict[str, Any]:
    git = svc.git
    op = "forget" if ids or not record else "redact"
    with git.write_lock(timeout=120.0):
        roots, tags = rewrite_roots(git, exclude=tuple(ledger.ledger_refs(git)))
        tag_roots = {f"{ref}^{{}}": peeled for ref, (_, peeled) in tags.items()}
        purge, found = _collect(git, list(roots.values()) + list(tag_roots.values()), ids, text,
                                found_first=found, still_live=lambda i: i not in ids and any(
                                    p.startswith("memories/") for _, p in live_places(svc, [i]).get(i, ())))
        purge.blob_ids = set(blob_ids)
        missing = [i for i in ids if i not in found]
        if missing and record:
            raise NotFound(f"no memory {missing[0]} in any scope or history",
                           hint="`gitmem list` shows ids; `gitmem log` shows history")
        all_ids = sorted(purge.ids & found)
        if skip and not purge.ids - record_ids:
            # Applying records: a ref whose history was checked clean of every record
            # with a hit keeps it, unless it moved since (a memory merged into a
            # forgotten one that no record names could be anywhere: then every ref is
            # rewritten).
            roots = {r: t for r, t in roots.items() if skip.get(r) != t}
        # 0. An encrypted store: the forgotten memories' data keys are shredded, so what
        # the rewrite keeps that was sealed with them is re-sealed under fresh keys.
        shred = shredding.begin_shred(svc, all_ids, keys)
        # 1. The revert commits.
        # Applying another clone's record rewrites history only: the live copies go by
        # merging the remote (which has that clone's revert) or by remove_live after it,
        # so the rewritten history stays the one every clone computes.
        reverts = _audit_commits(svc, op, all_ids, reason) if record else {}
        # 2. Rewrite every history that holds the text (the new revert commits included).
        start = {**roots, **tag_roots}
        for scope, c in reverts.items():
            start[SCOPE_PREFIX + scope] = c
        rw = rewrite(git, start, PurgePolicy(purge), known=known, known_blobs=known_blobs)
        rw = shredding.reseal(svc, shred, start, rw)
        if op == "redact":
            # Scopes the string never touched keep their history: drop their audit commit.
            for scope, c in reverts.items():
                ref = SCOPE_PREFIX + scope
                new = rw.refs.get(ref, (c, c))[1]
                if git.commit_obj(new).parents[0] == roots[ref]:
                    rw.refs.pop(ref, None)
                    start[ref] = roots[ref]
        updates, dropped_tags = ref_updates(roots, tags, start, rw)
        if op == "redact" and not updates:
            raise NotFound("the string is in no memory, message or history",
                           hint="nothing was changed")

        # 3. The redaction record, moved with the histories it describes.
        rec_path = None
        if record:
            entry = ledger.new_record(
                op, all_ids, time=int(svc.clock()), who="{} <{}>".format(*svc.identity()),
                reason=reason, blobs=rw.blobs, commits=rw.commits, blob_map=rw.blob_map,
                refs=[u for u in updates if ledger.shared_ref(u[0], svc.config)])
            entry.update(shredding.shred_record(svc, shred, advance=True))
            rec_path, ledger_update = ledger.stage(git, entry, svc.author())
        ring = shredding.finish_shred(svc, shred, advance=record)
        # A process killed once the refs have moved would leave the old text in
        # unreachable objects and the index: the marker makes the next open finish the
        # job (finish_interrupted). It names ids only, never the text.
        pending = pending_path(svc.home)
        atomic_write(pending, json.dumps({"op": op, "ids": all_ids}).encode())
        try:
            git.update_refs(updates + ring + ([ledger_update] if record else []), message=f"gitmem {op}")
        except BaseException:
            pending.unlink(missing_ok=True)
            raise
        shredding.end_shred(svc)
        svc.drop_parsed()
        if rec_path is not None:
            ledger_clean.after_forget(svc.home, rec_path, rw.commits, clean_tips(git))
        # 4. No way back: expire reflogs, drop unreachable objects, purge derived copies.
        touched = set(all_ids) | ids_with_replaced_blobs(git, roots, rw.blobs)
        # Applying a record: every object it or this rewrite replaced goes with the
        # packs that hold it; packs holding none of them (most of a large store) are
        # kept as they are. A forget here repacks everything.
        # A store re-sealing under shredded keys repacks everything too.
        selective = not record and not keys and not git.encryption()
        git.prune(drop=(rw.blobs | set(rw.commits) | set(blob_ids) | set(known or {})) if selective else None)
        access.drop(svc.home, all_ids)
        receipts.purge(svc.home, all_ids, text=text)
        index_note = purge_index(svc, touched)
        pending.unlink(missing_ok=True)
    return {
        "op": op, "ids": all_ids, "merged": [i for i in all_ids if i not in ids],
        "reason": reason, "commits": {r[len(SCOPE_PREFIX):]: n for r, n, _ in updates if r.startswith(SCOPE_PREFIX)},
        "rewritten_commits": len(rw.commits), "replaced_blobs": len(rw.blobs),
        "refs": [u[0] for u in updates], "deleted_tags": dropped_tags, "record": rec_path, "index": index_note, "purged": True,
        "keep_history": False,
    }


