"""Recall ranking properties (issue 13): stable ranking, explain, neighbours, dates in
recall, language awareness, timeouts. Fake embedder unless marked `model`."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import gitmem

WORDS = ("deploy window tuesday lunch noon cafeteria python tabs spaces review merge branch "
         "release train friday coffee budget travel hotel flight paris tokyo garden tomato "
         "violin lesson doctor dentist invoice tax report meeting standup retro sprint").split()


def set_recall(store, **values) -> None:
    """Change [recall] settings of a live store's recaller (tests only)."""
    import dataclasses

    rec = store.recaller
    data = {sec: dict(v) for sec, v in rec.config.data.items()}
    data.setdefault("recall", {}).update(values)
    rec.config = dataclasses.replace(rec.config, data=data)


@pytest.fixture(scope="module")
def ranked_store(tmp_path_factory):
    """120 memories of random word bags (duplicates included, so ties occur), a small
    candidate depth so that k both below and above it is exercised."""
    import os

    home = tmp_path_factory.mktemp("stable") / "gitmem"
    old = os.environ.get("GITMEM_EMBED_MODEL")
    os.environ["GITMEM_EMBED_MODEL"] = "fake-64"
    try:
        store = gitmem.init(home, overrides={"recall": {"candidates": 12, "vector_floors": {"fake-64": 0.3}}})
        rnd = random.Random(13)
        items = []
        for i in range(120):
            text = " ".join(rnd.choice(WORDS) for _ in range(rnd.randint(2, 7)))
            if i % 17 == 0 and items:
                text = items[-1]["text"]  # exact duplicates tie on both sides
            # A few shared instants: sessions whose turns are neighbours; dates to name.
            items.append({"text": text, "importance": rnd.randint(1, 10), "type": "note",
                          "created": f"2024-0{rnd.randint(1, 3)}-1{rnd.randint(0, 2)}T10:00:00Z"})
        store.import_items(items)
        store.recall("warm", k=1, record=False)
        yield store
    finally:
        if old is None:
            os.environ.pop("GITMEM_EMBED_MODEL", None)
        else:
            os.environ["GITMEM_EMBED_MODEL"] = old


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(words=st.lists(st.sampled_from(WORDS), min_size=1, max_size=4),
       k1=st.integers(1, 40), k2=st.integers(1, 40),
       mode=st.sampled_from(["hybrid", "bm25", "vector"]), fusion=st.sampled_from(["linear", "rrf"]),
       mmr=st.booleans(), when=st.sampled_from(["", " in February 2024", " on 11 March 2024"]),
       neighbours=st.sampled_from([0.0, 0.5]))
def test_first_hits_do_not_depend_on_k(ranked_store, words, k1, k2, mode, fusion, mmr, when, neighbours):
    k1, k2 = sorted((k1, k2))
    set_recall(ranked_store, fusion=fusion, neighbour_weight=neighbours)
    q = " ".join(words) + when
    # At the default relevance floor: the same first hits, each as relevant at any k.
    small = ranked_store.recall(q, k=k1, mode=mode, mmr=mmr, record=False)
    large = ranked_store.recall(q, k=k2, mode=mode, mmr=mmr, record=False)
    assert [h.id for h in small] == [h.id for h in large[: len(small)]]
    assert [h.relevance for h in small] == [h.relevance for h in large[: len(small)]]
    assert all(0.0 <= h.relevance <= 1.0 for h in large)
    # Without the floor (the candidate depth grows with k past `candidates`, so a floor
    # can leave a small k fewer hits than it asked for): the whole ranking.
    small = ranked_store.recall(q, k=k1, mode=mode, mmr=mmr, record=False, min_relevance=0)
    large = ranked_store.recall(q, k=k2, mode=mode, mmr=mmr, record=False, min_relevance=0)
    assert [h.id for h in small] == [h.id for h in large[: len(small)]]
    # Scores too (recency moves them by ~1e-11 between the two calls: rounding may flip).
    assert [h.score for h in small] == pytest.approx([h.score for h in large[: len(small)]], abs=2e-6)
    assert len(small) == min(k1, len(large))


