"""Same fact or another one: the guard dream puts between two near-duplicate texts.

Embeddings say two texts are about the same thing, not whether both state the same fact.
Values are read in their canonical forms (gitmem.lifecycle.values), names with their short
forms (Bob / Robert, 小张 / 张伟), and what differs in value or entity is found:

- values (dates, months, years, times, quantities, numbers, addresses) of one kind where each
  side states one the other does not (known against known): "15 minutes" / "24 minutes",
  "9:30" / "10:15", "7am" / "7pm", "25 MB" / "25 GB"; a value only one side states, or
  cannot be read there, is unknown on that side, not different ("Rent is $1,200." / "Rent
  is $1,200, due on the 1st"); a number shared with two units, as quantulum3 reads them ("25 ml" / "25 litres");
- names (gitmem.lifecycle.names: capitalised words, not a sentence's first; Chinese names) on
  both sides that the other text lacks: "Ask Alice" / "Ask Bob", or against a place a lower-
  case note names ("co-op in chapel allerton"); in several clauses, the one the other says;
- a substitution in an otherwise shared template: every stretch where the texts differ has
  content on both sides ("My son plays…" / "My daughter plays…", 猫/狗, 北京/上海), as Chinese
  look-alikes differ (no capitals); unless the texts share a specific value and their
  subject and are no template word for word (`_reworded`).

`conflict(a, b)` names the first difference found or None; `anchors(a, b)` whether the texts
share values or names, dream's evidence of one fact (two Chinese texts sharing a value must
share a content character too: two events on one morning share only the time)."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import lru_cache

from gitmem.lifecycle import alignment, clock, codes, kinds, monthdays, notes, quantities, shortforms, synonyms, values, zh_names
from gitmem.lifecycle.names import STOP, TITLES, ZH_STOP, identifiers_differ, initialled, names_of
from gitmem.lifecycle.relatives import owner_added, possessors_differ, relative_added
from gitmem.lifecycle.synonyms import NICKNAMES

ZH_PREAMBLE = ("注意", "提醒", "备注", "记得", "时间", *(d + m for d in "这那" for m in "台辆张本条件间部套双只"))  # 这台: "the"
# The lexical channel (`overlap`): an English content word counts by its first letters
# (allergy / allergic, approvals / approve), a light stemmer by truncation.
PREFIX = 5
_CJK = alignment.HAN
# Values specific enough that two texts sharing one are likely about one fact.
SPECIFIC = frozenset({"date", "time", "qty", "addr", "year", "code", "mday"})
RECORD_KINDS = 2  # shared kinds of measured value that make two texts naming different things one record
WEAK = frozenset({"day", "month"})

_WORDS = re.compile(r"[a-z][a-z0-9'_-]*|[0-9]+[a-z][a-z0-9]*")
_AT_SIGN = re.compile(r"(?<!\S)@(?!\S)")  # "lego club @ shepton mallet library"


@dataclass(frozen=True)
class Fact:
    """A text read for comparison: its values by kind, names, content tokens."""

    values: dict[str, frozenset[str]]
    names: frozenset[str]
    tokens: tuple[str, ...]
    words: frozenset[str]
    units: frozenset[str] = frozenset()  # content words (en, truncated) and character pairs (zh)
    full: tuple[str, ...] = ()  # every word, function words too, a value as one blank


def _stem(w: str) -> str:
    w = NICKNAMES.get(w, w)
    for suffix in ("ing", "ly", "ed", "es", "s"):
        if len(w) > len(suffix) + 3 and w.endswith(suffix):
            return w[: -len(suffix)]
    return w


@lru_cache(maxsize=65536)
def read(text: str) -> Fact:
    """The values, names and content tokens of `text` (its letters unaccented)."""
    vals, t = values.extract(shortforms.unaccented(text))
    names = set(names_of(text))
    t, written = synonyms.one_word(_AT_SIGN.sub(" at ", t), synonyms.acronyms(text)), t  # as written: Grandad Percy
    values_by_kind = values.by_kind(vals)
    for p in ZH_PREAMBLE:
        t = t.replace(p, " ")
    tokens: list[str] = []
    for m in re.finditer(r"[\u3400-\u9fff]|[a-z0-9][a-z0-9'_.-]*[a-z0-9]|[a-z]|\x00", t):
        w = m.group(0)
        if w == "\x00":  # a value's place: values are compared on their own
            continue
        if _CJK.match(w):
            if w not in ZH_STOP:
                tokens.append(w)
        elif w not in STOP and not w.isdigit() and re.sub(r"'s?$", "", w) not in STOP:  # it's, that's: no word
            tokens.append(_stem(re.sub(r"'s?$", "", w)))  # clemmie's op / Clemmie op
    words = frozenset(tokens) - {"\x00"} | frozenset(re.findall(r"[a-z0-9]+", t + " " + written))
    units = {w[:PREFIX] for w in tokens if not _CJK.match(w) and len(w) >= 3}
    for run in re.findall(r"[\u3400-\u9fff]+", t):  # values are blanked out of t: no pair spans one
        units |= {x + y for x, y in zip(run, run[1:]) if x not in ZH_STOP and y not in ZH_STOP}
    full = tuple(re.findall(r"[\u3400-\u9fff]|[a-z0-9][a-z0-9'_.-]*[a-z0-9]|[a-z]|\x00", t))
    return Fact(values_by_kind, frozenset(names), tuple(tokens), words, frozenset(units), full)


def _reworded(fa: Fact, fb: Fact, a: str, b: str) -> bool:
    """Whether two texts whose content words differ in swapped stretches (one in English)
    still state one fact: they share a specific value (a date, time, quantity, address or a
    number of two digits or more) and their subject, and written out word for word, function
    words and all, they are not one template with stretches swapped ("表哥的婚礼在11月8日" /
    "表哥11月8号结婚"; "The staging URL is X." / "staging lives at X"). Look-alikes are such
    templates ("张伟的生日是6月12日" / "刘洋的生日是6月12日", 猫…豆豆 / 狗…球球), or swap their
    subject (in Chinese: for words with no character in common), unless they share three kinds
    of specific value: one room, day and hour (毕业答辩 / 论文答辩 …5月23日 14:30 经管楼B312)."""
    shared = set(_shared_values(a, b, fa, fb))  # "2.9 metres" / "9ft 6in" too
    if len({v.split(":", 1)[0] for v in shared} & (SPECIFIC - {"year"})) >= 3:
        return True
    # In Chinese the first content character is no subject (这次 / 这回) unless it begins a swap sharing no character (厨房 / 卫生间)
    cjk = bool(_CJK.search(a) and _CJK.search(b))
    subject_a = next((w for w in fa.tokens if w != "\x00"), None)
    if subject_a is None or (subject_a != next((w for w in fb.tokens if w != "\x00"), None)
                             and (not cjk or alignment.first_swap_apart(fa.full, fb.full))):
        return False
    if not any((v.split(":", 1)[0] in SPECIFIC and v.rsplit(" ", 1)[-1] not in values.COUNTERS)
               or (v.startswith("num:") and abs(float(v[4:])) >= 10) for v in shared):
        return False
    # In Chinese, one template with a word swapped for another of its length (年假 / 病假)
    # is two facts; a stretch said in more or fewer characters (期限为 / 签了, 有效期到 /
    # 有效至), or a verb swapped for a verb (交了 / 花了: the stretch ends in 了 or stands
    # before it), is the fact reworded. In English any swap in one template is two
    # ("ballet" / "tap dance").
    template = alignment.substitution(fa.full, fb.full)
    if template and _CJK.search("".join(fa.full)):
        template = all(m == n for m, n in alignment.slots(fa.full, fb.full)) and not alignment.light_swapped(fa.full, fb.full)
    return (cjk or len(alignment.slots(*alignment.prefixed(fa.tokens, fb.tokens))) == 1) and not template


def _lacks(f: Fact, n: str, caps: frozenset[str], initials: bool = False) -> bool:
    """Whether `f` lacks the name `n` of a text with capitals `caps` (shortforms.holds_name)."""
    return not shortforms.holds_name(n, f.words, f.names, f.full, caps, f.words - STOP, initials)


def _names_differ(fa: Fact, fb: Fact, a: str = "", b: str = "", field: bool = False) -> bool:
    """Whether each side names what the other lacks (_lacks; DC holds District Council; a kind
    of place may go unsaid), or one does and the other, a lower-case note, names another place
    or thing (shortforms.lower_names_other). `field`: `b` is a note's field, whose two
    letters (CT in "CT 26/27 – band D") abbreviate as often as name."""
    only_a, only_b = _unmatched(fa, fb, a, b, field)
    return bool(only_a and only_b) or any(notes.names_other(o, x, fx, y, fy, STOP, field)
                                           for o, x, fx, y, fy in ((only_a, a, fa, b, fb), (only_b, b, fb, a, fa)))


def _unmatched(fa: Fact, fb: Fact, a: str, b: str, field: bool = False) -> tuple[set[str], set[str]]:
    """The names each side gives that the other lacks (_names_differ)."""
    only_a, only_b = ({n for n in fx.names if _lacks(fy, n, shortforms.capitals(x)) and not (f and len(n) <= 2)}
                      for fx, fy, x, f in ((fa, fb, a, False), (fb, fa, b, field)))
    only_a = shortforms.kind_left_out(only_a, fb.names) - shortforms.spelled_out(b, read(a).full)
    only_b = shortforms.kind_left_out(only_b, fa.names) - shortforms.spelled_out(a, read(b).full)
    only_a, only_b = shortforms.coded_places(only_a, a, only_b, b)  # "dep BRS" / "leaving Bristol"
    only_a, only_b = initialled(only_a, a, only_b, b)
    only_b, only_a = initialled(only_b, b, only_a, a)
    return only_a, only_b


_CLAUSE = re.compile(r"[;；。!?！？]\s*|,\s+|，")


@lru_cache(maxsize=65536)
def _clauses(text: str) -> tuple[str, ...]:
    """`text`'s clauses; a place's name set off by a comma belongs to the clause before it
    ("… at Sunrise Clinic, Indiranagar; …")."""
    out: list[str] = []
    for c in (c for c in _CLAUSE.split(text) if c.strip()):
        if out and _NAME_ONLY.fullmatch(c.strip()):
            out[-1] += ", " + c
        else:
            out.append(c)
    return tuple(out)


_NAME_ONLY = re.compile(r"[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*){0,2}")


def _clause_names_differ(a: str, b: str) -> bool:
    """Whether `b`, a text of several clauses, names something else in the clause that
    is about what `a` says: "Tickets are tracked in Zendesk." / "Support tickets live in
    Freshdesk; the Zendesk contract ended in March." (the second clause names Zendesk,
    the first, the one about tickets, another tool)."""
    clauses = _clauses(b)
    if len(clauses) < 2 or len(_clauses(a)) > 1:
        return False
    ua = read(a).units
    best = max(clauses, key=lambda c: len(read(c).units & ua))
    return bool(read(best).units & ua) and _names_differ(*_normalised(a, best), a, best, field=True)


_NO_VOWEL = re.compile(r"[b-df-hj-np-tv-z]+$")


def _aliased(fa: Fact, fb: Fact) -> Fact:
    """`fb` with each word that is a short form (or the full form) of a word of `fa`
    written as `fa` writes it (gitmem.lifecycle.shortforms): a nickname of one of its
    names, so "Maggie Oduya" / "margaret oduya" is one name (only names, capitalised
    words, are looked up: "will" and "bill" stay words), its initial, or an abbreviation
    (acct / account)."""
    alias = {y: x for x in fa.names for y in fb.words if shortforms.nickname_of(x, y)}
    # ... or its initial before the same next word (N. Fairweather-Adjei / Ngozi Fairweather-Adjei)
    initials = [i for i, y in enumerate(fb.full[:-1]) if len(y) == 1 and y.isalpha()] if fb.names else []
    if initials:
        after_a = {NICKNAMES.get(x, x): fa.full[i + 1] for i, x in enumerate(fa.full[:-1]) if NICKNAMES.get(x, x) in fa.names}
        alias |= {fb.full[i]: x for i in initials for x in sorted(after_a) if x[0] == fb.full[i] and len(x) > 1
                  and after_a[x] == fb.full[i + 1] and x not in fb.words}
    # ... or its initial after the same name or title before it (Gareth L. / Gareth Lloyd, Dr H / Dr Hartigan)
    if fb.names:
        surname = {(x, y[0]): y for x, y in zip(fa.full, fa.full[1:]) if (x in fa.names or x in TITLES) and y in fa.names and len(y) > 1}
        alias |= {y: surname[(x, y)] for x, y in zip(fb.full, fb.full[1:])
                  if len(y) == 1 and (x, y) in surname and surname[(x, y)] not in fb.words}
    # ... or a name's short form with no vowel (Linden Rd / Linden Road, Boyd Orr Bldg)
    alias |= {y: x for y in fb.names if len(y) <= shortforms.ABBREV_MAX and _NO_VOWEL.match(y)
              for x in fa.names if len(y) < len(x) and shortforms.abbreviation(x, y)}
    alias |= shortforms.abbreviated(fa.words - STOP - (fa.names if fb.names else frozenset()), fb.words - STOP - fb.names)  # Mel: nicknames
    alias |= shortforms.cut_short(fa.full, fa.names, fb.full, fb.names)  # Ridgeway Vets / Veterinary
    if not alias:
        return fb
    def m(ws):
        return tuple(alias.get(w, w) for w in ws)
    return Fact(fb.values, frozenset(m(fb.names)), m(fb.tokens), frozenset(m(fb.words)), fb.units, m(fb.full))


def _plain(full: tuple[str, ...]) -> tuple[str, ...]:
    """Tokens with no possessive: "clemmie's op" swaps nothing for "Clemmie op"."""
    return tuple(re.sub(r"'s?$", "", t) for t in full)


def _spelled(fa: Fact, a: str, fb: Fact) -> Fact:
    """`fb` with the words that spell an acronym of `a` written as it: "Stoke Row VH" /
    "stoke row village hall", "Denmead CC" / "Denmead Cricket Club" (shortforms.acronym_span),
    and two neighbouring words `fa` writes as one written as one (harbour master /
    harbourmaster: shortforms.compounds_joined)."""
    tokens, full, lacking, extra = fb.tokens, fb.full, fa.words - fb.words, set(fb.full) - fa.words
    if lacking and len(extra) >= 2 and any(x + y in lacking or f"{x}-{y}" in lacking for x in extra for y in extra):
        tokens, full = shortforms.compounds_joined(tokens, lacking), shortforms.compounds_joined(full, lacking)
    for n in sorted(shortforms.capitals(a) & set(fa.tokens) - fb.words):
        t, f = shortforms.acronym_span(n, tokens), shortforms.acronym_span(n, full)
        if t and f:
            tokens, full = tokens[:t[0]] + (n,) + tokens[t[1]:], full[:f[0]] + (n,) + full[f[1]:]
    if tokens == fb.tokens and full == fb.full:
        return fb
    return Fact(fb.values, fb.names, tokens, fb.words | set(tokens), fb.units, full)


def _codes_joined(fa: Fact, fb: Fact) -> Fact:
    """`fb` with a code cut short read whole where `fa` writes it whole (codes.joined)."""
    vals = codes.joined(fa.values, fb.values, fb.words)
    return fb if vals is None else replace(fb, values=vals)


def _normalised(a: str, b: str) -> tuple[Fact, Fact]:
    """Both texts read, each with the other's names, acronyms, compounds and codes as it writes them."""
    fa, fb = read(zh_names.unlabelled(a, b)), read(zh_names.unlabelled(b, a))  # 酒店：亚龙湾万豪 / 住进亚龙湾万豪
    fb = _codes_joined(fa, _spelled(fa, a, _aliased(fa, fb)))
    return _codes_joined(fb, _spelled(fb, b, _aliased(fb, fa))), fb


