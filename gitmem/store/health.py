"""GitStore's health checks (mixed into GitStore, for doctor and forget): fsck, stale
git locks, and the background maintenance they must not race."""

from __future__ import annotations

import time
from pathlib import Path

from gitmem.store import gitcmd


class Health:
    # ---- health (doctor) ----------------------------------------------------------
    def fsck(self) -> list[str]:
        """`git fsck --strict` of the repository: the problems it reports ([] if clean)."""
        with self.maintenance_paused():
            code, out = gitcmd.run_status(self.path, "fsck", "--strict", "--no-dangling", "--no-progress")
        lines = [ln for ln in out.splitlines() if ln.strip()]
        return lines or (["git fsck failed"] if code != 0 else [])

    def stale_locks(self, age: float = 60.0) -> list[Path]:
        """git `*.lock` files older than `age` seconds (left by a killed process)."""
        now = time.time()
        out = []
        for p in self.path.rglob("*.lock"):
            try:
                if p.is_file() and now - p.stat().st_mtime > age:
                    out.append(p)
            except OSError:
                continue
        return sorted(out)

    def remove_lock(self, path: Path) -> None:
        """Remove a stale git lock file (under the store's write lock)."""
        with self.write_lock():
            Path(path).unlink(missing_ok=True)

    # ---- maintenance --------------------------------------------------------------
    def maintenance_paused(self, timeout: float = 120.0):
        """Wait for a running background repack / gc and keep new ones out meanwhile."""
        return self.maintenance.paused(timeout)

    def gc_auto(self, wait: bool = False) -> None:
        self.maintenance.gc_auto(wait)

    def prune(self, gc_wait: float = 120.0, drop=None) -> None:
        """Expire every reflog and drop every unreachable object; reopen the packs.
        `drop`: only the packs holding one of these objects are repacked (see
        Maintenance.prune)."""
        self.maintenance.prune(gc_wait, drop=drop)
        self.reopen()
