"""The store marker (refs/gitmem/meta: format version and key lineage), and what
`encrypt status` reports."""

from __future__ import annotations

import time
from typing import Any, Callable

from gitmem.core.errors import GitmemError
from gitmem.memories.service import Memories
from gitmem.store import Signature, crypto, masterkey
from gitmem.store.crypto import KEYRING_REF
from gitmem.store.masterkey import KeyError_

META_REF = "refs/gitmem/meta"
META_FILE = "format"
Progress = Callable[[str], None]


def marker_signature() -> Signature:
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
    out: dict[str, Any] = {"encrypted": True, "fingerprint": masterkey.fingerprint(lineage), "key": "present"}
    try:
        m = masterkey.load_master(svc.home)
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
        if key is not None and masterkey.check_value(key, lineage) != meta.get("check"):
            out["key"] = "wrong"
        out["keys"] = len(list(git.walk_files(ring, "k")))
        if m.retiring:
            out["retiring_epochs"] = sorted(m.retiring)
    return out

