"""Grouping near duplicates: which texts of a scope state one fact.

Pairs come from the embeddings (cosine); a pair joins two groups when it is similar
enough and nothing tells any two of their members apart (gitmem.lifecycle.samefact:
values, names, entities; or two different stable keys). Similar enough: the scope's
near threshold, or `anchored_margin` less when the two texts share a date, number or
name or all the content words of the shorter one (samefact.overlap, the lexical
channel); between two Chinese texts, which the English model scores 0.5-0.95 whether
they are paraphrases or not, `cjk_margin` less when they share a value and a word, and
never by the cosine alone: a shared value or name, or two shared words.
Chinese pairs that share a word, and any two texts that share a measured value (down to
MEASURED_FLOOR: a note against a sentence), are candidates even when the vectors do not
rank them among each other's nearest (`lexical_pairs`); two that share less than CJK_CONTAINED of
the shorter one's words are left for the agent to judge (held apart, FEW_WORDS). Single
linkage on similarity, complete linkage on conflicts: a group never holds two texts that
differ in a value or an entity; with the vectors, complete linkage on evidence too: every two members of a
group share a value, a name or a word, or are near by the vectors (`related`).

A chat is not a set of paraphrases: the names and words most of a scope's texts hold
(its people, its small talk: `common_terms`) are no evidence of one fact, and two turns
by two speakers (`speakers_of`, ROLES) are two statements (`why_apart`)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from gitmem.core.calendar import MONTHS, WEEKDAYS
from gitmem.lifecycle import alignment, samefact, synonyms, updates, values, zh_names
from gitmem.memories import updates as judged


class Groups:
    """Union-find over item indexes, members kept per root."""

    def __init__(self, n: int):
        self.parent = list(range(n))
        self.members = {i: [i] for i in range(n)}

    def find(self, i: int) -> int:
        while self.parent[i] != i:
            self.parent[i] = self.parent[self.parent[i]]
            i = self.parent[i]
        return i

    def union(self, a: int, b: int) -> None:
        a, b = self.find(a), self.find(b)
        if a != b:
            self.parent[b] = a
            self.members[a].extend(self.members.pop(b))


@dataclass
class Near:
    """The outcome: groups, and the near pairs held apart (with why), for the agent's plan."""

    groups: Groups
    held_apart: list[dict[str, Any]] = field(default_factory=list)
    sims: list[tuple[float, int, int]] = field(default_factory=list)