def test_explain_gives_each_side_its_rank_score_and_why(store):
    a = store.remember("The deploy window is Tuesday afternoon", importance=8).id
    store.remember("Ship releases on Tuesday")
    store.remember("Lunch at noon")
    hits = store.recall("deploy window tuesday", explain=True, record=False)
    bm = store.recall("deploy window tuesday", mode="bm25", k=50, record=False)
    assert hits[0].id == a
    ex = hits[0].explain
    assert ex["bm25"]["rank"] == 1 and ex["bm25"]["score"] == pytest.approx(bm[0].scores["bm25"], abs=1e-5)
    assert ex["vector"]["rank"] >= 1 and -1 <= ex["vector"]["similarity"] <= 1
    assert ex["fused"] == pytest.approx(ex["bm25"]["part"] + ex["vector"]["part"], abs=1e-5)
    assert ex["final"] == pytest.approx(hits[0].score, abs=1e-5)
    assert ex["final"] == pytest.approx(ex["fused"] * ex["recency_factor"] * ex["importance_factor"], abs=1e-4)
    assert "BM25 #1" in ex["why"] and "importance 8" in ex["why"]
    bm_ranks = {h.id: i for i, h in enumerate(bm, 1)}
    for h in hits:
        if h.explain["bm25"]:
            assert h.explain["bm25"]["rank"] == bm_ranks[h.id]
    # Without explain, nothing extra is computed or sent.
    assert store.recall("deploy window", record=False)[0].explain is None


def test_cli_explain_table_and_json(store):
    from conftest import invoke_cli
    import json

    store.remember("The deploy window is Tuesday afternoon")
    r = invoke_cli("recall", "deploy window", "--explain")
    assert r.returncode == 0, r.stderr
    assert "why: BM25 #1" in r.stdout and "fused" in r.stdout
    r = invoke_cli("recall", "deploy window", "--explain", "--json")
    ex = json.loads(r.stdout)[0]["explain"]
    assert set(ex) >= {"bm25", "vector", "fused", "final", "why"}


def test_an_import_batch_keeps_its_order_in_ids(store):
    items = [{"text": f"turn number {i}", "key": f"t{i}"} for i in range(60)]
    store.import_items(items)
    by_key = {m.key: m.id for m in store.list()}
    ids = [by_key[f"t{i}"] for i in range(60)]
    assert ids == sorted(ids)


def _dialogue(store, created="2023-05-08T13:56:00Z"):
    turns = ["Alice: what is the wifi password at the cabin?",
             "Bob: it is taped under the kettle, blue sticker",
             "Alice: great, and the boat keys?",
             "Bob: hanging by the door"]
    store.import_items([{"text": t, "key": f"d{i}", "created": created} for i, t in enumerate(turns)])


def test_neighbours_share_by_default(store):
    _dialogue(store)
    hits = store.recall("wifi password", k=2, record=False, explain=True)
    assert [h.key for h in hits] == ["d0", "d1"]  # the answer, beside the matching question
    assert "beside " + hits[0].id in hits[1].explain["why"]


def test_memories_dated_by_their_write_are_not_a_session(store):
    # Written in the same second (and a batch without dates): same `created`, no session.
    store.remember("alpha bravo charlie")
    store.remember("delta echo foxtrot")
    store.import_items([{"text": "golf hotel india"}, {"text": "juliet kilo lima"}])
    for q in ("alpha", "golf"):
        hits = store.recall(q, k=5, record=False, explain=True)
        assert len(hits) == 1 and "beside" not in hits[0].explain["why"], q


def test_the_turn_after_a_match_shares_its_score(store):
    from test_recall_quality import set_recall

    _dialogue(store)
    store.import_items([{"text": "Bob: kettle descaling is due", "key": "other", "created": "2023-06-01T10:00:00Z"}])
    set_recall(store, neighbour_weight=0.0)
    keys = [h.key for h in store.recall("wifi password", k=3, record=False)]
    assert "d1" not in keys   # shares no words with the query
    set_recall(store, neighbour_weight=0.5, neighbours="next")
    hits = store.recall("wifi password", k=3, record=False, explain=True)
    assert [h.key for h in hits][:2] == ["d0", "d1"]
    assert "beside " + hits[0].id in hits[1].explain["why"]
    # Only the next one with "next"; both with "both".
    beside = lambda hits: {h.key for h in hits if "beside" in h.explain["why"]}  # noqa: E731
    assert beside(store.recall("boat keys", k=4, record=False, explain=True)) == {"d3"}
    set_recall(store, neighbour_weight=0.5, neighbours="both")
    assert beside(store.recall("boat keys", k=4, record=False, explain=True)) == {"d1", "d3"}
    # A neighbour outside the filters stays out.
    assert not [h for h in store.recall("wifi password", k=5, record=False, type="fact")]


