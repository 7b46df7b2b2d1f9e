"""Encrypted stores: turning encryption on, the master key (export, import, rotate),
what a forget shreds, and the keyring's part in a sync.

The cipher, the key names and the keyring's format belong to the object layer
(store/crypto.py); this module decides when keys are made, moved and destroyed:

- `enable` (and `init --encrypt`): a new master key (keys/master.json, 0600), an empty
  keyring, the marker `refs/gitmem/meta` saying "encrypted <lineage>", and one rewrite of
  every ref's history from plain to sealed objects, then a prune, so no plaintext object
  is left in the repository.
- `begin_shred` / `finish_shred` (forget): the forgotten memories' data keys are marked
  so the rewrite re-seals everything that used them under fresh keys; afterwards their
  keyring entries go, the epoch key ratchets forward (crypto.ratchet) and the keyring is
  re-wrapped under it. The record in the ledger carries the new epoch and the shredded
  key ids, so every clone does the same on its next sync.
- `sync_keyring` / `after_push` (sync): the remote's marker must match this store
  (encrypted with the same lineage, or both plain); the keyrings merge as a union minus
  every shredded key, under the highest epoch; the retiring epoch key is deleted once the
  remote's keyring is at this home's epoch.
"""

from __future__ import annotations

import json
import os
import stat
import time
from typing import Any, Callable, Iterable

from gitmem.core import paths
from gitmem.core.errors import GitmemError, RemoteError, UsageError
from gitmem.memories import ledger
from gitmem.memories.service import Memories
from gitmem.store import SCOPE_PREFIX, Signature, crypto
from gitmem.store.crypto import KEYRING_REF, KeyError_, Master
from gitmem.store.rewrite import rewrite, rewrite_roots
from gitmem.store.transport import tracking_ref

META_REF = "refs/gitmem/meta"
META_FILE = "format"
Progress = Callable[[str], None]


def _sig() -> Signature:
    return Signature("gitmem", "gitmem@localhost", int(time.time()))


# ---- the marker -------------------------------------------------------------------------
def meta_text(lineage: str | None) -> bytes:
    from gitmem.core.model import FORMAT_VERSION
    text = f"gitmem format {FORMAT_VERSION}\n"
    if lineage:
        text += f"encrypted {lineage}\n"
    return text.encode()


def parse_meta(text: str) -> tuple[int, str | None]:
    """(format version, lineage or None) of a marker's text; ValueError if unreadable."""
    version, lineage = None, None
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[:2] == ["gitmem", "format"]:
            version = int(parts[2])
        elif len(parts) == 2 and parts[0] == "encrypted":
            lineage = parts[1]
    if version is None:
        raise ValueError("no format line")
    return version, lineage


def read_meta(svc: Memories, ref: str) -> tuple[int, str | None] | None:
    git = svc.git
    tip = git.ref_tip(ref)
    if tip is None:
        return None
    raw = git.read_raw(tip, META_FILE)
    for data in (raw, None):
        try:
            if data is None:
                data = git.read(tip, META_FILE)  # a marker written through a test codec
            return parse_meta((data or b"").decode("utf-8", "replace"))
        except (ValueError, GitmemError):
            continue
    raise ValueError(f"unreadable {ref}")


def write_meta(svc: Memories, lineage: str | None) -> tuple[str, str, str | None]:
    """A new marker commit (parentless: it replaces the old one); returns the ref update."""
    from gitmem.core.trailers import format_message
    git = svc.git
    new = git.write_raw_commit(None, {META_FILE: meta_text(lineage)},
                               format_message("gitmem store", None, [("Gitmem-Op", "meta")]), svc.author(), [])
    return META_REF, new, git.ref(META_REF)


# ---- status and keys --------------------------------------------------------------------
def status(svc: Memories) -> dict[str, Any]:
    git = svc.git
    lineage = git.encryption()
    if not lineage:
        return {"encrypted": False}
    out: dict[str, Any] = {"encrypted": True, "fingerprint": crypto.fingerprint(lineage), "key": "present"}
    try:
        m = crypto.load_master(svc.home)
    except KeyError_:
        out["key"] = "damaged"
        return out
    if m is None:
        out["key"] = "missing"
    elif m.lineage != lineage:
        out["key"] = "wrong"
    else:
        out["epoch"] = m.epoch
        ring = git.ref_tip(KEYRING_REF)
        meta = crypto.read_ring_meta(git, ring)
        key = m.key_at(int(meta["epoch"])) if meta is not None else None
        if key is not None and crypto.check_value(key, lineage) != meta.get("check"):
            out["key"] = "wrong"
        out["keys"] = len(list(git.walk_files(ring, "k")))
        if m.retiring:
            out["retiring_epochs"] = sorted(m.retiring)
    return out


