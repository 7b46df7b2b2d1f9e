"""Sync between homes through a bare repository on disk (the servers are in
test_sync_servers.py): merges, conflict copies, the redaction ledger, private scopes,
refused rewinds and every bad-input error, checked with the real git command."""

from __future__ import annotations

import json
import random
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

import gitmem
from gitmem.frontends.cli import cli
from gitmem.core.errors import ConflictError, RemoteError

from conftest import encode_blob, git, raw_forms


def bare(tmp_path: Path, name: str = "remote.git", **config: str) -> str:
    path = tmp_path / name
    git("init", "-q", "--bare", "-b", "main", str(path))
    for k, v in config.items():
        git("--git-dir", str(path), "config", k, v)
    return str(path)


def home(tmp_path: Path, name: str, url: str | None):
    s = gitmem.init(tmp_path / name)
    if url:
        s.remote_add("origin", url)
    return s


def texts(s) -> set[str]:
    return {m.text for m in s.list(all_scopes=True)}


def all_objects(git_dir: str) -> bytes:
    return subprocess.run(["git", "--git-dir", git_dir, "cat-file", "--batch-all-objects", "--batch"],
                          capture_output=True, check=True).stdout


def reachable_objects(git_dir: str) -> bytes:
    ids = subprocess.run(["git", "--git-dir", git_dir, "rev-list", "--objects", "--all"],
                         capture_output=True, check=True).stdout
    ids = b"\n".join(line.split(b" ")[0] for line in ids.splitlines())
    return subprocess.run(["git", "--git-dir", git_dir, "cat-file", "--batch"], input=ids + b"\n",
                          capture_output=True, check=True).stdout


def holds(data: bytes, text: str) -> bool:
    return any(f in data for f in raw_forms(text))


def scope_report(out, scope="main"):
    return next(s for s in out["remotes"][0]["scopes"] if s["scope"] == scope)


def test_two_homes_meet_through_a_bare_remote_and_plain_git_reads_it(tmp_path):
    url = bare(tmp_path)
    a, b = home(tmp_path, "a", url), home(tmp_path, "b", url)
    m = a.remember("the build server is atlas", key="build")
    a.append("set up atlas")
    out = a.sync()
    assert scope_report(out)["pushed"] is True
    out = b.sync()
    assert scope_report(out)["merged"] == "created" and scope_report(out)["fetched"] == 2
    assert b.get("build").text == "the build server is atlas" and b.get(m.id).id == m.id
    git("--git-dir", url, "fsck", "--strict")
    clone = tmp_path / "clone"
    git("clone", "-q", url, str(clone))
    log = git("-C", str(clone), "log", "--format=%s%n%b").encode()
    assert holds(log, "remember: the build server is atlas") and b"Gitmem-Op: append" in log
    # nothing to do the second time
    again = b.sync()
    assert scope_report(again)["merged"] == "none" and not scope_report(again)["pushed"]


def test_clones_agree_on_one_store_marker_and_an_idle_sync_pushes_nothing(tmp_path):
    import time

    url = bare(tmp_path)
    a = home(tmp_path, "a", url)
    a.sync()
    time.sleep(1.1)  # a marker made now would be a different commit
    b = home(tmp_path, "b", url)
    b.sync()
    marker = git("--git-dir", url, "rev-parse", "refs/gitmem/meta").strip()
    before = git("--git-dir", url, "for-each-ref")
    for h in (a, b, a, b):
        out = h.sync()
        assert h.git.ref("refs/gitmem/meta") == marker
        assert not any(s["pushed"] for s in out["remotes"][0]["scopes"])
        assert git("--git-dir", url, "for-each-ref") == before  # an idle sync pushes nothing
    assert git("--git-dir", url, "rev-parse", "refs/gitmem/meta").strip() == marker


