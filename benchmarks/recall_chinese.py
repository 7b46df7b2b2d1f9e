"""Recall on the Chinese set of tests/data/zh_recall.json (written for gitmem, issue 13):
52 Chinese memories and 4 English ones in one store, one paraphrased question each.
R@1/R@5/R@10 for BM25 alone, vectors alone, hybrid, and hybrid without the CJK rule
(the English-only model's vector side kept at full weight for CJK queries).

    .venv/bin/python benchmarks/recall_chinese.py [--model-path DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import gitmem  # noqa: E402
from recall_locomo import DEFAULT_MODEL, set_recall  # noqa: E402


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model-path", default=str(DEFAULT_MODEL))
    args = ap.parse_args(argv)
    os.environ.setdefault("GITMEM_FSYNC", "0")
    data = json.loads((ROOT / "tests" / "data" / "zh_recall.json").read_text())
    home = Path(tempfile.mkdtemp(prefix="gitmem-zh-"))
    store = gitmem.init(home, overrides={"embed": {"path": args.model_path}})
    store.import_items([{"text": t, "key": k} for k, t in data["memories"]])
    model = store.recaller.embedder().model_id
    rows = []
    variants = [("bm25", "bm25", {}), ("vector", "vector", {}), ("hybrid (defaults)", "hybrid", {})]
    variants += [(f"hybrid, CJK vector share {w}", "hybrid", {"cjk_vector_weights": {model: w}})
                 for w in (0.0, 0.25, 0.5, 1.0)]
    for name, mode, sets in variants:
        set_recall(store, sets)
        found = {1: 0, 5: 0, 10: 0}
        zh = [q for q in data["questions"] if q[0].startswith("m")]
        for key, q in zh:
            keys = [h.key for h in store.recall(q, k=10, mode=mode, record=False)]
            for k in found:
                found[k] += key in keys[:k]
        en = sum(key in [h.key for h in store.recall(q, k=1, mode=mode, record=False)]
                 for key, q in data["questions"] if key.startswith("e"))
        rows.append(f"| {name} | " + " | ".join(f"{found[k] / len(zh):.3f}" for k in found) + f" | {en}/4 |")
    print(f"Chinese set ({len(zh)} Chinese questions, 4 English; model `{model}`)\n")
    print("| ranking | R@1 | R@5 | R@10 | English R@1 |\n|---|---|---|---|---|")
    print("\n".join(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
