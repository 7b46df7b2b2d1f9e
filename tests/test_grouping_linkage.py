"""Dream's grouping (gitmem.lifecycle.grouping): a chain of near pairs does not carry a
text into a group it shares nothing with (complete linkage on evidence, issue 22: a
Chinese group once joined a car inspection's paraphrases with a client meeting)."""

from __future__ import annotations

import numpy as np
import pytest

from gitmem.lifecycle import grouping, samefact, zh_names


def _unit_vectors(c01: float, c12: float, c02: float):
    """Three unit vectors with these pairwise cosines."""
    gram = np.array([[1, c01, c02], [c01, 1, c12], [c02, c12, 1]], float)
    return np.linalg.cholesky(gram)


@pytest.mark.parametrize("texts", [
    ["The car goes in for inspection", "The car goes in for inspection, then lunch with the client",
     "Lunch with the client"],
    ["周三上午十点验车", "周三上午十点验车然后跟客户开会", "跟客户开会"],
])
def test_a_chain_does_not_join_two_texts_that_share_nothing(texts):
    vecs = _unit_vectors(0.89, 0.89, 0.6)
    sims = [(0.89, 0, 1), (0.89, 1, 2), (0.6, 0, 2)]
    chained = grouping.group(texts, [None] * 3, ["a", "b", "c"], sims, 0.88, 0.25, 0.45)
    assert sorted(len(m) for m in chained.groups.members.values()) == [3]  # single linkage alone
    near = grouping.group(texts, [None] * 3, ["a", "b", "c"], sims, 0.88, 0.25, 0.45, vecs=vecs)
    sizes = sorted(len(m) for m in near.groups.members.values())
    assert sizes == [1, 2]
    first, last = near.groups.find(0), near.groups.find(2)
    assert first != last


def test_paraphrases_close_to_each_other_still_form_one_group():
    texts = ["Dentist on Nov 4 at 3pm", "dentist appointment November 4, 15:00", "Dentist: 4 November 3 PM"]
    vecs = _unit_vectors(0.92, 0.9, 0.89)
    sims = [(0.92, 0, 1), (0.9, 1, 2), (0.89, 0, 2)]
    near = grouping.group(texts, [None] * 3, ["a", "b", "c"], sims, 0.88, 0.25, 0.45, vecs=vecs)
    assert sorted(len(m) for m in near.groups.members.values()) == [3]


def test_a_measured_value_and_every_word_of_the_shorter_text_lower_the_bar():
    from gitmem.lifecycle.grouping import close_enough

    args = (0.88, 0.25, 0.45)
    assert close_enough("New sofa: GBP 1850.", "the new sofa came to £1.85k in the end", 0.57, *args)
    assert not close_enough("New sofa: GBP 1850.", "The new laptop cost £1,850.", 0.57, *args)  # another thing
    assert not close_enough("Sofa count: 1850.", "the sofa count came to 1850 in the end", 0.57, *args)  # a bare number
    assert not close_enough("The gym opens at 6am.", "Breakfast is served from 6am.", 0.54, *args)  # a time alone


@pytest.mark.parametrize("a,b", [
    ("儿子的篮球教练叫小周。", "组里的周报用石墨文档写。"),  # 小周's surname is a character of 周报
    ("我的健身私教是小马。", "家里买菜都在盒马上下单，半小时送到。"),  # ... and of 盒马
    ("小区东门晚上十一点关。", "小区进门要刷门禁卡。"),  # one shared word, no value, no name
    ("女儿的游泳教练叫小周。", "女儿戴的是钢丝牙套。"),
])
def test_two_chinese_notes_are_never_one_fact_by_the_cosine_alone(a, b):
    # The English model gives unrelated Chinese notes cosines up to 0.9 and more.
    assert not grouping.close_enough(a, b, 0.95, 0.88, 0.25, 0.45)


@pytest.mark.parametrize("a,b", [
    ("房租每月4500块。", "月租金：4,500 元。"),  # a shared amount (and a content character)
    ("小张下周一入职。", "张伟下周一入职。"),  # a short name and a shared word
    ("我对花生过敏。", "我吃花生会过敏。"),  # two shared words
])
def test_chinese_paraphrases_with_a_value_a_name_or_two_words_in_common_still_are(a, b):
    assert grouping.close_enough(a, b, 0.9, 0.88, 0.25, 0.45)


