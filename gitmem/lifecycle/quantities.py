"""What a number measures: measures in their base unit (pint), and the unit of a number read
by quantulum3, a second opinion on what a shared number measures.

Measures: gitmem.lifecycle.values reads a number with a unit word of MEASURES and writes
it in the base unit of its dimension (`base`: "185 cm" and "1.85 m" -> 1.85 [length]);
`dimension`, `by_dimension` and `close_measure` compare such values (one dimension with
another of its kind, within a rounding where two texts wrote them in different units).

gitmem.lifecycle.values reads the units dream's tuning data showed (money, sizes, durations,
Chinese counters) by hand; quantulum3 knows several hundred units by their names, plurals
and abbreviations in English ("2.5 mL" / "two and a half millilitres" / "2.5ml" are one
volume, "8 ft" and "10 feet" lengths). It is asked only about a pair the hand reader lets
through with a number in common (`units_differ`), so its cost (about 1.5 ms a text after a
second's load) stays off dream's hot path, and it is imported on first use only."""

from __future__ import annotations

import re
import warnings
from functools import lru_cache

_LATIN = re.compile(r"[A-Za-z]")
# "w/ gwen" is "with", "room 5 at two" no ampere-turns: quantulum3's readings of note-taking
_WITH = re.compile(r"\bw/\s*", re.I)
# A rate's short period, spelled out for quantulum3 ("£1280/wk" read as pounds per watt kelvin)
_PER = re.compile(r"\s*/\s*(wk|mo|mth|yr|hr|hrs)\b", re.I)
# ... and "350F" (farads), "14 sqm" (second quintal metres), as a person means them
_FAHRENHEIT = re.compile(r"(\d)\s?F\b")
_SQM = re.compile(r"(\d)\s?sq\.?\s?m\b", re.I)
_PERIOD_WORD = {"wk": "week", "mo": "month", "mth": "month", "yr": "year", "hr": "hour", "hrs": "hour"}
_MISREAD = frozenset({"ampere-turn", "coulomb"})  # ... nor "7 C" seven coulombs
_DIGIT_OR_WORD = re.compile(r"\d|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|"
                            r"twenty|thirty|forty|fifty|hundred|thousand|half|quarter)\b", re.I)


@lru_cache(maxsize=1)
def _parser():
    with warnings.catch_warnings():  # it warns that its optional classifier is not installed
        warnings.simplefilter("ignore")
        from quantulum3 import parser  # lazily: dream's code path only

    return parser


def fmt(x: float) -> str:
    """A number in plain digits (never an exponent, which would read as two numbers)."""
    return str(int(x)) if x == int(x) else f"{x:.9f}".rstrip("0").rstrip(".")  # 2.5 mg is 0.0000025 kg


@lru_cache(maxsize=65536)
def _found(text: str) -> tuple[tuple[object, str, str], ...]:
    """(value, unit name, surface) of each quantity quantulum3 reads in an English
    `text`, parsed once per text; () for a text without Latin letters or a number."""
    if not _LATIN.search(text) or not _DIGIT_OR_WORD.search(text):
        return ()
    try:
        found = _parser().parse(_as_meant(text))
    except (ValueError, KeyError, IndexError, AttributeError, TypeError):  # its own failures on odd input
        return ()
    return tuple((q.value, q.unit.name, q.surface) for q in found if q.unit.name not in _MISREAD)


def _as_meant(text: str) -> str:
    """`text` with the note-taking forms quantulum3 misreads written out as a person means them."""
    text = _SQM.sub(r"\1 m²", _FAHRENHEIT.sub(r"\1 °F", _WITH.sub("with ", text)))
    return _PER.sub(lambda m: " per " + _PERIOD_WORD[m[1].lower()], text)


@lru_cache(maxsize=65536)
def units(text: str) -> dict[str, frozenset[str]]:
    """The numbers of an English `text` that carry a unit, each with its units' canonical
    names ("2.5" -> {"cubic centimetre"}); {} for a text without Latin letters."""
    out: dict[str, set[str]] = {}
    for value, name, surface in _found(text):
        # "a day" is one day by article, not by number; a bare number has no unit to compare;
        # a unit of a word quantulum3 could not read ("eighty-nine a head": per hour per unk per day) is none
        if name == "dimensionless" or not _DIGIT_OR_WORD.search(surface) or isinstance(value, complex) \
                or "unk" in name.split():
            continue
        out.setdefault(fmt(float(value)), set()).add(name)
    return {k: frozenset(v) for k, v in out.items()}