@lru_cache(maxsize=65536)
def conflict(a: str, b: str, beside_values: bool = False, beside_names: bool = False) -> str | None:
    """Why `a` and `b` state different facts ("values differ", "names differ", "entities
    differ"), or None when nothing tells them apart; `beside_values`: their values unread;
    `beside_names`: their names unread, nor a stretch one swaps for another (where a name
    stands: "跟陈老师学钢琴" / "跟许老师学钢琴"). Accents count for nothing (Siobhán / Siobhan)."""
    a, b = shortforms.unaccented(a), shortforms.unaccented(b)
    fa, fb = _normalised(a, b)
    fa, fb = _mday_as_number(fa, fb), _mday_as_number(fb, fa)
    for kind in fa.values.keys() & fb.values.keys() if not beside_values else ():
        # Known against known: each side states a value of this kind the other does not.
        # A value only one side states (or one the reader could not read on the other
        # side) is unknown there, not different. Quantities compare by what they measure:
        # a length against a length ("1.85 m" / "185 cm" agree), never a duration against
        # an amount of money ("一年三万八" / "每年三万八千块": the year is not the fee).
        if kind == "qty":
            if quantities.measures_differ(fa.values, fb.values, _tolerance(a, b)):
                return "values differ"
        elif kind == "num":  # a bare number the other writes with a unit ("105" / "105mm"), a day or a time is its own
            if all(fx.values[kind] - fy.values[kind] - frozenset().union(*values.raw_numbers(y).values())
                   - values.told_by(fx.values[kind], fy.values) for fx, fy, y in ((fa, fb, b), (fb, fa, a))):
                return "values differ"
        elif (clock.times_differ(fa.values[kind], fb.values[kind]) if kind == "time"
              else fa.values[kind] - fb.values[kind] and fb.values[kind] - fa.values[kind]):
            return "values differ"
    if not beside_values and (monthdays.differ(fa.values, fb.values) or monthdays.differ(fb.values, fa.values)):
        return "values differ"
    if not beside_values and (codes.against_number(fa.values, fb.values) or codes.against_number(fb.values, fa.values)
                              or codes.against_model(a, fa.values, b) or codes.against_model(b, fb.values, a)):
        return "values differ"
    shared_numbers = {v[4:] for v in fa.values.get("num", frozenset()) & fb.values.get("num", frozenset())}
    # quantulum3 is asked about a shared number the hand-written units read on one side at most
    with_units = [{v[4:].split(" ", 1)[0] for v in f.values.get("qty", frozenset())} for f in (fa, fb)]
    shared_numbers -= with_units[0] & with_units[1]
    if shared_numbers and not is_cjk(a) and not is_cjk(b) and quantities.units_differ(a, b, shared_numbers):
        return "units differ"
    if not beside_names and (_names_differ(fa, fb, a, b) or (fa.names and fb.names and (_clause_names_differ(a, b) or _clause_names_differ(b, a)))
            or identifiers_differ(a, fa.words, b, fb.words) or zh_names.titles_differ(a, b)) and not _one_record(a, b, fa, fb):
        return "names differ"
    if owner_added(fa.full, fb.full) or owner_added(fb.full, fa.full) or relative_added(a, b) or relative_added(b, a) \
            or zh_names.owners_differ(a, b) or kinds.differ(a, b, beside_values) or possessors_differ(a, b):
        return "entities differ"
    # Content words alone, or in English one sentence with one short stretch swapped where the
    # content words are too few to share half ("I had my Covid booster / my flu jab at Boots").
    if beside_names:
        return None
    swapped = alignment.substitution(fa.tokens, fb.tokens) or (
        not is_cjk(a) and not is_cjk(b) and alignment.swaps(_plain(fa.full), _plain(fb.full), STOP))
    if swapped and not _reworded(fa, fb, a, b):
        if shared_numbers and not is_cjk(a) and not is_cjk(b):
            # "8 ft" / "eight feet": a unit the hand-written lists lack is a word of the value
            units = quantities.unit_words(a) | quantities.unit_words(b)
            ta, tb = (tuple(t for t in f.tokens if t not in units) for f in (fa, fb))
            if units and not alignment.substitution(ta, tb):
                return None
        return "entities differ"
    return None


