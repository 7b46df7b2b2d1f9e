"""Which memory probably updates which, without a model in the loop (issue 22).

A newer memory *probably updates* an older one when it is about the same subject, is
later, and says that something changed ("moved", "switched", "no longer", "现在",
"换成" …). It is a *possible duplicate* when it says the same with no change cue.
Pure functions over texts, dates and (when a caller has one) the cosine of the two
texts' vectors: the write path (api.remember: the live memories recall finds for the new
text), recall's currency adjustment (recall/currency.py: hits of one query) and dream
(lifecycle: pairs it already compares) all judge with `judge`; `find` sorts a list of
candidates into updates and duplicates.

Thresholds and cues were read off the tuning half of tests/data/consolidation.json
with all-MiniLM-L6-v2 (BENCHMARKS.md, "Issue 22"): an update and its predecessor sit at
cosine 0.46-0.94, unrelated notes at most 0.35, so same-subject for English text is a
cosine of at least SUBJECT_COS. An English-only model scores any two Chinese sentences
0.6-1.0, so for CJK text the subject is judged by shared words (bigrams) instead.
Look-alike pairs ("my son / my daughter plays the violin") are as close as updates but
carry no change cue: the cue is what keeps them apart, and a cue the older text has too
does not count."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Iterable

from gitmem.core.calendar import MONTHS, WEEKDAYS, alternation
from gitmem.core.tokens import CJK_CHAR, CJK_STOP_CHARS, tokenize

# Words that say a fact changed: the one list, per language, that the write-time report,
# recall's currency and dream (gitmem.lifecycle.updates) all read. English ones match
# whole words (case-insensitive); Chinese ones are substrings. Read off the newer
# statements of tests/data/consolidation.json (both halves) and consolidation_v2.json
# (heldout2, tuning data since its figures were recorded): the last line of each.
CUES_EN = (
    "moved", "move to", "moving to", "relocated", "switched", "switching", "switch to", "now", "no longer",
    "not anymore", "anymore", "any more", "instead", "new", "newly", "changed", "change to", "replaced",
    "replacing", "took over", "taken over", "takes over", "sold", "renamed", "rather than", "stopped",
    "quit", "left", "these days", "from now on", "nowadays", "used to", "gave up", "upgraded", "migrated",
    "raised to", "lowered to", "increased to", "reduced to", "bumped to",
    "raised", "is gone", "bumped", "started using", "cancelled", "canceled", "upgrade",
    # read off every set's newer statements that held none of the above (consolidation_v3
    # to v44), each absent from the sets' other texts
    "went up", "gone up", "went down", "gone down", "down to", "swapped",
    "transferred", "retired", "promoted to", "was promoted", "got promoted", "been promoted",
    # ... and from consolidation_v45 to v47 (benchmarks/cue_candidates.py: each absent from every set's other texts)
    "as of", "upped", "pushed back", "rises to", "agreed to", "went with", "going with", "for good",
    "stepped down", "decamped", "slashed",  # ... and from consolidation_v49
)
CUES_ZH = (
    "改成", "改为", "改用", "改喝", "改到", "换成", "换了", "换工作", "换到", "搬到", "搬去", "搬家", "现在",
    "不再", "不学", "不用", "不喝", "新的", "新来", "卖掉", "接手", "接替", "取代", "替换", "以后", "如今",
    "已经", "改名", "迁到", "调到", "升级", "提高到", "降到", "降低到", "增加到", "减少到", "调整为", "调整到",
    "辞职", "涨了", "涨到", "别再", "不去了",
    "换人", "续租", "延期", "今年开始",  # consolidation_v46, v47
    "推迟", "改签", "降成", "转报", "少到",  # consolidation_v50
)
# Cues that say little alone ("I have a new idea", "now I see"): dream supersedes on them
# only at its full update threshold (gitmem.lifecycle.updates), and recall's stricter
# judgement counts them only between texts much closer than the subject test asks.
WEAK_CUES = frozenset({"now", "new", "newly", "these days", "nowadays", "from now on", "down to",
                       "agreed to", "went with", "going with", "for good",
                       "现在", "新的", "新来", "已经", "如今", "以后", "今年开始"})
# Cues that a statement means as a change but chat uses for anything else ("she left
# early", "I won't quit"): weak in recall's strict judgement (which also sees chat
# turns), strong for dream (which compares memories).
TALK_CUES = frozenset({"left", "quit", "stopped", "used to", "不用"})
# Attributes that a change cue names on its own, whatever words the two texts share:
# moving is about where one lives, a new job about where one works ("我住在南京鼓楼区" /
# "去年年底搬去苏州了"). (how an older statement of one's own says it, how a newer one
# of one's own reports the change); read off the tuning sets, whose update pairs ask
# both in both languages. Anchored at the start: "My sister lives in Toronto", "We
# moved DNS to Cloudflare", "Design review moved to the Birch room" are no such pair.
FRAMES: dict[str, tuple[re.Pattern[str], re.Pattern[str]]] = {
    "home": (re.compile(r"^\s*(?:i|we)\s+(?:\w+\s+)?(?:live|rent)\b|^\s*我们?(?:现在)?住", re.IGNORECASE),
             re.compile(r"^\s*(?:(?:i|we)\s+(?:\w+\s+)?)?(?:moved|relocated)\s+(?:to|out|into|back)\b"
                        r"|^\s*(?:我们?)?[^，。,.\s]{0,6}?(?:搬到|搬去|搬家)", re.IGNORECASE)),
    "work": (re.compile(r"^\s*(?:i|we)\s+(?:\w+\s+)?work\s+(?:at|for|as)\b"
                        r"|^\s*我(?:现在)?在[^，。,.]{1,12}(?:上班|工作|当|做)", re.IGNORECASE),
             re.compile(r"^\s*(?:i|we)\b[^.;]*\b(?:new job|took a job|quit my job|left my job|changed jobs)\b"
                        r"|^\s*我[^，。,.]{0,6}?(?:换工作|辞职|跳槽)", re.IGNORECASE)),
}
STRICT_COS = 0.6       # strict: a weak cue needs this cosine (or SUBJECT_SHARED words)
STRICT_WORDS = 20      # ... between two short statements (chat turns are longer, and say "now" a lot)
NEAR = 1               # strict: or right next to a word of the shared subject ("my new manager")
# 以后 after a time or a date is "after" (下午两点以后可以入场, 3/20以后), no change; after an
# event it is one (换届以后, 搬家以后).
_AFTER_CHANGE = re.compile(r"(?<![点分号日半时\d:：])以后")
# Chinese verbs of change that take any object (改去, 改吃, 改约, 调去, 转学, 搬过来, 加到, 延到),
# read off the same statements; 改 as mending or grading (修改, 批改, 改完, 改卷) is no change.
_ZH_VERB_RE = re.compile(r"(?<![修批更])改(?![善革进良正错造装编写动变完卷作])[\u4e00-\u9fff]"
                         r"|调去|转(?:到|去|学|入|户|投)|搬(?:过来|过去|来|回)|(?:加|减|延|升|降)到")
_EN_RE = re.compile(r"\b(?:" + "|".join(re.escape(c) for c in sorted(CUES_EN, key=len, reverse=True))
                    + r")\b", re.IGNORECASE)

# A conversation turn's speaker label ("User: ", "Caroline: ", "Mary Ann: ", "助手："): who
# spoke, not what the turn is about. Recall does not act between two turns (see `judge`).
# One word, or two capitalised ones: "Deploy day: Thursday" is a note, not a turn.
_SPEAKER_RE = re.compile(r"^\s*(?:[A-Z][\w'.-]* [A-Z][\w'.-]*|[^\W\d_][\w'.-]*)\s*(?::\s|：)")

# Chinese words that name no subject however rare they are in a store: reflexives and
# pronouns of two characters, connectives and adverbs ("外公家自己种着二十亩茶园" and
# "我从来记不住自己的车牌号" share 自己 and no subject), and times of day or year (a
# shuttle at 7:20 in the morning and a hike at 6:30 in the morning). Not a stop list for search:
# only `word_overlap`, the words two statements share, leaves them out.
GENERIC_ZH = frozenset(("自己 我们 咱们 你们 他们 她们 大家 别人 人家 可以 没有 还是 就是 只是 但是 因为 所以 如果 "
                        "一直 一起 一下 一些 时候 觉得 知道 应该 可能 需要 还有 然后 比较 非常 特别 真的 已经 "
                        "早上 上午 中午 下午 晚上 今天 明天 昨天 每天 今年 去年 明年 每年").split())

# Chinese numerals: a pair of them (五万 in 一百六十五万 and 五万八) is a number, not a subject.
ZH_NUMERALS = frozenset("零〇一二两三四五六七八九十百千万亿")
ZH_UNITS = frozenset("点时分秒号日月年天周岁块元")

SUBJECT_COS = 0.42     # same subject (English text, a real model's cosine)
DUPLICATE_COS = 0.92   # the same fact again, no cue
SUBJECT_SHARED = 0.25  # same subject by shared words (token Jaccard), any language
DUPLICATE_SHARED = 0.75
CJK_SHARE = 0.3        # text counted as CJK from this share of letters


@dataclass(frozen=True)
class Verdict:
    """What `judge` found for one (older, newer) pair."""

    kind: str | None                 # "update", "duplicate" or None
    cues: tuple[str, ...] = ()       # change cues the newer text adds
    shared: tuple[str, ...] = ()     # words both texts have
    similarity: float | None = None  # the cosine given, if any
    overlap: float = 0.0             # token Jaccard

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "cues": list(self.cues), "shared": list(self.shared),
                "similarity": self.similarity, "overlap": round(self.overlap, 3)}


@dataclass
class Found:
    """`find`'s answer: candidate ids sorted by how sure (best first)."""

    updates: list[dict[str, Any]] = field(default_factory=list)
    duplicates: list[dict[str, Any]] = field(default_factory=list)


