"""Chinese recall (issue 13): dates named in Chinese, a mixed Chinese/English store, and
(marked `model`) hybrid at least BM25 on the Chinese dialogue set with the default model."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import gitmem

from conftest import dialogue_set
from gitmem.recall.dates import query_window

UTC = dt.timezone.utc
DATA = Path(__file__).parent / "data"
ZH_DIGITS = "一二三四五六七八九"


def zh_numeral(n: int) -> str:
    """1-31 written in Chinese numerals (independently of the parser's own reading)."""
    tens, ones = divmod(n, 10)
    head = "" if tens == 0 else "十" if tens == 1 else ZH_DIGITS[tens - 1] + "十"
    return head + (ZH_DIGITS[ones - 1] if ones else "")


def day_of(ts: float) -> dt.date:
    return dt.datetime.fromtimestamp(ts, UTC).date()


CONTEXT = st.sampled_from([("", ""), ("我", "跟你说了什么来着？"), ("那天是", "吧"), ("", "的事情"),
                           ("请问", "我们聊过哪些计划")])


@given(st.dates(min_value=dt.date(1971, 1, 1), max_value=dt.date(2100, 12, 31)),
       st.sampled_from(["{Y}年{m}月{d}日", "{Y}年{m}月{d}号", "{Y} 年 {m} 月 {d} 日", "{m}月{d}日", "{m}月{d}号",
                        "{Y}年{m}月", "{Y}年"]),
       st.booleans(), CONTEXT)
def test_a_chinese_date_parses_to_its_window(day, fmt, numerals, ctx):
    num = zh_numeral if numerals else str
    text = ctx[0] + fmt.format(Y=day.year, m=num(day.month), d=num(day.day)) + ctx[1]
    # "5月9日" without a year is in the current year: now is some day of the date's year.
    now = dt.datetime(day.year, 7, 1, tzinfo=UTC).timestamp()
    a, b, words = query_window(text, now)
    if "{d}" in fmt:
        assert (day_of(a), day_of(b)) == (day, day + dt.timedelta(days=1))
    elif "{m}" in fmt:
        nxt = dt.date(day.year + (day.month == 12), day.month % 12 + 1, 1)
        assert (day_of(a), day_of(b)) == (day.replace(day=1), nxt)
    else:
        assert (day_of(a), day_of(b)) == (dt.date(day.year, 1, 1), dt.date(day.year + 1, 1, 1))
    assert words in text.replace(" ", "") or words in text


@given(st.datetimes(min_value=dt.datetime(1971, 2, 1), max_value=dt.datetime(2100, 11, 30)),
       st.sampled_from(["今天", "昨天", "前天", "上周", "上个星期", "上礼拜", "本周", "这周", "这个星期", "上个月",
                        "这个月", "本月", "今年", "去年"]), CONTEXT)
def test_a_relative_chinese_period_parses_to_its_window(when, word, ctx):
    now = when.replace(tzinfo=UTC)
    today = now.date()
    monday = today - dt.timedelta(days=today.weekday())
    first = today.replace(day=1)
    prev_first = (first - dt.timedelta(days=1)).replace(day=1)
    nxt_first = dt.date(first.year + (first.month == 12), first.month % 12 + 1, 1)
    week = dt.timedelta(days=7)
    one = dt.timedelta(days=1)
    expected = {
        "今天": (today, today + one), "昨天": (today - one, today), "前天": (today - 2 * one, today - one),
        "上周": (monday - week, monday), "本周": (monday, monday + week),
        "上个月": (prev_first, first), "这个月": (first, nxt_first),
        "今年": (dt.date(today.year, 1, 1), dt.date(today.year + 1, 1, 1)),
        "去年": (dt.date(today.year - 1, 1, 1), dt.date(today.year, 1, 1)),
    }
    expected.update({"上个星期": expected["上周"], "上礼拜": expected["上周"], "这周": expected["本周"],
                     "这个星期": expected["本周"], "本月": expected["这个月"]})
    a, b, words = query_window(ctx[0] + word + ctx[1], now.timestamp())
    assert (day_of(a), day_of(b)) == expected[word] and words == word


def test_chinese_text_without_a_date_names_no_window():
    now = dt.datetime(2024, 3, 14, tzinfo=UTC).timestamp()
    for text in ("我晚上周末都在家", "马上个月底", "五一假期去哪儿", "三个月前", "9号楼", "13月40日", "部署窗口"):
        assert query_window(text, now) is None, text


def test_a_chinese_query_naming_a_date_favours_a_memory_created_then(store):
    from test_recall_quality import set_recall

    store.import_items([
        {"text": "用户: 今天带我妈去医院体检，医生说她血压有点高", "created": "2024-03-09T21:00:00Z"},
        {"text": "用户: 我妈下个月要去医院复查", "created": "2024-04-20T21:00:00Z"},
        *({"text": f"用户: 今天去{p}了", "created": "2024-05-01T21:00:00Z"} for p in ("公园", "超市", "图书馆", "医院门口")),
    ])
    q = "2024年3月9号我带谁去医院了？"
    # The fake embedder counts as multilingual, so its (meaningless) vector side would
    # stay in the fusion; this test is about dates: BM25 decides.
    set_recall(store, date_weight=0, bm25_confidence=0)
    plain = store.recall(q, record=False, min_relevance=0)
    assert plain[0].created.startswith("2024-04-20")   # without the date, the other one wins
    set_recall(store, date_weight=0.5, bm25_confidence=0)
    hits = store.recall(q, record=False, explain=True)
    assert hits[0].created.startswith("2024-03-09")
    assert "period named ('2024年3月9号'" in hits[0].explain["why"]


def test_a_mixed_store_answers_english_and_chinese(store):
    from test_recall_quality import set_recall

    store.import_items([{"text": "The deploy window is Tuesday afternoon", "key": "en1"},
                        {"text": "Alice is allergic to peanuts", "key": "en2"},
                        {"text": "我们的部署窗口是每周二下午三点", "key": "zh1"},
                        {"text": "小王对花生过敏，聚餐时要避开", "key": "zh2"}])
    # Ranking across languages; the fake embedder's cosines know no paraphrase
    # ("allergy"/"allergic"), so relevance is left to tests/test_relevance.py.
    set_recall(store, min_relevance=0)
    assert store.recall("when is the deploy window", record=False)[0].key == "en1"
    assert store.recall("who has a peanut allergy", record=False)[0].key == "en2"
    assert store.recall("谁对花生过敏？", record=False)[0].key == "zh2"
    assert store.recall("部署时间是什么时候", record=False)[0].key == "zh1"


def test_the_dialogue_set_is_paraphrased_and_scoped():
    items, questions, data = dialogue_set("zh_dialogue")
    text = {i["key"]: i["text"] for i in items}
    assert len(data["users"]) >= 4 and len(items) >= 120 and len(questions) >= 60
    assert set(data["tuning"]).isdisjoint(data["held_out"]) and data["held_out"]
    for q in questions:
        assert q["evidence"] and all(k in text for k in q["evidence"])
        assert all(k.startswith(q["user"] + "/") for k in q["evidence"])   # asked in its own scope
        body = q["q"].rstrip("？?")
        assert all(body not in text[k] for k in q["evidence"])


def test_each_user_of_the_dialogue_set_is_its_own_scope(store):
    items, questions, _ = dialogue_set("zh_dialogue")
    store.import_items(items)
    q = questions[0]
    hits = store.recall(q["q"], k=50, scopes=[q["scope"]], record=False)
    assert hits and all(h.scope == q["scope"] for h in hits)


@pytest.mark.model
@pytest.mark.slow  # real model over 192 turns: run by CI's `-m slow` step
def test_dialogue_set_hybrid_at_least_bm25_with_the_default_model(real_model, gm_home):
    items, questions, _ = dialogue_set("zh_dialogue")  # puts benchmarks/ on the path
    from recall_chinese import dialogue_scores

    store = gitmem.init(gm_home)
    store.import_items(items)
    assert "English only" in store.index_status()["languages"]
    for part in ("tuning", "held_out"):
        qs = [q for q in questions if q["part"] == part]
        hybrid, bm25 = dialogue_scores(store, qs, "hybrid"), dialogue_scores(store, qs, "bm25")
        for m in ("R_any@5", "R_any@10", "MRR@10"):
            assert hybrid[m].mean() >= bm25[m].mean(), (part, m)
        assert hybrid["R_any@10"].mean() >= 0.9, part


def test_under_the_language_rule_every_bm25_hit_comes_before_vector_only_ones(store):
    from test_recall_quality import set_recall

    # No cosine floor, so every memory is a vector candidate.
    # No relevance floor either: vector-only hits are what this orders.
    set_recall(store, cjk_vector_weights={"fake-64": 0.0}, vector_floors={"fake-64": -1.0}, min_relevance=0)
    store.import_items([{"text": t} for t in (
        "我家的猫叫团子，是一只橘猫", "我养了一只狗", "周末去动物园看熊猫", "公司食堂周三供应饺子",
        "The cat sleeps all day", "Lunch at noon", "部署窗口在周二")])
    bm = [h.id for h in store.recall("我养的宠物叫什么", mode="bm25", record=False)]
    hits = [h.id for h in store.recall("我养的宠物叫什么", k=10, record=False)]
    assert 1 < len(bm) < len(hits)          # BM25's list is short; vectors add the rest
    assert hits[: len(bm)] == bm            # ... after every BM25 hit, its last one included


def test_a_question_in_traditional_characters_finds_a_note_in_simplified_and_back(store, gm_home):
    """One store, two scripts: 飼料 / 饲料, 體檢 / 体检 are one word (tokens.simplified)."""
    from test_recall_quality import set_recall

    store.import_items([{"text": "布丁每天早晚各吃一百克饲料", "key": "feed"},
                        {"text": "媽媽的體檢約在市婦幼保健院", "key": "checkup"},
                        {"text": "周末去公园跑步", "key": "run"}])
    set_recall(store, min_relevance=0)
    assert store.recall("布丁吃什麼飼料？", record=False)[0].key == "feed"
    assert store.recall("妈妈体检在哪里？", record=False)[0].key == "checkup"
