"""The keyring across clones: checking a remote's marker and keyring, applying shreds a sync brought, and re-publishing after a push."""

from __future__ import annotations

from gitmem.core.errors import RemoteError
from gitmem.encryption.keys import rewrap
from gitmem.encryption.shred import drop_retiring
from gitmem.memories.service import Memories
from gitmem.store import crypto, masterkey
from gitmem.store.crypto import KEYRING_REF
from gitmem.store.masterkey import KeyError_, Master
from gitmem.store.transport import tracking_ref


# ---- sync -------------------------------------------------------------------------------
def check_remote(svc: Memories, name: str, remote_lineage: str | None, remote_has_data: bool) -> None:
    """The remote and this store are both plain, or both sealed with the same lineage
    (or the remote with the one this home's `key rotate` replaced: it pushes the new)."""
    local = svc.git.encryption()
    if local and remote_lineage and remote_lineage != local and replaced(svc, remote_lineage):
        return
    if remote_lineage and not local:
        raise RemoteError(f"remote {name} is an encrypted gitmem store and this one is not",
                          hint="nothing was merged; import its key first: `gitmem key import FILE` "
                               "(from `gitmem key export` on a machine that has it)")
    if local and not remote_lineage and remote_has_data and not svc.git.plain_history():
        raise RemoteError(f"remote {name} holds a plain (unencrypted) gitmem store and this one is encrypted",
                          hint="nothing was pushed; sync with an empty repository, or run "
                               "`gitmem encrypt enable` on the plain store first")
    if local and remote_lineage and remote_lineage != local:
        raise RemoteError(f"remote {name} is encrypted with another key ({masterkey.fingerprint(remote_lineage)}; "
                          f"this store: {masterkey.fingerprint(local)})",
                          hint="nothing was merged; `gitmem key import FILE` with that store's key "
                               "(after a `key rotate` elsewhere, import the new export)")


def replaced(svc: Memories, lineage: str) -> bool:
    try:
        m = masterkey.load_master(svc.home)
    except KeyError_:
        return False
    return m is not None and m.previous is not None and m.previous.lineage == lineage


def remote_is_ours(svc: Memories, lineage: str | None) -> bool:
    """Whether a remote marker names this store's key (a marker to adopt)."""
    return lineage == svc.git.encryption()


def sync_keyring(svc: Memories, name: str) -> str:
    """Catch up with the ledger's epoch and merge the remote's keyring into ours (union
    minus shredded keys). none | adopted | merged."""
    git = svc.git
    if not git.encryption():
        return "none"
    codec = git.codec
    with git.write_lock(timeout=120.0):
        codec.refresh()
        m = codec.master
        # The remote's keyring is at the epoch of every record pushed with it (a forget
        # moves both in one push); the records themselves are sealed, read after this.
        theirs_ref = tracking_ref(name, KEYRING_REF)
        theirs = git.ref_tip(theirs_ref)
        their_meta = crypto.read_ring_meta(git, theirs)
        epoch = m.epoch
        opener = m
        if their_meta is not None:
            if their_meta.get("lineage") != m.lineage:
                if m.previous is None or their_meta.get("lineage") != m.previous.lineage:
                    raise RemoteError(f"remote {name}'s keyring belongs to another key",
                                      hint="`gitmem key import FILE` with that store's key")
                opener = m.previous  # the keyring from before our `key rotate`
            else:
                epoch = max(epoch, int(their_meta["epoch"]))
        new = Master(m.lineage, m.epoch, m.key, dict(m.retiring))
        new.advance(epoch)
        local = git.ref_tip(KEYRING_REF)
        if local is None and theirs is not None and new.epoch == int(their_meta["epoch"]):
            git.update_refs([(KEYRING_REF, theirs.id, None)], message=f"gitmem sync {name}")
            masterkey.save_master(svc.home, new)
            codec.forget_master()
            codec.refresh()
            return "adopted"
        extra = [(theirs, opener)] if theirs is not None else []
        update = rewrap(svc, m, new, drop=set(), extra=extra)
        how = "merged"
        if theirs is not None and git.commit_obj(update[1]).tree_id == theirs.tree_id:
            update = (KEYRING_REF, theirs.id, update[2])  # the same keyring: take theirs
            how = "adopted"
        elif local is not None and git.commit_obj(update[1]).tree_id == local.tree_id:
            return "none"
        masterkey.save_master(svc.home, new)
        git.update_refs([update], message=f"gitmem sync {name}")
        codec.forget_master()
        codec.refresh()
        return how


def after_push(svc: Memories, name: str, pushed: str | None) -> None:
    """The remote's keyring is at our epoch (we just pushed ours, or it was there): the
    retiring keys can go."""
    git = svc.git
    if not git.encryption() or pushed is None:
        return
    meta = crypto.read_ring_meta(git, git.commit_obj(pushed))
    m = masterkey.load_master(svc.home)
    if meta is not None and m is not None and meta.get("lineage") == m.lineage and int(meta["epoch"]) >= m.epoch:
        drop_retiring(svc)
