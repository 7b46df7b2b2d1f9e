"""The master key's life: export, import (another store's key is refused), rotate, and the keyring re-wrapped under it."""

from __future__ import annotations

import json
import time
from typing import Any, Iterable

from gitmem.core.errors import UsageError
from gitmem.encryption.convert import finish_conversion, seal_plain, secure_home
from gitmem.encryption.marker import META_REF, marker_signature, write_meta
from gitmem.memories.service import Memories
from gitmem.store import crypto, masterkey
from gitmem.store.crypto import KEYRING_REF
from gitmem.store.masterkey import KeyError_, Master


def master_of(svc: Memories) -> Master:
    lineage = svc.git.encryption()
    if not lineage:
        raise UsageError("this store is not encrypted", hint="gitmem encrypt enable")
    codec = svc.git.codec
    codec.forget_master()
    return codec.master


def export_key(svc: Memories) -> str:
    m = master_of(svc)
    data = m.to_json(export=True)
    data["exported"] = int(time.time())
    data["fingerprint"] = m.fingerprint
    return json.dumps(data, indent=1) + "\n"


def import_key(svc: Memories, text: str, source: str = "key file") -> dict[str, Any]:
    """Take a key made by `key export`: into a store with no key yet (a new home that will
    sync with an encrypted remote, or a home whose key file was lost), or the successor
    of this store's key after `key rotate` elsewhere. A different store's key is refused."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise KeyError_(f"{source} is not a gitmem key file (not JSON)",
                        hint="it should come from `gitmem key export`") from e
    new = Master.from_json(data, source)
    git = svc.git
    lineage = git.encryption()
    with git.write_lock():
        try:
            have = masterkey.load_master(svc.home)
        except KeyError_:  # a damaged key file: replaced by the import
            have = None
        if lineage and lineage != new.lineage and not is_successor(data, lineage):
            raise KeyError_(f"this store is encrypted with another key ({masterkey.fingerprint(lineage)}); "
                            f"{source} is {new.fingerprint}",
                            hint="nothing was changed; import the key of this store (see `gitmem status`)")
        plain_data = not lineage and any(git.scopes().values())
        ring = git.ref_tip(KEYRING_REF)
        meta = crypto.read_ring_meta(git, ring)
        if meta is not None and meta.get("lineage") == new.lineage:
            key = new.key_at(int(meta["epoch"]))
            if key is None or masterkey.check_value(key, new.lineage) != meta.get("check"):
                raise KeyError_(f"{source} does not open this store's keyring",
                                hint="nothing was changed; is it the newest export of this store's key?")
        if have is not None and have.lineage == new.lineage and have.epoch > new.epoch:
            new.advance(have.epoch)
            new.retiring.clear()
        new.previous = None
        rotated = lineage and lineage != new.lineage
        if rotated and meta is not None and have is not None and have.lineage == lineage:
            # Our keyring was sealed with the old key: re-wrap it under the new one.
            update = rewrap(svc, have, new, drop=set())
            masterkey.save_master(svc.home, new)
            git.update_refs([update, write_meta(svc, new.lineage)], message="gitmem key import")
        else:
            masterkey.save_master(svc.home, new)
            if rotated:
                git.update_refs([write_meta(svc, new.lineage)], message="gitmem key import")
        if plain_data:
            # A plain clone joining its encrypted store: its history is sealed by the next
            # sync, with the remote's keyring, so shared commits come out identical.
            git.set_plain_history(True)
        git.set_encryption(new.lineage)
        if not lineage and (git.ref(META_REF) is None or plain_data):
            git.update_refs([write_meta(svc, new.lineage)], message="gitmem key import")
        secure_home(svc.home)
    sealed = None
    if plain_data and not git.transport().remotes():
        sealed = seal_plain(svc)
        finish_conversion(svc)
    return {"imported": True, "fingerprint": new.fingerprint, "epoch": new.epoch,
            "plain_history": git.plain_history(), "sealed": sealed}


def is_successor(data: dict[str, Any], lineage: str) -> bool:
    return lineage in (data.get("rotated_from") or [])


def keyring_entries(svc: Memories, rev) -> tuple[dict[str, bytes], dict[str, bytes]]:
    """(k/ path -> wrapped key, n/ path -> key id bytes) of a keyring commit."""
    git = svc.git
    keys, names = {}, {}
    for path, _ in git.walk_files(rev, "k"):
        keys[path] = git.read_raw(rev, path) or b""
    for path, _ in git.walk_files(rev, "n"):
        names[path] = git.read_raw(rev, path) or b""
    return keys, names


def rewrap(svc: Memories, old: Master, new: Master, drop: set[str],
            extra: Iterable[tuple[Any, Master]] = ()) -> tuple[str, str, str | None]:
    """A new keyring commit: this store's entries (and those of `extra` keyrings, each
    with the master that opens it) minus `drop`, wrapped under `new`'s epoch key.
    Returns the ref update (not applied)."""
    git = svc.git
    out_keys: dict[str, bytes] = {}
    out_names: dict[str, str] = {}
    sources = [(git.ref_tip(KEYRING_REF), old)] + list(extra)
    for rev, master in sources:
        if rev is None:
            continue
        meta = crypto.read_ring_meta(git, rev)
        if meta is None:
            continue
        if meta.get("lineage") != master.lineage:
            raise KeyError_("a keyring of another store", hint="sync only homes of the same store")
        epoch_key = master.key_at(int(meta["epoch"]))
        if epoch_key is None:
            raise KeyError_(f"no key for epoch {meta['epoch']} of the keyring (this home is ahead and "
                            "dropped it)", hint="sync again; if it persists, `gitmem key import` the newest key")
        keys, names = keyring_entries(svc, rev)
        for path, wrapped in keys.items():
            kid = path.rsplit("/", 1)[-1]
            if kid in drop or path in out_keys:
                continue
            try:
                data_key = masterkey.unwrap(epoch_key, kid, wrapped)
            except Exception as e:  # InvalidTag: a damaged entry
                raise KeyError_(f"keyring entry {kid} does not open", hint="the keyring is damaged; sync again") from e
            out_keys[path] = masterkey.wrap(new.key, kid, data_key)
        for path, kid in names.items():
            k = kid.decode().strip()
            if k in drop:
                continue
            cur = out_names.get(path)
            out_names[path] = k if cur is None else min(cur, k)
    changes: dict[str, bytes] = {"keyring.json": crypto.ring_meta(new)}
    changes.update(out_keys)
    changes.update({p: k.encode() for p, k in out_names.items()
                    if masterkey.kid_path(k) in out_keys})
    new_id = git.write_raw_commit(None, changes, "gitmem keyring\n", marker_signature(), [])
    return KEYRING_REF, new_id, git.ref(KEYRING_REF)


def rotate(svc: Memories) -> dict[str, Any]:
    """A new master key and lineage; the keyring re-wrapped under it; the old key file
    replaced (so it opens nothing here any more). Other homes import the new export."""
    git = svc.git
    with git.write_lock(timeout=120.0):
        old = master_of(svc)
        new = Master.new()
        # The successor names its predecessors so other homes can import it over the old
        # one; the old key stays (as "previous") only until a sync has re-wrapped the
        # remote's keyring, which may hold keys other homes added meanwhile.
        new.rotated_from = [old.lineage] + old.rotated_from
        if git.transport().remotes():
            new.previous = Master(old.lineage, old.epoch, old.key, dict(old.retiring))
        update = rewrap(svc, old, new, drop=set())
        masterkey.save_master(svc.home, new)
        try:
            git.update_refs([update, write_meta(svc, new.lineage)], message="gitmem key rotate")
        except BaseException:
            masterkey.save_master(svc.home, old)
            raise
        git.set_encryption(new.lineage)
        git.prune()
    return {"rotated": True, "fingerprint": new.fingerprint, "old_fingerprint": old.fingerprint}
