"""Canonical values: one value written many ways reads as one string.

Dream's same-fact guard (gitmem.lifecycle.samefact) compares what two texts state by
their values: two paraphrases agree when their canonical values agree, two facts differ
when a value differs. `extract(text)` reads, in order, and blanks out of the text:

- addresses: URLs, host names, e-mail addresses (case and scheme dropped):
  "https://staging.Acme-Shop.io/" -> `addr:staging.acme-shop.io`;
- numbers written in words or digits, in English (text2num: "twelve hundred",
  "twenty-five", "first") and Chinese (gitmem.lifecycle.zh_numbers: 四千五, 一万二, 两,
  陆仟肆佰), with thousands separators, "k", 千 and 万;
- clock times in 12 h, 24 h and words (gitmem.lifecycle.clock): 3pm / 15:00 / 下午三点
  -> `time:15:00`;
- dates: Nov 4 / November 4th / 4 November / 11/4 / 11月4日 / 十一月四号 -> `date:11-4`,
  with years, months alone and weekdays as their own kinds (gitmem.lifecycle.digit_dates);
- quantities with a unit: money ($1,200 / 1200 USD / twelve hundred dollars / 4500块 /
  四千五百元 -> `qty:1200 usd`, `qty:4500 cny`; rand, rupees, yen and lakh: gitmem.lifecycle.money)
  and sizes, durations and other units
  (25 MB / twenty-five megabytes / 25MB -> `qty:25 mb`; 2年 / two years -> `qty:2 year`);
  every quantity also gives its bare number (`num:25`), so "25 MB" and "25" agree and
  "25 MB" and "26" differ;
- any other number: `num:N`.

Also read: 廿/卅, 3千5百, 65w after Chinese, N个半, 4小时30分钟 (4.5 hours), 26年5月31号, GBP 1850,
twice / thrice, thirteen-hour, "one lakh eighty-five thousand", minutes to or past midnight
and noon, 晚 / 早 as periods; patterns use ASCII word boundaries (Python's \b takes a
Chinese character for a letter, so 每晚21:30 was not read).
Units beyond these lists are quantulum3's (gitmem.lifecycle.quantities).

Values are `kind:value` strings; the text comes back casefolded with each value replaced
by a blank, so what is left are the words. The two libraries are imported on first use
(dream's code path only), never when the package is imported."""

from __future__ import annotations

import re
from functools import lru_cache

from gitmem.core.calendar import MONTHS, WEEKDAYS, alternation
from gitmem.lifecycle import clock, digit_dates, money, monthdays, quantities, zh_numbers
from gitmem.lifecycle.quantities import COUNTERS, fmt as _fmt  # noqa: F401 (COUNTERS: read as values.COUNTERS)
from gitmem.lifecycle.spans import BLANK, ascii_re as _re, take as _take

# A unit and the words for it (lower case). Chinese 年 after a four-digit number is a
# year, not two years: dates are read before quantities.
UNITS = {
    "usd": ("$", "usd", "dollar", "dollars", "bucks", "美元", "美金"), **money.UNITS,
    "eur": ("€", "eur", "euro", "euros", "欧元"),
    "gbp": ("£", "gbp", "pound", "pounds", "quid", "英镑"),
    "cny": ("¥", "cny", "rmb", "yuan", "元", "块钱", "块", "人民币"),
    "kb": ("kb", "kilobyte", "kilobytes"), "mb": ("mb", "megabyte", "megabytes", "兆"),
    "gb": ("gb", "gig", "gigs", "gigabyte", "gigabytes"), "tb": ("tb", "terabyte", "terabytes"),
    "year": ("year", "years", "yr", "yrs", "年"), "month": ("month", "months", "个月"),
    "week": ("week", "weeks", "wk", "wks", "周", "个星期", "星期"), "day": ("day", "days", "天"),
    "hour": ("hour", "hours", "hr", "hrs", "h", "小时", "个小时", "钟头", "个钟头"),
    "minute": ("minute", "minutes", "min", "mins", "分钟"), "second": ("second", "seconds", "sec", "secs", "秒"),
    "percent": ("%", "％", "percent", "per cent"),
    # Chinese counters that name what is counted: 3岁 (an age) and 3楼 (a floor) differ.
    "age": ("岁", "周岁"), "floor": ("楼", "层"), "times": ("次", "遍", "倍", "times"), "people": ("人", "位", "名"),
    "km": ("km", "kilometer", "kilometers", "kilometre", "kilometres", "公里", "千米"),
    "kg": ("kg", "kilogram", "kilograms", "kilo", "kilos", "公斤", "千克"),
    "m": ("m", "meter", "meters", "metre", "metres", "米"),
    "cm": ("cm", "centimeter", "centimeters", "centimetre", "centimetres", "厘米", "公分"),
    "mm": ("mm", "millimeter", "millimeters", "millimetre", "millimetres", "毫米"),
    "mg": ("mg", "milligram", "milligrams", "milligramme", "milligrammes", "毫克"),
    "volt": ("v", "volt", "volts", "伏", "伏特"),
    "inch": ("inch", "inches", '"', "″", "”"), "ft": ("ft", "foot", "feet"),
    "mile": ("mile", "miles", "mi"),
    "g": ("g", "gram", "grams", "gramme", "grammes", "克"), "jin": ("斤",),
    "t": ("t", "tonne", "tonnes", "吨"),
    "degc": ("°c", "℃", "degrees c", "degrees celsius", "celsius", "摄氏度", "degrees", "degree", "°"),
    "lb": ("lb", "lbs"), "oz": ("oz", "ounce", "ounces"),
    "ml": ("ml", "millilitre", "millilitres", "milliliter", "milliliters", "毫升"),
    "l": ("l", "litre", "litres", "liter", "liters", "升", "公升"),
    "m3": ("m3", "m³", "cu m", "cu. m", "cubic metre", "cubic metres", "cubic meter", "cubic meters", "立方米", "立方"),
    "m2": ("m2", "m²", "sqm", "sq m", "sq. m", "square metre", "square metres", "square meter", "square meters",
           "平方米", "平米", "平方"),
    "ft2": ("ft2", "ft²", "sq ft", "sqft", "sq. ft", "square foot", "square feet"),
}
# Where a unit is written: $ € £ ¥ before the number, the rest after it.
PREFIX_UNITS = {"$": "usd", "€": "eur", "£": "gbp", "¥": "cny"}
_UNIT_OF = {w: u for u, words in UNITS.items() for w in words if w not in PREFIX_UNITS}
# A bare count of these does not name a quantity the way "5 years" does.
COUNT_ONLY = {"percent"}

