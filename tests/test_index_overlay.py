"""A recall right after a write (issue 21): the write is taken into the warm snapshot
straight from git (gitmem/index/overlay.py) before the answer, the index file catches
up later by its own diff. Checked against a snapshot loaded afresh from a caught-up
file, for every kind of change, and through a real `gitmem serve`."""

from __future__ import annotations

import json

import numpy as np
import pytest

import gitmem
from gitmem.index import db, snapshot

from conftest import git, run_cli, start_daemon, stop_daemon, wait_for

TEXTS = ["We deploy on Tuesdays after the standup.", "The staging database is Postgres 16.",
         "I prefer tabs over spaces in Go code.", "The release checklist lives in docs/release.md.",
         "Backups go to the eu-west bucket every night."]
QUERIES = ["deploy tuesday", "staging database postgres", "tabs spaces", "release checklist docs",
           "backups bucket night", "zeppelin hangar key", "golf hotel"]


@pytest.fixture
def warm(store):
    """A store with a few memories and its snapshot loaded (the warm process)."""
    for t in TEXTS:
        store.remember(t)
    store.recall("deploy")
    assert store.index.last_build  # the first recall built the file
    return store


def _no_file_opens(monkeypatch):
    def refuse(*a, **kw):
        raise AssertionError("the index file was opened on the query's clock")

    monkeypatch.setattr(db, "connect", refuse)
    monkeypatch.setattr(snapshot, "attach", refuse)


def _ranked(store, q):
    return [(h.id, h.path, round(h.score, 9)) for h in store.recall(q, k=10, all_scopes=True, min_relevance=0)]


def _dfs(snap):
    codes = {v: k for k, v in snap.scope_codes.items()}
    return sorted((codes[sc], th, df) for sc, th, df in snap.con.execute("SELECT sc, th, df FROM dfs").fetchall())


def _same_as_a_fresh_load(warm_store, home):
    """The warm snapshot answers, counts and holds vectors as a snapshot loaded from a
    caught-up file does."""
    fresh = gitmem.open(home)
    for q in QUERIES:
        assert _ranked(warm_store, q) == _ranked(fresh, q), q
    a, b = warm_store.index.snapshot(), fresh.index.snapshot()
    assert _dfs(a) == _dfs(b)
    key = lambda s: {(r[1], r[2], r[9]): i for i, r in enumerate(s.table)}  # noqa: E731 (scope, path, line)
    ka, kb = key(a), key(b)
    assert ka.keys() == kb.keys()
    for k in ka:
        assert a.has_vec[ka[k]] == b.has_vec[kb[k]]
        assert np.allclose(a.vectors[ka[k]], b.vectors[kb[k]]), k
    n_a = a.con.execute("SELECT count(*) FROM postings").fetchone()[0]
    n_b = b.con.execute("SELECT count(*) FROM postings").fetchone()[0]
    assert n_a == n_b


def test_a_recall_right_after_a_write_finds_it_without_opening_the_file(warm, monkeypatch):
    tips_before = db.read_state(warm.index.path, 5.0)[1]
    m = warm.remember("The zeppelin hangar key is in the blue drawer.")
    _no_file_opens(monkeypatch)
    hits = warm.recall("zeppelin hangar key")
    assert hits and hits[0].id == m.id
    assert warm.index.last_change["chunks"] == 1 and warm.index.file_behind
    monkeypatch.undo()
    # The file still says where it was: it never claims a tip whose rows it lacks.
    assert db.read_state(warm.index.path, 5.0)[1] == tips_before


def test_every_kind_of_change_matches_a_fresh_load(warm, gm_home, monkeypatch):
    from gitmem.index import indexer

    monkeypatch.setattr(snapshot, "MIN_BUFFER_ROWS", 2)   # the vector buffer grows a few times
    monkeypatch.setattr(indexer, "MAX_AHEAD", 3)          # and the file catches up in between
    a = warm.remember("The zeppelin hangar key is in the blue drawer.", tags=["keys"])
    warm.recall("zeppelin")
    warm.update(a.id, "The zeppelin hangar key moved to the red box.")   # text: new chunk
    warm.recall("zeppelin")
    warm.update(a.id, tags=["keys", "hangar"])                            # tags only
    warm.recall("hangar")
    b = warm.remember("Golf on Fridays; hotel booked.", scope="channel/ops")  # a new scope
    warm.recall("golf", all_scopes=True)
    warm.remember("Golf hotel: second note.", scope="channel/ops")
    warm.append("deploy log: the hotel wifi is slow")
    warm.recall("golf hotel", all_scopes=True)
    warm.forget([b.id], keep_history=True)
    warm.recall("golf hotel", all_scopes=True)
    for i in range(6):
        warm.remember(f"bulk note {i}: the backups bucket rotates")
        warm.recall("backups bucket")
    warm.index.ensure_fresh()
    assert not warm.index.file_behind
    _same_as_a_fresh_load(warm, gm_home)