def _master(svc: Memories) -> Master:
    lineage = svc.git.encryption()
    if not lineage:
        raise UsageError("this store is not encrypted", hint="gitmem encrypt enable")
    codec = svc.git.codec
    codec.forget_master()
    return codec.master


def export_key(svc: Memories) -> str:
    m = _master(svc)
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
            have = crypto.load_master(svc.home)
        except KeyError_:  # a damaged key file: replaced by the import
            have = None
        if lineage and lineage != new.lineage and not _is_successor(data, lineage):
            raise KeyError_(f"this store is encrypted with another key ({crypto.fingerprint(lineage)}); "
                            f"{source} is {new.fingerprint}",
                            hint="nothing was changed; import the key of this store (see `gitmem status`)")
        plain_data = not lineage and any(git.scopes().values())
        ring = git.ref_tip(KEYRING_REF)
        meta = crypto.read_ring_meta(git, ring)
        if meta is not None and meta.get("lineage") == new.lineage:
            key = new.key_at(int(meta["epoch"]))
            if key is None or crypto.check_value(key, new.lineage) != meta.get("check"):
                raise KeyError_(f"{source} does not open this store's keyring",
                                hint="nothing was changed; is it the newest export of this store's key?")
        if have is not None and have.lineage == new.lineage and have.epoch > new.epoch:
            new.advance(have.epoch)
            new.retiring.clear()
        new.previous = None
        rotated = lineage and lineage != new.lineage
        if rotated and meta is not None and have is not None and have.lineage == lineage:
            # Our keyring was sealed with the old key: re-wrap it under the new one.
            update = _rewrap(svc, have, new, drop=set())
            crypto.save_master(svc.home, new)
            git.update_refs([update, write_meta(svc, new.lineage)], message="gitmem key import")
        else:
            crypto.save_master(svc.home, new)
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


def _is_successor(data: dict[str, Any], lineage: str) -> bool:
    return lineage in (data.get("rotated_from") or [])


def _entries(svc: Memories, rev) -> tuple[dict[str, bytes], dict[str, bytes]]:
    """(k/ path -> wrapped key, n/ path -> key id bytes) of a keyring commit."""
    git = svc.git
    keys, names = {}, {}
    for path, _ in git.walk_files(rev, "k"):
        keys[path] = git.read_raw(rev, path) or b""
    for path, _ in git.walk_files(rev, "n"):
        names[path] = git.read_raw(rev, path) or b""
    return keys, names


