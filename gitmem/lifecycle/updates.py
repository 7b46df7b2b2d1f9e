"""Which earlier memory a later one probably replaces: the hook dream asks for update
pairs (similar subject, later date, a change cue in the later text).

The change cues are gitmem.memories.updates' (one list per language, shared with the
write-time report and recall's currency): a pair is proposed only when the later text
says something changed and the earlier one does not; dream marks the earlier one
superseded and archives it. Dream's own thresholds are its cosines (`update_pairs`)."""

from __future__ import annotations

import heapq
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Iterable, Sequence

from gitmem.lifecycle import alignment, kinds, samefact
from gitmem.memories import updates as judged


@lru_cache(maxsize=65536)
def cue(text: str) -> str | None:
    """The first change cue in `text` ("moved", "现在"), or None."""
    found = judged.cues(text)
    return found[0] if found else None


# A value changed with no cue ("The PM is Chen Jing" / "The PM is Zhou Kai"): only
# between statements at least this many days apart (look-alike facts that are both true
# are usually said together; an update comes months later), and only as `slot_change`
# reads them.
SLOT_DAYS = 60
# Two statements written within this many days that name two of a closed kind (two rooms,
# two people, two pets: gitmem.lifecycle.kinds) are two facts said together, whatever cue
# the later one holds ("厨房的灯泡是上个月换的" / "卫生间灯泡换了": 换 is what was done to
# the bulb); an update comes weeks to years later.
TOGETHER_DAYS = 1
SLOT_CUE = "value changed"  # what a supersession of this kind gives as its cue (dry run, plan)
SLOT_MAX = 3       # units a changed value may span (English words, numbers) ...
SLOT_MAX_CJK = 4   # ... or Chinese characters
SLOT_HEAD = 3      # the shared start is at least this many words ("I love | hiking" is too short)
SLOT_HEAD_CJK = 4  # ... or Chinese characters
_UNIT = re.compile(r"[A-Za-z0-9]+(?:[.'][A-Za-z0-9]+)*|[\u3400-\u9fff]")
_CJK_UNIT = re.compile(r"[\u3400-\u9fff]")


def slot_change(old: str, new: str) -> bool:
    """Whether `new` is `old` with its value changed: the same words from the start up
    to more than half of the shorter text (the subject and what is said of it: "I'm a
    nurse at St. Mary's, on the", "线上服务跑在 Python"), then a different value of at
    most SLOT_MAX units, then at most one shared unit ("ward", 上). Look-alike facts
    differ in their subject, near the start ("My son / My daughter plays the violin"),
    or in the middle with more said after it ("我家的狗叫可乐，最爱吃鸡肉")."""
    a = [u.lower() for u in _UNIT.findall(old)]
    b = [u.lower() for u in _UNIT.findall(new)]
    n = min(len(a), len(b))
    p = 0
    while p < n and a[p] == b[p]:
        p += 1
    q = 0
    while q < n - p and a[-1 - q] == b[-1 - q]:
        q += 1
    da, db = a[p:len(a) - q], b[p:len(b) - q]
    cap = SLOT_MAX_CJK if any(_CJK_UNIT.match(u) for u in da + db) else SLOT_MAX
    head = SLOT_HEAD_CJK if cap == SLOT_MAX_CJK else SLOT_HEAD
    return p >= head and p > n / 2 and q <= 1 and 1 <= len(da) <= cap and 1 <= len(db) <= cap


def value_changed(old: str, new: str) -> bool:
    """Whether `new` states `old`'s fact with another value, however worded ("Our rent is
    £1,250 a month" / "rent – £1,320/mo from May"): the guard finds their values differ
    and, beside the values, nothing else (no other name, owner, room or kind:
    samefact.conflict)."""
    return samefact.conflict(old, new) == "values differ" and samefact.conflict(old, new, beside_values=True) is None


