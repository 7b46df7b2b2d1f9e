"""The English dialogue set (tests/data/en_dialogue.json, issue 13): its shape, that it
is the Chinese set's twin (same users, sessions, dates and evidence keys), and (marked
`model`) hybrid at least each single ranking at R_any@10 with the default model."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import gitmem

from conftest import dialogue_set

DATA = Path(__file__).parent / "data"
EN, ZH = DATA / "en_dialogue.json", DATA / "zh_dialogue.json"


def test_the_english_set_has_its_shape():
    items, questions, data = dialogue_set("en_dialogue")
    text = {i["key"]: i["text"] for i in items}
    assert len(text) == len(items) >= 120 and len(questions) >= 60
    assert set(data["tuning"]).isdisjoint(data["held_out"]) and data["held_out"]
    assert {u["user"] for u in data["users"]} == set(data["tuning"]) | set(data["held_out"])
    for u in data["users"]:
        assert len(u["sessions"]) >= 4, u["user"]
        for s in u["sessions"]:
            roles = [t["text"].split(": ", 1)[0] for t in s["turns"]]
            assert roles == ["User", "Assistant"] * (len(roles) // 2), (u["user"], s["session"])
    asked = {q["user"] for q in questions}
    assert asked == {u["user"] for u in data["users"]}
    for q in questions:
        assert q["evidence"] and all(k in text for k in q["evidence"]), q["q"]
        assert all(k.startswith(q["user"] + "/") for k in q["evidence"])   # asked in its own scope
        body = q["q"].rstrip("?").lower()
        assert all(body not in text[k].lower() for k in q["evidence"])      # paraphrased, not quoted


def test_the_english_set_is_the_chinese_sets_twin():
    en, zh = json.loads(EN.read_text()), json.loads(ZH.read_text())
    assert (en["tuning"], en["held_out"]) == (zh["tuning"], zh["held_out"])

    def skeleton(d):
        return [(u["user"], s["session"], s["date"], [t["key"] for t in s["turns"]])
                for u in d["users"] for s in u["sessions"]]

    assert skeleton(en) == skeleton(zh)
    assert [(q["user"], q["evidence"]) for q in en["questions"]] == \
           [(q["user"], q["evidence"]) for q in zh["questions"]]


@pytest.mark.model
@pytest.mark.slow  # real model over 192 turns: run by CI's `-m slow` step
def test_english_dialogue_hybrid_at_least_each_ranking_at_10(real_model, gm_home):
    items, questions, _ = dialogue_set("en_dialogue")  # puts benchmarks/ on the path
    from recall_chinese import dialogue_scores

    store = gitmem.init(gm_home)
    store.import_items(items)
    for part in ("tuning", "held_out"):
        qs = [q for q in questions if q["part"] == part]
        r10 = {mode: dialogue_scores(store, qs, mode)["R_any@10"].mean() for mode in ("hybrid", "vector", "bm25")}
        assert r10["hybrid"] >= r10["vector"], (part, r10)
        assert r10["hybrid"] >= r10["bm25"], (part, r10)
