"""link / unlink / remember --link / why on a real code repository with real commits."""

from __future__ import annotations

import json
from pathlib import Path

from gitmem.store.coderepo import CodeRepo
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import git, invoke_cli
from gitmem.core.model import check_scope
from gitmem.agents.links import normalise_url, parse_spec, project_key, public_url


@pytest.fixture
def code_repo(tmp_path) -> Path:
    root = tmp_path / "code" / "app"
    root.mkdir(parents=True)
    git("init", "-q", "-b", "main", cwd=root)
    git("remote", "add", "origin", "https://bot:s3cretTokenValue@github.com/Acme/App.git", cwd=root)
    (root / "src").mkdir()
    (root / "src" / "cache.py").write_text("import sqlite3\n\nTTL = 60\n")
    git("add", ".", cwd=root)
    git("commit", "-q", "-m", "cache: first version", cwd=root)
    (root / "src" / "cache.py").write_text("import sqlite3\n\nTTL = 300  # see memory\nSIZE = 10\n")
    git("commit", "-q", "-am", "cache: longer TTL", cwd=root)
    return root


@pytest.mark.parametrize("url,key", [
    ("https://github.com/owner/repo.git", "github.com/owner/repo"),
    ("git@github.com:owner/repo.git", "github.com/owner/repo"),
    ("ssh://git@gitlab.example.com:2222/group/sub/proj", "gitlab.example.com/group/sub/proj"),
    ("https://user:pw@GitHub.com/o/r", "github.com/o/r"),
    ("/srv/git/repo.git", None),
    ("file:///srv/git/repo.git", None),
])
def test_normalise_url(url, key):
    assert normalise_url(url) == key


@given(st.text(max_size=80))
@settings(max_examples=300, deadline=None)
def test_any_origin_url_gives_a_valid_scope_or_none(url):
    key = normalise_url(url)
    if key is not None:
        assert check_scope(f"project/{key}") == f"project/{key}"


@given(st.sampled_from(["https://", "git@", "ssh://git@"]),
       st.text(alphabet=st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=30),
       st.lists(st.text(min_size=1, max_size=20), min_size=1, max_size=4))
@settings(max_examples=300, deadline=None)
def test_url_like_origins_give_valid_scopes(prefix, host, parts):
    sep = ":" if prefix == "git@" else "/"
    key = normalise_url(prefix + host + sep + "/".join(parts))
    if key is not None:
        check_scope(f"project/{key}")


def test_public_url_drops_credentials():
    assert public_url("https://bot:tok@github.com/a/b.git") == "https://github.com/a/b.git"
    assert public_url("git@github.com:a/b.git") == "git@github.com:a/b.git"


@given(st.text(max_size=30), st.text(max_size=30))
@settings(max_examples=200, deadline=None)
def test_public_url_never_keeps_a_password(host, path):
    url = f"https://user:hunter2secret@{host}/{path}"
    assert "hunter2secret" not in public_url(url)


def test_key_without_origin_is_folder_plus_hash(tmp_path):
    a, b = tmp_path / "x" / "app", tmp_path / "y" / "app"
    for d in (a, b):
        d.mkdir(parents=True)
        git("init", "-q", cwd=d)
    ka = project_key(CodeRepo.discover(a))
    kb = project_key(CodeRepo.discover(b))
    assert ka.startswith("app-") and kb.startswith("app-") and ka != kb


def test_parse_spec():
    assert parse_spec("a.py") == ("a.py", None, None)
    assert parse_spec("a.py:3") == ("a.py", 3, 3)
    assert parse_spec("a.py:3-9") == ("a.py", 3, 9)


@pytest.mark.slow
def test_link_routes_writes_and_reads(store, code_repo, gm_home):
    out = invoke_cli("link", "--json", cwd=code_repo / "src")
    assert out.returncode == 0, out.stderr
    info = json.loads(out.stdout)
    assert info["scope"] == "project/github.com/Acme/App"
    assert info["root"] == str(code_repo.resolve())
    assert "s3cret" not in out.stdout and "s3cret" not in (gm_home / "config.toml").read_text()
    w = json.loads(invoke_cli("remember", "Cache TTL is 300s", "--json", cwd=code_repo).stdout)
    assert w["scope"] == "project/github.com/Acme/App"
    store.remember("global preference", scope="main")
    store.remember("other channel", scope="channel/x")
    listed = json.loads(invoke_cli("list", "--json", cwd=code_repo / "src").stdout)
    assert {m["scope"] for m in listed} == {"project/github.com/Acme/App", "main"}
    outside = json.loads(invoke_cli("remember", "elsewhere", "--json", cwd=code_repo.parent).stdout)
    assert outside["scope"] == "main"
    un = invoke_cli("unlink", cwd=code_repo)
    assert un.returncode == 0
    assert json.loads(invoke_cli("remember", "after unlink", "--json", cwd=code_repo).stdout)["scope"] == "main"
    again = invoke_cli("unlink", cwd=code_repo)
    assert again.returncode == 4 and "not linked" in again.stderr


