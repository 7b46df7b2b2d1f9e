"""Guard variants measured and not shipped (BENCHMARKS.md, twenty-fifth round): each adds
one rule to dream's guard (`samefact.conflict`) and counts, over every consolidation set's
pairs, the cluster pairs it would keep apart (lost merges) and the look-alike pairs it would
newly tell apart. No model, no store.

    .venv/bin/python benchmarks/guard_variants.py

- two-kinds: texts that swap words but share two kinds of specific value (not three) are one
  fact reworded (samefact._reworded);
- speaker: a person one text names against a text that speaks only of its writer ("Hamish –
  orthodontist…" / "I'm booked in with the dentist…");
- title-head: a note's head in title case ("Neighbourhood Watch - …") whose words the other
  text lacks.
"""

from __future__ import annotations

import json
import os
import re
import sys
from itertools import combinations
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, os.environ.get("GITMEM_TREE") or str(ROOT))

from gitmem.core.calendar import MONTHS, WEEKDAYS  # noqa: E402
from gitmem.lifecycle import kinds, relatives, samefact  # noqa: E402
from gitmem.lifecycle.names import STOP  # noqa: E402

SPECIFIC = samefact.SPECIFIC - {"year"}
_HEAD_SEP = re.compile(r"\s+[-–—|]\s+|:\s+|\s*\|\s*|\s*[(（]")


def _two_kinds(a: str, b: str) -> str | None:
    """The guard with _reworded accepting two shared kinds of specific value."""
    shipped = samefact._reworded

    def reworded(fa, fb, x, y):
        if shipped(fa, fb, x, y):
            return True
        if samefact.is_cjk(x) or samefact.is_cjk(y):
            return False
        return len({v.split(":", 1)[0] for v in samefact._shared_values(x, y, fa, fb)} & SPECIFIC) >= 2

    samefact._reworded = reworded
    try:
        return samefact.conflict.__wrapped__(a, b)
    finally:
        samefact._reworded = shipped


def _speaker(a: str, b: str) -> bool:
    for x, y in ((a, b), (b, a)):
        px = relatives.people(x)
        if px and kinds.named(y).get("people") == frozenset({"me"}) and not relatives.people(y) \
                and not any(re.search(rf"\b{re.escape(o)}\b", y, re.I) for o in px):
            return True
    return False


def _title_head(a: str, b: str) -> bool:
    for x, y in ((a, b), (b, a)):
        if samefact.is_cjk(x) or samefact.is_cjk(y):
            continue
        m = _HEAD_SEP.search(x.strip())
        words = x.strip()[:m.start()].split() if m and m.start() else []
        if not 2 <= len(words) <= 4 or not all(re.fullmatch(r"[A-Z][a-z'’&.-]+", w) for w in words):
            continue
        low = [w.lower().strip("'.") for w in words]
        if any(w[:3] in {n[:3] for n in (*MONTHS, *WEEKDAYS)} for w in low):
            continue
        other = {w[:5] for w in re.findall(r"[a-z]+", y.lower())}
        if all(w not in STOP and w[:5] not in other for w in low):
            return True
    return False


VARIANTS = {
    "two-kinds": lambda a, b, shipped: _two_kinds(a, b),
    "speaker": lambda a, b, shipped: shipped or ("speaker" if _speaker(a, b) else None),
    "title-head": lambda a, b, shipped: shipped or ("title-head" if _title_head(a, b) else None),
}


def main() -> int:
    counts = {v: {"clusters kept apart": 0, "look-alikes told apart": 0} for v in VARIANTS}
    for f in sorted((ROOT / "tests" / "data").glob("consolidation*.json")):
        data = json.loads(f.read_text(encoding="utf-8"))
        for kind in ("clusters", "lookalikes"):
            for item in data[kind]:
                for a, b in combinations(item["texts"], 2):
                    shipped = samefact.conflict(a, b)
                    for name, rule in VARIANTS.items():
                        got = rule(a, b, shipped)
                        if (got is None) == (shipped is None):
                            continue
                        if kind == "clusters" and got is not None:
                            counts[name]["clusters kept apart"] += 1
                        elif kind == "clusters":
                            counts[name]["clusters kept apart"] -= 1
                        elif got is not None:
                            counts[name]["look-alikes told apart"] += 1
                        else:
                            counts[name]["look-alikes told apart"] -= 1
    print("| variant | cluster pairs kept apart (merges lost) | look-alike pairs newly told apart |")
    print("|---|---|---|")
    for name, c in counts.items():
        print(f"| {name} | {c['clusters kept apart']} | {c['look-alikes told apart']} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