@lru_cache(maxsize=65536)
def unit_words(text: str) -> frozenset[str]:
    """The words of `text` that name a unit of one of its numbers ("ft", "feet", "ml"),
    lower case: values, not entities, where two texts are compared word by word."""
    out: set[str] = set()
    for _, name, surface in _found(text):
        if name != "dimensionless":
            out |= {w for w in re.findall(r"[a-z]+", surface.lower()) if not _DIGIT_OR_WORD.fullmatch(w)}
    return frozenset(out)


def units_differ(a: str, b: str, numbers: set[str]) -> bool:
    """Whether one of `numbers` (shared by both texts, as values.extract writes them)
    carries a unit on both sides and the units differ ("25 ml" / "25 litres")."""
    # Written in digits before the same word on both sides ("Postgres 13 (note 5)"), a
    # number has one unit or none on both: no need to ask; "a" or "per" begins a rate
    # ("500 a month" / "500 a week").
    numbers = {n for n in numbers if _next_words(a, n) != _next_words(b, n) or not _next_words(a, n) - _RATE_WORDS}
    if not numbers:
        return False
    ua, ub = units(a), units(b)
    return any(n in ua and n in ub and not _agree(ua[n], ub[n]) for n in numbers)


_RATE_WORDS = frozenset({"a", "an", "per", "each", "every"})


def _agree(x: frozenset[str], y: frozenset[str]) -> bool:
    """Whether two numbers' units agree: one unit on both sides, or a rate whose amount
    only one side names ("862 a month" / "£862 a month": per month / pound sterling per month),
    or money only one side says is a rate ("3,942 a year" / "3,942 Canadian dollars"), or
    dollars whose country only one side names ("$500" / "500 Canadian dollars")."""
    return bool(x & y) or any(u.startswith("per ") and (v.endswith(" " + u) or _currency(v))
                              or _dollars(u, v) or _rate_unsaid(u, v) for p, q in ((x, y), (y, x)) for u in p for v in q)


def _rate_unsaid(u: str, v: str) -> bool:
    """Whether `u` is money at a rate and `v` the same money, or one country's dollars, with the
    rate left unread ("$500/mo" / "500 Canadian dollars every month")."""
    base = u.partition(" per ")[0]
    return " per " in u and " per " not in v and _currency(base) and (v == base or _dollars(base, v))


def _dollars(u: str, v: str) -> bool:
    """Whether `u` is dollars (at a rate or not) and `v` one country's dollars at that rate."""
    return u.partition(" per ")[0] == "dollar" and v.endswith(" " + u) and _currency(v.partition(" per ")[0])


@lru_cache(maxsize=1024)
def _currency(name: str) -> bool:
    """Whether quantulum3 names `name` (no rate) a currency."""
    unit = _units().names.get(name)
    return unit is not None and unit.entity.name == "currency"


@lru_cache(maxsize=1)
def _units():
    from quantulum3 import load  # lazily, as _parser

    return load.units()


def _next_words(text: str, number: str) -> frozenset[str]:
    """The words right after `number` written in digits in `text` (lower case)."""
    return frozenset(m[1].lower() for m in re.finditer(rf"(?<![\d.,]){re.escape(number)}(?![\d.,]\d)\s*([^\W\d]+)", text))


# Units of a measure, as pint names them: a quantity in one of these is written in the
# base unit of its dimension, with no bare number ("185 cm" and "1.85 m" -> `qty:1.85 [length]`;
# "2.5 hours", "150 minutes" and "2h30" -> `qty:9000 [time]`), so one amount written in
# two units reads as one value. Chinese 斤 is defined as half a kilogram.
MEASURES = {"year": "year", "month": "month", "week": "week", "day": "day", "hour": "hour", "minute": "minute",
            "second": "second", "km": "kilometer", "kg": "kilogram", "m": "meter", "cm": "centimeter",
            "mm": "millimeter", "mg": "milligram", "volt": "volt", "inch": "inch", "ft": "foot", "mile": "mile", "g": "gram", "t": "tonne", "jin": "jin",
            "lb": "pound", "oz": "ounce", "ml": "milliliter", "l": "liter", "m3": "meter ** 3", "kb": "kilobyte", "mb": "megabyte",
            "gb": "gigabyte", "tb": "terabyte"}


@lru_cache(maxsize=1)
def _registry():
    import pint  # lazily: dream's code path only (a registry costs ~0.4 s to build)

    reg = pint.UnitRegistry()
    reg.define("jin = 0.5 * kilogram")  # 斤
    return reg


