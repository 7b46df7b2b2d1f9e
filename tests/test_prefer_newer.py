"""Recall prefers the newer of two hits about one subject with no change cue (issue 22,
`currency.newest_first`). Fake embedder (tests/conftest.py); sentences written for this
test, or quoted from the tuning set named beside them."""

from __future__ import annotations

import pytest

import gitmem
from gitmem.recall import currency
from gitmem.recall.hits import Hit

QUERY = "Where does the staging database run?"
OLDER = {"text": "The staging database runs on Postgres in the Frankfurt region.",
         "created": "2023-01-10T09:00:00Z"}
NEWER = {"text": "The staging database: Postgres, Dublin region.", "created": "2024-03-05T09:00:00Z"}
UNRELATED = [{"text": "Office plants get watered on Fridays.", "created": "2023-02-01T09:00:00Z"},
             {"text": "The staging database runs nightly backups to cold storage.",
              "created": "2023-01-11T09:00:00Z"}]


def ids(store, query: str) -> list[str]:
    return [h.id for h in store.recall(query, k=10, record=False)]


def test_the_newer_of_a_same_subject_pair_with_no_cue_goes_first(tmp_path):
    store = gitmem.init(tmp_path / "home")
    store.import_items([OLDER, NEWER, *UNRELATED])
    by_text = {m.text: m.id for m in store.list()}
    old, new = by_text[OLDER["text"]], by_text[NEWER["text"]]
    plain = gitmem.open(store.home, overrides={"recall": {"prefer_newer": False}})
    before = ids(plain, QUERY)
    assert before.index(old) < before.index(new)  # the ranking alone puts the older first
    after = ids(store, QUERY)
    assert after.index(new) == after.index(old) - 1 and set(after) == set(before)


def hit(i: str, text: str, created: str, relevance: float = 0.9) -> Hit:
    return Hit(id=i, key=None, scope="default", type="note", path=f"memories/{i}.md", start_line=1,
               end_line=1, score=1.0, scores={}, snippet=text, commit=None, created=created, text=text,
               relevance=relevance)


def order(hits, terms=()) -> list[str]:
    return [h.id for h in currency.settle(hits, {}, 10, include_superseded=False, prefer_newer=True,
                                          terms=terms)]


def test_unrelated_hits_with_different_dates_keep_their_order():
    hits = [hit("a", "Office plants get watered on Fridays.", "2023-01-01T00:00:00Z"),
            hit("b", "The invoice printer jams on thick paper.", "2024-06-01T00:00:00Z"),
            hit("c", "Parking permits renew every spring.", "2025-01-01T00:00:00Z")]
    assert order(hits) == ["a", "b", "c"]


def test_said_together_or_off_topic_is_left_in_order():
    older, newer = "我们组的周会在三楼会议室。", "我们组的周会在五楼会议室。"
    # The same subject (a shared word the query names) written a day apart: look-alikes, not an update.
    same_day = [hit("a", older, "2024-01-01T00:00:00Z"), hit("b", newer, "2024-01-02T00:00:00Z")]
    assert order(same_day, terms=["周会"]) == ["a", "b"]
    later = [hit("a", older, "2024-01-01T00:00:00Z"), hit("b", newer, "2024-06-01T00:00:00Z")]
    assert order(later, terms=["周会"]) == ["b", "a"]
    later[1].relevance = 0.2  # the newer is not about what the query asks
    assert order(later, terms=["周会"]) == ["a", "b"]


def test_chinese_pairs_by_characters_the_query_names_when_they_share_no_word():
    # 峰时电价 / 峰电: one subject written two ways, no word in common; 峰, 电 and 度 asked
    older = hit("a", "峰时电价是0.62元一度。", "2023-01-01T00:00:00Z")
    newer = hit("n", "峰电 0.68/度", "2024-03-01T00:00:00Z")
    asked = ["峰时", "时电", "电价", "多少", "少钱", "一度"]  # 峰时电价多少钱一度？
    assert order([older, newer], terms=asked) == ["n", "a"]
    # ... one character of the query's in common is no subject (电 alone: 电价 / 电脑)
    other = hit("x", "电脑坏了，送去修了。", "2024-03-01T00:00:00Z")
    assert order([older, other], terms=asked) == ["a", "x"]