# A value said anew with no cue (`restated`) only between texts sharing this share of their
# words: "物业费 2.6元/平" / "上次物业费交了一千二百六" share 物业费 and are two facts.
RESTATED_SHARED = 0.5
# A number written as a rate: 3410/月, 398/年, 0.28/度, 45/hr (the unit is what it is per).
_RATE = re.compile(r"\d\s?/\s?(?:[\u3400-\u9fff]|[A-Za-z]{1,5}\b)")
# What an amount is per, as the two languages say it: the unit it names.
_PER = {
    "month": re.compile(r"每个?月|月租|月费|一个月|/\s?月|\b(?:a|per|each|every) month\b|\bmonthly\b|/\s?mo(?:nth)?\b|\bpcm\b", re.I),
    "year": re.compile(r"每年|一年|年费|/\s?年|\b(?:a|per|each|every) year\b|\b(?:yearly|annual(?:ly)?)\b|/\s?yr\b|\bp\.?a\.?\b", re.I),
    "week": re.compile(r"每周|每星期|一周|/\s?周|\b(?:a|per|each|every) week\b|\bweekly\b|/\s?wk\b|\bpw\b", re.I),
    "day": re.compile(r"每天|每日|一天|/\s?天|\b(?:a|per|each|every) day\b|\bdaily\b", re.I),
    "hour": re.compile(r"每小时|一小时|/\s?小时|\b(?:an|per|each|every) hour\b|\bhourly\b|/\s?hr\b|/\s?h\b", re.I),
    "time": re.compile(r"每次|一次|/\s?次|每节|一节|/\s?节|每课|\b(?:a|per|each) (?:session|lesson|class|visit)\b", re.I),
    "words": re.compile(r"千字|\b(?:a|per) (?:word|1,?000 words)\b", re.I),
    "area": re.compile(r"每平|/\s?平|平米|\b(?:per|a) (?:square|sq)\b", re.I),
    "unit": re.compile(r"每度|一度|/\s?度|\bper kwh\b|/\s?kwh\b", re.I),
}


def per(text: str) -> frozenset[str]:
    """What the amounts of `text` are per ("month" for 每月, "/mo", "a month"), if it says."""
    return frozenset(k for k, rx in _PER.items() if rx.search(text))


def restated(old: str, new: str) -> bool:
    """Whether `new` says `old`'s fact again, worded another way, with another value:
    `value_changed`, a subject they share (memories.updates: no cue, count or time of
    day) and RESTATED_SHARED of their words (samefact.overlap). Two texts of one template
    with the values swapped are `slot_change`'s to judge, which knows where a value that
    changed stands ("Parking bay 12 belongs to flat 3" / "Parking bay 21 belongs to flat
    8", 三号楼的电梯… / 五号楼的电梯…: two facts)."""
    fo, fn = samefact.read(old), samefact.read(new)
    # ... of one kind on both sides: not an amount against a bare number (a rate of 2.6元/平
    # against 交了一千二百六, what was paid). The cheap tests first: dream asks every pair.
    changed = {k for k in fo.values.keys() & fn.values.keys() if fo.values[k] != fn.values[k]}
    if not changed or fo.full == fn.full:
        return False
    if not changed - {"num"} and "qty" in fo.values.keys() | fn.values.keys():
        # ... unless the bare number is written as a rate, as terse notes write an amount
        # ("奶奶每月养老金3260元" / "奶奶养老金 3410/月", "£6.50 an hour" / "£7.25/hr" is read already)
        # or both say what the amount is per ("车位月租280元" / "车位月租 350"; not
        # "物业费 2.6元/平" / "上次物业费交了一千二百六", a rate and what was paid)
        # The bare number's currency is its text's: yuan in Chinese, never yuan beside English
        # ("Flat 2 rent - £990 pcm" / "unit A rent 4.5k/月": two flats)
        bare, amount = (new, fo) if "qty" in fo.values else (old, fn)
        if ("qty" in fo.values) == ("qty" in fn.values) or not (_RATE.search(bare) or per(old) & per(new)):
            return False
        yuan = any(v.endswith(" cny") for v in amount.values["qty"])
        if yuan != bool(_CJK_UNIT.search(bare)):
            return False
    if samefact.overlap(old, new)[0] < RESTATED_SHARED or judged.one_off_against_standing(old, new) \
            or _someone_elses(old, new):
        return False
    return _subject(old, new) and value_changed(old, new)