@lru_cache(maxsize=65536)
def terms(text: str) -> frozenset[str]:
    """What a text is about, to tell whether two texts share a subject: its content
    words (three letters or more), names, values, and pairs of adjacent Chinese
    content characters (one character alone says little)."""
    f = read(text)
    out = {t for t in f.tokens if not _CJK.match(t) and len(t) >= 3} | set(f.names)
    out |= {v for vs in f.values.values() for v in vs}
    for run in re.findall(r"[\u3400-\u9fff]+", values.extract(shortforms.unaccented(text))[1]):  # no pair spans a value (8日上午)
        out |= {x + y for x, y in zip(run, run[1:]) if x not in ZH_STOP and y not in ZH_STOP}
    return frozenset(out)


def _tolerance(a: str, b: str) -> float:
    return quantities.rounding(values.source_units(a), values.source_units(b))


def _shared_values(a: str, b: str, fa: Fact, fb: Fact) -> list[str]:
    """The values both texts state (a measure within ROUNDING where they wrote it in
    different units; a code read whole on one side, cut short on the other: _codes_joined)."""
    fa, fb = _codes_joined(fb, fa), _codes_joined(fa, fb)
    shared = [v for k in fa.values for v in fa.values[k] & fb.values.get(k, frozenset())]
    shared += sorted(monthdays.shared(fa.values, fb.values) - set(shared))  # "the 7th" / 7 March: both
    # A measure's number against a bare number where the other text gives no measure of
    # that dimension (its unit word unknown to the reader): "五十五升" / "五十五公斤".
    for x, fy in ((a, fb), (b, fa)):
        dims = {quantities.dimension(v) for v in fy.values.get("qty", frozenset())}
        # ... a bare number: not one that counts something else there (五岁 is an age, not 五分钟)
        counted = {"num:" + v[4:].split(" ", 1)[0] for v in fy.values.get("qty", frozenset())}
        for dim, nums in values.raw_numbers(x).items():
            if dim not in dims:
                shared += [n for n in nums & fy.values.get("num", frozenset()) - counted if n not in shared]
    # An amount against its number written bare (100 or more), the other giving none: "dep. 600 paid" / "USD 600.00"
    for fx, fy in ((fa, fb), (fb, fa)):
        amounts = [q for q in fy.values.get("qty", frozenset()) if "[" not in q and q.rsplit(" ", 1)[-1] not in values.COUNTERS]
        if amounts and not any("[" not in q for q in fx.values.get("qty", frozenset())):
            bare = fx.values.get("num", frozenset())
            shared += [q for q in amounts if q not in shared and "num:" + (n := q[4:].split(" ", 1)[0]) in bare
                       and abs(float(n)) >= 100]
    tol = _tolerance(a, b)
    if tol:
        qb = fb.values.get("qty", frozenset())
        shared += [x for x in fa.values.get("qty", frozenset()) - qb
                   if any(quantities.close_measure(x, y, tol) for y in qb)]
    return shared


