"""How much a memory matters: the one owner of the rules that weigh a memory by its
importance, its use and its age. Two uses, two documented formulas:

- its weight as a memory (DESIGN §3), for `dream` (retire below `dream.archive_below`)
  and `context` (the heaviest first), set under [dream]:

      weight = importance + min(access, access_cap) * access_weight - days_since_access * idle_weight

- its lift as a recall hit, set under [recall] (`recall_factors`): a hit's fused score is
  multiplied by (1 - recency_weight + recency_weight * 0.5 ** (age_days / half_life_days))
  and by 1 + importance_weight * (importance - 5) / 5, so a default-importance hit of any
  age keeps its order among equals and the lift is bounded."""

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


def weight_sql(config, now: float) -> tuple[str, list[float]]:
    """`weight` as a SQL expression and its parameters, for a query over rows with
    importance, updated_ts, entered_ts (unix seconds, 0 when unknown: `timestamp` and
    the id's time) and the access count n and last_access (NULL when never used). The
    same formula in the same order of operations, so the two agree to the last bit."""
    expr = ("(importance + least(coalesce(n, 0), ?::BIGINT) * ?::DOUBLE - greatest(0.0::DOUBLE, "
            "(?::DOUBLE - greatest(coalesce(last_access, 0)::DOUBLE, updated_ts, entered_ts)) / 86400.0) "
            "* ?::DOUBLE)")
    return expr, [int(config.get("dream", "access_cap")), float(config.get("dream", "access_weight")),
                  float(now), float(config.get("dream", "idle_weight"))]


def importance_of(value: object) -> int:
    """A stored importance clamped to 1-10 (missing: model.DEFAULT_IMPORTANCE)."""
    return min(10, max(1, int(value or model.DEFAULT_IMPORTANCE)))


def recall_factors(created: float | None, now: float, half_life_days: float, importance: object,
                   importance_weight: float) -> tuple[float, float]:
    """(recency, importance factor) of a recall hit created at `created` (unix time;
    missing: now): recency halves every `half_life_days` (1.0 when that is 0)."""
    age_days = max(0.0, (now - (created or now)) / 86400.0)
    rec = 0.5 ** (age_days / half_life_days) if half_life_days > 0 else 1.0
    imp = importance_of(importance)
    return rec, 1.0 + importance_weight * (imp - model.DEFAULT_IMPORTANCE) / model.DEFAULT_IMPORTANCE