def cues(text: str) -> tuple[str, ...]:
    """The change cues in a text, lowercased, in order of appearance."""
    out = [m.group(0).lower() for m in _EN_RE.finditer(text)]
    zh = [c for c in CUES_ZH if c in text and (c != "以后" or _AFTER_CHANGE.search(text))]
    zh += [m.group(0) for m in _ZH_VERB_RE.finditer(text)]
    out += sorted(zh, key=text.find)
    return tuple(dict.fromkeys(out))


def strong_cues(text: str) -> tuple[str, ...]:
    """The change cues of a text that say a change on their own ("moved", "换成"), not
    the weak ones ("now", "现在")."""
    return tuple(c for c in cues(text) if c not in WEAK_CUES)


# A standing arrangement, by the week or the day ("Thursdays, 10pm till midnight", "every
# other Tuesday", "Wed–Sat 10–4", 每周四, 每晚), against a dated one-off (a calendar day:
# "Date = 2025-06-12", "Wednesday 4 February 2026", 17/10, 6月12日): two facts, neither the
# update of the other ("Night Kitchen — Thursdays, 10pm till midnight" / "Night Kitchen booking:
# … Date = 2025-06-12; Slot = 22:15", a heldout49 pair dream superseded and recall put first).
_DAY = rf"(?:{alternation(WEEKDAYS)})"
_MONTH = rf"(?:{alternation(MONTHS)})\.?"
_STANDING = re.compile(rf"\b(?:mon|tues|wednes|thurs|fri|satur|sun)days\b|\b(?:every|each)\s+(?:other\s+)?"
                       rf"(?:day|night|week|weekday|morning|evening|{_DAY})\b|\bweekly\b|\bnightly\b"
                       rf"|\b{_DAY}\s*(?:[–—-]|to)\s*{_DAY}\b|每(?:个)?(?:周|星期|礼拜|天|晚|日)", re.I)
