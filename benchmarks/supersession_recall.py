"""Recall's cost with supersessions in the store (issue 22): a superseded memory's match
carried to its successor (gitmem.recall.currency.carry) against a tree without it, in
the same run, alternating.

One store (the hashed test embedder `fake-64`, so the figures are recall's own work, not
the model's): N templated notes, S of them replaced by a later note, half by
`remember --supersedes` (the old one stays live, hidden) and half by one agent-led dream
(the old one archived). Each tree opens the same store in a process of its own, warms
up, and times Q recalls (k=10) of queries that hit replaced memories; rounds alternate
the trees.

    .venv/bin/python benchmarks/supersession_recall.py --trees /work/main,. [--n 10000 --s 1000]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

SUBJECTS = ["Alice", "Bruno", "Chen", "Dana", "Emeka", "Farah", "Goran", "Hana", "Ivo", "Jun"]
THINGS = ["the billing service", "the staging cluster", "the wiki", "the on-call rota", "the build cache",
          "the release branch", "the nightly backup", "the design review", "the office wifi", "the CI runner"]
PLACES = ["Lisbon", "Porto", "Leeds", "York", "Berlin", "Munich", "Osaka", "Quito", "Tunis", "Perth", "Oslo"]


def note(i: int) -> str:
    return (f"{SUBJECTS[i % 10]} looks after {THINGS[(i // 10) % 10]} from {PLACES[(i // 100) % 11]}, "
            f"ticket {i}")


def build(home: Path, n: int, s: int) -> None:
    sys.path.insert(0, str(ROOT))
    import gitmem

    store = gitmem.init(home)
    store.import_items([{"text": note(i), "created": "2023-01-01T00:00:00Z"} for i in range(n)])
    ids = {m.text: m.id for m in store.list()}
    step = max(1, n // max(1, s))
    olds = [ids[note(i)] for i in range(0, n, step)][:s]
    news = []
    for j, old in enumerate(olds):
        sup = [old] if j % 2 == 0 else None
        news.append(store.remember(f"Moved on: ticket {j} handed to the platform team", created="2024-06-01",
                                   supersedes=sup).id)
    decisions = [{"supersede": o, "by": b} for j, (o, b) in enumerate(zip(olds, news)) if j % 2 == 1]
    if decisions:
        store.dream_apply({"scope": "main", "decisions": decisions})
    store.recall("warm up", k=10, record=False)


def timed(home: Path, q: int) -> dict:
    import gitmem

    store = gitmem.open(home)
    queries = [f"who looks after {THINGS[i % 10]} from {PLACES[i % 11]} ticket {i * 7}" for i in range(q)]
    for x in queries[:5]:
        store.recall(x, k=10, record=False)
    t = time.perf_counter()
    for x in queries:
        store.recall(x, k=10, record=False)
    assert store.recaller.backend == "hybrid"
    return {"tree": str(Path(gitmem.__file__).parent.parent), "ms_per_recall": (time.perf_counter() - t) * 1000 / q}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--trees", default=f"/work/main,{ROOT}", help="comma-separated trees; the first is the reference")
    ap.add_argument("--n", type=int, default=10000)
    ap.add_argument("--s", type=int, default=1000)
    ap.add_argument("--q", type=int, default=100)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    os.environ.setdefault("GITMEM_FSYNC", "0")
    os.environ["GITMEM_EMBED_MODEL"] = "fake-64"
    if args.child:
        print(json.dumps(timed(Path(args.child), args.q)))
        return 0
    home = Path(tempfile.mkdtemp(prefix="gitmem-supersession-"))
    t = time.perf_counter()
    build(home, args.n, args.s)
    print(f"store: {args.n} notes, {args.s} replaced (half hidden live, half archived by dream), "
          f"built in {time.perf_counter() - t:.1f} s")
    trees = [str(Path(x).resolve()) for x in args.trees.split(",")]
    per: dict[str, list[float]] = {x: [] for x in trees}
    for _ in range(args.rounds):
        for tree in trees:
            env = dict(os.environ, PYTHONPATH=tree)
            out = subprocess.run([sys.executable, __file__, "--child", str(home), "--q", str(args.q)],
                                 env=env, capture_output=True, text=True, check=True, cwd=tree)
            per[tree].append(json.loads(out.stdout.strip().splitlines()[-1])["ms_per_recall"])
    ref = min(per[trees[0]])
    print("| tree | ms per recall (best of rounds) | all rounds | ratio to the first |")
    print("|---|---|---|---|")
    for tree in trees:
        best = min(per[tree])
        print(f"| {tree} | {best:.2f} | {', '.join(f'{v:.2f}' for v in per[tree])} | {best / ref:.2f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