@pytest.mark.parametrize("a,b", [
    ("招标文件是小雪在弄。", "欧阳雪负责这次的招标文件。"),  # 小 + the given name's last character
    ("财务那边新来了东哥。", "新财务：陈晓东。"),  # ... + 哥
    ("搬办公室的事是芸姐在管。", "办公室搬迁负责人：唐晓芸（行政）。"),  # ... + 姐
])
def test_a_chinese_name_by_its_last_character_is_the_full_name(a, b):
    assert samefact.anchors(a, b) and samefact.conflict(a, b) is None
    assert grouping.close_enough(a, b, 0.75, 0.88, 0.25, 0.45)


@pytest.mark.parametrize("a,b", [
    ("行政那边的晓芸负责这次搬办公室。", "这次搬办公室由行政的唐晓芸牵头。"),  # the given name alone
    ("同学会：海鹏负责。", "这次同学会由班长覃海鹏张罗。"),  # ... with a less common surname
    ("工长老单负责咱家装修。", "装修工长：单卫东。"),  # 老 + a less common surname
    ("义诊是皇甫主任带队的", "这次社区义诊由市中医院的皇甫立新主任带队。"),  # a surname and a title
    ("新物业经理是卢经理，全名卢嘉豪", "小区新来的物业经理叫卢嘉豪。"),  # a name after 叫, written out
])
def test_a_chinese_name_by_its_given_name_or_a_rarer_surname_is_the_full_name(a, b):
    assert samefact.anchors(a, b) and samefact.conflict(a, b) is None


@pytest.mark.parametrize("a,b", [
    ("我阿姨住在小区里。", "张阿姨的小区在东边。"),  # 阿姨 and 小区 are words, not names
    ("表哥下周来玩。", "表哥的公司在高新区。"),
    ("语文王老师的电话尾号是 4417。", "我老婆在一家幼儿园当老师。"),  # a surname and a title
    ("订单服务部署在阿里云上。", "线上服务跑在 Python 3.8 上。"),  # 单 + 服务 is a word, not 单服务
    ("助手: 太棒了，恭喜王老师！这是学摄影以来第一次入选吧？", "助手: 王老师您好！教书三十年真不容易。"),  # one person addressed twice
])
def test_everyday_words_of_that_shape_are_no_name(a, b):
    assert not samefact.anchors(a, b)


@pytest.mark.parametrize("a, b", [
    ("There are 24 bottles of wine in the rack.", "The wine rack currently has twenty-four bottles in it."),
    ("Pickle the puppy weighs 6.5 kg.", "pickle is six and a half kilos now"),
    ("宝宝体重：7400克。", "宝宝现在体重七点四公斤。"),
    ("小区新来的物业经理叫卢嘉豪。", "新物业经理是卢经理，全名卢嘉豪"),  # one name, introduced or written out
])
def test_a_weak_cue_that_restates_the_same_value_is_a_copy(a, b):
    assert grouping.why_apart(a, b) is None


@pytest.mark.parametrize("a, b", [
    # a strong cue: something changed, whatever the texts share
    ("Our on-call lead is Priya.", "Marco took over as on-call lead from Priya."),
    ("我的健身私教是小马。", "私教换成了阿杰，小马去别的店了。"),
    # a weak cue and another particular on one side
    ("My team uses Jenkins for CI.", "We now use GitHub Actions for CI, not Jenkins."),
    # a weak cue and nothing shared
    ("The wine rack has 24 bottles.", "The wine rack currently has 18 bottles."),
])
def test_a_cue_that_changes_something_keeps_the_texts_apart(a, b):
    assert grouping.why_apart(a, b) is not None


def _chat(n: int) -> list[str]:
    topics = ["the marathon", "my new job", "the pottery class", "our dog", "the garden", "the concert",
              "my sister's wedding", "the bakery", "a road trip", "the book club", "volunteering", "the move"]
    return [f"Thanks, Maria! {topics[k % len(topics)].capitalize()} went well, {k} people came." for k in range(n)]


