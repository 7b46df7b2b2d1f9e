"""Dream's plan on texts whose values are written in forms new to the hand-written lists,
and on look-alike events that share a day and a time (issue 22, fourth pass): every two
texts of a store at one cosine, so only the guard and the evidence rules decide."""

from __future__ import annotations

import time

import numpy as np
import pytest

from gitmem.lifecycle.consolidate import make_plan


class EqualCosine:
    """Every two texts at cosine `c` (a shared axis plus one axis per text)."""

    model_id = "stub-equal-cosine"  # not "fake…": the real models' threshold (0.88) applies

    def __init__(self, c: float, n: int = 16):
        self.c, self.dim, self.n = c, n + 1, 0

    def embed(self, texts):
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for k in range(len(texts)):
            out[k, 0] = np.sqrt(self.c)
            out[k, 1 + (self.n + k) % (self.dim - 1)] = np.sqrt(1 - self.c)
        self.n += len(texts)
        return out


def plan_for(store, texts, c):
    ids = store.import_items([{"text": t, "created": f"2024-05-{i + 1:02d}", "importance": 9}
                              for i, t in enumerate(texts)]).created
    plan = make_plan(store.memories, "main", store.git.tip("main"), time.time(), {}, EqualCosine(c, len(texts)))
    return ids, plan


@pytest.mark.parametrize("texts", [
    ["车辆年检约在4月22日上午十点。", "车辆年检时间定在四月廿二日上午十点。"],  # 廿
    ["我的签证有效期到2026年5月31日。", "我的签证2026-05-31到期，有效期到那天。"],  # a date inside Chinese text
    ["这批货一共三千五百件。", "这批货一共3千5百件。"],  # digits with Chinese multipliers
    ["The flight to Singapore takes 13 hours.", "It's a thirteen-hour flight to Singapore."],
    ["Give the cat 2.5 ml of the antibiotic twice a day.", "Cat's antibiotic: 2.5 mL, two times daily."],
    ["NT檢查約在5月20日上午九點半，市婦幼保健院。", "五月二十号早上九点半去妇幼做NT"],  # Traditional / Simplified
], ids=["nian-twenty", "date-in-zh", "mixed-numerals", "hyphen-unit", "ml-twice", "traditional"])
def test_one_fact_in_forms_new_to_the_lists_merges(store, texts):
    ids, plan = plan_for(store, texts, 0.75)  # below the threshold, within the anchored margin
    assert [sorted([m["survivor"], *m["merged"]]) for m in plan.merges] == [sorted(ids)]


def test_the_paraphrase_with_the_most_detail_survives(store):
    texts = ["The boiler service is booked for Wednesday 9 April at 8:30am.",  # date, time and weekday
             "boiler service guy coming april 9th, half eight in the morning",
             "Boiler service: 09/04, 08:30."]
    ids, plan = plan_for(store, texts, 0.75)
    assert [(m["survivor"], sorted(m["merged"])) for m in plan.merges] == [(ids[0], sorted(ids[1:]))]


def test_between_two_as_detailed_the_sentence_survives(store):
    ids, plan = plan_for(store, ["Canada parcel: 3200 g.", "The parcel going to Canada weighs 3.2 kg."], 0.75)
    assert [m["survivor"] for m in plan.merges] == [ids[1]]


@pytest.mark.parametrize("texts", [
    ["周三上午十点跟客户开会。", "车辆年检约在周三上午十点。"],
    ["周五下午三点去接孩子。", "周五下午三点物业来修水管。"],
    ["Piano lesson on Tuesday at 10am.", "The plumber comes on Tuesday at 10am."],
], ids=["zh-meeting-inspection", "zh-pickup-repair", "en-lesson-plumber"])
def test_two_events_on_one_day_and_time_stay_two_memories(store, texts):
    # Chinese: no shared content character, so the shared time anchors nothing; English:
    # the vectors judge the subject (ten such pairs sit at 0.22-0.54 with the real model)
    c = 0.75 if "周" in texts[0] else 0.55
    _, plan = plan_for(store, texts, c)
    assert plan.merges == []


def test_a_value_only_one_text_states_does_not_keep_a_paraphrase_apart_and_a_differing_one_does(store):
    texts = ["Rent is $1,200.", "Rent is $1,200, due on the 1st of each month.", "Rent is $1,250, due on the 1st."]
    ids, plan = plan_for(store, texts, 0.9)
    assert [(m["survivor"], m["merged"]) for m in plan.merges] == [(ids[1], [ids[0]])]


def test_an_older_text_never_survives_a_much_newer_one(store):
    # Months apart, a merge may have joined an update to what it replaced: the newer stays.
    texts = ["The parcel going to Canada weighs 3.2 kg.", "Canada parcel: 3200 g."]
    ids = store.import_items([{"text": texts[0], "created": "2024-01-05", "importance": 9},
                              {"text": texts[1], "created": "2024-05-05", "importance": 9}]).created
    plan = make_plan(store.memories, "main", store.git.tip("main"), time.time(), {}, EqualCosine(0.75, 2))
    assert [(m["survivor"], m["merged"]) for m in plan.merges] == [(ids[1], [ids[0]])]


@pytest.mark.parametrize("texts", [
    ["盛达物流为暖冬行动认捐了两万元。", "暖冬行动 认捐：恒远建材 2万"],  # two donors
    ["《宏观经济学》的期末卷子要在1月8号前改完。", "微观 期末阅卷 1月8日截止"],  # macro / micro
    ["iOS 企业版签名证书 2026-05-30 到期", "iOS 推送证书（APNs）2026年5月30日到期"],  # two certificates
    # (two subscriptions, 腾讯视频 / 网易云音乐, are a kind now: test_kinds)
], ids=["donors", "macro-micro", "certificates"])
def test_two_chinese_texts_sharing_a_value_in_few_words_are_left_for_the_agent(store, texts):
    """Chinese look-alikes of clean halves that dream merged (heldout37, 39, 43): under
    CJK_CONTAINED of the shorter text's words shared, dream lists the pair for the agent
    (FEW_WORDS) and merges nothing."""
    from gitmem.lifecycle import grouping

    ids, plan = plan_for(store, texts, 0.75)
    assert plan.merges == []
    assert [(p["a"], p["b"], p["why"]) for p in plan.possible_updates] in (
        [(ids[0], ids[1], grouping.FEW_WORDS)], [(ids[1], ids[0], grouping.FEW_WORDS)])


@pytest.mark.parametrize("texts", [
    ["Tomasz's training slot on the mixing desk at the station is Tuesday at 6 pm.", "ngozi – desk training tue 6pm"],
    ["三舅的生日是农历八月十二。", "三舅妈生日 农历腊月初六"],
    ["三舅的生日是农历八月十二。", "三舅妈生日 农历八月十二"],
], ids=["possessive-name", "lunar-dates", "in-law"])
def test_heldout49_look_alikes_stay_two_memories_at_a_high_cosine(store, texts):
    _, plan = plan_for(store, texts, 0.95)
    assert plan.merges == [] and plan.supersessions == []


@pytest.mark.parametrize("texts", [
    ["Lachlan finished the Tweed Coast Half Marathon in 1:38:42.", "lachie tweed half 1:38:42 👍"],
    ["外公的生日是农历腊月初六。", "外公生日 腊月初六"],
], ids=["chip-time", "lunar"])
def test_one_fact_with_a_chip_time_or_a_lunar_date_merges(store, texts):
    ids, plan = plan_for(store, texts, 0.75)
    assert [sorted([m["survivor"], *m["merged"]]) for m in plan.merges] == [sorted(ids)]
