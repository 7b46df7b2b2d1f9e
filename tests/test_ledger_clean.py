"""What sync remembers as already checked against the redaction ledger
(memories/ledger_clean.py): it only saves time. Secret-holding commits that arrive after
a record cleared this clone are still caught, and deleting or corrupting the file only
makes the next sync scan everything again."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import gitmem
from gitmem.lifecycle import forget as forgetting
from gitmem.memories import ledger, ledger_clean

from conftest import git
from test_sync import all_objects, bare, holds, home, reachable_objects, texts

SECRET = "the safe deposit box number is 8842-1107-5530"


def _entries(s) -> list[dict]:
    return ledger_clean.load(Path(s.home))


def _shared_then_forgotten(tmp_path: Path):
    """A and B share a secret and another memory; a plain-git mirror keeps the old
    history; A forgets the secret, both sync (B applies the record)."""
    url = bare(tmp_path)
    a, b = home(tmp_path, "a", url), home(tmp_path, "b", url)
    m = a.remember(SECRET)
    a.remember("the office plant needs water on fridays")
    a.sync(), b.sync()
    _, _, path = a.locate(m.id)
    mirror = str(tmp_path / "mirror.git")
    git("clone", "-q", "--mirror", url, mirror)
    a.forget([m.id])
    a.sync()
    out = b.sync()
    assert out["remotes"][0]["ledger"]["applied"] is True
    assert SECRET not in texts(b)
    return url, a, b, m, path, mirror


def _push_old_history_back(url: str, mirror: str, tmp_path: Path) -> None:
    """Someone with a stale plain-git copy commits on the pre-forget history and
    force-pushes it: the secret is in the new commit's tree."""
    old = git("--git-dir", mirror, "rev-parse", "refs/heads/main").strip()
    new = git("--git-dir", mirror, "commit-tree", f"{old}^{{tree}}", "-p", old, "-m", "plain git commit").strip()
    git("--git-dir", mirror, "push", "-q", "--force", url, f"{new}:refs/heads/main")


def _re_add_on_clean_tip(url: str, mirror: str, tmp_path: Path, path: str) -> None:
    """A commit whose parent is the clean (rewritten) tip, adding the forgotten file's
    old version back: its parent is history the record already cleared."""
    old = git("--git-dir", mirror, "rev-parse", "refs/heads/main").strip()
    blob = git("--git-dir", mirror, "rev-parse", f"{old}:{path}").strip()
    git("--git-dir", mirror, "fetch", "-q", url, "+refs/heads/main:refs/heads/clean")
    clean = git("--git-dir", mirror, "rev-parse", "refs/heads/clean").strip()
    env = {**os.environ, "GIT_INDEX_FILE": str(tmp_path / "plain.index")}
    import subprocess

    def g(*args: str) -> str:
        return subprocess.run(["git", "--git-dir", mirror, *args], env=env, capture_output=True, text=True,
                              check=True).stdout.strip()
    g("read-tree", clean)
    g("update-index", "--add", "--cacheinfo", f"100644,{blob},{path}")
    tree = g("write-tree")
    new = g("commit-tree", tree, "-p", clean, "-m", "plain git re-adds a file")
    git("--git-dir", mirror, "push", "-q", "--force", url, f"{new}:refs/heads/main")


@pytest.mark.parametrize("how,state", [("old-history", "kept"), ("re-added", "kept"),
                                       ("re-added", "deleted"), ("old-history", "corrupt")])
