"""The relevance floor of prompt output (`[recall] prompt_min_score`), chosen on LoCoMo.

Prompt output (`recall --format prompt`, the prompt hook, MCP search) carries only hits
scoring at least the floor. This runs the LoCoMo development split once (hybrid, k=10,
the protocol of recall_locomo.py), then for each candidate floor drops the hits below
it and reports R_any@10 / R_all@10 / MRR@10, how many hits a question keeps on average,
and what share of questions keeps none. The floor kept is the highest one whose R_any@10
equals the unfloored value.

    python benchmarks/prompt_floor.py [../shared/data/locomo-dev.json] [--write]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from recall_locomo import DEFAULT_MODEL, build, load, metrics  # noqa: E402

FLOORS = (0.0, 0.001, 0.01, 0.02, 0.05, 0.08, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("data", nargs="?", default=str(ROOT.parent / "shared" / "data" / "locomo-dev.json"))
    ap.add_argument("--model-path", default=str(DEFAULT_MODEL) if DEFAULT_MODEL.is_dir() else None)
    ap.add_argument("--write", action="store_true")
    args = ap.parse_args()
    items, questions = load(args.data)
    with tempfile.TemporaryDirectory() as tmp:
        store, _ = build(Path(tmp) / "store", items, args.model_path, {})
        runs = []
        for q in questions:
            hits = store.recall(q["q"], k=10, scopes=[q["scope"]], mode="hybrid", record=False)
            runs.append(([(h.key, h.score) for h in hits], q["evidence"]))
        backend = store.index_status().get("backend")
    rows = []
    for floor in FLOORS:
        agg = {"R_any@10": 0.0, "R_all@10": 0.0, "MRR@10": 0.0}
        kept = empty = 0
        for hits, ev in runs:
            ranked = [k for k, s in hits if s >= floor]
            kept += len(ranked)
            empty += not ranked
            m = metrics(ranked, ev)
            for k in agg:
                agg[k] += m[k]
        n = len(runs)
        rows.append((floor, {k: v / n for k, v in agg.items()}, kept / n, empty / n))
    base = rows[0][1]["R_any@10"]
    chosen = max(f for f, m, _, _ in rows if m["R_any@10"] >= base - 1e-12)
    zero = sum(1 for hits, _ in runs for _, s in hits if s <= 0.0) / len(runs)
    lines = [f"{len(runs)} questions, hybrid, k=10, backend {backend}; hits scoring exactly 0 per question "
             f"before any floor: {zero:.2f}.", "",
             "| floor | R_any@10 | R_all@10 | MRR@10 | hits kept per question | questions with none |",
             "|---|---|---|---|---|---|"]
    for floor, m, kept, empty in rows:
        mark = " **(default)**" if floor == chosen else ""
        lines.append(f"| {floor:g}{mark} | {m['R_any@10']:.3f} | {m['R_all@10']:.3f} | {m['MRR@10']:.3f} | "
                     f"{kept:.2f} | {empty:.1%} |")
    lines += ["", f"Highest floor with R_any@10 unchanged: {chosen:g}."]
    text = "\n".join(lines) + "\n"
    print(text)
    if args.write:
        from _report import write_section

        write_section("<!-- prompt-floor:begin -->", "<!-- prompt-floor:end -->",
                      "`python benchmarks/prompt_floor.py --write`\n\n" + text, "Prompt relevance floor")


if __name__ == "__main__":
    main()
