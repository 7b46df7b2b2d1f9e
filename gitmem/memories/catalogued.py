"""Reads through the catalog (gitmem.index.catalog), mixed into the Memories service:
the fields of every memory from one short query, the bodies only of those shown.

`[index] catalog = false` (or GITMEM_CATALOG=0) turns it off: then `catalog` is None
and the callers walk the trees as before. Either way the answers are the same; the
catalog is derived from git and rebuilt from it whenever it is missing or unreadable."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any, Iterable, Sequence

from gitmem.core import model
from gitmem.core.errors import GitmemError
from gitmem.core.model import Memory
from gitmem.core.tokens import CJK_CHAR
from gitmem.policy import injection
from gitmem.policy import redact as redact_mod
from gitmem.policy import rules
from gitmem.policy import weight as weight_mod
from gitmem.policy.redact import redact
from gitmem.policy.weight import timestamp


QUOTE_LIMIT = 300  # recall.render.quote's default: the line `context` shows


def quoted_measure(text: str) -> tuple[int, int]:
    """(characters, CJK characters) of the line recall.render.quote makes of `text`:
    redacted, whitespace collapsed, cut at QUOTE_LIMIT (defang keeps the length). Lets
    `context` cost a memory without reading its body; tests/test_catalog.py holds the
    two together."""
    t = " ".join(redact(text or "")[0].split())
    if len(t) > QUOTE_LIMIT:
        t = t[: QUOTE_LIMIT - 1] + "…"
    return len(t), len(CJK_CHAR.findall(t))


def _classify(m: Memory) -> dict[str, Any]:
    """What the catalog keeps per memory beside its front matter."""
    qlen, qcjk = quoted_measure(m.text)
    return {"flag": injection.injectable(m.type, m.text, m.metadata), "qlen": qlen, "qcjk": qcjk,
            "updated_ts": timestamp(m.updated), "when_ts": timestamp(m.updated or m.created),
            "entered_ts": model.id_time(m.id).timestamp() if model.is_id(m.id) else 0.0}


def _classifier_version() -> str:
    # The rules live in these files: any edit to them rebuilds the catalog's values.
    h = hashlib.sha1()
    for f in (injection.__file__, redact_mod.__file__, weight_mod.__file__, rules.__file__, rules.EXTRA_RULES):
        h.update(Path(f).read_bytes())
    return h.hexdigest()[:12]


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
                limit: int | None = None) -> list[Any] | None:
        """Catalog entries (gitmem.index.catalog.Entry) of the scopes' memory files that
        parse, newest id first; files that do not parse are noted in `skipped`. For
        callers that need the fields of many memories and the bodies of a few
        (dream's candidate search, MEMORY.md): `body(entry)` loads one. None when the
        catalog is off or the index file is busy: then walk the trees."""
        cat = self.catalog
        if cat is None:
            return None
        try:
            good, bad = cat.listing(list(scopes), archived=archived, type=type, limit=limit)
        except GitmemError:  # busy (CatalogUnavailable), a missing key...: the trees answer, or say why
            return None
        finally:
            self._catalog_warnings()
        for e in bad:
            entry = {"scope": e.scope, "path": e.path, "error": e.error}
            if entry not in self.skipped:  # type: ignore[attr-defined]
                self.skipped.append(entry)  # type: ignore[attr-defined]
        return good

    def supersessions(self, scope: str) -> list[tuple[str, list[str]]] | None:
        """(path, ids it supersedes) of the scope's live memory files that name any, by
        the catalog at the scope's tip; None when the catalog is off, busy or was never
        built (building it, a parse of every memory, is not this caller's to pay)."""
        cat = self.catalog
        if cat is None or not cat.built:
            return None
        try:
            return cat.supersessions(scope)
        except GitmemError:
            return None
        finally:
            self._catalog_warnings()

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
        try:
            return cat.counts(list(scopes))
        except GitmemError:  # busy (CatalogUnavailable), a missing key...: the trees answer, or say why
            return None
        finally:
            self._catalog_warnings()

    def context_picks(self, scopes: Sequence[str], *, now: float, counts: dict[str, tuple[int, int]],
                      since: float, n_prefs: int, n_top: int,
                      recent_limit: int | None = None, exclude: Sequence[str] = ()) -> dict[str, Any] | None:
        """What `context` chooses from, by the catalog (see Catalog.picks), weighed by
        policy.weight's formula, leaving out the ids in `exclude`; None when the catalog
        is off or busy (read the trees)."""
        cat = self.catalog
        if cat is None:
            return None
        try:
            return cat.picks(scopes, weight=weight_mod.weight_sql(self.config, now), counts=counts, since=since,
                             n_prefs=n_prefs, n_top=n_top, recent_limit=recent_limit, exclude=exclude)
        except GitmemError:  # busy (CatalogUnavailable), a missing key...: the trees answer, or say why
            return None
        finally:
            self._catalog_warnings()

    def share_caches(self, other: "CatalogReads") -> None:
        """Use another service's parsed files and catalog handle (a daemon hands each
        command a Store of its own on the same repository: they share what is parsed)."""
        self._parsed = other._parsed  # type: ignore[attr-defined]
        self._catalog = other.catalog  # (made now if need be, so every command shares one)
