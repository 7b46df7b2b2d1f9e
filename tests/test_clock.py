"""Clock times and durations written the ways people jot them (issue 22, heldout25): a
time with no part of the day reads both ways, a four-digit 24-hour time, a time said as
"twenty to five", a span whose first hour takes the second's part of the day, Chinese
八点零五 and 14-16点, minutes and seconds as one duration, and pounds and pence as one
amount. Each pair below is one fact that dream kept as two before."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gitmem.lifecycle import kinds, quantities, samefact, values


def times(text: str) -> set[str]:
    return {v for v in values.extract(text)[0] if v.startswith("time:")}


@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=1, max_value=9), st.integers(min_value=0, max_value=59))
def test_a_time_with_no_part_of_the_day_agrees_with_either_and_am_and_pm_differ(h, m):
    bare, am, pm = f"at {h}:{m:02d}", f"at {h}:{m:02d}am", f"at {h}:{m:02d}pm"
    assert times(bare) == {f"time:{h}:{m:02d}", f"time:{h + 12}:{m:02d}"}
    assert samefact.conflict(f"Pickle's booster is {bare}.", f"Pickle's booster is {pm}.") is None
    assert samefact.conflict(f"Pickle's booster is {bare}.", f"Pickle's booster is {am}.") is None
    assert samefact.conflict(f"Pickle's booster is {am}.", f"Pickle's booster is {pm}.") == "values differ"


@pytest.mark.parametrize("text, expected", [
    ("appraisal at 10:00", {"time:10:00"}),  # two digits: a 24-hour clock
    ("Jet2 LBA → Split, dep 0610", {"time:6:10"}),
    ("we meet at 1830 hrs", {"time:18:30"}),
    ("nights commence 10/11/2025 @ 1930", {"time:19:30"}),  # after @: not the year 1930
    ("Rotorua half – bib #3307 – Sat 22/11 – 0730 gun", {"time:7:30"}),  # a note's field after a dash
    ("Brookfield ESC - cataract surgery - 10/20/2025 - 0730", {"time:7:30"}),  # ... a hyphen too (heldout45)
    ("Apiary visit: Gareth L., Tue Jun 3, 1400h", {"time:14:00"}),  # not 1400 hours
    ("twenty to five on 9 October", {"time:4:40", "time:16:40"}),
    ("Hernia repair for Dad: 3 June, ten to two in the afternoon", {"time:13:50"}),  # no span 10-2pm
    ("lesson 2-4pm on sat", {"time:14:00", "time:16:00"}),
    ("open 11-1pm", {"time:11:00", "time:13:00"}),
    ("羽毛球 周日14-16点 3号场", {"time:14:00", "time:16:00"}),  # 3号场 is a court, not 16:03
    ("周日下午2点到4点打球", {"time:14:00", "time:16:00"}),
    ("五月一号早上八点零五，北京西", {"time:8:05"}),
    ("at 24:00 sharp", {"time:24:00"}),
])
def test_clock_forms(text, expected):
    assert times(text) == expected


@pytest.mark.parametrize("text", ["20 to 25 people came", "it costs 0610", "room 0610 is free", "built in 1930",
                                  "@ 2460 a head", "ref - 0730291", "batch - 2460h"])
def test_numbers_that_are_no_time(text):
    assert times(text) == set()


@pytest.mark.parametrize("a, b", [
    ("My parkrun PB is now 24:37.", "parkrun PB: 24m37s"),
    ("parkrun PB: 24m37s", "Twenty-four minutes thirty-seven seconds is my best parkrun time."),
    ("aviva home insurance: £296.80", "two hundred and ninety-six pounds eighty for the aviva home insurance"),
    ("It was 5 dollars and 5 cents.", "It was $5.05."),
])
def test_one_duration_or_amount_written_two_ways(a, b):
    assert set(values.extract(a)[0]) == set(values.extract(b)[0])


def test_minutes_and_seconds_differ_from_another_duration():
    assert samefact.conflict("parkrun PB: 24m37s", "parkrun PB: 24m38s") == "values differ"


@pytest.mark.parametrize("a, b", [
    # "rm 5 w/ gwen" is no five watts, "room 5 at two" no ampere-turns
    ("appraisal tues 3rd feb 2pm rm 5 w/ gwen",
     "Meeting room 5 at two o'clock on the 3rd of February: that's my appraisal with Gwen Pritchard."),
    # 税后年终奖: after tax, the year-end bonus, not 后年 (the year after next)
    ("今年的年终奖税后是两万三千六。", "税后年终奖：2.36万"),
    ("爸妈医疗险 年缴 ¥8,460", "父母医疗险保费：8460元/年"),  # 父母 / 爸妈: one word
    ("高铁票买好了，五月一号早上八点零五，北京西，G307", "五一去成都坐G307，5月1日早上8点05分从北京西站出发。"),
])
def test_one_fact_in_two_shapes_has_no_conflict(a, b):
    assert samefact.conflict(a, b) is None


def test_no_unit_is_read_in_note_taking_shorthand():
    assert quantities.units("appraisal rm 5 w/ gwen") == {}
    assert "year" not in kinds.named("税后年终奖：2.36万")
    assert kinds.named("后年去日本")["year"] == {"后年"}


@pytest.mark.parametrize("text, expected", [
    ("Arrival: Leeds, 0620, 2 May.", {"time:6:20"}),
    ("Cat admitted 0900 on 4 June", {"time:9:00"}),
    ("picked up 0745 by the taxi", {"time:7:45"}),
])
def test_a_leading_zero_time_after_a_comma_or_a_word_of_arriving(text, expected):
    """A 24-hour time with its leading zero, where a note lists it or after a word of
    arriving or leaving (heldout33); "it costs 0610" and "room 0610" stay numbers."""
    assert times(text) == expected


@pytest.mark.parametrize("text, expected", [
    ("herd test thurs morning 9.30, vet coming", {"time:9:30", "time:21:30"}),
    ("theo 8wk imms wed 3 dec 10.40 ridgeway", {"time:10:40", "time:22:40"}),
    ("physio fri 14th march 8.15", {"time:8:15", "time:20:15"}),
])
def test_a_dotted_time_right_after_its_day(text, expected):
    """A dotted time with no part of the day right after the day it is on (heldout37,
    heldout40): "10.40" after "wed 3 dec" is twenty to eleven, as "10:40" would be."""
    assert times(text) == expected


@pytest.mark.parametrize("text", ["Eden Project trip – Fri 12.06, coach 07:45", "petrol was £1.45 a litre on monday",
                                  "rated 4.50 stars on tuesday", "release v1.30 on friday", "fri 3.5 miles easy"])
def test_dotted_numbers_that_stay_numbers(text):
    """After a weekday, "12.06" may be a day-first date; money, versions and distances are no time."""
    assert times(text) - {"time:7:45"} == set()


@pytest.mark.parametrize("a, b", [
    ("theo 8wk imms wed 3 dec 10.40 ridgeway", "Ridgeway Surgery - Theo - 8-week vaccinations - 03/12/2025 10:40"),
    ("herd test thurs morning 9.30", "Herd TB test booked: Thursday, 9:30am."),
])
def test_a_dotted_time_agrees_with_the_same_time_written_with_a_colon(a, b):
    assert samefact.conflict(a, b) is None
    assert samefact.conflict(a.replace("9.30", "9.45").replace("10.40", "11.40"), b) == "values differ"


@pytest.mark.parametrize("text", ["lachie tweed half 1:38:42 👍", "Result - L. Ferris, Tweed Coast Half, chip time 01:38:42",
                                  "Lachlan finished the Tweed Coast Half Marathon in 1:38:42."])
def test_hours_minutes_and_seconds_are_one_duration(text):
    """A race's chip time (heldout48): one duration, not "half 1" read as half past one."""
    assert set(values.extract(text)[0]) == {"qty:5922 [time]"}