_CALENDAR_DAY = re.compile(rf"\b\d{{4}}-\d{{1,2}}-\d{{1,2}}\b|\b\d{{1,2}}/\d{{1,2}}(?:/\d{{2,4}})?\b"
                           rf"|\b\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH}(?!\w)|\b{_MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?\b"
                           r"|\d{1,2}\s*月\s*\d{1,2}\s*[日号號]", re.I)


def one_off_against_standing(a: str, b: str) -> bool:
    """Whether one text states a standing arrangement and the other a dated one-off that
    states none (_STANDING, _CALENDAR_DAY): two facts, whichever came first. Each text is
    read once (recall asks it of every pair of its hits)."""
    standing = _standing(a), _standing(b)
    return standing[0] != standing[1] and _dated(b if standing[0] else a)


@lru_cache(maxsize=4096)
def _standing(text: str) -> bool:
    return bool(_STANDING.search(text))


@lru_cache(maxsize=4096)
def _dated(text: str) -> bool:
    return bool(_CALENDAR_DAY.search(text))


def is_cjk(text: str) -> bool:
    letters = [c for c in text if c.isalnum()]
    return bool(letters) and sum(1 for c in letters if CJK_CHAR.match(c)) / len(letters) >= CJK_SHARE


def short(text: str) -> bool:
    """A statement, not a conversation turn: at most STRICT_WORDS words (CJK: twice as
    many characters)."""
    if is_cjk(text):
        return len(text.strip()) <= 2 * STRICT_WORDS
    return len(text.split()) <= STRICT_WORDS


