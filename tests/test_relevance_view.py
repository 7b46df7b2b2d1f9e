"""What the store offers a query as a whole (issue 19): relevance reads, besides the
hit's own coverage and cosine, the best coverage and the best cosine any memory of the
searched scopes reaches (QueryView). That view is the same whatever -k is; a cosine
counts above the model's vector floor; Chinese judged by words still abstains on
nonsense and keeps a paraphrase that shares few words with its evidence."""

from __future__ import annotations

import pytest
from conftest import dialogue_set

import gitmem
from gitmem.recall import relevance
from test_relevance import QUIET_FAKE, TINY


def test_a_cosine_counts_above_the_vector_floor():
    assert relevance.features(None, 0.0, 0.6, 0.2) == (0.0, pytest.approx(0.5))
    assert relevance.features(None, 0.0, 0.15, 0.2) == (0.0, 0.0)
    assert relevance.features(None, 0.0, 1.0, 0.2) == (0.0, 1.0)
    assert relevance.features(2.0, 4.0, None, 0.2) == (0.5, 0.0)
    # The store's best match lifts every hit of the query: the same hit is more likely
    # relevant when something in the store answers the question well.
    weak, strong = relevance.QueryView(top_cov=0.1, top_cos=0.1), relevance.QueryView(top_cov=0.6, top_cos=0.5)
    assert relevance.relevance("hybrid", 0.1, 0.1, strong) > relevance.relevance("hybrid", 0.1, 0.1, weak)


def test_the_view_is_the_best_match_and_the_same_for_any_k(gm_home):
    store = gitmem.init(gm_home)
    store.import_items(TINY + [{"text": "Lunch: the team orders pizza on Fridays"}])
    views = []
    for k in (1, 3, 20):
        res = store.search("when does the nightly build run", k=k, all_scopes=True, record=False, explain=True,
                           min_relevance=0)
        views.append(res.info["relevance"])
    assert views[0] == views[1] == views[2]
    every = store.search("when does the nightly build run", k=20, all_scopes=True, record=False, explain=True,
                         min_relevance=0).hits
    assert views[0]["top_cov"] == pytest.approx(max(h.explain["relevance"]["coverage"] for h in every), abs=1e-5)
    assert views[0]["top_cos"] == pytest.approx(max(h.explain["relevance"]["cosine"] for h in every), abs=1e-5)
    assert views[0]["top_cov"] > 0 and views[0]["top_cos"] > 0


def test_chinese_by_words_abstains_on_nonsense_and_keeps_a_paraphrase(gm_home):
    """The cjk side reads no cosine, so BM25 mode with the fake embedder is how it runs
    with an English-only model too."""
    items, _, _ = dialogue_set("zh_dialogue")
    store = gitmem.init(gm_home, overrides={"recall": QUIET_FAKE})
    store.import_items(items)
    scope = ["channel/u1"]
    for q in ("嗯嗯啊啊", "咕噜咕噜哗啦啦", "囧囧囧", "哈哈哈哈哈"):
        assert store.recall(q, scopes=scope, mode="bm25", record=False) == [], q
    # "my girl" (闺女) and "instrument" (乐器): the store says 女儿 and 小提琴.
    hits = store.recall("我闺女在学什么乐器？", scopes=scope, mode="bm25", record=False)
    assert any("小提琴" in h.text for h in hits[:3]), [(h.text[:30], h.relevance) for h in hits]
