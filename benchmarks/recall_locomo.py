"""Recall quality on LoCoMo through the public API (protocol: ../shared/data/README.md).

One memory per turn (text "<speaker>: <text>", key "<sample_id>/<dia_id>", the session
date as `created`), one scope per conversation (channel/<sample_id>); every question of
category 1-4 with evidence is searched only within its conversation. Reports
R_any@5/10, R_all@10, MRR@10, NDCG@10 and latency for BM25 only, vector only and
hybrid, with 95% bootstrap confidence intervals, plus paired bootstrap intervals of
hybrid minus each single ranking.

    .venv/bin/python benchmarks/recall_locomo.py ../shared/data/locomo-dev.json --write

Nothing here is specific to the development conversations: any LoCoMo-format file works.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import math
import os
import re
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import gitmem  # noqa: E402

DEFAULT_MODEL = ROOT.parent / "shared" / "models" / "all-MiniLM-L6-v2-onnx-int8"
MODES = ("bm25", "vector", "hybrid")
BEGIN, END = "<!-- recall-locomo:begin -->", "<!-- recall-locomo:end -->"


def session_date(text: str) -> str | None:
    for fmt in ("%I:%M %p on %d %B, %Y", "%I:%M %p on %d %b, %Y"):
        try:
            return dt.datetime.strptime(text.strip(), fmt).replace(tzinfo=dt.timezone.utc).isoformat()
        except ValueError:
            continue
    return None


def load(path: str):
    data = json.loads(Path(path).read_text())
    items, questions = [], []
    for conv in data:
        sid = conv["sample_id"]
        c = conv["conversation"]
        scope = f"channel/{sid}"
        turns = set()
        for name, turns_list in c.items():
            m = re.fullmatch(r"session_(\d+)", name)
            if not m or not isinstance(turns_list, list):
                continue
            when = session_date(c.get(f"{name}_date_time", "") or "")
            for t in turns_list:
                dia = t["dia_id"]
                turns.add(dia)
                item = {"text": f"{t['speaker']}: {t['text']}", "key": f"{sid}/{dia}", "scope": scope,
                        "type": "note"}
                if when:
                    item["created"] = when
                items.append(item)
        for qa in conv["qa"]:
            if qa.get("category") not in (1, 2, 3, 4):
                continue
            ev = set()
            for e in qa.get("evidence") or []:
                for part in str(e).split(";"):
                    part = part.strip()
                    m = re.fullmatch(r"D(\d+):0*(\d+)", part)
                    if m:
                        dia = f"D{int(m.group(1))}:{int(m.group(2))}"
                        if dia in turns:
                            ev.add(f"{sid}/{dia}")
            if ev:
                questions.append({"q": str(qa["question"]), "scope": scope, "evidence": ev,
                                  "category": qa["category"]})
    return items, questions


def metrics(ranked: list[str], evidence: set[str]) -> dict[str, float]:
    top10 = ranked[:10]
    rel = [1.0 if r in evidence else 0.0 for r in top10]
    mrr = next((1.0 / (i + 1) for i, r in enumerate(rel) if r), 0.0)
    dcg = sum(r / math.log2(i + 2) for i, r in enumerate(rel))
    idcg = sum(1.0 / math.log2(i + 2) for i in range(min(len(evidence), 10)))
    return {
        "R_any@5": float(any(r in evidence for r in ranked[:5])),
        "R_any@10": float(any(rel)),
        "R_all@10": float(evidence <= set(top10)),
        "MRR@10": mrr,
        "NDCG@10": dcg / idcg if idcg else 0.0,
    }


METRICS = ("R_any@5", "R_any@10", "R_all@10", "MRR@10", "NDCG@10")


def bootstrap(values: np.ndarray, n: int = 2000, seed: int = 7) -> tuple[float, float]:
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, len(values), size=(n, len(values)))
    means = values[idx].mean(axis=1)
    return float(np.percentile(means, 2.5)), float(np.percentile(means, 97.5))


def build(home: Path, items, model_path: str | None, overrides: dict) -> tuple[gitmem.Store, dict]:
    ov = dict(overrides)
    if model_path:
        ov.setdefault("embed", {})["path"] = model_path
    existing = (home / "repo.git").exists()
    store = gitmem.init(home, overrides=ov)
    timing = {}
    if not existing:
        t = time.perf_counter()
        store.import_items(items)
        timing["ingest_s"] = time.perf_counter() - t
    t = time.perf_counter()
    store.index.snapshot()
    timing["index_s"] = time.perf_counter() - t
    return store, timing


def evaluate(store, questions, modes=MODES) -> dict[str, dict]:
    out = {}
    for mode in modes:
        per_q = {m: [] for m in METRICS}
        lat = []
        for q in questions:
            t = time.perf_counter()
            hits = store.recall(q["q"], k=10, scopes=[q["scope"]], mode=mode, record=False)
            lat.append((time.perf_counter() - t) * 1000)
            ranked = [h.key for h in hits]
            for m, v in metrics(ranked, q["evidence"]).items():
                per_q[m].append(v)
        out[mode] = {"values": {m: np.asarray(v) for m, v in per_q.items()},
                     "p50": float(np.percentile(lat, 50)), "p95": float(np.percentile(lat, 95))}
    return out


def table(res: dict, n_q: int, timing: dict, model: str) -> str:
    lines = [f"LoCoMo development split, {n_q} questions (categories 1-4 with evidence), "
             f"k=10 within each conversation; model `{model}`; 95% bootstrap CIs (2000 resamples).", "",
             "| ranking | " + " | ".join(METRICS) + " | p50 ms | p95 ms |",
             "|---|" + "---|" * (len(METRICS) + 2)]
    for mode, r in res.items():
        cells = []
        for m in METRICS:
            v = r["values"][m]
            lo, hi = bootstrap(v)
            cells.append(f"{v.mean():.3f} [{lo:.3f}, {hi:.3f}]")
        lines.append(f"| {mode} | " + " | ".join(cells) + f" | {r['p50']:.1f} | {r['p95']:.1f} |")
    if "hybrid" in res:
        lines += ["", "Paired bootstrap, hybrid minus the other ranking (95% CI):", "",
                  "| vs | " + " | ".join(METRICS) + " |", "|---|" + "---|" * len(METRICS)]
        for other in ("bm25", "vector"):
            if other not in res:
                continue
            cells = []
            for m in METRICS:
                d = res["hybrid"]["values"][m] - res[other]["values"][m]
                lo, hi = bootstrap(d)
                cells.append(f"{d.mean():+.3f} [{lo:+.3f}, {hi:+.3f}]")
            lines.append(f"| {other} | " + " | ".join(cells) + " |")
    if timing:
        lines += ["", "Ingestion: " + ", ".join(f"{k} {v:.1f}" for k, v in timing.items())]
    return "\n".join(lines) + "\n"


def write_section(text: str) -> None:
    from _report import write_section as write

    write(BEGIN, END, text, "Recall: LoCoMo")


def parse_set(values: list[str]) -> dict:
    out: dict = {}
    for v in values:
        key, _, raw = v.partition("=")
        sec, _, name = key.partition(".")
        try:
            val = json.loads(raw)
        except ValueError:
            val = raw
        out.setdefault(sec, {})[name] = val
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("data", nargs="?", default=str(ROOT.parent / "shared" / "data" / "locomo-dev.json"))
    ap.add_argument("--home", help="Store to (re)use; default a temporary one.")
    ap.add_argument("--model-path", default=str(DEFAULT_MODEL) if DEFAULT_MODEL.is_dir() else None)
    ap.add_argument("--set", action="append", default=[], help="config override, e.g. recall.fusion=linear")
    ap.add_argument("--modes", default=",".join(MODES))
    ap.add_argument("--write", action="store_true", help="Write the table into BENCHMARKS.md.")
    args = ap.parse_args(argv)
    os.environ.setdefault("GITMEM_FSYNC", "0")
    items, questions = load(args.data)
    tmp = None
    home = Path(args.home) if args.home else Path(tmp := tempfile.mkdtemp(prefix="gitmem-locomo-"))
    store, timing = build(home, items, args.model_path, parse_set(args.set))
    model = store.recaller.embedder().model_id if store.recaller.embedder() else "none"
    print(f"{len(items)} memories, {len(questions)} questions; {timing}", file=sys.stderr)
    res = evaluate(store, questions, args.modes.split(","))
    text = table(res, len(questions), timing, model)
    print(text)
    if args.write:
        write_section(text)
    if tmp:
        import shutil

        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