_N = r"\d+(?:\.\d+)?"

_ADDR = re.compile(r"(?:\b(?:https?|ftp)://)?(?:www\.)?"
                   r"((?:[a-z0-9][a-z0-9_.+-]*@)?(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+[a-z]{2,10})\b"
                   r"(/[^\s,;)\]'\"。，；）]*)?", re.I)
_THOUSANDS = _re(r"(?<![\d.,])(\d{1,3}(?:,\d{3})+)(?![\d,]*\d)")
# ... or spaced, before a unit ("odometer 86 000 km", "CAD 14 900" is money's)
_SPACED_THOUSANDS = _re(r"(?<![\d×x] )(?<![\d.,×x])(\d{1,3}(?: \d{3})+)"
                        r"(?=\s?(?:km|kms|kilomet|miles?\b|kg|m²|m2|sq|square|ft|lbs?\b|l\b|litres?|liters?|ml\b))")  # not "×2 360"
_ORDINAL = _re(r"\b(\d+)(?:st|nd|rd|th)\b")
# A decimal written without its leading zero ("holdout AUC .873", "a .5 mm nib"): 0.873
_LEAD_DOT = _re(r"(?<![\w.,:/$£€¥])\.(\d+)\b(?![.,]\d)")
_MULTIPLIER = _re(rf"(?<![\d:：.])({_N})\s*(k|grand|thou|lakhs?|lacs?|lpa|crores?|千|万|萬|亿|w(?=\s?[块元]))(?![a-z0-9]|[克米])")  # 25 千克: kg; 3k729 a code; 2w块 2万
_ZH_WAN = _re(rf"(?:(?<=[\u4e00-\u9fff])|(?<=[\u4e00-\u9fff]\s))({_N})w(?=\s|$|[,，。;；/、（）()])")
_WATTS = re.compile(r"充|瓦|功率|灯|电源|插头|电器")  # 65w after Chinese is 65万 (gjj贷款批了 65w), not watts
_MULT = {"k": 1000, "grand": 1000, "thou": 1000, "lpa": 100000, "千": 1000, "万": 10000, "萬": 10000, "w": 10000, "亿": 100000000, **money.LAKH}

# (not before a Chinese counter: 1900件 is a count, 2025全年 and 2018冰岛 a year; 2024年 is
# read with its 年; nor an amount in Chinese: 每家出两千 / 每家3000, 学费 1980/学期)
_YEAR = _re(r"(?<![\d$€£¥.,\u4e00-\u9fff])\b(19\d\d|20\d\d)\b(?![.,]\d)(?!\s*/\s*[\u4e00-\u9fff])"
            r"(?!\s*[" + zh_numbers.COUNTERS + "万千百多余来])")
# "may" alone is a month only before a year ("May 2025"), else the verb; a short form
# alone (jan, jun, mar) only before a year or after "in", "by", "until"... (else a name:
# "my aunt Jan"); a full name always, and a short form no word shares ("Oct talk: …").
_LONG_MONTHS = [m for m in sorted(MONTHS, key=len, reverse=True)
                if (len(m) > 4 and m != "sept") or m in ("feb", "aug", "sept", "oct", "nov", "dec")]
