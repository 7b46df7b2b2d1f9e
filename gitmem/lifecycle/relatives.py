"""Someone's relative is someone else: "My neighbour Odile's husband is a porter at the
Rosie" and "My neighbour Odile is a midwife at the Rosie" are two people, though they
share the name, the place and the shape. gitmem.lifecycle.samefact keeps such texts
apart (Chinese: zh_names.owner_in reads who owns what with 的), and so are one thing and
the same thing with an owner put before it (`owner_added`), and two things of two people,
each named with 's, in a note's field or alone (`possessors_differ`, `people`: "Rohan's
Streamly profile PIN" / "streamly pin, meera's profile"; "Callum's gym membership…" /
"corewell gym — maya — renews 1st")."""

from __future__ import annotations

import difflib
import re
from functools import lru_cache

from gitmem.core.calendar import MONTHS, WEEKDAYS
from gitmem.lifecycle import alignment, kinds, zh_names
from gitmem.lifecycle.names import STOP, ZH_STOP
from gitmem.lifecycle.shortforms import given_name, nickname_of

# People someone has: kin, household, work and neighbours (British and American spellings).
RELATIONS = ("husband wife partner spouse fiance fiancee boyfriend girlfriend son daughter child children kids "
             "mother father mum mom dad parents brother sister sibling cousin uncle aunt niece nephew grandson "
             "granddaughter grandmother grandfather grandma grandpa gran nan stepson stepdaughter stepmother "
             "stepfather neighbour neighbor friend flatmate roommate housemate boss manager colleague landlord "
             "landlady tenant lodger nanny carer childminder teacher doctor dentist vet").split()
_RELATIVE = re.compile(r"\b([A-Z][\w-]+)['’]s\s+(?:[a-z-]+\s+)?(" + "|".join(RELATIONS) + r")\b")


def relative_added(a: str, b: str) -> bool:
    """Whether `b` speaks of a relative of someone `a` names ("Odile's husband", "Uncle
    Crispin's neighbour"), whom `a` speaks of themself: `a` names them and never says the
    relation."""
    for m in _RELATIVE.finditer(b):
        if re.search(rf"\b{re.escape(m[1])}\b", a) and not re.search(rf"\b{m[2]}s?\b", a, re.I):
            return True
    return False


