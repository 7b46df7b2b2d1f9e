"""Change cues read off the consolidation sets (issue 22): the newer statements that hold no
cue of gitmem.memories.updates yet, and for candidate phrases, how many newer statements and
how many other texts of every set (older statements, clusters, look-alikes, unrelated notes)
hold each. A cue is added only where the second count is 0 (BENCHMARKS.md, "Issue 22").

    .venv/bin/python benchmarks/cue_candidates.py --uncued v45 v46 v47   # newer statements with no cue
    .venv/bin/python benchmarks/cue_candidates.py "as of" upped 换人        # counts per candidate"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from gitmem.core.tokens import simplified  # noqa: E402
from gitmem.memories import updates  # noqa: E402


def texts() -> tuple[list[tuple[str, str]], list[str]]:
    """(set, newer statement) pairs and every other text of every consolidation set."""
    newer, others = [], []
    for f in sorted((ROOT / "tests" / "data").glob("consolidation*.json")):
        d = json.loads(f.read_text())
        name = f.stem.removeprefix("consolidation_")
        for u in d["updates"]:
            newer.append((name, u["newer"]["text"]))
            others.append(u["older"]["text"])
        others += [t for g in d["clusters"] + d["lookalikes"] for t in g["texts"]]
        others += [n["text"] for n in d["unrelated"]]
    return newer, others


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("candidates", nargs="*", help="phrases to count (English whole words, Chinese substrings)")
    ap.add_argument("--uncued", nargs="+", metavar="SET", help="list these sets' newer statements with no cue")
    args = ap.parse_args(argv)
    newer, others = texts()
    if args.uncued:
        for name, t in newer:
            if name in args.uncued and not updates.cues(simplified(t)):
                print(f"{name}\t{t}")
    for cand in args.candidates:
        pat = re.compile(rf"\b{re.escape(cand)}\b", re.I) if cand.isascii() else re.compile(re.escape(cand))
        n = sum(bool(pat.search(t)) for _, t in newer)
        o = [t for t in others if pat.search(t)]
        print(f"{cand!r}: newer statements {n}, other texts {len(o)}" + (f"  e.g. {o[0]!r}" if o else ""))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