_SHORT_MONTHS = [m for m in sorted(MONTHS, key=len, reverse=True) if m not in _LONG_MONTHS]
_EN_MONTH = _re(r"\b(" + "|".join(_LONG_MONTHS)
                + r"|(?:" + "|".join(_SHORT_MONTHS) + r")(?=\.?\W{0,3}(?:19|20)\d\d)"
                + r"|(?:" + "|".join(rf"(?<=\b{w} )" for w in ("in", "by", "until", "till", "since", "from", "before",
                                                              "after", "of", "mid", "early", "late", "next",
                                                              "last", "this")) + r")(?:"
                + "|".join(m for m in _SHORT_MONTHS if m != "may") + r"))\b\.?")
_WEEKDAY = _re(r"\b(" + alternation(WEEKDAYS) + r")s?\b")
_ZH_WEEKDAY = _re(rf"(?:每个?)?(?:周|星期|礼拜)([一二三四五六日天1-7])|(?<=[\d日号{BLANK}])\s*[（(]([一二三四五六日天])[)）]")  # 10/16(四)
# A measure's unit word after a number ("RMG 100 km"), from UNITS
_UNIT_AFTER = re.compile(r"\s*(?:" + "|".join(sorted((re.escape(w) for w, u in _UNIT_OF.items()
                                                      if u in quantities.MEASURES and re.fullmatch(r"[a-z ]+", w)),
                                                     key=len, reverse=True)) + r")\b", re.I)
_MONEY_AFTER = re.compile(r"\s*(?:" + "|".join(sorted(money.CURRENCY_WORDS)) + r")\b")
_UNIT_WORDS = "|".join(re.escape(w) for w in sorted(_UNIT_OF, key=len, reverse=True))
_QTY_PREFIX = _re(rf"([$€£¥])\s?({_N})")
_QTY_CODE = _re(rf"\b(usd|eur|gbp|cny|rmb)\s?({_N})")  # "GBP 1850": a currency code before the number
# "200×300 厘米", "2 x 3 m": the unit after the second number is the first's too
_BY = _re(rf"(?<![\d.])({_N})\s*(?:[×x*]|by)\s*({_N})\s*({_UNIT_WORDS})(?![a-z])")
_QTY_SUFFIX = _re(rf"(?<![\d.])(?<![a-z]-)({_N})(?:\s|-)?({_UNIT_WORDS})(?![a-z])(?!(?<=年)(?:租(?!期)|[薪费终底初]))")  # 13 hours; not 302 年租
_NUM = _re(_N)
# A reference code (a booking, a permit, a train): letters then a digit, or letters, a
# hyphen and digits, with a group of digits after a space ("KX7 4418", "RP-20931", "G1372";
# not "A100 1200卡时", a measure), or keyed one character at a time ("K X 7 4 4 1 8"): `code:` as
# one string, separators dropped: "KX7-4418" / "kx74418" / "K X 7 4 4 1 8" one code, "X50" / "X60" two.
_CODE = re.compile(r"(?<![a-z0-9])(?:[a-z]+\d[a-z0-9]*|[a-z]{1,3}-\d{3,}[a-z0-9]*)"
                   r"(?:-\d{3,}(?: \d{4})*|\s\d{3,}(?![\d\u3400-\u9fff])(?: \d{4})*)?(?![a-z0-9])")
_CODE_CAPS = re.compile(r"(?<![A-Za-z0-9])[A-Z]{2,4}(?:[ -]\d{3,}(?:-\d{2,}|(?<=\d{4}) \d{4})*|-\d\d(?:-\d{2,})+)(?![A-Za-z0-9])")
_CODE_KEYED = re.compile(r"(?<![a-z0-9])[a-z0-9](?: [a-z0-9]){4,}(?![a-z0-9])")
# A measure in two units, the larger first: "7lb 8oz", "5 ft 10 in", "1 m 80 cm", "3 kg 400 g".
_COMPOUND = _re(rf"(?<![\d.])({_N})\s*(lbs?|ft|m|kg)\s+(?:and\s+)?({_N})\s*(oz|in|inches|cm|g)(?![a-z])")
_PARTS = {("lb", "oz"): 16, ("lbs", "oz"): 16, ("ft", "in"): 12, ("ft", "inches"): 12, ("m", "cm"): 100,
          ("kg", "g"): 1000}
_INCH_IN = _re(rf"(?<![\d.])({_N})\s*in\b(?=\.?\s*(?:[,;)]|$))")  # "55 in." ending a clause: inches
_DIGIT = _re(r"\d")
_HALF = _re(r"(\d+)\s*(?:个半|and a half\b)")  # 四个半小时, two and a half ml: n.5
# "296 pounds 80", "5 dollars and 5 cents": one amount
_MONEY_PARTS = _re(r"(?<![\d.])(\d+)\s*(pounds?|quid|dollars?|bucks|euros?)\s+(?:and\s+)?"
                   r"(?:(\d{2})|(\d{1,2})\s*(?:p|pence|cents?))\b(?![\d:/]|\.\d)")