@lru_cache(maxsize=4096)
def base(x: float, unit: str) -> tuple[str, str]:
    """(amount, dimension) of `x` `unit` (a MEASURES unit) in its dimension's base unit,
    to six significant digits (185 cm and 1.85 m give one string)."""
    q = _registry().Quantity(x, MEASURES[unit]).to_base_units()
    dim = str(q.dimensionality)
    return fmt(float(f"{q.magnitude:.6g}")), "[information]" if dim == "dimensionless" else dim  # bytes


# Units (gitmem.lifecycle.values.UNITS) that count things rather than measure them: two
# look-alike facts often share one ("both three years old", "30 people each").
COUNTERS = frozenset({"age", "floor", "times", "people"})


def dimension(value: str) -> str:
    """What a `qty:` value measures: its dimension for a measure ("[length]"), "count" for
    a count (COUNTERS, which compare with each other: 3岁 / 3楼 differ; "10次课" is no price
    and "¥1200" no number of lessons), "amount" for money and the rest (£615 / $615 differ)."""
    unit = value.split(" ", 1)[1] if " " in value else ""  # "[length] ** 3" has spaces
    if unit in COUNTERS:
        return "count"
    return unit if unit.startswith("[") else "amount"


def close_measure(x: str, y: str, tolerance: float = 0.0) -> bool:
    """Whether two `qty:` values of one dimension are one amount, within `tolerance`
    (a share of the larger) where the texts wrote them in different units."""
    (vx, dx), (vy, dy) = (v[4:].split(" ", 1) for v in (x, y))
    if dx != dy or not dx.startswith("["):
        return x == y
    a, b = float(vx), float(vy)
    return a == b or abs(a - b) <= tolerance * max(abs(a), abs(b))


def by_dimension(quantities: frozenset[str]) -> dict[str, frozenset[str]]:
    """`qty:` values grouped by what they measure (`dimension`)."""
    out: dict[str, set[str]] = {}
    for v in quantities:
        out.setdefault(dimension(v), set()).add(v)
    return {k: frozenset(v) for k, v in out.items()}


# Two texts that give a measure in different units round it: within this share of the larger
# amount it is one measure (57 ft = 17.37 m, "17.4 m"; 14.3 lb = 6.49 kg, "6.5 kg"); across
# imperial and metric units by CONVERTED (6 in = 152.4 mm, "150mm"; 1 ft, "30 cm").
ROUNDING, CONVERTED = 0.015, 0.02
IMPERIAL = frozenset({"inch", "ft", "mile", "lb", "oz"})


def rounding(units_a: frozenset[str], units_b: frozenset[str]) -> float:
    """The tolerance for comparing two texts' measures written in `units_a` and `units_b`
    (gitmem.lifecycle.values.source_units): none in the same units."""
    if units_a == units_b:
        return 0.0
    return CONVERTED if bool(units_a & IMPERIAL) != bool(units_b & IMPERIAL) else ROUNDING


def measures_differ(va: dict[str, frozenset[str]], vb: dict[str, frozenset[str]], tolerance: float = 0.0) -> bool:
    """Known against known, per dimension, over two texts' values by kind: each side gives a
    measure (`qty`) the other does not (not within `tolerance`, a share of the larger, where
    the texts wrote them in different units). A measure whose number the other side states
    bare (its `num`), in no unit of that dimension, is unknown there, not different ("CU
    loan: 6.5k …, €202/mth" / "six and a half thousand euro …, 202 a month")."""
    qa, qb, none = va.get("qty", frozenset()), vb.get("qty", frozenset()), frozenset()
    ga, gb = by_dimension(_unless_bare(qa, qb, vb.get("num", none))), by_dimension(_unless_bare(qb, qa, va.get("num", none)))
    for d in ga.keys() & gb.keys():
        only_a = [x for x in ga[d] if not any(close_measure(x, y, tolerance) for y in gb[d])]
        only_b = [y for y in gb[d] if not any(close_measure(x, y, tolerance) for x in ga[d])]
        if only_a and only_b:
            return True
    return False


def _unless_bare(qx: frozenset[str], qy: frozenset[str], bare_y: frozenset[str]) -> frozenset[str]:
    """`qx` but the measures whose number `bare_y` holds and `qy` gives in no unit of
    their dimension."""
    def number(v: str) -> str:
        return v[4:].split(" ", 1)[0]

    told = {(dimension(v), number(v)) for v in qy}
    return frozenset(v for v in qx if f"num:{number(v)}" not in bare_y or (dimension(v), number(v)) in told)