def _mday_as_number(fx: Fact, fy: Fact) -> Fact:
    """`fx` with its days of the month as numbers where `fy` gives no date (monthdays.as_number)."""
    vals = monthdays.as_number(fx.values, fy.values)
    return fx if vals is None else replace(fx, values=vals)


def anchors(a: str, b: str, common: frozenset[str] = frozenset()) -> bool:
    """Whether the texts share a value or a name (and so, with no conflict, likely
    state one fact); a name of `common` (one the store names everywhere: the people of
    a chat, "Thanks, Maria!") is no evidence."""
    fa, fb = read(a), read(b)
    if (fa.names & fb.names) - common or (b.islower() and shortforms.written_out(fa.names - common, fb.words, fb.full)) \
            or (a.islower() and shortforms.written_out(fb.names - common, fa.words, fa.full)):
        return True
    # 小周 / 周伟: the surname alone is one character, which many words hold (周报, 盒马):
    # it says "the same person" only beside a word the texts share.
    if (_zh_name_in(fa, b) or _zh_name_in(fb, a) or zh_names.short_name_in(a, b) or zh_names.short_name_in(b, a)
            or zh_names.titled_name_in(a, b) or zh_names.titled_name_in(b, a)
            or zh_names.shared_full_name(a, b) or zh_names.shared_full_name(b, a)) and overlap(a, b)[1] >= 1:
        return True
    # 晓芸 / 唐晓芸: a given name is a pair of characters many words share (服务 in 订单服务):
    # beside a word besides the name
    if (zh_names.given_name_in(a, b) or zh_names.given_name_in(b, a)) and overlap(a, b)[1] >= 2:
        return True
    shared = _shared_values(a, b, fa, fb)
    # A weekday or a month alone says little (many things happen on a Tuesday).
    strong = [v for v in shared if v.split(":", 1)[0] not in WEAK]
    if not (strong or len(shared) >= 2):
        return False
    if not (is_cjk(a) or is_cjk(b)) or any(v.startswith("code:") for v in shared):
        return True  # a reference code (G1372, KX7-4418) names one thing on its own
    # A small number alone ("科目二考了两次" / "开第二家分店") anchors two Chinese texts, which
    # the vectors do not tell apart, only beside a shared word.
    if all(v.startswith("num:") and abs(float(v[4:])) < 10 for v in shared):
        return overlap(a, b)[1] >= 1
    # ... and a value says one fact only when it is said of one thing: two events on one
    # morning share the time and nothing else ("周三上午十点跟客户开会" / "车辆年检在4月22日
    # 上午十点"). English vectors tell such subjects apart; the English model reads much of
    # Chinese as one unknown token, so two Chinese texts must share a content character.
    ca, cb = _content_chars(fa), _content_chars(fb)
    return bool(ca & cb) or not ca or not cb