# "payments-api v4.2" / "payments api 4.2": one version; "yr5" / "Y5": one school year
_VERSION = re.compile(r"\bv(\d+\.\d+(?:\.\d+)*)\b")
# A release in three parts or more after "v" or a release word ("patch 1.3.0", "PT v1.3.0"): one
# code, trailing zeros dropped (1.3.0 is 1.3, 1.3.1 another); not "07.03.2025". "one-point-three" is 1.3.
_VERSION_CODE = re.compile(r"(?:\b(?:version|ver|patch|build|release|firmware|update)\s*:?\s*|\bv)"
                           r"(\d+\.\d+(?:\.\d+)+)(?![.\d])")
_SCHOOL_YEAR = re.compile(r"\b(?:yr|year)\s?(\d{1,2})\b(?![ -]\d)")  # yr 6, Year 11 / Y11 (not a code: YR1 1000)
# "eight three one six", "six six two oh four four one nine": a number said digit by digit
_DIGIT_WORD = {w: str(i) for i, w in enumerate("zero one two three four five six seven eight nine".split())} | {"oh": "0"}
_DIGITS_SAID = "|".join(w for w in _DIGIT_WORD if w != "oh")
_POINT = _re(rf"\b({_DIGITS_SAID})-point-(?=(?:{_DIGITS_SAID})\b)")
# a number said digit by digit: four digits or more ("three-oh-four-one-seven"), or three with
# an "oh" or zero between ("baird two-oh-four": room 204)
_SPOKEN_DIGITS = re.compile((r"(?<!-)\b(?:(?:{d})[\s-]+){{3,}}(?:{d})\b"
                             r"|(?<!-)\b(?:{s})[\s-]+(?:oh|zero)[\s-]+(?:{s})\b").format(d="|".join(_DIGIT_WORD), s=_DIGITS_SAID))
# "three eighty-five", "twenty-two ninety-nine": a price said as two numbers, 385 or 3.85,
# 2299 or 22.99 (both kept: a text that writes either one agrees). Not after "at", "by",
# "until" (a time: "at three forty-five"), nor before a teen ("three fifteen").
_ONES = "one two three four five six seven eight nine".split()
_TEENS = "ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen".split()
_TENS = "twenty thirty forty fifty sixty seventy eighty ninety".split()
NUMBER_WORDS = frozenset(_ONES + _TEENS + _TENS + ["hundred", "thousand", "half", "quarter"])
_WORD_VALUE = {w: i for i, w in enumerate(_ONES, 1)} | {w: i for i, w in enumerate(_TEENS, 10)} | {
    f"{t}-{o}" if o else t: 10 * (i + 2) + (_ONES.index(o) + 1 if o else 0) for i, t in enumerate(_TENS)
    for o in [""] + _ONES}
_TENS_WORD = r"(?:%s)(?:[- ](?:%s))?" % ("|".join(_TENS), "|".join(_ONES))  # "eighty-five", "eighty five"
# ... and a teen after a number of two digits: "twenty-two fourteen" (2214), "nineteen
# fifteen" (not after one digit: "three fifteen" is a time)
_SPOKEN_PRICE = re.compile(r"(?<!\bat )(?<!\bby )(?<!until )(?<!\btill )\b(%s|%s)\s+(%s)\b|\b(%s|%s)\s+(%s)\b"
                           % ("|".join(_ONES + _TEENS), _TENS_WORD, _TENS_WORD,
                              "|".join(_TEENS), _TENS_WORD, "|".join(_TEENS)), re.IGNORECASE)


def _price(m: re.Match) -> str:
    first, second = (m[1], m[2]) if m[1] else (m[3], m[4])
    a, b = (_WORD_VALUE[w.lower().replace(" ", "-")] for w in (first, second))
    return f"{a * 100 + b} ({a}.{b:02d})"


_PLATE_DOT = re.compile(r"(?<=[A-Za-z])[·•](?=[A-Za-z0-9])")
# 137块5毛, 一百三十七块五: 137.5 yuan (not 二十块五一斤: the numeral after is the weight's)
_YUAN_JIAO = re.compile(rf"([{zh_numbers.NUMERALS}\d]+)块([一二三四五六七八九\d])(?:毛|角)?(?![{zh_numbers.NUMERALS}\d.])")
# 1米6, 一米六 (after the numerals are read): 1.6 metres
_ZH_METRE = _re(r"(?<![\d.])(\d+)(米|公里)(\d\d?)(?![\d.])")  # 1米6, 1公里2: 1.6 m, 1.2 km (not "1.5万公里 4S店")
# 7月14号到19号, 7.14-7.19 (in Chinese text): a span of days, each day with its month
_ZH_DAY_SPAN = _re(r"(\d{1,2})\s*月\s*(\d{1,2})\s*[日号號]?\s*([到至~～—–-])\s*(\d{1,2})\s*[日号號]")
_MD_DOT_SPAN = _re(r"(?<![\d.])(1[0-2]|0?[1-9])\.(3[01]|[12]\d|0?[1-9])\s*[-–—~～到至]\s*(1[0-2]|0?[1-9])\."
                   r"(3[01]|[12]\d|0?[1-9])(?![\d.])")
