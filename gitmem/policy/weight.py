"""Memory weight: how much a memory still matters. The one definition (DESIGN §3):

    weight = importance + min(access, access_cap) * access_weight - days_since_access * idle_weight

`dream` moves memories whose weight fell below `dream.archive_below` to `archive/`;
`context` shows the heaviest. The numbers are set under [dream] in config.toml."""

from __future__ import annotations

from typing import Mapping

from gitmem.core import model
from gitmem.core.model import Memory

Counts = Mapping[str, tuple[int, int]]  # id -> (access count, last access unix time)


def timestamp(value: str | None) -> float:
    """A front-matter date as unix time; 0.0 when missing or unreadable."""
    if not value:
        return 0.0
    try:
        return model.parse_when(value).timestamp()
    except Exception:  # a hand-edited date must not stop a dream or a context
        return 0.0


def last_active(mem: Memory, counts: Counts, updated: float | None = None) -> float:
    """When the memory was last used: the latest of its last access, its last update
    (`updated` overrides the front matter's) and its entry into the store, so an old
    memory imported today is not idle on arrival."""
    _, last_access = counts.get(mem.id, (0, 0))
    entered = model.id_time(mem.id).timestamp() if model.is_id(mem.id) else 0.0
    changed = timestamp(mem.updated) if updated is None else updated
    return max(float(last_access), changed, entered)


def weight(config, mem: Memory, counts: Counts, now: float, *, updated: float | None = None) -> float:
    """The memory's weight at unix time `now`; `counts` as from gitmem.access.counts(home).
    `updated`: when the memory last changed, if its front matter does not say (a
    merge in progress)."""
    n, _ = counts.get(mem.id, (0, 0))
    idle_days = max(0.0, (now - last_active(mem, counts, updated)) / 86400.0)
    cap = int(config.get("dream", "access_cap"))
    per_access = float(config.get("dream", "access_weight"))
    per_day = float(config.get("dream", "idle_weight"))
    return mem.importance + min(n, cap) * per_access - idle_days * per_day