def restates(a: str, b: str) -> bool:
    """Whether the texts give the same particulars: they share a value or a name
    (`anchors`), and neither states a name, or a value (not a weekday or a month alone),
    that the other lacks. A text that says something changed ("now", 现在) restates a
    text that does not only so: "We switched our CI from Jenkins to GitHub Actions"
    names what "My team uses Jenkins for CI" lacks."""
    if not anchors(a, b):
        return False
    fa, fb = read(a), read(b)
    fb = _aliased(fa, fb)
    fa = _aliased(fb, fa)
    named = all(n in b.casefold() or not _lacks(fb, n, shortforms.capitals(a), True) for n in fa.names) and \
        all(n in a.casefold() or not _lacks(fa, n, shortforms.capitals(b), True) for n in fb.names)  # 叫卢嘉豪
    return named and {k: v for k, v in fa.values.items() if k not in WEAK} == \
        {k: v for k, v in fb.values.items() if k not in WEAK}  # the same values, none more


def _particular(v: str) -> str | None:
    """A value as a particular (`same_particulars`), or None: an amount by its number (a
    bare number of three digits or more is the amount a Chinese note writes without its
    unit: 花了两千九百六)."""
    kind, rest = v.split(":", 1)
    if kind in ("qty", "num"):
        n = rest.split(" ", 1)[0]
        counted = kind == "qty" and v.rsplit(" ", 1)[-1] in values.COUNTERS
        return "n:" + n if (kind == "qty" and not counted) or abs(float(n)) >= 100 else None
    return v if kind in SPECIFIC else None