@given(st.integers(0, 9), st.integers(0, 59), st.integers(0, 59))
@settings(max_examples=60, deadline=None)
def test_any_chip_time_reads_as_its_seconds(h, m, s):
    text = f"parkrun result {h}:{m:02d}:{s:02d}"
    assert values.extract(text)[0] == (f"qty:{h * 3600 + m * 60 + s} [time]",)


def test_half_before_a_clock_time_is_no_half_hour():
    assert times("the half 1:38:42") == set() and times("meet at half 7.") == {"time:7:30", "time:19:30"}


@pytest.mark.parametrize("text, date", [
    ("三舅的生日是农历八月十二。", "date:8-12"), ("三舅妈生日 农历腊月初六", "date:12-6"),
    ("正月十五元宵节", "date:1-15"), ("八月廿三回老家", "date:8-23"), ("农历十一月初三", "date:11-3"),
    ("腊月二十三小年", "date:12-23"), ("生日是八月十二号", "date:8-12"),
])
def test_a_lunar_date_is_a_month_and_a_day(text, date):
    """Chinese birthdays are often lunar (heldout49): 腊月初六 is a date, not nothing."""
    assert date in values.extract(text)[0]


def test_two_lunar_birthdays_of_an_uncle_and_his_wife_are_two_facts():
    """A heldout49 look-alike that merged: 三舅 and 三舅妈 are two people, their dates two days."""
    assert samefact.conflict("三舅的生日是农历八月十二。", "三舅妈生日 农历腊月初六") is not None
    assert samefact.conflict("三舅的生日是农历八月十二。", "三舅妈生日 农历八月十二") == "entities differ"
    assert samefact.conflict("三舅的生日是农历八月十二。", "三舅生日 农历八月十二") is None
    assert samefact.conflict("三舅的生日是农历八月十二。", "三舅生日 农历八月十三") == "values differ"