# 14–17 Aug, 3-5 June: a span of days in one month, each day with the month (the first
# had read as a bare number: "14–17 Aug" / "from Fri 14/8" are one stay). No spaces
# round the dash ("little one – 2 Dec" is no span) and no "may" (pages 3-5 may ...).
_SLASH_DAY_SPAN = _re(r"(?<![\d.:/£$€¥-])(3[01]|[12]\d|0?[1-9])[-–](3[01]|[12]\d|0?[1-9])/(1[0-2]|0?[1-9])(?![\d/])")  # 3-6/2
_EN_DAY_SPAN = _re(r"(?<![\d.:/£$€¥])(3[01]|[12]\d|0?[1-9])[-–—](3[01]|[12]\d|0?[1-9])\s+("
                   + "|".join(m for m in sorted(MONTHS, key=len, reverse=True) if m != "may") + r")\b")
# 截止11.30, 到期3.15 (in Chinese text): a month and a day after a deadline word, not 11.3
_ZH_DOT_DATE = _re(r"(?<=截止|截至|到期|期限|最晚)\s*(1[0-2]|0?[1-9])\.(3[01]|[12]\d|0?[1-9])(?![\d.])")
# ... or before a clock time, a weekday or a part of the day ("汇演 9.28 19:00", "5.1上午8点36分")
_ZH_DOT_DATE_TIMED = _re(r"(?<![\d.])(1[0-2]|0?[1-9])\.(3[01]|[12]\d|0?[1-9])(?=\s*(?:[0-2]?\d[:：][0-5]\d|[（(]?(?:周|星期|礼拜)"
                         r"|上午|下午|早上|晚上|中午|凌晨|傍晚))")
# 4小时30分钟, 1 hour 30 minutes: one duration, in hours
_HOURS_MINUTES = _re(rf"({_N})\s*(?:个小时|小时|个钟头|钟头|hours?|hrs?|h)\s*(?:and\s+|零)?(\d{{1,2}})\s*"
                     r"(?:分钟|分(?![之钟])|minutes?|mins?)")
# 一个钟头半: an hour and a half
_HOUR_HALF = _re(r"(\d+)\s*(个钟头|个小时|小时|钟头|公里|千米|米|公斤|千克|斤|吨|升|年|天|周|岁)半")  # 六公里半, 两年半
# a code keyed digit by digit: 4-8-2-9 (single digits only: 2024-05-31 is a date)
# A year's quarter, "Q3 2024" or "2024-Q3": the year and the quarter, not a code q32024
_BIZ_QUARTER = _re(r"\bq([1-4])[\s/-]*((?:19|20)\d\d)\b|\b((?:19|20)\d\d)[\s/-]*q([1-4])\b")
_DIGIT_CODE = _re(r"(?<![\d-])\d(?:-\d){3,}(?![\d-])")
# ... or, in Chinese text, in three groups or more, no date ("取件码6-3-2087": a parcel's pickup
# code; 2024-05-31 stays; in English "10-10-10" stays three numbers, a score or a range)
_HYPHEN_KEYED = _re(r"(?<![A-Za-z0-9.:/-])(?!(?:19|20)\d\d-)\d{1,4}(?:-\d{1,4}){2,}(?![A-Za-z0-9/-])")
# An account or ticket number keyed in groups ("9021 4477 365", "2504-130622"): groups of
# 2-7 digits joined by one space or hyphen ("114-7730291"), nine digits or more in all (a date has at
# most eight), are one number.
_DIGIT_GROUPS = _re(r"(?<![\d.,:/-])\d{2,7}(?:[ -]\d{2,7})+(?![\d:/-]|[.,]\d)")
# A hyphen inside a phrase ("thirteen-hour", "parent-teacher"), not inside a number word ("twenty-five").
_HYPHEN = _re(r"(?<=[a-z])-(?!(?:one|two|three|four|five|six|seven|eight|nine)\b)(?=[a-z])")
_REPEAT = _re(r"\b(twice|thrice)\b")
_KIN = _re(r"\b[a-z]+-in-law\b|\b(?:half|step|ex|great|grand)-[a-z]+")
# "3 dozen" / "three dozen" (after the number words are read) / "a dozen" / "half a dozen"
_DOZEN = _re(rf"(?:\b({_N})\s+|\bhalf an?\s+|\ban?\s+)dozen\b")
_CJK_TEXT = re.compile(r"[\u3400-\u9fff]")
_ADDR_HINT = _re(r"[a-z0-9][.@][a-z]", re.I)


@lru_cache(maxsize=1)
def _alpha2digit():
    from text_to_num import alpha2digit  # lazily: dream's code path only

    return alpha2digit


