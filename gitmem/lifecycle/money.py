"""Money written the ways the world writes it, for the value reader (gitmem.lifecycle.values).

The reader knows $ € £ ¥ and their codes and words; this puts other currencies in the
shape it reads (an amount, then its unit word), before it takes letters and digits for a
reference code: "R28,500" and "ZAR 28 500.00" are 28500 rand (not the code R28), "₹42,300",
"Rs 18450" and "INR 18,450" rupees, "JPY 4500" yen; a dollar of any country written by its
code ("AUD 149", "CAD 129") is a dollar, as "A$149" and "$149" are (the reader cannot tell
one dollar from another by "$" alone). Indian grouping (₹78,00,000) and lakh / crore read as
the amounts they are, and "twenty-eight and a half thousand" as 28500."""

from __future__ import annotations

import re

# The currencies besides $ € £ ¥: the unit the reader writes, and the words after a number
# that name it (values.UNITS takes these).
UNITS = {"inr": ("rupee", "rupees", "inr", "rs", "卢比"), "zar": ("rand", "zar"), "jpy": ("yen", "jpy", "日元")}
# Codes and signs before an amount (any case but R, which is rand only in capitals and
# only before an amount written with thousands or a k: R28,500, R28 500, R28.5k; "R11000"
# and "R1 1000" are the reference codes they look like)
_CODES = {"inr": "rupees", "rs": "rupees", "rs.": "rupees", "₹": "rupees", "zar": "rand", "jpy": "yen",
          **dict.fromkeys(("aud", "cad", "nzd", "hkd", "sgd", "twd", "ntd"), "dollars")}
CURRENCY_WORDS = frozenset(_CODES.values())  # what read() writes after an amount
# (not a reference code that starts like one: "ZAR1-1000", "RS1 1000")
_AMOUNT = r"(\d+(?:,\d{2,3}|\s\d{3}(?!\d))*(?:\.\d+)?(?:\s?(?:k|lakhs?|lacs?|crores?)\b)?)(?![\d\-–/]|,\d|\s\d)"
# a sign (₹, Rs.) may touch the amount; a code of letters stands apart from it ("aud11000" is a code)
_BEFORE = re.compile(r"(?<![A-Za-z0-9])(?:(₹|rs\.)\s?|(" + "|".join(c for c in sorted(_CODES, key=len, reverse=True)
                                                         if c.isalpha()) + r")\s)" + _AMOUNT, re.I)
_RAND = re.compile(r"(?<![A-Za-z0-9])R\s?(\d{1,3}(?:[, ]\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?\s?k\b)(?![\d,])")
# 78,00,000 (Indian grouping: two digits between the commas, three at the end)
_LAKH_GROUPS = re.compile(r"(?<![\d.,])(\d{1,2}(?:,\d{2})+,\d{3})(?![\d,]*\d)")
LAKH = {"lakh": 100000, "lakhs": 100000, "lac": 100000, "lacs": 100000, "crore": 10000000, "crores": 10000000}
# "28 and a half thousand" (number words already read: "28.5 1000")
_HALF_THOUSANDS = re.compile(r"(?<![\d.])(\d+\.5)\s+(1000|1000000)(?![\d.,])")


def _amount(a: str) -> str:
    """An amount as written (28,500 / 28 500 / 28.5k) in plain digits before a unit word."""
    return a.replace(",", "").replace(" ", "")


def read(text: str) -> str:
    """`text` with the currencies the reader does not know written as an amount and its
    word ("R28,500" -> "28500 rand"), Indian grouping undone (78,00,000 -> 7800000)."""
    if not any(c.isdigit() for c in text):
        return text
    text = _LAKH_GROUPS.sub(lambda m: m[1].replace(",", ""), text)
    text = _RAND.sub(lambda m: f"{_amount(m[1])} rand", text)
    return _BEFORE.sub(lambda m: f"{_amount(m[3])} {_CODES[(m[1] or m[2]).lower()]}", text)


def half_thousands(text: str) -> str:
    """"28.5 1000" (twenty-eight and a half thousand, its words read) as 28500."""
    return _HALF_THOUSANDS.sub(lambda m: f"{float(m[1]) * int(m[2]):g}", text)
