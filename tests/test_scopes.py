"""scopes.py: the one owner of where writes go and what reads look at."""

from __future__ import annotations

import pytest

from gitmem.core.config import Config
from gitmem.core.errors import UsageError
from gitmem.memories.scopes import linked_scope, lookup_order, read_scopes, session_scopes, write_scope


def cfg(tmp_path, links=None, default="main"):
    return Config(tmp_path, data={"links": links or {}, "store": {"default_scope": default}})


def test_writes_go_to_the_given_scope_else_the_linked_project_else_the_default(tmp_path):
    repo = tmp_path / "code"
    (repo / "src").mkdir(parents=True)
    c = cfg(tmp_path, {str(repo): "project/github.com/acme/app"}, default="channel/me")
    assert write_scope(c, "channel/x", cwd=repo) == "channel/x"
    assert write_scope(c, None, cwd=repo / "src") == "project/github.com/acme/app"
    assert write_scope(c, None, cwd=tmp_path) == "channel/me"
    with pytest.raises(UsageError):
        write_scope(c, "not a scope", cwd=tmp_path)


def test_the_deepest_linked_root_wins(tmp_path):
    outer, inner = tmp_path / "mono", tmp_path / "mono" / "svc"
    inner.mkdir(parents=True)
    c = cfg(tmp_path, {str(outer): "project/mono", str(inner): "project/mono-svc"})
    assert linked_scope(c, inner) == "project/mono-svc"
    assert linked_scope(c, outer) == "project/mono"
    assert linked_scope(c, tmp_path) is None


def test_reads_look_at_linked_default_and_main_and_sessions_only_at_existing_ones(tmp_path):
    repo = tmp_path / "code"
    repo.mkdir()
    c = cfg(tmp_path, {str(repo): "project/app"}, default="channel/me")
    existing = ["main", "project/app", "channel/other"]
    assert read_scopes(c, existing, cwd=repo) == ["project/app", "channel/me", "main"]
    assert read_scopes(c, existing, all_scopes=True) == existing
    assert read_scopes(c, existing, scopes=["channel/other"]) == ["channel/other"]
    assert session_scopes(c, existing, repo) == ["project/app", "main"]
    assert lookup_order(c, existing, cwd=tmp_path) == ["channel/me", "main", "project/app", "channel/other"]
