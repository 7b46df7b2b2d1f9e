"""Remote watch latency: a commit pushed by one home, seen by `watch --remote` on another.

Home A and home B share a bare remote. A real `gitmem watch --remote origin --json
--interval I` process runs on B. This process remembers a memory on A and runs
`A.sync()` (the push); the latency is the time from the sync's return (the commit is on
the remote) to the moment B's watcher prints the event. Each write starts at a random
phase of the poll cycle. The promise (issue 9): within two intervals.

    python benchmarks/watch_remote.py [--intervals 0.5,1.0,2.0] [--n 15]
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import gitmem  # noqa: E402
from _report import pct, start_watcher  # noqa: E402


def measure(root: Path, interval: float, n: int) -> list[float]:
    remote = root / f"remote-{interval}.git"
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(remote)], check=True)
    a = gitmem.init(root / f"a-{interval}")
    b = gitmem.init(root / f"b-{interval}")
    for s in (a, b):
        s.remote_add("origin", str(remote))
    a.remember("seed")
    a.sync()
    b.sync()
    env = dict(os.environ, GITMEM_HOME=str(b.home))
    proc, seen, cond = start_watcher(["--remote", "origin", "--interval", str(interval)], env)
    out: list[float] = []
    try:
        time.sleep(interval * 2)  # the watcher has fetched once and taken its starting tips
        for i in range(n):
            time.sleep(random.uniform(0, interval))
            m = a.remember(f"note {i} at {interval}")
            a.sync()
            pushed = time.time()
            with cond:
                ok = cond.wait_for(lambda: m.commit in seen, timeout=interval * 4 + 10)
            if not ok:
                raise SystemExit(f"watch --remote never reported {m.commit[:10]}")
            out.append(seen[m.commit] - pushed)
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--intervals", default="0.5,1.0,2.0")
    ap.add_argument("--n", type=int, default=15)
    args = ap.parse_args()
    os.environ.setdefault("GITMEM_EMBED_MODEL", "fake-64")
    root = Path(tempfile.mkdtemp(prefix="gitmem-watch-remote-"))
    try:
        print("| interval (s) | writes | p50 (s) | p95 (s) | max (s) | max ÷ interval | within 2 intervals |")
        print("|---|---|---|---|---|---|---|")
        for interval in [float(x) for x in args.intervals.split(",")]:
            lat = measure(root, interval, args.n)
            within = sum(1 for x in lat if x <= 2 * interval)
            print(f"| {interval:g} | {len(lat)} | {statistics.median(lat):.3f} | {pct(lat, 95):.3f} | "
                  f"{max(lat):.3f} | {max(lat) / interval:.2f} | {within}/{len(lat)} |")
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
