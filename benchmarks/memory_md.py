"""MEMORY.md rebuild (issue 21): the tree walk that parses every memory file against the
catalog's rows, on the same store in the same run.

    .venv/bin/python benchmarks/memory_md.py [--sizes 10000,100000] [--reps 5]

Per size: a fresh store (fake embedder, fsync off) with N imported memories, the
catalog built once (untimed), then `decisions.apply` of one keep decision (the
MEMORY.md rebuild of `dream --apply`) timed --reps times with the catalog and --reps
times without it (GITMEM_CATALOG=0, a Store of its own, its parse cache cold on each
rep: a new Store per rep, as a CLI process is), alternating. The two MEMORY.md are
checked byte-identical. Prints median ms and the ratio.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

os.environ["GITMEM_FSYNC"] = "0"
os.environ["GITMEM_EMBED_MODEL"] = "fake-64"

import gitmem  # noqa: E402
from gitmem.lifecycle import decisions  # noqa: E402
from scale import texts  # noqa: E402


def rebuild(home: Path, catalog: bool, doc: list) -> tuple[float, bytes]:
    if catalog:
        os.environ.pop("GITMEM_CATALOG", None)
    else:
        os.environ["GITMEM_CATALOG"] = "0"
    try:
        svc = gitmem.open(home).memories
        tip = svc.git.tip("main")
        found = decisions.check(svc, "main", tip, doc)
        t = time.perf_counter()
        md = decisions.apply(svc, "main", tip, doc, found)[0]["MEMORY.md"]
        return time.perf_counter() - t, md
    finally:
        os.environ.pop("GITMEM_CATALOG", None)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="10000,100000")
    ap.add_argument("--reps", type=int, default=5)
    args = ap.parse_args()
    print("| memories | tree walk (GITMEM_CATALOG=0) ms | catalog ms | walk / catalog |")
    print("|---:|---:|---:|---:|")
    for n in [int(x) for x in args.sizes.split(",")]:
        tmp = Path(tempfile.mkdtemp(prefix="gm-mdmd-"))
        try:
            s = gitmem.init(tmp / "home")
            s.import_items([{"text": x, "type": "fact", "importance": 1 + i % 9} for i, x in enumerate(texts(n))])
            s.status()  # builds the catalog once
            doc = [{"keep": [s.list(limit=1)[0].id]}]
            walk, cat = [], []
            for _ in range(args.reps):
                tw, mw = rebuild(tmp / "home", False, doc)
                tc, mc = rebuild(tmp / "home", True, doc)
                assert mw == mc, "MEMORY.md differs with and without the catalog"
                walk.append(tw * 1000)
                cat.append(tc * 1000)
            w, c = statistics.median(walk), statistics.median(cat)
            print(f"| {n:,} | {w:.0f} | {c:.0f} | {w / c:.1f}x |", flush=True)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
