"""Crypto-shredding on forget: drop the forgotten memories' data keys, re-seal what else a dropped key sealed, move the master key on one way."""

from __future__ import annotations

from typing import Any, Iterable

from gitmem.encryption.convert import SameBlobs
from gitmem.encryption.keys import rewrap
from gitmem.memories import ledger
from gitmem.memories.service import Memories
from gitmem.store import masterkey
from gitmem.store.crypto import KEYRING_REF
from gitmem.store.masterkey import Master
from gitmem.store.rewrite import rewrite
from gitmem.store.transport import tracking_ref


# ---- forget -----------------------------------------------------------------------------
class Shred:
    def __init__(self, kids: set[str], names: set[str]):
        self.kids = kids
        self.names = names


def begin_shred(svc: Memories, ids: Iterable[str], kids: Iterable[str] = ()) -> Shred | None:
    """Before a forget's rewrite: mark the memories' data keys (and `kids` from a ledger
    record) so everything sealed with them is re-sealed under fresh keys."""
    git = svc.git
    if not git.encryption():
        return None
    codec = git.codec
    codec.refresh()
    names = {f"m:{i}" for i in ids}
    found = {codec.name_kid(n) for n in names} - {None}
    shred = Shred(set(kids) | found, names)
    codec.shredding |= shred.kids
    codec.renew |= names
    return shred


def shred_record(svc: Memories, shred: Shred | None, advance: bool) -> dict[str, Any]:
    """What the ledger record says about a shred: {"epoch", "keys"} ({} for a plain store)."""
    if shred is None:
        return {}
    epoch = svc.git.codec.master.epoch + (1 if advance else 0)
    return {"epoch": epoch, "keys": sorted(shred.kids)}


def finish_shred(svc: Memories, shred: Shred | None, advance: bool) -> list[tuple[str, str, str | None]]:
    """After the rewrite and the record (the last writes that may add keys): the keyring
    without the shredded keys, under the next epoch key when `advance` (this home's own
    forget). Returns the ref update to apply with the rewritten refs."""
    if shred is None:
        return []
    git = svc.git
    codec = git.codec
    old = codec.master
    new = Master(old.lineage, old.epoch, old.key, dict(old.retiring))
    if advance:
        new.advance(old.epoch + 1)
    update = rewrap(svc, old, new, drop=shred.kids)
    masterkey.save_master(svc.home, new)  # the retiring key still opens the old keyring
    codec.shredding -= shred.kids
    codec.renew -= shred.names
    codec.forget_master()
    return [update]


def held(svc: Memories, kids: Iterable[str]) -> set[str]:
    """Those of `kids` this store's keyring still holds."""
    git = svc.git
    kids = set(kids)
    if not kids or not git.encryption():
        return set()
    ring = git.ref_tip(KEYRING_REF)
    return {k for k in kids if git.read_raw(ring, masterkey.kid_path(k)) is not None}


def reseal(svc: Memories, shred: Shred | None, start: dict[str, str], rw):
    """A forget's rewrite changed blobs sealed with other keys than the memories' own
    (a journal or session that quoted the text): those keys are shredded too, and a
    second pass re-seals what else used them. Returns the combined rewrite."""
    if shred is None:
        return rw
    git = svc.git
    codec = git.codec
    extra = set()
    for b in rw.blobs:
        if rw.blob_map.get(b):  # replaced (a dropped file is gone, not quoted)
            kid = codec.sealed_kid(git.object_bytes(b))
            if kid and kid not in shred.kids:
                extra.add(kid)
    if not extra:
        return rw
    shred.kids |= extra
    codec.shredding |= extra
    now = {ref: rw.refs.get(ref, (tip, tip))[1] for ref, tip in start.items()}
    rw2 = rewrite(git, now, SameBlobs())
    commits = {}
    for old, new in rw.commits.items():
        commits[old] = rw2.commits.get(new, new)
    for old, new in rw2.commits.items():
        commits.setdefault(old, new)
    blob_map = {}
    for old, new in rw.blob_map.items():
        blob_map[old] = rw2.blob_map.get(new, new) if new else ""
    for old, new in rw2.blob_map.items():
        blob_map.setdefault(old, new)
    refs = {}
    for ref, tip in start.items():
        final = now[ref]
        final = rw2.refs.get(ref, (final, final))[1]
        if final != tip:
            refs[ref] = (tip, final)
    rw.commits, rw.blob_map, rw.refs = commits, blob_map, refs
    return rw  # rw.blobs stays what the purge replaced: a clone re-seals the rest itself


def drop_shredded(svc: Memories, name: str) -> bool:
    """After the ledger was applied: keys a record shredded leave this keyring (when a
    sync found nothing here sealed with them, apply_records did not)."""
    git = svc.git
    if not git.encryption():
        return False
    _, kids = shredded(svc, name)
    kids = held(svc, kids)
    if not kids:
        return False
    with git.write_lock(timeout=120.0):
        m = git.codec.master
        update = rewrap(svc, m, m, drop=kids)
        git.update_refs([update], message=f"gitmem sync {name}")
        git.codec.refresh()
    return True


def end_shred(svc: Memories) -> None:
    """After the refs moved: caches dropped; with no remote, the retiring key goes too
    (nothing else can still need it)."""
    git = svc.git
    if not git.encryption():
        return
    git.codec.refresh()
    if not git.transport().remotes():
        drop_retiring(svc)


def drop_retiring(svc: Memories) -> None:
    m = masterkey.load_master(svc.home)
    if m is not None and (m.retiring or m.previous is not None):
        m.retiring.clear()
        m.previous = None
        masterkey.save_master(svc.home, m)
        svc.git.codec.forget_master()


def shredded(svc: Memories, name: str) -> tuple[int, set[str]]:
    """(highest epoch, every shredded key id) named by the ledger records, local and fetched."""
    epoch, kids = 0, set()
    for ref in (ledger.REDACTIONS_REF, tracking_ref(name, ledger.REDACTIONS_REF)):
        for _, rec in ledger.records(svc.git, ref):
            epoch = max(epoch, int(rec.get("epoch") or 0))
            kids.update(rec.get("keys") or ())
    return epoch, kids
