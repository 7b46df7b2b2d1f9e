"""Recall quality on LoCoMo through the public API (protocol: ../shared/data/README.md).

One memory per turn (text "<speaker>: <text>", key "<sample_id>/<dia_id>", the session
date as `created`), one scope per conversation (channel/<sample_id>); every question of
category 1-4 with evidence is searched only within its conversation. Reports
R_any@5/10, R_all@10, MRR@10, NDCG@10 and latency for BM25 only, vector only and
hybrid, with 95% bootstrap confidence intervals, plus paired bootstrap intervals of
hybrid minus each single ranking.

    .venv/bin/python benchmarks/recall_locomo.py ../shared/data/locomo-dev.json --write

The rotation protocol (issue 13), for one change at a time:

    .venv/bin/python benchmarks/recall_locomo.py --home /tmp/locomo --rotation fusion --write

evaluates every variant of the change (CHANGES below: [recall] settings) on every
question once; then for each conversation picks the variant that scores best on the
other two (R_any@10 + R_all@10 + MRR@10) and reports it on the held-out one, next to
the current settings. A change is taken only if its pick gains on every held-out fold.
`--k-stability` counts questions whose top 10 differs between k=10 and k=200.
Query vectors are cached across runs (`--cache`), the memory vectors by the index
itself in a reused `--home`.

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


# Each change is a family of [recall] settings; "current" (the defaults) is in every one.
CHANGES: dict[str, dict[str, dict]] = {
    "stable": {"current": {}},
    # Per-query adaptive fusion: each ranking scaled by its own score distribution.
    "fusion": {"current": {},
               **{f"minmax w{w}": {"norm": "minmax", "w_vector": w} for w in (0.4, 0.8, 1.0)},
               **{f"std w{w}": {"norm": "std", "w_vector": w} for w in (0.4, 0.6, 0.8, 1.0, 1.3)},
               **{f"z w{w}": {"norm": "z", "w_vector": w} for w in (0.4, 0.6, 0.8, 1.0, 1.3)},
               **{f"rrf k{k}": {"fusion": "rrf", "rrf_k": k, "w_vector": 1.0} for k in (5, 20)}},
    # Evidence beside the match: the memory next to a hit (same session / import batch).
    "neighbours": {"current": {},
                   **{f"{side} {w}": {"neighbour_weight": w, "neighbours": side}
                      for side in ("next", "both") for w in (0.2, 0.35, 0.5, 0.7, 0.9)},
                   **{f"{side} {w} top{n}": {"neighbour_weight": w, "neighbours": side, "neighbour_lenders": n}
                      for side in ("next", "both") for w in (0.35, 0.5) for n in (5, 10, 20)}},
    # BM25 scaled by what the query's words could score (its idf mass) instead of by its
    # own range: a top hit that matches one light word no longer weighs fully.
    "bm25norm": {"current": {},
                 **{f"conf{c} w{w}": {"bm25_confidence": c, "w_vector": w}
                    for c in (0.25, 0.4, 0.55, 0.7, 1.0) for w in (0.6, 0.8)}},
    # A query naming a date or period favours memories created then.
    "dates": {"current": {}, **{f"date {w}": {"date_weight": w} for w in (0.1, 0.25, 0.5, 1.0)}},
}
SELECT = ("R_any@10", "R_all@10", "MRR@10")


def set_recall(store, values: dict) -> None:
    """Swap the [recall] settings of a live store's recaller."""
    import dataclasses

    rec = store.recaller
    if not hasattr(rec, "_bench_base"):
        rec._bench_base = rec.config
    base = rec._bench_base
    data = {sec: dict(v) for sec, v in base.data.items()}
    data.setdefault("recall", {}).update(values)
    rec.config = dataclasses.replace(base, data=data)


