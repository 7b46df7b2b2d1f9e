"""Clock times in a text, as `time:H:MM` values (gitmem.lifecycle.values reads the rest).

3pm / 15:00 / 3 PM / "three in the afternoon" / 下午三点 -> `time:15:00`; "a quarter to
eight" -> `time:7:45`. A time written with no part of the day ("half seven", "seven
o'clock", 九点二十, "4:40") reads both ways, morning and evening, as a slash date reads
both its dates: "4:40" agrees with 16:40 and with 4.40am, "4.40am" and "4.40pm" differ.
Two digits ("10:00", "06:10", "dep 0610") are a 24-hour clock. In a span
("2-4pm", 14-16点, 下午两点到四点) an hour with no part of the day takes the other's.
The text comes in casefolded, with numbers already in digits."""

from __future__ import annotations

import re

from gitmem.lifecycle.quantities import fmt
from gitmem.lifecycle.spans import BLANK, ascii_re as _re, take as _take

_PERIOD = r"(a\.?m\b\.?|p\.?m\b\.?|in the morning|in the afternoon|in the evening|at night|tonight)"
# "at 4:40", "tues 4:40 for her booster": no part of the day, both readings (no leading zero)
_TIME_COLON = _re(rf"\b(\d{{1,2}}):(\d{{2}})(?::\d{{2}})?(?:\s*{_PERIOD})?(?![\d])")
_TIME_SPOKEN = _re(rf"(?<![\d/.:,-])\b(\d{{1,2}}) ([0-5]\d)\s*{_PERIOD}")  # "eight fifteen in the morning" (read as 8 15)
_TIME_DOT = _re(rf"\b(\d{{1,2}})\.(\d{{2}})\s*{_PERIOD}")
_TIME_HOUR = _re(rf"\b(\d{{1,2}})\s*(?:o'?clock\s*)?{_PERIOD}")
_TIME_OCLOCK = _re(r"\b(\d{1,2})\s*o'?clock\b")
# What may follow a time said in words: a part of the day, the end of a clause, or when
# ("on", "at", a weekday): "half eight saturday mornings", "twenty to five on 9 october".
_WHEN = (rf"(?:\s*(?:o'?clock\s*)?{_PERIOD}|(?=\s*(?:[.,;:!)]|$|(?:on|at|every|this|next|tomorrow|tonight|"
         r"(?:mon|tues?|wed(?:nes)?|thu(?:rs?)?|fri|sat(?:ur)?|sun)(?:day)?s?)\b)))")
# "twenty past eleven"; "twenty to five" only where a time is said ("20 to 25 people" is not)
_TIME_QUARTER = _re(rf"\b(?:a\s+)?(quarter|half|\d{{1,2}}\s+minutes?|[12]?[05](?=\s+past))\s+(past|after|to|before)\s+"
                    rf"(\d{{1,2}})(?:\s*{_PERIOD})?")
_TIME_TO = _re(rf"\b(5|10|20|25)\s+(to|before)\s+(\d{{1,2}}){_WHEN}")
# ... or after "at", whatever follows ("grab jasper at ten to three from the gate")
_TIME_TO_AT = _re(rf"(?<=\bat )(5|10|20|25)\s+(to|before)\s+(\d{{1,2}})\b(?:\s*{_PERIOD})?")
# British "half eight" (8.30) where a time is said; "half 8 kids" is no time
_TIME_HALF_HOUR = _re(rf"\bhalf\s+(\d{{1,2}})(?![:.]\d){_WHEN}")  # not "tweed half 1:38:42"
_TIME_WORD = _re(r"\b(noon|midday|midnight)\b")
# A dotted time with no part of the day right after the day it is on ("thurs morning 9.30",
# "wed 3 dec 10.40"): not "£10.40", "v1.30", "rated 4.50"
_TIME_DOT_DAY = _re(r"(\b(?:(?:mon|tues?|wed(?:nes)?|thu(?:rs?)?|fri|sat(?:ur)?|sun)(?:day)?s?|morning|afternoon|evening|"
                    r"tonight|today|tomorrow|\d{1,2}(?:st|nd|rd|th)?\s+(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)"
                    r"[a-z]*|(?<![\d./])\d{1,2}/\d{1,2}(?:/(?:\d\d)?\d\d)?)\.?,?\s+)(\d{1,2})\.([0-5]\d)\b(?![.,]\d)")  # "sun 9/6 8.30"
