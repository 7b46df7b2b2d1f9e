"""The derived index: chunking, catch-up by diff, rebuild, embedding cache, locking."""

import pytest
import os
import subprocess
import sys


import gitmem
from gitmem import index as ix
from conftest import run_cli


def test_split_lines_short_text_is_one_chunk():
    assert ix.split_lines("one\ntwo\n", 20, 1500) == [(1, 2, "one\ntwo")]


def test_split_lines_by_heading_then_window():
    text = "# A\n" + "a line\n" * 3 + "# B\n" + "\n".join(f"b{i}" for i in range(25)) + "\n"
    chunks = ix.split_lines(text, 10, 1500)
    assert chunks[0] == (1, 4, "# A\na line\na line\na line")
    assert chunks[1][0] == 5 and chunks[1][2].startswith("# B")
    assert all(b - a + 1 <= 10 for a, b, _ in chunks)
    # Every line is covered exactly once, in order.
    covered = [n for a, b, _ in chunks for n in range(a, b + 1)]
    assert covered == list(range(1, 31))


def test_memory_chunk_numbering_is_body_lines(store):
    body = "\n".join(f"line {i}" for i in range(1, 46))
    mem = store.remember(body)
    data = store.git.read(store.git.tip("main"), mem.path)
    chunks = ix.chunks_of("main", mem.path, data, 20, 100000)
    assert [(c.start_line, c.end_line) for c in chunks] == [(1, 20), (21, 40), (41, 45)]
    assert chunks[1].text.splitlines()[0] == "line 21"


def test_incremental_catch_up_only_reads_changes(store):
    a = store.remember("alpha bravo charlie")
    store.remember("delta echo foxtrot")
    assert [h.id for h in store.recall("alpha", scopes=["main"])] == [a.id]
    idx = store.index
    assert idx.last_build["rebuilt"] is True
    store.update(a.id, "golf hotel india")
    hits = store.recall("hotel", scopes=["main"])
    assert [h.id for h in hits] == [a.id]
    # The recall applied that one change in memory; the file catches up on its own diff.
    assert idx.last_change == {"files": 1, "chunks": 1, "embedded": 1} and idx.file_behind
    assert idx.ensure_fresh() is True and not idx.file_behind
    assert idx.last_build["rebuilt"] is False and idx.last_build["chunks"] == 1
    assert idx.last_build["embedded"] == 0   # the vector the recall computed
    assert store.recall("alpha", scopes=["main"]) == []


def test_tag_edit_does_not_reembed(store):
    a = store.remember("kiwi mango papaya")
    store.recall("kiwi", scopes=["main"])
    store.update(a.id, tags=["fruit"])
    assert [h.id for h in store.recall("fruit", scopes=["main"])] == [a.id]
    assert store.index.last_change["embedded"] == 0   # in memory: the row's vector kept
    store.index.ensure_fresh()
    assert store.index.last_build["chunks"] == 1
    assert store.index.last_build["embedded"] == 0


def test_identical_text_embedded_once(store):
    store.remember("same words here", scope="channel/a")
    store.remember("same words here", scope="channel/b")
    store.recall("same", all_scopes=True)
    assert store.index.last_build["chunks"] == 2
    assert store.index.last_build["embedded"] == 1


def test_deleted_index_is_rebuilt(store, gm_home):
    m = store.remember("the quokka lives on Rottnest")
    store.recall("quokka", scopes=["main"])
    (gm_home / "index.duckdb").unlink()
    fresh = gitmem.open(gm_home)
    assert [h.id for h in fresh.recall("quokka", scopes=["main"])] == [m.id]
    assert (gm_home / "index.duckdb").exists()


def test_corrupt_index_is_rebuilt(store, gm_home):
    m = store.remember("the numbat eats termites")
    store.recall("numbat", scopes=["main"])
    (gm_home / "index.duckdb").write_bytes(b"this is not a duckdb file" * 100)
    fresh = gitmem.open(gm_home)
    assert [h.id for h in fresh.recall("numbat", scopes=["main"])] == [m.id]


def test_stale_index_caught_up_after_other_process_writes(store, gm_home):
    store.remember("first memory about wombats")
    assert len(store.recall("wombats", scopes=["main"])) == 1
    res = run_cli("remember", "second memory about wombats and burrows")
    assert res.returncode == 0, res.stderr
    hits = store.recall("burrows", scopes=["main"])
    assert len(hits) == 1 and "burrows" in hits[0].snippet
    assert store.status()["index_lag"]["main"] == 0


def test_forgotten_scope_tip_rewrite_reindexes_scope(store):
    store.remember("ephemeral platypus")
    store.recall("platypus", scopes=["main"])
    # Point the branch at a commit the index never saw and that does not descend from
    # its cursor: the scope is indexed afresh rather than diffed.
    b = store.remember("another echidna")
    store.git.set_ref("refs/heads/main", b.commit)
    assert store.recall("echidna", scopes=["main"])[0].id == b.id


def test_drop_ids_removes_chunks(store, gm_home):
    a = store.remember("secret-ish tapir fact")
    store.recall("tapir", scopes=["main"])
    assert ix.drop_ids(gm_home, [a.id]) == 1
    con = ix.connect(gm_home / "index.duckdb", read_only=True)
    try:
        assert con.execute("SELECT count(*) FROM docs WHERE mem_id = ?", [a.id]).fetchone()[0] == 0
        assert con.execute("SELECT count(*) FROM docs WHERE text LIKE '%tapir%'").fetchone()[0] == 0
    finally:
        con.close()


