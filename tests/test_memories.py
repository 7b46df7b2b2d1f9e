"""The store through the Python API, checked with the real git command."""

import subprocess
import sys

import pytest

import gitmem
from gitmem.core.errors import ImportFormatError, NotFound, UsageError

from conftest import git, raw_forms


def repo(store):
    return str(store.git.path)


def test_remember_writes_one_commit_with_trailers(store):
    m = store.remember("Prefers tabs over spaces", type="preference", tags=["style"], importance=7)
    log = git("--git-dir", repo(store), "log", "--all", "--format=%s%n%b%n--")
    assert any(f in log.encode() for f in raw_forms("remember: Prefers tabs over spaces"))
    assert store.log()[0].summary == "remember: Prefers tabs over spaces"
    assert f"Gitmem-Id: {m.id}" in log and "Gitmem-Op: remember" in log
    assert git("--git-dir", repo(store), "rev-list", "--count", "main").strip() == "1"
    files = git("--git-dir", repo(store), "ls-tree", "-r", "--name-only", "main").split()
    assert files == [m.path] and m.path.startswith("memories/preference/")
    git("--git-dir", repo(store), "fsck", "--strict")
    got = store.get(m.id)
    assert (got.text, got.tags, got.importance, got.type) == ("Prefers tabs over spaces", ("style",), 7, "preference")


def test_session_and_agent_trailers_and_author(gm_home, monkeypatch):
    monkeypatch.setenv("GITMEM_SESSION", "s-42")
    s = gitmem.init(gm_home, agent="claude-code")
    s.remember("x fact")
    out = git("--git-dir", repo(s), "log", "-1", "--format=%an|%b")
    assert out.startswith("claude-code|")
    assert "Gitmem-Session: s-42" in out and "Gitmem-Agent: claude-code" in out


def test_key_upsert_keeps_one_live_item_and_history(store):
    a = store.remember("deploy on Tuesday", key="deploy-day")
    b = store.remember("deploy on Thursday", key="deploy-day")
    assert a.id == b.id
    live = [m for m in store.list() if m.key == "deploy-day"]
    assert len(live) == 1 and live[0].text == "deploy on Thursday"
    assert store.get(a.id, at=a.commit).text == "deploy on Tuesday"
    assert [e.op for e in store.log(a.id)] == ["update", "remember"]
    c = store.remember("deploy on Thursday", key="deploy-day")
    assert c.commit == b.commit  # nothing changed: no new commit


def test_import_is_one_commit_and_idempotent(store):
    items = [{"text": f"fact {i}", "key": f"k{i}", "tags": ["t"], "speaker": "bob"} for i in range(30)]
    r1 = store.import_items(items)
    assert len(r1.created) == 30
    n = git("--git-dir", repo(store), "rev-list", "--count", "main").strip()
    assert n == "1"
    r2 = store.import_items(items)
    assert len(r2.unchanged) == 30 and not r2.scope_commits
    assert git("--git-dir", repo(store), "rev-list", "--count", "main").strip() == "1"
    m = store.get("k3")
    assert m.metadata == {"speaker": "bob"} and m.key == "k3"


def test_import_malformed_aborts_everything(store):
    with pytest.raises(ImportFormatError) as e:
        store.import_items([{"text": "good"}, {"text": ""}, {"text": "also good"}])
    assert e.value.line == 2
    assert store.git.scopes() == {}


def test_export_import_round_trip(store, tmp_path):
    store.remember("alpha", type="fact", tags=["a"], key="ka", importance=9, created="2020-01-01")
    store.remember("beta\nwith lines", scope="channel/x", metadata={"who": "me"})
    items = list(store.export_jsonl())
    other = gitmem.init(tmp_path / "other")
    other.import_items(items)
    assert list(other.export_jsonl()) == items


def test_scopes_are_isolated(store):
    store.remember("in main")
    store.remember("in slack", scope="channel/slack")
    assert [m.text for m in store.list(scope="channel/slack")] == ["in slack"]
    assert [m.text for m in store.list(scope="main")] == ["in main"]
    assert sorted(store.git.scopes()) == ["channel/slack", "main"]


def test_update_restore_and_get_at_date(store):
    m = store.remember("v1")
    u = store.update(m.id, "v2")
    assert store.get(m.id).text == "v2"
    r = store.restore(m.id, m.commit)
    assert store.get(m.id).text == "v1" and r.commit != u.commit
    assert store.get(m.id, at="2100-01-01").text == "v1"
    with pytest.raises(NotFound):
        store.get(m.id, at="2000-01-01")


def test_append_journal(store):
    store.append("first line")
    info = store.append("second line")
    text = store.git.read(store.git.tip("main"), info["path"]).decode()
    assert "first line" in text and "second line" in text and info["path"].startswith("daily/")


def test_secrets_redacted_everywhere(store):
    m = store.remember("the key is AKIAIOSFODNN7EXAMPLE", metadata={"note": "ghp_" + "x1Y2" * 9})
    # A tag or a key is a name, never redacted: one holding a secret is refused (issue 20).
    for field, value in (("tags", ["password=hunter22"]), ("key", "token=abcdefgh12345")):
        with pytest.raises(UsageError, match="looks like a secret"):
            store.remember("x", **{field: value})
    dump = git("--git-dir", repo(store), "log", "--all", "-p", "--format=%B").encode()
    for secret in ("AKIAIOSFODNN7EXAMPLE", "hunter22", "abcdefgh12345", "x1Y2x1Y2"):
        assert not any(form in dump for form in raw_forms(secret))
    assert {f["field"] for f in store.last_redactions} >= {"text", "metadata.note"}
    assert "[REDACTED:aws-access-key]" in store.get(m.id).text


def test_bad_input_writes_nothing(store):
    for bad in ("", "a\x00b", "x" * 70000):
        with pytest.raises(UsageError):
            store.remember(bad)
    with pytest.raises(UsageError):
        store.remember("ok", scope="nope")
    assert store.git.scopes() == {}


def test_fsck_and_clone(store, tmp_path):
    for i in range(5):
        store.remember(f"memory {i}", scope="channel/c" if i % 2 else "main")
    git("--git-dir", repo(store), "fsck", "--strict")
    dest = tmp_path / "clone"
    git("clone", "--mirror", repo(store), str(dest))
    assert git("--git-dir", str(dest), "rev-list", "--count", "--all").strip() == "5"


WRITER = """
import sys, gitmem
s = gitmem.open(sys.argv[1])
for i in range(int(sys.argv[3])):
    s.remember(f"writer {sys.argv[2]} memory {i}")
"""


@pytest.mark.slow
def test_concurrent_processes_lose_nothing(store, tmp_path):
    (tmp_path / "bin").mkdir()  # not tmp_path itself: its gitmem/ folder would shadow the package
    script = tmp_path / "bin" / "w.py"
    script.write_text(WRITER)
    procs = [subprocess.Popen([sys.executable, str(script), str(store.home), str(w), "50"]) for w in range(4)]
    assert [p.wait(timeout=300) for p in procs] == [0, 0, 0, 0]
    texts = {m.text for m in store.list()}
    assert len(texts) == 200
    assert git("--git-dir", repo(store), "rev-list", "--count", "main").strip() == "200"
    git("--git-dir", repo(store), "fsck", "--strict")
