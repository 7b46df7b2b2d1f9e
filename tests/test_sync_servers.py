"""Sync through real servers started by the tests on 127.0.0.1 (tests/gitservers.py):
git daemon, smart HTTP (nginx + git-http-backend, with and without a password from a
credential helper), and sshd reached through ~/.ssh/config (ssh:// and scp-like)."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

import gitmem
from gitmem.frontends.cli import cli

from conftest import git


def homes(tmp_path, url, n=2):
    out = []
    for i in range(n):
        s = gitmem.init(tmp_path / f"h{i}")
        s.remote_add("origin", url)
        out.append(s)
    return out


def texts(s):
    return {m.text for m in s.list(all_scopes=True)}


@pytest.mark.parametrize("kind", ["daemon", "http", "http-auth", "ssh", "scp"])
def test_two_homes_sync_through_a_real_server(tmp_path, git_remotes, kind):
    if kind == "http-auth":
        url = git_remotes.http("mem", auth=True)
        git_remotes.store_http_credentials()  # a credential helper, as a user would have
    else:
        url = getattr(git_remotes, kind)("mem")
    a, b = homes(tmp_path, url)
    a.remember(f"written on a, over {kind}")
    a.sync()
    b.remember("written on b", scope="channel/ops")
    b.sync()
    a.sync()
    assert texts(a) == texts(b) == {f"written on a, over {kind}", "written on b"}
    git("--git-dir", str(git_remotes.bare("mem")), "fsck", "--strict")


def test_a_forget_rewinds_the_server_over_http(tmp_path, git_remotes):
    url = git_remotes.http("mem")
    a, b = homes(tmp_path, url)
    m = a.remember("the staging db nickname is hunter2hunter2")  # forget removes it, not redaction
    a.sync(), b.sync()
    a.forget([m.id])
    a.sync()
    b.sync()
    assert "the staging db nickname is hunter2hunter2" not in texts(b)
    reachable = git("--git-dir", str(git_remotes.bare("mem")), "log", "--all", "-p")
    assert "hunter2hunter2" not in reachable and "2retnuh2retnuh" not in reachable


def test_wrong_credentials_and_refused_rewinds_over_the_network(tmp_path, git_remotes):
    url = git_remotes.http("mem", auth=True)
    (a,) = homes(tmp_path, url, n=1)
    a.remember("x")
    res = CliRunner().invoke(cli, ["--home", str(a.home), "sync"])
    assert res.exit_code == 8 and "authentication failed" in res.output and "credential helper" in res.output
    url = git_remotes.daemon("locked", deny_rewind=True)
    a.remote_add("locked", url)
    m = a.remember("a secret the host will keep: wolfram-7781")
    assert a.sync("locked")["remotes"][0]["refused"] == []
    a.forget([m.id])
    out = a.sync("locked")["remotes"][0]
    assert out["still_holding_text"] == ["refs/heads/main"]
    assert any(r["ref"] == "refs/heads/main" for r in out["refused"])