@pytest.mark.parametrize("a, b, same", [
    # 9:00 is read 9:00 or 21:00, 11点半 11:30 or 23:30: readings of one time on each side agree
    ("【通知】无偿献血活动 时间：2025年9月12日 9:00—11:30 地点：办公楼一层大厅", "9月12日献血 早上9点开始 11点半结束 就在楼下大堂", True),
    ("Choir practice at 7am in the hall.", "Choir practice at 7pm in the hall.", False),  # one dial, no reading in common
    ("Choir 7:00 in the hall, till 9:00", "Choir 7:00 in the hall, till 10:00", False),
])
def test_times_read_both_ways_agree_with_either_reading(a, b, same):
    assert (samefact.conflict(a, b) is None) is same


@settings(max_examples=100, deadline=None)
@given(st.integers(min_value=0, max_value=23), st.integers(min_value=0, max_value=23), st.sampled_from([0, 15, 30, 45]))
def test_two_times_on_the_clock_differ_unless_one_time(h1, h2, m):
    a, b = f"Swim lesson at {h1:02d}:{m:02d}.", f"Swim lesson at {h2:02d}:{m:02d}."
    assert (samefact.conflict(a, b) is None) is (h1 == h2)


def test_a_seat_number_is_no_day_of_the_month():
    assert not {v for v in values.extract("长安大戏院二楼三排十一号")[0] if v.startswith("mday:")}
    assert samefact.conflict("锁麟囊 11/22 19:15 长安 2楼3排11座 ¥380",
                             "给妈妈买了《锁麟囊》的票，11月22日晚上七点一刻，长安大戏院二楼3排11号，380元。") is None


def test_a_word_quantulum_cannot_read_is_no_unit():
    assert samefact.conflict("cozumel snorkel wed 2/11 10:15am pier $89pp",
                             "snorkeling in cozumel on the 11th, quarter past ten at the pier, eighty-nine a head") is None


@pytest.mark.parametrize("text, want", [
    ("drop-off is eight fifteen in the morning", {"time:8:15"}),
    ("class at seven forty-five pm", {"time:19:45"}),
    ("dress fitting #3 (final) — Bellamy — 8/2 11am", {"time:11:00"}),  # "2 11am" is a date's day and a time
])
def test_an_hour_and_minutes_said_as_two_numbers_before_the_part_of_the_day(text, want):
    assert times(text) == want


@settings(max_examples=100, deadline=None)
@given(st.integers(min_value=0, max_value=9), st.integers(min_value=0, max_value=59), st.integers(min_value=0, max_value=59))
def test_hours_minutes_and_seconds_with_letters_are_the_colon_duration(h, m, s):
    """"1h 38m 42s" and "1:38:42" (heldout48: a half marathon's time written both ways)."""
    lettered = {v for v in values.extract(f"Tweed Half: {h}h {m}m {s}s")[0] if v.startswith("qty:")}
    assert lettered == {f"qty:{h * 3600 + m * 60 + s} [time]"}


def test_an_ordinal_before_a_person_counter_is_no_count():
    assert not {v for v in values.extract("市第二人民医院门诊楼")[0] if v.endswith(" people")}
    assert "qty:5 people" in values.extract("我们5人去")[0]


def test_a_dates_day_before_a_dash_is_no_hour_of_a_span():
    assert times("bluffers 5k - sat 7/19 - 8am start") == {"time:8:00"}  # not 19:00 to 8am
    assert times("class 10 - 11am") == {"time:10:00", "time:11:00"}


def test_a_clock_time_before_a_name_starting_with_a_multiplier_is_a_time():
    """"07:00 千岛湖": 千 began the lake's name, and "00 千" was read as 0 thousand."""
    assert times("9/14 07:00 千岛湖10K") == {"time:7:00"}
    assert "num:20000" in values.extract("月薪 2 万")[0]


@given(st.integers(0, 23), st.integers(0, 59))
@settings(max_examples=60)
def test_a_dotted_time_after_leaving_or_arriving_is_a_time(h, m):
    """"last sunday bus from hexham leaves 17.50" / "final bus back 5.50 p.m." (the dotted
    time was read as the number 17.5); a leading zero is the 24-hour clock."""
    got = times(f"bus leaves {h:02d}.{m:02d}")
    assert f"time:{h}:{m:02d}" in got
    assert h >= 10 or got == {f"time:{h}:{m:02d}"}
    assert not times(f"lunch came to {h}.{m:02d}")  # an amount with no unit stays a number