NEIGHBOURS = 16  # per memory, the most similar others considered (near duplicates are few)
BLOCK_CELLS = 1 << 24  # cosines per block of rows (64 MB of float32)
# The most texts one group takes: joining two groups checks every pair of their
# members, and one fact written this many ways in one scope is not a paraphrase cluster
# but a template (the rest stay apart and may join another group).
GROUP_MAX = 64
# A name more than this share of a scope's texts hold (and more than COMMON_MIN) is no
# anchor (common_terms).
COMMON_SHARE = 0.05
COMMON_MIN = 16
# A Chinese word shared by more texts than this says little about any two of them and
# would make the lexical candidates quadratic.
POSTINGS_MAX = 32
# Paraphrases of one fact are written close together. Two texts written more than this
# many days apart that are near only by what they share (below the threshold: a name,
# the shorter one's words), and share no measured value (samefact.measured: an amount
# with its unit, a date, a time), are as likely an update as a copy ("The mobile app is
# written in Xamarin." / months later "We rewrote the mobile app in Flutter and retired
# the Xamarin codebase."), and merging would lose one of them: they stay two, for the
# update test (gitmem.lifecycle.updates) to judge. "3.2 kg" / "3200 g" months apart
# still merge.
LATE_DAYS = 30
# Two Chinese texts that share less than this share of the shorter one's words (samefact.overlap)
# may state one fact reworded, or one value of two things: Chinese names no thing with a capital
# (健身房的年卡是两千九百九 / 游泳馆年卡 2990, 科沃斯 滤网两周洗一次 / 小米扫地机器人的滤网两周清洗一次;
# of the Chinese look-alike pairs of two sets written in two styles, 12 of 48 merged without this
# rule, 5 with it). Dream never merges such a pair by itself: it lists it (held apart, FEW_WORDS)
# for the agent's plan. 0.6 since the plan reaches what dream leaves (was 0.4; every set:
# false merges 28 -> 19, look-alikes kept 1145 -> 1150/1169, clusters dream collapses itself
# 689 -> 635/918, clusters within the plan's reach 857 -> 856).
CJK_CONTAINED = 0.6
FEW_WORDS = "for the agent to judge: Chinese texts that share a value in few words"
SHARED_VALUES = "for the agent to judge: texts that share measured values, far apart by the vectors"
LINKED_APART = "for the agent to judge: near, but a text of one's group differs from the other"
# Two Chinese texts that share a measured value (an amount with its unit, a date, a time)
# and a word are one fact this much further below the threshold than cjk_margin: the
# English model reads "书桌长度：140cm" against "新买的书桌长一米四。" at 0.42, digits and
# units against Chinese numerals, while it scores Chinese notes on unrelated things
# 0.5-0.95. What tells two such texts apart is the guard's (samefact.conflict).
CJK_MEASURED_MARGIN = 0.15
# Two texts that share two kinds of measured value (a date and a clock time, a code and a
# date) and a content word or the code, with nothing telling them apart, are one fact down
# to this cosine: the English model reads a booker's sentence against a gig note at 0.33
# ("Salt Lick @ The Tinshed (Fitzroy) — 21 Mar — stage 9.30pm" / "Set time confirmed by
# the booker: 9:30 p.m., Friday March 21, The Tinshed."; "Booking M7QX2P | OBN–CRN |
# 04/07/25 | 1000" / "ferry ref M7QX2P — Oban→Craignure 4/7 10:00").
MEASURED_FLOOR = 0.2