def test_chinese_pairs_by_a_shared_word_the_query_names():
    # No vectors here: Chinese is judged by its words. 前端 is the subject the query names;
    # the later note sharing only 负责人 with the older (not asked about) stays put.
    older = hit("a", "项目的前端负责人是小刘。", "2023-01-01T00:00:00Z")
    other = hit("x", "年会节目负责人是老黄。", "2024-02-01T00:00:00Z")
    newer = hit("n", "前端这块归何婷管了。", "2024-03-01T00:00:00Z")
    assert order([older, other, newer], terms=["前端"]) == ["n", "a", "x"]
    assert order([older, other], terms=["前端"]) == ["a", "x"]
    # Where the query names both, the older pairs with one later hit only: the nearer by words.
    assert order([older, other, newer], terms=["前端", "负责"]) == ["x", "a", "n"]


def test_of_two_later_notes_naming_the_same_person_the_one_on_the_same_attribute_pairs():
    # 儿子 is all the query names that they share; 码 (the size) is what the older note and the
    # shoe-size update have besides. The tuition note must not take the shoe size's place.
    older = hit("a", "儿子穿32码的鞋。", "2022-03-01T00:00:00Z")
    fees = hit("x", "儿子每年的学费是三万八千块。", "2024-01-01T00:00:00Z")
    newer = hit("n", "儿子的脚长到35码了。", "2024-02-01T00:00:00Z")
    assert order([older, fees, newer], terms=["儿子", "码"])[0] == "n"
    assert order([older, newer, fees], terms=["儿子", "码"])[0] == "n"


def test_two_conversation_turns_are_left_in_order():
    hits = [hit("a", "User: The staging database runs on Postgres in Frankfurt.", "2023-01-01T00:00:00Z"),
            hit("b", "User: The staging database runs on Postgres in Dublin.", "2024-06-01T00:00:00Z")]
    assert order(hits, terms=["stage", "databas"]) == ["a", "b"]


def test_long_chat_like_texts_are_left_in_order():
    # No speaker label, but longer than a statement (updates.STRICT_WORDS): chat revisits a
    # topic across sessions without updating it.
    older = ("We talked about the staging database again today and I said the Postgres instance in "
             "Frankfurt is fine for now but we might want to look at it again after the summer break")
    newer = ("Catching up on the staging database: the Postgres instance in Frankfurt came up again and "
             "we agreed it is fine, maybe we look at it again after the summer break or later")
    hits = [hit("a", older, "2023-01-01T00:00:00Z"), hit("b", newer, "2024-06-01T00:00:00Z")]
    assert order(hits, terms=["stage", "databas"]) == ["a", "b"]
    short = [hit("a", "The staging database is Postgres in Frankfurt.", "2023-01-01T00:00:00Z"),
             hit("b", "The staging database is Postgres in Dublin.", "2024-06-01T00:00:00Z")]
    assert order(short, terms=["stage", "databas"]) == ["b", "a"]  # no vectors: by words (a share of 1/4+)


class _Snap:
    """A snapshot stub holding one unit vector per hit's doc (what newest_first reads)."""

    def __init__(self, vecs):
        import numpy as np

        self.vectors = np.asarray(vecs, dtype=float)
        self.row_of = {i: i for i in range(len(vecs))}
        self.has_vec = [True] * len(vecs)


def _pair_at(cos: float):
    import math

    return [[1.0, 0.0], [cos, math.sqrt(1 - cos * cos)]]


def test_english_pair_a_little_apart_by_vectors_goes_by_the_words_the_query_names():
    older = hit("a", "Penny, our border collie, gets two scoops of kibble at breakfast.", "2023-02-14T00:00:00Z")
    newer = hit("n", "Penny's breakfast is raw mince from the butcher now.", "2024-06-02T00:00:00Z")
    older.doc, newer.doc = 0, 1
    terms = ["penni", "border", "colli", "eat", "breakfast"]  # "What does Penny the border collie eat for breakfast?"

    def run(cos, q):
        return [h.id for h in currency.newest_first([older, newer], _Snap(_pair_at(cos)), q)]

    assert run(0.44, terms) == ["n", "a"]  # two subject words the query names: the newer goes first
    assert run(0.44, ["breakfast"]) == ["n", "a"]  # one is enough for a pair of its own (a weak link)
    assert run(0.44, ["kibbl"]) == ["a", "n"]  # a word only one of them has is none
    assert run(0.30, terms) == ["n", "a"]  # a pair of terse notes and sentences sits this far apart
    assert run(0.15, terms) == ["a", "n"]  # nor is any number of words this far apart
    assert run(0.60, ["breakfast"]) == ["n", "a"]  # close by the vectors alone, as before


