"""Short forms of a word that dream's guard (gitmem.lifecycle.samefact) reads as the word
itself: nicknames of a name (Maggie / Margaret, by the nicknames dataset) and
abbreviations of an ordinary word (acct / account, appt / appointment, dept /
department), so one fact written tersely is not read as another entity."""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from gitmem.lifecycle import kinds  # a kind's words name no place, thing or one


@lru_cache(maxsize=1)
def _nicknamer():
    from nicknames import NickNamer  # lazily: dream's code path only

    return NickNamer()


def given_name(w: str) -> bool:
    """Whether the lower-case word is a first name Faker lists for _LOCALES (Maureen, Callum,
    Priya: the nicknames dataset knows only names with nicknames)."""
    return w in _first_names()


# The locales whose first names Faker lists that a store's people come from (Latin script):
# English-speaking countries, India and Pakistan in English, Europe, Mexico and Brazil,
# Turkey, Indonesia, Nigeria, Kenya, South Africa.
_LOCALES = ("en", "en_GB", "en_US", "en_IE", "en_NZ", "en_IN", "en_PK", "en_KE", "en_NG", "ga_IE", "de_DE", "de_AT",
            "fr_FR", "fr_CA", "es_ES", "es_MX", "it_IT", "pt_PT", "pt_BR", "nl_NL", "sv_SE", "no_NO", "da_DK", "fi_FI",
            "pl_PL", "cs_CZ", "hu_HU", "ro_RO", "tr_TR", "id_ID", "yo_NG", "zu_ZA")


@lru_cache(maxsize=1)
def _first_names() -> frozenset[str]:
    """Faker's first names of _LOCALES, lower case, loaded once (dream's code path only)."""
    import importlib

    out: set[str] = set()
    for loc in _LOCALES:
        provider = importlib.import_module(f"faker.providers.person.{loc}").Provider
        for attr in ("first_names", "first_names_male", "first_names_female", "first_names_nonbinary"):
            names = provider.__dict__.get(attr)
            if isinstance(names, (list, tuple, dict, set, frozenset)):
                out.update(str(n).lower() for n in names)
    return frozenset(out)


@lru_cache(maxsize=65536)
def nickname_of(x: str, y: str) -> bool:
    """Whether one of two lower-case words is a short form of the other by the nicknames
    dataset (maggie / margaret, liz / elizabeth, jo / joanna), beyond synonyms.NICKNAMES,
    or of a name that begins as the dataset's names for it do (roz / rosamund)."""
    if x == y or not (x.isalpha() and y.isalpha() and x.isascii() and y.isascii()):
        return False
    nn = _nicknamer()
    if y in nn.canonicals_of(x) or x in nn.canonicals_of(y):
        return True
    # a short form of names that begin as the other does, four letters (roz: rosalyn,
    # rosabel; rosamund), not three (mel: melinda, melissa; no melanie in the dataset)
    short, long_ = sorted((x, y), key=len)
    return len(short) <= 4 < len(long_) and short[:2] == long_[:2] \
        and any(c[:4] == long_[:4] for c in nn.canonicals_of(short))


# An abbreviation is at most this share of the word's letters: acct / account (4 of 7),
# not coat / cat or boat / bat (siblings one letter apart); and at most ABBREV_MAX
# letters: a longer one is a word of its own (sister / sister-in-law, grand / grandmother).
ABBREV_SHARE = 0.6
ABBREV_MAX = 4


# The postal short forms of street types that the letter rule below does not read (Ln is
# no contraction to the last letter of Lane).
STREET_TYPES = {"ln": "lane", "ave": "avenue", "av": "avenue", "cres": "crescent", "cl": "close",
                "ct": "court", "pl": "place", "sq": "square", "gdns": "gardens", "terr": "terrace",
                "tce": "terrace", "blvd": "boulevard", "hwy": "highway", "pde": "parade"}