def test_a_name_every_chat_turn_holds_is_no_anchor():
    """In a chat the other person is named in turn after turn ("Thanks, Maria!"): dream
    merged 64 different LoCoMo turns of one conversation on that name."""
    texts = _chat(40)
    assert "maria" in grouping.common_terms(texts)
    assert samefact.anchors(texts[0], texts[1])  # alone, the shared name anchors...
    sims = [(0.7, i, i + 1) for i in range(len(texts) - 1)]  # below the threshold, above it less the margin
    near = grouping.group(texts, [None] * len(texts), [str(i) for i in range(len(texts))], sims, 0.88, 0.25, 0.45)
    assert all(len(m) == 1 for m in near.groups.members.values())  # ... but not in a chat that names her always
    pair = ["Thanks, Maria! The marathon went well, 12 people came.", "For Maria: the marathon went well, 12 people came."]
    assert grouping.why_apart(*pair) is None
    few = grouping.group(pair, [None, None], ["0", "1"], [(0.7, 0, 1)], 0.88, 0.25, 0.45)
    assert sorted(len(m) for m in few.groups.members.values()) == [2]


@pytest.mark.parametrize("text", ["Yesterday I went to the market.", "Honestly I'm tired, I've had enough."])
def test_the_pronoun_i_is_no_name(text):
    assert samefact.names_of(text) == frozenset()


def test_a_little_is_not_one_oclock():
    a, b = "助手: 刚开始都这样，拍花的时候可以试试靠近一点，把背景虚化。", "助手: 可以慢慢减，每次少放一点盐，口味会逐渐适应的。"
    assert not samefact.anchors(a, b)
    assert samefact.read("下午一点开会。").values == {"time": frozenset({"time:13:00"})}
    assert samefact.read("一点半出发。").values == {"time": frozenset({"time:1:30", "time:13:30"})}  # no part of the day


@pytest.mark.parametrize("a, b", [
    ("用户: 可乐今年五岁了，有点怕坐车。", "用户: 搬完家了，累死了，房子在桃园站附近，走路五分钟到地铁。"),  # an age, minutes
    ("用户: 我在学开车，科目二考了两次都没过。", "用户: 我打算下半年开第二家分店，选在大学城附近。"),  # a small number alone
    ("助手: 周年庆是拉新客的好机会。", "助手: 搬店有风险，老顾客可能流失。"),  # 老顾客 is no person 顾
])
def test_chinese_turns_sharing_only_a_number_or_a_word_shape_are_no_anchor(a, b):
    assert not samefact.anchors(a, b)


def test_two_chinese_words_in_common_are_not_enough_when_the_texts_say_much_else():
    a, b = "用户: 我对猫毛过敏，可是我未婚夫特别想养猫，愁死了。", "用户: 我未婚夫是个程序员，特别不爱拍照，一拍就僵。"
    assert not grouping.close_enough(a, b, 0.95, 0.88, 0.25, 0.45)


def test_small_talk_every_chat_turn_holds_is_no_shared_word():
    chat = [f"Thanks, Maria! I definitely will. {t}" for t in ("See you soon.", "Bye for now.", "Take care.")] * 7
    a, b = "John: Got it! Thanks, Maria. I definitely will.", \
        "John: Thanks, Maria! It was quite a journey, but definitely worth it. I graduated last week!"
    assert grouping.close_enough(a, b, 0.7, 0.88, 0.25, 0.45)  # alone: every word of the shorter is shared
    common = grouping.common_terms(chat + [a, b])
    assert {"thank", "defin", "maria"} <= common
    assert not grouping.close_enough(a, b, 0.7, 0.88, 0.25, 0.45, common)


@pytest.mark.parametrize("a, b, speakers", [
    ("User: I run a barbecue joint in Austin. We've been open three years now.",
     "Assistant: Barbecue is huge in Austin, so lasting three years is no small thing.", frozenset()),
    ("用户: 我在成都开了一家串串香，开了三年了，生意还行。", "助手: 串串香在成都很受欢迎，三年能稳定下来很不容易。", frozenset()),
    ("Gina: The store is doing great, Jon!", "Jon: The store is doing great, Gina!", frozenset({"gina", "jon"})),
])
def test_two_speakers_turns_are_two_statements(a, b, speakers):
    assert grouping.why_apart(a, b, speakers=speakers) == "different speakers"


def test_a_notes_label_is_no_speaker():
    """A label that opens many of the scope's texts is a speaker; one that opens a few is a
    note's label, even beside a chat."""
    texts = ["Roof repair quote: GBP 4750.", "Roof: £4,750"] + [f"Gina: turn {k} of the chat" for k in range(20)]
    speakers = grouping.speakers_of(texts)
    assert speakers == frozenset({"gina"})
    assert grouping.why_apart(texts[0], texts[1], speakers=speakers) is None


