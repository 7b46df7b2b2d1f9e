"""Dates a query names (English and Chinese), and the lift for memories created then."""

from __future__ import annotations

import datetime as dt
import re
import unicodedata

import numpy as np

from gitmem.core.calendar import MONTHS, alternation
from gitmem.core.tokens import CJK_CHAR
from gitmem.index import Snapshot

_MON = rf"({alternation(MONTHS)})\.?"
_DATE_PATTERNS = [
    ("ymd", re.compile(r"\b(\d{4})-(\d{1,2})-(\d{1,2})\b")),
    ("dmy", re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?(?:\s+of)?\s+{_MON},?\s+(\d{{4}})\b", re.I)),
    ("mdy", re.compile(rf"\b{_MON}\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+(\d{{4}})\b", re.I)),
    ("my", re.compile(rf"\b{_MON},?\s+(\d{{4}})\b", re.I)),
    ("y", re.compile(r"\b(?:in|during|of|from)\s+(\d{4})\b", re.I)),
    ("rel", re.compile(r"\b(today|yesterday|this week|last week|this month|last month|this year|last year)\b",
                       re.I)),
]


def query_window(query: str, now: float) -> tuple[float, float, str] | None:
    """The period a query names ("on 9 November 2022", "in January 2024", "2024-03-01",
    "last week", "2023年5月9日", "上个月"), as [start, end) epoch seconds (UTC) and the
    words that named it."""
    for kind, rx in _DATE_PATTERNS:
        m = rx.search(query)
        if not m:
            continue
        try:
            if kind == "ymd":
                a = dt.datetime(int(m[1]), int(m[2]), int(m[3]), tzinfo=dt.timezone.utc)
                b = a + dt.timedelta(days=1)
            elif kind == "dmy":
                a = dt.datetime(int(m[3]), MONTHS[m[2].lower()], int(m[1]), tzinfo=dt.timezone.utc)
                b = a + dt.timedelta(days=1)
            elif kind == "mdy":
                a = dt.datetime(int(m[3]), MONTHS[m[1].lower()], int(m[2]), tzinfo=dt.timezone.utc)
                b = a + dt.timedelta(days=1)
            elif kind == "my":
                y, mo = int(m[2]), MONTHS[m[1].lower()]
                a = dt.datetime(y, mo, 1, tzinfo=dt.timezone.utc)
                b = dt.datetime(y + (mo == 12), mo % 12 + 1, 1, tzinfo=dt.timezone.utc)
            elif kind == "y":
                a = dt.datetime(int(m[1]), 1, 1, tzinfo=dt.timezone.utc)
                b = dt.datetime(int(m[1]) + 1, 1, 1, tzinfo=dt.timezone.utc)
            else:
                a, b = _relative(m[1].lower(), now)
        except (ValueError, KeyError):
            continue
        return a.timestamp(), b.timestamp(), m[0]
    return _zh_window(query, now) if CJK_CHAR.search(query) else None


# Chinese dates: 2023年5月9日 (or 号), 2023年5月, 5月9日 (the current year), 2023年, and
# 今天 昨天 前天 本周/这周 上周 这个月 上个月 今年 去年. Month and day in digits or in
# Chinese numerals (五月九号, 十二月二十日).
_ZH_NUM = r"\d{1,2}|[一二三四五六七八九十]{1,3}"
_ZH_DATE_PATTERNS = [
    ("ymd", re.compile(rf"(\d{{4}})\s*年\s*({_ZH_NUM})\s*月\s*({_ZH_NUM})\s*[日号號]")),
    ("ym", re.compile(rf"(\d{{4}})\s*年\s*({_ZH_NUM})\s*月")),
    ("md", re.compile(rf"(?<![\d年])({_ZH_NUM})\s*月\s*({_ZH_NUM})\s*[日号號]")),
    ("y", re.compile(r"(?<!\d)(\d{4})\s*年")),
    # 上 after 晚/早/马… is another word (晚上周末, 马上个月): not a period.
    ("rel", re.compile("今天|今日|昨天|昨日|前天|本周|这周|这个?星期|这个?礼拜|这个月|本月|今年|去年"
                       "|(?<![晚早马路楼桌身台])上(?:周|个?星期|个?礼拜|个?月)")),
]
_ZH_REL = {"今天": "today", "今日": "today", "昨天": "yesterday", "昨日": "yesterday",
           "本周": "this week", "这周": "this week", "上周": "last week",
           "这个月": "this month", "本月": "this month", "今年": "this year", "去年": "last year"}


def _zh_number(text: str) -> int:
    """1-99 in digits or Chinese numerals (九, 十, 十二, 二十, 三十一)."""
    if text.isdigit():
        return int(text)
    digits = "一二三四五六七八九"
    if "十" not in text:
        if len(text) != 1:
            raise ValueError(text)
        return digits.index(text) + 1
    tens, _, ones = text.partition("十")
    if len(tens) > 1 or len(ones) > 1 or "十" in ones:
        raise ValueError(text)
    return (digits.index(tens) + 1 if tens else 1) * 10 + (digits.index(ones) + 1 if ones else 0)


def _zh_window(query: str, now: float) -> tuple[float, float, str] | None:
    """query_window for the Chinese forms (UTC days, like the English ones)."""
    text = unicodedata.normalize("NFKC", query)
    utc = dt.timezone.utc
    for kind, rx in _ZH_DATE_PATTERNS:
        for m in rx.finditer(text):
            try:
                if kind == "ymd":
                    a = dt.datetime(int(m[1]), _zh_number(m[2]), _zh_number(m[3]), tzinfo=utc)
                    b = a + dt.timedelta(days=1)
                elif kind == "md":
                    year = dt.datetime.fromtimestamp(now, utc).year
                    a = dt.datetime(year, _zh_number(m[1]), _zh_number(m[2]), tzinfo=utc)
                    b = a + dt.timedelta(days=1)
                elif kind == "ym":
                    y, mo = int(m[1]), _zh_number(m[2])
                    a = dt.datetime(y, mo, 1, tzinfo=utc)
                    b = dt.datetime(y + (mo == 12), mo % 12 + 1, 1, tzinfo=utc)
                elif kind == "y":
                    a = dt.datetime(int(m[1]), 1, 1, tzinfo=utc)
                    b = dt.datetime(int(m[1]) + 1, 1, 1, tzinfo=utc)
                else:
                    word = m[0]
                    if word == "前天":
                        a, b = _relative("yesterday", now - 86400)
                    else:
                        key = _ZH_REL.get(word) or ("last week" if word[-1] in "期拜" and word[0] == "上" else
                                                    "this week" if word[-1] in "期拜" else "last month")
                        a, b = _relative(key, now)
            except (ValueError, KeyError, OverflowError):
                continue
            return a.timestamp(), b.timestamp(), m[0]
    return None


def _relative(word: str, now: float) -> tuple[dt.datetime, dt.datetime]:
    day = dt.datetime.fromtimestamp(now, dt.timezone.utc).replace(hour=0, minute=0, second=0, microsecond=0)
    one = dt.timedelta(days=1)
    week = day - dt.timedelta(days=day.weekday())
    month = day.replace(day=1)
    year = month.replace(month=1)
    return {
        "today": (day, day + one), "yesterday": (day - one, day),
        "this week": (week, week + 7 * one), "last week": (week - 7 * one, week),
        "this month": (month, (month + 32 * one).replace(day=1)),
        "last month": ((month - one).replace(day=1), month),
        "this year": (year, year.replace(year=year.year + 1)), "last year": (year.replace(year=year.year - 1), year),
    }[word]


# Memories in a named period joining the candidates: at most this many (latest first).
_WINDOW_CAP = 500


def favour_window(snap: Snapshot, fused: dict[int, float], allowed: np.ndarray,
                   window: tuple[float, float, str], weight: float, boosts: dict[int, str] | None) -> set[int]:
    """Memories created in the period the query names gain `weight` x the top score;
    returns them."""
    start, end, words = window
    idx = np.flatnonzero(allowed & (snap.created >= start) & (snap.created < end))
    if idx.size == 0:
        return set()
    if idx.size > _WINDOW_CAP:
        idx = idx[np.argsort(-snap.created[idx], kind="stable")[:_WINDOW_CAP]]
    top = max(fused.values(), default=0.0) or 1.0
    add = weight * top
    for i in idx.tolist():
        d = int(snap.docs[i])
        fused[d] = fused.get(d, 0.0) + add
        if boosts is not None:
            boosts[d] = (boosts[d] + "; " if d in boosts else "") + f"created in the period named ({words!r}, +{add:.3f})"
    return set(snap.docs[idx].tolist())