@pytest.mark.parametrize("query, day", [
    ("what did she say on 9 November 2022?", "2022-11-09"),
    ("what happened November 9th, 2022", "2022-11-09"),
    ("notes from 2022-11-09", "2022-11-09"),
    ("the 9th of Nov 2022 meeting", "2022-11-09"),
])
def test_query_window_names_a_day(query, day):
    import datetime as dt

    from gitmem.recall.dates import query_window

    a, b, _ = query_window(query, 0)
    assert dt.datetime.fromtimestamp(a, dt.timezone.utc).date().isoformat() == day
    assert b - a == 86400


@given(st.dates(min_value=__import__("datetime").date(1971, 1, 1), max_value=__import__("datetime").date(2100, 12, 31)),
       st.sampled_from(["on {d} {B} {Y}", "{B} {d}, {Y}", "{Y}-{m}-{dd}", "in {B} {Y}", "{b} {Y}", "in {Y}"]))
def test_query_window_contains_the_date_it_names(day, fmt):
    import datetime as dt

    from gitmem.recall.dates import query_window

    text = fmt.format(d=day.day, dd=f"{day.day:02d}", m=f"{day.month:02d}", B=day.strftime("%B"),
                      b=day.strftime("%b"), Y=day.year)
    a, b, _ = query_window("what happened " + text, 0)
    t = dt.datetime(day.year, day.month, day.day, 12, tzinfo=dt.timezone.utc).timestamp()
    assert a <= t < b


def test_relative_periods_and_no_date():
    import datetime as dt

    from gitmem.recall.dates import query_window

    now = dt.datetime(2024, 3, 14, 15, tzinfo=dt.timezone.utc).timestamp()   # a Thursday
    a, b, _ = query_window("what did we decide last week", now)
    assert dt.datetime.fromtimestamp(a, dt.timezone.utc).date() == dt.date(2024, 3, 4)
    assert b - a == 7 * 86400
    a, b, _ = query_window("yesterday's standup", now)
    assert dt.datetime.fromtimestamp(a, dt.timezone.utc).date() == dt.date(2024, 3, 13)
    assert query_window("deploy window on tuesday", now) is None
    assert query_window("may I ask about 2024 plans", now) is None


def test_a_query_naming_a_date_finds_memories_from_then(store):
    from test_recall_quality import set_recall

    store.import_items([{"text": "Caroline: the adoption agency called back", "created": "2022-11-09T18:00:00Z"},
                        {"text": "Caroline: I said hello to the painting group", "created": "2023-01-20T10:00:00Z"}])
    set_recall(store, date_weight=0)
    assert not store.recall("what did she say on 9 November 2022", record=False)
    set_recall(store, date_weight=0.5)   # the default (BENCHMARKS.md, rotation "dates")
    hits = store.recall("what did she say on 9 November 2022", record=False, explain=True)
    assert hits[0].text.startswith("Caroline: the adoption agency")
    assert "period named" in hits[0].explain["why"]
    assert len(hits) == 1


def _zh_set():
    import json
    from pathlib import Path

    return json.loads((Path(__file__).parent / "data" / "zh_recall.json").read_text())


def test_the_chinese_set_is_paraphrased():
    data = _zh_set()
    mems = dict(data["memories"])
    assert len(mems) >= 50 and len(data["questions"]) >= 50
    for key, q in data["questions"]:
        body = q.rstrip("？?")
        assert body not in mems[key]            # never the memory's own words verbatim


