"""Dates written with digits, for the value reader (gitmem.lifecycle.values): 2025-11-04,
11/4 (both readings where either could be the month: 09/04 is April 9th in Britain and
September 4th in the US), 13.10.2025, Nov 4 2025, 4 November, 2025年11月4日, 11月 and
2025年 alone, 24年 before 年终 or a month, a tax or school year spanning two (2023–24,
23/24), and a date keyed with hyphens (21-02-2025, 05-01): `date:M-D`, `year:Y`, `month:M`.
values.extract reads the dashed forms early (before digit groups are joined into one
number) and the rest after clock times."""

from __future__ import annotations

import re

from gitmem.core.calendar import MONTHS, alternation
from gitmem.lifecycle.spans import ascii_re as _re, take as _take

_MONTH_RE = alternation(MONTHS)
_DATES = [
    (_re(r"\b(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})\b"), "ymd"),
    (_re(r"(?:(\d{4}|(?<!\d)\d{2})\s*年\s*)?(\d{1,2})\s*月\s*(\d{1,2})\s*[日号號]"), "zh_ymd"),
    (_re(r"(\d{4})\s*年\s*(\d{1,2})\s*月"), "zh_ym"),
    (_re(r"(?<![\d/.])(\d{1,2})/(\d{1,2})(?:/(\d{2,4}))?(?![\d/])"), "md_slash"),
    (_re(r"(?<![\d.])(\d{1,2})\.(\d{1,2})\.(\d{4}|\d{2})(?!\d|\.\d)"), "dmy_dots"),  # 13.10.2025, 13.10.25
    (_re(rf"\b({_MONTH_RE})\.?\s+(?:the\s+)?(\d{{1,2}})(?:st|nd|rd|th)?\b(?:,?\s+((?:19|20)\d\d)\b)?"), "mdy"),
    (_re(rf"\b(?:the\s+)?(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?({_MONTH_RE})\b\.?(?:,?\s+((?:19|20)\d\d)\b)?"),
     "dmy"),
    (_re(r"\b(\d{4})-(\d{1,2})\b"), "ym"),
]
_ZH_MONTH = _re(r"(?<![\d.])(\d{1,2})\s*月份?")
_ZH_YEAR = _re(r"(?<![\d.])(\d{4})\s*年")
# 24年年终奖, 23年的体检, 24年底: a year by its last two digits (not 工作了24年, 满20年: a duration)
_ZH_SHORT_YEAR = _re(r"(?<![\d.了满过近多整足共])([12]\d)年(?=年终|的|底|初|春节|上半年|下半年|全年|\d{1,2}月)")

# A tax or school year spanning two: "2023–24", "2023/24", "23/24", "23-24" (the second
# the year after the first; two digits alone only from 13, so no month or day).
_YEAR_SPAN = _re(r"(?<![\d.:/£$€¥-])((?:19|20)?\d\d)\s?[-–/]\s?(\d\d)(?![\d/.-]|:\d|\s?[-–/]\s?\d)")
# A date keyed with hyphens, day or month first ("21-02-2025 0705": not one number), or
# month and day with a leading zero and no year ("G7561 05-01 8:36"); either order is read
# as md_slash reads 09/04.
_DASH_DATE = _re(r"(?<![\w.:/-])(\d{1,2})-(\d{1,2})-(19\d\d|20[0-4]\d)(?![\w-])")  # not 取件码6-3-2087
_DASH_MONTH_DAY = _re(r"(?<![\w.:/-])(?=0|\d\d-0)(\d\d)-(\d\d)()(?![\w:/-])")


def _year_span(m: re.Match) -> list[str] | None:
    first, second = int(m[1][-2:]), int(m[2])
    if second != (first + 1) % 100 or (len(m[1]) == 2 and first < 13):
        return None
    century = int(m[1][:2]) if len(m[1]) == 4 else 20
    return [f"year:{century * 100 + first}", f"year:{century * 100 + first + 1}"]


def _date(m: re.Match, kind: str) -> list[str] | None:
    if kind == "ymd":
        y, mo, d = m[1], int(m[2]), int(m[3])
    elif kind == "zh_ymd":
        y, mo, d = m[1], int(m[2]), int(m[3])
    elif kind == "zh_ym":
        return [f"year:{m[1]}", f"month:{int(m[2])}"] if 1 <= int(m[2]) <= 12 else None
    elif kind == "md_slash":  # 09/04: April 9th in Britain, September 4th in the US: both
        y, mo, d = m[3], int(m[1]), int(m[2])
        if mo > 12 >= d:
            mo, d = d, mo
        elif mo != d and d <= 12 and 1 <= mo:
            # ... and `slash:` as written: 03/04 and 04/03 in two notes are two dates
            year = [f"year:{'20' + y if len(y) == 2 else y}"] if y else []
            return [f"date:{mo}-{d}", f"date:{d}-{mo}", f"slash:{mo}/{d}"] + year
    elif kind == "dmy_dots":
        y, mo, d = m[3], int(m[2]), int(m[1])
    elif kind == "mdy":
        y, mo, d = m[3], MONTHS[m[1]], int(m[2])
    elif kind == "dmy":
        y, mo, d = m[3], MONTHS[m[2]], int(m[1])
    else:
        return [f"year:{m[1]}", f"month:{int(m[2])}"] if 1 <= int(m[2]) <= 12 else None
    if not (1 <= mo <= 12 and 1 <= d <= 31):
        return None
    out = [f"date:{mo}-{d}"]
    if y:
        out.append(f"year:{'20' + y if len(y) == 2 else y}")
    return out


def read_dashed(t: str, vals: list[str]) -> str:
    """`t` with its year spans and hyphened dates read into `vals` and blanked out."""
    t = _take(_YEAR_SPAN, t, _year_span, vals)
    t = _take(_DASH_DATE, t, lambda m: _date(m, "md_slash"), vals)
    return _take(_DASH_MONTH_DAY, t, lambda m: _date(m, "md_slash"), vals)


def read(t: str, vals: list[str]) -> str:
    """`t` with its dates, months and years with 年 read into `vals` and blanked out."""
    for pattern, kind in _DATES:
        t = _take(pattern, t, lambda m, k=kind: _date(m, k), vals)
    t = _take(_ZH_MONTH, t, lambda m: [f"month:{int(m[1])}"] if 1 <= int(m[1]) <= 12 else None, vals)
    t = _take(_ZH_YEAR, t, lambda m: [f"year:{m[1]}"], vals)
    return _take(_ZH_SHORT_YEAR, t, lambda m: [f"year:20{m[1]}"], vals)