def test_the_file_catches_up_after_a_crash(warm, gm_home):
    """A process that took writes in memory and died leaves a file the next one
    catches up from its own cursors."""
    m = warm.remember("The zeppelin hangar key is in the blue drawer.")
    assert warm.recall("zeppelin")[0].id == m.id and warm.index.file_behind
    del warm  # no catch-up: as if killed
    other = gitmem.open(gm_home)
    assert other.recall("zeppelin")[0].id == m.id
    assert other.index.last_build["rebuilt"] is False and other.index.last_build["chunks"] == 1


def test_a_forget_right_before_a_recall(warm):
    m = warm.remember("The zeppelin hangar key is in the blue drawer.")
    assert warm.recall("zeppelin hangar")[0].id == m.id
    warm.forget([m.id])
    assert all(h.id != m.id for h in warm.recall("zeppelin hangar", min_relevance=0))
    n = warm.remember("The zeppelin shed key is under the mat.")
    warm.recall("zeppelin")
    warm.forget([n.id], keep_history=True)
    assert all(h.id != n.id for h in warm.recall("zeppelin shed key", min_relevance=0))
    snap = warm.index.snapshot()
    assert not any(r[3] in (m.id, n.id) for r in snap.table)


def test_a_big_change_goes_through_the_file(warm):
    warm.import_items([{"text": f"imported note {i} about kites"} for i in range(80)])
    assert len(warm.recall("kites", k=100, min_relevance=0)) == 80
    assert not warm.index.file_behind  # more files than overlay.MAX_FILES: the file caught up


def test_diff_files_matches_git(store, gm_home):
    a = store.remember("first note")
    store.remember("second note", type="decision")
    old = store.git.tip("main")
    store.update(a.id, "first note, edited")
    store.remember("third note", type="fact")
    store.append("a journal line")
    store.forget([a.id], keep_history=True)
    new = store.git.tip("main")
    ours = sorted((s, p) for s, p, _ in store.git.diff_files(old.id, new.id))
    out = git("--git-dir", str(gm_home / "repo.git"), "diff-tree", "-r", "--name-status", "--no-renames",
              old.id, new.id)
    theirs = sorted((ln.split("\t")[0], ln.split("\t")[1]) for ln in out.splitlines() if ln)
    assert ours == theirs and len(ours) == 3


@pytest.mark.slow
def test_through_a_daemon_a_recall_right_after_a_write_finds_it(warm, gm_home):
    proc = start_daemon(gm_home, "--idle-exit", "60")
    try:
        for i in range(3):
            res = run_cli("remember", f"daemon write {i}: the quokka lives on Rottnest")
            assert res.returncode == 0, res.stderr
            got = run_cli("recall", "--json", "-k", "3", f"daemon write {i} quokka")
            assert got.returncode == 0, got.stderr
            assert f"daemon write {i}:" in json.loads(got.stdout)[0]["snippet"]
        m_id = json.loads(run_cli("recall", "--json", "-k", "1", "daemon write 2 quokka").stdout)[0]["id"]
        assert run_cli("forget", m_id).returncode == 0
        got = json.loads(run_cli("recall", "--json", "-k", "5", "--min-relevance", "0", "quokka").stdout)
        assert m_id not in [h["id"] for h in got]
        # The worker brings the file up to the tips in the background.
        assert wait_for(lambda: json.loads(run_cli("status", "--json").stdout).get("index_lag", {}).get("main") == 0,
                        timeout=20)
    finally:
        stop_daemon(proc)


def test_the_workers_catch_up_beside_queries(warm):
    """ensure_fresh with the front end's lock (the daemon's index worker): the file
    reaches the tips the snapshot took in memory, and the lock is free afterwards."""
    import threading

    lock = threading.Lock()
    m = warm.remember("The zeppelin hangar key is in the blue drawer.")
    assert warm.recall("zeppelin")[0].id == m.id and warm.index.file_behind
    assert warm.index.ensure_fresh(lock=lock) is True
    assert not warm.index.file_behind and not lock.locked()
    assert db.read_state(warm.index.path, 5.0)[1] == dict(warm.git.scopes())
    assert warm.index.last_build["chunks"] == 1 and warm.index.last_build["embedded"] == 0
    assert warm.index.ensure_fresh(lock=lock) is False
