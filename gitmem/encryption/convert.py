"""Turning encryption on for an existing store: the sealed rewrite of its history, and sealing what a plain clone fetched."""

from __future__ import annotations

import os
import stat
from typing import Any

from gitmem.core import paths
from gitmem.core.errors import UsageError
from gitmem.encryption.marker import META_REF, Progress, marker_signature, read_meta, write_meta
from gitmem.memories.service import Memories
from gitmem.store import crypto, masterkey
from gitmem.store.crypto import KEYRING_REF
from gitmem.store.masterkey import Master
from gitmem.store.rewrite import rewrite, rewrite_roots
from gitmem.store.transport import tracking_ref


# ---- turning it on ----------------------------------------------------------------------
def enable(svc: Memories, progress: Progress | None = None) -> dict[str, Any]:
    """Encrypt this store: a new key, and every ref's history rewritten sealed (one
    rewrite, then a prune so no plaintext object stays). Refused when already on."""
    git = svc.git
    progress = progress or (lambda _l: None)
    if git.encryption():
        raise UsageError("this store is already encrypted",
                         hint=f"its key: {masterkey.fingerprint(git.encryption())} (`gitmem status`)")
    with git.write_lock(timeout=120.0):
        master = Master.new()
        old_codec = git.codec
        masterkey.save_master(svc.home, master)
        git.set_encryption(master.lineage)
        try:
            roots, tags = rewrite_roots(git)
            ring = git.write_raw_commit(None, {"keyring.json": crypto.ring_meta(master)}, "gitmem keyring\n",
                                        marker_signature(), [])
            git.update_refs([(KEYRING_REF, ring, git.ref(KEYRING_REF))], message="gitmem encrypt")
            progress(f"sealing the history of {len(roots)} ref(s)")
            rw = rewrite(git, roots, SameBlobs(), recode=old_codec)
            updates = [(ref, new, old) for ref, (old, new) in rw.refs.items()]
            for ref, (tag_obj, _peeled) in tags.items():
                updates.append((ref, "", tag_obj))  # an annotated tag would keep plaintext reachable
            updates.append(write_meta(svc, master.lineage))
            git.update_refs(updates, message="gitmem encrypt")
        except BaseException:
            git.set_encryption(None)
            masterkey.master_path(svc.home).unlink(missing_ok=True)
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
        rw = rewrite(git, roots, SameBlobs(), recode=git.codec)
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


class SameBlobs:
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
