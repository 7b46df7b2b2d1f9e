"""Between clones: remotes, sync, private scopes, conflicts. Mixed into gitmem.api.Store."""


from __future__ import annotations

from typing import Any, Iterable

from gitmem.core import model


class SharingMixin:
    # ---- sync -----------------------------------------------------------------------
    def remote_add(self, name: str, url: str) -> dict[str, Any]:
        """Add a git remote (any URL git understands) to repo.git/config; a name or URL
        holding a password or token is refused (a credential helper supplies those)."""
        from gitmem.policy import gate

        allow = self.config.get("redact", "allow") or ()
        gate.check_name("remote name", name, allow)
        gate.check_remote_url(url, allow)
        self.git.transport().add(name, url)
        return {"remote": name, "url": url}

    def remote_remove(self, name: str) -> dict[str, Any]:
        self.git.transport().remove(name)
        return {"remote": name, "removed": True}

    def remote_names(self) -> list[str]:
        """The configured remotes' names (no network; no ahead/behind)."""
        return list(self.git.transport().remotes())

    def remotes(self) -> list[dict[str, Any]]:
        """Every remote with its URL, last sync and per-scope ahead/behind."""
        from gitmem.sync.remotes import remote_status

        return remote_status(self.memories)

    def sync(self, remote: str | None = None, *, scopes: Iterable[str] | None = None,
             dry_run: bool = False, progress: Any = None) -> dict[str, Any]:
        """Fetch, apply the redaction ledger, merge every scope, push (see gitmem.sync);
        `progress(line)` is told each step."""
        from gitmem.sync.engine import sync

        out = sync(self.memories, remote, scopes=scopes, dry_run=dry_run, progress=progress)
        self._recall_engine = None  # scopes moved under the index: it catches up on next use
        return out

    def set_private(self, scope: str, private: bool = True) -> dict[str, Any]:
        """A private scope never leaves this machine (not pushed, not merged)."""
        from gitmem.sync.remotes import set_private

        listed = set_private(self.memories, scope, private)
        self._reloaded({})
        return {"scope": scope, "private": private, "private_scopes": listed}

    def conflicts(self, *, scope: str | None = None) -> list[dict[str, Any]]:
        """Conflict copies a sync kept, per memory."""
        from gitmem.sync.conflicts import list_conflicts

        chosen = [model.check_scope(scope)] if scope else list(self.git.scopes())
        return list_conflicts(self.memories, chosen)

    def resolve(self, ref: str, keep: str = "current", *, scope: str | None = None) -> dict[str, Any]:
        """Settle a conflict as one commit: keep "current", "other" (the copy), or TEXT."""
        from gitmem.sync.conflicts import resolve

        return resolve(self.memories, ref, keep, scope=scope)
