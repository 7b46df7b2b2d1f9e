"""The names a text states, for dream's guard (gitmem.lifecycle.samefact): capitalised words
that are not a sentence's first, Chinese names introduced as names (叫豆豆) or by surname
(小张) or by surname and kin word (吴叔, 陈阿姨), never a value, a unit, the speaker or a
note's marker.

Capitals are the English reader's only sign of a name, so a word in capitals that names
nothing is left out where it is known: a month or a weekday, a unit (GBP), a code (KX7),
"I", a letter before a word (L-plates, X-ray), a note's marker (TODO, FYI, NB), a
currency's country before its sign (NZ$79, CA$12) or its code beside an amount ($35 CAD),
capitals keyed before digits (INC 7741), and AM or a time zone after a clock time
("9:45 am Pacific", "0945 PT"; "Use UTC for logs" names UTC)."""

from __future__ import annotations

import re
from functools import lru_cache

from gitmem.core.calendar import MONTHS, WEEKDAYS
from gitmem.lifecycle import shortforms, values, zh_names
from gitmem.lifecycle.synonyms import NICKNAMES

# Words that carry no entity: function words, light verbs, note-taking preambles.
# Chinese is read a character at a time: particles, pronouns and the commonest function
# verbs and adverbs carry no entity.
ZH_STOP = frozenset("的了是在有会对和与也都就要把被给着吗呢吧啊呀我们你他她它这那个一每用使定律统总还已经将让请"
                    "可能需必须应该得到从向于以及并或而且但所如果因为做里由去")
STOP = frozenset("""a an the is are was were be been being am i i'm im me my mine we our us you your he she
it its they them their his her this that these those of on in at to for from by with as and or but so
do does did has have had having will would can could should must may might shall not no yes there here
what which who whom when where why how all any each every some also just only very too than then
about into onto over under again always please note reminder fyi hold holds held happen happens
happened take takes took get gets got make makes made go goes going keep kept being like likes liked
prefer prefers call called named s t re ve ll d m ji""".split())

_NAME = re.compile(r"[^\W\d_\u3400-\u9fff](?:[^\W\u3400-\u9fff]|['-])*")  # not into Chinese text
_SENTENCE_END = re.compile(r"[.!?:;(]\s*$")
# "Dr. Okafor", "J. Smith" (a title, an initial): not a sentence's start
_TITLE = re.compile(r"\b(?:dr|mr|mrs|ms|prof|st)\.\s*$|(?<![\w.])(?-i:[A-Z])\.\s*$", re.I)
_DIGITS = re.compile(r"\d")
# A capital letter before a word names a thing, not someone: L-plates, T-shirt, X-ray, U-turn
_LETTER_WORD = re.compile(r"[A-Z]-[a-z]{2,}(?:'s)?")
_UNIT_NAMES = frozenset(w for ws in values.UNITS.values() for w in ws if len(w) > 1 and w.isascii())
# A note's markers in capitals name nothing: "TODO renew…", "FYI the VPN…", "NB: …"
_MARKERS = frozenset("todo fyi nb fixme tbd tba asap wip ps rsvp aka btw fwiw attn eta".split()
                     + "ltd pty inc llc plc gmbh".split())  # ... nor a company's legal suffix
# ... nor does a title before a name ("Mr Venkatesh" / "S. Venkatesh" / "venkatesh sir")
TITLES = frozenset("mr mrs ms mx miss dr prof sir madam rev".split())
# Time zones after a clock time ("9:45 am Pacific", "0945 PT")
_ZONES = frozenset("pt pst pdt et est edt ct cst cdt mt mst mdt gmt bst utc cet cest aest aedt nzst nzdt".split())
_ZONE_WORDS = frozenset("pacific eastern central mountain".split())
_HAN_AFTER = re.compile(r"\s*[\u4e00-\u9fff]")
_CLOCK_BEFORE = re.compile(r"(?:\d|(?:\b|\d)[ap]\.?m\.?)\s*$", re.I)  # "2:51am ET"
# A currency's code beside its amount ("$35 CAD", "CAD 14,900"), am / pm after a clock time
# ("10:45 AM"; "Nikko AM" is a name), capitals keyed before digits ("INC 7741": a code)
CURRENCY_CODES = frozenset("usd eur gbp cad aud nzd hkd sgd twd ntd inr zar jpy cny rmb chf".split())
_AMOUNT_BESIDE = (re.compile(r"[\d$€£¥]\s*$"), re.compile(r"^\s*[\d$€£¥]"))
_BEFORE_DIGITS = re.compile(r"^[ -]?\d{3,}(?![/.:\d])")  # not a date: "MOT 19/3"


# A note that opens with whose it is, then a dash and the note in lower case ("Callum - costume
# fitting sat 10:30, Wendy"): the first word is a name though it starts the line
_NOTE_OWNER = re.compile(r"\s+[-–—]\s+[a-z]")
# A record's field label after a separator ("BharatGas refill | Ref: 4471… | Delivery: 21-11-2025")
_FIELD = re.compile(r"(?:[|｜–—]|\s-)\s*$")
_LABELLED = re.compile(r":\s*[\d$£€¥₹A-Z]")  # ... before a value or a name ("Maya: swim 4pm" names Maya)