def _release(v: str) -> str:
    """A release's code: "1.3.0" is "v1.3", "2.0.0" "v2.0"."""
    parts = v.split(".")
    while len(parts) > 2 and parts[-1] == "0":
        parts.pop()
    return "code:v" + ".".join(parts)


def _english_numbers(t: str) -> str:
    if not re.search(r"[a-z]", t):
        return t
    # A relative by marriage or a half or step relation is another person: one word
    # ("sister-in-law" is not "sister" with "in law" added).
    t = _KIN.sub(lambda m: m[0].replace("-", ""), _POINT.sub(r"\1 point ", t))
    t = _REPEAT.sub(lambda m: "2 times" if m[1] == "twice" else "3 times", _HYPHEN.sub(" ", t))
    try:
        t = _alpha2digit()(t, "en", threshold=0)
    except (ValueError, TypeError):  # the library's own failure on odd input: keep the words
        return t
    t = _LAKH_PARTS.sub(lambda m: m[0] if m[4] and not m[2].startswith("crore") else
                        _fmt(float(m[1]) * money.LAKH[m[2]] + float(m[3]) * (money.LAKH[m[4]] if m[4] else 1)), t)
    return _DOZEN.sub(lambda m: _fmt(float(m[1] or (0.5 if m[0].startswith("half") else 1)) * 12), t)


_LAKH_PARTS = _re(r"\b(\d+) (crores?|lakhs?|lacs?) (?:and )?(\d{1,5})(?: (lakhs?|lacs?))?\b(?!\.\d| crore| lakh| lac)")  # text2num's "1 lakh 85000": one amount


def _zh_weekday(c: str) -> int:
    return int(c) - 1 if c.isdigit() else 6 if c in "日天" else "一二三四五六".index(c)


def _joined(groups: str) -> str:
    digits = groups.replace(" ", "").replace("-", "")
    # ... or two groups of four spaced, no years ("0382 1746", "6620 4419": one number keyed in two)
    four = re.fullmatch(r"(\d{4}) (\d{4})", groups)  # (not 0900-1700, 1200-1250: a span)
    if four is None:  # ... or hyphened, no span of clock times (0900-1700) or round numbers (3000-4000)
        four = re.fullmatch(r"(\d{4})-(\d{4})", groups)
        if four and (all(int(g[:2]) <= 24 and int(g[2:]) < 60 for g in four.groups()) or
                     all(g.endswith("0") for g in four.groups())):
            four = None
    return digits if len(digits) >= 9 or (len(digits) >= 8 and groups.count(" ") >= 2) or (
        four and not any(re.fullmatch(r"(?:19|20)\d\d", g) for g in four.groups())) else groups  # conf 844 170 92


def _qty(n: str, unit: str) -> list[str]:
    x = float(n)
    if unit in quantities.MEASURES:  # compared as an amount of its dimension only: "every
        v, dim = quantities.base(x, unit)  # second Friday" (num:2) and "every two weeks" do not differ by a number
        return [f"qty:{v} {dim}", f"{_SRC}{unit}", f"{_RAW}{_fmt(x)} {dim}"]
    return [f"num:{_fmt(x)}"] if unit in COUNT_ONLY else [f"num:{_fmt(x)}", f"qty:{_fmt(x)} {unit}"]


def _code(m: re.Match) -> list[str] | None:
    head, _, group = m[0].partition(" ")
    if re.fullmatch(r"(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])", group) and sum(c.isdigit() for c in head) >= 4:
        code = _code_of(head)  # "MU5137 0318": a flight and its date (month first), not one code
        return code and code + [f"date:{int(group[:2])}-{int(group[2:])}"]
    return _code_of(m[0])


def _code_of(written: str) -> list[str] | None:
    code = re.sub(r"[ -]", "", written)
    if re.fullmatch(r"[a-z]{2,}(?:19|20)\d\d", code):  # YA2025 / YA25, FY2024 / FY24: one year's code
        code = code[:-4] + code[-2:]
    letters = sum(c.isalpha() for c in code)
    if re.fullmatch(r"x\d{1,3}", written) or written in _UNIT_OF:  # "cupcakes x36": times 36; "2.5 m3": a unit
        return None
    return [f"code:{code}"] if letters and len(code) - letters >= 1 and len(code) >= 2 else None


def _code_caps(m: re.Match) -> list[str] | None:
    letters = re.match(r"[A-Z]+", m[0])[0]
    if letters.casefold() in _UNIT_OF or re.fullmatch(r"[A-Z]+ (?:19|20)\d\d", m[0]):
        return None  # "GBP 1850": an amount; "UK 2024": a year
    if " " in m[0] and (_UNIT_AFTER.match(m.string, m.end()) or _MONEY_AFTER.match(m.string, m.end())):
        return None  # "RMG 100 km": a name and a measure; "EMI Rs 14,250" (read "EMI 14250 rupees"): an amount
    return [f"code:{re.sub(r'[ -]', '', m[0]).casefold()}"]


