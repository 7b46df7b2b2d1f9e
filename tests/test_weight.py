"""weight: the one formula (DESIGN §3), its numbers from [dream], idle time from the
latest of last access, last update and entry into the store."""

from __future__ import annotations

import time

import pytest

from gitmem.core import model
from gitmem.core.config import Config
from gitmem.core.model import Memory
from gitmem.core.schema import DEFAULTS
from gitmem.policy.weight import last_active, weight

DAY = 86400.0


def mem(importance: int = 5, updated: str = "", mem_id: str | None = None) -> Memory:
    """A memory that entered the store a year ago unless `mem_id` says otherwise."""
    mem_id = mem_id or model.new_id(int((time.time() - 365 * DAY) * 1000))
    return Memory(id=mem_id, text="x", importance=importance, updated=updated)


def test_formula_with_the_documented_defaults(tmp_path):
    cfg = Config(tmp_path)
    now = time.time()
    m = mem(importance=6)
    counts = {m.id: (14, int(now - 4 * DAY))}  # 14 recalls, capped at 10; idle 4 days
    assert weight(cfg, m, counts, now) == pytest.approx(6 + 10 * 0.5 - 4 * 0.3, abs=1e-3)
    assert {k: DEFAULTS["dream"][k] for k in ("access_cap", "access_weight", "idle_weight")} == \
        {"access_cap": 10, "access_weight": 0.5, "idle_weight": 0.3}


def test_numbers_come_from_config(tmp_path):
    cfg = Config(tmp_path, data={"dream": {"access_cap": 2, "access_weight": 1.0, "idle_weight": 1.0}})
    now = time.time()
    m = mem(importance=3)
    counts = {m.id: (5, int(now - 2 * DAY))}
    assert weight(cfg, m, counts, now) == pytest.approx(3 + 2 * 1.0 - 2 * 1.0, abs=1e-3)


def test_idle_counts_from_the_latest_use(tmp_path):
    cfg = Config(tmp_path)
    now = time.time()
    # Entered the store just now with an old update date: not idle on arrival.
    fresh = mem(importance=4, updated="2019-01-01", mem_id=model.new_id())
    assert weight(cfg, fresh, {}, now) == pytest.approx(4, abs=1e-2)
    # Entered 100 days ago, updated 10 days ago (as a merge passes it), recalled 2 days ago.
    entered = now - 100 * DAY
    m = mem(importance=4, mem_id=model.new_id(int(entered * 1000)))
    assert last_active(m, {}) == pytest.approx(entered, abs=1)
    assert last_active(m, {}, updated=now - 10 * DAY) == now - 10 * DAY
    counts = {m.id: (1, int(now - 2 * DAY))}
    assert weight(cfg, m, counts, now, updated=now - 10 * DAY) == pytest.approx(4 + 0.5 - 2 * 0.3, abs=1e-3)
    # No bonus for a clock behind the memory.
    assert weight(cfg, m, {}, entered - DAY) == 4
