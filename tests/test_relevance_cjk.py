"""Chinese relevance (issue 19): a Chinese hit is judged by the words model (coverage,
`known`, the best coverage) and, when the vector side was read, capped by the query's
gate: the store's best coverage, its best cosine and the content run (the longest
stretch of the query, two characters or more, that some memory holds as it stands,
counted in content characters); and by a second gate that also reads the question's
form (whether it speaks of the asker, whether it asks in general). Nonsense and
questions from other domains are left with nothing; a paraphrase about the store passes
the floor."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import dialogue_set, invoke_cli

import gitmem
from gitmem.recall import relevance
from test_relevance import QUIET_FAKE

DATA = Path(__file__).parent / "data"


def test_the_content_run_counts_shared_words_not_scattered_characters():
    run = relevance.content_run
    # 出差去 is a stretch the memory holds: three content characters.
    assert run("我爱人出差去哪儿了？", ["用户: 我老公下周三出差去成都，要待一个礼拜。"]) == 3
    assert run("我爱人出差了吗？", ["用户: 我老公下周三出差去成都。"]) == 2
    assert run("我女儿学小提琴多久了？", ["用户: 最近好忙，女儿报了个小提琴班。"]) == 3
    # 水, 多 and 少 are all in the memory, but never two of them side by side.
    assert run("水的比热容是多少？", ["助手: 痛风期间要少吃海鲜，多喝水。"]) == 0
    # A stretch of function characters only (有什么) counts nothing.
    assert run("TCP 和 UDP 有什么区别？", ["助手: 退休生活有什么打算吗？"]) == 0
    # Punctuation ends a stretch: 出，差 is not 出差.
    assert run("出，差", ["出差"]) == 0
    assert run("what is this", ["what is this"]) == 0 and run("小提琴", []) == 0


def test_the_gate_caps_the_words_model_and_reads_the_run_and_the_best_cosine_only_with_vectors():
    view = relevance.QueryView
    words = relevance.CJK_WORDS
    # With vectors: the lesser of the words model and the query's gate, never more than
    # the words model alone says (a cap, not a lift).
    for known, tcov, tcos, run in ((0.3, 0.1, 0.4, 0.0), (0.3, 0.1, 0.7, 2 / 3), (0.8, 0.9, 0.9, 1.0), (0.0, 0.05, 0.5, 0.0)):
        v = view(known, tcov, tcos, run, True)
        p = relevance.relevance("cjk", 0.1, 0.0, v)
        assert 0.0 < p <= words(0.1, 0.0, v)
        gates = [relevance.CJK_GATE(0.1, 0.0, v)] + ([relevance.CJK_FORM(0.1, 0.0, v)] if tcov < 0.5 else [])
        assert p == min([words(0.1, 0.0, v)] + gates)
    # A question the store offers nothing (weak best coverage and cosine, no shared word)
    # is held under the recall floor though its words alone would pass it.
    weak = view(0.5, 0.06, 0.3, 0.0, True)
    assert words(0.06, 0.0, weak) > 0.15 > relevance.relevance("cjk", 0.06, 0.0, weak)
    by_run = [relevance.relevance("cjk", 0.06, 0.0, view(0.5, 0.06, 0.45, r / 3, True)) for r in range(4)]
    by_cos = [relevance.relevance("cjk", 0.06, 0.0, view(0.5, 0.06, c / 10, 0.0, True)) for c in range(11)]
    assert by_run == sorted(by_run) and by_run[0] < by_run[-1]
    assert by_cos == sorted(by_cos) and by_cos[0] < by_cos[-1]
    # The hit's own cosine (an English model reading Chinese) has no say.
    assert relevance.relevance("cjk", 0.1, 0.9, view(0.3, 0.1, 0.4, 0.5, True)) == \
        relevance.relevance("cjk", 0.1, 0.0, view(0.3, 0.1, 0.4, 0.5, True))
    # Without vectors (BM25 mode, no model) neither the run nor a cosine counts: the
    # words-only model judges, so BM25-only matches are not punished for a missing side.
    no_vec = {relevance.relevance("cjk", 0.1, 0.0, view(0.3, 0.1, c, r, False)) for c in (0.0, 0.9) for r in (0, 1)}
    assert no_vec == {words(0.1, 0.0, view(0.3, 0.1, 0.0, 0.0, False))}


def test_the_question_form_reads_the_asker_and_a_general_question():
    form = relevance.question_form
    assert form("我女儿学小提琴多久了？") == (1.0, 0.0)
    assert form("那趟远行要去哪几座城？") == (1.0, 0.0)           # points back at something said
    assert form("学钢琴的孩子每天练多久合适？") == (0.0, 1.0)      # advice, no word of the asker
    assert form("为什么铁会生锈？") == (0.0, 1.0)
    assert form("我家孩子不爱吃青菜怎么办？") == (1.0, 1.0)
    assert form("台风过后步道倒了多少棵树？") == (0.0, 0.0)
    assert form("用户的妹妹现在在哪个城市？") == (1.0, 0.0)  # an agent asks of the user
    # Traditional script reads as Simplified; no Chinese at all, no form.
    assert form("那個碗為什麼會裂？") == form("那个碗为什么会裂？") == (1.0, 1.0)
    assert form("铁为什么会生锈？") == (0.0, 1.0) and form("生锈") == (0.0, 0.0)


@pytest.mark.parametrize("question", [
    "医院药房的药和外面药店卖的有什么区别？",   # a comparison
    "帮我解释一下Python里的装饰器",            # an explanation
    "墙面返潮发霉了怎么处理？",                 # how to do something
    "家里卫生间漏水漏到楼下，责任怎么划分？",
    "水文站平时都是做什么的？",
    "光合作用是什么？",
])
def test_a_general_question_by_comparison_explanation_or_how_to(question):
    """Forms of held_out28's questions from other domains that passed the prompt floor."""
    assert relevance.question_form(question)[1] == 1.0