def test_vectors_for(store):
    a = store.remember("red panda in the snow")
    b = store.remember("red panda in the snow!")
    vecs = store.index.vectors_for([a.id, b.id])
    assert set(vecs) == {a.id, b.id}
    assert float(vecs[a.id] @ vecs[b.id]) > 0.9


@pytest.mark.slow
def test_reader_waits_for_writer_lock(store, gm_home):
    """A process holding the DuckDB file read-write makes others retry, not crash."""
    store.remember("capybara swims")
    store.recall("capybara", scopes=["main"])
    store.remember("capybara naps")  # make our index stale, so we must write
    holder = subprocess.Popen([sys.executable, "-c", (
        "import duckdb, sys, time; c = duckdb.connect(sys.argv[1]); print('locked', flush=True); "
        "time.sleep(1.5); c.close()"), str(gm_home / "index.duckdb")], stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline().strip() == "locked"
    assert holder.poll() is None  # the writer still holds the file: recall must wait for it
    hits = gitmem.open(gm_home).recall("capybara", scopes=["main"])
    assert len(hits) == 2  # both, the new one too: it waited and wrote, it did not give up
    holder.wait(5)


def test_concurrent_recalls_from_processes(store, gm_home):
    for i in range(20):
        store.remember(f"note {i} about lemurs")
    procs = [subprocess.Popen([sys.executable, "-m", "gitmem", "recall", "lemurs", "--json", "-k", "3"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              env=os.environ.copy()) for _ in range(4)]
    for p in procs:
        out, err = p.communicate(60)
        assert p.returncode == 0, err
        assert out.count('"id"') == 3


def test_vectors_filled_in_when_the_model_comes_back(store, gm_home, monkeypatch):
    store.remember("vectors from the start")
    store.recall("vectors", scopes=["main"])
    monkeypatch.setenv("GITMEM_EMBED_MODEL", "none")
    bm25_only = gitmem.open(gm_home)
    late = bm25_only.remember("written while the model was away")
    assert bm25_only.recall("model away", scopes=["main"])[0].id == late.id
    monkeypatch.setenv("GITMEM_EMBED_MODEL", "fake-64")
    back = gitmem.open(gm_home)
    hits = back.recall("written while the model was away", scopes=["main"], mode="vector")
    assert hits and hits[0].id == late.id and hits[0].scores["vector"] > 0.9


def test_warm_snapshot_refreshes_in_place_and_matches_a_fresh_one(store, gm_home):
    a = store.remember("alpaca wool is warm")
    b = store.remember("llama trekking in the andes")
    store.remember("vicuna fibre is rare", scope="channel/x")
    store.recall("alpaca", all_scopes=True)
    snap = store.index._snap
    other = gitmem.open(gm_home)  # another writer
    other.update(a.id, "alpaca wool is soft and warm")
    other.update(b.id, type="fact")  # moves the file
    c = other.remember("guanaco herds roam patagonia", scope="channel/x")
    queries = ["alpaca wool", "llama andes", "guanaco patagonia", "vicuna", "warm soft"]
    warm = [[(h.id, h.path, h.score) for h in store.recall(q, all_scopes=True, record=False)] for q in queries]
    assert store.index._snap is snap  # refreshed in place, not copied again
    fresh_store = gitmem.open(gm_home)
    fresh = [[(h.id, h.path, h.score) for h in fresh_store.recall(q, all_scopes=True, record=False)]
             for q in queries]
    assert warm == fresh
    assert warm[2][0][0] == c.id and warm[1][0][1].startswith("memories/fact/")


def test_progress_bar_used_for_large_builds(store):
    store.import_items([{"text": f"bulk memory number {i} about kestrels"} for i in range(300)])
    seen = []

    class Bar:
        def __init__(self, length, label):
            seen.append((length, label))
            self.done = 0

        def __enter__(self):
            return self

        def __exit__(self, *a):
            return False

        def update(self, n):
            self.done += n
            seen.append(self.done)

    hits = store.recall("kestrels number 7", progress=Bar)
    assert hits and seen[0] == (300, "embedding") and seen[-1] == 300


def test_warm_state_loads_nothing_until_warmed(store):
    store.remember("a warm daemon answers in milliseconds")
    rec = store.recaller
    assert rec.warm_state() == {"model": None, "backend": "bm25", "snapshot_chunks": 0, "snapshot_pending": 0}
    rec.warm()
    assert rec.warm_state() == {"model": "fake-64", "backend": "hybrid", "snapshot_chunks": 1,
                                "snapshot_pending": 0}
    store.import_items([{"text": f"bulk {i}"} for i in range(20)])
    rec.warm(embed_limit=5)  # words now, vectors later (a daemon starting after an import)
    assert rec.warm_state()["snapshot_chunks"] == 21 and rec.warm_state()["snapshot_pending"] == 20
    rec.close()
    assert rec.warm_state()["snapshot_chunks"] == 0


def test_lag_counts_commits_the_index_has_not_seen(store):
    store.remember("one")
    assert store.index.status()["lag"] == {"main": 1}  # never indexed: every commit
    store.recall("one")
    for text in ("two", "three"):
        store.remember(text)
    assert store.index.status()["lag"] == {"main": 2}
