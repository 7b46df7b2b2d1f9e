"""Scale figures for issue 12 (part 1's benchmark list), each against a reference
measured in the same run:

- bulk import of N memories, split into git (one `import_items` commit), tokenising +
  index writes, and embedding; the embedding part against fastembed's raw throughput
  on the same texts (`TextEmbedding.embed`, same model, same batch size): target <= 1.3x;
- repository bytes per memory after `git gc` against the raw text bytes: target <= 1.5x;
- index bytes per memory;
- API recall p50/p95 (k=10) against a numpy brute-force cosine scan of the same vectors
  and `rank_bm25` (BM25Okapi over the same texts, top 10 by argpartition).

Texts are synthetic notes (a fixed vocabulary of English words, 8-40 words each, Zipf
weighted). The real model (../shared/models, all-MiniLM-L6-v2 int8) embeds sizes up to
--model-max (default 10k: 100k texts take ~10 min on 2 cores); larger sizes use the
fake 384-dim embedder for index and recall and report the embedding row as "-".

    .venv/bin/pip install rank_bm25      # the BM25 reference (benchmark only)
    .venv/bin/python benchmarks/scale.py --sizes 1000,10000,100000 [--model-max 10000] [--write]

`--growth` (issue 21 item 4) adds, per size, what a store of that size costs after the
bulk load: the catalog's first build (the first `status`), a warm `status`, `context`
and `list -n 50`, one `remember` and the index catch-up after it (the cost of a change),
a recall right after that write, and the child's peak RSS; `--no-refs` skips the
numpy/rank_bm25 references (slow and memory-hungry at 300k), `--write-growth` puts the
table in BENCHMARKS.md:

    nice -n 10 .venv/bin/python benchmarks/scale.py --sizes 10000,100000,300000 --model-max 0 \
        --growth --no-refs --write-growth
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _report import pct, write_section  # noqa: E402

MODEL_PATH = ROOT.parent / "shared" / "models" / "all-MiniLM-L6-v2-onnx-int8"
WORDS = ("project deploy database cache latency budget review parser schema index vector python rust "
         "meeting thursday friday monday tabs spaces editor terminal shell docker kubernetes cluster "
         "invoice customer order payment refund ticket bug issue release version branch merge commit "
         "alice bob carol dave erin frank grace heidi ivan judy mallory niaj olivia peggy rupert sybil "
         "trent victor walter coffee tea lunch dinner flight hotel berlin paris tokyo lisbon oslo "
         "prefers likes hates always never usually sometimes morning evening weekend holiday garden "
         "piano guitar running cycling swimming reading writing painting cooking baking hiking").split()


def texts(n: int, seed: int = 1) -> list[str]:
    rng = np.random.default_rng(seed)
    p = 1.0 / np.arange(1, len(WORDS) + 1)
    p /= p.sum()
    out = []
    for i in range(n):
        k = int(rng.integers(8, 41))
        out.append(f"note {i}: " + " ".join(rng.choice(WORDS, k, p=p)))
    return out


def du(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def growth(s, out: dict) -> None:
    """The costs after the bulk load, through the API: which grow with the store,
    which with the change (issue 21 item 4)."""
    def timed(fn):
        t = time.perf_counter()
        fn()
        return time.perf_counter() - t
    out["status_first_s"] = timed(s.status)  # builds the catalog (once per store)
    out["rss_catalog_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    out["status_s"] = min(timed(s.status) for _ in range(3))
    out["context_s"] = min(timed(s.context) for _ in range(3))
    out["list50_s"] = min(timed(lambda: s.list(limit=50)) for _ in range(3))
    writes, catch, after = [], [], []
    for i in range(5):
        writes.append(timed(lambda i=i: s.remember(f"growth probe {i}: the deploy window moved to friday")))
        catch.append(timed(s.index_catch_up))
        s.remember(f"growth probe {i}b: lunch with carol in lisbon on monday")
        after.append(timed(lambda i=i: s.recall(f"growth probe {i}b lisbon", k=10)))
    out["remember_ms"] = pct([x * 1000 for x in writes], 50)
    out["catch_up_ms"] = pct([x * 1000 for x in catch], 50)
    out["after_write_ms"] = pct([x * 1000 for x in after], 50)
    out["after_write_worst_ms"] = max(after) * 1000


def one(n: int, real: bool, queries: int, extra: bool = False, refs: bool = True) -> dict:
    os.environ["GITMEM_FSYNC"] = "0"
    if real:
        os.environ["GITMEM_EMBED_MODEL"] = "sentence-transformers/all-MiniLM-L6-v2"
        os.environ["GITMEM_EMBED_PATH"] = str(MODEL_PATH)
    else:
        os.environ["GITMEM_EMBED_MODEL"] = "fake-384"
        os.environ.pop("GITMEM_EMBED_PATH", None)
    import gitmem
    from gitmem.index import embed as embed_mod

    corpus = texts(n)
    raw_bytes = sum(len(t.encode()) for t in corpus)
    tmp = Path(tempfile.mkdtemp(prefix="gm-scale-"))
    out: dict = {"n": n, "model": "MiniLM (real)" if real else "fake-384"}
    try:
        s = gitmem.init(tmp / "home")
        t = time.perf_counter()
        s.import_items([{"text": x, "type": "fact"} for x in corpus])
        out["git_s"] = time.perf_counter() - t
        out["rss_import_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        # Index build, with the time spent inside the embedder counted apart.
        spent = {"embed": 0.0}
        cls = embed_mod.FastEmbedder if real else embed_mod.FakeEmbedder
        orig = cls.embed

        def timed(self, xs, _orig=orig):
            t0 = time.perf_counter()
            try:
                return _orig(self, xs)
            finally:
                spent["embed"] += time.perf_counter() - t0
        cls.embed = timed
        try:
            t = time.perf_counter()
            s.reindex()
            total = time.perf_counter() - t
        finally:
            cls.embed = orig
        out["embed_s"] = spent["embed"]
        out["tokenise_s"] = total - spent["embed"]
        out["rss_index_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        if real:
            from fastembed import TextEmbedding  # noqa: F401 - the raw reference
            emb = s.recaller.embedder()
            model = emb._model  # the very TextEmbedding gitmem loaded: same threads, same files
            t = time.perf_counter()
            list(model.embed(corpus, batch_size=64))
            out["raw_embed_s"] = time.perf_counter() - t
        # Bytes.
        s.git.gc_auto(wait=True)
        subprocess.run(["git", "--git-dir", str(s.git.path), "gc", "-q"], check=True)
        out["repo_per_mem"] = du(s.git.path / "objects") / n
        out["raw_per_mem"] = raw_bytes / n
        out["index_per_mem"] = sum(p.stat().st_size for p in (tmp / "home").glob("index.duckdb*")) / n
        # Recall against references on the same data.
        rng = np.random.default_rng(7)
        qs = [" ".join(rng.choice(WORDS, int(rng.integers(2, 5)))) for _ in range(queries)]
        s.recall("warm up", k=10)
        lat = []
        for q in qs:
            t = time.perf_counter()
            s.recall(q, k=10)
            lat.append((time.perf_counter() - t) * 1000)
        out["recall_p50"], out["recall_p95"] = pct(lat, 50), pct(lat, 95)
        if extra:
            growth(s, out)
        out["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        if not refs:
            return out
        emb = s.recaller.embedder()
        mat = emb.embed(corpus) if not real else np.asarray(list(emb._model.embed(corpus, batch_size=64)),
                                                             dtype=np.float32)
        mat /= np.linalg.norm(mat, axis=1, keepdims=True) + 1e-9
        qv = emb.embed(qs)
        lat = []
        for i in range(len(qs)):
            t = time.perf_counter()
            sims = mat @ qv[i]
            np.argpartition(-sims, 10)[:10]
            lat.append((time.perf_counter() - t) * 1000)
        out["numpy_p50"], out["numpy_p95"] = pct(lat, 50), pct(lat, 95)
        from rank_bm25 import BM25Okapi
        tok = [x.lower().split() for x in corpus]
        bm = BM25Okapi(tok)
        lat = []
        for q in qs:
            t = time.perf_counter()
            sc = bm.get_scores(q.lower().split())
            np.argpartition(-sc, 10)[:10]
            lat.append((time.perf_counter() - t) * 1000)
        out["bm25_p50"], out["bm25_p95"] = pct(lat, 50), pct(lat, 95)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="1000,10000")
    ap.add_argument("--model-max", type=int, default=10000)
    ap.add_argument("--queries", type=int, default=100)
    ap.add_argument("--write", action="store_true")
    ap.add_argument("--growth", action="store_true", help="also the costs after the load (issue 21)")
    ap.add_argument("--no-refs", action="store_true", help="skip the numpy and rank_bm25 references")
    ap.add_argument("--write-growth", action="store_true")
    args = ap.parse_args()
    rows = []
    for n in [int(x) for x in args.sizes.split(",")]:
        real = n <= args.model_max and MODEL_PATH.is_dir()
        # Each size in its own process: the embedder choice is read once per process.
        res = subprocess.run([sys.executable, __file__, "--child", str(n), "--real" if real else "--fake",
                              "--q", str(args.queries), "--growth" if args.growth else "-",
                              "--no-refs" if args.no_refs else "-"], capture_output=True, text=True)
        if res.returncode != 0:
            sys.exit(res.stderr)
        row = eval(res.stdout.strip().splitlines()[-1])  # noqa: S307 - our own child's repr
        rows.append(row)
        print(row, flush=True)
    if args.growth:
        table = growth_table(rows)
        print(table)
        if args.write_growth:
            write_section("<!-- growth:begin -->", "<!-- growth:end -->", table, "Growth (issue 21)")
    if args.no_refs:
        return
    lines = ["| memories | embedder | import (git) s | tokenise + index s | embed s | raw fastembed s | "
             "embed / raw | repo B/mem | raw text B/mem | repo / raw | index B/mem | recall p50/p95 ms | "
             "numpy p50/p95 ms | rank_bm25 p50/p95 ms |", "|" + "---:|" * 14]
    for r in rows:
        raw = r.get("raw_embed_s")
        lines.append(
            f"| {r['n']:,} | {r['model']} | {r['git_s']:.2f} | {r['tokenise_s']:.2f} | "
            f"{r['embed_s']:.2f} | {raw:.2f} | {r['embed_s'] / raw:.2f}x | " if raw else
            f"| {r['n']:,} | {r['model']} | {r['git_s']:.2f} | {r['tokenise_s']:.2f} | {r['embed_s']:.2f} | - | - | ")
        lines[-1] += (f"{r['repo_per_mem']:.0f} | {r['raw_per_mem']:.0f} | {r['repo_per_mem'] / r['raw_per_mem']:.2f}x | "
                      f"{r['index_per_mem']:.0f} | {r['recall_p50']:.1f}/{r['recall_p95']:.1f} | "
                      f"{r['numpy_p50']:.2f}/{r['numpy_p95']:.2f} | {r['bm25_p50']:.1f}/{r['bm25_p95']:.1f} |")
    table = "\n".join(lines) + "\n"
    print(table)
    if args.write:
        write_section("<!-- scale:begin -->", "<!-- scale:end -->", table, "Scale: import, bytes, recall (issue 12)")


def growth_table(rows: list[dict]) -> str:
    lines = ["| memories | import (git) s | index build s | recall p50/p95 ms | first status (catalog build) s | "
             "status ms | context ms | list -n 50 ms | remember ms | index catch-up after it ms | "
             "recall right after a write p50/worst ms | peak RSS MB (after import / index / catalog / all) |",
             "|" + "---:|" * 12]
    for r in rows:
        lines.append(f"| {r['n']:,} | {r['git_s']:.1f} | {r['tokenise_s'] + r['embed_s']:.1f} | "
                     f"{r['recall_p50']:.0f}/{r['recall_p95']:.0f} | {r['status_first_s']:.1f} | "
                     f"{r['status_s'] * 1000:.0f} | {r['context_s'] * 1000:.0f} | {r['list50_s'] * 1000:.0f} | "
                     f"{r['remember_ms']:.0f} | {r['catch_up_ms']:.0f} | "
                     f"{r['after_write_ms']:.0f}/{r['after_write_worst_ms']:.0f} | "
                     f"{r['rss_import_mb']:.0f} / {r['rss_index_mb']:.0f} / {r['rss_catalog_mb']:.0f} / "
                     f"{r['peak_rss_mb']:.0f} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        n = int(sys.argv[2])
        print(repr(one(n, sys.argv[3] == "--real", int(sys.argv[5]), extra=sys.argv[6] == "--growth",
                       refs=sys.argv[7] != "--no-refs")))
    else:
        main()