# ... or after leaving, arriving or boarding ("last bus leaves 17.50", "departing 06.25")
_TIME_DOT_GOING = _re(r"(\b(?:leaves?|leaving|departs?|departing|departure|dep|arrives?|arriving|arr|lands?|landing|"
                      r"boarding|boards|kick-?off|doors)\s+)(\d{1,2})\.([0-5]\d)\b(?![.,]\d)")
# "twenty to midnight", "quarter past noon": minutes from an hour named by a word
_TIME_FROM_WORD = _re(r"\b(?:a\s+)?(quarter|half|\d{1,2})(?:\s+minutes?)?\s+(past|after|to|before)\s+"
                      r"(noon|midday|midnight)\b")
# "dep 0610", "at 0945", "1830 hrs", "1400h", "@ 1930": a 24-hour clock in four digits
# ... and with its leading zero after a word of arriving or leaving, or a comma or a dash in a
# list ("Arrival: Manchester, 0740", "admit 0800", "cataract surgery - 10/20/2025 - 0730"; not
# "it costs 0610", "room 0610")
_FOUR_AFTER = ("admit ", "admitted ", "arrive ", "arrives ", "lands ", "leaves ", "departs ", "depart ", "from ",
               "until ", "till ", "by ", "off ", "up ", "in ", "starts ", "start ", ", ", "– ", "— ", " - ",
               # ... or a record's field after a date's ("Landcare | 09-06-2024 | 0830", read by then)
               f"{BLANK} | ", f"{BLANK} ｜ ", f"{BLANK}｜")
_TIME_FOUR = _re(r"(?:(?:" + "|".join(rf"(?<={re.escape(w)})" for w in _FOUR_AFTER)
                 + r")0(\d)([0-5]\d)(?![\d:/]|[.,]\d)|"
                 r"(?:(?<=dep )|(?<=dep\. )|(?<=arr )|(?<=arr\. )|(?<=at )|(?<=@)|(?<=@ ))0(\d)([0-5]\d)(?![\d.,:/])|"
                 r"(?<![\d.,:/$£€¥-])([01]\d|2[0-3])([0-5]\d)(?:(?=\s*hrs?\b)|h\b)(?![\d.,:/])|"
                 r"(?:(?<=@)|(?<=@ ))(1\d|2[0-3])([0-5]\d)(?![\d.,:/]))")  # "nights commence 10/11/2025 @ 1930"
# "0900-1300" (a booking's hours): two 24-hour times, the first with its leading zero ("1000-1200
# words" is a range of numbers)
# (not a year after the date: "14/3 2025"; a time from 20:00 to 20:59 is read as one there)
_SLASH_DATE_FOUR = _re(r"(?:(?<=\d/\d )|(?<=\d/\d\d ))((?:[01]\d|2[1-3])[0-5]\d)(?![\d.,:/h])")
_FOUR_SPAN = _re(r"(?<![\d.,:/$£€¥-])0(\d)([0-5]\d)\s*[-–—]\s*([01]\d|2[0-3])([0-5]\d)(?![\d.,:/])")
# "2-4pm", "10.30-12pm": the first hour of a span takes the second's part of the day
_SPAN_EN = _re(rf"(?<![/.:-])\b(\d{{1,2}})(?:[:.](\d{{2}}))?\s*(?:-|–|—|to|till|until)\s*(?=\d{{1,2}}(?:[:.]\d{{2}})?\s*{_PERIOD})")
_ZH_PERIOD = "凌晨|清晨|早上|早晨|上午|中午|下午|傍晚|晚上|夜里|夜间|半夜|晚|早"  # 每晚21:30, 早8点
# 9点20 (minutes written straight after), 9点 20分; not "16点 3号场" (a court)
_ZH_TIME = _re(rf"({_ZH_PERIOD})?\s*(\d{{1,2}})\s*[点點时](?:(\d{{1,2}})(?!\s*[号個个位楼层岁])\s*分?|\s*(\d{{1,2}})\s*分|"
               r"(半)|(一刻)|(三刻))?")