def _words(text: str) -> set[str]:
    return set(tokenize(text))


def speaker(text: str) -> str | None:
    """The speaker label a conversation turn starts with ("User", "助手"), else None."""
    m = _SPEAKER_RE.match(text or "")
    return m.group(0).strip().rstrip(":：").strip() if m else None


def _body(text: str) -> str:
    return _SPEAKER_RE.sub("", text or "", count=1)


def _cue_words(found: Iterable[str]) -> set[str]:
    out: set[str] = set()
    for c in found:
        out.update(tokenize(c, stopwords=False))
    return out


def _zh_word(w: str) -> bool:
    """A token of CJK text that can name a subject at all: two characters or more, not
    only numerals, nor only a clock or calendar unit beside function characters (点了 in
    "…推到六点了" / "…改到每周四下午三点了")."""
    return len(w) >= 2 and not set(w) <= ZH_NUMERALS and not set(w) - CJK_STOP_CHARS <= ZH_NUMERALS | ZH_UNITS


def _subject(older: str, newer: str, cjk: bool) -> set[str]:
    """The words two texts share that can name a subject: not a change cue of either
    (two updates of different things share "现在", "换", "now", and 在改 in 豆芽现在改喝… /
    果果现在改到…), not a speaker label, not a character and the particle after it (宝的),
    and in CJK text a word of two characters or more, not a lone character (上, 了) nor
    one made only of function characters (的是: "需求管理用的是 Jira" and "阳台现在种的是
    番茄" share no subject; 我爸 is one) or only of numerals (五万) nor a clock time's
    digits (00 in 14:00 / 9:00), nor a GENERIC_ZH word (下午: "爷爷每天下午五点吃晚饭" / "需求评审改到每周四下午三点了" share a time of day) nor
    a count or a frequency (_HOW_OFTEN: 一次, 每月)."""
    a, b = _body(older), _body(newer)
    found = cues(a) + cues(b)
    if cjk:  # a cue is cut out, not only its tokens: 在改 straddles 现在 and 改喝 / 改到; a count
        # ends a word (六人大帐 holds no 人大)
        a, b = (_CLOCK.sub("，", _COUNT.sub(r"\g<0>，", _cut(x, found))) for x in (a, b))  # 14:00 / 9:00 share no 00
    shared = (_words(a) & _words(b)) - _cue_words(found)
    return {w for w in shared if _zh_word(w) and not set(w) <= CJK_STOP_CHARS and w not in GENERIC_ZH
            and not _HOW_OFTEN.fullmatch(w) and (w[-1] not in _PARTICLES or _after(w, a) & _after(w, b))} if cjk else shared


def subject(older: str, newer: str) -> set[str]:
    """The words two texts share that can name a subject (`_subject`)."""
    return _subject(older, newer, is_cjk(older) or is_cjk(newer))


def _after(w: str, text: str) -> set[str]:
    """The characters that follow `w` in `text`."""
    return {text[m.end():m.end() + 1] for m in re.finditer(re.escape(w), text)} - {""}


_CLOCK = re.compile(r"\d{1,2}[:：]\d{2}")
# A count or a frequency is no subject either (跟阿哲每月见一次 / 脱敏针改成每四周打一次 share 一次)
_HOW_OFTEN = re.compile(r"(?:[零〇一二两三四五六七八九十百千万\d]+|每)[次个天周月年回遍趟号点分]")
_COUNT = re.compile(r"[零〇一二两三四五六七八九十百千万\d]+[人个只位条张台辆本间套]")
# A character and the particle after it is no subject (带宝宝的是 / 君乐宝的奶粉 share 宝的)
# unless what follows is shared too (我戴的是 / 手上戴的是: what one wears).
_PARTICLES = frozenset("的了得地着过")


def _cut(text: str, found: Iterable[str]) -> str:
    """`text` with each Chinese cue of `found` replaced by a comma (so no token spans the gap)."""
    for c in sorted(found, key=len, reverse=True):
        if CJK_CHAR.search(c):
            text = text.replace(c, "，")
    return text


def content_chars(text: str) -> set[str]:
    """A text's CJK content characters (no function character, no numeral)."""
    return {c for c in text if CJK_CHAR.match(c) and c not in CJK_STOP_CHARS and c not in ZH_NUMERALS}


def char_overlap(a: str, b: str) -> float:
    """The share of their CJK content characters two texts have in common."""
    ca, cb = content_chars(a), content_chars(b)
    return len(ca & cb) / max(1, len(ca | cb))