@lru_cache(maxsize=65536)
def abbreviation(x: str, y: str) -> bool:
    """Whether one of two lower-case words abbreviates the other: both letters only, the
    shorter one of two to ABBREV_MAX letters with one vowel at most, its letters in the
    longer one's order from the same first letter (a subsequence), at most ABBREV_SHARE of
    its length, and either its start (temp / temperature) or ending on its last letter
    (acct / account, dept / department, mgr / manager); or a street type's postal short
    form (STREET_TYPES: Ln / Lane)."""
    short, long_ = sorted((x, y), key=len)
    if STREET_TYPES.get(short) == long_:
        return True
    if short == long_ or not 2 <= len(short) <= ABBREV_MAX or len(short) > ABBREV_SHARE * len(long_):
        return False
    if not (short.isalpha() and long_.isalpha() and short.isascii() and long_.isascii()) or short[0] != long_[0]:
        return False
    # cut short (temp / temperature) or contracted to its last letter
    # (acct, bldg, mgr) or to consonants alone (hgt / harrogate), with one vowel at most:
    # "mean" is no short form of "melanie", nor "me"
    vowels = sum(c in "aeiou" for c in short)
    if not (long_.startswith(short) or short[-1] == long_[-1] or vowels == 0 and len(short) >= 3) or vowels > 1:
        return False
    rest = iter(long_[1:])
    return all(c in rest for c in short[1:])


@lru_cache(maxsize=16384)
def _index(words: frozenset[str]) -> tuple[tuple[str, ...], dict[str, tuple[str, ...]]]:
    """A text's words of 2-ABBREV_MAX letters, and all its words by their first letter."""
    by_initial: dict[str, list[str]] = {}
    for w in words:
        by_initial.setdefault(w[:1], []).append(w)
    return tuple(w for w in words if 2 <= len(w) <= ABBREV_MAX), {k: tuple(v) for k, v in by_initial.items()}


def abbreviated(words: frozenset[str], others: frozenset[str]) -> dict[str, str]:
    """{word of `others`: the word of `words` it abbreviates or is abbreviated by}. Only
    a word of 2-ABBREV_MAX letters on one side is tried, against the words of the other
    that begin with its letter (dream asks this of every pair it compares)."""
    out: dict[str, str] = {}
    (short_a, initial_a), (short_b, initial_b) = _index(words), _index(others)
    for x in short_a:
        for y in initial_b.get(x[:1], ()):
            if len(y) > len(x) and abbreviation(x, y):
                out[y] = x
    for y in short_b:
        for x in initial_a.get(y[:1], ()):
            if len(x) > len(y) and abbreviation(x, y):
                out[y] = x
    return out


_CAPS = re.compile(r"(?<![A-Za-z])[A-Za-z&]*[A-Z][A-Za-z&]*[A-Z][A-Za-z&]*(?![A-Za-z])")


@lru_cache(maxsize=65536)
def cut_short(full_a: tuple[str, ...], names_a: frozenset[str], full_b: tuple[str, ...],
              names_b: frozenset[str]) -> dict[str, str]:
    """Names of `full_b` that are a name of `full_a` cut short, each after or before the same
    name (Ridgeway Vets / Ridgeway Veterinary Centre: vet is veterinary cut short; Melb Museum
    / Melbourne Museum), as {short: full}: a word alone is too short a clue ("Vets" /
    "Veterans" at another place)."""
    out = {}
    for step in (-1, 1):
        beside_a = {w: full_a[i + step] for i, w in enumerate(full_a)
                    if w in names_a and 0 <= i + step < len(full_a)}
        for i, y in enumerate(full_b):
            if not 0 <= i + step < len(full_b) or y not in names_b or full_b[i + step] not in names_b:
                continue
            stem = y[:-1] if y.endswith("s") and len(y) > 3 else y
            out |= {y: x for x, next_to in beside_a.items() if next_to == full_b[i + step] and x != y
                    and len(stem) >= 3 and x.startswith(stem) and len(x) >= 2 * len(stem)}
    return out


_AT = frozenset({"in", "at", "@", "from", "on"})
_DETERMINERS = frozenset({"the", "a", "an", "our", "my", "her", "his", "their"})
_STREETS = frozenset({"rd", "road", "st", "street", "ln", "lane", "ave", "avenue"})


