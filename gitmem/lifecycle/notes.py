"""How a terse note names someone or something its twin text does not: the word it opens
with before a dash ("rolo – …") or a colon ("Shark filter: …"), or the tag it ends with
("… – transit van", "… – sprout"), against a name or a relative the other text gives; or
the word after part of a shop's name ("@ pet pantry coburg," / "Pet Pantry Brunswick"); or
the word a lower-case note opens with, or whom it says it is for, when the other text
names what the note lacks ("liam cleaning at the dentist…" / "Ava's next dental cleaning…",
"bike fit for meera…" / "Rohan's bike fit…").
gitmem.lifecycle.samefact asks `names_other` when only one text holds names the other lacks
(or neither does); the words are compared in their short forms (shortforms.word_held)."""

from __future__ import annotations

import re

from gitmem.core.calendar import MONTHS, WEEKDAYS
from gitmem.lifecycle import kinds
from gitmem.lifecycle.shortforms import HEAD, OPENER, TAG, capitals, lower_names_other, nickname_of, word_held
from gitmem.lifecycle.values import NUMBER_WORDS


def names_other(only: set[str], x: str, fx, y: str, fy, stop: frozenset[str], field: bool = False) -> bool:
    """Whether `y` (read as `fy`) names another one than the names `only` its twin `x`
    (read as `fx`) alone holds: a lower-case note naming another place or thing
    (lower_names_other), another branch of one shop (branch_in_head, branch_of_name) or
    someone (note_against); or a note whose first word, a name
    the reader cannot tell from a sentence's first word, the other lacks while it names
    what the note lacks ("Shark filter: wash every 3 months" / "The filter on the Dyson…")."""
    plain = _CURRENCY_COUNTRY.sub("$", y)  # "– kids bikes A$149" is a lower-case note
    # ... and one that names whose it is by its head before a dash, its month or weekday
    # capitalised ("noodle - rabies booster due 12 May" / "Pickle is due her rabies booster…")
    dated = _CALENDAR.sub("", plain)
    if plain != dated and dated == dated.lower() and note_against(y, fy.words, x, fx.words, stop):
        return True
    if plain and plain == plain.lower():
        return bool(only and (lower_names_other(fy.full, stop, only, fx.full, fx.words, capitals(x), y)
                              or branch_in_head(y, stop, only - capitals(x), fx.words))) \
            or note_against(y, fy.words, x, fx.words, stop) or branch_of_name(x, fx.words, y, stop) \
            or (not field and (opener_against_subject(y, fy.full, only, fx.words, stop)
                               or for_other(y, only, fx.words, stop)))
    return bool(only) and (opener_other(y, fy.words, x, fx.words, stop) or tag_other(y, fx.words, stop))


_CURRENCY_COUNTRY = re.compile(r"\b[A-Z]{1,3}\$")
_CALENDAR = re.compile(r"\b(?:" + "|".join(sorted({**MONTHS, **WEEKDAYS}, key=len, reverse=True)) + r")\b\.?", re.I)
_CAPITAL_RUN = re.compile(r"[A-Z][\w'’]*\.?(?:\s+[A-Z][\w'’]*\.?)+")  # "Pet Pantry Brunswick", "Queen St. West"
_BRANCH_HEAD = re.compile(r"^([a-z][a-z'’ &]+?)\s+[–—-]\s")  # "chemist warehouse porirua – flu jab $35"


def branch_in_head(text: str, stop: frozenset[str], names: frozenset[str], words_x: frozenset[str]) -> bool:
    """Whether a lower-case note's head before a dash holds a name of the other text and
    words it lacks, where the other names something the note lacks ("briscoes newmarket –
    breville kettle $79" / "Sylvia Park Briscoes has the Breville kettle…"): another
    branch of one chain."""
    m = _BRANCH_HEAD.match(text)
    if not m or not names:
        return False
    words = re.findall(r"[a-z][a-z'’]+", m[1])
    if any(w in stop for w in words):  # a clause ("new pb at heaton park…"), not a name
        return False
    extra = [w for w in words if len(w) >= 3 and not kinds.named(w) and not word_held(w, words_x)]
    return bool(extra) and len(extra) < len(words)


def branch_of_name(text: str, words_text: frozenset[str], note: str, stop: frozenset[str]) -> bool:
    """Whether a lower-case `note` names part of a name of several capitalised words
    `text` gives, then a word `text` lacks that ends a phrase (a comma, a dash or the end
    after it), where `text`'s name has a word the note lacks: "hay order ready @ pet pantry
    coburg, $38.95 paid" / "… at Pet Pantry Brunswick" (another branch of one shop). A
    word that goes on into the sentence ("orla wants the receipts") is no place."""
    low = note.lower()
    note_words = frozenset(re.findall(r"[a-z]+", low))
    for run in _CAPITAL_RUN.findall(text):
        names = [w for w in re.findall(r"[a-z]+", run.lower()) if w not in stop and len(w) >= 2]
        held = [w for w in names if re.search(rf"\b{w}\b", low)]
        if not held or all(w in held or word_held(w, note_words) for w in names):
            continue
        m = re.search(r"\b" + r"\s+".join(held) + r"\s+([a-z]{3,})\s*(?:[,;:|)–—-]|$)", low)
        if m and _other_word(m[1], words_text, stop) and m[1] not in names:
            return True
    return False


def _other_word(w: str, words_text: frozenset[str], stop: frozenset[str]) -> bool:
    """Whether `w` is a content word the other text lacks in any form (no weekday or month)."""
    return w not in stop and w not in MONTHS and w not in WEEKDAYS and not kinds.named(w) \
        and not word_held(w, words_text)