def test_cjk_query_leans_on_bm25_with_an_english_model(store):
    from test_recall_quality import set_recall

    set_recall(store, cjk_vector_weights={"fake-64": 0.0})
    store.remember("我们的部署窗口是每周二下午三点")
    store.remember("The deploy window is Tuesday")
    hits = store.recall("部署窗口", explain=True, record=False)
    note = store.last_recall["language"]
    bm = store.recall("部署窗口", mode="bm25", record=False)
    assert [h.id for h in hits] == [h.id for h in bm]
    assert all(h.explain["vector"] is None or h.explain["vector"]["part"] == 0 for h in hits)
    assert "CJK query" in hits[0].explain["why"] and "CJK query" in note
    # An English query in the same mixed store still uses both sides.
    hits = store.recall("deploy window", explain=True, record=False)
    assert hits[0].explain["vector"]["part"] > 0 and "language" not in store.last_recall


def _recall_at(store, data, k, mode):
    found = 0
    for key, q in data["questions"]:
        found += key in [h.key for h in store.recall(q, k=k, mode=mode, record=False)]
    return found / len(data["questions"])


@pytest.mark.model
def test_chinese_set_hybrid_at_least_bm25_with_the_default_model(real_model, gm_home):
    data = _zh_set()
    store = gitmem.init(gm_home)
    store.import_items([{"text": t, "key": k} for k, t in data["memories"]])
    assert "English only" in store.index_status()["languages"]
    for k in (1, 5):
        hybrid, bm25 = _recall_at(store, data, k, "hybrid"), _recall_at(store, data, k, "bm25")
        assert hybrid >= bm25, (k, hybrid, bm25)
    assert _recall_at(store, data, 5, "hybrid") >= 0.9


def test_timeout_answers_bm25_while_vectors_are_pending(store):
    store.remember("The deploy window is Tuesday afternoon")
    store.recall("deploy", record=False)           # index built, vectors for it
    store.import_items([{"text": f"note {i} about the release train"} for i in range(40)])
    hits = store.recall("release train", timeout_ms=0, record=False, explain=True)
    info = store.last_recall
    assert hits and info["backend"] == "bm25"
    assert info["vectors"] == {"ready": False, "pending": 40} and "not ready" in info["note"]
    assert all(h.explain["vector"] is None for h in hits)
    # Pending vectors survive another limited query, and a plain one embeds them.
    store.recall("release train", timeout_ms=0, record=False)
    assert store.last_recall["vectors"]["pending"] == 40
    hits = store.recall("release train", record=False, explain=True)
    assert store.last_recall["backend"] == "hybrid" and "vectors" not in store.last_recall
    assert hits[0].explain["vector"] is not None
    # A fresh process sees the file caught up.
    again = gitmem.open(store.home)
    again.recall("release train", timeout_ms=0, record=False)
    assert again.last_recall["vectors"] == {"ready": True, "pending": 0}


def test_timeout_with_a_small_batch_embeds_inline(store):
    store.remember("The deploy window is Tuesday afternoon")
    store.recall("deploy", record=False)
    store.remember("Coffee machine on floor two")
    store.recall("coffee", timeout_ms=5000, record=False)
    assert store.last_recall["vectors"] == {"ready": True, "pending": 0}
    assert store.last_recall["backend"] == "hybrid"