def cache_query_vectors(store, path: Path) -> callable:
    """Memoise the recaller's query embedding in a file (returns a saver)."""
    import pickle

    rec = store.recaller
    memo: dict[str, np.ndarray] = pickle.loads(path.read_bytes()) if path.exists() else {}
    model = rec.embedder().model_id if rec.embedder() else None
    inner = rec.query_vector

    def qv(query: str):
        key = f"{model}\0{query}"
        if key not in memo:
            memo[key] = inner(query)
        return memo[key]

    rec.query_vector = qv

    def save() -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(pickle.dumps(memo))

    return save


def per_question(store, questions, k: int = 10, mode: str = "hybrid") -> dict[str, np.ndarray]:
    acc = {m: [] for m in METRICS}
    for q in questions:
        hits = store.recall(q["q"], k=k, scopes=[q["scope"]], mode=mode, record=False)
        for m, v in metrics([h.key for h in hits], q["evidence"]).items():
            acc[m].append(v)
    return {m: np.asarray(v) for m, v in acc.items()}


def _sel(vals: dict[str, np.ndarray], idx: np.ndarray) -> float:
    return float(sum(vals[m][idx].mean() for m in SELECT))


def rotation(name: str, results: dict[str, dict[str, np.ndarray]], questions) -> tuple[str, bool]:
    """The fold table of one change, and whether it is taken (gains on every fold)."""
    convs = sorted({q["scope"] for q in questions})
    conv_of = np.array([q["scope"] for q in questions])
    base = results["current"]
    lines = [f"Change `{name}`: variants {', '.join(f'`{v}`' for v in results)}. Pick = best "
             f"{' + '.join(SELECT)} on the two tuning conversations; shown on the held-out one "
             f"(current → pick).", "",
             "| held out | n | pick | " + " | ".join(SELECT) + " | Δ sum |",
             "|---|---|---|" + "---|" * (len(SELECT) + 1)]
    deltas = {m: [] for m in SELECT}
    dsum = []
    for c in convs:
        test = np.flatnonzero(conv_of == c)
        tune = np.flatnonzero(conv_of != c)
        pick = max(results, key=lambda v: (_sel(results[v], tune), v == "current"))
        r = results[pick]
        cells = []
        for m in SELECT:
            a, b = base[m][test].mean(), r[m][test].mean()
            deltas[m].append(b - a)
            cells.append(f"{a:.3f} → {b:.3f}")
        d = _sel(r, test) - _sel(base, test)
        dsum.append(d)
        lines.append(f"| {c.split('/')[-1]} | {len(test)} | `{pick}` | " + " | ".join(cells) + f" | {d:+.3f} |")
    lines.append("| **held-out mean ± sd** | | | " + " | ".join(
        f"{np.mean(deltas[m]):+.3f} ± {np.std(deltas[m]):.3f}" for m in SELECT) +
        f" | {np.mean(dsum):+.3f} ± {np.std(dsum):.3f} |")
    lines.append("| spread (min, max) | | | " + " | ".join(
        f"{min(deltas[m]):+.3f}, {max(deltas[m]):+.3f}" for m in SELECT) + f" | {min(dsum):+.3f}, {max(dsum):+.3f} |")
    allq = np.arange(len(questions))
    pick = max(results, key=lambda v: (_sel(results[v], allq), v == "current"))
    r = results[pick]
    cells = []
    for m in SELECT:
        lo, hi = bootstrap(r[m])
        dlo, dhi = bootstrap(r[m] - base[m])
        cells.append(f"{r[m].mean():.3f} [{lo:.3f}, {hi:.3f}] (Δ {r[m].mean() - base[m].mean():+.3f} "
                     f"[{dlo:+.3f}, {dhi:+.3f}])")
    lines.append(f"| all three | {len(questions)} | `{pick}` | " + " | ".join(cells) +
                 f" | {_sel(r, allq) - _sel(base, allq):+.3f} |")
    taken = all(d > 0 for d in dsum) and pick != "current"
    lines += ["", "Every variant, " + " + ".join(SELECT) + " per conversation:", "",
              "| variant | " + " | ".join(c.split("/")[-1] for c in convs) + " | all |",
              "|---|" + "---|" * (len(convs) + 1)]
    for v, r in results.items():
        lines.append(f"| `{v}` | " + " | ".join(f"{_sel(r, np.flatnonzero(conv_of == c)):.3f}" for c in convs)
                     + f" | {_sel(r, allq):.3f} |")
    lines += ["", f"All three: 95% bootstrap CIs, and of the paired difference against current. "
              f"Held-out gain on every fold: {'yes — taken' if taken else 'no — not taken'}."]
    return "\n".join(lines) + "\n", taken