def test_remember_link_writes_note_without_text(store, code_repo):
    assert invoke_cli("link", cwd=code_repo).returncode == 0
    text = "TTL raised to 300 because the upstream API rate-limits us"
    r = invoke_cli("remember", "--link", "HEAD:src/cache.py", "--type", "decision", text, "--json",
                   cwd=code_repo)
    assert r.returncode == 0, r.stderr
    mem = json.loads(r.stdout)
    head = git("rev-parse", "HEAD", cwd=code_repo).strip()
    notes = git("log", "--notes=gitmem", "--format=%H%n%N", cwd=code_repo)
    assert f"gitmem: {mem['id']} scope=project/github.com/Acme/App" in notes
    assert "rate-limits" not in notes, "the note carries the id, never the text"
    # A second memory on the same commit is appended to the note, not overwriting it.
    r2 = json.loads(invoke_cli("remember", "--link", "HEAD", "second", "--json", cwd=code_repo).stdout)
    note = git("notes", "--ref=gitmem", "show", head, cwd=code_repo)
    assert mem["id"] in note and r2["id"] in note
    got = json.loads(invoke_cli("get", mem["id"], "--json", cwd=code_repo).stdout)
    assert got["text"] == text
    assert got["links"] == [{"repo": "https://github.com/Acme/App.git", "commit": head,
                             "project": "github.com/Acme/App", "path": "src/cache.py"}]
    bad = invoke_cli("remember", "--link", "HEAD:no/such.py", "x", cwd=code_repo)
    assert bad.returncode == 4 and "not in commit" in bad.stderr


@pytest.mark.slow
def test_why_on_real_blame(store, code_repo):
    assert invoke_cli("link", cwd=code_repo).returncode == 0
    first = git("rev-parse", "HEAD~1", cwd=code_repo).strip()
    second = git("rev-parse", "HEAD", cwd=code_repo).strip()
    m_old = json.loads(invoke_cli("remember", "--link", "HEAD~1", "sqlite chosen: one file, no daemon",
                                  "--json", cwd=code_repo).stdout)
    m_new = json.loads(invoke_cli("remember", "--link", "HEAD:src/cache.py",
                                  "TTL 300: upstream rate limits", "--json", cwd=code_repo).stdout)
    # A third commit with no memory, touching line 4 only.
    p = code_repo / "src" / "cache.py"
    p.write_text(p.read_text().replace("SIZE = 10", "SIZE = 20"))
    git("commit", "-q", "-am", "bump size", cwd=code_repo)

    out = invoke_cli("why", "src/cache.py:3", "--json", cwd=code_repo)
    assert out.returncode == 0, out.stderr
    entries = json.loads(out.stdout)
    assert [e["commit"] for e in entries] == [second]
    assert entries[0]["lines"] == [[3, 3]]
    assert [m["id"] for m in entries[0]["memories"]] == [m_new["id"]]
    assert entries[0]["memories"][0]["summary"] == "TTL 300: upstream rate limits"

    whole = json.loads(invoke_cli("why", "cache.py", "--json", cwd=code_repo / "src").stdout)
    by = {e["commit"]: e for e in whole}
    assert by[first]["lines"] == [[1, 2]] and by[first]["memories"][0]["id"] == m_old["id"]
    third = git("rev-parse", "HEAD", cwd=code_repo).strip()
    assert by[third]["memories"] == [] and by[third]["lines"] == [[4, 4]]

    human = invoke_cli("why", "src/cache.py:1-4", cwd=code_repo)
    assert "sqlite chosen" in human.stdout and "(no linked memories)" in human.stdout


def test_why_without_notes_uses_memory_links(store, code_repo):
    """Notes not fetched (a fresh clone): the memories' own links still answer."""
    assert invoke_cli("link", cwd=code_repo).returncode == 0
    m = json.loads(invoke_cli("remember", "--link", "HEAD", "why TTL changed", "--json",
                              cwd=code_repo).stdout)
    git("update-ref", "-d", "refs/notes/gitmem", cwd=code_repo)
    entries = json.loads(invoke_cli("why", "src/cache.py:3", "--json", cwd=code_repo).stdout)
    assert [x["id"] for x in entries[0]["memories"]] == [m["id"]]


def test_why_errors(store, code_repo, tmp_path):
    r = invoke_cli("why", "src/nope.py", cwd=code_repo)
    assert r.returncode == 4 and r.stderr.startswith("error: cannot blame")
    r = invoke_cli("why", "src/cache.py:50-60", cwd=code_repo)
    assert r.returncode == 4
    (tmp_path / "plain").mkdir()
    (tmp_path / "plain" / "f.txt").write_text("x\n")
    r = invoke_cli("why", "f.txt", cwd=tmp_path / "plain")
    assert r.returncode == 4 and "not inside a git repository" in r.stderr


def test_a_linked_scope_is_listed_before_anything_is_written_there(store, tmp_path):
    repo = tmp_path / "widget"
    git("init", "-q", str(repo))
    git("-C", str(repo), "remote", "add", "origin", "git@github.com:acme/widget.git")
    store.link(repo)
    rows = {r["scope"]: r for r in store.scopes()}
    row = rows["project/github.com/acme/widget"]
    assert row["memories"] == 0 and row["tip"] is None and row["linked"] == [str(repo.resolve())]
