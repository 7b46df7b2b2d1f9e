"""Sync with git remotes: fetch into tracking refs, apply the redaction ledger, merge
every scope memory-aware, push with the last-seen remote tip as the lease.

    fetch   refs/heads/*  -> refs/remotes/NAME/*            (scopes)
            refs/notes/*  -> refs/gitmem/remotes/NAME/notes/*
            refs/gitmem/redactions, refs/gitmem/meta -> refs/gitmem/remotes/NAME/gitmem/*
Only tracking refs move on fetch; a local scope moves by fast-forward or by one merge
commit (`Gitmem-Op: merge`, merge.py), each with compare-and-swap, so a scope is
never half-merged. Every ledger record, local or fetched, is applied before anything
is merged or pushed (forget.apply_records purges the ids from every local ref,
tracking refs included; history already checked against a record, which
memories/ledger_clean.py remembers, is not scanned again), and a push that would send
an object a record names is refused. Pushes carry `--force-with-lease=<ref>:<tip seen at fetch>`: a ref someone
moved meanwhile is rejected and the whole round runs again (bounded); a rewind the
remote refuses (protected branch) is reported with the refs that still hold purged
text. Sync never asks a person: a true conflict becomes a conflict copy.

A remote is a gitmem store when it is empty or has `refs/gitmem/meta` (format version);
a newer format, a branch that is not a scope, or a non-gitmem repository is a clean
error before anything is merged. Private scopes (`[sync] private`) are neither pushed
nor merged."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

from gitmem.core import model
from gitmem.core.errors import ConflictError, RemoteError, UsageError
from gitmem.core.fsutil import file_lock
from gitmem.core.trailers import format_message
from gitmem.encryption import convert, marker, shred
from gitmem.encryption import keyring as keyring_sync
from gitmem.lifecycle import forget as forgetting
from gitmem.memories import ledger, ledger_clean
from gitmem.memories.service import Memories
from gitmem.store import SCOPE_PREFIX, Draft, Keep
from gitmem.store.crypto import KEYRING_REF
from gitmem.store.transport import Transport, tracking_prefix, tracking_ref
from gitmem.sync.merge import merge_scope, union_notes
from gitmem.sync.remotes import private_scopes, read_state, remote_names, sync_lock_path, transport, write_state

META_REF = "refs/gitmem/meta"
NOTES_PREFIX = "refs/notes/"
META_FILE = "format"


@dataclass
class ScopeReport:
    scope: str
    fetched: int = 0  # commits that arrived from the remote
    merged: str = "none"  # none | fast-forward | merge | created
    pushed: bool = False
    conflicts: list[dict[str, Any]] = field(default_factory=list)
    refused: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"scope": self.scope, "fetched": self.fetched, "merged": self.merged, "pushed": self.pushed,
                "conflicts": self.conflicts, "refused": self.refused}


def _tracked(svc: Memories, name: str) -> dict[str, str]:
    """remote ref -> id, as the last fetch left the tracking refs."""
    git = svc.git
    out = {}
    prefix = tracking_prefix(name)
    for ref, oid in git.refs(prefix).items():
        out["refs/heads/" + ref[len(prefix):]] = oid
    gprefix = f"refs/gitmem/remotes/{name}/"
    for ref, oid in git.refs(gprefix).items():
        out["refs/" + ref[len(gprefix):]] = oid
    return out


def _check_remote(svc: Memories, name: str, seen: dict[str, str]) -> None:
    """A gitmem store of a format we read, every branch a scope; else a clean error."""
    git = svc.git
    if not seen:
        return  # empty: the first push makes it one
    meta = seen.get(META_REF)
    if meta is None:
        keyring_sync.check_remote(svc, name, None, any(r.startswith("refs/heads/") for r in seen))
    if meta is None:
        # Another gitmem home that never synced has no marker yet: its branch tips are
        # gitmem commits. Anything else is some other repository.
        heads = [r for r in seen if r.startswith("refs/heads/")]
        tips = [git.ref(tracking_ref(name, r)) for r in heads]
        if not heads or not all(t and git.info(t).op for t in tips):
            raise RemoteError(f"remote {name} is not a gitmem store (no {META_REF}, and its branches "
                              "are not gitmem commits)",
                              hint="sync with an empty bare repository (`git init --bare -b main`) or "
                                   "another gitmem store")
        return
    try:
        version, lineage = marker.read_meta(svc, tracking_ref(name, META_REF))
    except ValueError:
        raise RemoteError(f"remote {name}: unreadable {META_REF}", hint="is it a gitmem store?") from None
    if version > model.FORMAT_VERSION:
        raise RemoteError(f"remote {name} has store format {version}; this gitmem reads {model.FORMAT_VERSION}",
                          hint="upgrade gitmem on this machine")
    keyring_sync.check_remote(svc, name, lineage, any(r.startswith("refs/heads/") for r in seen))
    bad = []
    for ref in seen:
        if ref.startswith("refs/heads/"):
            try:
                model.check_scope(ref[len("refs/heads/"):])
            except UsageError:
                bad.append(ref[len("refs/heads/"):])
    if bad:
        raise RemoteError(f"remote {name} has branches that are not gitmem scopes: {', '.join(sorted(bad))}",
                          hint="scopes are main, channel/<name>, project/<key>; remove or rename the others on the remote")


def _ensure_meta(svc: Memories, name: str) -> None:
    """This store's marker: the remote's when it has one (so clones agree on one commit
    and no sync pushes it back and forth), else a new one."""
    git = svc.git
    theirs = git.ref(tracking_ref(name, META_REF))
    local = git.ref(META_REF)
    if theirs is not None and local is not None and local != theirs and not keyring_sync.remote_is_ours(
            svc, marker.read_meta(svc, tracking_ref(name, META_REF))[1]):
        return  # after `key rotate` here: ours replaces the remote's
    if theirs is not None and local != theirs:
        try:
            git.update_refs([(META_REF, theirs, local)])
            return
        except ConflictError:
            pass

    def build(tip):
        if tip is not None:
            return None
        return ({META_FILE: marker.meta_text(git.encryption())},
                format_message("gitmem store", None, [("Gitmem-Op", "meta")]))
    svc.git.commit_ref(META_REF, build, svc.author(), raw=True)


# ---- the ledger -------------------------------------------------------------------------
def _ledger_union(svc: Memories, name: str) -> dict[str, dict[str, Any]]:
    """record path -> record, of every record, local and fetched."""
    out: dict[str, dict[str, Any]] = {}
    for ref in (ledger.REDACTIONS_REF, tracking_ref(name, ledger.REDACTIONS_REF)):
        for path, rec in ledger.records(svc.git, ref):
            out.setdefault(path, rec)
    return out


def _scan_groups(svc: Memories, recs: dict[str, dict[str, Any]]) -> list[tuple[set[str], set[str], set[str], list[str]]]:
    """(ids, blob ids, commit ids, tips already checked) per group of records that
    share what history is already checked against them (ledger_clean)."""
    out = []
    for paths, hide in ledger_clean.groups(svc.git, svc.home, recs):
        ids: set[str] = set()
        blobs: set[str] = set()
        commits: set[str] = set()
        for p in paths:
            ids.update(recs[p].get("ids", ()))
            blobs.update(recs[p].get("blobs", ()))
            commits.update(recs[p].get("commits", {}))
        out.append((ids, blobs, commits, hide))
    return out


def _merge_ref(svc: Memories, local_ref: str, theirs: str | None, subject: str,
               merge_files: Callable[[Any, Any, Any], dict[str, Any]]) -> str:
    """Fast-forward or union-merge a non-scope ref (ledger, notes): none | fast-forward | merge."""
    git = svc.git
    if theirs is None:
        return "none"
    outcome = {"how": "none"}

    def build(tip):
        if tip is None:
            return None  # created by update_refs below
        if tip.id == theirs or git.is_ancestor(theirs, tip.id):
            return None
        if git.is_ancestor(tip.id, theirs):
            outcome["how"] = "fast-forward"
            return None
        outcome["how"] = "merge"
        base_id = git.merge_base(tip.id, theirs)
        base = git.commit_obj(base_id) if base_id else None
        changes = merge_files(base, tip, git.commit_obj(theirs))
        return Draft(changes, format_message(subject, None, [("Gitmem-Op", "merge")]), extra_parents=(theirs,))

    for _ in range(50):
        outcome["how"] = "none"
        local = git.ref(local_ref)
        if local is None:
            try:
                git.update_refs([(local_ref, theirs, None)])
                return "created"
            except ConflictError:
                continue
        git.commit_ref(local_ref, build, svc.author())
        if outcome["how"] == "fast-forward":
            try:
                git.update_refs([(local_ref, theirs, local)])
            except ConflictError:
                continue
        return outcome["how"]
    raise ConflictError(f"{local_ref} keeps moving", hint="retry the sync")


def _union_files(svc: Memories, notes: bool) -> Callable[[Any, Any, Any], dict[str, Any]]:
    def merge(base, ours, theirs) -> dict[str, Any]:
        git = svc.git
        fb = dict(git.walk_files(base)) if base is not None else {}
        fo, ft = dict(git.walk_files(ours)), dict(git.walk_files(theirs))
        out: dict[str, Any] = {}
        for path in sorted(set(fo) | set(ft)):
            b, o, t = fb.get(path), fo.get(path), ft.get(path)
            if o == t or t is None or t == b:
                continue
            if o is None or o == b:
                out[path] = Keep(t)
            elif notes:
                text = union_notes(git.read_text(base, path) or "" if base else "",
                                   git.read_text(ours, path) or "", git.read_text(theirs, path) or "")
                out[path] = text.encode()
        return out
    return merge


# ---- one scope --------------------------------------------------------------------------
def _sync_scope(svc: Memories, name: str, scope: str, forgotten: set[str], rep: ScopeReport) -> None:
    git = svc.git
    ref = SCOPE_PREFIX + scope
    theirs = git.ref(tracking_prefix(name) + scope)
    for _ in range(50):
        local = git.ref(ref)
        if theirs is None or theirs == local:
            return
        if local is not None and git.is_ancestor(theirs, local):
            return
        rep.fetched = len(list(git.walk([theirs], hide=[local] if local else [])))
        # A forgotten id live on the remote side: merge (which drops it), no fast-forward.
        if (local is None or git.is_ancestor(local, theirs)) and not _mentions(svc, theirs, forgotten):
            try:
                git.update_refs([(ref, theirs, local)], message=f"gitmem sync {name}")
                rep.merged = "created" if local is None else "fast-forward"
                return
            except ConflictError:
                continue  # a local write meanwhile: look again
        result: dict[str, Any] = {}

        def build(tip):
            base_id = git.merge_base(tip.id, theirs) if tip is not None else None
            base = git.commit_obj(base_id) if base_id else None
            res = merge_scope(svc, scope, base, tip, git.commit_obj(theirs), forgotten) if tip is not None else None
            result["res"] = res
            changes = res.changes if res else {}
            if tip is None:  # a new scope whose remote side names forgotten ids
                changes = {p: Keep(b) for p, b in git.walk_files(git.commit_obj(theirs))
                           if not any(p.endswith(f"/{i}.md") for i in forgotten)}
            ids = sorted({c["id"] for c in (res.conflicts if res else []) if "id" in c})
            trailers = [("Gitmem-Op", "merge"), ("Gitmem-Scope", scope), ("Gitmem-Remote", name)]
            trailers += [("Gitmem-Id", i) for i in ids]
            n = len(res.conflicts) if res else 0
            subject = f"merge: {scope} from {name}" + (f" ({n} conflict{'s' if n != 1 else ''} kept as copies)" if n else "")
            return Draft(changes, format_message(subject, None, trailers), extra_parents=(theirs,))

        git.commit(scope, build, svc.author())
        rep.merged = "merge"
        if result.get("res") is not None:
            rep.conflicts = result["res"].conflicts
        return
    raise ConflictError(f"{ref} keeps moving during the sync", hint="retry the sync")


def _mentions(svc: Memories, commit: str, ids: set[str]) -> bool:
    """Whether a forgotten id's file is live at `commit` (a fast-forward would revive it)."""
    if not ids:
        return False
    rev = svc.git.commit_obj(commit)
    return any(svc.find_in(rev, i) for i in ids)