def word_overlap(older: str, newer: str) -> tuple[float, set[str]]:
    """(share, words): the subject words two texts share (no change cue; in CJK text a
    two-character word with no function character, so not 用的 / 的是 across two words,
    and no GENERIC_ZH word)
    and their share of all the words of both, counted on the whole text (a terse note
    "接口超时：30 秒" reads as a speaker label to `_body`)."""
    cjk = is_cjk(older) or is_cjk(newer)
    a, b = _words(older), _words(newer)
    if cjk:
        a, b = ({w for w in x if _zh_word(w) and not CJK_STOP_CHARS.intersection(w) and w not in GENERIC_ZH}
                for x in (a, b))
    shared = (a & b) - _cue_words(cues(older) + cues(newer))
    return len(shared) / max(1, len(a | b)), shared


def frame(older: str, newer: str) -> str | None:
    """The attribute (FRAMES: "home", "work") an older first-person statement states and
    a newer one says changed, or None."""
    if is_cjk(older) != is_cjk(newer):
        return None
    for name, (states, changes) in FRAMES.items():
        if states.search(older) and changes.search(newer) and not changes.search(older):
            return name
    return None


# What the newer statement leaves, right after the cue that says so: "Desmond took over
# from Priyanka", "moved to Keyvault and cancelled lockbox", "switched from Octopus",
# "不再去门口排队". A name the older statement holds there is its subject, however few
# words the two share otherwise (they sit at cosine 0.2-0.3).
_LEFT_EN = re.compile(r"\b(?:took over from|taken over from|taking over from|takes over from|replaced|replacing|"
                      r"instead of|switched from|switching from|moved (?:away )?from|cancel+ed|left|dropped|"
                      r"no longer (?:with|at|use|using|go to|see))\s+(?:the\s+|our\s+|my\s+)?([A-Za-z][\w'’-]{2,})",
                      re.IGNORECASE)
_LEFT_ZH = re.compile(r"(?:不再(?:去|用|找|在)?|取消了?|退掉了?|换掉了?|不去了?)([\u4e00-\u9fff]{2,6})"
                      r"|([\u4e00-\u9fff]{2,6}?)(?:那台|那辆|那个)?(?:换成|改成|出给|卖给|卖掉|送给)")
_STOP_LEFT = frozenset("the a an our my his her their this that it them him work home school job house".split())


def left_words(newer: str) -> list[str]:
    """What `newer` says it left, in order, each as `left` compares it: lower case, no
    possessive, no pronoun or bare place ("left work"); Chinese: the two characters after
    the cue, no time of day or function word."""
    if is_cjk(newer):
        found = ((m[1] or "")[:2] or m[2][-2:] for m in _LEFT_ZH.finditer(newer))
        return [w for w in found if w not in GENERIC_ZH and not CJK_STOP_CHARS.intersection(w)]
    found = (re.sub(r"['’]s$", "", m[1]).casefold() for m in _LEFT_EN.finditer(newer))
    return [w for w in found if w not in _STOP_LEFT]


def left(older: str, newer: str) -> str | None:
    """The name `newer` says it left (left_words: after took over from, cancelled,
    不再去 ...) that `older` holds, in English as a capitalised word ("left the cat"
    names no one), or None."""
    if is_cjk(older) != is_cjk(newer):
        return None
    if is_cjk(newer):
        return next((w for w in left_words(newer) if w in older), None)
    held = {re.sub(r"['’]s$", "", w).casefold() for w in re.findall(r"[A-Z][\w'’-]+", older)}
    return next((w for w in left_words(newer) if w in held), None)


def _next_to(newer: str, weak: Iterable[str], subject: set[str]) -> bool:
    """Whether a weak cue sits within NEAR words of a subject word ("my new manager")."""
    toks = tokenize(_body(newer))
    cw = _cue_words(weak)
    at_cue = [i for i, t in enumerate(toks) if t in cw]
    return any(abs(i - j) <= NEAR for i in at_cue for j, t in enumerate(toks) if t in subject)