def _rewrap(svc: Memories, old: Master, new: Master, drop: set[str],
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
        keys, names = _entries(svc, rev)
        for path, wrapped in keys.items():
            kid = path.rsplit("/", 1)[-1]
            if kid in drop or path in out_keys:
                continue
            try:
                data_key = crypto.unwrap(epoch_key, kid, wrapped)
            except Exception as e:  # InvalidTag: a damaged entry
                raise KeyError_(f"keyring entry {kid} does not open", hint="the keyring is damaged; sync again") from e
            out_keys[path] = crypto.wrap(new.key, kid, data_key)
        for path, kid in names.items():
            k = kid.decode().strip()
            if k in drop:
                continue
            cur = out_names.get(path)
            out_names[path] = k if cur is None else min(cur, k)
    changes: dict[str, bytes] = {"keyring.json": crypto.ring_meta(new)}
    changes.update(out_keys)
    changes.update({p: k.encode() for p, k in out_names.items()
                    if crypto.kid_path(k) in out_keys})
    new_id = git.write_raw_commit(None, changes, "gitmem keyring\n", _sig(), [])
    return KEYRING_REF, new_id, git.ref(KEYRING_REF)


# ---- turning it on ----------------------------------------------------------------------
def enable(svc: Memories, progress: Progress | None = None) -> dict[str, Any]:
    """Encrypt this store: a new key, and every ref's history rewritten sealed (one
    rewrite, then a prune so no plaintext object stays). Refused when already on."""
    git = svc.git
    progress = progress or (lambda _l: None)
    if git.encryption():
        raise UsageError("this store is already encrypted",
                         hint=f"its key: {crypto.fingerprint(git.encryption())} (`gitmem status`)")
    with git.write_lock(timeout=120.0):
        master = Master.new()
        old_codec = git.codec
        crypto.save_master(svc.home, master)
        git.set_encryption(master.lineage)
        try:
            roots, tags = rewrite_roots(git)
            ring = git.write_raw_commit(None, {"keyring.json": crypto.ring_meta(master)}, "gitmem keyring\n",
                                        _sig(), [])
            git.update_refs([(KEYRING_REF, ring, git.ref(KEYRING_REF))], message="gitmem encrypt")
            progress(f"sealing the history of {len(roots)} ref(s)")
            rw = rewrite(git, roots, _Same(), recode=old_codec)
            updates = [(ref, new, old) for ref, (old, new) in rw.refs.items()]
            for ref, (tag_obj, _peeled) in tags.items():
                updates.append((ref, "", tag_obj))  # an annotated tag would keep plaintext reachable
            updates.append(write_meta(svc, master.lineage))
            git.update_refs(updates, message="gitmem encrypt")
        except BaseException:
            git.set_encryption(None)
            crypto.master_path(svc.home).unlink(missing_ok=True)
            raise
        if git.transport().remotes():
            # Its remotes still hold the plain history: the next sync seals what they
            # have (the same commits come out as here) and replaces it there.
            git.set_plain_history(True)
        progress("dropping the plaintext objects")
        git.prune()
        secure_home(svc.home)
    return {"encrypted": True, "fingerprint": master.fingerprint, "rewritten_commits": len(rw.commits),
            "sealed_blobs": len(rw.blobs), "refs": sorted(r for r, _, _ in updates),
            "dropped_tags": sorted(tags)}


def seal_plain(svc: Memories, progress: Progress | None = None) -> dict[str, Any] | None:
    """While a store converts: every ref's history (tracking refs of remotes too)
    rewritten sealed. Deterministic: what is sealed already keeps its ids, and a plain
    commit sealed here comes out as the same commit another home sealed with the same
    keyring. None when there is nothing to convert."""
    git = svc.git
    if not git.encryption() or not git.plain_history():
        return None
    with git.write_lock(timeout=120.0):
        roots, tags = rewrite_roots(git)
        if progress:
            progress(f"sealing the plain history of {len(roots)} ref(s)")
        rw = rewrite(git, roots, _Same(), recode=git.codec)
        updates = [(ref, new, old) for ref, (old, new) in rw.refs.items()]
        updates += [(ref, "", tag_obj) for ref, (tag_obj, _p) in tags.items()]
        git.update_refs(updates, message="gitmem encrypt")
    return {"rewritten_commits": len(rw.commits), "refs": sorted(r for r, _, _ in updates)}


def finish_conversion(svc: Memories) -> bool:
    """Every remote's marker now says encrypted with our key: the plain history is gone
    from everywhere we sync with; plain objects are pruned here."""
    git = svc.git
    if not git.encryption() or not git.plain_history():
        return False
    for name in git.transport().remotes():
        meta = read_meta(svc, tracking_ref(name, META_REF))
        if meta is None or meta[1] != git.encryption():
            return False
    git.set_plain_history(False)
    git.prune()
    return True


class _Same:
    """The rewrite policy of `encrypt enable`: nothing changes but the codec."""

    blob_ids: set[str] = set()

    def whole(self, path: str) -> bytes | None:
        return None

    def blob(self, path: str, data: bytes) -> bytes | None:
        return data

    def message(self, message: str) -> str:
        return message


def secure_home(home) -> None:
    """An encrypted home keeps its plaintext (index, state) to its owner: 0700 folders,
    0600 files."""
    from pathlib import Path
    home = Path(home)
    try:
        os.chmod(home, 0o700)
    except OSError:
        return
    for p in [paths.state(home), *home.glob("index.duckdb*"), *paths.state(home).rglob("*")]:
        try:
            mode = p.lstat().st_mode
            if stat.S_ISDIR(mode):
                os.chmod(p, 0o700)
            elif stat.S_ISREG(mode):
                os.chmod(p, 0o600)
        except OSError:
            continue


def rotate(svc: Memories) -> dict[str, Any]:
    """A new master key and lineage; the keyring re-wrapped under it; the old key file
    replaced (so it opens nothing here any more). Other homes import the new export."""
    git = svc.git
    with git.write_lock(timeout=120.0):
        old = _master(svc)
        new = Master.new()
        # The successor names its predecessors so other homes can import it over the old
        # one; the old key stays (as "previous") only until a sync has re-wrapped the
        # remote's keyring, which may hold keys other homes added meanwhile.
        new.rotated_from = [old.lineage] + old.rotated_from
        if git.transport().remotes():
            new.previous = Master(old.lineage, old.epoch, old.key, dict(old.retiring))
        update = _rewrap(svc, old, new, drop=set())
        crypto.save_master(svc.home, new)
        try:
            git.update_refs([update, write_meta(svc, new.lineage)], message="gitmem key rotate")
        except BaseException:
            crypto.save_master(svc.home, old)
            raise
        git.set_encryption(new.lineage)
        git.prune()
    return {"rotated": True, "fingerprint": new.fingerprint, "old_fingerprint": old.fingerprint}


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
    update = _rewrap(svc, old, new, drop=shred.kids)
    crypto.save_master(svc.home, new)  # the retiring key still opens the old keyring
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
    return {k for k in kids if git.read_raw(ring, crypto.kid_path(k)) is not None}


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
    rw2 = rewrite(git, now, _Same())
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
        update = _rewrap(svc, m, m, drop=kids)
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
        _drop_retiring(svc)


def _drop_retiring(svc: Memories) -> None:
    m = crypto.load_master(svc.home)
    if m is not None and (m.retiring or m.previous is not None):
        m.retiring.clear()
        m.previous = None
        crypto.save_master(svc.home, m)
        svc.git.codec.forget_master()


# ---- sync -------------------------------------------------------------------------------
def check_remote(svc: Memories, name: str, remote_lineage: str | None, remote_has_data: bool) -> None:
    """The remote and this store are both plain, or both sealed with the same lineage
    (or the remote with the one this home's `key rotate` replaced: it pushes the new)."""
    local = svc.git.encryption()
    if local and remote_lineage and remote_lineage != local and _replaced(svc, remote_lineage):
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
        raise RemoteError(f"remote {name} is encrypted with another key ({crypto.fingerprint(remote_lineage)}; "
                          f"this store: {crypto.fingerprint(local)})",
                          hint="nothing was merged; `gitmem key import FILE` with that store's key "
                               "(after a `key rotate` elsewhere, import the new export)")


def _replaced(svc: Memories, lineage: str) -> bool:
    try:
        m = crypto.load_master(svc.home)
    except KeyError_:
        return False
    return m is not None and m.previous is not None and m.previous.lineage == lineage


def remote_is_ours(svc: Memories, lineage: str | None) -> bool:
    """Whether a remote marker names this store's key (a marker to adopt)."""
    return lineage == svc.git.encryption()


def shredded(svc: Memories, name: str) -> tuple[int, set[str]]:
    """(highest epoch, every shredded key id) named by the ledger records, local and fetched."""
    epoch, kids = 0, set()
    for ref in (ledger.REDACTIONS_REF, tracking_ref(name, ledger.REDACTIONS_REF)):
        for _, rec in ledger.records(svc.git, ref):
            epoch = max(epoch, int(rec.get("epoch") or 0))
            kids.update(rec.get("keys") or ())
    return epoch, kids


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
            crypto.save_master(svc.home, new)
            codec.forget_master()
            codec.refresh()
            return "adopted"
        extra = [(theirs, opener)] if theirs is not None else []
        update = _rewrap(svc, m, new, drop=set(), extra=extra)
        how = "merged"
        if theirs is not None and git.commit_obj(update[1]).tree_id == theirs.tree_id:
            update = (KEYRING_REF, theirs.id, update[2])  # the same keyring: take theirs
            how = "adopted"
        elif local is not None and git.commit_obj(update[1]).tree_id == local.tree_id:
            return "none"
        crypto.save_master(svc.home, new)
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
    m = crypto.load_master(svc.home)
    if meta is not None and m is not None and meta.get("lineage") == m.lineage and int(meta["epoch"]) >= m.epoch:
        _drop_retiring(svc)


__all__ = ["META_REF", "SCOPE_PREFIX", "begin_shred", "check_remote", "enable", "export_key",
           "finish_shred", "import_key", "rotate", "status", "sync_keyring"]
