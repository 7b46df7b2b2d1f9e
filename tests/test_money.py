"""Money in the currencies and notations the value reader learns from gitmem.lifecycle.money:
rand, rupees (Indian grouping, lakh, crore), yen, a dollar by its country's code; an amount
said as "twenty-eight and a half thousand"."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gitmem.lifecycle import samefact


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
