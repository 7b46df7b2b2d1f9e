"""The git server fixtures (tests/gitservers.py): every transport clones, pushes and
clones again with plain `git`, and the credentials work the way they do for a user."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest


def _git(*args, cwd=None, check=True) -> subprocess.CompletedProcess:
    env = {**os.environ, "GIT_TERMINAL_PROMPT": "0"}
    res = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, env=env, timeout=60)
    if check and res.returncode != 0:
        raise AssertionError(f"git {' '.join(map(str, args))} failed ({res.returncode}): {res.stderr}")
    return res


def _round_trip(url: str, work: Path, content: str = "hello\n") -> None:
    first, second = work / "first", work / "second"
    _git("clone", "-q", url, str(first))  # an empty repository
    (first / "note.md").write_text(content)
    _git("add", "note.md", cwd=first)
    _git("commit", "-q", "-m", "add note", cwd=first)
    _git("push", "-q", "origin", "HEAD:refs/heads/main", cwd=first)
    _git("clone", "-q", "--branch", "main", url, str(second))
    assert (second / "note.md").read_text() == content


@pytest.mark.parametrize("kind", ["path", "file_url", "daemon", "http", "http_auth", "ssh", "scp"])
def test_clone_push_clone(git_remotes, tmp_path, kind):
    if kind == "http_auth":
        git_remotes.store_http_credentials()
        url = git_remotes.http("repo", auth=True)
    else:
        url = getattr(git_remotes, kind)("repo")
    prefix = {"path": "/", "file_url": "file:///", "daemon": "git://127.0.0.1:", "http": "http://127.0.0.1:",
              "http_auth": "http://127.0.0.1:", "ssh": "ssh://gitmem-test-host/", "scp": "gitmem-test-host:/"}
    assert url.startswith(prefix[kind]) and url.endswith("/repo.git")
    _round_trip(url, tmp_path)
    # What was pushed is in the bare repository the fixture made.
    assert _git("--git-dir", git_remotes.path("repo"), "log", "--format=%s", "main").stdout == "add note\n"


def test_one_name_is_one_repository_across_transports(git_remotes, tmp_path):
    _round_trip(git_remotes.scp("shared"), tmp_path / "a")
    out = _git("ls-remote", git_remotes.http("shared"), "refs/heads/main").stdout
    assert out == _git("ls-remote", git_remotes.daemon("shared"), "refs/heads/main").stdout != ""


def test_http_auth_credentials_in_url(git_remotes, tmp_path):
    url = git_remotes.http("inurl", auth=True)
    user, password = git_remotes.http_user, git_remotes.http_password
    _round_trip(url.replace("http://", f"http://{user}:{password}@"), tmp_path)


def test_http_auth_wrong_password_fails(git_remotes, tmp_path):
    url = git_remotes.http("locked", auth=True)
    git_remotes.store_http_credentials(password="wrong")
    res = _git("clone", url, str(tmp_path / "c"), check=False)
    assert res.returncode != 0 and "Authentication failed" in res.stderr
    # And with no credentials at all git does not prompt: it fails.
    (Path(os.environ["HOME"]) / ".git-credentials").write_text("")
    res = _git("ls-remote", url, check=False)
    assert res.returncode != 0


def test_http_without_auth_has_no_prompt(git_remotes):
    assert _git("ls-remote", git_remotes.http("open")).stdout == ""


def test_ssh_uses_the_tests_ssh_config(git_remotes):
    url = git_remotes.ssh("cfg")
    config = Path(os.environ["HOME"]) / ".ssh" / "config"
    assert "Host gitmem-test-host" in config.read_text()
    assert str(config) in _git("config", "--global", "core.sshCommand").stdout
    assert _git("ls-remote", url).returncode == 0
    # Without the entry the alias resolves nowhere: the fixture's config is what made it work.
    _git("config", "--global", "--unset", "core.sshCommand")
    env = {**os.environ, "GIT_SSH_COMMAND": "ssh -F /dev/null -o BatchMode=yes -o ConnectTimeout=5"}
    res = subprocess.run(["git", "ls-remote", url], capture_output=True, text=True, env=env, timeout=60)
    assert res.returncode != 0


def test_deny_rewind(git_remotes, tmp_path):
    url = git_remotes.daemon("guarded", deny_rewind=True)
    bare = git_remotes.path("guarded")
    assert _git("--git-dir", bare, "config", "receive.denyNonFastForwards").stdout.strip() == "true"
    assert _git("--git-dir", bare, "config", "receive.denyDeletes").stdout.strip() == "true"
    _round_trip(url, tmp_path)
    clone = tmp_path / "first"
    _git("commit", "-q", "--amend", "-m", "rewritten", cwd=clone)
    assert _git("push", "-q", "-f", "origin", "HEAD:refs/heads/main", cwd=clone, check=False).returncode != 0
    assert _git("push", "-q", "origin", ":refs/heads/main", cwd=clone, check=False).returncode != 0
    # By default a repository takes forced pushes (see test_default_allows_rewind).
    loose = git_remotes.path("loose")
    assert _git("--git-dir", loose, "config", "receive.denyNonFastForwards").stdout.strip() == "false"
    assert _git("--git-dir", loose, "config", "receive.denyDeletes", check=False).stdout.strip() == ""


def test_default_allows_rewind(git_remotes, tmp_path):
    url = git_remotes.http("loose")
    _round_trip(url, tmp_path)
    clone = tmp_path / "first"
    _git("commit", "-q", "--amend", "-m", "rewritten", cwd=clone)
    _git("push", "-q", "-f", "origin", "HEAD:refs/heads/main", cwd=clone)
    assert _git("--git-dir", git_remotes.path("loose"), "log", "--format=%s", "main").stdout == "rewritten\n"


def test_missing_server_program_fails_under_ci_and_is_skipped_elsewhere(monkeypatch):
    import gitservers

    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="not installed"):
        gitservers._need("gitmem-no-such-server-program", "/usr/sbin")
    monkeypatch.delenv("CI")
    with pytest.raises(pytest.skip.Exception, match="apt-get install"):
        gitservers._need("gitmem-no-such-server-program", "/usr/sbin")