_ZH_TIME_COLON = _re(rf"({_ZH_PERIOD})\s*(\d{{1,2}}):(\d{{2}})")
# 差两分十二点 (two minutes to twelve): 11点58分
_ZH_TO_HOUR = _re(rf"({_ZH_PERIOD})?\s*差\s*(\d{{1,2}})\s*分钟?\s*(\d{{1,2}})\s*[点點]")
# ... and 九点差五分 (five to nine), the hour first
_ZH_HOUR_LESS = _re(rf"({_ZH_PERIOD})?\s*(\d{{1,2}})\s*[点點]\s*差\s*(\d{{1,2}})\s*分钟?")
# 14-16点, 两点到四点, 下午2点到4点: the first hour of a span is a clock time too, and an
# hour with no part of the day takes the other's
_ZH_SPAN = _re(rf"({_ZH_PERIOD})?\s*(\d{{1,2}})\s*([点點时]?)\s*([-–—~～到至])\s*({_ZH_PERIOD})?(?=\s*(\d{{1,2}})\s*[点點时])")


def _hour(h: int, period: str | None) -> int:
    p = (period or "").replace(".", "").strip()
    if p in ("pm", "in the afternoon", "in the evening", "tonight", "下午", "傍晚", "晚上", "晚") and h < 12:
        return h + 12
    if p in ("at night", "夜里", "夜间") and 6 <= h < 12:
        return h + 12
    if p == "中午" and h < 6:
        return h + 12
    if p in ("am", "in the morning", "凌晨", "半夜") and h == 12:
        return 0
    return h


def _time(h: int, m: int, period: str | None = None) -> str | None:
    h = _hour(h, period)
    return f"time:{h}:{m:02d}" if (0 <= h <= 23 or (h, m) == (24, 0)) and 0 <= m < 60 else None


def either_half(h: int, m: int, period: str | None) -> list[str] | None:
    """A clock time with no part of the day ("half seven", "seven o'clock", "4:40"):
    morning or evening, both readings (as a slash date's two); with one, that one."""
    if period or not 1 <= h <= 11:
        got = _time(h, m, period)
        return [got] if got else None
    return [f"time:{h}:{m:02d}", f"time:{h + 12}:{m:02d}"]


def _hour_minute(m: re.Match) -> list[str] | None:
    """An hour, its minutes and a part of the day (groups 1-3): "7.45pm", "8 15 in the morning"."""
    got = _time(int(m[1]), int(m[2]), m[3])
    return [got] if got else None


def _to_hour(m: re.Match) -> str:
    """_ZH_TO_HOUR's time written as minutes past the hour before (差两分12点 -> 11点58分)."""
    before = int(m[2])
    return f"{m[1] or ''}{int(m[3]) - 1 or 12}点{60 - before}分" if 0 < before < 60 else m[0]


def _colon(m: re.Match) -> list[str] | None:
    if m[3] is None and len(m[1]) == 1:  # "4:40"; "10:00", "04:40" are a 24-hour clock's
        return either_half(int(m[1]), int(m[2]), None)
    got = _time(int(m[1]), int(m[2]), m[3])
    return [got] if got else None


def _zh_clock(m: re.Match) -> list[str] | None:
    """下午三点半, 9点20, 二十一时二十分: with no part of the day, N点 (1-11) reads both ways
    (晚自习九点二十下课 is 21:20), as "half seven" does; N时 is a 24-hour clock."""
    h = int(m[2])
    mins = 30 if m[5] else 15 if m[6] else 45 if m[7] else int(m[3] or m[4] or 0)
    if m[1] is None and "时" not in m[0]:
        return either_half(h, mins, None)
    got = _time(h, mins, m[1])
    return [got] if got else None


def _quarter(m: re.Match) -> list[str] | None:
    """"quarter to seven": with no part of the day, morning or evening (as "half seven")."""
    amount = {"quarter": 15, "half": 30}.get(m[1]) or int(m[1].split()[0])
    h = int(m[3])
    if m[2] in ("to", "before"):
        if not m[4] and h == 1 and 0 < amount < 60:  # "quarter to one": 0:45 or 12:45
            return [f"time:0:{60 - amount:02d}", f"time:12:{60 - amount:02d}"]
        h, mins = (h - 1) % 24, 60 - amount
    else:
        mins = amount
    return either_half(h, mins, m[4]) if 0 < amount < 60 and 1 <= int(m[3]) <= 24 else None


