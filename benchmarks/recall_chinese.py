"""Recall on the two Chinese sets written for gitmem (issue 13).

`tests/data/zh_recall.json`: 52 Chinese memories and 4 English ones in one store, one
paraphrased question each. R@1/R@5/R@10 for BM25 alone, vectors alone, hybrid, and
hybrid with the English-only model's vector side at other shares for CJK queries.

`tests/data/zh_dialogue.json`: six users chatting with an assistant over four sessions
(one memory per turn, the session date as `created`, one scope per user as in the
LoCoMo protocol of recall_locomo.py), paraphrased spoken questions with evidence turn
keys. R_any@1/5/10, R_all@10 and MRR@10 per part: `tuning` (u1-u3, where changes are
chosen) and `held_out` (u4-u6, reported, never tuned on).

    .venv/bin/python benchmarks/recall_chinese.py [--model-path DIR] [--set dialogue --part tuning]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import gitmem  # noqa: E402
from recall_locomo import DEFAULT_MODEL, metrics, set_recall  # noqa: E402

DATA = ROOT / "tests" / "data"
DIALOGUE_METRICS = ("R_any@1", "R_any@5", "R_any@10", "R_all@10", "MRR@10")


def variants(model: str) -> list[tuple[str, str, dict]]:
    out = [("bm25", "bm25", {}), ("vector", "vector", {}), ("hybrid (defaults)", "hybrid", {})]
    out += [(f"hybrid, CJK vector share {w}", "hybrid", {"cjk_vector_weights": {model: w}})
            for w in (0.0, 0.25, 0.5, 1.0)]
    return out


def short_set(model_path: str | None) -> str:
    data = json.loads((DATA / "zh_recall.json").read_text())
    home = Path(tempfile.mkdtemp(prefix="gitmem-zh-"))
    store = gitmem.init(home, overrides={"embed": {"path": model_path}} if model_path else None)
    store.import_items([{"text": t, "key": k} for k, t in data["memories"]])
    model = store.recaller.embedder().model_id
    rows = []
    zh = [q for q in data["questions"] if q[0].startswith("m")]
    for name, mode, sets in variants(model):
        set_recall(store, sets)
        found = {1: 0, 5: 0, 10: 0}
        for key, q in zh:
            keys = [h.key for h in store.recall(q, k=10, mode=mode, record=False)]
            for k in found:
                found[k] += key in keys[:k]
        en = sum(key in [h.key for h in store.recall(q, k=1, mode=mode, record=False)]
                 for key, q in data["questions"] if key.startswith("e"))
        rows.append(f"| {name} | " + " | ".join(f"{found[k] / len(zh):.3f}" for k in found) + f" | {en}/4 |")
    return "\n".join([f"Chinese set ({len(zh)} Chinese questions, 4 English; model `{model}`)", "",
                      "| ranking | R@1 | R@5 | R@10 | English R@1 |", "|---|---|---|---|---|", *rows, ""])


def load_dialogue(path: Path = DATA / "zh_dialogue.json") -> tuple[list[dict], list[dict], dict]:
    """Import items (one per turn, scope channel/<user>) and questions with their part."""
    data = json.loads(path.read_text())
    part = {u: "tuning" for u in data["tuning"]} | {u: "held_out" for u in data["held_out"]}
    items = [{"text": t["text"], "key": t["key"], "scope": f"channel/{u['user']}", "type": "note",
              "created": s["date"]}
             for u in data["users"] for s in u["sessions"] for t in s["turns"]]
    questions = [{"q": q["q"], "scope": f"channel/{q['user']}", "evidence": set(q["evidence"]),
                  "part": part[q["user"]], "user": q["user"]} for q in data["questions"]]
    return items, questions, data


def dialogue_scores(store, questions, mode: str = "hybrid") -> dict[str, np.ndarray]:
    """Per-question metrics (searched within the asker's scope)."""
    acc: dict[str, list[float]] = {m: [] for m in DIALOGUE_METRICS}
    for q in questions:
        keys = [h.key for h in store.recall(q["q"], k=10, scopes=[q["scope"]], mode=mode, record=False)]
        m = metrics(keys, q["evidence"])
        m["R_any@1"] = float(bool(keys) and keys[0] in q["evidence"])
        for name in DIALOGUE_METRICS:
            acc[name].append(m[name])
    return {m: np.asarray(v) for m, v in acc.items()}


def dialogue_set(model_path: str | None, parts: list[str]) -> str:
    items, questions, _ = load_dialogue()
    home = Path(tempfile.mkdtemp(prefix="gitmem-zhd-"))
    store = gitmem.init(home, overrides={"embed": {"path": model_path}} if model_path else None)
    store.import_items(items)
    model = store.recaller.embedder().model_id
    out = []
    for part in parts:
        qs = [q for q in questions if q["part"] == part]
        out += [f"Chinese dialogue set, {part} part ({len(qs)} questions, "
                f"{len({q['user'] for q in qs})} users, each searched in its own scope; model `{model}`)", "",
                "| ranking | " + " | ".join(DIALOGUE_METRICS) + " |", "|---|" + "---|" * len(DIALOGUE_METRICS)]
        for name, mode, sets in variants(model):
            set_recall(store, sets)
            vals = dialogue_scores(store, qs, mode)
            out.append(f"| {name} | " + " | ".join(f"{vals[m].mean():.3f}" for m in DIALOGUE_METRICS) + " |")
        out.append("")
    set_recall(store, {})
    return "\n".join(out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model-path", default=str(DEFAULT_MODEL))
    ap.add_argument("--set", choices=("short", "dialogue", "both"), default="both")
    ap.add_argument("--part", choices=("tuning", "held_out", "both"), default="both",
                    help="Which part of the dialogue set (decide changes on `tuning` only).")
    args = ap.parse_args(argv)
    os.environ.setdefault("GITMEM_FSYNC", "0")
    if args.set in ("short", "both"):
        print(short_set(args.model_path))
    if args.set in ("dialogue", "both"):
        parts = ["tuning", "held_out"] if args.part == "both" else [args.part]
        print(dialogue_set(args.model_path, parts))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
