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

`detect` is the write side: the live memories a new memory probably updates or
repeats, found by one recall of its text (BENCHMARKS.md, "Issue 22")."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

import numpy as np

from gitmem.core import model
from gitmem.memories import succession, updates

if TYPE_CHECKING:
    from gitmem.index import Snapshot
    from gitmem.recall.hits import Hit

# How many more hits to ask the ranking for when superseded ones will be dropped.
SPARE_MAX = 20
# How far down the list prefer_newer looks for pairs.
WINDOW = 20
# Two hits both at least this relevant (gitmem.recall.relevance: even odds) are about
# what the query asks: a weak change cue between them is about that subject.
ON_TOPIC = 0.5
# A new memory's candidates: this many hits of its text, asked without waiting more
# than this on embedding (remember stays quick on a store whose vectors lag).
DETECT_K = 8
DETECT_TIMEOUT_MS = 500.0


def hidden_map(svc: Any, scopes: Sequence[str], revs: dict[str, Any] | None = None) -> dict[str, tuple[str, ...]]:
    """Superseded id -> the live memories that replaced it, in these scopes (as of
    `revs`, a look back's commits, else at the tips)."""
    out: dict[str, tuple[str, ...]] = {}
    for s in scopes:
        if revs is not None and s not in revs:
            continue
        out.update(succession.successors(svc, s, revs[s] if revs is not None else None))
    return out


def spare(hidden: set[str], k: int) -> int:
    """Extra hits to rank so that dropping superseded ones still leaves k."""
    return min(len(hidden), SPARE_MAX, max(k, 1))


def settle(hits: "list[Hit]", hidden: dict[str, tuple[str, ...]], k: int, *, include_superseded: bool,
           prefer_newer: bool, snap: "Snapshot | None" = None) -> "list[Hit]":
    """The hits as recall shows them: superseded ones out (or below their successor),
    newer statements of a subject above older ones, at most k."""
    if prefer_newer and len(hits) > 1:
        hits = newer_first(hits, snap, skip=set(hidden))
    if hidden:
        hits = successors_up(hits, hidden)
        if include_superseded:
            hits = below_successors(hits, hidden)
        else:
            hits = [h for h in hits if h.id not in hidden]
    return hits[:k]


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
                skip: "set[str] | frozenset[str]" = frozenset()) -> "list[Hit]":
    """Move a hit that probably updates a hit ranked above it to just above that hit.
    Hits in `skip` (superseded: about to be left out) neither move nor are passed: a
    newer hit placed above one that then goes would take its place unearned."""
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
                on_topic = min(old.relevance or 0.0, new.relevance or 0.0) >= ON_TOPIC
                v = updates.judge(old.text or old.snippet, new.text or new.snippet, sim,
                                  older_created=old.created, newer_created=new.created, strict=True,
                                  on_topic=on_topic)
                if v.kind == "update":
                    top.insert(i, top.pop(j))
                    moved = True
                    break
            if moved:
                break
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