def test_the_secret_arriving_again_after_a_record_cleared_this_clone_is_caught(tmp_path, how, state):
    url, a, b, m, path, mirror = _shared_then_forgotten(tmp_path)
    # B's sync left what it checked: every record, every tip it holds.
    (entry,) = _entries(b)
    assert entry["records"] == [p for p, _ in ledger.records(b.git)]
    assert b.git.ref("refs/heads/main") in entry["tips"]
    if how == "old-history":
        _push_old_history_back(url, mirror, tmp_path)
    else:
        _re_add_on_clean_tip(url, mirror, tmp_path, path)
    if state == "deleted":
        ledger_clean.clean_path(Path(b.home)).unlink()
    elif state == "corrupt":
        ledger_clean.clean_path(Path(b.home)).write_text("{not json")
    b = gitmem.open(b.home)
    out = b.sync()
    assert out["remotes"][0]["ledger"]["applied"] is True
    assert SECRET not in texts(b)
    assert not holds(all_objects(str(b.git.path)), SECRET)
    assert not holds(all_objects(str(b.git.path)), "8842-1107-5530")
    assert not holds(reachable_objects(url), SECRET)  # B's push replaced what came back
    a.sync()
    assert SECRET not in texts(a) and not holds(all_objects(str(a.git.path)), SECRET)
    assert "the office plant needs water on fridays" in texts(a) & texts(b)
    git("--git-dir", str(b.git.path), "fsck", "--strict")


def test_a_local_forget_vouches_for_its_own_tips_and_applying_rewrites_only_unchecked_refs(tmp_path, monkeypatch):
    url = bare(tmp_path)
    a, b = home(tmp_path, "a", url), home(tmp_path, "b", url)
    m = a.remember(SECRET)
    for i in range(3):
        a.remember(f"filler memory {i} about the garden")
    a.sync(), b.sync()
    a.forget([m.id])
    (rec_path, _), = ledger.records(a.git)
    # The forget's own entry: every tip it left is clean of its record.
    assert any(e["records"] == [rec_path] and a.git.ref("refs/heads/main") in e["tips"] for e in _entries(a))
    rewritten: list[set[str]] = []
    real = forgetting.rewrite

    def spy(git, roots, policy, **kw):
        rewritten.append(set(roots))
        return real(git, roots, policy, **kw)
    monkeypatch.setattr(forgetting, "rewrite", spy)
    out = a.sync()
    assert out["remotes"][0]["ledger"]["applied"] is False and rewritten == []  # nothing scanned finds a hit
    out = b.sync()
    assert out["remotes"][0]["ledger"]["applied"] is True
    # B's own main held the secret; the fetched tracking ref is A's rewritten history,
    # which the record names as clean: it is left as it is.
    (roots,) = rewritten
    assert "refs/heads/main" in roots and "refs/remotes/origin/main" not in roots
    assert SECRET not in texts(b) and not holds(all_objects(str(b.git.path)), SECRET)
    assert b.git.ref("refs/heads/main") == a.git.ref("refs/heads/main")


def test_groups_split_records_by_what_is_checked_and_ignore_gone_tips(store):
    git = store.git
    store.remember("one")
    tip = git.ref("refs/heads/main")
    home_ = Path(store.home)
    gone = "e" * 40
    recs = {"records/1.json": {"refs": {"refs/heads/main": ["a" * 40, tip]}},
            "records/2.json": {"refs": {}}, "records/3.json": {}}
    # No file: each record hides only its own (present) tips.
    assert sorted(ledger_clean.groups(git, home_, recs)) == [
        (["records/1.json"], [tip]), (["records/2.json", "records/3.json"], [])]
    ledger_clean.checked(home_, ["records/2.json", "records/3.json"], [tip, gone])
    assert ledger_clean.groups(git, home_, recs) == [(["records/1.json", "records/2.json", "records/3.json"], [tip])]
    ledger_clean.clean_path(home_).write_text("[]")
    assert ledger_clean.load(home_) == []


def test_after_forget_carries_checked_tips_to_their_rewritten_ids(tmp_path):
    a, a2, b, c = "a" * 40, "1" * 40, "b" * 40, "c" * 40
    ledger_clean.checked(tmp_path, ["records/1.json"], [a, b, c])
    ledger_clean.after_forget(tmp_path, "records/2.json", {a: a2}, [a2, c])
    # a -> its rewrite; c unchanged and still a tip; b no longer a tip: not vouched for
    assert ledger_clean.load(tmp_path) == [
        {"records": ["records/1.json", "records/2.json"], "tips": [a2, c]},
        {"records": ["records/2.json"], "tips": [a2, c]}]
