"""What history this clone has already checked against which redaction records, so a
sync scans only the commits that arrived since (issue 21).

A derived file in the state folder, `ledger-clean.json`:

    {"entries": [{"records": [record path, ...], "tips": [commit id, ...]}, ...]}

An entry says: every commit reachable from `tips` holds nothing that any of `records`
names (no live version of a forgotten id's file, no blob or commit a record lists).
Sync writes one entry when it has applied every record to every ref; a forget adds one
for its own record (every ref it left is clean of it) and carries the older entries'
tips over to their rewritten commits. A record's own `refs` (the tips the forget that
wrote it produced, on whichever clone) are clean of that record too.

It is never a source of truth: a commit not reachable from a tip here is scanned in
full, a missing or unreadable file only means the next sync scans everything again,
and tips that are gone (pruned) are ignored. Commit ids name content, so a tip that
comes back by a fetch is the same clean commit.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterable

from gitmem.core import paths
from gitmem.core.fsutil import atomic_write
from gitmem.store import GitStore

MAX_ENTRIES = 8  # older entries are dropped: that only costs a longer scan


def clean_path(home: Path) -> Path:
    return paths.state_file(home, "ledger-clean.json")


def load(home: Path) -> list[dict[str, Any]]:
    """The entries, or [] when the file is missing or not ours."""
    try:
        data = json.loads(clean_path(home).read_text())
        entries = data["entries"]
        return [{"records": [r for r in e["records"] if isinstance(r, str)],
                 "tips": [t for t in e["tips"] if isinstance(t, str)]} for e in entries]
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return []


def save(home: Path, entries: list[dict[str, Any]]) -> None:
    entries = [e for e in entries if e["records"] and e["tips"]][-MAX_ENTRIES:]
    atomic_write(clean_path(home), (json.dumps({"entries": entries}, sort_keys=True) + "\n").encode())


def own_tips(rec: dict[str, Any]) -> set[str]:
    """The tips the forget that wrote `rec` left: clean of it on every clone."""
    out = set()
    for pair in (rec.get("refs") or {}).values():
        if isinstance(pair, list) and len(pair) == 2 and isinstance(pair[1], str) and pair[1]:
            out.add(pair[1])
    return out


def groups(git: GitStore, home: Path, records: dict[str, dict[str, Any]]) -> list[tuple[list[str], list[str]]]:
    """The records split by what history is already checked against them: (record
    paths, tips to hide from the scan) per group. A record in some entry hides those
    entries' tips; a record in none hides only its own tips."""
    entries = load(home)
    by_hide: dict[frozenset[str], list[str]] = {}
    for path, rec in records.items():
        hide: set[str] = set()
        for e in entries:
            if path in e["records"]:
                hide.update(e["tips"])
        if not hide:
            hide = own_tips(rec)
        hide = {t for t in hide if git.has_commit(t)}
        by_hide.setdefault(frozenset(hide), []).append(path)
    return [(sorted(ps), sorted(h)) for h, ps in by_hide.items()]


def checked(home: Path, records: Iterable[str], tips: Iterable[str]) -> None:
    """After a sync applied every one of `records` to every ref: `tips` are clean."""
    save(home, [{"records": sorted(set(records)), "tips": sorted(set(tips))}])


def after_forget(home: Path, record: str, commits: dict[str, str], tips: Iterable[str]) -> None:
    """After a forget wrote `record` and rewrote every ref (old -> new `commits`): every
    tip it left is clean of the record; what was clean of older records before is clean
    after (a purge only removes), at its rewritten id. An older tip the rewrite did not
    change is kept only when it is still a tip (then the rewrite walked it); any other is
    dropped, not vouched for (that only costs a longer scan)."""
    tips = sorted(set(tips))
    now = set(tips)
    entries = []
    for e in load(home):
        kept = {commits[t] for t in e["tips"] if t in commits}
        kept |= {t for t in e["tips"] if t not in commits and t in now}
        entries.append({"records": sorted(set(e["records"]) | {record}), "tips": sorted(kept)})
    entries.append({"records": [record], "tips": tips})
    save(home, entries)