def _star(hits, first: float, second: float) -> _Snap:
    """A snapshot where hits[0] sits at cosine `first` from hits[1] and `second` from
    hits[2] (those two at first * second from each other); each hit's doc set to its row."""
    import numpy as np

    for i, h in enumerate(hits):
        h.doc = i
    return _Snap([[1.0, 0.0, 0.0], [first, np.sqrt(1 - first ** 2), 0.0], [second, 0.0, np.sqrt(1 - second ** 2)]])


def test_a_weak_link_does_not_extend_a_chain():
    """The current statement (n, which replaced a) is not passed by a later note that
    shares only the entity the query names (Mum), not what it asks about; on its own the
    same one-word link still pairs."""
    a = hit("a", "Mum collects her prescriptions from the chemist on the high street.", "2020-11-09T00:00:00Z")
    n = hit("n", "Mum's repeat prescriptions are posted to her by an online pharmacy.", "2023-02-27T00:00:00Z")
    x = hit("x", "Mum's supermarket delivery slot is Tuesday evening.", "2024-02-12T00:00:00Z")
    # n-a close by two named words (mum, prescript) at cosine 0.45; x-n at 0.45 by one (mum)
    terms = ["mum", "prescript"]
    got = [h.id for h in currency.newest_first([n, a, x], _star([n, a, x], 0.45, 0.45), terms)]
    assert got == ["n", "a", "x"]
    a.doc, x.doc = 0, 1
    got = [h.id for h in currency.newest_first([a, x], _Snap(_pair_at(0.45)), terms)]
    assert got == ["x", "a"]  # no chain: the one-word link stands (a and x are each other's closest)


def test_of_two_weak_links_in_a_chain_the_closer_one_stands():
    """Asked 家里的智能门铃是什么牌子的？, the old doorbell note is linked back to an older
    note by 家里 and on to the new doorbell note by 门铃 (each one word the query names): the
    closer link (门铃, more shared characters) stood aside as a chain's second link
    (heldout28)."""
    beer = hit("b", "家里常备的啤酒是青岛纯生。", "2018-07-21T00:00:00Z")
    old = hit("a", "家里的智能门铃是360的。", "2019-12-14T00:00:00Z")
    new = hit("n", "门铃：萤石 DB2C", "2022-12-31T00:00:00Z")
    terms = ["家里", "智能", "门铃", "牌子"]
    assert order([old, new, beer], terms=terms)[0] == "n"
    # ... while a weak link after a strong one still does not extend the chain (Mum, above)


def test_a_terse_note_mostly_in_latin_letters_pairs_by_its_chinese_words():
    """"链路追踪：Jaeger + OpenTelemetry SDK" is mostly Latin letters; it was kept from
    pairing with the Chinese sentence it updates as if the two were in two languages."""
    older = hit("a", "项目的链路追踪用的是 SkyWalking。", "2021-06-08T00:00:00Z")
    newer = hit("n", "链路追踪：Jaeger + OpenTelemetry SDK", "2024-01-16T00:00:00Z")
    assert order([older, newer], terms=["项目", "链路", "路追", "追踪"]) == ["n", "a"]
    english = hit("e", "Tracing: Jaeger with the OpenTelemetry SDK", "2024-01-16T00:00:00Z")
    assert order([older, english], terms=["项目", "链路", "路追", "追踪"]) == ["a", "e"]


def test_chinese_pairs_go_by_the_words_the_query_names_not_the_vectors():
    """The English model scores any two Chinese sentences 0.4-0.8: the closest later hit
    is the one sharing most words the query names, whatever the cosine says; 自己 (and
    other GENERIC_ZH words) names no subject."""
    older = hit("a", "我们的数据看板用的是 Metabase。", "2021-11-03T00:00:00Z")
    other = hit("x", "用户中心服务的数据库最大连接数是两百。", "2024-07-09T00:00:00Z")
    newer = hit("n", "数据看板：帆软 FineBI，周报直接从里面导。", "2022-02-14T00:00:00Z")
    snap = _star([older, other, newer], 0.59, 0.51)  # the vectors put the other note nearer
    terms = ["数据", "据看", "看板", "工具"]
    assert [h.id for h in currency.newest_first([older, other, newer], snap, terms)] == ["n", "a", "x"]
    mine = hit("m", "外公家自己种着二十亩茶园。", "2018-04-02T00:00:00Z")
    plate = hit("p", "我从来记不住自己的车牌号。", "2024-04-29T00:00:00Z")
    assert order([mine, plate], terms=["外公", "自己", "茶园"]) == ["m", "p"]


