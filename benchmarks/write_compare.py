"""API write throughput, old tree vs new tree, side by side in one run (issue 8).

Compares `Store.remember` writes per second of two source trees of gitmem: the "old"
one (a worktree of an earlier commit) and the "new" one (the tree this script lives in).
Each measurement is its own subprocess that imports `gitmem` from exactly one tree
(cwd outside both trees, `PYTHONPATH=<tree>`; the child checks `gitmem.__file__` and every
loaded `gitmem.*` module and fails if one comes from elsewhere), with a fresh temporary
GITMEM_HOME and `GITMEM_EMBED_MODEL=fake-64` (no model loads). Rounds alternate which
tree goes first (old/new, then new/old, ...) so drift in machine load hits both sides.

One child: `gitmem.init(home)`, optionally `import_items` of --prefill memories (2000 per
commit, untimed), then `gitmem.open(home)` and a timed loop of --n `remember(text,
type="fact")`. After the loop it waits (untimed) for any background repack / gc the
writes started, so it cannot spill into the next child. Cases: fsync on and off
(GITMEM_FSYNC), empty store and prefilled store.

    git -C /work/main worktree add /tmp/gitmem-old 5d58b20
    .venv/bin/python benchmarks/write_compare.py [--old /tmp/gitmem-old] [--rounds 5] \\
        [--n 300] [--prefill 2000] [--fsync on,off] [--profile]

Prints every child's writes/s as it goes, then one markdown table per case with the
per-round writes/s of both trees and the median of the per-round ratios new/old (the
acceptance bar of issue 8 is >= 0.9). `--prefill 0` skips the prefilled case.
`--profile` also runs one extra child per tree under cProfile (fsync on, empty store)
and prints its top functions by cumulative time.
"""

from __future__ import annotations

import argparse
import fcntl
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve()
NEW_ROOT = HERE.parent.parent


# ---- child: runs inside one tree's gitmem --------------------------------------------
def child(args: argparse.Namespace) -> None:
    tree = Path(args.tree).resolve()
    import gitmem

    # The intended tree, and nothing from another one (e.g. the editable install).
    pkg = Path(gitmem.__file__).resolve()
    if pkg != tree / "gitmem" / "__init__.py":
        sys.exit(f"wrong gitmem: imported {pkg}, wanted {tree / 'gitmem'}")

    home = Path(os.environ["GITMEM_HOME"])
    t0 = time.perf_counter()
    s = gitmem.init(home)
    for start in range(0, args.prefill, 2000):
        s.import_items({"text": f"prefill memory {i} about topic {i % 97}", "type": "fact"}
                       for i in range(start, min(args.prefill, start + 2000)))
    setup_s = time.perf_counter() - t0
    del s
    texts = [f"api memory {i}: the user prefers option {i % 13} for task {i}" for i in range(args.n)]

    s = gitmem.open(home)
    prof = None
    if args.profile_out:
        import cProfile
        prof = cProfile.Profile()
        prof.enable()
    c0, t0 = time.process_time(), time.perf_counter()
    ids = [s.remember(text, type="fact").id for text in texts]
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    if prof is not None:
        prof.disable()
        prof.dump_stats(args.profile_out)
    if len(set(ids)) != args.n:
        sys.exit(f"expected {args.n} distinct memories, got {len(set(ids))}")

    stray = sorted({m.__file__ for name, m in list(sys.modules.items())
                    if (name == "gitmem" or name.startswith("gitmem.")) and getattr(m, "__file__", None)
                    and name not in ("gitmem.templates", "gitmem.hooks")  # data packages, unchanged
                    and not Path(m.__file__).resolve().is_relative_to(tree)})
    if stray:
        sys.exit(f"modules from outside {tree}: {stray}")

    # Untimed: let background maintenance the writes started finish (same locks it runs under).
    locks = home / "state" / "locks"
    for name in ("repack.lock", "gc.lock"):
        p = locks / name
        if p.exists():
            with open(p, "a") as f:
                fcntl.flock(f, fcntl.LOCK_EX)
    print(json.dumps({"file": str(pkg), "wps": args.n / wall, "cpu_ms": 1000 * cpu / args.n,
                      "setup_s": setup_s}))


# ---- parent ----------------------------------------------------------------------------
def run_child(tree: Path, n: int, prefill: int, fsync: bool, tmp: Path, tag: str,
              profile_out: Path | None = None) -> dict:
    home = tmp / f"home-{tag}"
    work = tmp / f"cwd-{tag}"
    work.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITMEM_", "GIT_"))}
    env.update(PYTHONPATH=str(tree), GITMEM_HOME=str(home), GITMEM_EMBED_MODEL="fake-64",
               GITMEM_FSYNC="1" if fsync else "0", GITMEM_NAME="bench", GITMEM_EMAIL="bench@example.com")
    cmd = [sys.executable, str(HERE), "--child", "--tree", str(tree), "--n", str(n), "--prefill", str(prefill)]
    if profile_out:
        cmd += ["--profile-out", str(profile_out)]
    res = subprocess.run(cmd, cwd=work, env=env, capture_output=True, text=True)
    shutil.rmtree(home, ignore_errors=True)
    if res.returncode != 0:
        sys.exit(f"child failed ({tree}): {res.stderr.strip()[-2000:]}")
    out = json.loads(res.stdout.strip().splitlines()[-1])
    if not Path(out["file"]).is_relative_to(tree):
        sys.exit(f"child imported {out['file']}, not from {tree}")
    return out


