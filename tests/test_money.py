"""Money in the currencies and notations the value reader learns from gitmem.lifecycle.money:
rand, rupees (Indian grouping, lakh, crore), yen, a dollar by its country's code; an amount
said as "twenty-eight and a half thousand"."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gitmem.lifecycle import samefact, values


def _money(text: str) -> frozenset[str]:
    return samefact.read(text).values.get("qty", frozenset())


@pytest.mark.parametrize("text, qty", [
    ("Dad's room at Jacaranda Lodge costs R28,500 a month.", "qty:28500 zar"),
    ("Jacaranda Lodge fees: R28 500 pm", "qty:28500 zar"),
    ("Monthly invoice: Jacaranda Lodge, ZAR 28,500.00", "qty:28500 zar"),
    ("jacaranda lodge = R28.5k/month for Dad", "qty:28500 zar"),
    ("twenty-eight and a half thousand rand a month for dad", "qty:28500 zar"),
    ("The home loan EMI is ₹42,300 a month.", "qty:42300 inr"),
    ("Premium of Rs 18450 for the motor policy", "qty:18450 inr"),
    ("Purchase price of the apartment: ₹78,00,000.", "qty:7800000 inr"),  # Indian grouping
    ("We bought the flat for ₹78 lakh.", "qty:7800000 inr"),
    ("Rs 1.2 crore for the plot", "qty:12000000 inr"),
    ("JPY 4500 for the ramen course", "qty:4500 jpy"),
    ("AUD 149 for the kids' bikes", "qty:149 usd"),  # a dollar by its code is a dollar, as $149 is
])
def test_currencies_the_reader_knows(text, qty):
    assert qty in _money(text)


@pytest.mark.parametrize("text", ["Droid R2 on the shelf", "Room R5 at 10am", "r500 is a code", "Ferry ref: R1 1000",
                                  "Booking R11000"])
def test_r_is_rand_only_in_capitals_before_an_amount(text):
    assert not any(v.endswith(" zar") for v in _money(text))


@settings(max_examples=200, deadline=None)
@given(st.integers(min_value=1000, max_value=9_999_999))
def test_rand_written_three_ways_is_one_amount(n):
    forms = [f"Fees: R{n:,}", f"Fees: ZAR {n}", f"Fees: {n} rand", f"Fees: R{n:,}".replace(",", " ")]
    assert all(_money(t) == {f"qty:{n} zar"} for t in forms), forms


@settings(max_examples=200, deadline=None)
@given(st.integers(min_value=1, max_value=99), st.integers(min_value=0, max_value=99))
def test_indian_grouping_and_lakh_agree(lakh, rest):
    n = lakh * 100000 + rest * 1000
    grouped = f"{lakh},{rest:02d},000"
    assert _money(f"Price: ₹{grouped}") == {f"qty:{n} inr"}
    if rest == 0:
        assert _money(f"Price: ₹{lakh} lakh") == {f"qty:{n} inr"}


@pytest.mark.parametrize("a, b, same", [
    ("Dad's room at Jacaranda Lodge costs R28,500 a month.", "twenty-eight and a half thousand rand a month for dad at jacaranda", True),
    ("Dad's room at Jacaranda Lodge costs R28,500 a month.", "Mum's room at Jacaranda Lodge costs R26,500 a month.", False),
    ("The user's home loan EMI to HDFC Bank is ₹42,300 a month.",
     "Each month forty-two thousand three hundred rupees goes to HDFC as the housing loan instalment.", True),
])
def test_one_amount_in_two_notations_is_one_fact(a, b, same):
    assert (samefact.conflict(a, b) is None) is same


@settings(max_examples=200, deadline=None)
@given(st.integers(min_value=1, max_value=99), st.integers(min_value=1, max_value=99))
def test_lakh_said_with_thousands_is_one_amount(lakh, thousands):
    """"one lakh eighty-five thousand" is 185000 (text2num wrote "1 lakh 85000", then read 10000085000)."""
    from num2words import num2words

    said = f"Rupees {num2words(lakh)} lakh {num2words(thousands)} thousand only"
    assert f"num:{lakh * 100000 + thousands * 1000}" in values.extract(said)[0], said


@pytest.mark.parametrize("a, b, same", [
    ("公积金贷款批下来了，65万，25年，利率2.85%。", "gjj贷款批了 65w 25年 2.85", True),  # 65w after Chinese is 65万
    ("公积金贷款批下来了，65万，25年，利率2.85%。", "gjj贷款批了 55w 25年 2.85", False),
    ("The Eaglewood Golf Club annual subscription is ₹1,85,000, due 31st March 2026.",
     "Rupees one lakh eighty-five thousand only for Eaglewood membership, deadline end of March.", True),
])
def test_ten_thousands_and_lakhs_said_the_short_and_the_long_way(a, b, same):
    assert (samefact.conflict(a, b) is None) is same


def test_watts_after_chinese_stay_watts():
    assert "num:65" in values.extract("买了个65w快充充电头")[0]


@pytest.mark.parametrize("text, want", [
    ("每个月要还一千二百四十五块八，分十二期", "qty:1245.8 cny"),  # heldout52: read as 1000245.8
    ("两千三百块五", "qty:2300.5 cny"),
    ("一万二千五百点五元", "qty:12500.5 cny"),
])
def test_yuan_and_jiao_after_thousands_are_one_amount(text, want):
    assert want in values.extract(text)[0]


def test_ten_thousands_as_w_before_a_bracket():
    assert samefact.conflict("年终奖 3.86w（税后）", "年终奖金额：叁万捌仟陆佰元整（税后）") is None
