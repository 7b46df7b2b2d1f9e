"""conflicts.py: conflict copies a sync merge kept, and settling them."""

from __future__ import annotations

import pytest

import gitmem
from gitmem.core.errors import NotFound

from conftest import git


@pytest.fixture
def conflicted(tmp_path):
    url = tmp_path / "remote.git"
    git("init", "-q", "--bare", "-b", "main", str(url))
    a, b = gitmem.init(tmp_path / "a"), gitmem.init(tmp_path / "b")
    for s in (a, b):
        s.remote_add("origin", str(url))
    m = a.remember("standup at 9:00", key="standup")
    a.sync(), b.sync()
    b.update(m.id, "standup at 9:30")
    a.update(m.id, "standup at 10:00")
    b.sync(), a.sync()
    return a, m


def test_keep_current_drops_the_copies_in_one_commit(conflicted):
    a, m = conflicted
    before = a.get(m.id).text
    out = a.resolve(m.id, "current")
    assert out["kept"] == "current" and a.conflicts() == [] and a.get(m.id).text == before
    assert a.log(m.id)[0].op == "resolve" and a.log(m.id)[0].commit == out["commit"]


def test_keep_text_by_key_sets_the_memory_and_redacts_it(conflicted):
    a, m = conflicted
    a.resolve("standup", "standup at 9:45, token ghp_" + "A1b2" * 9)
    got = a.get(m.id)
    assert got.text.startswith("standup at 9:45") and "ghp_A1b2" not in got.text
    assert "[REDACTED:" in got.text
    assert a.conflicts() == []


def test_resolving_what_is_not_in_conflict_is_not_found(conflicted):
    a, m = conflicted
    a.resolve(m.id, "other")
    with pytest.raises(NotFound):
        a.resolve(m.id, "other")
    with pytest.raises(NotFound):
        a.resolve("no-such-key", "current")