def test_a_current_successor_is_not_passed_by_a_later_note_sharing_only_a_word_the_query_names():
    # After dream: 我的手机号是移动的 was superseded by a (携号转网到电信); x, a later note about
    # someone's phone, shares only 手机 (named by the query) with a.
    a = hit("a", "手机号已经携号转网转到电信了。", "2024-01-10T00:00:00Z")
    x = hit("x", "老妈的手机是荣耀 X50。", "2024-06-01T00:00:00Z")
    terms = ["手机", "机号"]
    assert order([a, x], terms=terms) == ["x", "a"]  # no supersession known: the weak rule pairs them

    def settled(hits):
        return [h.id for h in currency.settle(hits, {"old": ("a",)}, 10, include_superseded=False,
                                              prefer_newer=True, terms=terms)]

    assert settled([a, x]) == ["a", "x"]  # a is current by a supersession: only a close match passes it
    close = hit("n", "手机号已经转到电信了，套餐也换了。", "2024-06-01T00:00:00Z")  # most words shared
    assert settled([a, close]) == ["n", "a"]


def test_a_pair_of_function_characters_is_no_shared_subject():
    """"需求管理用的是 Jira" and "阳台现在种的是番茄" share 的是 and nothing they are about:
    the second, with its cue 现在, went above the first for a question about the first."""
    from gitmem.memories import updates

    old, new = "我们组的需求管理用的是 Jira。", "阳台现在种的是番茄和辣椒，多肉都送给邻居了。"
    v = updates.judge(old, new, 0.6, older_created="2022-01-01", newer_created="2024-01-01", strict=True,
                      on_topic=True)
    assert v.kind != "update"
    # ... while a subject with a function character in it still is one (我爸)
    v = updates.judge("我爸每天要抽一包烟。", "我爸已经两年没碰过烟了。", 0.6, older_created="2022-01-01",
                      newer_created="2024-01-01", strict=True, on_topic=True)
    assert v.kind == "update"


def test_chinese_numerals_are_no_shared_subject():
    """"…挂牌价降到一百六十五万了" and "招行信用卡提额了，现在额度五万八" share 五万, a
    number; the second, with its cue 现在, went above the first for a question about it."""
    from gitmem.memories import updates

    old, new = "看房的人太少，老房子挂牌价降到一百六十五万了。", "招行信用卡提额了，现在额度五万八。"
    v = updates.judge(old, new, 0.6, older_created="2023-02-26", newer_created="2023-08-21", strict=True,
                      on_topic=True)
    assert v.kind != "update"
    assert updates.word_overlap("工资一万二", "存款一万五")[1] == set()


def test_two_cues_side_by_side_are_no_shared_subject():
    """"豆芽现在改喝君乐宝的奶粉了" and "果果现在改到牙仙子儿童齿科看牙了" share 在改, a
    token across two cues (现在 + 改喝 / 改到); the second went first for "豆芽现在喝的是
    什么奶粉？" (heldout28)."""
    from gitmem.memories import updates

    old, new = "豆芽现在改喝君乐宝的奶粉了，二段。", "果果现在改到牙仙子儿童齿科看牙了，离家近。"
    v = updates.judge(old, new, 0.6, older_created="2024-01-01", newer_created="2024-06-01", strict=True,
                      on_topic=True)
    assert v.kind != "update"
    # ... while the cut cue leaves the subject it was said of
    v = updates.judge("豆芽喝的奶粉是飞鹤星飞帆一段。", old, 0.6, older_created="2023-01-01",
                      newer_created="2024-01-01", strict=True, on_topic=True)
    assert v.kind == "update"


@pytest.mark.parametrize("old, new", [
    ("白天带宝宝的是育儿嫂刘阿姨，一个月七千五。", "豆芽现在改喝君乐宝的奶粉了，二段。"),  # 宝的: a character and 的
    ("换届以后，我们这片的区人大代表是丁秀梅。", "帐篷换成挪客的六人大帐了，四人帐睡不下。"),  # 六人 | 大帐
])
def test_a_particle_or_a_count_makes_no_shared_subject(old, new):
    """Each went first, above the answer, for a question about the first (heldout28)."""
    from gitmem.memories import updates

    v = updates.judge(old, new, 0.6, older_created="2023-01-01", newer_created="2024-01-01", strict=True,
                      on_topic=True)
    assert v.kind != "update"