# ---- the whole sync ---------------------------------------------------------------------
Progress = Callable[[str], None]


def sync(svc: Memories, name: str | None = None, *, scopes: Iterable[str] | None = None,
         dry_run: bool = False, progress: Progress | None = None) -> dict[str, Any]:
    """Sync with one remote (or every remote); see the module docstring. `progress`
    gets one line per step (the CLI prints them on stderr)."""
    out = {"remotes": []}
    for remote in remote_names(svc, name):
        out["remotes"].append(sync_remote(svc, remote, scopes=scopes, dry_run=dry_run, progress=progress))
    return out


def sync_remote(svc: Memories, name: str, *, scopes: Iterable[str] | None = None,
                dry_run: bool = False, progress: Progress | None = None) -> dict[str, Any]:
    chosen = [model.check_scope(s) for s in scopes] if scopes else None
    lock = sync_lock_path(svc.home)
    try:
        # A second sync waits a little (hooks may overlap), then says so.
        with file_lock(lock, timeout=min(5.0, float(svc.config.get("sync", "timeout")))):
            if dry_run:
                return _dry_run(svc, name, chosen)
            return _sync_locked(svc, name, chosen, progress or (lambda _line: None))
    except ConflictError as e:
        if "timed out waiting for lock" in e.message:
            raise ConflictError("another `gitmem sync` is running on this store",
                                hint="wait for it to finish, then retry") from e
        raise