def judge(older: str, newer: str, similarity: float | None = None, *, older_created: str | None = None,
          newer_created: str | None = None, strict: bool = False, on_topic: bool = False,
          named: frozenset[str] | None = None) -> Verdict:
    """Whether `newer` probably updates `older` ("update"), says it again ("duplicate")
    or neither (None). `similarity`: the cosine of their vectors, when known; it is not
    trusted for CJK text (an English-only model scores any two Chinese sentences high).
    Dates, when both are given, must not run backwards for an update (ISO strings).
    `strict` (what recall acts on, not what a write reports): never between two
    conversation turns (both start with a speaker label: in a chat log "now", "new",
    "changed", "quit" are talk, and on LoCoMo dev and the dialogue sets' tuning parts no
    move between turns was a real update) nor between two languages (a Chinese note
    "换成 GitLab CI" is no update of an English one sharing "ci"); the subject rests on shared words that are no
    change cue (`_subject`); a weak cue ("now", "new") counts only between two short
    texts (STRICT_WORDS) at STRICT_COS, sharing SUBJECT_SHARED of their words, next
    to a shared subject word ("my new manager"), or when both are `on_topic` (recall:
    both likely relevant to the query, which then names the subject they share).
    `named` (recall: a Chinese query's terms): in Chinese the subject the two share must
    be one the query names too, unless a frame or a name left ties them (孟老师 / 钱老师
    share 老师, 车位搬到B1 / 车位上装了充电桩 share 车位: neither is what "新能源车现在在哪儿
    充电" or "儿子的数学补习是谁在上" asks). BENCHMARKS.md, "Issue 22"."""
    a, b = _words(older), _words(newer)
    shared = a & b
    overlap = len(shared) / max(1, len(a | b))
    cjk = is_cjk(older) or is_cjk(newer)
    added = tuple(c for c in cues(newer) if c not in set(cues(older)))
    sim = None if similarity is None else float(similarity)
    if cjk:
        # A shared two-character word, two shared characters, or enough shared words.
        same = overlap >= SUBJECT_SHARED or any(len(w) >= 2 for w in shared) or len(shared) >= 2
        dup = overlap >= DUPLICATE_SHARED
    else:
        same = overlap >= SUBJECT_SHARED or (sim is not None and sim >= SUBJECT_COS and bool(shared))
        dup = overlap >= DUPLICATE_SHARED or (sim is not None and sim >= DUPLICATE_COS)
    tied = frame(older, newer) is not None or left(older, newer) is not None  # a frame or a name left
    same = same or tied
    if strict and added and ((speaker(older) and speaker(newer)) or is_cjk(older) != is_cjk(newer)):
        added = ()  # two chat turns; or one language's note passing the other's on shared names ("CI")
    elif strict and added:
        subj = _subject(older, newer, cjk)
        s_overlap = len(subj) / max(1, len(a | b))
        if cjk:
            # named: the word, or its last character (Chinese compounds end in what they
            # are: 不粘锅 is a 锅, 我爸 an 爸) is one of the query's terms
            same = bool(subj if named is None else {w for w in subj if w in named or w[-1] in named})
        else:
            same = s_overlap >= SUBJECT_SHARED or (sim is not None and sim >= SUBJECT_COS and bool(subj))
        same = same or tied
        if all(c in WEAK_CUES or c in TALK_CUES for c in added):
            close = (tied or s_overlap >= SUBJECT_SHARED or (not cjk and sim is not None and sim >= STRICT_COS)
                     or (not cjk and _next_to(newer, added, subj)) or (on_topic and bool(subj)))
            if not (close and short(older) and short(newer)):
                added = ()
    later = not (older_created and newer_created and newer_created < older_created)
    kind = None
    if same and added and later and not one_off_against_standing(older, newer):
        kind = "update"
    elif dup and not added:
        kind = "duplicate"
    return Verdict(kind, added, tuple(sorted(shared)), sim, overlap)


def find(new_text: str, candidates: Iterable[tuple[Any, float | None]], *, new_created: str | None = None,
         limit: int = 3) -> Found:
    """Sort candidates — (memory, cosine or None) pairs; a memory has id, text, summary,
    created — into the ones `new_text` probably updates and the ones it repeats.
    The public entry for callers that hold candidates of their own (dream, an importer)."""
    found = Found()
    for mem, sim in candidates:
        v = judge(mem.text, new_text, sim, older_created=getattr(mem, "created", None) or None,
                  newer_created=new_created)
        if v.kind is None:
            continue
        row = {"id": mem.id, "summary": getattr(mem, "summary", "") or "", "scope": getattr(mem, "scope", None),
               "similarity": None if sim is None else round(float(sim), 3), "cues": list(v.cues),
               "overlap": round(v.overlap, 3)}
        (found.updates if v.kind == "update" else found.duplicates).append(row)
    for rows in (found.updates, found.duplicates):
        rows.sort(key=lambda r: (-(r["similarity"] or 0.0) - r["overlap"], r["id"]))
        del rows[limit:]
    return found
