"""Chinese numerals as digits, before gitmem.lifecycle.values reads the values of a text.

Everyday numerals (四千五, 两年, 三个), 大写 numerals (陆仟肆佰), decimals before a unit
(七点四公斤, not the time 7:04), 斤 and 两 as one weight (十四斤八两), a numeral after 米
(一米六, 一米三二), digits keyed one at a time (三一〇二七七八五), a lone 一 or 两 before a unit (一小时, 两个钟头), and digits with Chinese
multipliers (3千5百, 4.5万), percentages (百分之七点五): each becomes plain digits in the
text, so the value reader sees one number written one way. 一点 stays a word ("a little")
unless a clock time is meant (下午一点, 一点半). Numbers are read by cn2an, imported on first use (dream's
code path only)."""

from __future__ import annotations

import re
from functools import lru_cache

from gitmem.lifecycle.quantities import fmt as _fmt

# Chinese numerals: a run that starts with a digit or 十 and either holds a
# multiplier (四千五) or stands before a unit or counter (三月, 两年, 三个); one
# digit alone before anything else is a word (一律, 统一).
_ZH_RUN = re.compile(r"(?<![零〇一二两三四五六七八九十百千万亿])"
                    r"[零〇一二两三四五六七八九十][零〇一二两三四五六七八九十百千万亿]*")
_ZH_COUNTER = COUNTERS = "月日号號点點时岁个次位名年分天周人只条台种元块米斤吨公兆秒倍张本层楼家间亩套辆件瓶箱袋棵匹篇首部车"
_ZH_ONE = "月日号號点點时岁元块米斤吨兆秒年分楼层"  # where a lone 一 is a date, a time, an age or an amount

# The characters of an everyday Chinese numeral (for patterns elsewhere: 一百三十七块五)
NUMERALS = "零〇一二两三四五六七八九十百千万"
_ZH_DIGIT = re.compile("[零〇一二两三四五六七八九十廿卅]")

# Digits with Chinese multipliers: 3千5百, 12万, 4.5万 (read by cn2an as one number).
_ZH_MIXED = re.compile(r"(?<![\d.])\d+(?:\.\d+)?[十百千万萬亿](?:\d+[十百千万萬]?)*")

_ZH_AFTER_METRE = re.compile(r"(米|公里)([一二三四五六七八九][零〇一二三四五六七八九]?)(?![零〇一二两三四五六七八九十百千万])")
# 三一〇二七七八五: a number keyed one digit at a time (an account, a phone number)
_ZH_KEYED = re.compile(r"[零〇一二三四五六七八九]{4,}")

# 十四斤八两: 斤 and 两 (a tenth of a 斤) as one weight
_JIN_LIANG = re.compile(r"([零〇一二两三四五六七八九十百\d]+)\s*斤\s*([一二三四五六七八九\d])\s*两")

# 大写 numerals (陆仟肆佰, 壹佰贰拾) as everyday ones, in a run with a multiplier (陆 alone is a surname)
_ZH_FINANCIAL = re.compile(r"[零壹贰叁肆伍陆柒捌玖拾佰仟萬万]*[拾佰仟萬万][零壹贰叁肆伍陆柒捌玖拾佰仟萬万]*")  # 贰万叁仟 too
_FINANCIAL = str.maketrans("壹贰叁肆伍陆柒捌玖拾佰仟萬", "一二三四五六七八九十百千万")
# 周五五点: the weekday's numeral is no digit of the time after it (not 周55点)
_WEEKDAY_THEN_NUMERAL = re.compile(r"((?:周|星期|礼拜)[一二三四五六日天])(?=[零〇一二两三四五六七八九十])")
_ZH_DIGITS = str.maketrans("零〇一二三四五六七八九", "00123456789")  # one character a digit

_ZH_HOUR_ZERO = re.compile(r"(小时|钟头)零(?=[一二三四五六七八九十\d])")  # 一个钟头零十分: no 零 in the minutes
_CLOCK_ZERO = re.compile(r"([点點])零([一二三四五六七八九])(?![零〇一二三四五六七八九十百千万])")  # 八点零五: 8点05

# A Chinese decimal before a unit (七点四公斤, 一点五米): the number, not a clock time
_ZH_DECIMAL = re.compile(r"([零〇一二两三四五六七八九十百千万]+)点([零〇一二三四五六七八九]+)(?=\s*(?:"
                         r"公斤|千克|克|斤|米|厘米|公分|毫米|公里|千米|升|毫升|万|亿|元|块|倍|个?小时|分钟|年|岁|%))")
# 一小时, 两个钟头, 一个半小时: a lone 一 or 两 before a unit of two characters is a value
_ZH_ONE_UNIT = re.compile(r"(?<![零〇一二两三四五六七八九十百千万亿])([一两])(?=个半|个?小时|个?钟头|公斤|公里|千克|千米|厘米|公分|毫升)")
# 一点 is one o'clock before minutes or 钟 (一点半, 一点十分, 一点钟) or after a part of the day.
_ONE_OCLOCK = re.compile(r"\s*(?:[半钟整零〇一二三四五六七八九十\d到]|前|左右)")
_PERIOD_BEFORE = re.compile(r"(?:凌晨|早上|上午|中午|下午|晚上|夜里|半夜|明天|今天|昨天|周.|星期.)\s*$")
# ... or at the end of a span of hours (十二点到一点, 11点至一点半)
_HOUR_BEFORE = re.compile(r"[零〇一二两三四五六七八九十\d]+\s*[点點时](?:半|[零〇一二三四五六七八九十\d]+分?)?\s*[到至~～—–-]\s*$")
# 十五万三 is 153000, but not before a span (十五万三年期: 150000 for three years)
_TAIL_DIGIT = re.compile(r"(.*[万千])([一二两三四五六七八九])")
_SPAN_COUNTERS = "年个天周岁期次"
_PERCENT = re.compile(r"百分之([零〇一二两三四五六七八九十百]+(?:点[零〇一二三四五六七八九]+)?|\d+(?:\.\d+)?)")