@pytest.mark.parametrize("a, b", [
    ("Thames Water acct no.: 90214477365", "thames water account # 9021-4477-365"),
    ("Dentist appt on 3 May at 9:40", "dentist appointment 3 May, 9:40"),
])
def test_an_abbreviated_word_is_the_word(a, b):
    assert samefact.conflict(a, b) is None


def test_a_sibling_one_letter_apart_is_no_abbreviation():
    # (sister / sister-in-law, a word of its own: tests/test_values_forms.py)
    assert samefact.conflict("The cat sleeps in the blue basket.", "The coat sleeps in the blue basket.") is not None


@pytest.mark.parametrize("a, b", [
    ("I had my Covid booster at Boots on 14 October.", "I had my flu jab at Boots on 14 October."),
    ("My work pension is with Aviva.", "My life insurance is with Aviva."),  # and "is" abbreviates no "insurance"
    # two stretches swapped in one frame
    ("The carbon monoxide alarm in the kitchen was tested on 2 March.", "The smoke alarm in the hallway was tested on 2 March."),
])
def test_one_sentence_with_a_few_content_words_swapped_is_two_facts(a, b):
    assert samefact.conflict(a, b) == samefact.conflict(b, a) == "entities differ"


@pytest.mark.parametrize("a, b", [
    ("Boat length: 57 ft.", "the narrowboat's fifty-seven foot"),
    ("Pickle the puppy weighs 6.5 kg.", "PICKLE weighed in at 14.3 lb."),
    # several swaps around one name: the frame holds too few content words
    ("Castlegate Paving quoted £6,200 to resurface the driveway.", "castlegate want 6200 quid to redo the drive"),
])
def test_a_reworded_stretch_with_function_words_is_no_swap(a, b):
    assert samefact.conflict(a, b) is None


@pytest.mark.parametrize("a, b", [
    ("The polls open at 7am on Thursday at St Columba's Church Hall.", "Thu: polls open 7:00am, St Columba's CH"),
    ("DofE bronze expedition (Linus): Sat 20 – Sun 21 Jun",
     "Linus is away on his Bronze Duke of Edinburgh's Award expedition on Saturday 20 and Sunday 21 June."),
])
def test_an_acronym_of_the_other_texts_words_is_no_other_name(a, b):
    assert samefact.conflict(a, b) is None


def test_initials_that_spell_no_run_of_words_are_a_name():
    assert samefact.conflict("The meeting with Ann Lee is in Room 4.", "The meeting with BT is in Room 4.") == "names differ"


def test_a_word_of_the_chat_is_no_short_form_of_a_name():
    """Two turns of a chat, one to "Melanie", one to "Mel": "me" and "mean" abbreviate no
    "melanie" (the nicknames dataset decides about names), so the turns stay apart as
    before abbreviations were read."""
    from gitmem.lifecycle import shortforms

    a = "Caroline: Thanks, Melanie! Your kind words mean a lot."
    b = "Caroline: Thanks Mel, really appreciate your kind words. It means a lot to me that you can feel it."
    assert samefact.conflict(a, b) == "names differ"
    assert not shortforms.abbreviation("mean", "melanie") and shortforms.abbreviation("bldg", "building")


def test_a_surname_after_an_initial_is_a_name():
    """"Mrs G. Abernethy-Osei": the full stop of the initial ends no sentence, so the
    surname is read and the label names the same person as the sentence."""
    assert samefact.names_of("Ask J. Smith about the lease") >= {"j", "smith"}
    assert samefact.conflict("The new SENCo at Tobias's school is Mrs Gwendolyn Abernethy-Osei.",
                             "Tobias's school SENCO: Mrs G. Abernethy-Osei") is None
    assert samefact.conflict("Ask J. Smith about the lease", "Ask J. Jones about the lease") == "names differ"


def test_a_name_in_short_form_is_the_same_name():
    """Rd for Road between two names (a short form with no vowel), P. for Philomena when
    asking whether two texts give the same particulars, words a hyphen joined."""
    road, rd = ("The Quarry Road WhatsApp group has 63 households in it.",
                "Street WhatsApp group (Quarry Rd): 63 households")
    assert samefact.conflict(road, rd) is None and samefact.restates(road, rd)
    new, label = ("The new practice manager at the Linden Road surgery is Philomena Gathercole-Nkemelu.",
                  "Linden Rd surgery practice manager: Mrs P. Gathercole-Nkemelu")
    assert samefact.conflict(new, label) is None and samefact.restates(new, label)
    assert grouping.why_apart(new, label) is None  # "new" restates one person: no update
    # Another road, and another surname after one initial, stay other names.
    assert samefact.conflict(road, road.replace("Road", "Lane")) == "names differ"
    assert samefact.conflict("Ask J. Smith about the lease", "Ask J. Jones about the lease") == "names differ"


