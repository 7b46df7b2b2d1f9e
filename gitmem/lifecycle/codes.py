"""Reference codes compared across two texts (a booking, a policy, a model): a code
against a name with another model number, a code against another identifier, and a code
one reader cut short before a group of digits. Values by kind are
gitmem.lifecycle.values.by_kind's."""

from __future__ import annotations

import re

from gitmem.core.calendar import MONTHS, WEEKDAYS
from gitmem.lifecycle.names import CURRENCY_CODES

_MODEL = re.compile(r"\b([A-Z][A-Za-z]+)\s+(\d{1,3})\b(?![.,:/]\d)")  # "OnePlus 12", "Pixel 8"
# ... not a place's label and a small number: "Flat 3", "Gate 12", "Platform 4" say where, not which
# model ("Hadley Hall 204" still names a room no ECON 110 coursework note holds)
_PLACES = frozenset("flat apt apartment unit room suite gate platform bay locker level floor block building "
                    "house plot pitch court lane row seat stand table ward bed desk studio hall lot pier dock".split())


def against_model(a: str, va: dict[str, frozenset[str]], b: str) -> bool:
    """Whether `a` (values by kind `va`) gives a code ("s24 back cover") and `b` a name
    with a model number ("OnePlus 12") the code does not hold and `a` does not name: two
    models ("NZ531" / "Air New Zealand 531" is one flight)."""
    codes = va.get("code", frozenset())
    low = a.lower()
    return bool(codes) and any(m[1].lower() not in low and not any(m[2] in c for c in codes)
                               and m[1].lower() not in MONTHS and m[1].lower() not in WEEKDAYS
                               and m[1].lower() not in CURRENCY_CODES  # "AUD 389": an amount
                               and not (m[1].lower() in _PLACES and len(m[2]) <= 2) and not _opener(m)
                               for m in _MODEL.finditer(b))


def _opener(m: re.Match) -> bool:
    """Whether a _MODEL match is a text's first word and a number ("Ordered 14 m²", "Our
    20-foot container"), not a make: only one capitalised inside (OnePlus) names one there."""
    return not m.string[:m.start()].strip() and m[1][1:].islower()


def against_number(va: dict[str, frozenset[str]], vb: dict[str, frozenset[str]]) -> bool:
    """Values by kind (`by_kind`) of two texts: a code on one side ("RP 20931") and, where
    the other has none, a number of three digits or more that is not in it ("permit
    311"): two identifiers."""
    codes = va.get("code", frozenset())
    if not codes or "code" in vb:
        return False
    amounts = {v[4:].split(" ", 1)[0] for v in vb.get("qty", frozenset())}  # "£285" is no identifier
    own = va.get("num", frozenset())  # "3U8886" and "川航3U8886" both hold 8886
    nums = [v[4:] for v in vb.get("num", frozenset()) - own
            if v[4:].isdigit() and len(v[4:]) >= 3 and v[4:] not in amounts]
    return any(not any(n in c for c in codes) for n in nums)


def joined(va: dict[str, frozenset[str]], vb: dict[str, frozenset[str]],
           words_b: frozenset[str] = frozenset()) -> dict[str, frozenset[str]] | None:
    """`vb` with a code its reader cut short before a group of digits ("ABJX 2025 1138 57":
    code abjx20251138 and the number 57), or read as letters and a number (`words_b`, the
    text's words: "bp 2025 04471"), read whole where `va` writes it whole (ABJX2025113857,
    BP-2025-04471); None when nothing joins."""
    codes_a, codes_b, nums = va.get("code"), vb.get("code", frozenset()), vb.get("num", frozenset())
    if not codes_a or not nums:
        return None
    join = {(c, n) for c in codes_b - codes_a for n in nums if c + n[4:] in codes_a}
    join |= {(c[:-len(n[4:])], n) for c in codes_a - codes_b for n in nums if len(n[4:]) >= 3 and c.endswith(n[4:])
             and (letters := c[5:-len(n[4:])]).isalpha() and letters in words_b}
    if not join:
        return None
    vals = dict(vb)
    vals["code"] = frozenset(codes_b - {c for c, _ in join} | {c + n[4:] for c, n in join})
    left = nums - {n for _, n in join}
    if left:
        vals["num"] = frozenset(left)
    else:
        vals.pop("num")
    return vals
