"""MEMORY.md rebuilds read the catalog's rows (memories/memory_md.py) and parse no
memory file the catalog holds; the file is byte for byte the one the tree walk makes
(GITMEM_CATALOG=0), after writes of every kind: remember, update, supersession,
forget, archive, a dream apply and a sync merge."""

from __future__ import annotations

import subprocess

import gitmem
from gitmem.core import model
from gitmem.lifecycle import decisions
from gitmem.memories.service import Memories
from gitmem.sync.merge import merge_scope

from test_sync import bare, home


def _writes(s, tag: str) -> None:
    a = s.remember(f"{tag}: the build server is atlas", importance=7, key=f"{tag}-build")
    s.remember(f"{tag}: lunch is at noon on fridays", type="fact")
    s.remember(f"{tag}: " + "a long line about deploy windows and review rules " * 6, importance=9)
    s.update(a.id, f"{tag}: the build server is now zeus")
    old = s.remember(f"{tag}: the office is in berlin", type="fact")
    s.remember(f"{tag}: the office moved to lisbon", type="fact", supersedes=[old.id])
    gone = s.remember(f"{tag}: the door code is 4471-0932")
    s.forget([gone.id])


def _both(s, monkeypatch):
    """The same store opened with the catalog and without it."""
    monkeypatch.delenv("GITMEM_CATALOG", raising=False)
    on = gitmem.open(s.home)
    monkeypatch.setenv("GITMEM_CATALOG", "0")
    off = gitmem.open(s.home)
    monkeypatch.delenv("GITMEM_CATALOG", raising=False)
    assert on.memories.catalog is not None and off.memories.catalog is None
    return on.memories, off.memories


def _count_loads(svc: Memories, monkeypatch) -> list[str]:
    seen: list[str] = []
    real = svc.load

    def load(rev, path, scope, blob=None):
        seen.append(path)
        return real(rev, path, scope, blob)
    monkeypatch.setattr(svc, "load", load)
    return seen


def test_a_dream_apply_builds_the_same_memory_md_from_the_catalog(store, monkeypatch):
    _writes(store, "x")
    ids = [m.id for m in store.list()]
    store.dream_apply({"decisions": [{"archive": [ids[-1]]}, {"keep": ids[:2]}]})
    store.remember("written after the dream", importance=8)
    on, off = _both(store, monkeypatch)
    loads = _count_loads(on, monkeypatch)
    doc = {"decisions": [{"keep": [ids[0]]}]}
    tip = on.git.tip("main")
    found = decisions.check(on, "main", tip, doc["decisions"])
    md_on = decisions.apply(on, "main", tip, doc["decisions"], found)[0]["MEMORY.md"]
    found = decisions.check(off, "main", tip, doc["decisions"])
    md_off = decisions.apply(off, "main", tip, doc["decisions"], found)[0]["MEMORY.md"]
    assert md_on == md_off
    assert b"written after the dream" in md_on and b"lisbon" in md_on and b"4471" not in md_on
    # only the memories the decisions name were read whole (check() loads them)
    assert set(loads) <= {p for p, _ in on.memory_files(tip) if ids[0] in p}


def test_a_sync_merge_rebuilds_the_same_memory_md_from_the_catalog(tmp_path, monkeypatch):
    url = bare(tmp_path)
    a, b = home(tmp_path, "a", url), home(tmp_path, "b", url)
    _writes(a, "a")
    a.sync(), b.sync()
    _writes(b, "b")
    a.dream_apply({"decisions": [{"keep": [a.list()[0].id]}]})
    b.dream_apply({"decisions": [{"keep": [b.list()[0].id]}]})  # MEMORY.md now differs on both sides
    a.sync()
    subprocess.run(["git", "--git-dir", str(b.git.path), "fetch", "-q", url, "+refs/heads/main:refs/remotes/origin/main"],
                   check=True)
    on, off = _both(b, monkeypatch)
    git = on.git
    ours, theirs = git.tip("main"), git.commit_obj(git.ref("refs/remotes/origin/main"))
    base = git.commit_obj(git.merge_base(ours.id, theirs.id))
    assert on.entries(["main"])  # the catalog caught up before the count
    parsed: list[str] = []
    real = model.parse

    def parse(data, path=None, **kw):
        parsed.append(path)
        return real(data, path=path, **kw)
    monkeypatch.setattr(model, "parse", parse)
    md_on = merge_scope(on, "main", base, ours, theirs).changes["MEMORY.md"]
    n_on, parsed[:] = len(parsed), []
    md_off = merge_scope(off, "main", base, ours, theirs).changes["MEMORY.md"]
    assert md_on == md_off
    # with the catalog only the other side's files are parsed
    assert n_on < len(parsed) and n_on <= len([p for p, _ in off.memory_files(theirs)])
    assert b"a: lunch is at noon" in md_on and b"b: lunch is at noon" in md_on
