"""A day of the month said alone, where the month goes without saying ("gas man coming the
7th, morning", "on the nineteenth", 周六21号 9am, 十八号取): read as `mday:` the day, one date
with any month that has that day (a date of another day differs); against a text with no
date nor day it is the number it was read as before (摊位是十七号 / 摊位是七十一号). Values by
kind are gitmem.lifecycle.values.by_kind's. A weekday said against a date with its year is
that date's weekday or another ("Weds delivery" / "delivery 2025-11-07", a Friday: two facts)."""

from __future__ import annotations

import datetime

from gitmem.lifecycle.spans import ascii_re as _re, take as _take

# In English "the" and an ordinal before a word of
# time or place, a comma or the end, no second day after it ("the 3rd floor", "the 2nd time"
# are no day; "the 20th and 21st of June" is June's); in
# Chinese a number and 号 or 日 that no month comes before (每月 may: 每月5号, a day of every
# month), then a time, a verb or the end (not 3号楼, 2号线, 3号航站楼, a seat: 3排11号).
_MDAY_EN = _re(r"\bthe\s+([1-9]|[12]\d|3[01])(?:st|nd|rd|th)\b(?!\s*(?:and|or|to|till|until|&|-|–|—)\s*\d)(?=\s*(?:$|[,.;:!?)\-–—@]|\d|(?:for|at|in|from|"
               r"to|till|until|and|or|is|was|morning|afternoon|evening|night|am|pm|then|so|but|when|we|i|he|she|they|around|"
               r"about|before|after|noon|midday)\b|(?:half|quarter)\s+(?:past|to|\d)))")
_MDAY_ZH = _re(r"(?:(?<=每月)|(?<=每个月)|(?<![\d月/.\-路街道巷弄排层楼栋厢床])(?<!月 ))([1-9]|[12]\d|3[01])\s*[号號日](?!考场|考室|考点)(?=$|[\s，,。.；;：:！!？?）)、\dA-Za-z]|"
               r"[上下中早晚凌傍夜前后後之那当當来來去取到开開考交还還出回见見截周星起从從自扣缴繳付发發])")
_MONTH_BEFORE = _re(r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?,?\s*$")


def read_en(t: str, vals: list[str]) -> str:
    """English days of the month (casefolded text, number words read): appended to `vals`
    and blanked out of `t`; not a day after its month ("march the 7th": a date)."""
    return _take(_MDAY_EN, t, lambda m: None if _MONTH_BEFORE.search(m.string, 0, m.start())
                 else [f"mday:{int(m[1])}"], vals)


def read_zh(t: str, vals: list[str]) -> str:
    """Chinese days of the month, after the dates with their month are read."""
    return _take(_MDAY_ZH, t, lambda m: [f"mday:{int(m[1])}"], vals)


def day(date: str) -> str:
    """The day of the month of a `date:M-D` value."""
    return date.rsplit("-", 1)[-1]


def shared(vx: dict[str, frozenset[str]], vy: dict[str, frozenset[str]]) -> set[str]:
    """The days of the month and the dates with those days, one on each side (both values)."""
    return {v for x, y in ((vx, vy), (vy, vx)) for m in x.get("mday", frozenset())
            for d in y.get("date", frozenset()) if day(d) == m[5:] for v in (m, d)}


def differ(vx: dict[str, frozenset[str]], vy: dict[str, frozenset[str]]) -> bool:
    """Whether `vx` gives a day of the month with no month that none of `vy`'s dates has
    ("the 7th" / "Friday 8 March"), `vy` giving no such day of its own; or `vy` one date
    with its year and no weekday, whose weekday is none of `vx`'s weekdays, `vx` giving no
    year and no other date ("Weds delivery" or 10/16(五) / "delivery 2025-10-16")."""
    weekday = _weekday(vy)
    if weekday is not None and "day" in vx and "year" not in vx and "mday" not in vx \
            and vx.get("date", vy["date"]) == vy["date"]:
        return f"day:{weekday}" not in vx["day"]
    days = vx.get("mday", frozenset())
    if not days or "mday" in vy or "date" not in vy:
        return False
    return not {d[5:] for d in days} & {day(v) for v in vy["date"]}


def as_number(vx: dict[str, frozenset[str]], vy: dict[str, frozenset[str]]) -> dict[str, frozenset[str]] | None:
    """`vx` with its days of the month as the bare numbers they were read as before, where
    `vy` gives no date nor day; None when nothing changes."""
    days = vx.get("mday")
    if not days or "mday" in vy or "date" in vy:
        return None
    vals = {k: v for k, v in vx.items() if k != "mday"}
    vals["num"] = vals.get("num", frozenset()) | {"num:" + d[5:] for d in days}
    return vals


def _weekday(vals: dict[str, frozenset[str]]) -> int | None:
    """The weekday (Monday 0, as `day:` values) of the one date of `vals` with its one year,
    where they say no weekday of their own; None otherwise."""
    dates, years = vals.get("date", frozenset()), vals.get("year", frozenset())
    if len(dates) != 1 or len(years) != 1 or "day" in vals:
        return None
    (date,), (year,) = dates, years
    try:
        month, mday = (int(x) for x in date[5:].split("-"))
        return datetime.date(int(year[5:]), month, mday).weekday()
    except ValueError:
        return None
