"""Reads through the catalog (gitmem.index.catalog), mixed into the Memories service:
the fields of every memory from one short query, the bodies only of those shown.

`[index] catalog = false` (or GITMEM_CATALOG=0) turns it off: then `catalog` is None
and the callers walk the trees as before. Either way the answers are the same; the
catalog is derived from git and rebuilt from it whenever it is missing or unreadable."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any, Iterable, Sequence

from gitmem.core.model import Memory
from gitmem.policy import injection


def _classify(m: Memory) -> bool:
    """The flag the catalog keeps per memory: may it go into an agent's prompt."""
    return injection.injectable(m.type, m.text, m.metadata)


def _classifier_version() -> str:
    # The rules live in injection.py: any edit to them rebuilds the catalog's flags.
    return hashlib.sha1(Path(injection.__file__).read_bytes()).hexdigest()[:12]


class CatalogReads:
    """Memories' reads through the catalog. Needs self.config, self.home, self.git,
    self.load, self.skipped and self.warn of the service."""

    _catalog: Any = None

    @property
    def catalog(self):
        """The catalog (gitmem.index.catalog.Catalog), or None when turned off."""
        if not self.config.get("index", "catalog"):  # type: ignore[attr-defined]
            return None
        if self._catalog is None:
            from gitmem.index.catalog import Catalog

            self._catalog = Catalog(self.home, self.git, self.config,  # type: ignore[attr-defined]
                                    classify=_classify, classifier_version=_classifier_version())
        return self._catalog

    def _catalog_warnings(self) -> None:
        cat = self._catalog
        if cat is not None and cat.warnings:
            for w in cat.warnings:
                self.warn(w)  # type: ignore[attr-defined]
            cat.warnings.clear()

    def entries(self, scopes: Iterable[str], *, archived: bool = False, type: str | None = None,  # noqa: A002
                limit: int | None = None) -> list[Any]:
        """Catalog entries (gitmem.index.catalog.Entry) of the scopes' memory files that
        parse, newest id first; files that do not parse are noted in `skipped`. For
        callers that need the fields of many memories and the bodies of a few
        (dream's candidate search, MEMORY.md): `body(entry)` loads one."""
        cat = self.catalog
        if cat is None:
            raise RuntimeError("the catalog is turned off ([index] catalog)")
        good, bad = cat.listing(list(scopes), archived=archived, type=type, limit=limit)
        self._catalog_warnings()
        for e in bad:
            entry = {"scope": e.scope, "path": e.path, "error": e.error}
            if entry not in self.skipped:  # type: ignore[attr-defined]
                self.skipped.append(entry)  # type: ignore[attr-defined]
        return good

    def body(self, entry: Any, tip: Any = None) -> Memory:
        """The whole memory of a catalog entry, read by its blob id (`tip`: the scope's
        tip Rev, when the caller has it)."""
        rev = tip if tip is not None else self.git.tip(entry.scope)  # type: ignore[attr-defined]
        return self.load(rev, entry.path, entry.scope, entry.blob)  # type: ignore[attr-defined]

    def bodies(self, entries: Sequence[Any]) -> list[Memory]:
        """The whole memories of these entries, in their order."""
        tips: dict[str, Any] = {}
        out = []
        for e in entries:
            if e.scope not in tips:
                tips[e.scope] = self.git.tip(e.scope)  # type: ignore[attr-defined]
            out.append(self.body(e, tips[e.scope]))
        return out

    def memory_counts(self, scopes: Iterable[str]) -> dict[str, int] | None:
        """scope -> memory files under memories/ by the catalog (None when it is off)."""
        cat = self.catalog
        if cat is None:
            return None
        out = cat.counts(list(scopes))
        self._catalog_warnings()
        return out

    def key_entry(self, scopes: Sequence[str], key: str) -> Any | None:
        """The catalog entry of the memory with this key in the first of the scopes
        that has one (live before archived), or None."""
        cat = self.catalog
        if cat is None:
            return None
        rows = cat.by_key(scopes, key)
        self._catalog_warnings()
        return rows[0] if rows else None