def same_particulars(a: str, b: str) -> bool:
    """Whether the texts state the same specific values, one at least, and no other: an
    amount (within rounding where written in two units), a date, a time, a code
    ("车换了四条新轮胎，一共花了两千九百六" / "换胎 2960 块"; not "The meeting moved from
    3pm to 4pm" / "The meeting is at 3pm")."""
    fa, fb = read(a), read(b)
    sides = [{_particular(v) for vs in f.values.values() for v in vs} - {None} for f in (fa, fb)]
    if not sides[0] or not sides[1]:
        return False
    if sides[0] == sides[1]:
        return True
    shared = {_particular(v) for v in (*_shared_values(a, b, fa, fb), *_shared_values(b, a, fb, fa))} - {None}
    return sides[0] <= shared and sides[1] <= shared


def _content_chars(f: Fact) -> set[str]:
    return {t for t in f.tokens if _CJK.match(t)}


def _one_record(a: str, b: str, fa: Fact, fb: Fact) -> bool:
    """Whether two texts that name things the other does not are still one record: they
    share a name and RECORD_KINDS kinds of measured value ("Oduya - RCT - Thu 06/03 14:15 -
    Dr H" / "Grace Oduya's root canal ... 6 March at 2:15pm with Dr Hartigan"; "VIA #63 |
    OTT→TOR | fri 11/07 | 15:20" / "VIA Rail train 63 from Ottawa to Toronto ..."). A note
    abbreviates, leaves out or adds names; two events that agree on the day, the time and a
    name are one. Whose it is is judged after (owners, relatives and kinds still differ)."""
    if not set(fa.names) & set(fb.names) or measured(a, b) < RECORD_KINDS:
        return False
    # ... but not where each side writes out a name of its own: "from London Gatwick" / "from
    # London Heathrow" on one day at one hour are two flights (and LGW / Heathrow)
    only = _unmatched(fa, fb, a, b)
    return not all(any(shortforms.name_in_full(n, x) or shortforms.airport_against_airport(n, other) for n in mine)
                   for mine, other, x in ((only[0], only[1], a), (only[1], only[0], b)))