def _dry_run(svc: Memories, name: str, chosen: list[str] | None) -> dict[str, Any]:
    """What a sync would do, from one `ls-remote` (nothing fetched, nothing moved)."""
    git = svc.git
    tr = transport(svc)
    remote = tr.ls_remote(name)
    state = read_state(svc.home, name).get("remote_tips", {})
    private = private_scopes(svc)
    names = set(git.scopes()) | {r[len("refs/heads/"):] for r in remote if r.startswith("refs/heads/")}
    reports = []
    for s in sorted(names):
        if (chosen and s not in chosen) or s in private:
            continue
        ref = SCOPE_PREFIX + s
        local, rtip = git.ref(ref), remote.get(ref)
        reports.append({"scope": s, "local": local, "remote": rtip,
                        "would_fetch": rtip is not None and rtip != state.get(ref) and rtip != local,
                        "would_push": local is not None and local != rtip})
    return {"remote": name, "url": tr.url(name), "dry_run": True, "scopes": reports,
            "private": sorted(private)}


def _sync_locked(svc: Memories, name: str, chosen: list[str] | None, progress: Progress) -> dict[str, Any]:
    git = svc.git
    tr = transport(svc)
    private = private_scopes(svc)
    retries = int(svc.config.get("sync", "retries"))
    report: dict[str, Any] = {"remote": name, "url": tr.url(name), "rounds": 0}
    for round_ in range(1, retries + 1):
        report["rounds"] = round_
        seen = _unchanged_remote(svc, tr, name) if round_ == 1 else None
        if seen is None:
            progress(f"{name}: fetching")
            tr.fetch(name)
            seen = _tracked(svc, name)
        _check_remote(svc, name, seen)
        # 0. The keyring (encrypted stores): the ledger's epoch, the remote's new keys.
        keyring_how = keyring_sync.sync_keyring(svc, name)
        # A store turning encrypted: its (and the fetched) plain history sealed first; the
        # leases stay the remote's plain tips, so the push replaces them.
        convert.seal_plain(svc, progress)
        # 1. The ledger: every record, local or fetched, applied before anything else.
        progress(f"{name}: applying the redaction ledger")
        recs = _ledger_union(svc, name)
        ids: set[str] = set()
        blobs: set[str] = set()
        commits: dict[str, str] = {}
        blob_map: dict[str, str] = {}
        for rec in recs.values():
            ids.update(rec.get("ids", ()))
            blobs.update(rec.get("blobs", ()))
            commits.update(rec.get("commits", {}))
            blob_map.update(rec.get("blob_map", {}))
        _, shred_keys = shred.shredded(svc, name)
        applied = (forgetting.apply_records(svc, ids, blobs, _scan_groups(svc, recs), commits=commits,
                                            blob_map=blob_map, keys=shred_keys)
                   if (ids or blobs or commits) else None)
        shred.drop_shredded(svc, name)
        ledger_how = _merge_ref(svc, ledger.REDACTIONS_REF, git.ref(tracking_ref(name, ledger.REDACTIONS_REF)),
                                f"merge: redaction ledger from {name}", _union_files(svc, notes=False))
        # 2. Scopes.
        names = set(git.scopes()) | {r[len("refs/heads/"):] for r in seen if r.startswith("refs/heads/")}
        reports: dict[str, ScopeReport] = {}
        for s in sorted(names):
            if (chosen and s not in chosen) or s in private:
                continue
            rep = reports[s] = ScopeReport(s)
            progress(f"{name}: merging {s}")
            _sync_scope(svc, name, s, ids, rep)
        # A forgotten id still live here (a remote that kept it, an old clone): removed.
        if ids:
            for s in git.scopes():
                forgetting.remove_live(svc, s, ids, reason="applied from the redaction ledger")
        # 3. Notes, meta.
        for ref in sorted(r for r in seen if r.startswith(NOTES_PREFIX)):
            _merge_ref(svc, ref, git.ref(tracking_ref(name, ref)), f"merge: notes from {name}",
                       _union_files(svc, notes=True))
        _ensure_meta(svc, name)
        # 4. Push, with what the fetch saw as the lease.
        pushes = []
        for s in reports:
            local = git.ref(SCOPE_PREFIX + s)
            if local and local != seen.get(SCOPE_PREFIX + s):
                pushes.append((local, SCOPE_PREFIX + s, seen.get(SCOPE_PREFIX + s)))
        for ref in [META_REF, ledger.REDACTIONS_REF, KEYRING_REF] + sorted(git.refs(NOTES_PREFIX)):
            local = git.ref(ref)
            if local and local != seen.get(ref):
                pushes.append((local, ref, seen.get(ref)))
        _check_push(svc, name, pushes, seen, blobs, commits)
        if pushes:
            progress(f"{name}: pushing {len(pushes)} ref(s)")
        results = {r.ref: r for r in tr.push(name, pushes)}
        stale = [r for r in results.values() if not r.ok and _retryable(r.reason)]
        if stale and round_ < retries:
            continue
        if results.get(KEYRING_REF) is None or results[KEYRING_REF].ok:
            keyring_sync.after_push(svc, name, pushed=git.ref(KEYRING_REF))
        if all(r.ok for r in results.values()):
            convert.finish_conversion(svc)  # (a push moves the tracking refs too)
        refused, holding = [], []
        for ref, r in results.items():
            scope = ref[len(SCOPE_PREFIX):] if ref.startswith(SCOPE_PREFIX) else None
            if r.ok:
                if scope in reports:
                    reports[scope].pushed = True
                continue
            refused.append({"ref": ref, "reason": r.reason})
            if scope in reports:
                reports[scope].refused = r.reason
            tracked = git.ref(tracking_ref(name, ref))
            if seen.get(ref) and tracked != seen.get(ref):
                holding.append(ref)  # the remote's tip was rewritten here: it still holds purged text
        now = dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")
        tips = dict(seen)
        tips.update({ref: src for src, ref, _ in pushes if results.get(ref) and results[ref].ok})
        # Every tip here was checked against these records: the next sync scans only
        # what arrives after them.
        if recs:
            ledger_clean.checked(svc.home, recs, forgetting.clean_tips(git))
        write_state(svc.home, name, {"remote_tips": tips, "last_sync": now})
        report.update({
            "scopes": [r.to_dict() for r in reports.values()],
            "ledger": {"merged": ledger_how, "applied": bool(applied),
                       "ids": applied["ids"] if applied else [], "records": len(list(ledger.records(git)))},
            "refused": refused, "still_holding_text": holding, "time": now, "keyring": keyring_how,
            "private": sorted(private),
        })
        if holding:
            report["hint"] = ("the remote refused to rewind " + ", ".join(holding) + ": those refs still hold "
                              "forgotten text there; allow a force push (unprotect the branch) and sync again, "
                              "or delete and re-create the branch on the server")
        return report
    raise ConflictError(f"remote {name} kept moving during {retries} sync rounds", hint="retry the sync")