def lower_place(full: tuple[str, ...], stop: frozenset[str], words: frozenset[str], acronyms: frozenset[str]) -> bool:
    """Whether a lower-case note (its tokens `full`) names a place the other text does not:
    two words after "in", "at", "@", "from" or "on" that the other text (its `words`, by
    their first 5 letters) lacks, or one before a street type, or one with no article before
    a word the other holds ("co-op in chapel allerton", "shell on harrogate rd", "greggs in
    pudsey opens" against "The Headingley Co-op", "the Esso on Otley Road", "The Greggs at
    Bramley opens").
    Not words of a closed kind (gitmem.lifecycle.kinds: "on the south side"), nor two whose
    initials begin an acronym of the other ("from leeds bradford" / LBA)."""
    held = {w[:5] for w in words}
    for i, t in enumerate(full):
        if t not in _AT:
            continue
        j = i + 2 if i + 1 < len(full) and full[i + 1] in _DETERMINERS else i + 1
        pair = full[j:j + 2]
        if len(pair) < 2 or any(a.startswith(pair[0][0] + pair[1][0]) for a in acronyms):
            continue
        fresh = [w for w in pair if w.isalpha() and len(w) >= 3 and w not in stop and w[:5] not in held
                 and not kinds.named(w)]
        if len(fresh) == 2 or (fresh == [pair[0]] and pair[1] in _STREETS):
            return True
        # ... or one word with no article, before a word the other holds ("greggs in pudsey opens")
        if fresh == [pair[0]] and j == i + 1 and t != "on" and pair[1][:5] in held:
            return True
    return False


# "… aire valley ortho – lottie", "allotment plot £42/yr – gethin's": whose, in one word at the
# end; "casper – tutoring w/ mr aziz": or at the start
TAG = re.compile(r"\s[–—-]\s*([a-z][a-z'’]+?(?: [a-z]{3,})?)(?:['’]s)?(?:\s*\([a-z ]+\))?\s*[.!]?$")  # "– transit van"
HEAD = re.compile(r"^([a-z][a-z'’]+?)(?:['’]s)?(?:\s*\([a-z ]+\))?\s+[–—-]\s")  # "pepper (guinea pig) – …"


def lower_names_other(full: tuple[str, ...], stop: frozenset[str], names: frozenset[str], full_x: tuple[str, ...],
                      words_x: frozenset[str], acronyms: frozenset[str], text: str = "") -> bool:
    """Whether a lower-case note (its tokens `full`, its `text`) names a place, a thing or
    someone other than the `names` only the other text holds (its tokens `full_x`, words
    `words_x`, acronyms): a word tagged on at its end after a dash, or opening it before
    one, is someone."""
    tag = TAG.search(text) or HEAD.search(text)
    if tag and len(tag[1]) >= 3 and tag[1] not in stop and not kinds.named(tag[1]) and names - acronyms \
            and tag[1][:5] not in {w[:5] for w in words_x}:  # ("– surgery" against "the GP's" is no one)
        return True
    return lower_place(full, stop, words_x, acronyms) or lower_modifier(full, stop, names, full_x, words_x, acronyms) \
        or lower_head(full, stop, names - acronyms, words_x)


def lower_head(full: tuple[str, ...], stop: frozenset[str], names: frozenset[str], words_x: frozenset[str]) -> bool:
    """Whether a lower-case note opens with two words before its value that the other text
    lacks, where the other names something the note lacks ("gaggia classic £449 (john
    lewis)" / "The Sage Barista Express was £449 at John Lewis"): another make, another place."""
    head = []
    for w in full:
        if not w.isalpha():
            break
        head.append(w)
    if any(w in stop for w in head):  # a clause ("need to pay a hundred…"), not a name
        return False
    head = [w for w in head if len(w) >= 3 and not kinds.named(w)]
    return len(head) >= 2 and bool(names) and not any(word_held(w, words_x) for w in head)


def word_held(w: str, words: frozenset[str], prefixes: bool = False) -> bool:
    """Whether `words` (another text's) hold the word `w` in some form: its first four
    letters, an abbreviation or a nickname of it, or (`prefixes`) one beginning the other."""
    return any(v[:4] == w[:4] or (prefixes and (v.startswith(w) or w.startswith(v))) or abbreviation(w, v)
               or nickname_of(w, v) for v in words if v.isalpha() and len(v) >= 3)


OPENER = re.compile(r"^([A-Z][a-z]{2,})\b(?!['’])")