def test_diverged_edits_keep_the_later_and_a_conflict_copy_then_resolve(tmp_path):
    url = bare(tmp_path)
    a, b = home(tmp_path, "a", url), home(tmp_path, "b", url)
    m = a.remember("deploy on Tuesday", key="deploy")
    a.sync(), b.sync()
    b.update(m.id, "deploy on Wednesday")
    a.update(m.id, "deploy on Thursday")
    b.remember("only on b")
    b.sync()
    out = a.sync()
    rep = scope_report(out)
    assert rep["merged"] == "merge" and [c["kind"] for c in rep["conflicts"]] == ["edited-both"]
    b.sync()
    assert texts(a) == texts(b) == {"only on b", a.get(m.id).text}
    conflicts = a.conflicts()
    assert len(conflicts) == 1 and conflicts[0]["id"] == m.id
    kept, copy = conflicts[0]["current"]["text"], conflicts[0]["copies"][0]["text"]
    assert {kept, copy} == {"deploy on Wednesday", "deploy on Thursday"}
    res = CliRunner().invoke(cli, ["--home", str(a.home), "resolve", m.id, "--keep", "other", "--json"])
    assert res.exit_code == 0, res.output
    assert a.get(m.id).text == copy and a.conflicts() == []
    assert a.log(m.id)[0].op == "resolve"
    a.sync(), b.sync()
    assert b.get(m.id).text == copy and b.conflicts() == []
    for h in (a, b):
        git("--git-dir", str(h.git.path), "fsck", "--strict")


def test_same_key_on_two_homes_leaves_one_live_memory_and_a_copy(tmp_path):
    url = bare(tmp_path)
    a, b = home(tmp_path, "a", url), home(tmp_path, "b", url)
    a.sync(), b.sync()
    a.remember("coffee: dark roast", key="coffee")
    b.remember("coffee: light roast", key="coffee")
    a.sync()
    b.sync()
    a.sync()
    live = [m for m in b.list() if m.key == "coffee"]
    assert len(live) == 1 and b.get("coffee").id == live[0].id
    (c,) = b.conflicts()
    assert {live[0].text, c["copies"][0]["text"]} == {"coffee: dark roast", "coffee: light roast"}
    assert texts(a) == texts(b)


def test_journals_merge_as_a_union_of_lines(tmp_path):
    url = bare(tmp_path)
    a, b = home(tmp_path, "a", url), home(tmp_path, "b", url)
    a.append("first from a")
    a.sync(), b.sync()
    b.append("second from b")
    p = a.append("third from a")["path"]
    b.sync(), a.sync(), b.sync()
    text_a = a.read_path(p)["text"]
    assert text_a == b.read_path(p)["text"]
    entries = [ln for ln in text_a.splitlines() if ln.startswith("- ")]
    assert sorted(ln.split(" ", 2)[2] for ln in entries) == ["first from a", "second from b", "third from a"]
    assert [ln.split(" ")[1] for ln in entries] == sorted(ln.split(" ")[1] for ln in entries)  # time order


def test_a_forget_reaches_every_home_and_no_object_keeps_the_text(tmp_path):
    url = bare(tmp_path)
    a, b, c = (home(tmp_path, n, url) for n in "abc")
    secret = "the vault combination is 4417-2231-9985"
    m = a.remember(secret)
    for h in (a, b, c):
        h.sync()
    assert secret in texts(c)
    c.recall("vault combination")  # c has it in its index too
    journal = c.append("written while offline")["path"]  # c is offline during the forget
    a.forget([m.id])
    a.sync(), b.sync()
    out = c.sync()
    assert out["remotes"][0]["ledger"]["applied"] is True
    a.sync(), b.sync()
    for h in (a, b, c):
        assert secret not in texts(h)
        assert not holds(all_objects(str(h.git.path)), secret), h.home
        assert not holds(all_objects(str(h.git.path)), "4417-2231-9985")
        assert all(x.id != m.id and "4417" not in x.snippet for x in h.recall("vault combination 4417"))
        git("--git-dir", str(h.git.path), "fsck", "--strict")
    assert not holds(reachable_objects(url), secret)
    # the offline home's journal line reached the others, and nobody pushed the text back
    assert "written while offline" in a.read_path(journal)["text"]
    c.sync(), a.sync()
    assert not holds(reachable_objects(url), secret)


