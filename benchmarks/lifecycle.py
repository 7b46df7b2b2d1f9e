"""Lifecycle cost: forget (history rewrite + prune) and dream (plan, commit, undream).

A store of N memories written as C import commits (so a forget rewrites about C/2
commits); texts are random 12-word bags over 16 words, which makes near duplicates
common (a worst case for dream's pair checks). Embeddings: the fake test embedder
unless GITMEM_EMBED_MODEL says otherwise.

    python benchmarks/lifecycle.py [--n 10000] [--commits 1000] [--fsync] [--warm]
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

WORDS = ("alpha beta gamma delta deploy window tuesday office ruff lint coffee backup nightly "
         "tokens cache retry").split()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=10000)
    ap.add_argument("--commits", type=int, default=1000)
    ap.add_argument("--fsync", action="store_true")
    ap.add_argument("--warm", action="store_true", help="build the recall index first (dream reuses its vectors)")
    args = ap.parse_args()
    os.environ.setdefault("GITMEM_EMBED_MODEL", "fake-64")
    os.environ["GITMEM_FSYNC"] = "1" if args.fsync else "0"
    import gitmem

    rnd = random.Random(1)
    with tempfile.TemporaryDirectory() as tmp:
        s = gitmem.init(tmp)
        per = max(1, args.n // args.commits)
        ids: list[str] = []
        t0 = time.perf_counter()
        for c in range(args.commits):
            items = [{"text": " ".join(rnd.choice(WORDS) for _ in range(12)) + f" #{c}-{i}",
                      "importance": rnd.randint(1, 9)} for i in range(per)]
            ids += s.import_items(items).created
        load = time.perf_counter() - t0
        t0 = time.perf_counter()
        out = s.forget([ids[len(ids) // 2]], reason="benchmark")
        t_forget = time.perf_counter() - t0
        later = time.time() + 30 * 86400
        if args.warm:
            t0 = time.perf_counter()
            s.recall("deploy window")
            print(f"index build: {time.perf_counter() - t0:6.2f}s  (--warm)")
        t0 = time.perf_counter()
        s.dream(dry_run=True, now=later)
        t_plan = time.perf_counter() - t0
        t0 = time.perf_counter()
        d = s.dream(force=True, now=later)["scopes"]["main"]
        t_dream = time.perf_counter() - t0
        t0 = time.perf_counter()
        s.undream()
        t_undream = time.perf_counter() - t0
        print(f"memories={len(ids)} commits={args.commits + 1} (load {load:.1f}s) embedder={d['near_model']}")
        print(f"forget:     {t_forget:6.2f}s  rewrote {out['rewritten_commits']} commits, "
              f"{out['replaced_blobs']} blobs, then reflog expire + repack + prune")
        print(f"dream plan: {t_plan:6.2f}s  (--dry-run)")
        print(f"dream:      {t_dream:6.2f}s  merged {sum(len(g['merged']) for g in d['merges'])}, "
              f"archived {len(d['archive'])}, {len(d['possible_updates'])} possible updates, one commit")
        print(f"undream:    {t_undream:6.2f}s")


if __name__ == "__main__":
    main()