def test_a_note_in_lower_case_names_whom_the_other_names():
    """A note with no capitals cannot mark a name: its words may be the names the other text
    capitalises (hyphened ones too), and those anchor the pair; a text with capitals that
    writes "pride" names no "Pride"."""
    a, b = "siobhan mcallister reid is our new line manager", "Line manager from Monday: Siobhan (Shiv) McAllister-Reid."
    assert samefact.anchors(a, b) and samefact.anchors(b, a) and grouping.why_apart(a, b) is None
    assert not samefact.anchors("We marched in the Pride parade downtown.", "I felt such pride watching them march.")


DAY = 86400.0


@pytest.mark.parametrize("pair", [
    # (not "... rewrote it in Flutter and retired the Xamarin codebase": "retired" is a change cue, apart at any gap)
    ["The mobile app is written in Xamarin.", "Our mobile app is a Xamarin codebase shared with the tablet build."],
    ["我们公司是大小周。", "公司取消大小周了，现在正常双休。"],
])
def test_texts_written_months_apart_join_only_at_the_threshold(pair):
    """Paraphrases are written close together; months apart, a text near another only by
    what they share (a name, a word) may be its update, and a merge would lose one."""
    sims = [(0.75, 0, 1)]
    vecs = _unit_vectors(0.75, 0.0, 0.0)[:2]
    same_week = grouping.group(pair, [None, None], ["0", "1"], sims, 0.88, 0.25, 0.45, vecs=vecs,
                               created=[1.7e9, 1.7e9 + 3 * DAY])
    assert sorted(len(m) for m in same_week.groups.members.values()) == [2]
    months = grouping.group(pair, [None, None], ["0", "1"], sims, 0.88, 0.25, 0.45, vecs=vecs,
                            created=[1.7e9, 1.7e9 + 120 * DAY])
    assert sorted(len(m) for m in months.groups.members.values()) == [1, 1]
    undated = grouping.group(pair, [None, None], ["0", "1"], sims, 0.88, 0.25, 0.45, vecs=vecs,
                             created=[0.0, 1.7e9])  # an unreadable date is no gap
    assert sorted(len(m) for m in undated.groups.members.values()) == [2]
    near = [(0.93, 0, 1)]
    close = grouping.group(pair, [None, None], ["0", "1"], near, 0.88, 0.25, 0.45,
                           vecs=_unit_vectors(0.93, 0.0, 0.0)[:2], created=[1.7e9, 1.7e9 + 120 * DAY])
    assert sorted(len(m) for m in close.groups.members.values()) == [2]


@pytest.mark.parametrize("a, b, update", [
    ("车换了四条新轮胎，一共花了两千九百六。", "换胎 2960 块", False),  # 换 is what was done
    ("Our Delay Repay claim for the cancelled Portsmouth train is ref DR-902617.",
     "delay repay portsmouth ref dr902617", False),  # the train was cancelled, not the claim
    ("The meeting moved from 3pm to 4pm.", "The meeting is at 3pm.", True),  # a value more
    ("We switched the broadband to Zen.", "The broadband is with BT.", True),  # no value
])
def test_a_change_word_with_the_same_particulars_is_no_update(a, b, update):
    assert (grouping.why_apart(a, b) == "possible update") is update
    assert samefact.same_particulars(a, b) is not update


@pytest.mark.parametrize("a, b", [
    ("新买的书桌长一米四。", "书桌长度：140cm"),  # one length, digits against Chinese numerals
    ("新买的客厅窗帘长两米六。", "客厅窗帘长度：260cm"),
])
def test_chinese_texts_sharing_a_measure_and_a_word_are_near_where_the_vectors_read_digits_apart(a, b):
    # The English model scores these 0.40-0.43, below cjk_margin's 0.43.
    assert grouping.close_enough(a, b, 0.40, 0.88, 0.25, 0.45)
    assert samefact.conflict(a, b) is None
    assert not grouping.close_enough(a, b, 0.25, 0.88, 0.25, 0.45)  # the vectors still have a say (0.28 here)
    # A measure alone, or a word alone, is not enough down there.
    assert not grouping.close_enough("新买的书桌长一米四。", "鱼缸长度：140cm", 0.40, 0.88, 0.25, 0.45)
    assert not grouping.close_enough("新买的书桌很好看。", "书桌长度：140cm", 0.40, 0.88, 0.25, 0.45)