def test_concurrent_forgets_on_two_homes_both_hold_everywhere(tmp_path):
    url = bare(tmp_path)
    a, b = home(tmp_path, "a", url), home(tmp_path, "b", url)
    x = a.remember("first secret: the gate code is 55-19-72-04")
    y = a.remember("second secret: the alarm pin is 9931-7714")
    a.remember("keep me")
    a.sync(), b.sync()
    a.forget([x.id])
    b.forget([y.id])
    for h in (a, b, a, b):
        h.sync()
    for h in (a, b):
        assert texts(h) == {"keep me"}
        data = all_objects(str(h.git.path))
        assert not holds(data, "55-19-72-04") and not holds(data, "9931-7714")
    assert a.git.scopes() == b.git.scopes()
    assert not holds(reachable_objects(url), "55-19-72-04") and not holds(reachable_objects(url), "9931-7714")


def test_a_redacted_string_leaves_every_clone_and_no_copy_is_damaged(tmp_path):
    url = bare(tmp_path)
    a, b = home(tmp_path, "a", url), home(tmp_path, "b", url)
    leak = "TOKEN-ZQX-778812-PLAIN"
    a.remember(f"the staging token is {leak} for the deploy bot")
    a.append(f"used {leak} today")
    a.sync(), b.sync()
    b.remember("b writes on top of the leaked history")
    a.redact_text(leak)
    a.sync(), b.sync(), a.sync(), b.sync()
    for h in (a, b):
        assert not holds(all_objects(str(h.git.path)), leak), h.home
        assert sorted(texts(h)) == ["b writes on top of the leaked history",
                                    "the staging token is [redacted] for the deploy bot"]
        git("--git-dir", str(h.git.path), "fsck", "--strict")
    assert not holds(reachable_objects(url), leak)
    # b took a's rewritten history commit for commit: its merge has a's commits as parents
    assert a.git.scopes() == b.git.scopes()