def _someone_elses(old: str, new: str) -> bool:
    """Whether the newer text says whose the fact is (a relative, someone by name: kinds'
    people, not the speaker nor a landlord, who sets what one pays) where the older names
    no one: another's fact, not one's own said anew (公积金 月缴 2240 / 老公单位 公积金比例 7%,
    heldout50). A terse note that leaves out the older's owner still restates it (妈妈每天打
    胰岛素12个单位 / 胰岛素 16单位/天)."""
    return not kinds.named(old).get("people") and bool(kinds.named(new).get("people", frozenset()) - {"me", "landlord"})


def _subject(old: str, new: str) -> bool:
    """Whether the texts share a subject (memories.updates.subject), not only whose thing
    both name: 老家的宽带 / 回老家的高铁票 share 老家, not the thing."""
    return any(not (w + "的" in old and w + "的" in new) for w in judged.subject(old, new))


# ... and at least this many words: a name and a word are a unit's label and its kind
# ("A单元的燃气安全证书…" / "B单元 押金 两个月": two units, two facts)
RENAMED_SHARED = 2


def renamed(old: str, new: str) -> bool:
    """Whether `new` says `old`'s fact again with another name in it, however worded
    ("Tilly's vet is Dr Harrow at Bayside" / "vet for Tilly: Dr Yusuf, Hampton Vet Clinic",
    "服务注册中心用的是 Eureka" / "注册中心：Nacos 2.2"): the guard finds their names
    differ and, beside the names, nothing (no value, owner, room or kind: samefact.conflict),
    no value stands on both sides, they are not one template with the names swapped, and
    they share a subject and RESTATED_SHARED of their words (RENAMED_SHARED at least)."""
    # The cheap tests first: dream asks every pair that no cue or slot_change claims.
    fo, fn = samefact.read(old), samefact.read(new)
    # A value both state is said of two things ("The Leeds depot closes at 6pm" / "The York
    # depot closes at 6pm"): the name that differs is what each is about, not a new value.
    if any(fo.values[k] & fn.values[k] for k in fo.values.keys() & fn.values.keys()):
        return False
    # An appointment (a day and a clock time) is no standing arrangement renamed: "We record
    # the episodes at Halloway Sound" / "Episode 48 recording with guest Dr. Obi is on
    # Thursday, March 6 at 2 p.m." (a held-out pair dream superseded, consolidation_v47)
    if any(_appointment(f) and not _dated(g) for f, g in ((fo, fn), (fn, fo))) \
            or judged.one_off_against_standing(old, new):
        return False
    # A letter is a label, and labels name what a text is about ("A单元" / "B单元", flat A / B)
    if any(len(n) == 1 for n in fo.names ^ fn.names):
        return False
    # ... and whose it is, by name, is another's ("Mia's piano teacher" / "Leo's piano teacher")
    whose = kinds.owners(old), kinds.owners(new)
    if whose[0] and whose[1] and not whose[0] & whose[1]:
        return False
    share, shared = samefact.overlap(old, new)
    if share < RESTATED_SHARED or shared < RENAMED_SHARED:
        return False
    # One template with the names swapped is `slot_change`'s to judge, which knows where the
    # name stands ("My cousin Barnaby / Rupert is training to be a pilot": two cousins)
    if alignment.substitution(fo.tokens, fn.tokens):
        return False
    if samefact.conflict(old, new) != "names differ" or samefact.conflict(old, new, beside_names=True) is not None:
        return False
    return _subject(old, new)


def _appointment(f: "samefact.Fact") -> bool:
    return "time" in f.values and bool({"date", "mday", "day"} & f.values.keys())


def _dated(f: "samefact.Fact") -> bool:
    return bool({"date", "mday", "day", "time"} & f.values.keys())


@dataclass(frozen=True)
class Item:
    """One memory as the detector sees it."""

    id: str
    text: str
    when: float  # created, as a timestamp
    key: str | None = None


@lru_cache(maxsize=65536)
def strong_cue(text: str) -> str | None:
    """The first change cue of `text` that says something changed on its own ("moved",
    "switched", "换成"), not a weak one ("now", "new"), or None."""
    found = judged.strong_cues(text)
    return found[0] if found else None


# Statements of one frame (judged.FRAMES: "I live in ...", "I moved to ...") paired as
# candidates: at most this many of each side, or a store of chat turns would pair them all.
FRAME_MAX = 64