def _names(text: str) -> set[str]:
    names = set()
    for line in text.splitlines():
        for m in _NAME.finditer(line):
            w = m.group(0)
            before = line[:m.start()]
            # first on the line: nothing word-like before it (会议室A: Chinese text is); in
            # Chinese ("Jason 的程式课…") a capitalised word is a name wherever it stands, and
            # so is a title in quotes ("'Orbital' - hackney central library")
            starts = not re.search(r"\w", before) or (bool(_SENTENCE_END.search(before)) and not _TITLE.search(before))
            starts = starts and not _HAN_AFTER.match(line, m.end()) and not before.endswith(("'", '"', "‘", "“"))
            if w[0].isupper() and (not starts or (w.isupper() and len(w) > 1) or shortforms.OPENING_OWNER.match(w)
                                   or (w[1:].islower() and _NOTE_OWNER.match(line, m.end()))):
                w = re.sub(r"'s$", "", w.casefold()).replace("-", "").rstrip("'’")  # Wi-Fi / WiFi; 'Orbital'
                # KX7, Y6: codes (values); GBP: a unit; I, I'm: the speaker
                pronoun = w.split("'")[0]  # "US" (all capitals) is a name, "I" / "Us" not
                said = m.group(0).split("'")[0]
                after = line[m.end():]
                if not (_DIGITS.search(w) or _LETTER_WORD.fullmatch(m.group(0)) or w in _UNIT_NAMES
                        or w in _MARKERS or w.removesuffix("s") in _MARKERS or w.rstrip(".") in TITLES or _zone(w, before)
                        or (w in CURRENCY_CODES and (_AMOUNT_BESIDE[0].search(before) or _AMOUNT_BESIDE[1].match(after)))
                        or (w in ("am", "pm") and re.search(r"\d\s*$", before))
                        or (m.group(0).isupper() and len(w) > 1 and _BEFORE_DIGITS.match(after))
                        or line[m.end():m.end() + 1] == "$"  # NZ$79
                        or (before[-1:].isdigit() and w in ("k", "l", "m", "f"))  # 100K, 78L, 2F: a magnitude, a floor
                        or (_FIELD.search(before) and _LABELLED.match(after) and not shortforms.given_name(w))
                        or (pronoun in STOP and (pronoun == "i" or (len(pronoun) > 1 and not said.isupper())))):
                    names.add(NICKNAMES.get(w, w))
    # Chinese has no capitals, but a pet or a person is often introduced by name:
    # 叫豆豆, 名叫旺财的柯基.
    names.update(m[1] for m in zh_names.NAMED.finditer(text))
    # 小张, 老李, 王总: a person by surname, who may be 张伟 in another text.
    names.update(m[1] or m[2] for m in zh_names.SHORT_NAME.finditer(text))
    names.update(zh_names.kin_names(text))  # 吴叔, 陈阿姨: two neighbours
    return names


def _zone(w: str, before: str) -> bool:
    return (w in _ZONES or w in _ZONE_WORDS) and bool(_CLOCK_BEFORE.search(before))  # "Use UTC for logs" names UTC


@lru_cache(maxsize=65536)
def names_of(text: str) -> frozenset[str]:
    """The names `text` states (no values read: cheap enough for every text of a scope)."""
    return frozenset(n for n in _names(values.without_addresses(shortforms.unaccented(text)))
                     if n not in MONTHS and n not in WEEKDAYS and n.removesuffix("s") not in WEEKDAYS)  # Weds


def initialled(only_a: set[str], a: str, only_b: set[str], b: str) -> tuple[set[str], set[str]]:
    """`only_a` and `only_b` (names one text states and the other lacks) without a surname
    `a` writes after an initial and the given name `b` states with that initial (not
    itself a surname after an initial): "Rota (R. McAllister): nights…" / "Rhona's next
    block of night shifts…" name one nurse; "J. Smith" / "J. Jones" two people."""
    for n in sorted(only_a):
        m = _after_initial(n).search(shortforms.unaccented(a))
        given = [g for g in only_b if m and g[:1] == m[1].casefold()
                 and not _after_initial(g).search(shortforms.unaccented(b))]
        if len(given) == 1:
            only_a, only_b = only_a - {n}, only_b - {given[0]}
    return only_a, only_b


@lru_cache(maxsize=4096)
def _after_initial(name: str) -> re.Pattern[str]:
    """`name` after an initial ("R. McAllister"), the initial captured."""
    return re.compile(r"(?<![\w.])((?-i:[A-Z]))\.\s*" + re.escape(name) + r"\b", re.I)


# A compound of words joined by hyphens or underscores: a service, a repository, a host
# ("payments-api", "design-system", "order_svc"); not one with a number word
# ("twenty-three", "two-year") or a relative (sister-in-law: gitmem.lifecycle.relatives).
_IDENTIFIER = re.compile(r"(?<![\w-])[A-Za-z]+(?:[-_][A-Za-z]+)+(?![\w-])")


def _identifiers(text: str) -> set[tuple[str, ...]]:
    out = set()
    for m in _IDENTIFIER.findall(text):
        parts = tuple(re.split(r"[-_]", m.casefold()))
        if not (set(parts) & values.NUMBER_WORDS or {"in", "law"} <= set(parts)):
            out.add(parts)
    return out


def identifiers_differ(a: str, words_a: frozenset[str], b: str, words_b: frozenset[str]) -> bool:
    """Whether each text names a compound identifier the other lacks: not written out in it,
    and some part of it held in no form by its words ("The payments-api service in staging is
    pinned to Node 20.11.1." / "checkout-api (staging): node 20.11.1"; "half-term" / "half
    term" and "pre-sub" / "pre-submission" hold theirs)."""
    def lacking(text: str, other: str, words: frozenset[str]) -> bool:
        low = other.casefold()
        return any("-".join(i) not in low and "_".join(i) not in low
                   and not all(len(p) < 3 or shortforms.word_held(p, words, prefixes=True) for p in i)
                   for i in _identifiers(text))
    return lacking(a, b, words_b) and lacking(b, a, words_a)
