"""Which earlier memory a later one probably replaces: the hook dream asks for update
pairs (similar subject, later date, a change cue in the later text).

The change cues are gitmem.memories.updates' (one list per language, shared with the
write-time report and recall's currency): a pair is proposed only when the later text
says something changed and the earlier one does not; dream marks the earlier one
superseded and archives it. Dream's own thresholds are its cosines (`update_pairs`)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Iterable, Sequence

from gitmem.lifecycle import samefact
from gitmem.memories import updates as judged


@lru_cache(maxsize=65536)
def cue(text: str) -> str | None:
    """The first change cue in `text` ("moved", "现在"), or None."""
    found = judged.cues(text)
    return found[0] if found else None


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


def update_pairs(items: Sequence[Item], sims: Iterable[tuple[float, int, int]],
                 threshold: float, strong_floor: float | None = None) -> list[dict]:
    """Pairs (old, new) among `items` where `new` probably replaces `old`: cosine
    (from `sims`, (cos, i, j) with i < j) at least `threshold`, `new` dated later, a
    change cue in `new` and none in `old`, a shared term (samefact.terms), no two
    different keys. Down to `strong_floor` a strong cue ("moved", "sold", "换成", not
    "now" or "new") and the shared term suffice: "I drive a grey Golf" / "I sold the
    Golf and bought a Kia instead" sit at cosine 0.5. Each old memory gets its most
    similar successor; the list is ordered by cosine, highest first."""
    best: dict[int, tuple[float, int, str]] = {}
    floor = threshold if strong_floor is None else min(threshold, strong_floor)
    for s, i, j in sims:
        if s < floor:
            continue
        a, b = items[i], items[j]
        old, new = (i, j) if a.when < b.when else (j, i)
        if items[old].when >= items[new].when:
            continue
        if a.key and b.key and a.key != b.key:
            continue
        c = cue(items[new].text) if s >= threshold else strong_cue(items[new].text)
        if c is None or cue(items[old].text) is not None:
            continue
        if not samefact.terms(a.text) & samefact.terms(b.text):  # no shared subject
            continue
        if old not in best or s > best[old][0]:
            best[old] = (s, new, c)
    out = [{"old": items[o].id, "by": items[n].id, "cosine": round(s, 4), "cue": c}
           for o, (s, n, c) in best.items()]
    out.sort(key=lambda d: -d["cosine"])
    return out
