"""Recall on the English dialogue set written for gitmem (issue 13).

`tests/data/en_dialogue.json` is the English twin of `zh_dialogue.json`: six users chatting
with an assistant over four sessions (one memory per turn, the session date as `created`,
one scope per user as in the LoCoMo protocol of recall_locomo.py), paraphrased spoken
questions with evidence turn keys. R_any@1/5/10, R_all@10 and MRR@10 per part: `tuning`
(u1-u3, where changes are chosen) and `held_out` (u4-u6, reported, never tuned on), for
BM25 alone, vectors alone, hybrid at the defaults, and BM25 and hybrid with neighbours off
(0), hybrid at 0.5 (a hit lends that share of its score to the adjacent turns of its
session; BM25 and hybrid rankings share, vector-only does not).

    .venv/bin/python benchmarks/recall_english_dialogue.py [--model-path DIR] [--part held_out]
    .venv/bin/python benchmarks/recall_english_dialogue.py --set recall.date_weight=0

To measure another tree's gitmem, copy this folder and tests/data elsewhere (so this
file's parent folder holds no `gitmem`) and run it with PYTHONPATH=<tree>; the header
names the gitmem it imported.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import gitmem  # noqa: E402
from recall_chinese import DIALOGUE_METRICS, dialogue_scores, load_dialogue  # noqa: E402
from recall_locomo import DEFAULT_MODEL, parse_set, set_recall  # noqa: E402

DATA = ROOT / "tests" / "data" / "en_dialogue.json"
VARIANTS = (("bm25", "bm25", {}), ("bm25, neighbour_weight 0", "bm25", {"neighbour_weight": 0.0}),
            ("vector", "vector", {}), ("hybrid (defaults)", "hybrid", {}),
            ("hybrid, neighbour_weight 0", "hybrid", {"neighbour_weight": 0.0}),
            ("hybrid, neighbour_weight 0.5", "hybrid", {"neighbour_weight": 0.5}))


def build(model_path: str | None, data: Path = DATA, overrides: dict | None = None):
    """A fresh store holding the set (one scope per user) and its questions."""
    items, questions, _ = load_dialogue(data)
    home = Path(tempfile.mkdtemp(prefix="gitmem-end-"))
    conf = {sec: dict(v) for sec, v in (overrides or {}).items()}
    if model_path:
        conf.setdefault("embed", {})["path"] = model_path
    store = gitmem.init(home, overrides=conf or None)
    store.import_items(items)
    return store, questions


def run(store, questions, parts: list[str], overrides: dict | None = None) -> str:
    recall_sets = (overrides or {}).get("recall", {})
    model = store.recaller.embedder().model_id if store.recaller.embedder() else "none"
    extra = "".join(f", {k}={v}" for k, v in recall_sets.items())
    out = [f"gitmem from `{Path(gitmem.__file__).parent}`", ""]
    for part in parts:
        qs = [q for q in questions if q["part"] == part]
        out += [f"English dialogue set, {part} part ({len(qs)} questions, "
                f"{len({q['user'] for q in qs})} users, each searched in its own scope; model `{model}`{extra})", "",
                "| ranking | " + " | ".join(DIALOGUE_METRICS) + " |", "|---|" + "---|" * len(DIALOGUE_METRICS)]
        for name, mode, sets in VARIANTS:
            set_recall(store, recall_sets | sets)
            vals = dialogue_scores(store, qs, mode)
            out.append(f"| {name} | " + " | ".join(f"{vals[m].mean():.3f}" for m in DIALOGUE_METRICS) + " |")
        out.append("")
    set_recall(store, recall_sets)
    return "\n".join(out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model-path", default=str(DEFAULT_MODEL))
    ap.add_argument("--data", default=str(DATA), help="A dialogue set in the zh_dialogue.json format.")
    ap.add_argument("--part", choices=("tuning", "held_out", "both"), default="both",
                    help="Which part (decide changes on `tuning` only).")
    ap.add_argument("--set", action="append", default=[], metavar="SECTION.KEY=VALUE",
                    help="config override (a [recall] one applies to every row), e.g. recall.neighbour_weight=0")
    args = ap.parse_args(argv)
    os.environ.setdefault("GITMEM_FSYNC", "0")
    overrides = parse_set(args.set)
    store, questions = build(args.model_path, Path(args.data), overrides)
    parts = ["tuning", "held_out"] if args.part == "both" else [args.part]
    print(run(store, questions, parts, overrides))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