def measured(a: str, b: str) -> int:
    """How many kinds of measured value the texts share (0: none): an amount with its
    unit, a date, a clock time, a year, an address or a code (not a bare number, a
    weekday or a count of people)."""
    fa, fb = read(a), read(b)
    return len({v.split(":", 1)[0].replace("mday", "date") for v in _shared_values(a, b, fa, fb)
                if v.split(":", 1)[0] in SPECIFIC and v.rsplit(" ", 1)[-1] not in values.COUNTERS})


def _zh_name_in(fa: Fact, b: str) -> bool:
    """Whether a Chinese name of one text (小张: 张, 叫卢嘉豪) is written out in `b` (张伟)."""
    return any(_CJK.match(n) and n in b for n in fa.names)


def overlap(a: str, b: str, common: frozenset[str] = frozenset()) -> tuple[float, int]:
    """The lexical channel beside the embeddings: (containment, shared) of the texts' content
    units (English content words by their first PREFIX letters, Chinese pairs of adjacent
    content characters, after dates, times and numbers are read out): shared units over the
    smaller text's. Chinese paraphrases an English model scores 0.5-0.7 share these words."""
    ua, ub = read(a).units, read(b).units
    if common:  # the people of a chat (grouping.common_terms) are no shared word either
        names = {n[:PREFIX] for n in common}
        ua, ub = ua - names, ub - names
    if not ua or not ub:
        return 0.0, 0
    shared = len(ua & ub) + zh_names.split_shared(ua - ub, ub - ua, read(a).full, read(b).full)  # 后杠 / 后保险杠
    return min(1.0, shared / min(len(ua), len(ub))), shared


def is_cjk(text: str) -> bool:
    """Whether `text` is mostly Chinese (more CJK characters than Latin letters)."""
    cjk = len(_CJK.findall(text))
    return cjk > 0 and cjk >= len(re.findall(r"[A-Za-z]", text))