def test_a_look_alike_with_the_same_measure_is_still_kept_apart_by_the_guard():
    a, b = "新买的书桌长一米四。", "新买的书架长一米四。"
    assert grouping.close_enough(a, b, 0.40, 0.88, 0.25, 0.45)
    assert grouping.why_apart(a, b) == "entities differ"


def test_the_end_of_a_span_of_hours_is_a_clock_time():
    # 一点 after 十二点到 is one o'clock, so "12:00-13:30" and "十二点到一点" differ (an update pair
    # of the tuning set merged once the bar above was lowered).
    assert samefact.read("公司午休是十二点到一点。").values["time"] >= {"time:12:00", "time:13:00"}
    assert samefact.conflict("午休时间：12:00—13:30。", "公司午休是十二点到一点。") == "values differ"
    assert "time" not in samefact.read("喝了一点水，到家了。").values


def test_a_two_character_surname_with_a_one_character_given_name_anchors_two_chinese_texts():
    a, b = "欧阳雪负责这次的招标文件。", "招标文件负责人：欧阳雪。"
    assert samefact.anchors(a, b) and samefact.conflict(a, b) is None
    # 东方 and 司空 are everyday words too: no name after them.
    assert not zh_names.shared_full_name("东方人喜欢喝茶。", "东方人口味偏清淡。")


@pytest.mark.parametrize("a, b", [
    ("The new harbourmaster at Porthleven is Jago Pengelly-Mwangi.", "new harbour master at porthleven is jago pengelly mwangi"),
    ("The woodburner in the snug was swept on 3 March.", "wood burner in the snug swept 3 March"),
])
def test_a_compound_written_as_two_words_is_the_same_word(a, b):
    assert samefact.conflict(a, b) is None


def test_two_words_that_join_into_another_word_are_still_a_swap():
    # "tap dance" joins into nothing the other text has: ballet / tap dance stay two facts.
    assert samefact.conflict("My son has ballet at 4pm on Tuesdays.", "My son has tap dance at 4pm on Tuesdays.") == "entities differ"


def test_a_lower_case_note_may_abbreviate_a_capitalised_word():
    a = "The new vicar at St Bartholomew's is the Reverend Cressida Oyelaran-Booth."
    assert samefact.conflict(a, "new vicar at st bartholomew's = rev cressida oyelaran booth") is None
    # A capitalised note naming someone else is still another name.
    assert samefact.conflict(a, "The new vicar at St Bartholomew's is the Reverend Imogen Oyelaran-Booth.") is not None


@pytest.mark.parametrize("a, b", [
    # a text of several clauses that writes the other's names as acronyms (the clause test too)
    ("Denmead Cricket Club's annual dinner is on Friday 27 February at 7:30pm at Hambledon Golf Club.",
     "Denmead CC annual dinner – Fri 27/02, 19:30, Hambledon GC"),
    # an amount is no identifier against a code: "£285" beside "(Y6)"
    ("The Year 6 residential to the Lake District costs £285.", "Lake District residential (Y6): £285."),
    ("The greenhouse heater is set to 7°C.", "keep the greenhouse heater at seven degrees overnight"),
    ("42 stalls are booked for the Lyndhurst Christmas market.", "Lyndhurst Xmas market: 42 stalls booked"),
    ("The wood burner flue is 6 inches in diameter.", "wood burner's flue is 150mm across"),  # 152.4 mm, rounded
])
def test_one_fact_in_acronyms_abbreviations_and_rounded_units(a, b):
    assert samefact.conflict(a, b) is None and samefact.conflict(b, a) is None


@pytest.mark.parametrize("a, b", [
    ("Permit RP20931 covers the skip outside number 14.", "Permit 311 covers the skip outside number 14."),
    ("The wood burner flue is 6 inches in diameter.", "The wood burner flue is 125mm in diameter."),
    ("The greenhouse heater is set to 7°C.", "The greenhouse heater is set to 12 degrees."),
    ("Tickets are tracked in Zendesk.", "Support tickets live in Freshdesk; the Zendesk contract ended in March."),
])
def test_other_identifiers_measures_and_tools_still_differ(a, b):
    assert samefact.conflict(a, b) is not None


