"""Keeping the store: doctor, encryption and keys, forget and redact, dream. Mixed into gitmem.api.Store."""


from __future__ import annotations

from typing import Any, Callable, Iterable

from gitmem.core.model import Memory


class KeepingMixin:
    def doctor(self, fix: bool = False) -> list[dict[str, Any]]:
        """Health checks (repository, malformed memories, index, locks, keys, remotes);
        `fix` repairs what is safe (index rebuild, stale git locks, permissions)."""
        from gitmem import doctor

        return doctor.run(self.memories, fix=fix)

    # ---- encryption -----------------------------------------------------------------
    def encryption(self) -> dict[str, Any]:
        """Whether the store is encrypted, its key's fingerprint and state."""
        from gitmem.encryption import marker

        return marker.status(self.memories)

    def encrypt_enable(self, progress: Callable[[str], None] | None = None) -> dict[str, Any]:
        """Encrypt this store: a new master key, its whole history rewritten sealed."""
        from gitmem.encryption import convert

        return convert.enable(self.memories, progress)

    def key_export(self) -> str:
        """The master key as a key file's text (keep it secret)."""
        from gitmem.encryption import keys

        return keys.export_key(self.memories)

    def key_import(self, text: str, source: str = "key file") -> dict[str, Any]:
        """Install a key made by `key_export` (refused when the store has another one)."""
        from gitmem.encryption import keys

        return keys.import_key(self.memories, text, source)

    def key_rotate(self) -> dict[str, Any]:
        """A new master key; the keyring re-wrapped; the old key opens nothing here."""
        from gitmem.encryption import keys

        return keys.rotate(self.memories)

    # ---- lifecycle ------------------------------------------------------------------
    def forget(self, ids: Iterable[str], reason: str | None = None, keep_history: bool = False) -> dict[str, Any]:
        """Remove memories (ids or keys); unless keep_history, purge their text from history."""
        from gitmem.lifecycle.forget import forget

        return forget(self.memories, list(ids), reason=reason, keep_history=keep_history)

    def find(self, query: str, *, archived: bool = True) -> list[Memory]:
        """Live memories whose text, summary, key or tags contain every word of `query`
        (what `forget --query` acts on)."""
        from gitmem.lifecycle.forget import find

        return find(self.memories, query, archived=archived)

    def redact_text(self, text: str, reason: str | None = None) -> dict[str, Any]:
        """Purge a leaked string from every scope, its history and the index."""
        from gitmem.lifecycle.forget import redact_text

        return redact_text(self.memories, text, reason=reason)

    def dream(self, scope: str | None = None, dry_run: bool = False, force: bool = False,
              now: float | None = None) -> dict[str, Any]:
        """Consolidate a scope (default: every scope) as one commit each; see gitmem.lifecycle.dream."""
        from gitmem.lifecycle.dream import dream

        return dream(self.memories, scope=scope, dry_run=dry_run, force=force, now=now)

    def dream_plan(self, scope: str | None = None, now: float | None = None) -> dict[str, Any]:
        """The candidate groups (duplicates, possible updates, held apart, faded) and the
        instructions an agent needs to decide a dream; writes nothing."""
        from gitmem.lifecycle.dream import dream_plan

        return dream_plan(self.memories, scope=scope, now=now)

    def dream_apply(self, decisions: Any, scope: str | None = None, now: float | None = None) -> dict[str, Any]:
        """Apply an agent's decisions (JSON text, or the parsed list/dict) as ONE dream
        commit, or refuse them whole; see gitmem.lifecycle.decisions."""
        from gitmem.lifecycle.dream import dream_apply

        return dream_apply(self.memories, decisions, scope=scope, now=now)

    def undream(self, scope: str | None = None) -> dict[str, Any]:
        """Revert the last dream commit of a scope with a new commit."""
        from gitmem.lifecycle.dream import undream

        return undream(self.memories, scope=scope)