def frame_pairs(texts: Sequence[str], vecs: Any, known: list[tuple[float, int, int]]) -> list[tuple[float, int, int]]:
    """`known` (cosine, i, j) pairs, most similar first, with the pairs the vectors miss
    added: a first-person statement of a frame and one saying it changed ("I live in
    Leeds." / "I moved to York last week." sit at cosine 0.39; judged.frame)."""
    have = {(a, b) for _, a, b in known}
    extra = []
    for states, changes in judged.FRAMES.values():
        olds = [i for i, t in enumerate(texts) if states.search(t)]
        news = [j for j, t in enumerate(texts) if changes.search(t)]
        if len(olds) > FRAME_MAX or len(news) > FRAME_MAX:
            continue
        for i in olds:
            for j in news:
                a, b = min(i, j), max(i, j)
                if a != b and (a, b) not in have:
                    have.add((a, b))
                    extra.append((float(vecs[a] @ vecs[b]), a, b))
    if not extra:
        return known
    return list(heapq.merge(known, sorted(extra, key=lambda p: -p[0]), key=lambda p: -p[0]))


# A word more statements hold than this is no one subject (left_pairs).
LEFT_MAX = 16
_WORD = re.compile(r"[A-Za-z][\w'’-]+")


def left_pairs(texts: Sequence[str], vecs: Any, known: list[tuple[float, int, int]]) -> list[tuple[float, int, int]]:
    """`known` (cosine, i, j) pairs with those added where one text says it left a name
    the other holds (judged.left: "Desmond took over from Priyanka" / "My line manager is
    Priyanka Rao" sit at cosine 0.2), the word held by LEFT_MAX texts at most."""
    said = {j: set(ws) for j, t in enumerate(texts) if (ws := judged.left_words(t))}
    if not said:
        return known
    wanted = set().union(*said.values())
    holders: dict[str, list[int]] = {}
    for i, t in enumerate(texts):
        if judged.is_cjk(t):
            found = {w for w in wanted if not w.isascii() and w in t}
        else:
            found = {re.sub(r"['’]s$", "", w).casefold() for w in _WORD.findall(t)} & wanted
        for w in found:
            holders.setdefault(w, []).append(i)
    have = {(a, b) for _, a, b in known}
    extra = []
    for j, ws in said.items():
        for w in ws:
            held = holders.get(w, [])
            if len(held) > LEFT_MAX:
                continue
            for i in held:
                a, b = min(i, j), max(i, j)
                if a != b and (a, b) not in have and judged.left(texts[i], texts[j]) is not None:
                    have.add((a, b))
                    extra.append((float(vecs[a] @ vecs[b]), a, b))
    if not extra:
        return known
    return list(heapq.merge(known, sorted(extra, key=lambda p: -p[0]), key=lambda p: -p[0]))


# A cued successor linked to several older memories still replaces one that shares this
# many terms with it where each other shares at most one (以后咪咪打疫苗都去…爪爪宠物诊所 shares
# 咪咪, 安心, 宠物 with 咪咪每年三月在安心宠物医院打猫三联, only 小区 with the parcel locker's hours).
PLAINLY_SHARED = 3


def _shared(a: str, b: str) -> int:
    """How many terms (samefact.terms) two texts share, GENERIC_ZH words left out."""
    return len(samefact.terms(a) & samefact.terms(b) - judged.GENERIC_ZH)


def _plainly(claimants: list[int], new: int, items: Sequence[Item]) -> int | None:
    """The one of several older memories claiming `new` that `new` plainly updates:
    PLAINLY_SHARED terms in common, where every other claimant shares at most one."""
    shared = sorted(((_shared(items[o].text, items[new].text), o) for o in claimants), reverse=True)
    return shared[0][1] if shared[0][0] >= PLAINLY_SHARED and shared[1][0] <= 1 else None