@pytest.mark.slow
def test_cli_timeout_json_says_vectors_pending_and_catches_up(store):
    import json
    import time

    from conftest import run_cli

    store.remember("The deploy window is Tuesday afternoon")
    store.recall("deploy", record=False)
    store.import_items([{"text": f"note {i} about the release train"} for i in range(30)])
    r = run_cli("recall", "release train", "--timeout", "0", "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["backend"] == "bm25" and out["vectors"]["ready"] is False and out["hits"]
    # The background catch-up finishes on its own (poll, no timed assert).
    for _ in range(600):
        st = gitmem.open(store.home).index_status()
        if st["index_vectors"] == st["index_chunks"]:
            break
        time.sleep(0.1)
    r = run_cli("recall", "release train", "--timeout", "0", "--json")
    assert json.loads(r.stdout)["vectors"] == {"ready": True, "pending": 0}


def test_cli_import_indexes_with_progress_unless_told_not_to(store, tmp_path):
    import json

    from conftest import invoke_cli

    src = tmp_path / "big.jsonl"
    src.write_text("".join(json.dumps({"text": f"memory {i} about topic {i % 7}"}) + "\n" for i in range(300)))
    r = invoke_cli("import", "--jsonl", str(src), "--no-index")
    assert r.returncode == 0, r.stderr
    assert gitmem.open(store.home).index_status()["index_chunks"] == 0
    assert "gitmem: " not in r.stderr  # a pipe without --progress: no progress lines
    src.write_text("".join(json.dumps({"text": f"second batch {i}"}) + "\n" for i in range(300)))
    r = invoke_cli("import", "--jsonl", str(src), "--progress")
    assert r.returncode == 0, r.stderr
    assert "gitmem: embedding 600/600" in r.stderr and "indexed: 600 chunks" in r.stderr
    assert "gitmem: checking 300/300" in r.stderr and "gitmem: writing 300/300" in r.stderr
    st = gitmem.open(store.home).index_status()
    assert st["index_chunks"] == st["index_vectors"] == 600


def test_a_bm25_hit_on_one_light_word_does_not_outweigh_meaning(store):
    # BM25's top hit shares only "get" with the query; the answer shares no word at all.
    # Scaled by its own range that hit would take BM25's full weight; scaled by what the
    # query's words could score (bm25_confidence), it weighs what it covers.
    from test_recall_quality import set_recall

    store.import_items([{"text": "I'm getting promoted next month", "key": "promo"},
                        {"text": "we can't have cats, my husband is allergic to them", "key": "cats"}])
    for i in range(30):
        store.import_items([{"text": f"filler note {i} about gardening tomatoes", "key": f"f{i}"}])
    q = "why can't we get a kitty, remind me"
    hits = store.recall(q, k=5, record=False, explain=True)
    factor = hits[0].explain["bm25_confidence"]
    assert factor is not None and 0 < factor < 1   # "get" is all BM25 found of the query
    full = store.recall("promoted next month", k=1, record=False, explain=True)[0]
    assert full.key == "promo" and full.explain["bm25_confidence"] == 1.0
    set_recall(store, bm25_confidence=0.0)
    off = store.recall(q, k=5, record=False, explain=True)
    assert off[0].explain["bm25_confidence"] == 1.0
    # With the scaling the BM25 part of any hit is at most its unscaled part.
    parts_on = {h.key: (h.explain["bm25"] or {}).get("part") or 0 for h in hits}
    parts_off = {h.key: (h.explain["bm25"] or {}).get("part") or 0 for h in off}
    assert all(parts_on[k] <= parts_off[k] + 1e-9 for k in parts_on if k in parts_off)


def test_neighbours_grown_after_a_write_match_a_full_rebuild(store):
    # (issue 21) A write appends rows to the warm snapshot: the neighbours kept from the
    # last recall grow by the new rows only, and must equal a rebuild from scratch.
    from gitmem.recall.neighbours import Neighbours
    _dialogue(store)
    store.import_items([{"text": "Carol: lunch at noon", "key": "o0", "created": "2022-01-01T09:00:00Z"}])
    snap = store.index.snapshot()
    kept = Neighbours()
    kept.rows(snap)
    store.import_items([{"text": t, "key": f"n{i}", "created": c} for i, (t, c) in enumerate([
        ("Alice: and the wood stove?", "2023-05-08T13:56:00Z"),
        ("Carol: at the usual place", "2022-01-01T09:00:00Z"),
        ("Dan: a new session starts", "2021-03-03T03:00:00Z"),
        ("Dan: and goes on", "2021-03-03T03:00:00Z")])])
    store.remember("a note gitmem dates itself")
    grown = store.index.snapshot()
    assert grown is snap and grown.size > 5  # the warm snapshot took the rows in place
    got, want = kept.rows(grown), Neighbours().rows(grown)
    assert got[0].tolist() == want[0].tolist() and got[1].tolist() == want[1].tolist()
    assert sum(1 for v in want[1].tolist() if v >= 0) == 6  # d0-d1-d2-d3-n0, o0-n1, n2-n3