def lower_modifier(full: tuple[str, ...], stop: frozenset[str], names: frozenset[str], full_x: tuple[str, ...],
                   words_x: frozenset[str], acronyms: frozenset[str]) -> bool:
    """Whether a lower-case note (its tokens `full`) puts another word before the thing a
    name of the other text (`names` it alone holds, its tokens `full_x` and `words_x`)
    names: "harewood show" / "the Otley Show", "hp printer ink" / "the Epson printer" (not
    after an acronym of the other's `acronyms`, nor one spelled out: "hockey subs" / "HC subs")."""
    held = {v[:5] for v in words_x}

    def fresh(w: str) -> bool:  # no word of the other's, nor one of its words inflected (hired / Hire)
        return w.isalpha() and len(w) >= 2 and w not in stop and not kinds.named(w) and w[:5] not in held \
            and not any(w.startswith(v) or v.startswith(w) for v in words_x if len(v) >= 4)

    # a word with its possessive is the word (Milo's grooming / ziggy grooming, finn's party)
    full, full_x = tuple(_POSSESSIVE.sub("", w) for w in full), tuple(_POSSESSIVE.sub("", w) for w in full_x)
    # the word after a name, not after an acronym (Kettleby HC subs / hockey subs)
    heads = {full_x[i + 1] for i, w in enumerate(full_x[:-1]) if w in names and full_x[i + 1].isalpha()
             and full_x[i + 1] not in stop and w not in acronyms}
    return any(w in heads and i and fresh(full[i - 1]) and not acronym_span(full[i - 1], full_x)  # dofe / Duke of E.
               for i, w in enumerate(full))


_POSSESSIVE = re.compile(r"['’]s$")


def capitals(text: str) -> frozenset[str]:
    """The words of `text` with two capitals or more (TH, DofE, SENCO), lower case: the
    only names `acronym_of` is asked about ("Mel" is no acronym of "means a lot")."""
    return frozenset(w.lower().replace("&", "") for w in _CAPS.findall(text or ""))


# "Florence's tutoring …": a possessive opening a sentence is someone's, a name the name
# reader (samefact) takes though it starts the sentence (not "Today's", "Tomorrow's",
# "Everyone's", "Nobody's", nor a word whose 's is "is": "Let's", "That's", "Life's")
OPENING_OWNER = re.compile(r"(?!(?i:today|tonight|tomorrow|yesterday|(?:every|some|no|any)(?:one|body|thing|where)|"
                           r"let|that|what|there|here|he|she|it|who|where|how|when|why|life|time|mum|mom|dad|one|"
                           r"nothing|everything)'s$)[A-Z][a-z]+'s$")  # not Tomasz's, Anya's, Noah's

# Words an acronym may spell out whole or pass over: DofE (Duke of Edinburgh), B&Q.
_LINKS = ("of", "and", "the", "for")


@lru_cache(maxsize=65536)
def acronym_span(name: str, words: tuple[str, ...]) -> tuple[int, int] | None:
    """Where two or more consecutive `words` have the lower-case name of 2-6 letters as
    their initials (TH / Town Hall, LM / line manager, DofE / Duke of Edinburgh), as (start,
    end): each word gives its first letter, and "of", "and", "the", "for" may give
    themselves or nothing; None when nowhere."""
    if not (2 <= len(name) <= 6 and name.isalpha() and name.isascii()):
        return None

    def spells(rest: str, i: int, used: int) -> int | None:
        if not rest:
            return i if used >= 2 else None
        if i >= len(words):
            return None
        w = words[i]
        if w in _LINKS:
            end = spells(rest, i + 1, used)
            if end is None and rest.startswith(w):
                end = spells(rest[len(w):], i + 1, used)
            if end is not None:
                return end
        return spells(rest[1:], i + 1, used + 1) if w[:1] == rest[:1] else None

    for i, w in enumerate(words):
        if w[:1] == name[:1]:
            end = spells(name, i, 0)
            if end is not None:
                return i, end
    if len(name) >= 3 and name[-1] in _PLACE_INITIALS and name[-1] != name[-2]:
        return acronym_span(name[:-1], words)  # LBA / Leeds Bradford, CRH / Calderdale Royal
    return None


# The last letter of an acronym a text may leave unsaid: the kind of place it is
# (Airport, Hospital, Station, School, Club, College, Centre, University) or of body
# (Bureau, Bank, Board: CAB / Citizens Advice).
_PLACE_INITIALS = frozenset("ahscub")


def acronym_of(name: str, words: tuple[str, ...]) -> bool:
    """Whether consecutive `words` spell the name as its initials (`acronym_span`)."""
    return acronym_span(name, words) is not None


def place_code(code: str, name: str) -> bool:
    """Whether a three-letter code (written in capitals) is a place's code taken from its
    name: its first letter, then two more in the name's order (BRS / Bristol, FAO / Faro,
    MAN / Manchester, EDI / Edinburgh), as airport and station codes are."""
    if len(code) != 3 or len(name) < 4 or not (code.isalpha() and name.isalpha()) or code[0] != name[0]:
        return False
    rest = iter(name[1:])
    return all(c in rest for c in code[1:])