def update_pairs(items: Sequence[Item], sims: Iterable[tuple[float, int, int]],
                 threshold: float, strong_floor: float | None = None) -> list[dict]:
    """Pairs (old, new) among `items` where `new` probably replaces `old`: cosine
    (from `sims`, (cos, i, j) with i < j) at least `threshold`, `new` dated later, a
    change cue in `new` and none in `old`, a shared term (samefact.terms) or an attribute
    the cue names (memories.updates.frame: moving, a new job), no two
    different keys; or, with no cue in either, `slot_change` at `threshold` and
    SLOT_DAYS apart (cue SLOT_CUE), where no cued successor claims the old one and no
    other later text fits it as well. A cued successor that would replace more than one
    older memory replaces none (one statement replaces one fact), unless it plainly updates
    one of them (_plainly); the others come last, marked "held", for the agent's plan. Down
    to `strong_floor` a strong cue ("moved", "sold", "换成", not "now" or "new") and the shared term suffice: "I drive a grey Golf" / "I sold the
    Golf and bought a Kia instead" sit at cosine 0.5. Each old memory gets its most
    similar successor; the list is ordered by cosine, highest first."""
    best: dict[int, tuple[float, int, str | None]] = {}
    slots: dict[int, list[tuple[float, int]]] = {}
    reworded: dict[int, list[tuple[float, int]]] = {}  # candidates for `restated`, where no slot_change fits
    floor = threshold if strong_floor is None else min(threshold, strong_floor)
    for s, i, j in sims:
        a, b = items[i], items[j]
        ordered = (a.text, b.text) if a.when < b.when else (b.text, a.text)
        if s < floor and judged.frame(*ordered) is None and judged.left(*ordered) is None:
            continue
        old, new = (i, j) if a.when < b.when else (j, i)
        if items[old].when >= items[new].when:
            continue
        if a.key and b.key and a.key != b.key:
            continue
        c = cue(items[new].text) if s >= threshold else strong_cue(items[new].text)
        if cue(items[old].text) is not None:
            continue
        if items[new].when - items[old].when < TOGETHER_DAYS * 86400 and kinds.differ(a.text, b.text):
            continue
        if c is None:
            # Below the threshold c was the strong cue only; at it, c is None means no cue at all.
            if s >= threshold and items[new].when - items[old].when >= SLOT_DAYS * 86400:
                if slot_change(items[old].text, items[new].text):
                    slots.setdefault(old, []).append((s, new))
                else:  # asked after the loop, where neither a cue nor a slot_change claims `old`
                    reworded.setdefault(old, []).append((s, new))
            continue
        # no shared subject (a time of day or a pronoun is none: 上午 in a vaccination and a move), nor one the cue names
        if not (_shared(a.text, b.text) or judged.frame(items[old].text, items[new].text)
                or judged.left(items[old].text, items[new].text)):
            continue
        if old not in best or s > best[old][0]:
            best[old] = (s, new, c)
    # One statement replaces one fact: a successor a cue links to several older memories
    # (a noun that holds a cue, 搬家公司 "moving company") is no update of any of them.
    # Counted by memory: the members of one merged group are one statement (dream gives
    # them their survivor's id), "途家9月的民宿结算款…已经打到…" and its three rewordings.
    claims: dict[str, int] = {}
    for n in (n for _, n, _ in best.values()):
        claims[items[n].id] = claims.get(items[n].id, 0) + 1
    claimants: dict[str, tuple[int, list[int]]] = {}
    for o, (_, n, _) in best.items():
        if claims[items[n].id] > 1:
            claimants.setdefault(items[n].id, (n, []))[1].append(o)
    plainly = {k: _plainly(olds, n, items) for k, (n, olds) in claimants.items()}
    held = [{"old": items[o].id, "by": items[n].id, "cosine": round(s, 4), "cue": c, "held": True}
            for o, (s, n, c) in best.items() if claims[items[n].id] > 1 and plainly[items[n].id] is None]
    best = {o: v for o, v in best.items() if claims[items[v[1]].id] == 1 or plainly.get(items[v[1]].id) == o}
    reworded = {o: [(s, n) for s, n in found if restated(items[o].text, items[n].text)
                    or renamed(items[o].text, items[n].text)]
                for o, found in reworded.items() if o not in best and o not in slots}
    for o in slots.keys() | reworded.keys():
        # Only where no cued successor claims it and one later statement alone fits: one
        # with the value changed in place, else one saying it again in other words.
        found = slots.get(o) or reworded.get(o, [])
        if o not in best and len(found) == 1:
            best[o] = (found[0][0], found[0][1], SLOT_CUE)
    out = [{"old": items[o].id, "by": items[n].id, "cosine": round(s, 4), "cue": c}
           for o, (s, n, c) in best.items()]
    out.sort(key=lambda d: -d["cosine"])
    return out + sorted(held, key=lambda d: -d["cosine"])
