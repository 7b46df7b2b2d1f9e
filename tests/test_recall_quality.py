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
            items.append({"text": text, "importance": rnd.randint(1, 10), "type": "note"})
        store.import_items(items)
        store.recall("warm", k=1, record=False)
        yield store
    finally:
        if old is None:
            os.environ.pop("GITMEM_EMBED_MODEL", None)
        else:
            os.environ["GITMEM_EMBED_MODEL"] = old


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(words=st.lists(st.sampled_from(WORDS), min_size=1, max_size=4),
       k1=st.integers(1, 40), k2=st.integers(1, 40),
       mode=st.sampled_from(["hybrid", "bm25", "vector"]), fusion=st.sampled_from(["linear", "rrf"]),
       mmr=st.booleans())
def test_first_hits_do_not_depend_on_k(ranked_store, words, k1, k2, mode, fusion, mmr):
    k1, k2 = sorted((k1, k2))
    set_recall(ranked_store, fusion=fusion)
    q = " ".join(words)
    small = [(h.id, h.score) for h in ranked_store.recall(q, k=k1, mode=mode, mmr=mmr, record=False)]
    large = [(h.id, h.score) for h in ranked_store.recall(q, k=k2, mode=mode, mmr=mmr, record=False)]
    assert small == large[: len(small)]
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
    from conftest import run_cli
    import json

    store.remember("The deploy window is Tuesday afternoon")
    r = run_cli("recall", "deploy window", "--explain")
    assert r.returncode == 0, r.stderr
    assert "why: BM25 #1" in r.stdout and "fused" in r.stdout
    r = run_cli("recall", "deploy window", "--explain", "--json")
    ex = json.loads(r.stdout)[0]["explain"]
    assert set(ex) >= {"bm25", "vector", "fused", "final", "why"}