def _compound(m: re.Match) -> str:
    parts = _PARTS.get((m[2], m[4]))
    return f"{_fmt(float(m[1]) + float(m[3]) / parts)} {m[2]}" if parts else m[0]


def _counted(m: re.Match, out: list[str]) -> str:
    unit = _UNIT_OF[m[2]]
    if unit == "people" and m.string[max(m.start() - 1, 0)] == "第":
        return m[0]  # 第二人民医院, 第3名: an ordinal, no count
    out.extend(_qty(m[1], unit))
    return BLANK + m[2] if unit in COUNTERS and not m[2].isascii() else BLANK


def _addresses(text: str) -> tuple[list[str], str]:
    vals: list[str] = []

    def sub(m: re.Match) -> str:
        host = m.group(1).casefold().rstrip(".")
        tld = host.rsplit(".", 1)[-1]
        # "e.g", "a.m", "7.45" are not hosts: a host ends in letters and has a label of 2+
        if not tld.isalpha() or max(len(p) for p in re.split(r"[.@]", host)) < 2:
            return m.group(0)
        path = (m.group(2) or "").rstrip("/.").casefold()
        vals.append(f"addr:{host}{path}")
        return BLANK
    return vals, _ADDR.sub(sub, text)


def without_addresses(text: str) -> str:
    """`text` with its URLs, host names and e-mail addresses blanked out (case kept), so
    "STAGING.ACME-SHOP.IO" is not read as a name."""
    return _addresses(text)[1]


_SRC = "\x00src:"  # the unit a measure was written in (source_units), not a value
_RAW = "\x00raw:"  # its number as written, with its dimension (raw_numbers)


def extract(text: str) -> tuple[tuple[str, ...], str]:
    """(values, rest): the canonical `kind:value` strings of `text` and the text,
    casefolded, with each value blanked out."""
    return _extracted(text)[:2]


def source_units(text: str) -> frozenset[str]:
    """The units the measures of `text` are written in ("ft", "m", "jin"): two texts
    that give one measure in two units round it (57 ft is 17.37 m, written 17.4 m)."""
    return _extracted(text)[2]


def raw_numbers(text: str) -> dict[str, frozenset[str]]:
    """The numbers of `text`'s measures as written, by dimension ("55 升" -> {"[length] ** 3":
    {"num:55"}}): a text whose unit word the reader does not know ("55 公斤" / "55 kilos") still
    meets the other on the number."""
    return _extracted(text)[3]


