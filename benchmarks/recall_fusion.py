"""The fusion sweep behind gitmem's recall defaults, on the LoCoMo development split.

It takes the BM25 and vector candidate lists (top 100 each) once per question and
re-ranks them with each fusion under test, so a sweep costs seconds. The winner is
checked end to end through the public API by recall_locomo.py.

    .venv/bin/python benchmarks/recall_fusion.py ../shared/data/locomo-dev.json
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import recall_locomo as RL  # noqa: E402

from gitmem.recall.vectors import vector_top  # noqa: E402
from gitmem.core.tokens import tokenize  # noqa: E402


def rrf(wb: float, wv: float, k: float):
    def f(bm, vec):
        out: dict[int, float] = {}
        for r, (d, _) in enumerate(bm, 1):
            out[d] = out.get(d, 0.0) + wb / (k + r)
        for r, (d, _) in enumerate(vec, 1):
            out[d] = out.get(d, 0.0) + wv / (k + r)
        return out
    return f


def linear(wb: float, wv: float, norm: str):
    def scale(xs: np.ndarray) -> np.ndarray:
        if norm == "max":
            return xs / (xs.max() or 1.0)
        if norm == "z":
            return (xs - xs.mean()) / (xs.std() + 1e-9)
        span = xs.max() - xs.min()
        return (xs - xs.min()) / span if span > 0 else np.ones_like(xs)

    def f(bm, vec):
        out: dict[int, float] = {}
        for w, ranked in ((wb, bm), (wv, vec)):
            if ranked:
                for (d, _), x in zip(ranked, scale(np.array([s for _, s in ranked]))):
                    out[d] = out.get(d, 0.0) + w * float(x)
        return out
    return f


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("data", nargs="?", default=str(RL.ROOT.parent / "shared" / "data" / "locomo-dev.json"))
    ap.add_argument("--home", help="Store to (re)use; default a temporary one.")
    ap.add_argument("--k1", type=float, default=1.2)
    ap.add_argument("--b", type=float, default=0.5)
    args = ap.parse_args(argv)
    items, questions = RL.load(args.data)
    home = Path(args.home or tempfile.mkdtemp(prefix="gitmem-fusion-"))
    store, _ = RL.build(home, items, str(RL.DEFAULT_MODEL), {})
    rec = store.recaller
    snap = rec.index.snapshot()
    keys = {d: r["key"] for d, r in snap.rows([int(d) for d in snap.docs]).items()}
    lists = []
    for q in questions:
        bm = snap.bm25(tokenize(q["q"]), [q["scope"]], None, None, False, args.k1, args.b, 100)
        vec = vector_top(snap, rec.query_vector(q["q"]), snap.mask([q["scope"]], None, None, False), 100)
        lists.append((bm, vec, q["evidence"]))

    def score(fn) -> dict[str, float]:
        acc = {m: [] for m in RL.METRICS}
        for bm, vec, ev in lists:
            ranked = [keys[d] for d, _ in sorted(fn(bm, vec).items(), key=lambda kv: (-kv[1], kv[0]))[:10]]
            for m, v in RL.metrics(ranked, ev).items():
                acc[m].append(v)
        return {m: float(np.mean(v)) for m, v in acc.items()}

    variants = [("bm25 only", rrf(1, 0, 60)), ("vector only", rrf(0, 1, 60))]
    variants += [(f"rrf k={k} w_vector={w}", rrf(1, w, k)) for k in (5, 10, 20, 60) for w in (0.5, 1.0)]
    variants += [(f"linear {n} w_vector={w}", linear(1, w, n)) for n in ("max", "minmax", "z")
                 for w in (0.3, 0.5, 0.6, 0.7, 1.0)]
    print(f"{len(lists)} questions, BM25 k1={args.k1} b={args.b}\n")
    print("| fusion | " + " | ".join(RL.METRICS) + " |")
    print("|---|" + "---|" * len(RL.METRICS))
    for name, fn in variants:
        r = score(fn)
        print(f"| {name} | " + " | ".join(f"{r[m]:.3f}" for m in RL.METRICS) + " |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
