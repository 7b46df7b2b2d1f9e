"""Every text of every consolidation set with the values the reader takes from it
(gitmem.lifecycle.values.extract), one line each, sorted: run it on two trees and diff the
outputs to show that a refactor of the readers changed no reading (BENCHMARKS.md, Issue 22,
twenty-fourth round: 13,171 texts, identical before and after lifecycle/digit_dates.py).

    .venv/bin/python benchmarks/values_dump.py > /tmp/values_new.txt
    GITMEM_TREE=/tmp/base .venv/bin/python benchmarks/values_dump.py > /tmp/values_old.txt
    diff /tmp/values_old.txt /tmp/values_new.txt && echo identical
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, os.environ.get("GITMEM_TREE") or str(ROOT))

from gitmem.lifecycle import values  # noqa: E402


def texts() -> set[str]:
    out: set[str] = set()
    for f in sorted((ROOT / "tests" / "data").glob("consolidation*.json")):
        data = json.loads(f.read_text(encoding="utf-8"))
        for kind in ("clusters", "lookalikes"):
            for item in data[kind]:
                out.update(item["texts"])
        for item in data["updates"]:
            out.update((item["older"]["text"], item["newer"]["text"], item["question"]))
        out.update(item["text"] for item in data["unrelated"])
    return out


def main() -> int:
    for t in sorted(texts()):
        vals, rest = values.extract(t)
        print(f"{t.replace(chr(10), ' ')} => {sorted(vals)} {rest!r}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