def test_a_verb_and_its_particle_said_alike_in_both_is_the_subject():
    from gitmem.memories import updates

    v = updates.judge("我戴的是小米手环 6。", "现在手上戴的是华为 Watch GT 4。", 0.6, older_created="2023-01-01",
                      newer_created="2024-01-01", strict=True, on_topic=True)
    assert v.kind == "update"  # 戴的是 in both: what one wears


def test_a_time_of_day_is_no_shared_subject():
    """"爷爷每天下午五点吃晚饭" and "需求评审改到每周四下午三点了" share 下午, a time of day; the
    second, with its cue 改到, went first for "爷爷每天几点吃晚饭？" (heldout22)."""
    from gitmem.memories import updates

    old = "爷爷每天下午五点吃晚饭。"
    v = updates.judge(old, "需求评审改到每周四下午三点了。", 0.6, older_created="2023-01-01",
                      newer_created="2024-01-01", strict=True, on_topic=True)
    assert v.kind != "update"
    v = updates.judge(old, "爷爷晚饭现在推到六点了，等我们下班一起吃。", 0.6, older_created="2023-01-01",
                      newer_created="2024-01-01", strict=True, on_topic=True)
    assert v.kind == "update"
    # ... nor is a clock unit beside a particle: 六点了 / 三点了 share 点了
    v = updates.judge("爷爷晚饭现在推到六点了，等我们下班一起吃。", "需求评审改到每周四下午三点了。", 0.6,
                      older_created="2024-01-01", newer_created="2024-06-01", strict=True, on_topic=True)
    assert v.kind != "update"


def test_a_hit_moved_above_the_statement_it_updates_takes_its_score():
    """The list reads in order: "We switched CI to GitHub Actions" moved above "Our team
    uses Jenkins for CI" showed 0.0 above 1.6, and a prompt's score floor then dropped it."""
    from dataclasses import replace

    old = replace(hit("a", "The team's CI runs on Jenkins.", "2024-01-10"), score=1.6)
    new = replace(hit("b", "The team's CI switched from Jenkins to GitHub Actions.", "2024-09-10"), score=0.0)
    other = replace(hit("c", "The printer is on the second floor.", "2024-02-01"), score=0.1)
    got = currency.settle([old, other, new], {}, 10, include_superseded=False, prefer_newer=True)
    assert [h.id for h in got] == ["b", "a", "c"]
    assert [h.score for h in got] == [1.6, 1.6, 0.1]
    kept = currency.settle([old, other, new], {}, 10, include_superseded=False, prefer_newer=False)
    assert [h.score for h in kept] == [1.6, 0.1, 0.0]  # no move, no lift


def test_two_chinese_hits_must_share_a_subject_the_query_names():
    """孟老师 / 钱老师 share 老师, and 车位搬到B1 / 车位上装了充电桩 share 车位: neither is
    what the question asks, so the newer one with its cue does not pass the answer
    (heldout31, tuning since its one clean measurement)."""
    from gitmem.core.tokens import tokenize
    from gitmem.memories import updates

    q = frozenset(tokenize("儿子的数学补习是谁在上？"))
    old, new = "数学补习 一对一 钱老师 周三晚7点", "奶奶回老家了，女儿放学现在是晚托班的孟老师接。"
    assert updates.judge(old, new, 0.6, older_created="2022-03-09", newer_created="2023-03-06", strict=True,
                         on_topic=True).kind == "update"  # without the query: 老师 ties them
    assert updates.judge(old, new, 0.6, older_created="2022-03-09", newer_created="2023-03-06", strict=True,
                         on_topic=True, named=q).kind is None
    q = frozenset(tokenize("女儿的钢琴课是哪位老师上？"))
    # one the query names still ties them
    old, new = "女儿的钢琴课是王老师上的。", "女儿的钢琴课现在换成李老师上了。"
    assert updates.judge(old, new, 0.6, older_created="2023-01-01", newer_created="2023-06-01", strict=True,
                         on_topic=True, named=q).kind == "update"
    top = [hit("a", "数学补习 一对一 钱老师 周三晚7点", "2022-03-09T00:00:00Z"),
           hit("b", "奶奶回老家了，女儿放学现在是晚托班的孟老师接。", "2023-03-06T00:00:00Z")]
    named = tokenize("儿子的数学补习是谁在上？")
    assert [h.id for h in currency.newer_first(top, terms=named)] == ["a", "b"]
    assert [h.id for h in currency.newer_first(top)] == ["b", "a"]  # as before, without the query