@lru_cache(maxsize=1)
def _airport_table() -> dict[str, dict]:
    """The airportsdata package's IATA table, loaded once, on first use (dream's code path only)."""
    import airportsdata

    return airportsdata.load("IATA")


@lru_cache(maxsize=1)
def _airports() -> dict[str, frozenset[str]]:
    """IATA code (lower case) -> the words of the airport's name and city, lower case and
    unaccented."""
    return {code.lower(): frozenset(re.findall(r"[a-z]+", unaccented(f"{a['name']} {a['city']}").lower()))
            for code, a in _airport_table().items()}


def name_in_full(name: str, text: str) -> bool:
    """Whether `name` stands in `text` as a word of four letters or more, not in capitals (not
    RCT, DPE) nor as a field's label ("Start: 07:00")."""
    m = re.search(rf"(?<![^\W\d_]){re.escape(name)}(?![^\W\d_])", unaccented(text), re.I)
    label = m is not None and re.match(r"\s*:", text[m.end():] if len(text) == len(unaccented(text)) else "")
    return m is not None and not label and len(name) >= 4 and not m[0].isupper()


def airport_against_airport(code: str, names: set[str]) -> bool:
    """Whether `code` is an airport's three-letter IATA code (LGW) and one of `names` a
    word of an airport's name (Heathrow): two airports, written two ways."""
    return len(code) == 3 and code.upper() in _airport_table() and any(n in _airport_names() for n in names)


def airport_code(code: str, name: str) -> bool:
    """Whether a three-letter code names the airport or the city of `name` (LHR / Heathrow,
    LHR / London, AGP / Malaga), by the IATA table, or by its letters (place_code)."""
    return place_code(code, name) or (len(code) == 3 and name in _airports().get(code, frozenset())
                                      and name not in ("international", "airport", "regional"))


def coded_places(only_a: set[str], a: str, only_b: set[str], b: str) -> tuple[set[str], set[str]]:
    """The names only `a` has and only `b` has, without a place one writes by its code in
    capitals and the other by its name (airport_code: "dep BRS" / "leaving Bristol",
    "LHR" / "Heathrow")."""
    coded = {(x, y) for x in only_a for y in only_b
             if airport_code(x, y) and x in capitals(a) or airport_code(y, x) and y in capitals(b)}
    only_a, only_b = only_a - {x for x, _ in coded}, only_b - {y for _, y in coded}
    # an airport by the name it has beside its city's ("from Toronto" / "from Toronto
    # Pearson"), when the other names no other airport of that city (Gatwick / Heathrow)
    both = {w.lower() for w in re.findall(r"\b[A-Z][a-z]+", unaccented(a))} & {
        w.lower() for w in re.findall(r"\b[A-Z][a-z]+", unaccented(b))}  # a name both write
    by_city = [{x for x in only if _airport_of(x, both)} for only in (only_a, only_b)]
    return (only_a - by_city[0] if not by_city[1] else only_a), (only_b - by_city[1] if not by_city[0] else only_b)


@lru_cache(maxsize=1)
def _airport_names() -> dict[str, tuple[frozenset[str], ...]]:
    """A word of an airport's name (lower case) -> the words of each name that holds it."""
    out: dict[str, list[frozenset[str]]] = {}
    for a in _airport_table().values():
        words = frozenset(re.findall(r"[a-z]+", unaccented(a["name"]).lower())) - _AIRPORT_WORDS
        for w in words:
            out.setdefault(w, []).append(words)
    return {w: tuple(v) for w, v in out.items()}


_AIRPORT_WORDS = frozenset("international airport regional municipal airfield field aerodrome county city "
                           "airstrip heliport air base station".split())


def _airport_of(x: str, both: set[str]) -> bool:
    """Whether `x` is a word of an airport's name that also holds a word both texts have
    (pearson, with toronto said in both)."""
    return len(x) >= 4 and any(ws & both - {x} for ws in _airport_names().get(x, ()))


_VOWEL = re.compile("[aeiou]")

# The kind of place or body a name ends with ("Newcastle Airport", "the Boyd Orr Building",
# "Audax Club"): said or left out, as "Newcastle" / "the Boyd Orr" name the same place.
PLACE_KINDS = frozenset("airport hospital station hall building bldg centre center park church school college "
                        "university library museum theatre theater hotel arena stadium gallery club society "
                        "association zoo aquarium cinema gym pool baths market clinic surgery imaging cafe "
                        "restaurant pub".split())


