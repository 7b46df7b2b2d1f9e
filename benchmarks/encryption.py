"""Encryption on vs off, side by side in one run (issue 10).

Two stores made in the same process run, one plain and one `init --encrypt`, with the
fake embedder (no model load) and GITMEM_FSYNC as given. Rounds alternate which store
goes first so machine drift hits both. Per round and store:

- writes: a timed loop of --n `Store.remember` calls (each one commit; the encrypted
  one also seals the blob and message, makes a data key and writes the keyring);
- recall: --queries `Store.recall(q, k=10)` calls after the writes (the index is local
  plaintext in both: the target is "unchanged");
- bulk: one `import_items` of --bulk memories (one commit).

    .venv/bin/python benchmarks/encryption.py [--rounds 3] [--n 300] [--queries 200] [--bulk 2000] [--write]

Prints a markdown table: writes/s, recall p50/p95 ms and bulk import s for both, and
the ratio encrypted/plain (targets: writes within 1.3x, recall unchanged). `--write`
puts the table into BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _report import pct, write_section  # noqa: E402

WORDS = ("alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november "
         "oscar papa quebec romeo sierra tango uniform victor whiskey xray yankee zulu python rust "
         "deploy thursday database cache latency budget review parser schema index vector").split()


def text(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n))


def one(kind: str, base: Path, args, rng: random.Random) -> dict[str, float]:
    import gitmem

    home = base / f"{kind}-{rng.random():.6f}"
    s = gitmem.init(home, encrypt=(kind == "encrypted"))
    t0 = time.perf_counter()
    for i in range(args.n):
        s.remember(f"memory {i}: {text(rng, 18)}", type="fact")
    writes = args.n / (time.perf_counter() - t0)
    s.recall("warm up", k=10)
    lat = []
    for _ in range(args.queries):
        q = text(rng, 3)
        t = time.perf_counter()
        s.recall(q, k=10)
        lat.append((time.perf_counter() - t) * 1000)
    t = time.perf_counter()
    s.import_items([{"text": f"bulk {i}: {text(rng, 18)}", "type": "fact"} for i in range(args.bulk)])
    bulk = time.perf_counter() - t
    s.git.gc_auto(wait=True)
    return {"writes": writes, "p50": pct(lat, 50), "p95": pct(lat, 95), "bulk": bulk}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--n", type=int, default=300)
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--bulk", type=int, default=2000)
    ap.add_argument("--write", action="store_true")
    args = ap.parse_args()
    os.environ.setdefault("GITMEM_EMBED_MODEL", "fake-64")
    os.environ.setdefault("GITMEM_FSYNC", "1")
    os.environ.pop("GITMEM_TEST_CODEC", None)
    rng = random.Random(7)
    res: dict[str, list[dict[str, float]]] = {"plain": [], "encrypted": []}
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(args.rounds):
            order = ["plain", "encrypted"] if r % 2 == 0 else ["encrypted", "plain"]
            for kind in order:
                out = one(kind, Path(tmp), args, rng)
                res[kind].append(out)
                print(f"round {r + 1} {kind:<9} {out['writes']:7.1f} writes/s  recall p50 {out['p50']:6.2f} ms "
                      f"p95 {out['p95']:6.2f} ms  bulk {out['bulk']:5.2f} s", flush=True)

    def med(kind: str, key: str) -> float:
        return statistics.median(x[key] for x in res[kind])

    rows = [("remember (writes/s, higher is better)", "writes", "{:.1f}"),
            ("recall p50 (ms)", "p50", "{:.2f}"), ("recall p95 (ms)", "p95", "{:.2f}"),
            (f"import of {args.bulk} in one commit (s)", "bulk", "{:.2f}")]
    lines = [f"{args.rounds} rounds (alternating order), {args.n} remembers, {args.queries} recalls (k=10), "
             f"fake embedder, fsync {os.environ['GITMEM_FSYNC']}; medians over rounds.\n",
             "| measure | plain | encrypted | encrypted / plain |", "|---|---:|---:|---:|"]
    for label, key, fmt in rows:
        p, e = med("plain", key), med("encrypted", key)
        ratio = (p / e) if key == "writes" else (e / p)
        lines.append(f"| {label} | {fmt.format(p)} | {fmt.format(e)} | {ratio:.2f}x |")
    lines.append("\n(the ratio column is the encrypted store's cost: time encrypted / time plain, so 1.00x "
                 "means no cost; target <= 1.3x for writes, ~1.0x for recall)")
    table = "\n".join(lines) + "\n"
    print()
    print(table)
    if args.write:
        write_section("<!-- encryption:begin -->", "<!-- encryption:end -->", table,
                      "Encryption on vs off (issue 10)")


if __name__ == "__main__":
    main()
