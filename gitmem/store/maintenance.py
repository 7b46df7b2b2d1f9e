"""Keeping the object store compact: every write adds one small pack and readers pay
per pack, so a geometric repack folds them once there are more than MAX_PACKS; `git gc
--auto` now and then handles refs and stray loose objects. Both run detached under
flocks in state/locks, which a history rewrite holds to keep them out while it prunes."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Iterable

from gitmem.core import paths
from gitmem.store import gitcmd

MAX_PACKS = 32


class Maintenance:
    def __init__(self, git_dir: Path, home: Path, gc_every: int):
        self.git_dir = Path(git_dir)
        self.locks = paths.locks(home)
        self.gc_every = gc_every
        self._repack_started = -1e9

    def after_write(self) -> None:
        """Called after every commit: repack when packs pile up, else maybe gc --auto."""
        try:
            packs = sum(1 for e in os.scandir(self.git_dir / "objects" / "pack") if e.name.endswith(".pack"))
        except OSError:
            packs = 0
        if packs > MAX_PACKS:
            now = time.monotonic()
            if now - self._repack_started > 2.0:  # one running repack is enough
                self._repack_started = now
                gitcmd.background(self.git_dir, ["repack", "-d", "-q", "--geometric=2"], self.locks / "repack.lock")
        elif self.gc_every > 0 and int.from_bytes(os.urandom(4), "big") % self.gc_every == 0:
            self.gc_auto()

    def paused(self, timeout: float = 120.0):
        """Wait for a running background repack / gc and keep new ones out meanwhile."""
        return gitcmd.maintenance_paused(self.locks / "repack.lock", self.locks / "gc.lock", timeout)

    def gc_auto(self, wait: bool = False) -> None:
        """`git gc --auto` in the background (no auto-detach: the flock covers it all)."""
        gitcmd.background(self.git_dir, ["-c", "gc.autoDetach=false", "gc", "--auto", "--quiet"],
                          self.locks / "gc.lock", wait=wait)

    def prune(self, gc_wait: float = 120.0, drop: Iterable[str] | None = None) -> None:
        """Expire every reflog and drop every unreachable object, loose or packed.
        With `drop` (the objects a history rewrite replaced): only the packs holding
        one of them are repacked, and what is unreachable in those goes; the other
        packs are kept as they are (repacking them all is the cost of a sync that
        applies a redaction record; what they hold is unreachable only if no rewrite
        replaced it)."""
        packs = self.git_dir / "objects" / "pack"
        with self.paused(timeout=gc_wait):
            gitcmd.wait_for_gc(self.git_dir, gc_wait)
            # Each git process costs tens of ms on a busy machine (a sync after a forget
            # pays this): the steps with nothing to do are left out.
            if _any_file(self.git_dir / "logs"):
                gitcmd.run(self.git_dir, "reflog", "expire", "--expire=now", "--expire-unreachable=now", "--all")
            keep = _packs_without(packs, drop) if drop is not None else []
            if drop is None or not keep:
                gitcmd.run(self.git_dir, "repack", "-a", "-d", "-q")
            elif len(keep) < len(list(packs.glob("pack-*.pack"))):
                gitcmd.run(self.git_dir, "repack", "-a", "-d", "-q", "--no-write-bitmap-index",
                           *(f"--keep-pack={k}" for k in keep))
            # (else no pack holds one of them: they are loose, as a small fetch leaves them)
            if _loose_objects(self.git_dir / "objects"):  # git prune drops the unreachable ones
                gitcmd.run(self.git_dir, "prune", "--expire=now")
            for stale in ("ORIG_HEAD", "FETCH_HEAD"):
                (self.git_dir / stale).unlink(missing_ok=True)


def _any_file(folder: Path) -> bool:
    """Whether `folder` holds a file at any depth (a reflog to expire)."""
    return any(files for _, _, files in os.walk(folder))


def _loose_objects(objects: Path) -> bool:
    """Whether any loose object (or a temporary object or pack file) is left."""
    try:
        top = list(os.scandir(objects))
        packs = list(os.scandir(objects / "pack")) if (objects / "pack").is_dir() else []
        if any(e.name.startswith("tmp_") for e in top + packs):
            return True  # a temporary object or pack file an interrupted write left
        return any(any(True for _ in os.scandir(e.path)) for e in top if len(e.name) == 2 and e.is_dir())
    except OSError:
        return True  # cannot tell: let git prune look


def _pack_ids(idx: Path) -> set[bytes] | None:
    """The object ids (raw) a pack's .idx (version 2) lists; None if it is not one."""
    try:
        data = idx.read_bytes()
    except OSError:
        return None
    if len(data) < 8 + 1024 or data[:8] != b"\xfftOc\x00\x00\x00\x02":
        return None
    n = int.from_bytes(data[8 + 1020:8 + 1024], "big")
    start = 8 + 1024
    names = data[start:start + 20 * n]
    if len(names) != 20 * n:
        return None
    return {names[k:k + 20] for k in range(0, len(names), 20)}


def _packs_without(pack_dir: Path, drop: Iterable[str]) -> list[str]:
    """Names (pack-*.pack) of the packs that hold none of `drop` and have no .keep,
    .promisor or cruft role of their own; any pack that cannot be read is not listed
    (it is repacked)."""
    want = {bytes.fromhex(d) for d in drop if len(d) == 40}
    out = []
    try:
        idxs = sorted(p for p in pack_dir.glob("pack-*.idx"))
    except OSError:
        return []
    for idx in idxs:
        pack = idx.with_suffix(".pack")
        if not pack.exists() or idx.with_suffix(".mtimes").exists():
            continue
        ids = _pack_ids(idx)
        if ids is not None and not (ids & want):
            out.append(pack.name)
    return out