def kind_left_out(only: set[str], other: frozenset[str]) -> set[str]:
    """`only` (names one text has and the other lacks) without the kinds of place when the
    other text's names (`other`) hold none: Airport in "Newcastle Airport to Dublin" against
    "from Newcastle"; Station against Airport still tells two places apart."""
    return only if other & PLACE_KINDS else only - PLACE_KINDS


def spelled_out(text: str, full: tuple[str, ...]) -> frozenset[str]:
    """The words of `full` that an acronym of `text` spells (Westbury DC / Westbury
    District Council: district, council): the other text holds them, by their initials."""
    out: set[str] = set()
    for acr in capitals(text):
        span = acronym_span(acr, full)
        if span is not None:
            out.update(full[span[0]:span[1]])
    return frozenset(out)


def holds_name(n: str, words: frozenset[str], names: frozenset[str], full: tuple[str, ...],
               caps: frozenset[str], content: frozenset[str], initials: bool = False) -> bool:
    """Whether a text (its `words`, `names`, tokens in order `full`, content words `content`)
    holds the name `n` of another text whose capitals are `caps`: as it stands, an initial as
    a name it begins (C. / Chris), with `initials` a name as an initial it begins (Philomena /
    P.: not when telling names apart, where J. Smith / J. Jones would meet on J.), as the
    capitals' words (TH / Town Hall), as a short form either way, a name or not (Bldg /
    Building, Rd / Road), or as the words a hyphen joined (gathercole nkemelu /
    Gathercole-Nkemelu)."""
    if n in words or n in names or (n in caps and acronym_of(n, full)):
        return True
    if len(n) == 1 and n.isalpha():
        return any(w.startswith(n) for w in names | words if len(w) > 1)
    # Between two names a short form with a vowel is a nickname's question (Mel / Melanie, by
    # the nicknames dataset; "me" abbreviates no Melanie), one with none an abbreviation (Rd).
    # A name cut short to four letters or more (Chelt / Cheltenham, Manc / Manchester)
    if any(len(x) >= 4 and len(y) >= len(x) + 3 and y.startswith(x) for w in names for x, y in ((n, w), (w, n))):
        return True
    return (initials and any(len(w) == 1 and n.startswith(w) for w in names)) or any(
        (abbreviation(n, w) and (w not in names or not _VOWEL.search(n)))
        or (abbreviation(w, n) and not _VOWEL.search(w)) for w in content) or joined(n, full)


def joined(n: str, full: tuple[str, ...]) -> bool:
    """Whether two or three tokens in a row of `full` make the name `n` (a hyphened name
    is read as one: Gathercole-Nkemelu / gathercole nkemelu)."""
    return any("".join(full[i:i + k]) == n for k in (2, 3) for i in range(len(full) - k + 1))


def written_out(names: frozenset[str], words: frozenset[str], full: tuple[str, ...]) -> bool:
    """Whether a text written all in lower case (`words`, tokens in order `full`) writes one
    of another's `names` (four letters or more), as a word or as the words a hyphen joined:
    "siobhan mcallister reid is our new line manager" and "Line manager from Monday: Siobhan
    McAllister-Reid" share a name. (A text with capitals that writes "pride" does not name
    the "Pride" of another: the caller asks only of a text with no capitals.)"""
    return any(len(n) >= 4 and (n in words or joined(n, full)) for n in names)


def compounds_joined(ws: tuple[str, ...], words: frozenset[str]) -> tuple[str, ...]:
    """`ws` with two neighbouring words that `words` holds as one word (harbour master /
    harbourmaster, oyelaran booth / oyelaran-booth) written as that word."""
    out, i = [], 0
    while i < len(ws):
        x, y = ws[i], ws[i + 1] if i + 1 < len(ws) else ""
        one = next((w for w in (x + y, f"{x}-{y}") if x.isalpha() and y.isalpha() and w in words), None)
        out.append(one or x)
        i += 2 if one else 1
    return tuple(out)


def unaccented(text: str) -> str:
    """`text` with the accents of its letters left off (Ruairí / Ruairi, café / cafe): one
    name or word, typed with or without them. Han characters and full-width forms stay."""
    if text.isascii():
        return text
    plain = "".join(c for c in unicodedata.normalize("NFD", text) if unicodedata.category(c) != "Mn")
    return unicodedata.normalize("NFC", plain)