def candidate_pairs(vecs: Any, floor: float, step: int = 1024,
                    neighbours: int = NEIGHBOURS) -> list[tuple[float, int, int]]:
    """(cosine, i, j), i < j, most similar first: each vector's `neighbours` most similar
    others at or above `floor`. Blocks of rows keep memory at O(step * n) (step shrinks
    on a large store: a block stays near BLOCK_CELLS cosines), and the cap keeps the
    pairs at O(n) on a store of look-alike notes."""
    import numpy as np

    n = len(vecs)
    step = max(64, min(step, BLOCK_CELLS // max(n, 1)))
    kth = n - (neighbours + 1)  # the cap's partition point (itself included)
    los, his, vals = [], [], []
    for lo in range(0, n, step):
        block = vecs[lo:lo + step] @ vecs.T
        hit = block >= floor
        per_row = hit.sum(axis=1)
        busy = np.nonzero(per_row > neighbours + 1)[0]  # + itself
        if len(busy):  # only rows with too many neighbours pay for a partial sort
            top = np.argpartition(block[busy], kth, axis=1)[:, kth:]
            hit[busy] = False
            hit[busy[:, None], top] = block[busy[:, None], top] >= floor
        rows, cols = np.nonzero(hit)
        a = rows + lo
        keep = a != cols
        a, c = a[keep], cols[keep]
        los.append(np.minimum(a, c))
        his.append(np.maximum(a, c))
        vals.append(block[rows[keep], cols[keep]])
    if not los:
        return []
    lo_all, hi_all, v_all = np.concatenate(los), np.concatenate(his), np.concatenate(vals)
    # A pair found from both of its rows counts once.
    _, first = np.unique(lo_all.astype(np.int64) * n + hi_all, return_index=True)
    order = first[np.lexsort((-hi_all[first], -lo_all[first], -v_all[first]))]
    cand = list(zip(v_all[order].astype(float).tolist(), lo_all[order].tolist(), hi_all[order].tolist()))
    return cand


def lexical_pairs(texts: list[str], vecs: Any, floor: float, known: list[tuple[float, int, int]],
                  postings_max: int = POSTINGS_MAX,
                  value_floor: float = MEASURED_FLOOR) -> list[tuple[float, int, int]]:
    """`known` (cosine, i, j) pairs, most similar first, with the pairs the vectors'
    nearest neighbours miss added: two Chinese texts that share a content word
    (samefact.overlap's units) at least `floor` similar, and any two that share a
    measured value (samefact.SPECIFIC: a date, a clock time, an amount with its unit, a
    code) at least `value_floor` similar, a note against a sentence ("gig: Tinshed, Fri
    21/3, 21:30 set" / "Set time confirmed by the booker: 9:30 p.m., Friday March 21,
    The Tinshed.", 0.38). A word or value more than `postings_max` texts hold pairs none."""
    posting: dict[str, list[int]] = {}
    for i, t in enumerate(texts):
        fact = samefact.read(t)
        if samefact.is_cjk(t):
            for u in fact.units:
                if not u.isascii():
                    posting.setdefault(u, []).append(i)
        for kind in samefact.SPECIFIC & fact.values.keys():
            for v in fact.values[kind]:
                if v.rsplit(" ", 1)[-1] not in values.COUNTERS:
                    posting.setdefault("\x00" + v, []).append(i)
                if kind == "date":  # ... and its day, which "the 7th" / 21号 gives alone
                    posting.setdefault("\x00mday:" + v.rsplit("-", 1)[-1], []).append(i)
    have = {(a, b) for _, a, b in known}
    extra: dict[tuple[int, int], float] = {}
    for term, members in posting.items():
        if 1 < len(members) <= postings_max:
            least = value_floor if term.startswith("\x00") else floor
            for x in range(len(members)):
                for y in range(x + 1, len(members)):
                    pair = (members[x], members[y])
                    if pair not in have and least < extra.get(pair, 2.0):
                        extra[pair] = least
    if not extra:
        return known
    add = []
    for (a, b), least in sorted(extra.items()):
        s = float(vecs[a] @ vecs[b])
        if s >= least:
            add.append((s, a, b))
    return sorted(known + add, key=lambda p: (-p[0], -p[1], -p[2]))


def close_enough(a: str, b: str, s: float, threshold: float, margin: float, cjk_margin: float,
                 common: frozenset[str] = frozenset()) -> bool:
    """Whether cosine `s` and what the texts share make them near duplicates (before
    the guard): above the threshold; `margin` below it with a shared value or name or
    every content word of the shorter text shared; `cjk_margin` below it for two
    Chinese texts with a shared value and a shared word, or any two that share a
    measured value and two content words that are half the shorter text's, or two kinds
    of measured value and a word; CJK_MEASURED_MARGIN further for two Chinese texts
    sharing a measured value and a word. Two Chinese texts sharing no value or name are
    one fact only with two shared words (words_shared) that are half the shorter one's;
    two sharing one are near the threshold only with something beside it (cjk_beside).
    Two English texts sharing an amount and a word, or another measured value and two
    words, are near down to the lowest cosine when neither has a capitalised word the
    other lacks (capitals_shared). Names and words in `common` (`common_terms`) count for
    nothing."""
    both_cjk = _chinese(a) and _chinese(b)
    if both_cjk and not samefact.anchors(a, b, common):
        # The English model maps much of Chinese to one unknown token (two Chinese notes
        # on unrelated things reach 0.9): two Chinese texts are one fact at any cosine
        # only with a shared value or name, or two shared words that are half the
        # shorter text's ("我对猫毛过敏，可是我未婚夫特别想养猫" / "我未婚夫是个程序员，特别
        # 不爱拍照" share 未婚夫 and 特别 and say two things).
        contained, shared = samefact.overlap(a, b, common)
        if shared < 2 or contained < 0.5 or (contained < 1.0 and words_shared(a, b) < 2):
            return False
    if s >= threshold:
        return True
    if s >= threshold - margin:
        if samefact.anchors(a, b, common) and (not both_cjk or cjk_beside(a, b, common)):
            return True
        contained, shared = samefact.overlap(a, b, common)
        if contained >= 1.0 and shared >= 2:
            return True
    if s >= threshold - cjk_margin and both_cjk:
        return (samefact.anchors(a, b, common) and samefact.overlap(a, b, common)[1] >= 1) or _beyond_words(a, b)
    if s >= threshold - cjk_margin - CJK_MEASURED_MARGIN and both_cjk:
        return (samefact.measured(a, b) > 0 and samefact.overlap(a, b, common)[1] >= 1) or _beyond_words(a, b)
    if not samefact.is_cjk(a) and not samefact.is_cjk(b) and s >= threshold - cjk_margin - CJK_MEASURED_MARGIN \
            and samefact.measured(a, b) and capitals_shared(a, b):
        # A note and a sentence: "paid 485 quid for the crown today" / "The new crown at the
        # dentist cost £485 in total." (0.59), where nothing either names is missing in the
        # other; with an amount, one word in common, else two ("Our buildings insurance renews
        # on 21 January." / "contents ins renewal 21/01" share a date and "renew")
        shared = samefact.overlap(a, b, common)[1]
        amount = samefact.read(a).values.get("qty", frozenset()) & samefact.read(b).values.get("qty", frozenset())
        if shared >= 2 or (shared >= 1 and bool(amount)):
            return True  # ... else two kinds of measured value may still say one fact (below)
    if not samefact.is_cjk(a) and not samefact.is_cjk(b) and s >= threshold - cjk_margin \
            and samefact.anchors(a, b, common) and not _bare_numbers_only(a, b) \
            and samefact.overlap(a, b, common)[1] >= 2 and capitals_shared(a, b):
        # A note and a sentence sharing a name, a code or a measured value and two words,
        # where nothing either names is missing in the other: "Harcourt Lettings contact: Y.
        # Penhaligon" / "yusra penhaligon at harcourt lettings is looking after our flat now"
        # (0.62); a bare number is no such anchor ("Sofa count: 1850." / "the sofa count…")
        return True
    if s >= MEASURED_FLOOR and samefact.measured(a, b) >= 2 and (
            samefact.overlap(a, b, common)[1] >= 1 or _code_shared(a, b)):
        return True
    kinds = samefact.measured(a, b) if s >= threshold - cjk_margin else 0
    if kinds:
        # A measured value (an amount, a date, a time, an address) and every content word of
        # the shorter text in common: "New sofa: GBP 1850." / "the new sofa came to £1.85k"
        # sit at 0.57, where the vectors read a label against a sentence; or two kinds (a
        # date and a time) and a word: "Olivia's piano recital is on Saturday 22 March at
        # 2:30pm" / "Liv plays her recital on the twenty-second of March at half past two".
        contained, shared = samefact.overlap(a, b, common)
        return (contained >= 0.5 and shared >= 2) or (kinds >= 2 and shared >= 1)
    return False


def _beyond_words(a: str, b: str) -> bool:
    """Two Chinese texts (or notes with Chinese in them) that are one fact by what they
    share besides words: one event (_one_event) or one reference (_one_reference)."""
    return _one_event(a, b) or _one_reference(a, b)


def _one_reference(a: str, b: str) -> bool:
    """Two texts sharing a reference and what it is booked or paid for: a code, a date and
    one more measured value ("毕业答辩：5月23日 14:30，经管楼B312" / "thesis defense 5/23 2:30pm
    经管B312"; not a model and its settings, "曼特宁 V60 1:15 92℃" / "耶加雪菲…V60…1:15，水温92度"),
    or a number of six digits or more (an order, an account) and a measured value
    ("订单 2025062188 的退款268元…" / "退款｜单号：2025062188｜金额：¥268.00"). How near two
    texts are, for grouping; samefact._one_record asks another question: whether names that
    differ still make one record."""
    fa, fb = samefact.read(a), samefact.read(b)
    nums = {v[4:] for v in fa.values.get("num", frozenset()) & fb.values.get("num", frozenset())}
    kinds = samefact.measured(a, b)
    dated = bool(fa.values.get("date", frozenset()) & fb.values.get("date", frozenset()))
    return (_code_shared(a, b) and dated and kinds >= 3) or (any(len(n) >= 6 and n.isdigit() for n in nums) and kinds >= 1)


def _one_event(a: str, b: str) -> bool:
    """Two Chinese texts sharing two kinds of measured value (a date and a time) and one
    person, named two ways (沈一舟 / 沈老师, 欧阳雪 / 小雪): "《夜航船》第36期的嘉宾是作家沈一舟，
    6月21日下午2点录。" / "21号下午两点录沈老师那期，第三十六期" share no word, but a character
    besides the surname (cjk_beside: 录, 期)."""
    return samefact.measured(a, b) >= 2 and cjk_beside(a, b) and any(
        zh_names.titled_name_in(x, y) or zh_names.short_name_in(x, y) or zh_names.shared_full_name(x, y)
        for x, y in ((a, b), (b, a)))


def _chinese(text: str) -> bool:
    """Whether `text` is read as Chinese beside another: mostly Chinese, or a note mixing
    Chinese words into English ("water butt 两个 ¥360 绿野": the English model reads
    neither well)."""
    return samefact.is_cjk(text) or len(alignment.HAN.findall(text)) >= 2


def _code_shared(a: str, b: str) -> bool:
    """Whether two texts share a reference code (M7QX2P, DT-448172)."""
    return bool(samefact.read(a).values.get("code", frozenset()) & samefact.read(b).values.get("code", frozenset()))


def _bare_numbers_only(a: str, b: str) -> bool:
    """Whether all two texts share of their values and names is bare numbers."""
    fa, fb = samefact.read(a), samefact.read(b)
    shared = {v for k in fa.values.keys() & fb.values.keys() for v in fa.values[k] & fb.values[k]}
    return not (fa.names & fb.names) and bool(shared) and all(v.startswith("num:") for v in shared)


_CAPITALISED = re.compile(r"(?<![\w'’])[A-Z][A-Za-z'’-]*[A-Za-z]")  # not a hyphen after it (WEB-4821)


def capitals_shared(a: str, b: str) -> bool:
    """Whether each capitalised word of one text (its first word too: "Rosalind from accounts
    has her review at 2.15pm" / "thurs 14:15 review – tobias") is in the other, by its first
    samefact.PREFIX letters, after synonyms (not a month, a weekday or a stop word): what a
    note and a sentence sharing a value and a word must have, to be near at a low cosine."""
    fa, fb = samefact.read(a), samefact.read(b)
    for x, other in ((a, fb), (b, fa)):
        held = {w[:samefact.PREFIX] for w in other.words}
        for m in _CAPITALISED.finditer(x):
            w = re.sub(r"['’]s?$", "", synonyms.one_word(m[0].lower()))
            if w not in samefact.STOP and w not in MONTHS and w not in WEEKDAYS \
                    and w[:samefact.PREFIX] not in held:
                return False
    return True


def words_shared(a: str, b: str) -> int:
    """How many words two texts share, a Chinese word counted once however many of its
    character pairs (samefact.overlap's units) they share: 水龙 and 龙头 are one word, 水龙头
    ("厨房的水龙头是九牧的" / "卫生间的水龙头是箭牌的", a held-out look-alike pair that merged)."""
    shared = samefact.read(a).units & samefact.read(b).units
    pairs = [u for u in shared if len(u) == 2 and alignment.HAN.match(u[0])]
    joined = sum(1 for u in pairs if any(v[1] == u[0] for v in pairs))  # 龙头 continues 水龙
    return len(shared) - joined


def cjk_beside(a: str, b: str, common: frozenset[str] = frozenset()) -> bool:
    """What two Chinese texts that share a value or a name must share besides to be one
    fact near the threshold: a word, a code, or two content characters. "麻薯…走过去五分钟" /
    "线上服务 CPU…持续五分钟就会告警" share five minutes and 过, and merged on a held-out half;
    "大米一袋25kg。" / "这袋米五十斤。" share 25 kg, 米 and 袋."""
    if samefact.overlap(a, b, common)[1] >= 1:
        return True
    fa, fb = samefact.read(a), samefact.read(b)
    if fa.values.get("code", frozenset()) & fb.values.get("code", frozenset()):
        return True
    chars = [{t for t in f.tokens if alignment.HAN.match(t)} for f in (fa, fb)]
    return len(chars[0] & chars[1]) >= 2


def related(a: str, b: str, s: float, threshold: float, margin: float,
            common: frozenset[str] = frozenset()) -> bool:
    """Whether two members of one group have something of their own in common (weaker
    than close_enough: a group's paraphrases are not all near each other): a shared
    value, name or word, or a cosine within `margin` of the threshold (for two Chinese
    texts, which the English model scores alike whatever they say, never the cosine)."""
    if samefact.is_cjk(a) and samefact.is_cjk(b):
        return samefact.anchors(a, b, common) or samefact.overlap(a, b, common)[1] >= 1
    if s >= threshold or samefact.anchors(a, b, common) or samefact.overlap(a, b, common)[1] >= 1:
        return True
    return s >= threshold - margin


# Roles of a chat log, speakers whatever the scope holds: two turns of two speakers are
# two statements, however alike.
ROLES = frozenset({"user", "assistant", "system", "human", "ai", "bot", "用户", "助手", "系统"})


def speaker(text: str) -> str | None:
    """The speaker label a text opens with (gitmem.memories.updates.speaker: "User:",
    "助手：", "Gina:"), casefolded, or None. A speaker where the label is one of ROLES or
    of the scope's `speakers_of`, else a note's label ("Roof: £4,750")."""
    who = judged.speaker(text)
    return who.casefold() if who else None


def speakers_of(texts: list[str]) -> frozenset[str]:
    """The labels that open more than COMMON_SHARE of `texts` (and more than COMMON_MIN):
    the people of a chat ("Gina: ...", "Jon: ..."), not a note's label."""
    df: dict[str, int] = {}
    for t in texts:
        who = speaker(t)
        if who:
            df[who] = df.get(who, 0) + 1
    cut = max(COMMON_MIN, COMMON_SHARE * len(texts))
    return frozenset(n for n, k in df.items() if k > cut)


def why_apart(a: str, b: str, key_a: str | None = None, key_b: str | None = None,
              speakers: frozenset[str] = frozenset()) -> str | None:
    """What keeps two texts from being one memory ("different keys", "different
    speakers": two turns of a chat by two of its `speakers` or ROLES, "possible
    update", or samefact.conflict's reason), or None. One text that says something
    changed ("now", "no longer", 现在) and one that does not are an update, not a copy,
    unless the cue is a weak one ("now", "new", not "moved" or "took over") and both
    give the same particulars (samefact.restates) and nothing tells them apart: "pickle
    is six and a half kilos now" / "Pickle weighs 6.5 kg" restate one weight (an update
    changes a value or a name; a much later restatement that merges is survived by the
    newer text, see consolidate.survivor_first), or both state the same specific values
    and no other (samefact.same_particulars: "车换了四条新轮胎，一共花了两千九百六" /
    "换胎 2960 块", where 换 is the thing done, not a change of the fact)."""
    if key_a and key_b and key_a != key_b:
        return "different keys"
    sa, sb = speaker(a), speaker(b)
    if sa and sb and sa != sb and {sa, sb} <= (speakers | ROLES):
        return "different speakers"  # a user's statement and the assistant's echo of it
    if (updates.cue(a) is None) != (updates.cue(b) is None) and (
            updates.strong_cue(a) or updates.strong_cue(b) or not samefact.restates(a, b)) \
            and not samefact.same_particulars(a, b):
        return "possible update"
    return samefact.conflict(a, b)


def common_terms(texts: list[str]) -> frozenset[str]:
    """The names and content words (samefact.overlap's units) more than COMMON_SHARE of
    `texts` (and more than COMMON_MIN) hold: in a chat the people it is between ("Hey
    Mel!", "Thanks, Maria.") and its small talk ("thanks", "definitely"), which a turn
    holds whatever it says, so sharing one says nothing of one fact (LoCoMo's turns:
    dream merged 64 different turns of one conversation on "Maria")."""
    df: dict[str, int] = {}
    for t in texts:
        for n in samefact.names_of(t) | samefact.read(t).units:
            df[n] = df.get(n, 0) + 1
    cut = max(COMMON_MIN, COMMON_SHARE * len(texts))
    return frozenset(n for n, k in df.items() if k > cut)


def group(texts: list[str], keys: list[str | None], ids: list[str], sims: list[tuple[float, int, int]],
          threshold: float, margin: float, cjk_margin: float | None = None, vecs: Any = None,
          created: list[float] | None = None) -> Near:
    """Group items `texts` (with their stable keys and ids) from the pairs `sims`. With
    their unit vectors `vecs`, two groups join only when every pair across them is
    `related` (complete linkage on evidence, not only on conflicts: a chain of near
    pairs does not carry a text into a group it shares nothing with). With their
    creation times `created` (epoch seconds, 0 unknown), two texts more than LATE_DAYS
    apart that share no measured value join only at the threshold."""
    groups = Groups(len(texts))
    out = Near(groups=groups, sims=sims)
    verdict: dict[tuple[int, int], str | None] = {}

    def apart(a: int, b: int, s: float | None = None) -> str | None:
        k = (a, b) if a < b else (b, a)
        if k not in verdict:
            verdict[k] = why_apart(texts[a], texts[b], keys[a], keys[b], speakers)
            if verdict[k] is None and created is not None and created[a] and created[b]:
                days = abs(created[a] - created[b]) / 86400
                if s is None and vecs is not None:
                    s = float(vecs[a] @ vecs[b])
                if days > LATE_DAYS and s is not None and s < threshold and not samefact.measured(texts[a], texts[b]):
                    verdict[k] = f"possible update: written {days:.0f} days apart"
        return verdict[k]

    cjk_margin = margin if cjk_margin is None else cjk_margin
    lowest = min(threshold - max(margin, cjk_margin + CJK_MEASURED_MARGIN), MEASURED_FLOOR)
    common = common_terms(texts)
    speakers = speakers_of(texts)
    shared_values: list[tuple[float, int, int]] = []  # far by the vectors, two measured values in common
    for s, a, b in sims:
        if s < lowest or not close_enough(texts[a], texts[b], s, threshold, margin, cjk_margin, common):
            kinds = samefact.measured(texts[a], texts[b]) if s >= MEASURED_FLOOR else 0
            if kinds >= 2 or (kinds and samefact.overlap(texts[a], texts[b], common)[1] >= 1):
                shared_values.append((s, a, b))
            continue
        few = samefact.is_cjk(texts[a]) and samefact.is_cjk(texts[b]) and \
            samefact.overlap(texts[a], texts[b], common)[0] < CJK_CONTAINED and not _beyond_words(texts[a], texts[b])
        why = apart(a, b, s) or (FEW_WORDS if few else None)
        if why is not None:  # near enough to be asked about: the agent's plan shows the pair with why
            out.held_apart.append({"a": ids[a], "b": ids[b], "cosine": round(s, 4), "why": why})
            continue
        ra, rb = groups.find(a), groups.find(b)
        if ra == rb or len(groups.members[ra]) + len(groups.members[rb]) > GROUP_MAX:
            continue
        if all(apart(x, y) is None and (vecs is None or (x, y) == (a, b) or (x, y) == (b, a)
                                        or related(texts[x], texts[y], float(vecs[x] @ vecs[y]), threshold,
                                                   margin, common))
               for x in groups.members[ra] for y in groups.members[rb]):
            groups.union(ra, rb)
        else:  # the pair is near, but another member of one group is not one fact with the other
            out.held_apart.append({"a": ids[a], "b": ids[b], "cosine": round(s, 4), "why": LINKED_APART})
    # What the rules leave apart that may still be one fact, for the agent's plan: two texts
    # in two groups that share two kinds of measured value ("Rotorua half – bib #3307 – Sat
    # 22/11 – 0730 gun" / "Race: … | Date: 22 Nov 2025 | Start: 7:30 a.m. | Bib: 3307").
    for s, a, b in shared_values:
        if groups.find(a) != groups.find(b) and apart(a, b, s) is None:
            out.held_apart.append({"a": ids[a], "b": ids[b], "cosine": round(s, 4), "why": SHARED_VALUES})
    at = {i: n for n, i in enumerate(ids)}  # a pair held apart early may end in one group by other links
    out.held_apart = [p for p in out.held_apart if groups.find(at[p["a"]]) != groups.find(at[p["b"]])]
    return out
