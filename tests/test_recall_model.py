"""Recall with the real embedding model (offline copy in ../shared/models)."""

import pytest

import gitmem
from gitmem.core.tokens import tokenize

pytestmark = pytest.mark.model


@pytest.fixture
def mstore(real_model, gm_home):
    s = gitmem.init(gm_home)
    s.remember("The cat is sleeping on the sofa")
    s.remember("Quarterly revenue grew by ten percent")
    s.remember("I am flying to Berlin next week for the conference")
    s.remember("我们的部署窗口是每周二下午三点")
    return s


def test_paraphrase_without_shared_words_found_by_vector_side(mstore):
    query = "kitten napping on couch"
    target = "The cat is sleeping on the sofa"
    assert not set(tokenize(query)) & set(tokenize(target))
    assert mstore.recall(query, mode="bm25") == []
    hits = mstore.recall(query)
    assert hits and hits[0].snippet == target
    assert hits[0].scores["bm25"] is None and hits[0].scores["vector"] > 0.3
    assert mstore.status()["backend"] == "hybrid"
    assert mstore.status()["model"] == "sentence-transformers/all-MiniLM-L6-v2"


def test_english_hybrid_ranks_the_right_memory_first(mstore):
    hits = mstore.recall("travel plans for next week")
    assert hits[0].snippet.startswith("I am flying to Berlin")


def test_chinese_query_found_by_bm25_side_with_english_model(mstore):
    hits = mstore.recall("部署窗口")
    assert hits[0].snippet.startswith("我们的部署窗口")
    assert hits[0].scores["bm25"] > 0


def test_unrelated_query_is_empty(mstore):
    assert mstore.recall("zzqx vvbn") == []