@pytest.mark.parametrize("old,new,query", [
    ("我弟在西安读大学。", "我弟毕业后搬到成都了，在消防队上班。", "用户的弟弟在哪个城市？"),    # 我弟: an 弟
    ("家里炒菜用的是苏泊尔的不粘锅。", "炒锅换成章丘铁锅了，不粘锅的涂层都掉了。", "家里炒菜用的是什么锅？"),  # 粘锅: a 锅
    ("我胃不好，一直吃奥美拉唑。", "复查以后医生把奥美拉唑换成了雷贝拉唑，早饭前吃一粒。", "我现在吃什么胃药？"),  # what was left
])
def test_a_chinese_subject_the_query_names_by_its_last_character_or_a_thing_left(old, new, query):
    from gitmem.core.tokens import tokenize
    from gitmem.memories import updates

    v = updates.judge(old, new, 0.6, older_created="2022-01-01", newer_created="2023-01-01", strict=True,
                      on_topic=True, named=frozenset(tokenize(query)))
    assert v.kind == "update"


def test_a_count_or_a_frequency_is_no_chinese_subject():
    """跟阿哲每月见一次 / 脱敏针改成每四周打一次 share only 一次, which the question names too:
    a frequency, not what is asked about (heldout33, tuning since its one measurement)."""
    from gitmem.core.tokens import tokenize
    from gitmem.memories import updates

    q = frozenset(tokenize("我和阿哲多久见一次面？"))
    for old in ("我和阿哲一般两个月见一次面。", "跟阿哲 每月见一次"):
        v = updates.judge(old, "脱敏针改成每四周打一次了，已经进入维持期。", None, older_created="2024-01-01",
                          newer_created="2025-01-01", strict=True, named=q)
        assert v.kind is None
    v = updates.judge("我和阿哲一般两个月见一次面。", "跟阿哲现在改成每月见一次面了", None,
                      older_created="2024-01-01", newer_created="2025-01-01", strict=True, named=q)
    assert v.kind == "update"


def test_a_question_asked_in_general_still_puts_the_newer_first():
    """The question's form (relevance.form_cap) caps what reaches a prompt, never what a
    hit is about: with both hits capped under even odds by a general question ("Which
    race is the user training for?"), the newer statement still goes first, by the
    relevance each hit had before the cap (`topical`); without it, not."""
    older = hit("a", "I'm training for a half marathon in April.", "2023-01-10T00:00:00Z", relevance=0.42)
    newer = hit("n", "Signed up for the full Berlin Marathon in September, so no half this spring.",
                "2023-06-02T00:00:00Z", relevance=0.42)
    older.doc, newer.doc = 0, 1
    terms = ["race", "user", "train"]
    older.topical, newer.topical = 0.8, 0.8
    assert [h.id for h in currency.newest_first([older, newer], _Snap(_pair_at(0.6)), terms)] == ["n", "a"]
    older.topical, newer.topical = None, None  # judged by the capped relevance: not about the query
    assert [h.id for h in currency.newest_first([older, newer], _Snap(_pair_at(0.6)), terms)] == ["a", "n"]


@pytest.mark.parametrize("standing, one_off", [
    ("Night Kitchen — Thursdays, 10pm till midnight",
     "Night Kitchen booking: Guest = Morwenna Tregear; Date = 2025-06-12; Slot = 22:15"),
    ("County record office: researchers by appointment only, Wed–Sat 10–4.",
     "I've booked a seat at the county record office for Wednesday 4 February 2026 at 10am, reference KRO-5531."),
])
def test_a_dated_one_off_does_not_pass_a_standing_arrangement(standing, one_off):
    """heldout49 (read once at ab1b749): recall put the later one-off above the schedule asked for."""
    older = hit("a", standing, "2025-01-10T00:00:00Z")
    newer = hit("n", one_off, "2025-06-01T00:00:00Z")
    older.doc, newer.doc = 0, 1
    assert [h.id for h in currency.newest_first([older, newer], _Snap(_pair_at(0.8)), [])] == ["a", "n"]
    moved = hit("m", standing.replace("Thursdays", "Fridays").replace("Wed–Sat", "Mon–Fri"), "2025-06-01T00:00:00Z")
    moved.doc = 1
    assert [h.id for h in currency.newest_first([older, moved], _Snap(_pair_at(0.8)), [])] == ["m", "a"]