@pytest.mark.parametrize("question", [
    "小雨和我是怎么认识的？",             # what happened: 是怎么…的
    "半夜有人打我车上燃料的主意，单位后来怎么处理？",
    "我女儿学小提琴多久了？",
])
def test_how_something_went_is_no_general_question(question):
    assert relevance.question_form(question)[1] == 0.0


def test_the_form_gate_leaves_a_general_question_out_of_the_prompt_before_one_of_the_asker():
    """Same store evidence (best coverage, best cosine, run): a question in a general form
    with no word of the asker falls under the prompt floor where the asker's own question
    passes; a general question the store matches strongly still passes."""
    from gitmem.core.schema import SCHEMA

    floor = float(SCHEMA["recall"].keys["prompt_min_relevance"].default)
    view = relevance.QueryView
    mid = dict(known=0.6, top_cov=0.15, top_cos=0.6, run=2 / 3, vectors=True)
    asker = relevance.relevance("cjk", 0.15, 0.0, view(**mid, own=1.0))
    general = relevance.relevance("cjk", 0.15, 0.0, view(**mid, general=1.0))
    plain = relevance.relevance("cjk", 0.15, 0.0, view(**mid))
    assert general < floor <= asker and general < plain < asker
    strong = dict(known=0.9, top_cov=0.6, top_cos=0.7, run=1.0, vectors=True)
    assert relevance.relevance("cjk", 0.6, 0.0, view(**strong, general=1.0)) >= floor
    # Recall's floor: the form gate leaves every gate-passing question where CJK_GATE put it.
    assert relevance.CJK_FORM(0.15, 0.0, view(**mid, general=1.0)) > float(SCHEMA["recall"].keys["min_relevance"].default)
    # Where one memory holds half the query's idf mass, its words settle it: no form gate.
    full = dict(mid, top_cov=relevance.FORM_COVERAGE)
    assert relevance.relevance("cjk", 0.5, 0.0, view(**full, general=1.0)) == relevance.relevance(
        "cjk", 0.5, 0.0, view(**full, own=1.0))
    # Without vectors the words model alone judges: the form has no say.
    bare = dict(mid, vectors=False)
    assert relevance.relevance("cjk", 0.15, 0.0, view(**bare, general=1.0)) == \
        relevance.relevance("cjk", 0.15, 0.0, view(**bare, own=1.0))


def _zh_store(gm_home):
    items, _, _ = dialogue_set("zh_dialogue")
    store = gitmem.init(gm_home, overrides={"recall": QUIET_FAKE})
    store.import_items(items)
    return store


def test_chinese_nonsense_finds_nothing_and_other_domains_stay_out_of_the_prompt_by_words(gm_home):
    """BM25 mode (no model), where only coverage, `known` and the store's best coverage
    judge: nonsense gets nothing from recall; of the unrelated Chinese questions of
    abstain.json's first tuning half, asked in u1's scope, at least 4 in 5 give the
    prompt nothing. (Recall itself leaves only about a third of them empty by words
    alone: BENCHMARKS.md, Issue 19.)"""
    store = _zh_store(gm_home)
    scope = ["channel/u1"]
    for q in ("嗯嗯啊啊", "咕噜咕噜哗啦啦", "囧囧囧", "xqzvblorft 哈哈"):
        assert store.recall(q, scopes=scope, mode="bm25", record=False) == [], q
    unrelated = json.loads((DATA / "abstain.json").read_text())["unrelated"]["zh"]["tuning"]
    shown = [q for q in unrelated if store.prompt_hits(store.recall(q, scopes=scope, mode="bm25", record=False))]
    assert len(shown) <= 0.2 * len(unrelated), shown
    # Without the floor they are answered: the floor is what empties them.
    assert all(store.recall(q, scopes=scope, mode="bm25", record=False, min_relevance=0) for q in unrelated)


def test_a_chinese_paraphrase_passes_the_floor_by_words(gm_home):
    store = _zh_store(gm_home)
    scope = ["channel/u1"]
    # 爱人 for 老公, 母亲 for 妈: the store says it otherwise.
    for q, word in (("我爱人出差去哪儿了？", "成都"), ("我母亲体检查出什么问题了？", "血压")):
        hits = store.recall(q, scopes=scope, mode="bm25", record=False)
        assert any(word in h.text for h in hits[:3]), (q, [(h.text[:20], h.relevance) for h in hits])