def _word_hour(m: re.Match) -> list[str] | None:
    amount = {"quarter": 15, "half": 30}.get(m[1]) or int(m[1])
    h = 0 if m[3] == "midnight" else 12
    if not 0 < amount < 60:
        return None
    got = _time((h - 1) % 24, 60 - amount) if m[2] in ("to", "before") else _time(h, amount)
    return [got] if got else None


def _span_en(m: re.Match) -> str:
    """"2-4pm" as "2 pm - 4pm" (when the first hour is not later than the second: "11-1pm"
    reads its 11 with no part of the day)."""
    rest = m.string[m.end():]
    second = int(re.match(r"\d{1,2}", rest)[0])
    if re.match(r"(?:5|10|20|25)\s*to\b", m[0]) and not re.search(r"\b(?:from|between)\s*$", m.string[:m.start()]):
        return m[0]  # "five to seven in the morning" is 6:55, "ten to two in the afternoon" 13:50; "from five to seven pm" a span
    period = re.match(rf"\d{{1,2}}(?:[:.]\d{{2}})?\s*{_PERIOD}", rest)[1]
    if int(m[1]) > second or int(m[1]) > 12:  # "11-1pm": 11 with no part of the day
        return f"{m[1]}:{m[2] or '00'} - "
    return f"{m[1]}{':' + m[2] if m[2] else ''} {period} - "


def _zh_span(m: re.Match) -> str:
    in_order = int(m[2]) <= int(m[6])  # 晚上10点到2点: the 2 is no evening hour
    first, second = m[1] or (m[5] if in_order else "") or "", m[5] or (m[1] if in_order else "") or ""
    return f"{first}{m[2]}{m[3] or '点'}{m[4]}{second}"


_PART_OF_DAY = re.compile(r"morning|afternoon|evening|tonight|today|tomorrow")


def _kept_day(m: re.Match, vals: list[str], going: bool = False) -> str:
    """_TIME_DOT_DAY's time (or _TIME_DOT_GOING's, `going`), read and blanked; the day
    before it stays to be read as a date."""
    got = [f"time:{int(m[2])}:{m[3]}"] if going and m[2].startswith("0") else either_half(int(m[2]), int(m[3]), None)
    if not got or (not going and int(m[3]) <= 12 and m[1][0].isalpha() and not _PART_OF_DAY.match(m[1])):  # "Fri 12.06": a date
        return m[0]
    vals.extend(got)
    return m[1] + BLANK


def read(t: str, vals: list[str]) -> str:
    """Clock times written with digits: appended to `vals` and blanked out of `t`.
    Times are read before dates (11/4 is a date, 7:45 a time)."""
    t = _SPAN_EN.sub(_span_en, t)
    t = _ZH_SPAN.sub(_zh_span, t)
    # 02:00 with its leading zero is a 24-hour clock: 每晚 02:00 is two at night, not 14:00
    t = _take(_ZH_TIME_COLON, t, lambda m: [x for x in [_time(int(m[2]), int(m[3]),
                                                             None if m[2].startswith("0") else m[1])] if x]
              or None, vals)
    t = _ZH_TO_HOUR.sub(_to_hour, _ZH_HOUR_LESS.sub(lambda m: f"{m[1] or ''}差{m[3]}分{m[2]}点", t))
    t = _SLASH_DATE_FOUR.sub(r"\1h", t)  # "fri 14/3 0635": a 24-hour time after a date
    t = _take(_ZH_TIME, t, _zh_clock, vals)
    t = _take(_TIME_QUARTER, t, _quarter, vals)
    t = _take(_TIME_TO, t, _quarter, vals)
    t = _take(_TIME_TO_AT, t, _quarter, vals)
    t = _take(_TIME_HALF_HOUR, t, lambda m: either_half(int(m[1]), 30, m[2]), vals)
    t = _take(_TIME_COLON, t, _colon, vals)
    t = _take(_TIME_SPOKEN, t, _hour_minute, vals)
    t = _take(_TIME_DOT, t, _hour_minute, vals)
    t = _TIME_DOT_DAY.sub(lambda m: _kept_day(m, vals), t)
    t = _TIME_DOT_GOING.sub(lambda m: _kept_day(m, vals, going=True), t)
    t = _take(_TIME_HOUR, t, lambda m: [x for x in [_time(int(m[1]), 0, m[2])] if x] or None, vals)
    t = _take(_TIME_OCLOCK, t, lambda m: either_half(int(m[1]), 0, None), vals)
    t = _take(_FOUR_SPAN, t, lambda m: [x for x in [_time(int(m[1]), int(m[2])), _time(int(m[3]), int(m[4]))] if x] or None, vals)
    return _take(_TIME_FOUR, t, lambda m: [x for x in [_time(int(m[1] or m[3] or m[5] or m[7]), int(m[2] or m[4] or m[6] or m[8]))] if x] or None,
                 vals)