def loadavg() -> str:
    return "%.2f %.2f %.2f" % os.getloadavg()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--old", default="/tmp/gitmem-old", help="old source tree (a worktree of the old commit)")
    ap.add_argument("--new", default=str(NEW_ROOT), help="new source tree (default: this checkout)")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--n", type=int, default=300, help="timed remembers per child")
    ap.add_argument("--prefill", type=int, default=2000, help="memories imported before timing in the "
                    "prefilled case (0: empty store only)")
    ap.add_argument("--fsync", default="on,off", help="comma list of on/off")
    ap.add_argument("--profile", action="store_true", help="also profile one child per tree (fsync on, empty)")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--tree", help=argparse.SUPPRESS)
    ap.add_argument("--profile-out", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        return child(args)

    trees = {"old": Path(args.old).resolve(), "new": Path(args.new).resolve()}
    for label, tree in trees.items():
        if not (tree / "gitmem" / "__init__.py").is_file():
            sys.exit(f"--{label} {tree}: no gitmem package there")
    if trees["old"] == trees["new"]:
        sys.exit("--old and --new are the same tree")
    for label, tree in trees.items():
        head = subprocess.run(["git", "-C", str(tree), "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(tree), "status", "--porcelain", "--", "gitmem"],
                               capture_output=True, text=True).stdout.strip()
        print(f"{label}: {tree} @ {head or '?'}{' (gitmem/ modified)' if dirty else ''}")
    cases = [(f, p) for f in [x.strip() == "on" for x in args.fsync.split(",")]
             for p in ([0, args.prefill] if args.prefill else [0])]
    print(f"rounds {args.rounds}, n {args.n}, cases {len(cases)}; load average at start {loadavg()}", flush=True)

    tmp = Path(tempfile.mkdtemp(prefix="gitmem-wcmp-"))
    results: dict[tuple[bool, int], dict[str, list[dict]]] = {c: {"old": [], "new": []} for c in cases}
    t_start = time.perf_counter()
    try:
        k = 0
        for r in range(args.rounds):
            for case in cases:
                fsync, prefill = case
                order = ("old", "new") if (r + cases.index(case)) % 2 == 0 else ("new", "old")
                for label in order:
                    k += 1
                    out = run_child(trees[label], args.n, prefill, fsync, tmp, f"{k}")
                    results[case][label].append(out)
                o, nw = results[case]["old"][-1], results[case]["new"][-1]
                print(f"round {r + 1} fsync {'on ' if fsync else 'off'} prefill {prefill:>5}: "
                      f"old {o['wps']:7.1f}/s  new {nw['wps']:7.1f}/s  new/old {nw['wps'] / o['wps']:.3f}  "
                      f"(cpu ms/write old {o['cpu_ms']:.2f} new {nw['cpu_ms']:.2f}; first {order[0]}; "
                      f"load {os.getloadavg()[0]:.2f})", flush=True)

        if args.profile:
            import pstats
            for label in ("old", "new"):
                k += 1
                prof = tmp / f"{label}.prof"
                out = run_child(trees[label], args.n, 0, True, tmp, f"{k}", profile_out=prof)
                print(f"\n## cProfile, {label} tree, fsync on, empty store, {args.n} remembers "
                      f"({out['wps']:.1f}/s under the profiler); top 15 by cumulative time")
                pstats.Stats(str(prof)).sort_stats("cumulative").print_stats(15)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    print(f"\nload average at end {loadavg()}; {time.perf_counter() - t_start:.0f} s in all\n")
    print("| fsync | store | round | old writes/s | new writes/s | new ÷ old | old / new CPU ms a write |")
    print("|---|---|---|---|---|---|---|")
    summary = []
    for case in cases:
        fsync, prefill = case
        store = f"{prefill:,} prefilled" if prefill else "empty"
        olds, news = results[case]["old"], results[case]["new"]
        ratios = [nw["wps"] / o["wps"] for o, nw in zip(olds, news)]
        for i, (o, nw, ratio) in enumerate(zip(olds, news, ratios)):
            print(f"| {'on' if fsync else 'off'} | {store} | {i + 1} | {o['wps']:.1f} | {nw['wps']:.1f} | "
                  f"{ratio:.3f} | {o['cpu_ms']:.2f} / {nw['cpu_ms']:.2f} |")
        med = statistics.median(ratios)
        print(f"| {'on' if fsync else 'off'} | {store} | **median** | "
              f"**{statistics.median(o['wps'] for o in olds):.1f}** | **{statistics.median(n['wps'] for n in news):.1f}** | "
              f"**{med:.3f}** | {statistics.median(o['cpu_ms'] for o in olds):.2f} / "
              f"{statistics.median(n['cpu_ms'] for n in news):.2f} |")
        summary.append((fsync, store, med, min(ratios), max(ratios)))
    print()
    for fsync, store, med, lo, hi in summary:
        verdict = "within 10 %" if med >= 0.9 else "SLOWER than 0.9x"
        print(f"fsync {'on ' if fsync else 'off'}, {store}: median new/old {med:.3f} "
              f"(rounds {lo:.3f}-{hi:.3f}) {verdict}")


if __name__ == "__main__":
    main()
