"""Dream's guard over every pair of the consolidation sets: how many cluster pairs it lets
merge (`samefact.conflict` is None) and how many look-alike pairs it tells apart. Fast (no
model, no store): the check run after each rule change (BENCHMARKS.md, Issue 22).

    .venv/bin/python benchmarks/pair_verdicts.py
    GITMEM_TREE=/tmp/base .venv/bin/python benchmarks/pair_verdicts.py   # another tree (git archive)
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, os.environ.get("GITMEM_TREE") or str(ROOT))

from gitmem.lifecycle import samefact  # noqa: E402


def main() -> int:
    same = clusters = apart = lookalikes = 0
    for f in sorted((ROOT / "tests" / "data").glob("consolidation*.json")):
        data = json.loads(f.read_text(encoding="utf-8"))
        for kind in ("clusters", "lookalikes"):
            for item in data[kind]:
                ts = item["texts"]
                for i in range(len(ts)):
                    for j in range(i + 1, len(ts)):
                        merge = samefact.conflict(ts[i], ts[j]) is None
                        if kind == "clusters":
                            clusters, same = clusters + 1, same + merge
                        else:
                            lookalikes, apart = lookalikes + 1, apart + (not merge)
    print(f"gitmem from `{Path(samefact.__file__).parents[1]}`: cluster pairs that would merge {same}/{clusters}, "
          f"look-alike pairs told apart {apart}/{lookalikes}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