def read_words(t: str, vals: list[str]) -> str:
    """Times named by a word ("noon", "twenty to midnight"), digits or not."""
    t = _take(_TIME_FROM_WORD, t, _word_hour, vals)
    return _take(_TIME_WORD, t, lambda m: ["time:0:00" if m[1] == "midnight" else "time:12:00"], vals)


_H_MM = _re(r"\b(\d{1,2})h(\d{2})\b")  # 2h30: two and a half hours
_H_M_S = _re(r"(?<![\d.])(\d{1,2})\s*h(?:rs?|ours?)?\s*(\d{1,2})\s*m(?:ins?|inutes?)?\s*(\d{1,2})\s*s(?:ecs?|econds?)?\b")  # 1h 38m 42s
# 24m37s, 24 minutes 37 seconds, 24:37 where no clock reads it (24 and over): one duration
_MIN_SEC = _re(r"(?<![\d.])(\d+)\s*(?:m|mins?|minutes?)\s*(?:and\s+)?(\d{1,2})\s*(?:s|secs?|seconds?)\b")
# 1:38:42, 01:38:42 (a race's chip time): hours, minutes and seconds, one duration
_H_MM_SS = _re(r"(?<![\d.:])(0?\d):([0-5]\d):([0-5]\d)(?![\d:])(?!\s*[ap]\.?m\b)")
_MM_SS = _re(r"(?<![\d.:])(24(?!:00)|2[5-9]|[3-9]\d)(?::|m\s*)([0-5]\d)(?![\d:])")  # 24:00 is midnight


def _seconds(m: re.Match) -> str:
    """Hours, minutes and seconds (groups 1-3) as one duration in seconds."""
    return f"{int(m[1]) * 3600 + int(m[2]) * 60 + int(m[3])} seconds"


def durations(t: str) -> str:
    """`t` (casefolded) with its durations in hours or seconds: 2h30, 1:38:42, 24m37s, 24:37."""
    t = _H_M_S.sub(_seconds, t)
    t = _H_MM.sub(lambda m: fmt(int(m[1]) + int(m[2]) / 60) + " hours", t)
    t = _H_MM_SS.sub(_seconds, t)
    t = _MIN_SEC.sub(lambda m: f"{int(m[1]) * 60 + int(m[2])} seconds", t)
    return _MM_SS.sub(lambda m: f"{int(m[1]) * 60 + int(m[2])} seconds", t)


def times_differ(a: frozenset[str], b: frozenset[str]) -> bool:
    """Whether two texts' clock times (`time:H:MM` values) say different times: each side
    states a time of day the other does not, or both state one hour and minute of the dial
    at no reading in common ("7am" / "7pm"). A time read both ways agrees with either
    reading, so "9:00—11:30" (9:00 or 21:00) and 早上9点…11点半 (11:30 or 23:30) agree."""
    def dial(ts: frozenset[str]) -> dict[str, set[str]]:
        out: dict[str, set[str]] = {}
        for v in ts:
            h, m = v[5:].split(":")
            out.setdefault(f"{int(h) % 12}:{m}", set()).add(v)
        return out
    da, db = dial(a), dial(b)
    if any(not (da[k] & db[k]) for k in da.keys() & db.keys()):
        return True
    return bool(da.keys() - db.keys()) and bool(db.keys() - da.keys())
