"""Recall's stricter judgement of "the newer hit updates the older" (issue 22, the
recall side of item 2): what `judge(strict=True)` acts on and what `currency.settle`
moves. Pure functions over texts and hand-made hits; sentences not taken from any data
set."""

from __future__ import annotations

import pytest

from gitmem.memories import updates
from gitmem.recall import currency
from gitmem.recall.hits import Hit


def hit(i: str, text: str, created: str) -> Hit:
    return Hit(id=i, key=None, scope="default", type="note", path=f"memories/{i}.md", start_line=1,
               end_line=1, score=1.0, scores={}, snippet=text, commit=None, created=created, text=text)


def strict(older: str, newer: str, sim: float | None = None) -> str | None:
    return updates.judge(older, newer, sim, older_created="2024-01-01T00:00:00Z",
                         newer_created="2024-06-01T00:00:00Z", strict=True).kind


def test_speaker_labels_of_conversation_turns():
    assert updates.speaker("Caroline: I went hiking") == "Caroline"
    assert updates.speaker("助手：好的") == "助手"
    assert updates.speaker("User: hi") == "User"
    assert updates.speaker("Mary Ann: hello") == "Mary Ann"
    for text in ("Standup is at 10:15 now.", "See https://example.org", "Timestamps in logs: always UTC.",
                 "Deploy day: Thursday"):
        assert updates.speaker(text) is None


def test_two_conversation_turns_are_reported_but_not_acted_on():
    older, newer = "User: I live in Leeds, near the canal.", "User: We moved to York, the new flat is near the canal."
    assert updates.judge(older, newer, 0.7).kind == "update"   # the write side still reports it
    assert strict(older, newer, 0.7) is None                     # recall leaves chat turns in their order
    assert strict("I live in Leeds, near the canal.", "We moved to York, the new flat is near the canal.", 0.7) \
        == "update"                                              # the same two statements, unlabelled


@pytest.mark.parametrize("older,newer", [
    ("我现在晚上改成游泳，不再跑步了。", "现在我不再坐地铁，换成骑车上班了。"),  # they share only cue words
    ("新版官网五月上线。", "我上个月搬到了杭州。"),                              # and lone characters (上, 月)
])
def test_chinese_cue_words_and_lone_characters_are_no_shared_subject(older, newer):
    assert updates.judge(older, newer, None).kind == "update"   # loose: what a write reports
    assert strict(older, newer) is None


def test_chinese_update_with_a_shared_word_is_acted_on():
    assert strict("我每天坐地铁上班。", "我现在不再坐地铁，改成骑车上班了。") == "update"


def test_a_weak_cue_next_to_the_shared_subject_counts():
    assert strict("My dentist is Dr Alvarez.", "I have a new dentist, Dr Okafor, since March.", 0.45) == "update"
    assert strict("My dentist is Dr Alvarez.", "Now that spring is here the dentist reminded me to floss.",
                  0.45) is None


def test_a_value_raised_is_a_change():
    assert strict("The upload limit is 10 MB.", "The upload limit was raised to 50 MB.", 0.8) == "update"
    assert updates.cues("接口超时提高到五秒。") == ("提高到",)


def test_after_a_time_or_a_date_yihou_is_no_change():
    """国庆订了…10月2日下午两点以后可以入场 superseded a thesis defence on 3月20日下午两点
    in dream (heldout28): 以后 after a time says "after", after an event a change."""
    assert updates.cues("国庆订了青螺湾露营地的A12营位，10月2日下午两点以后可以入场。") == ()
    assert updates.cues("青螺湾营地 A12 10/2 14:00以后入场") == ()
    assert updates.cues("换届以后，我们这片的区人大代表是丁秀梅。") == ("以后",)


def test_settle_moves_the_newer_above_the_older():
    old = hit("a", "Our team wiki is on Confluence.", "2023-01-01T00:00:00Z")
    other = hit("x", "Lunch is at noon.", "2023-02-01T00:00:00Z")
    new = hit("n", "We moved the team wiki to Notion.", "2024-01-01T00:00:00Z")
    got = currency.settle([old, other, new], {}, 10, include_superseded=False, prefer_newer=True)
    assert [h.id for h in got] == ["n", "a", "x"]