def test_two_chinese_texts_sharing_only_a_duration_are_not_near():
    # A held-out pair that merged: five minutes in common, and 过 (走过去 / 超过).
    a, b = "麻薯现在去小区对面的安安宠物诊所看，走过去五分钟。", "线上服务 CPU 使用率超过百分之八十、持续五分钟就会告警。"
    assert samefact.anchors(a, b)
    assert not grouping.close_enough(a, b, 0.8, 0.88, 0.25, 0.45)
    # A word, a code or two characters beside the value still make one fact.
    assert grouping.close_enough("大米一袋25kg。", "这袋米五十斤。", 0.7, 0.88, 0.25, 0.45)
    assert grouping.close_enough("G1372次高铁5月3日早上七点零五分发车。", "G1372：5月3日 7:05 开。", 0.7, 0.88, 0.25, 0.45)


@pytest.mark.parametrize("a, b, differ", [
    ("我的公积金卡是建设银行的。", "老公的公积金卡是工商银行的。", True),  # a held-out look-alike that merged
    ("我的护照明年到期。", "老公的护照明年到期。", True),
    ("我家的猫叫豆豆。", "我们家的猫叫豆豆。", False),
    ("儿子的学费一年三万八。", "儿子每年的学费是三万八千块。", False),  # one owner written inside the other
])
def test_a_thing_of_two_owners_is_two_facts(a, b, differ):
    assert (samefact.conflict(a, b) == "entities differ") == differ


def test_a_name_typed_without_its_accents_is_the_same_name():
    a, b = "ruairi castellanos-pike is the new head of security", "Head of Security – Ruairí Castellanos-Pike (joined this week)"
    assert samefact.restates(a, b) and samefact.conflict(a, b) is None
    assert grouping.why_apart(a, b) is None
    assert samefact.read("Café Nero, 9am").tokens == samefact.read("Cafe Nero, 9am").tokens
    assert samefact.read("新人入职培训：3/26").tokens == ("新", "人", "入", "职", "培", "训")  # Han stays


@pytest.mark.parametrize("a, b", [
    ("厨房的水龙头是九牧的。", "卫生间的水龙头是箭牌的。"),  # one shared word, 水龙头, in two character pairs
    ("我在红十字会那边负责急救培训的报名。", "小覃在红十字会那边负责物资登记。"),  # 十 in 红十字会; 在红 no given name
])
def test_held_out_chinese_look_alikes_are_not_near(a, b):
    # Two look-alike pairs of the clean heldout23 that merged: the English model puts them at 0.9.
    assert not grouping.close_enough(a, b, 0.92, 0.88, 0.25, 0.45)


def test_a_word_in_several_character_pairs_counts_once():
    assert grouping.words_shared("厨房的水龙头是九牧的。", "卫生间的水龙头是箭牌的。") == 1
    assert grouping.words_shared("我对花生过敏。", "我吃花生会过敏。") == 2
    assert grouping.close_enough("我对花生过敏。", "我吃花生会过敏。", 0.9, 0.88, 0.25, 0.45)


def test_ten_inside_a_word_is_no_number():
    assert "num" not in samefact.read("我在红十字会那边负责报名。").values
    assert "num" not in samefact.read("十字路口往左拐。").values
    assert samefact.read("他排第十，十个人里考了十分。").values["num"] == frozenset({"num:10"})


@pytest.mark.parametrize("a, b, s, near", [
    # an English note with Chinese words in it is read with Chinese texts (heldout34's
    # clusters): the English model reads neither well
    ("在绿野园艺买了两个集雨桶，一共三百六十元。", "water butt 两个 ¥360 绿野", 0.61, True),
    ("酒店那边确认了，云栖一共22桌", "we need 22 tables 婚宴那天 @云栖", 0.5, True),
    ("在绿野园艺买了两个集雨桶，一共三百六十元。", "water butt 两个 ¥360 from the garden centre", 0.61, False),
])
def test_a_note_mixing_chinese_into_english_is_read_as_chinese(a, b, s, near):
    from gitmem.lifecycle.grouping import close_enough

    assert close_enough(a, b, s, 0.88, 0.25, 0.45) is near