def test_a_remote_that_refuses_rewinds_is_reported_and_sync_still_succeeds(tmp_path):
    url = bare(tmp_path, **{"receive.denyNonFastForwards": "true"})
    a = home(tmp_path, "a", url)
    m = a.remember("the old door code is swordfish42")  # not a shape redaction catches: forget removes it
    a.sync()
    a.forget([m.id])
    assert "swordfish42" not in " ".join(texts(a))
    res = CliRunner().invoke(cli, ["--home", str(a.home), "sync", "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)["remotes"][0]
    assert out["still_holding_text"] == ["refs/heads/main"]
    assert any(r["ref"] == "refs/heads/main" for r in out["refused"])
    assert holds(reachable_objects(url), "swordfish42")  # the host kept it: reported, not hidden
    # the forget still holds locally
    assert not holds(all_objects(str(a.git.path)), "swordfish42")


def test_private_scopes_never_leave_the_machine(tmp_path):
    url = bare(tmp_path)
    a, b = home(tmp_path, "a", url), home(tmp_path, "b", url)
    a.remember("shared note")
    a.remember("my therapy notes", scope="channel/therapy")
    res = CliRunner().invoke(cli, ["--home", str(a.home), "scopes", "private", "channel/therapy"])
    assert res.exit_code == 0, res.output
    a = gitmem.open(a.home)
    a.sync()
    b.sync()
    assert texts(b) == {"shared note"}
    assert "refs/heads/channel/therapy" not in git("--git-dir", url, "for-each-ref", "--format=%(refname)")
    assert not holds(all_objects(url), "my therapy notes")
    status = a.remotes()[0]
    assert {"scope": "channel/therapy", "private": True} in status["scopes"]


def test_status_shows_ahead_behind_and_pending_ledger_records(tmp_path):
    url = bare(tmp_path)
    a = home(tmp_path, "a", url)
    a.remember("one")
    a.sync()
    m = a.remember("two")
    a.forget([m.id])
    (r,) = a.remotes()
    main = next(s for s in r["scopes"] if s["scope"] == "main")
    assert main["ahead"] >= 2 and main["behind"] == 0 and r["pending_ledger_records"] == 1
    assert r["last_sync"]
    a.sync()
    (r,) = a.remotes()
    assert r["pending_ledger_records"] == 0
    assert next(s for s in r["scopes"] if s["scope"] == "main")["ahead"] == 0


# ---- bad input ----------------------------------------------------------------------------
def cli_sync(s, *args):
    return CliRunner().invoke(cli, ["--home", str(s.home), "sync", *args])


def test_unknown_and_unreachable_remotes_are_clean_errors(tmp_path):
    a = home(tmp_path, "a", None)
    res = cli_sync(a)
    assert res.exit_code == 4 and "error: no remotes yet" in res.output and "hint:" in res.output
    a.remote_add("origin", str(tmp_path / "does-not-exist.git"))
    res = cli_sync(a, "nope")
    assert res.exit_code == 4 and "no remote 'nope'" in res.output
    res = cli_sync(a, "origin")
    assert res.exit_code == 8 and "no repository there" in res.output and "hint:" in res.output
    a.remote_add("net", "git://127.0.0.1:9/nothing.git")
    res = cli_sync(a, "net")
    assert res.exit_code == 8 and "unreachable" in res.output
    for bad in (["remote", "add", "bad name", "/x"], ["remote", "add", "x", ""], ["remote", "add", "origin", "/y"]):
        res = CliRunner().invoke(cli, ["--home", str(a.home), *bad])
        assert res.exit_code == 2 and "error:" in res.output, bad
    assert a.git.scopes() == {}


def test_a_missing_remote_whose_path_holds_401_is_no_authentication_error(tmp_path):
    # pytest's own temporary directories reach /tmp/pytest-of-root/pytest-401/…
    a = home(tmp_path, "a", None)
    a.remote_add("origin", str(tmp_path / "pytest-401" / "gone-403.git"))
    res = cli_sync(a, "origin")
    assert res.exit_code == 8 and "no repository there" in res.output and "authentication" not in res.output


def _plain_push(tmp_path, url, branch, message="plain"):
    work = tmp_path / f"work-{branch.replace('/', '-')}"
    git("init", "-q", "-b", branch, str(work))
    (work / "README").write_text("not memory\n")
    git("-C", str(work), "add", "README")
    git("-C", str(work), "-c", "user.name=x", "-c", "user.email=x@y", "commit", "-q", "-m", message)
    git("-C", str(work), "push", "-q", url, f"{branch}:{branch}")
    return work


def test_a_remote_that_is_not_a_gitmem_store_is_refused_before_anything_merges(tmp_path):
    url = bare(tmp_path)
    _plain_push(tmp_path, url, "main")
    a = home(tmp_path, "a", url)
    a.remember("mine")
    before = a.git.scopes()
    with pytest.raises(RemoteError, match="not a gitmem store"):
        a.sync()
    assert a.git.scopes() == before


def test_another_home_that_never_synced_is_a_gitmem_remote(tmp_path):
    other = home(tmp_path, "other", None)
    other.remember("written on the other home")
    a = home(tmp_path, "a", str(other.git.path))
    a.remember("written on a")
    a.sync()
    assert texts(a) == {"written on the other home", "written on a"}
    assert texts(gitmem.open(other.home)) == {"written on the other home", "written on a"}


def test_a_non_gitmem_branch_or_a_newer_format_is_refused(tmp_path):
    url = bare(tmp_path)
    a = home(tmp_path, "a", url)
    a.remember("mine")
    a.sync()
    _plain_push(tmp_path, url, "feature")
    with pytest.raises(RemoteError, match="not gitmem scopes: feature"):
        a.sync()
    git("--git-dir", url, "update-ref", "-d", "refs/heads/feature")
    # a store written by a newer gitmem
    work = tmp_path / "meta"
    git("init", "-q", str(work))
    (work / "format").write_bytes(encode_blob(b"gitmem format 99\n", "format"))  # as gitmem would store it
    git("-C", str(work), "add", "format")
    git("-C", str(work), "-c", "user.name=x", "-c", "user.email=x@y", "commit", "-q", "-m", "meta")
    git("-C", str(work), "push", "-q", "-f", url, "HEAD:refs/gitmem/meta")
    res = cli_sync(a)
    assert res.exit_code == 8 and "format 99" in res.output and "upgrade gitmem" in res.output


def test_a_concurrent_sync_is_a_clean_error(tmp_path):
    url = bare(tmp_path)
    a = home(tmp_path, "a", None)
    (a.home / "config.toml").write_text("[sync]\ntimeout = 1\n")  # wait 1 s for the lock, not 5
    a = gitmem.open(a.home)
    a.remote_add("origin", url)
    holder = subprocess.Popen(
        ["python3", "-c", "import fcntl,sys,time; f=open(sys.argv[1],'w'); fcntl.flock(f, fcntl.LOCK_EX); "
         "print('locked', flush=True); time.sleep(30)", str(a.home / "state" / "locks" / "sync.lock")],
        stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "locked"
        with pytest.raises(ConflictError, match="another `gitmem sync` is running"):
            a.sync()
    finally:
        holder.kill()
        holder.wait()


def test_dry_run_moves_nothing(tmp_path):
    url = bare(tmp_path)
    a, b = home(tmp_path, "a", url), home(tmp_path, "b", url)
    a.remember("one")
    a.sync()
    b.remember("two")
    before = b.git.refs()
    res = cli_sync(b, "--dry-run", "--json")
    assert res.exit_code == 0, res.output
    (rep,) = json.loads(res.stdout)["remotes"][0]["scopes"]
    assert rep["would_fetch"] and rep["would_push"]
    assert b.git.refs() == before and texts(b) == {"two"}


# ---- many homes, random order -------------------------------------------------------------
@pytest.mark.parametrize("seed", [7, pytest.param(11, marks=pytest.mark.slow), pytest.param(23, marks=pytest.mark.slow)])
def test_random_interleaving_of_three_homes_converges_and_loses_nothing(tmp_path, seed):
    rnd = random.Random(seed)
    url = bare(tmp_path)
    homes = [home(tmp_path, f"h{i}", url) for i in range(3)]
    acked: dict[str, set[str]] = {}  # id -> every text acknowledged for it
    forgotten: set[str] = set()
    for rnd_i in range(45):
        h = rnd.choice(homes)
        op = rnd.choice(["remember", "remember", "update", "key", "append", "sync", "sync", "forget", "dream"])
        live = [m for m in h.list(all_scopes=True)]
        if op == "remember":
            m = h.remember(f"memory {rnd_i} {rnd.random():.6f}", scope=rnd.choice(["main", "channel/c"]))
            acked.setdefault(m.id, set()).add(m.text)
        elif op == "update" and live:
            m = rnd.choice(live)
            m2 = h.update(m.id, f"{m.text} / edit {rnd_i}")
            acked.setdefault(m2.id, set()).add(m2.text)
        elif op == "key":
            m = h.remember(f"keyed value {rnd_i}", key=f"k{rnd.randrange(3)}")
            acked.setdefault(m.id, set()).add(m.text)
        elif op == "append":
            h.append(f"journal {rnd_i}")
        elif op == "forget" and live and rnd.random() < 0.5:
            m = rnd.choice(live)
            h.forget([m.id])
            forgotten.add(m.id)
        elif op == "dream":
            h.dream(force=True)
        else:
            h.sync()
    for _ in range(2):
        for h in homes:
            h.sync()
    views = []
    for h in homes:
        git("--git-dir", str(h.git.path), "fsck", "--strict")
        live = {m.id: m.text for m in h.list(all_scopes=True)}
        copies = {c["id"]: [x["text"] for x in c["copies"]] for c in h.conflicts()}
        views.append((live, copies))
    assert views[0] == views[1] == views[2]
    remote_refs = git("--git-dir", url, "for-each-ref", "--format=%(refname) %(objectname)", "refs/heads/")
    for h in homes:  # and the remote holds the same tips
        assert {f"refs/heads/{s} {t}" for s, t in h.git.scopes().items()} == set(remote_refs.split("\n")) - {""}
    live, copies = views[0]
    assert not (set(live) & forgotten)
    kept_texts = set(live.values()) | {t for ts in copies.values() for t in ts}
    for mem_id, ts in acked.items():
        if mem_id in forgotten:
            continue
        # a memory remembered and never forgotten is live (keyed ones may live on as a
        # conflict copy of the key's winner), and its newest acknowledged text survives
        assert mem_id in live or any(t in kept_texts for t in ts), mem_id
    git("--git-dir", url, "fsck", "--strict")