def owner_added(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    """Whether `b` is `a` with an owner put before what it says ("我的护照…" / "我老婆的护照…",
    "My car is…" / "My wife's car is…"): the one stretch `b` adds, with content, ends in
    a possessive (的, 's) and comes before the rest of the text, which both share."""
    ops = [op for op in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes() if op[0] != "equal"]
    if not a or not b or len(ops) != 1 or ops[0][0] not in ("insert", "replace"):
        return False
    tag, i1, i2, j1, j2 = ops[0]
    # ... or put for the speaker's own: "我的医保卡…" / "儿子的医保卡…", "My car…" / "Tom's car…"
    if tag == "replace" and not all(t in STOP or t in ZH_STOP for t in a[i1:i2]):
        return False
    added = b[j1:j2]
    # 我的老婆的护照 against 我的护照 may align as 我 + 的老婆 + 的护照: the 的 after it counts,
    # and one character on (爸妈家的冰箱 / 我家的冰箱)
    possessive = added[-1] == "的" or added[-1].endswith("'s") or "的" in b[j2:j2 + 2]
    content = [t for t in added if t not in STOP and t not in ZH_STOP and t != "\x00"]
    # ... or what someone has put after them: 小叔的儿子在宁波港 / 小叔在宁波港. In Chinese
    # what is put before must be an owner: 书房的书架 / 书架 is one shelf (zh_names.owner_in).
    possessed = tag == "insert" and added[0] == "的" and 0 < i1 < len(a) and not kinds.attribute("".join(added))
    zh = "".join(t for t in content if alignment.HAN.match(t))
    return (possessive or possessed) and bool(content) and (possessed or not zh or zh_names.owner_in(zh)) and i1 < len(a)


# Two owners by name, each with 's ("Rohan's Streamly profile PIN" / "streamly pin, meera's
# profile": a note writes a name in lower case); kin, time and common things are no names.
_KIN = kinds.PEOPLE_WORDS | frozenset(RELATIONS)
_POSSESSOR = re.compile(r"(?<!\bst )(?<!\bst\. )(?<!\bsaint )\b([A-Za-z][a-z]+)['’]s\b", re.I)  # not St Bart's
# Words with 's that name no person: time, the things a note is about
_NOT_POSSESSOR = frozenset("today tomorrow yesterday week month year night morning evening weekend term season "
                           "club school company team shop store house home car dog cat baby kid kids child family "
                           "it that what there here who everyone someone nobody anyone world city council".split())


def _possessors(text: str) -> frozenset[str]:
    """The names before 's in `text`, in any case, but for kin (people), time, common things
    and initials (TJ's: a shop, Trader Joe's)."""
    return frozenset(w for w in (m[1].lower() for m in _POSSESSOR.finditer(text))
                     if len(w) >= 3 and w not in _KIN and w not in _NOT_POSSESSOR)



def possessors_differ(a: str, b: str) -> bool:
    """Whether each text names a person (`people`) and no one of one is one of the other's
    (the same, a nickname or a name cut short or inside it: Roz / Rosamund, Liv / Olivia,
    shortforms.nickname_of), by an initial (L. Ferris / Lachlan), or named anywhere in the
    other text: "Callum's gym membership at Corewell…" / "corewell gym — maya — renews
    1st, £29", "marco: oakridge estates job" / "Danny is on the Oakridge Estates job"."""
    pa, pb = people(a), people(b)
    if not (pa and pb) or any(re.search(rf"(?<![\w.]){o[0].upper()}\.", y) for xs, y in ((pa, b), (pb, a)) for o in xs):
        return False
    return not any(x == y or nickname_of(x, y) or (min(len(x), len(y)) >= 3 and (x in y or y in x)) for x in pa for y in pb) \
        and not any(re.search(rf"\b{re.escape(o)}\b", y, re.I) for xs, y in ((pa, b), (pb, a)) for o in xs)


# Where a text names a person without 's: a note's field that is a given name ("— maya —",
# "GK: Noah", "marco: …") or a given name standing alone, not in a run of capitals (Carlton
# Community Centre, VIA Rail) and, opening the text, before what a person does ("Danny is…";
# "Carol concert", "Max 240" open with no one). Given names: shortforms.given_name; kin,
# pets, roles and two-letter capitals are no one's name.
_FIELD = re.compile(r"\s[-–—]\s|[|｜:：,;()（）→]")
_LONE = re.compile(r"(?<![A-Za-z'’-])([A-Z][a-z]+)\b(?!['’]s\b)(?!\s+[A-Z])")
_CAPITAL_BEFORE = re.compile(r"\b[A-Z][A-Za-z]*\s$")  # the run of capitals it would end
_DOES = re.compile(r"\s+(?:is|are|was|has|had|takes|plays|wears|gets|goes|needs|starts|does|will|can|and)\b")
_NO_ONE = frozenset(kinds.PET_WORDS) | frozenset("inspector officer manager driver nurse teacher coach rail uk us".split())


@lru_cache(maxsize=65536)
def people(text: str) -> frozenset[str]:
    """The people `text` names, lower case: owners with 's (`_possessors`), a note's field
    that is a given name, a given name standing alone (see _LONE)."""
    out = set(_possessors(text))
    if not alignment.HAN.search(text):
        out.update(f.lower() for f in (x.strip() for x in _FIELD.split(text))
                   if re.fullmatch(r"[A-Za-z][a-z-]+", f) and _given(f.lower()))
        for m in _LONE.finditer(text):
            before = text[:m.start()]
            if _given(m[1].lower()) and not _CAPITAL_BEFORE.search(before) and (
                    re.search(r"\w", before) or _DOES.match(text, m.end())):
                out.add(m[1].lower())
    return frozenset(out - _NO_ONE - _KIN)


def _given(word: str) -> bool:
    return word not in STOP and word not in MONTHS and word not in WEEKDAYS and given_name(word)
