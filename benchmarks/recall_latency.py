"""Recall latency through the public API at 10k and 100k memories, against a
brute-force numpy scan of the same query vectors in the same run.

Memories are synthetic (Zipf-distributed words from a fixed vocabulary, 8-40 words),
all in one scope so every query searches all of them. Vectors come from the fake
embedder at 384 dimensions (`fake-384`: the shape of all-MiniLM-L6-v2), because
embedding 100k texts with the real model takes ~10 minutes on 2 cores; the real
model's per-query embedding time is measured separately and reported beside it.

    .venv/bin/python benchmarks/recall_latency.py --sizes 10000,100000 --write
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import gitmem  # noqa: E402

MODEL_PATH = ROOT.parent / "shared" / "models" / "all-MiniLM-L6-v2-onnx-int8"
BEGIN, END = "<!-- recall-latency:begin -->", "<!-- recall-latency:end -->"


def vocabulary(n: int, rng: np.random.Generator) -> list[str]:
    letters = np.array(list("abcdefghijklmnopqrstuvwxyz"))
    words = set()
    while len(words) < n:
        k = int(rng.integers(3, 10))
        words.add("".join(rng.choice(letters, k)))
    return sorted(words)


def corpus(n: int, seed: int = 1, sessions: bool = False) -> tuple[list[dict], list[str]]:
    """`sessions`: every 20 memories share a stated `created` (an imported session), so
    recall's neighbour sharing has sessions to walk."""
    rng = np.random.default_rng(seed)
    vocab = vocabulary(30000, rng)
    ranks = np.arange(1, len(vocab) + 1)
    p = 1.0 / ranks ** 1.07
    p /= p.sum()
    items, texts = [], []
    for i in range(n):
        k = int(rng.integers(8, 41))
        words = [vocab[j] for j in rng.choice(len(vocab), size=k, p=p)]
        text = " ".join(words).capitalize() + "."
        texts.append(text)
        items.append({"text": text, "type": "note", "importance": int(rng.integers(1, 11))})
        if sessions:
            start = dt.datetime(2021, 1, 1, tzinfo=dt.timezone.utc)
            items[-1]["created"] = (start + dt.timedelta(hours=i // 20)).isoformat()
    return items, texts


def queries(texts: list[str], n: int, seed: int = 2) -> list[str]:
    rng = np.random.default_rng(seed)
    out = []
    for i in rng.choice(len(texts), size=n, replace=False):
        words = texts[i].rstrip(".").lower().split()
        k = min(len(words), int(rng.integers(3, 7)))
        out.append(" ".join(rng.choice(words, size=k, replace=False)))
    return out


def pct(xs: list[float]) -> tuple[float, float]:
    return float(np.percentile(xs, 50)), float(np.percentile(xs, 95))


def run(size: int, n_queries: int, model: str, sessions: bool = False) -> dict:
    home = Path(tempfile.mkdtemp(prefix=f"gitmem-lat-{size}-"))
    try:
        items, texts = corpus(size, sessions=sessions)
        store = gitmem.init(home, overrides={"embed": {"model": model, "path": ""}})
        t = time.perf_counter()
        store.import_items(items, scope="main")
        ingest = time.perf_counter() - t
        t = time.perf_counter()
        store.index.snapshot()
        build = time.perf_counter() - t
        qs = queries(texts, n_queries)
        for q in queries(texts, 5, seed=9):  # warm: model, snapshot (not the measured queries)
            store.recall(q, k=10, scopes=["main"], record=False)
        # Interleaved per query, so load from other processes hits every column alike.
        rec = store.recaller
        snap = rec.index.snapshot()
        mat = np.ascontiguousarray(snap.vectors)
        emb = rec.embedder()
        api, bm25, brute = [], [], []
        for q in qs:
            t = time.perf_counter()
            store.recall(q, k=10, scopes=["main"], record=False)
            api.append((time.perf_counter() - t) * 1000)
            t = time.perf_counter()
            store.recall(q, k=10, scopes=["main"], mode="bm25", record=False)
            bm25.append((time.perf_counter() - t) * 1000)
            # The same query as a brute-force numpy scan over the same vectors.
            t = time.perf_counter()
            qv = emb.embed([q])[0]
            sims = mat @ qv
            top = np.argpartition(-sims, 10)[:10]
            top = top[np.argsort(-sims[top])]
            brute.append((time.perf_counter() - t) * 1000)
        parts = {"bm25": bm25}
        return {"size": size, "ingest_s": ingest, "index_s": build, "api": pct(api),
                "bm25": pct(parts["bm25"]), "numpy": pct(brute), "queries": len(qs),
                "load": os.getloadavg()[0]}
    finally:
        shutil.rmtree(home, ignore_errors=True)


def real_query_embedding(n: int = 100) -> tuple[float, float] | None:
    if not MODEL_PATH.is_dir():
        return None
    from gitmem.core.config import load_config
    from gitmem.index.embed import load_embedder

    home = tempfile.mkdtemp(prefix="gitmem-lat-m-")
    cfg = load_config(home, env={},
                      overrides={"embed": {"model": "sentence-transformers/all-MiniLM-L6-v2", "path": str(MODEL_PATH)}})
    emb, _ = load_embedder(cfg)
    shutil.rmtree(home, ignore_errors=True)
    if emb is None:
        return None
    _, texts = corpus(n, seed=3)
    qs = queries(texts, n)
    emb.embed(qs[:2])
    xs = []
    for q in qs:
        t = time.perf_counter()
        emb.embed([q])
        xs.append((time.perf_counter() - t) * 1000)
    return pct(xs)


def table(rows: list[dict], real: tuple[float, float] | None, model: str) -> str:
    lines = [f"Synthetic memories in one scope, k=10, {rows[0]['queries']} queries per size, embedder `{model}` "
             "(384-d vectors); warm `Store` (the API), 2 shared cores.", "",
             "| memories | load avg | ingest s | index build s | recall hybrid p50 / p95 ms | recall bm25 p50 / p95 ms "
             "| numpy brute force p50 / p95 ms | target p95 |",
             "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        target = "50" if r["size"] <= 10000 else "150"
        lines.append(f"| {r['size']:,} | {r['load']:.1f} | {r['ingest_s']:.1f} | {r['index_s']:.1f} | {r['api'][0]:.1f} / {r['api'][1]:.1f} "
                     f"| {r['bm25'][0]:.1f} / {r['bm25'][1]:.1f} | {r['numpy'][0]:.2f} / {r['numpy'][1]:.2f} | {target} |")
    if real:
        lines += ["", f"Real model (all-MiniLM-L6-v2 int8) query embedding, to add to the hybrid rows: "
                      f"p50 {real[0]:.1f} ms, p95 {real[1]:.1f} ms."]
    return "\n".join(lines) + "\n"


def write_section(text: str) -> None:
    from _report import write_section as write

    write(BEGIN, END, text, "Recall: latency")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="10000,100000")
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--model", default="fake-384")
    ap.add_argument("--write", action="store_true")
    ap.add_argument("--sessions", action="store_true",
                    help="Memories in dated sessions of 20 (neighbour sharing has work to do).")
    args = ap.parse_args(argv)
    os.environ.setdefault("GITMEM_FSYNC", "0")
    rows = []
    for size in (int(s) for s in args.sizes.split(",")):
        r = run(size, args.queries, args.model, args.sessions)
        print(r, file=sys.stderr)
        rows.append(r)
    real = real_query_embedding()
    text = table(rows, real, args.model)
    print(text)
    if args.write:
        write_section(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