def _synced(ref: str) -> bool:
    return ref.startswith(("refs/heads/", NOTES_PREFIX)) or ref in (ledger.REDACTIONS_REF, META_REF,
                                                                    KEYRING_REF)


def _unchanged_remote(svc: Memories, tr: Transport, name: str) -> dict[str, str] | None:
    """After a local forget, the remote still has the old history, which this clone
    pruned: a fetch would download it again only to purge it again. When the remote is
    exactly as the last sync left it (one `ls-remote`), skip the fetch and push the
    rewritten history with those tips as the leases. None: fetch as usual."""
    git = svc.git
    last = read_state(svc.home, name).get("remote_tips") or {}
    remote_records = {p for p, _ in ledger.records(git, tracking_ref(name, ledger.REDACTIONS_REF))}
    pending = any(p not in remote_records for p, _ in ledger.records(git))
    if not last or not pending:
        return None
    now = {r: t for r, t in tr.ls_remote(name).items() if _synced(r)}
    if now != {r: t for r, t in last.items() if _synced(r)}:
        return None
    return now


def _retryable(reason: str) -> bool:
    low = reason.lower()
    return "stale info" in low or "fetch first" in low


def _check_push(svc: Memories, name: str, pushes: list[tuple[str, str, str | None]], seen: dict[str, str],
                blobs: set[str], commits: dict[str, str]) -> None:
    """Refuse to send an object the redaction ledger names (the last line of defence)."""
    if not pushes or not (blobs or commits):
        return
    sent = svc.git.objects_between([src for src, _, _ in pushes if src], list(seen.values()) +
                                   [svc.git.ref(tracking_ref(name, r)) or "" for r in seen])
    bad = sent & (blobs | set(commits))
    if bad:
        raise RemoteError(f"refusing to push {len(bad)} object(s) the redaction ledger names",
                          hint="nothing was pushed; run `gitmem sync` again (it applies the ledger first)")