@pytest.mark.model
def test_chinese_with_the_english_model_abstains_and_keeps_a_paraphrase(real_model, gm_home):
    """The default install: an English-only model, so a Chinese query is ranked by words
    and judged by the words model capped by the gate (best coverage, best cosine, run)."""
    items, _, _ = dialogue_set("zh_dialogue")
    store = gitmem.init(gm_home)
    store.import_items(items)
    scope = ["channel/u1"]
    res = store.search("我爱人出差去哪儿了？", scopes=scope, record=False, explain=True)
    assert res.info["relevance"]["side"] == "cjk" and res.info["relevance"]["run"] > 0
    assert any("成都" in h.text for h in res.hits[:3])
    # Nonsense gets nothing; questions from other domains, everyday ones among them, get
    # nothing in the prompt; recall, whose floor keeps every paraphrase, leaves only some
    # of them empty (about a third to a half over the tuning sets: BENCHMARKS.md).
    assert store.recall("嗯嗯啊啊", scopes=scope, record=False) == []
    unrelated = ("青霉素是谁发现的？", "JVM 垃圾回收怎么调优？", "柏林墙是哪一年倒塌的？", "台风和飓风有什么不一样？")
    got = {q: store.recall(q, scopes=scope, record=False) for q in unrelated}
    assert not any(store.prompt_hits(hits) for hits in got.values()), got
    assert got["JVM 垃圾回收怎么调优？"] == [], {q: len(h) for q, h in got.items()}
    # The run and the best cosine are the store's, not the hits shown: the same for any -k.
    small = store.recall("我爱人出差去哪儿了？", k=2, scopes=scope, record=False, min_relevance=0)
    large = store.recall("我爱人出差去哪儿了？", k=30, scopes=scope, record=False, min_relevance=0)
    assert [h.relevance for h in small] == [h.relevance for h in large[:2]]


@pytest.mark.model
def test_everyday_questions_in_a_general_form_stay_out_of_the_prompt(real_model, gm_home):
    """Everyday questions that share a word with the chat (高铁, 酒店, 医院, 孩子) but ask in
    general, with no word of the asker: the prompt gets nothing (before the question's
    form was read, each of them put two or three turns in it). The asker's own questions,
    paraphrased, still bring their evidence."""
    items, _, _ = dialogue_set("zh_dialogue")
    store = gitmem.init(gm_home)
    store.import_items(items)
    scope = ["channel/u1"]
    for q in ("高铁上能带充电宝吗？", "酒店退房时间一般是几点？", "医院挂号一般要提前多久？", "孩子几岁开始学乐器比较合适？"):
        hits = store.recall(q, scopes=scope, record=False)
        assert store.prompt_hits(hits) == [], (q, [(h.text[:20], h.relevance) for h in hits[:3]])
        assert store.recall(q, scopes=scope, record=False, min_relevance=0)  # ranked, only judged irrelevant
    for q, word in (("我那辆车要修多久？", "十天"), ("我对什么水果过敏？", "芒果"), ("我爱人出差去哪儿了？", "成都")):
        shown = store.prompt_hits(store.recall(q, scopes=scope, record=False))
        assert any(word in h.text for h in shown), (q, [(h.text[:20], h.relevance) for h in shown])
    # --explain says what it read of the question's form.
    res = invoke_cli("recall", "酒店退房时间一般是几点？", "--scope", "channel/u1", "--explain", "--min-relevance", "0")
    assert res.returncode == 0 and "the question asks in general" in res.stderr, res.stderr
    res = invoke_cli("recall", "我对什么水果过敏？", "--scope", "channel/u1", "--explain")
    assert res.returncode == 0 and "the question speaks of the asker" in res.stderr, res.stderr


@pytest.mark.model
def test_an_english_query_against_chinese_memories_is_judged_by_words(real_model, gm_home):
    """The English model reads Chinese as characters: its cosine between an English query
    and a Chinese memory (0.4-0.5 for a keyboard mash) is no sign of relevance, so such a
    hit is judged by its words. A mash gets nothing; a word the memory holds still counts."""
    items, _, _ = dialogue_set("zh_dialogue")
    store = gitmem.init(gm_home)
    store.import_items(items)
    scope = ["channel/u1"]
    assert store.recall("hjkdf weruo xcvbq", scopes=scope, record=False) == []
    assert store.recall("qwpo zmxn lkjh", scopes=scope, record=False) == []
    anything = store.recall("hjkdf weruo xcvbq", scopes=scope, record=False, min_relevance=0)
    assert anything  # still ranked, only judged by words
    assert max(h.relevance for h in anything) < 0.15
    store.remember("用户: 我在用 Notion 记每天的开销。", scope="channel/u1")
    found = store.recall("Notion", scopes=scope, record=False)
    assert found and "Notion" in found[0].text