def tag_other(note: str, words_text: frozenset[str], stop: frozenset[str]) -> bool:
    """Whether a note ends with a lower-case tag after a dash ("MOT due 22/8 – transit van")
    the other text lacks in any form."""
    tag = TAG.search(note)
    if not tag or len(tag[1]) < 3 or tag[1] in stop or kinds.named(tag[1]):
        return False
    return not any(word_held(t, words_text) for t in tag[1].split())


_NOTE_OPENER = re.compile(r"^([A-Z][a-z]{2,})\s+[a-z][a-z]+\s*[:–—-]")


def opener_other(note: str, words_note: frozenset[str], text: str, words_text: frozenset[str],
                 stop: frozenset[str]) -> bool:
    """Whether a note opens with a capitalised word and a word before a colon or a dash
    ("Shark filter: …") whose first word the other text lacks in any form."""
    m = _NOTE_OPENER.match(note)
    if not m:
        return False
    w = m[1].lower()
    return w not in stop and not kinds.named(w) and not word_held(w, words_text, prefixes=True)


def note_against(note: str, words_note: frozenset[str], text: str, words_text: frozenset[str],
                 stop: frozenset[str]) -> bool:
    """Whether a lower-case note names someone the other text does not, by its head or its
    tag (head_against_opener, tag_against_kin)."""
    return head_against_opener(note, words_note, text, words_text, stop) or \
        tag_against_kin(note, words_note, text, words_text, stop)


def tag_against_kin(note: str, words_note: frozenset[str], text: str, words_text: frozenset[str],
                    stop: frozenset[str]) -> bool:
    """Whether a lower-case note tagged with whose it is after a dash ("fri 9:40 dentist –
    sprout") stands against a text about a relative the note does not name ("My sister's
    dentist appointment is at 9.40am on Friday"): someone by name, someone by kin."""
    tag = TAG.search(note)
    if not tag or len(tag[1]) < 3 or tag[1] in stop or kinds.named(tag[1]) or tag[1][:4] in {w[:4] for w in words_text}:
        return False
    kin = kinds.named(text).get("people", frozenset()) - {"me"}
    return bool(kin - kinds.named(note).get("people", frozenset()))


def head_against_opener(note: str, words_note: frozenset[str], text: str, words_text: frozenset[str],
                        stop: frozenset[str]) -> bool:
    """Whether a lower-case note opens with a word before a dash ("rolo – muddy paws
    daycare wednesdays"), or ends with one after a dash ("… review – tobias (sales)"), that
    the other text lacks, where that text opens with a capitalised word the note lacks
    ("Bramble goes to Muddy Paws…"): two pets, two people.
    A sentence's first word is no name the reader can tell (names_of leaves it out); with
    the note's head against it, and neither in the other text, it is someone's."""
    head, first = HEAD.search(note) or TAG.search(note), OPENER.match(text)  # "… – tobias (sales)" too
    if not head or not first or len(head[1]) < 3:
        return False
    h, f = head[1], first[1].lower()

    def held(w: str, words: frozenset[str]) -> bool:
        return any(v[:4] == w[:4] or (len(v) >= 3 and (v.startswith(w) or w.startswith(v))) or nickname_of(v, w)
                   for v in words)

    return h != f and not ({h, f} & stop) and not kinds.named(h) and not kinds.named(f) \
        and not held(h, words_text) and not held(f, words_note)


# A note's first word that is a thing to do, not whose the note is: "give blood tue 9/9 18:10 hodson bay"
TODO_VERBS = frozenset("give get buy pay book call pick take send drop renew collect cancel bring check ring order "
                       "return meet visit post fetch ask tell email phone print sign submit".split())


def opener_against_subject(note: str, full: tuple[str, ...], only: set[str], words_text: frozenset[str],
                           stop: frozenset[str]) -> bool:
    """Whether a lower-case `note` (its tokens `full`) opens with a word the other text
    (its words `words_text`) lacks in any form and goes on with one it holds, where that
    text names something the note lacks (`only`, not written inside a code of the note):
    "liam cleaning at the dentist oct 14 10:30am" / "Ava's next dental cleaning is on
    October 14 at 10:30 a.m."; "ocbc 360 acct -> S$300/mth into nikko sti etf" / "… from my
    DBS Multiplier account" (a note's subject against the sentence's)."""
    full = tuple(t for t in full if t != "\x00")  # a value between ("ocbc 360 acct")
    if len(full) < 2 or not full[0].isalpha() or not full[1].isalpha():
        return False
    w = full[0]
    if len(w) < 3 or w in stop or w in TODO_VERBS or kinds.named(w) or word_held(w, words_text, prefixes=True) \
            or full[1] in stop or not word_held(full[1], words_text):
        return False
    return any(n not in note.replace("-", "") for n in only)  # "Hob warranty claim: WC 772914" / "… wc772914"


_FOR_WHOM = re.compile(r"\bfor ([a-z]{3,})\b")


def for_other(note: str, only: set[str], words_text: frozenset[str], stop: frozenset[str]) -> bool:
    """Whether a lower-case `note` says whom it is for by a word the other text lacks in any
    form, where that text names someone the note lacks (`only`): "bike fit for meera - sat
    11am" / "Rohan's bike fit is booked … on Saturday at 11 a.m."."""
    return bool(only) and any(w not in stop and w not in NUMBER_WORDS and not kinds.named(w)
                              and not word_held(w, words_text, prefixes=True) for w in _FOR_WHOM.findall(note))