def test_a_superseded_hit_is_not_passed_on_its_way_out():
    # "a" is superseded by a memory not in the list: it goes, and "n" must not take its place.
    old = hit("a", "Our team wiki is on Confluence.", "2023-01-01T00:00:00Z")
    other = hit("x", "Lunch is at noon.", "2023-02-01T00:00:00Z")
    new = hit("n", "We moved the team wiki to Notion.", "2024-01-01T00:00:00Z")
    got = currency.settle([old, other, new], {"a": ("s",)}, 10, include_superseded=False, prefer_newer=True)
    assert [h.id for h in got] == ["x", "n"]


def test_settle_leaves_conversation_turns_in_their_order():
    turns = [hit("t1", "User: I live in Leeds, near the canal.", "2023-01-01T00:00:00Z"),
             hit("t2", "Assistant: Leeds has lovely canal walks.", "2023-01-01T00:00:00Z"),
             hit("t3", "User: We moved to York, the new flat is near the canal.", "2024-01-01T00:00:00Z")]
    got = currency.settle(turns, {}, 10, include_superseded=False, prefer_newer=True)
    assert [h.id for h in got] == ["t1", "t2", "t3"]


def test_a_weak_cue_between_two_hits_on_the_query_topic_counts():
    older, newer = "My usual gym is FitBox.", "These days I train at home; FitBox closed."
    assert strict(older, newer, 0.45) is None
    assert updates.judge(older, newer, 0.45, strict=True, on_topic=True).kind == "update"
    assert updates.judge("User: " + older, "User: " + newer, 0.45, strict=True, on_topic=True).kind is None
    # In recall, by the hits' relevance (no vectors here: a Chinese pair, judged by its words).
    older, newer = "我常去的健身房是动力馆。", "现在我在家锻炼，动力馆关门了。"
    assert strict(older, newer) is None
    old, new = hit("g", older, "2023-01-01T00:00:00Z"), hit("h", newer, "2024-01-01T00:00:00Z")
    old.relevance, new.relevance = 0.9, 0.3
    assert [h.id for h in currency.settle([old, new], {}, 10, include_superseded=False, prefer_newer=True)] == ["g", "h"]
    new.relevance = 0.7
    assert [h.id for h in currency.settle([old, new], {}, 10, include_superseded=False, prefer_newer=True)] == ["h", "g"]


def test_a_successor_takes_the_place_of_the_memory_it_replaced():
    old = hit("a", "I live in Leeds.", "2023-01-01T00:00:00Z")
    other = hit("x", "My brother lives in Hull.", "2023-02-01T00:00:00Z")
    new = hit("n", "We moved to York.", "2024-01-01T00:00:00Z")
    got = currency.settle([old, other, new], {"a": ("n",)}, 10, include_superseded=False, prefer_newer=False)
    assert [h.id for h in got] == ["n", "x"]
    # A chain a <- b <- n: the end of the chain takes the place.
    mid = hit("b", "We moved to Hull.", "2023-06-01T00:00:00Z")
    got = currency.settle([old, other, mid, new], {"a": ("b",), "b": ("n",)}, 10, include_superseded=False,
                          prefer_newer=False)
    assert [h.id for h in got] == ["n", "x"]
    shown = currency.settle([old, other, new], {"a": ("n",)}, 10, include_superseded=True, prefer_newer=False)
    assert [h.id for h in shown] == ["n", "a", "x"]  # shown: right below its successor


def test_a_note_in_one_language_is_no_update_of_a_note_in_the_other():
    english = "Our CI runs on Jenkins."
    chinese = "我们的持续集成已经换成 GitLab CI 了。"
    assert strict(english, chinese) is None and strict(chinese, "We switched our CI to GitHub Actions.", 0.5) is None
    assert strict("Our CI runs on Jenkins.", "We switched our CI to GitHub Actions.", 0.5) == "update"