@lru_cache(maxsize=1)
def _cn2an():
    import cn2an  # lazily: dream's code path only (and it costs ~0.1 s to import)

    return cn2an.cn2an


def _number(s: str) -> str | None:
    """A Chinese (or mixed) numeral in plain digits, read by cn2an; None where it cannot read it."""
    try:
        return _fmt(float(_cn2an()(s, "smart")))
    except (ValueError, KeyError, IndexError):
        return None


def _percent(m: re.Match) -> str:
    n = _number(m[1])
    return m[0] if n is None else n + "%"


def _zh_mixed(m: re.Match) -> str:
    return _number(m[0]) or m[0]


def _zh_decimal(m: re.Match) -> str:
    n = _number(m[1])
    return m[0] if n is None else n + "." + m[2].translate(_ZH_DIGITS)


def _jin_liang(m: re.Match) -> str:
    jin = m[1] if m[1].isdigit() else _number(m[1])
    return m[0] if jin is None else f"{jin}.{m[2].translate(_ZH_DIGITS)}斤"


def _zh_numeral(m: re.Match) -> str:
    s = m.group(0)
    nxt = m.string[m.end():m.end() + 1]
    if not (re.search("[十百千万亿]", s[1:]) or (nxt and nxt in _ZH_COUNTER) or s[0] == "十"):
        return s
    if s == "一" and nxt not in _ZH_ONE:  # 一家, 一只, 一个: the article, not a value
        return s
    before = m.string[m.start() - 1] if m.start() else ""
    if s == "十" and nxt not in _ZH_COUNTER + "下" and (nxt == "字" or "\u4e00" <= before <= "\u9fff"):
        return s  # 红十字会, 十字路口 after a character: a word's, not ten (第十名, 每月十号 are)
    if s == "一" and nxt in "点點" and not _ONE_OCLOCK.match(m.string, m.end() + 1) \
            and not _PERIOD_BEFORE.search(m.string[:m.start()]) and not _HOUR_BEFORE.search(m.string[:m.start()]):
        return s  # 靠近一点, 少放一点盐: "a little", not one o'clock (下午一点, 一点半 are)
    tail = _TAIL_DIGIT.fullmatch(s)
    if tail and nxt and nxt in _SPAN_COUNTERS:  # 十五万三年期: 150000 and three years, not 153000 years
        n = _number(tail[1])
        return f"{n} {_number(tail[2])}" if n else s
    return _number(s) or s


# A lunar date, said as one ("农历八月十二", "腊月初六", "正月十五", "八月廿三"): month and day
# with 日, as a solar date is written (a text that says 农历 once says it of both)
_LUNAR = re.compile(r"(?:(?:农历|阴历)(十[一二]|[一二三四五六七八九十])|(正|冬|腊))月"
                    r"(初[一二三四五六七八九十]|廿[一二三四五六七八九]?|二十[一二三四五六七八九]?|三十|十[一二三四五六七八九]?"
                    r"|[一二三四五六七八九])(?![日号號\d零〇一二两三四五六七八九十])"
                    r"|(十[一二]|[一二三四五六七八九十])月(初[一二三四五六七八九十]|廿[一二三四五六七八九])")
_LUNAR_MONTH = {"正": "一", "冬": "十一", "腊": "十二"}


def _lunar(m: re.Match) -> str:
    month, day = (m[1] or _LUNAR_MONTH.get(m[2] or "", "")) or m[4], (m[3] or m[5]).lstrip("初")
    return f"{month}月{day}日"


def in_digits(t: str) -> str:
    """`t` (casefolded) with its Chinese numerals written in digits; a text with none
    comes back unchanged."""
    if "月" in t:
        t = _LUNAR.sub(_lunar, t)
    if "拾" in t or "佰" in t or "仟" in t or "萬" in t:
        t = _ZH_FINANCIAL.sub(lambda m: m[0].translate(_FINANCIAL), t)
    if "百分之" in t:  # 百分之七, 百分之七点五: a percentage, written as one
        t = _PERCENT.sub(_percent, t)
    if _ZH_DIGIT.search(t):
        t = _ZH_AFTER_METRE.sub(lambda m: m[1] + m[2].translate(_ZH_DIGITS), t)  # 一米三二: 1米32
        t = _ZH_KEYED.sub(lambda m: m[0].translate(_ZH_DIGITS), t)
        t = _ZH_ONE_UNIT.sub(lambda m: "1" if m[1] == "一" else "2", _ZH_DECIMAL.sub(_zh_decimal, t))
        t = _ZH_HOUR_ZERO.sub(r"\1", _JIN_LIANG.sub(_jin_liang, t))
        t = _CLOCK_ZERO.sub(lambda m: m[1] + "0" + m[2].translate(_ZH_DIGITS), t)
        t = _ZH_RUN.sub(_zh_numeral, _WEEKDAY_THEN_NUMERAL.sub(r"\1 ", t.replace("廿", "二十").replace("卅", "三十")))
    return t


def mixed(t: str) -> str:
    """`t` with digits before Chinese multipliers (3千5百, 12万) as one number."""
    return _ZH_MIXED.sub(_zh_mixed, t)
