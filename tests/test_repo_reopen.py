"""A long-lived handle whose pack list went stale (a background repack deleted a small
pack it had indexed) reads through a fresh handle instead of calling the tip missing
(seen once under load in tests/test_load.py: "refs/heads/main points to …, which is
missing")."""

from __future__ import annotations

import pygit2
import pytest

from gitmem.core.errors import CorruptObject


class StaleHandle:
    """A pygit2.Repository whose object reads fail the way a deleted pack's do."""

    def __init__(self, real):
        self.real = real

    def __getattr__(self, name):
        return getattr(self.real, name)

    def __getitem__(self, oid):
        raise pygit2.GitError("failed to open packfile: No such file or directory")


def test_a_stale_handle_reads_the_tip_and_blobs_through_a_fresh_one(store):
    m = store.remember("The release train leaves on Thursdays")
    git = store.git
    git._repo = StaleHandle(git._repo)
    tip = git.tip("main")
    assert tip is not None and str(tip.commit.id) == git.scopes()["main"]
    assert not isinstance(git._repo, StaleHandle)  # reopened
    git._repo = StaleHandle(git._repo)
    assert store.get(m.id).text == "The release train leaves on Thursdays"


def test_a_tip_that_is_really_missing_is_still_a_clean_error(store, monkeypatch):
    store.remember("x")
    git = store.git
    monkeypatch.setattr(git, "reopen", lambda: setattr(git, "_repo", StaleHandle(git._repo)))
    git._repo = StaleHandle(git._repo)
    with pytest.raises(CorruptObject, match="which is missing"):
        git.tip("main")
