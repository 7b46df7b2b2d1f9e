"""Which hit is current (issue 22): supersession and the newest statement of a subject.

Applied to a ranked list of hits after the ranking proper (recall/ranking.py), so it
changes no score, only what is shown and in which order:
- `superseded`: hits of memories that a live memory of their scope names in its
  `supersedes` (gitmem.memories.succession) are left out of live recall (the successor
  says what is true now; an agent's context is too small for both), their successor
  taking the place of the highest one when it was listed below it. With
  `include_superseded` they stay, right below their successor. A recall `--at` a
  date judges supersession as of that date.
- `prefer_newer` ([recall] prefer_newer): where a newer hit probably updates an older
  hit above it (gitmem.memories.updates.judge, strict: same subject, later, a change
  cue; two statements, never two conversation turns), the newer one moves to just
  above the older. Only hits already in the list move: the
  set of hits and so recall@k are unchanged.
  `newest_first`, the same preference with no change cue (most later statements say
  none: "Sprint length for the team: three weeks"): two hits of one query, both on its
  topic, written at least NEWEST_DAYS apart, each the other's closest among the hits
  (the older's closest later hit, the newer's closest earlier one) and close enough
  (English: cosine NEWEST_COS, or NEWEST_COS_NAMED with NEWEST_NAMED shared words the
  query names; text with Chinese in it, or no vectors: a shared word that the query
  names too, QUERY_CHARS characters of the query's, or SUBJECT_SHARED of their words,
  closest by the words the query names), and not a dated one-off against a standing
  arrangement (updates.one_off_against_standing) — the newer one goes above.

`detect` is the write side: the live memories a new memory probably updates or
repeats, found by one recall of its text (BENCHMARKS.md, "Issue 22")."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any, Sequence

import numpy as np

from gitmem.core import model
from gitmem.core.errors import UsageError
from gitmem.core.tokens import CJK_CHAR
from gitmem.memories import succession, updates

if TYPE_CHECKING:
    from gitmem.index import Snapshot
    from gitmem.recall.hits import Hit

# How many more hits to ask the ranking for when superseded ones will be dropped.
SPARE_MAX = 20
# How far down the list prefer_newer looks for pairs.
WINDOW = 20
# `newest_first` (no change cue): the newer is written at least this many days later
# (look-alike facts that are both true, and paraphrases, are said together; updates
# come weeks to years later), and the two are this close by their vectors (English;
# the English model scores any two Chinese sentences 0.5-0.75, so Chinese is judged by
# shared words). Read off the tuning sets (BENCHMARKS.md, "Issue 22, fourth round").
NEWEST_DAYS = 30.0
NEWEST_COS = 0.55
# ... or, in English, this close by their vectors and sharing NEWEST_NAMED subject word
# that the query names too ("Gus, our tortoise, lives in a pen" / "Gus's enclosure is a
# heated table", asked "Where is Gus the tortoise kept?": a new value says little the
# old one said). One word is a weak link: it does not extend a chain after a stronger link (newest_first).
NEWEST_COS_NAMED = 0.2
NEWEST_NAMED = 1
# ... in Chinese, judged by words, this many content characters of the query's that both
# hold ("峰时电价是0.62元一度" / "峰电 0.68/度", asked 峰时电价多少钱一度: 峰, 电, 度), a
# subject written in two ways that share no word
QUERY_CHARS = 3
STRONG_NAMED = 2  # named words (or, in Chinese, words) from which a link is no longer weak
# Two hits both at least this relevant (gitmem.recall.relevance: even odds) are about
# what the query asks: a weak change cue between them is about that subject.
ON_TOPIC = 0.5
# A new memory's candidates: this many hits of its text, asked without waiting more
# than this on embedding (remember stays quick on a store whose vectors lag).
DETECT_K = 8
DETECT_TIMEOUT_MS = 500.0


def hidden_map(svc: Any, scopes: Sequence[str], revs: dict[str, Any] | None = None) -> dict[str, tuple[str, ...]]:
    """Superseded id -> the live memories that replaced it, in these scopes (as of
    `revs`, a look back's commits, else at the tips). Shared: read it, never change it."""
    maps = [succession.successors(svc, s, revs[s] if revs is not None else None)
            for s in scopes if revs is None or s in revs]
    maps = [m for m in maps if m]
    if len(maps) <= 1:
        return maps[0] if maps else {}  # the scope's own (shared) map: same object while its tree stays
    key = tuple(id(m) for m in maps)
    if _MERGED.get("key") == key:
        return _MERGED["map"]
    out: dict[str, tuple[str, ...]] = {}
    for m in maps:
        out.update(m)
    _MERGED.update(key=key, maps=maps, map=out)  # holding `maps` keeps their ids unique
    return out


# The last merge of several scopes' maps (a recall of a project scope and main asks for
# the same two on every query): the same dict back while neither tree moved.
_MERGED: dict[str, Any] = {}


class RowsById:
    """Memory id -> its row positions in a snapshot, kept per snapshot and grown as rows
    are appended (a recall with supersessions in its scopes pays a scan of the new rows,
    not of them all); and the last query's lenders (`proxies`), kept while the snapshot,
    the supersessions and the filters stay."""

    def __init__(self) -> None:
        self._key: tuple[int, int] | None = None
        self._size = 0
        self._by_id: dict[str, list[int]] = {}
        self._lenders: tuple[Any, ...] | None = None

    def lenders(self, snap: "Snapshot", hidden: dict[str, tuple[str, ...]], live: np.ndarray,
                wider: np.ndarray, filters: Any) -> list[int]:
        """`proxies` of this snapshot, remembered for the next query with the same
        `hidden` (the same object: hidden_map hands back one while no tree moved) and
        filters."""
        key = (snap.serial, snap.epoch, snap.size, filters)
        last = self._lenders
        if last is not None and last[0] == key and last[1] is hidden:
            return last[2]
        out = proxies(snap, self.of(snap), hidden, live, wider)
        self._lenders = (key, hidden, out)
        return out

    def of(self, snap: "Snapshot") -> dict[str, list[int]]:
        key = (snap.serial, snap.epoch)
        if key != self._key or snap.size < self._size:
            self._key, self._size, self._by_id = key, 0, {}
        if self._size < snap.size:
            c = snap.columns.index("mem_id")
            table = snap.table
            for i in range(self._size, snap.size):
                self._by_id.setdefault(table[i][c], []).append(i)
            self._size = snap.size
        return self._by_id


def proxies(snap: "Snapshot", by_id: dict[str, list[int]], hidden: dict[str, tuple[str, ...]],
            live: np.ndarray, wider: np.ndarray) -> list[int]:
    """Docs of superseded memories that the ranking would not see (archived: dream
    retires the older of an update pair) but that pass the query's other filters
    (`wider`: the same mask with archived rows in). Ranked only to lend their match to
    their successors (`carry`), never shown."""
    rows = [i for old in hidden for i in by_id.get(old, ())]
    if not rows:
        return []
    idx = np.asarray(rows, dtype=np.int64)
    idx = idx[wider[idx] & ~live[idx]]
    return snap.docs[idx].tolist()


def carry(snap: "Snapshot", by_id: dict[str, list[int]], hidden: dict[str, tuple[str, ...]],
          fused: dict[int, float], parts: dict[int, tuple[float, float]], live: np.ndarray,
          lenders: Sequence[int] = (), boosts: dict[int, str] | None = None) -> dict[int, int]:
    """A superseded memory's match stands for its successor: each live successor at the
    end of the chain scores at least what its predecessor scored (the older statement
    usually holds the question's words, "live"; the newer one says "moved" and would
    fall out of the hits). Lenders (`proxies`) leave `fused` after lending. Returns
    heir doc -> lender doc (relevance carries over too, `inherit`)."""
    lent: dict[int, int] = {}
    if not hidden or not fused:
        for d in lenders:
            fused.pop(d, None)
        return lent
    c_mem = snap.columns.index("mem_id")
    for d, f in sorted(fused.items(), key=lambda kv: (-kv[1], kv[0])):
        i = snap.row_of.get(d)
        old = snap.table[i][c_mem] if i is not None else None
        if old not in hidden:
            continue
        for end in succession.current_successors(hidden, old):
            for r in by_id.get(end, ()):
                if not live[r]:
                    continue
                heir = int(snap.docs[r])
                if f > fused.get(heir, 0.0):
                    fused[heir] = f
                    if d in parts:
                        parts[heir] = parts[d]
                    lent[heir] = d
                    if boosts is not None:
                        boosts[heir] = f"carries the match of {old}, which it supersedes"
    for d in lenders:
        fused.pop(d, None)
    return lent


def inherit(rel: Any, lent: dict[int, int]) -> Any:
    """`rel` (doc -> (relevance, coverage, cosine, topical)) where an heir is at least as
    relevant as the memory it supersedes (the query asked about that memory's subject)."""
    if not lent:
        return rel

    def out(doc: int) -> tuple[float, float, float, float]:
        p = rel(doc)
        if doc in lent:
            q = rel(lent[doc])
            if q[0] > p[0] or q[3] > p[3]:
                return (max(q[0], p[0]), p[1], p[2], max(q[3], p[3]))
        return p
    return out


def _topical(h: "Hit") -> float:
    """How far a hit is about what the query asks: its relevance before the query's form
    gate (a question asked in general is as much about a hit as one asked of the asker)."""
    return h.topical if h.topical is not None else (h.relevance or 0.0)


def spare(hidden: set[str], k: int) -> int:
    """Extra hits to rank so that dropping superseded ones still leaves k."""
    return min(len(hidden), SPARE_MAX, max(k, 1))


def settle(hits: "list[Hit]", hidden: dict[str, tuple[str, ...]], k: int, *, include_superseded: bool,
           prefer_newer: bool, snap: "Snapshot | None" = None, terms: Sequence[str] = ()) -> "list[Hit]":
    """The hits as recall shows them: superseded ones out (or below their successor),
    newer statements of a subject above older ones, at most k. `terms`: the query's
    tokens (a subject the query names, for `newest_first`)."""
    if prefer_newer and len(hits) > 1:
        before = hits
        hits = newer_first(hits, snap, skip=set(hidden), terms=terms)
        hits = newest_first(hits, snap, terms, hidden=hidden)
        hits = _lifted(before, hits)
    if hidden:
        hits = successors_up(hits, hidden)
        if include_superseded:
            hits = below_successors(hits, hidden)
        else:
            hits = [h for h in hits if h.id not in hidden]
    return hits[:k]


def _lifted(before: "list[Hit]", after: "list[Hit]") -> "list[Hit]":
    """`after` with each hit that prefer_newer moved up scoring at least what the hit
    below it scores: a newer statement placed above an older one it updates takes that
    one's match, as a superseding memory does (`carry`), so the list reads in order
    ("We switched CI to GitHub Actions" above "Our team uses Jenkins for CI" showed 0.0
    above 1.6)."""
    if after is before:
        return after
    was = {id(h): i for i, h in enumerate(before)}
    out = list(after)
    for i in range(len(out) - 2, -1, -1):
        h, below = out[i], out[i + 1]
        if was.get(id(h), i) > i and h.score < below.score:
            ex = None
            if h.explain is not None:
                ex = {**h.explain, "final": below.score,
                      "why": f"{h.explain.get('why', '')}; moved above an older statement it updates, "
                             "it scores at least the hit below it"}
            out[i] = replace(h, score=below.score, explain=ex)
    return out


def successors_up(hits: "list[Hit]", hidden: dict[str, tuple[str, ...]]) -> "list[Hit]":
    """A superseded hit hands its place to its current successor when that is listed
    below it: what the query matched in the old memory, the new one now says (the
    older usually shares the question's words, "live"; the newer says "moved")."""
    out = list(hits)
    i = 0
    while i < len(out):
        if out[i].id in hidden:
            ends = set(succession.current_successors(hidden, out[i].id))
            below = [j for j in range(i + 1, len(out)) if out[j].id in ends]
            if below:
                out.insert(i, out.pop(below[0]))
                i += 1
        i += 1
    return out


def below_successors(hits: "list[Hit]", hidden: dict[str, tuple[str, ...]]) -> "list[Hit]":
    out = list(hits)
    for h in list(out):
        succ = [i for i, x in enumerate(out) if x.id in hidden.get(h.id, ())]
        if succ:
            out.remove(h)
            last = max(i for i, x in enumerate(out) if x.id in hidden[h.id])
            out.insert(last + 1, h)
    return out


def _vectors(snap: "Snapshot | None", hits: "Sequence[Hit]") -> list[np.ndarray | None]:
    if snap is None or snap.vectors is None:
        return [None] * len(hits)
    out: list[np.ndarray | None] = []
    for h in hits:  # by the hit's index row, not a scan of the whole snapshot
        i = None if h.doc is None else snap.row_of.get(h.doc)
        out.append(snap.vectors[i] if i is not None and snap.has_vec[i] else None)
    return out


def newer_first(hits: "list[Hit]", snap: "Snapshot | None" = None,
                skip: "set[str] | frozenset[str]" = frozenset(), terms: Sequence[str] = ()) -> "list[Hit]":
    """Move a hit that probably updates a hit ranked above it to just above that hit.
    Hits in `skip` (superseded: about to be left out) neither move nor are passed: a
    newer hit placed above one that then goes would take its place unearned. `terms`:
    the query's tokens; a Chinese query's name the subject two Chinese hits must share
    (updates.judge, `named`)."""
    named = frozenset(terms) if any(CJK_CHAR.search(t) for t in terms) else None
    top = list(hits[:WINDOW])
    cued = [bool(updates.cues(h.text or h.snippet or "")) and h.id not in skip for h in top]
    if not any(cued[1:]):
        return hits
    movable = {h.id for h, c in zip(top, cued) if c}  # a change cue, not superseded
    vec_of = {id(h): v for h, v in zip(top, _vectors(snap, top))}
    moved = True
    rounds = 0
    while moved and rounds < len(top):
        moved, rounds = False, rounds + 1
        for j in range(1, len(top)):
            new = top[j]
            if new.id not in movable:
                continue
            for i in range(j):
                old = top[i]
                if old.id == new.id or old.id in skip or not (old.created and new.created) or new.created <= old.created:
                    continue
                vi, vj = vec_of[id(old)], vec_of[id(new)]
                sim = float(np.dot(vi, vj)) if vi is not None and vj is not None else None
                on_topic = min(_topical(old), _topical(new)) >= ON_TOPIC
                v = updates.judge(old.text or old.snippet, new.text or new.snippet, sim,
                                  older_created=old.created, newer_created=new.created, strict=True,
                                  on_topic=on_topic, named=named)
                if v.kind == "update":
                    top.insert(i, top.pop(j))
                    moved = True
                    break
            if moved:
                break
    return top + list(hits[WINDOW:])


def _days(iso: str | None) -> float | None:
    """A hit's `created` in days (model.parse_when: UTC), or None when missing or unreadable."""
    if not iso:
        return None
    try:
        return model.parse_when(iso).timestamp() / 86400.0
    except UsageError:
        return None


def newest_first(hits: "list[Hit]", snap: "Snapshot | None" = None, terms: Sequence[str] = (),
                 hidden: "dict[str, tuple[str, ...]] | None" = None) -> "list[Hit]":
    """Move the newer of two hits about one subject to just above the older, with no
    change cue needed (module docstring). Each older hit pairs with at most one newer
    (its closest later hit, which must take it as its own closest earlier one), so a
    note merely sharing the topic does not pass it; chains (a, b, c over the years)
    come out newest first, except that a weak link (one word the query names, below
    NEWEST_COS) does not extend one after a closer link. Superseded hits (keys of `hidden`, superseded id -> its
    successors) neither move nor are passed; a hit that replaced another (a successor:
    a supersession said it is the current one) is passed only by a newer hit close by
    the strict rule (NEWEST_COS; Chinese: SUBJECT_SHARED of their words), never by a
    word the query names alone."""
    hidden = hidden or {}
    skip = hidden.keys()
    top = list(hits[:WINDOW])
    dated = [(i, _days(h.created)) for i, h in enumerate(top)
             if h.id not in skip and _topical(h) >= ON_TOPIC]
    idx = [i for i, d in dated if d is not None]
    day = [d for _, d in dated if d is not None]
    if len(idx) < 2 or max(day) - min(day) < NEWEST_DAYS:
        return hits
    texts = [top[i].text or top[i].snippet or "" for i in idx]
    # Judged by words when either text has Chinese in it: a terse note is often mostly
    # names in Latin letters ("链路追踪：Jaeger + OpenTelemetry SDK"), and the English
    # model reads neither side. Two texts meet only when both have Chinese or neither has.
    han = [bool(CJK_CHAR.search(t)) for t in texts]
    # A chat turn (a speaker label, or longer than a statement: STRICT_WORDS) says
    # "now" and revisits topics across sessions without updating anything.
    turn = [updates.speaker(t) is not None or not updates.short(t) for t in texts]
    vecs = _vectors(snap, [top[i] for i in idx])
    query = set(terms)
    asked = updates.content_chars("".join(t for t in terms if t not in updates.GENERIC_ZH))
    shown = {top[i].id for i in idx}  # only past the early return: read the map when pairs may form
    current = {s for succ in hidden.values() for s in succ if s in shown} if hidden else set()
    m = len(idx)
    sim = np.full((m, m), -1.0)
    weak = np.zeros((m, m), dtype=bool)  # close by one word the query names, nothing more
    for a in range(m):
        for b in range(a + 1, m):
            if han[a] != han[b] or (turn[a] and turn[b]) or abs(day[b] - day[a]) < NEWEST_DAYS \
                    or updates.one_off_against_standing(texts[a], texts[b]):
                continue
            va, vb = vecs[a], vecs[b]
            cos = float(np.dot(va, vb)) if va is not None and vb is not None else None
            # the older of the two, when a supersession made it the current one, yields only to a close match
            settled = top[idx[a] if day[a] < day[b] else idx[b]].id in current
            if not han[a] and cos is not None:
                named = len(updates.word_overlap(texts[a], texts[b])[1] & query) if cos < NEWEST_COS else 0
                near = cos
                close = cos >= NEWEST_COS or (not settled and cos >= NEWEST_COS_NAMED and named >= NEWEST_NAMED)
                weak[a, b] = weak[b, a] = cos < NEWEST_COS and named < STRONG_NAMED
            else:  # by words: the words the query names first, then the share; the cosine breaks ties
                share, shared = updates.word_overlap(texts[a], texts[b])
                close = share >= updates.SUBJECT_SHARED or (not settled and (
                    bool(shared & query) or len(asked & updates.content_chars(texts[a]) & updates.content_chars(texts[b]))
                    >= QUERY_CHARS))
                # ... then the characters they share (码 in 儿子穿32码的鞋 / 儿子的脚长到35码了: the
                # attribute a new value is given for)
                near = len(shared & query) + share + 0.5 * updates.char_overlap(texts[a], texts[b]) \
                    + (0.0 if cos is None else 0.01 * cos)
                weak[a, b] = weak[b, a] = share < updates.SUBJECT_SHARED and len(shared & query) < STRONG_NAMED
            if close:
                sim[a, b] = sim[b, a] = near

    def nearest(a: int, later: bool) -> int | None:
        side = [b for b in range(m) if sim[a, b] > -1.0 and (day[b] > day[a]) == later]
        return max(side, key=lambda b: (sim[a, b], -b)) if side else None

    links = []
    for a in range(m):
        b = nearest(a, later=True)
        if b is not None and nearest(b, later=False) == a:
            links.append((a, b))
    # A weak link does not extend a strong one: one word of the query ("Mum", "school") is
    # the entity, not the attribute, and the note after the current statement is as
    # likely about something else of that entity ("Mum's delivery slot" after "Mum's
    # prescriptions are posted ..."). After a weak link it does when it is the closer of
    # the two (asked 家里的智能门铃…: 啤酒 -> the old doorbell by 家里, then the old doorbell
    # -> the new by 门铃).
    into: dict[int, float] = {}
    for a, b in links:
        into[b] = max(into.get(b, -1.0), sim[a, b] if weak[a, b] else np.inf)
    pairs = [(top[idx[a]], top[idx[b]]) for a, b in links if not (weak[a, b] and into.get(a, -np.inf) >= sim[a, b])]
    if not pairs:
        return hits
    for old, new in sorted(pairs, key=lambda p: _days(p[1].created) or 0.0):  # a chain a, b, c: c ends first
        i, j = top.index(old), top.index(new)
        if j > i:
            top.insert(i, top.pop(j))
    return top + list(hits[WINDOW:])


class _Candidate:
    """A hit seen as a memory for updates.find (id, text, summary, created, scope)."""

    def __init__(self, hit: "Hit"):
        self.id, self.scope, self.created = hit.id, hit.scope, hit.created
        self.text = hit.text or hit.snippet or ""
        self.summary = model.summarise(self.text)


def detect(recaller: Any, mem: model.Memory, *, exclude: Sequence[str] = ()) -> dict[str, list[dict[str, Any]]]:
    """{"possible_updates", "possible_duplicates"}: live memories of `mem`'s scope that
    `mem` probably updates or repeats (gitmem.memories.updates), best first."""
    from gitmem.recall.request import RecallRequest

    req = RecallRequest(query=mem.text, k=DETECT_K, scopes=(mem.scope,) if mem.scope else None,
                        record=False, timeout_ms=DETECT_TIMEOUT_MS)
    res = recaller.run(req)
    skip = {mem.id, *mem.supersedes, *exclude}
    cands = [(_Candidate(h), (h.scores or {}).get("vector")) for h in res.hits
             if h.id not in skip and h.path.startswith("memories/")]
    found = updates.find(mem.text, cands, new_created=mem.created)
    return {"possible_updates": found.updates, "possible_duplicates": found.duplicates}