def k_stability(store, questions) -> str:
    """Questions whose top 10 changes when 200 hits are asked for."""
    moved = missed = 0
    for q in questions:
        a = [h.key for h in store.recall(q["q"], k=10, scopes=[q["scope"]], record=False)]
        b = [h.key for h in store.recall(q["q"], k=200, scopes=[q["scope"]], record=False)][:10]
        moved += a != b
        missed += (not q["evidence"] & set(a)) and bool(q["evidence"] & set(b))
    return (f"k stability: {moved} of {len(questions)} questions have a different top 10 with k=200; "
            f"{missed} missed at k=10 have evidence in the top 10 of k=200.\n")


CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}


def by_category(res: dict, questions) -> str:
    """R_any@10 / R_all@10 / MRR@10 of each ranking per LoCoMo question category."""
    cat = np.array([q["category"] for q in questions])
    lines = ["| ranking | " + " | ".join(f"{CATEGORIES[c]} (n={int((cat == c).sum())})" for c in CATEGORIES) + " |",
             "|---|" + "---|" * len(CATEGORIES)]
    for mode, r in res.items():
        v = r["values"]
        lines.append(f"| {mode} | " + " | ".join(
            " / ".join(f"{v[m][cat == c].mean():.3f}" for m in SELECT) for c in CATEGORIES) + " |")
    return "R_any@10 / R_all@10 / MRR@10 per category:\n\n" + "\n".join(lines) + "\n"


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
    ap.add_argument("--rotation", choices=sorted(CHANGES), help="Run one change under the rotation protocol.")
    ap.add_argument("--k-stability", action="store_true", help="Count top 10s that move with k=200.")
    ap.add_argument("--by-category", action="store_true",
                    help="Also print R_any@10 / R_all@10 / MRR@10 per question category.")
    ap.add_argument("--cache", default=str(Path(tempfile.gettempdir()) / "gitmem-recall-cache"),
                    help="Folder for cached query vectors.")
    args = ap.parse_args(argv)
    os.environ.setdefault("GITMEM_FSYNC", "0")
    items, questions = load(args.data)
    tmp = None
    home = Path(args.home) if args.home else Path(tmp := tempfile.mkdtemp(prefix="gitmem-locomo-"))
    store, timing = build(home, items, args.model_path, parse_set(args.set))
    model = store.recaller.embedder().model_id if store.recaller.embedder() else "none"
    print(f"{len(items)} memories, {len(questions)} questions; {timing}", file=sys.stderr)
    save = cache_query_vectors(store, Path(args.cache) / "qvec.pkl")
    if args.k_stability:
        print(k_stability(store, questions))
    if args.rotation:
        results = {}
        for name, values in CHANGES[args.rotation].items():
            set_recall(store, values)
            t = time.perf_counter()
            results[name] = per_question(store, questions)
            print(f"  {name}: {time.perf_counter() - t:.1f} s, "
                  + " ".join(f"{m} {results[name][m].mean():.3f}" for m in SELECT), file=sys.stderr)
        set_recall(store, {})
        save()
        text, taken = rotation(args.rotation, results, questions)
        print(text)
        if args.write:
            from _report import write_section as write

            write(f"<!-- recall-rotation-{args.rotation}:begin -->", f"<!-- recall-rotation-{args.rotation}:end -->",
                  text, "Recall: rotation")
        return 0
    res = evaluate(store, questions, args.modes.split(","))
    save()
    text = table(res, len(questions), timing, model)
    print(text)
    if args.by_category:
        print(by_category(res, questions))
    if args.write:
        write_section(text)
    if tmp:
        import shutil

        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