@lru_cache(maxsize=65536)
def _extracted(text: str) -> tuple[tuple[str, ...], str, frozenset[str], dict[str, frozenset[str]]]:
    vals: list[str] = []
    addrs, t = _addresses(text) if _ADDR_HINT.search(text) else ([], text)
    t = _PLATE_DOT.sub("", t)  # 浙A·7K392: one plate
    vals += addrs
    t = money.read(t)  # R28,500, ₹42,300, JPY 4500: an amount and its word, before codes are read
    if _DIGIT.search(t):  # capitals, a space or hyphen, digits: "CLM 558120", "GD-88314" (before casefold)
        t = _take(_CODE_CAPS, t, _code_caps, vals)
    t = t.casefold()
    if _DIGIT.search(t):
        t = _take(_VERSION_CODE, t, lambda m: [_release(m[1])], vals)
        t = _VERSION.sub(r"\1", _SCHOOL_YEAR.sub(r"y\1", t))
        t = _take(_BIZ_QUARTER, t, lambda m: [f"quarter:{m[1] or m[4]}", f"year:{m[2] or m[3]}"], vals)
        t = _take(_CODE_KEYED, t, lambda m: _code(m) if sum(c.isdigit() for c in m[0]) >= 2 else None, vals)
        t = _take(_CODE, t, _code, vals)
    t = zh_numbers.in_digits(_YUAN_JIAO.sub(lambda m: f"{m[1]}{'.' if m[1][-1].isdigit() else '点'}{m[2]}块", t))
    t = _english_numbers(_SPOKEN_DIGITS.sub(lambda m: "".join(_DIGIT_WORD[w] for w in re.split(r"[\s-]+", m[0])),
                                            _SPOKEN_PRICE.sub(_price, t.replace(" & ", " and "))))
    # the school year again, said in words ("year six"; "yr6" was made y6 before _CODE)
    t = _take(_SCHOOL_YEAR, t, lambda m: [f"code:y{m[1]}"], vals)
    digits = _DIGIT.search(t) is not None  # most patterns need one: skip them on plain words
    if digits:
        t = _SPACED_THOUSANDS.sub(lambda m: m[1].replace(" ", ""), _THOUSANDS.sub(lambda m: m[1].replace(",", ""), t))
        t = _LEAD_DOT.sub(r"0.\1", t)
        t = monthdays.read_en(t, vals)
        t = _ORDINAL.sub(r"\1", t)
        t = zh_numbers.mixed(t)
        t = money.half_thousands(_HALF.sub(lambda m: m[1] + ".5", _HOUR_HALF.sub(r"\1.5\2", t)))
        t = _MULTIPLIER.sub(lambda m: _fmt(float(m[1]) * _MULT[m[2]]), t)  # after the half: 2.5 grand
        t = t if _WATTS.search(t) else _ZH_WAN.sub(lambda m: _fmt(float(m[1]) * 10000), t)
        t = digit_dates.read_dashed(t, vals)
        t = _DIGIT_CODE.sub(lambda m: m[0].replace("-", ""), t)
        t = _HYPHEN_KEYED.sub(lambda m: m[0].replace("-", ""), t) if _CJK_TEXT.search(t) else t
        t = _DIGIT_GROUPS.sub(lambda m: _joined(m[0]), t)
        t = clock.durations(t)
        t = _MONEY_PARTS.sub(lambda m: f"{m[1]}.{int(m[3] or m[4]):02d} {m[2]}", t)
        t = _ZH_METRE.sub(r"\1.\3\2", t)
        t = _EN_DAY_SPAN.sub(r"\1 \3 - \2 \3", _SLASH_DAY_SPAN.sub(r"\1/\3 - \2/\3", t))
        if _CJK_TEXT.search(t):
            t = _MD_DOT_SPAN.sub(r"\1月\2日-\3月\4日", _ZH_DAY_SPAN.sub(r"\1月\2日\3\1月\4日", t))
            t = _ZH_DOT_DATE_TIMED.sub(r"\1月\2日", _ZH_DOT_DATE.sub(r"\1月\2日", t))
        t = _HOURS_MINUTES.sub(lambda m: _fmt(float(m[1]) + int(m[2]) / 60) + " hours", t)
        t = clock.read(t, vals)
    t = clock.read_words(t, vals)
    if digits:
        t = digit_dates.read(t, vals)
        t = monthdays.read_zh(t, vals)
    t = _take(_EN_MONTH, t, lambda m: [f"month:{MONTHS[m[1].rstrip('.')]}"], vals)
    t = _take(_ZH_WEEKDAY, t, lambda m: [f"day:{_zh_weekday(m[1] or m[2])}"], vals)
    t = _take(_WEEKDAY, t, lambda m: [f"day:{WEEKDAYS[m[1]]}"], vals)
    if digits:
        t = _take(_QTY_PREFIX, t, lambda m: _qty(m[2], PREFIX_UNITS[m[1]]), vals)
        t = _take(_QTY_CODE, t, lambda m: _qty(m[2], _UNIT_OF[m[1]]), vals)
        # A Chinese counter (三岁, 两位) stays in the text as the word it was before the
        # number was read: look-alikes share it ("……三岁了" / "……也三岁了").
        t = _INCH_IN.sub(r"\1 inches", _COMPOUND.sub(_compound, t))
        t = _BY.sub(r"\1\3 × \2\3", t)
        t = _QTY_SUFFIX.sub(lambda m: _counted(m, vals), t)
        t = _take(_YEAR, t, lambda m: [f"year:{m[1]}"], vals)
        t = _take(_NUM, t, lambda m: [f"num:{_fmt(float(m[0]))}"], vals)
    units = frozenset(v[len(_SRC):] for v in vals if v.startswith(_SRC))
    raw: dict[str, set[str]] = {}
    for v in vals:
        if v.startswith(_RAW):
            n, dim = v[len(_RAW):].split(" ", 1)
            raw.setdefault(dim, set()).add(f"num:{n}")
    return (tuple(v for v in vals if not v.startswith((_SRC, _RAW))), t, units,
            {k: frozenset(v) for k, v in raw.items()})


def by_kind(values: tuple[str, ...] | list[str]) -> dict[str, frozenset[str]]:
    """Values grouped by their kind (the text before the first colon)."""
    out: dict[str, set[str]] = {}
    for v in values:
        out.setdefault(v.split(":", 1)[0], set()).add(v)
    return {k: frozenset(v) for k, v in out.items()}


def told_by(nums: frozenset[str], other: dict[str, frozenset[str]]) -> frozenset[str]:
    """The bare numbers (`num:` values) of one text that a date or a clock time of the
    other (its values by kind) states: a day of the month said alone ("Monday the 13th"
    / "13.10.25"), a time in digits the reader took for a number ("10.52", "740") or an
    hour said alone ("drop off 8 sharp" / "admit 0800")."""
    days = {v.rsplit("-", 1)[1] for v in other.get("date", frozenset())}
    times = set()
    for v in other.get("time", frozenset()):
        h, m = (int(x) for x in v[5:].split(":"))
        times |= {f"{h}.{m:02d}", f"{h}{m:02d}"} | ({str(h), str(h - 12) if h > 12 else str(h)} if m == 0 else set())
        times.add(_fmt(h + m / 100))  # 10.50 read as 10.5
    return frozenset(n for n in nums if n[4:] in days or n[4:] in times)
