"""Load (issue 11): writers and readers of every kind against one home for a while;
no command may fail, no acknowledged write may be lost, recall must answer right
throughout.

    python benchmarks/load.py [--seconds 30] [--writers 8] [--readers 8] [--no-fsync] [--write]

Set-up, in a fresh temporary home (`GITMEM_EMBED_MODEL=fake-64`, fsync on unless
--no-fsync): 100 seed memories, each with a unique word, and a running `gitmem serve`.
Then every worker is its own process, started together, looping until the time is up:

  writers (in this order, round robin up to --writers)
    cli-remember   `gitmem remember TEXT --json` as a new process per write
    api-remember   `Store.remember` in one long-lived process
    cli-remember   (again)
    api-import     `Store.import_items`, 20 memories per call (one commit)
    cli-remember   (again)
    api-upsert     `Store.remember(key=...)` rewriting one key per writer
    api-remember   (again)
    cli-append     `gitmem append TEXT` (the journal file: every writer edits the same one)
  readers
    cli-recall     `gitmem recall WORD --json` as a new process (it asks the daemon)
    api-recall     `Store.recall` in one long-lived process (its own index)
    serve-recall   a request on the daemon's socket (`serve_client.recall`)
    api-recall, cli-recall, serve-recall, cli-recall, api-recall (again)

A reader asks for a seed memory's unique word and counts a wrong answer when that
memory is not among the hits. Afterwards: every id a writer was told was written must
be in the store (lost writes), every upserted key must hold its last acknowledged text,
the journal must hold every acknowledged line, and `git fsck --strict` must be clean.
The table gives per kind: operations, failures, p50 and p95 latency (wall time of the
call, a process start included for the cli kinds).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
for p in (str(ROOT), str(ROOT / "benchmarks")):
    if p not in sys.path:
        sys.path.insert(0, p)

WRITERS = ("cli-remember", "api-remember", "cli-remember", "api-import", "cli-remember", "api-upsert",
           "api-remember", "cli-append")
READERS = ("cli-recall", "api-recall", "serve-recall", "api-recall", "cli-recall", "serve-recall",
           "cli-recall", "api-recall")
SEEDS = 100


# ---- workers (run as `python load.py --worker KIND N HOME SECONDS`) -----------------------
def _emit(**kw) -> None:
    sys.stdout.write(json.dumps(kw) + "\n")
    sys.stdout.flush()


def _cli(home: str, *args: str) -> tuple[int, str, str]:
    p = subprocess.run([sys.executable, "-m", "gitmem", *args], capture_output=True, text=True,
                       env={**os.environ, "GITMEM_HOME": home})
    return p.returncode, p.stdout, p.stderr


def worker(kind: str, n: int, home: str, seconds: float) -> None:
    import gitmem

    seeds = json.loads((Path(home).parent / "seeds.json").read_text())
    words = sorted(seeds)
    store = None if kind.startswith(("cli", "serve")) else gitmem.open(home)
    end = time.time() + seconds
    i = 0
    while time.time() < end:
        i += 1
        word = words[(i * 7 + n * 13) % len(words)]
        t0 = time.perf_counter()
        rec: dict = {"kind": kind}
        try:
            if kind == "cli-remember":
                rc, out, err = _cli(home, "remember", f"load {n} {i}: wl{n}x{i}", "--json")
                rec.update(ok=rc == 0, err=err.strip()[-300:])
                if rc == 0:
                    rec["ids"] = [json.loads(out)["id"]]
            elif kind == "cli-append":
                rc, out, err = _cli(home, "append", f"journal {n} {i}: wj{n}x{i}", "--json")
                rec.update(ok=rc == 0, err=err.strip()[-300:], line=f"wj{n}x{i}")
            elif kind == "api-remember":
                rec.update(ok=True, ids=[store.remember(f"load {n} {i}: wl{n}x{i}").id])
            elif kind == "api-import":
                res = store.import_items([{"text": f"import {n} {i} {j}: wi{n}x{i}x{j}"} for j in range(20)])
                rec.update(ok=res.to_dict()["created"] == 20, ids=res.to_dict()["ids"])
            elif kind == "api-upsert":
                m = store.remember(f"value {i} of key {n}: wu{n}x{i}", key=f"load-key-{n}")
                rec.update(ok=True, ids=[m.id], key=f"load-key-{n}", text=f"value {i} of key {n}: wu{n}x{i}")
            elif kind == "cli-recall":
                rc, out, err = _cli(home, "recall", word, "-k", "5", "--json", "--mode", "bm25")
                rec.update(ok=rc == 0, err=err.strip()[-300:])
                if rc == 0:
                    rec["right"] = seeds[word] in [h["id"] for h in json.loads(out)]
            elif kind == "api-recall":
                hits = store.recall(word, k=5, mode="bm25")
                rec.update(ok=True, right=seeds[word] in [h.id for h in hits])
            elif kind == "serve-recall":
                from gitmem.frontends.daemon import client as serve_client

                got = serve_client.recall(home, word, k=5, timeout=30.0, mode="bm25")
                rec.update(ok=got is not None, err="" if got else "no answer from the daemon")
                if got is not None:
                    rec["right"] = seeds[word] in [h.id for h in got[0]]
            else:
                raise SystemExit(f"unknown worker kind {kind}")
        except Exception as e:  # noqa: BLE001 - a failure is a data point here
            rec.update(ok=False, err=f"{type(e).__name__}: {e}")
        rec["ms"] = (time.perf_counter() - t0) * 1000
        _emit(**rec)


# ---- the run ------------------------------------------------------------------------------
def run(home: Path, seconds: float, writers: int, readers: int, env: dict[str, str], log=print) -> dict:
    """Seed `home`, start serve and the workers, wait, check. Returns the summary."""
    import gitmem
    from crash import fsck, ids_in, tree_paths
    from _report import pct

    env = {**env, "GITMEM_HOME": str(home), "GITMEM_HOOK_AUTOSTART": "0"}
    pp = env.get("PYTHONPATH")
    env["PYTHONPATH"] = str(ROOT) + (os.pathsep + pp if pp else "")
    store = gitmem.init(home)
    seeds = {}
    for j in range(SEEDS):
        seeds[f"wseed{j}q"] = store.remember(f"seed memory {j}: wseed{j}q").id
    (home.parent / "seeds.json").write_text(json.dumps(seeds))
    serve = subprocess.Popen([sys.executable, "-m", "gitmem", "serve"], env=env, stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, text=True, start_new_session=True)
    from gitmem.frontends.daemon import client as serve_client

    try:
        for _ in range(600):
            if serve_client.ping(home) and serve_client.recall(home, "wseed1q", k=1, timeout=60.0) is not None:
                break
            time.sleep(0.1)
        else:
            raise RuntimeError("gitmem serve did not come up")
        kinds = [WRITERS[i % len(WRITERS)] for i in range(writers)] + \
                [READERS[i % len(READERS)] for i in range(readers)]
        procs = [subprocess.Popen([sys.executable, str(Path(__file__).resolve()), "--worker", k, str(n),
                                   str(home), str(seconds)], env=env, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True) for n, k in enumerate(kinds)]
        t0 = time.time()
        outs = [p.communicate() for p in procs]
        wall = time.time() - t0
    finally:
        os.killpg(serve.pid, signal.SIGTERM)
        serve.wait(timeout=30)
    recs = []
    for (out, err), p, k in zip(outs, procs, kinds):
        if p.returncode != 0:
            recs.append({"kind": k, "ok": False, "ms": 0.0, "err": f"worker exited {p.returncode}: {err[-300:]}"})
        recs += [json.loads(line) for line in out.splitlines() if line.strip()]
    # Checks: lost writes, upserted keys, journal lines, fsck.
    acked = {i for r in recs if r["ok"] for i in r.get("ids", ())}
    present = ids_in(home / "repo.git")
    lost = sorted(acked - present)
    fresh = gitmem.open(home)
    last_upsert: dict[str, str] = {}
    for r in recs:
        if r["ok"] and r.get("key"):
            last_upsert[r["key"]] = r["text"]
    bad_keys = [k for k, text in last_upsert.items() if fresh.get(k).text != text]
    journal = "".join(fresh.memories.read_file(fresh.git.tip("main"), p) or ""
                      for p in tree_paths(home / "repo.git", "main") if p.startswith("daily/"))
    lost_lines = [r["line"] for r in recs if r["ok"] and r.get("line") and r["line"] not in journal]
    problems = [f"fsck: {p}" for p in fsck(home / "repo.git")]
    kinds_seen: dict[str, dict] = {}
    for r in recs:
        d = kinds_seen.setdefault(r["kind"], {"ops": 0, "failed": 0, "wrong": 0, "ms": [], "errors": []})
        d["ops"] += 1
        d["ms"].append(r["ms"])
        if not r["ok"]:
            d["failed"] += 1
            d["errors"].append(r.get("err", ""))
        if r.get("right") is False:
            d["wrong"] += 1
    rows = {k: {"ops": d["ops"], "failed": d["failed"], "wrong": d["wrong"],
                "p50": pct(d["ms"], 50), "p95": pct(d["ms"], 95), "errors": d["errors"][:3]}
            for k, d in sorted(kinds_seen.items())}
    summary = {"seconds": seconds, "wall": wall, "writers": writers, "readers": readers, "kinds": rows,
               "acked_writes": len(acked), "lost": lost, "bad_keys": bad_keys, "lost_journal_lines": lost_lines,
               "problems": problems, "failed": sum(r["failed"] for r in rows.values()),
               "wrong": sum(r["wrong"] for r in rows.values())}
    return summary


def table(s: dict, fsync: bool) -> str:
    lines = [
        f"{s['writers']} writers and {s['readers']} readers against one home for {s['seconds']:.0f} s "
        f"(fsync {'on' if fsync else 'off'}, fake embedder, `gitmem serve` running; 2-core machine "
        "shared with other work). Latency: wall time per call (a process start included for the "
        "cli kinds).",
        "",
        "| kind | workers | calls | failed | wrong answers | p50 (ms) | p95 (ms) |",
        "|---|---|---|---|---|---|---|",
    ]
    counts = {}
    for k in WRITERS[:s["writers"]] + READERS[:s["readers"]]:
        counts[k] = counts.get(k, 0) + 1
    for k, r in s["kinds"].items():
        wrong = r["wrong"] if k.endswith("recall") else "-"
        lines.append(f"| {k} | {counts.get(k, '?')} | {r['ops']} | {r['failed']} | {wrong} | "
                     f"{r['p50']:.0f} | {r['p95']:.0f} |")
    lines += ["", f"Acknowledged writes: {s['acked_writes']} memories (plus journal lines); lost: "
              f"{len(s['lost'])}; upserted keys not at their last acknowledged text: {len(s['bad_keys'])}; "
              f"journal lines lost: {len(s['lost_journal_lines'])}; failed calls: {s['failed']}; "
              f"wrong recall answers: {s['wrong']}; `git fsck --strict`: "
              f"{'clean' if not s['problems'] else s['problems']}."]
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=30.0)
    ap.add_argument("--writers", type=int, default=8)
    ap.add_argument("--readers", type=int, default=8)
    ap.add_argument("--no-fsync", action="store_true")
    ap.add_argument("--write", action="store_true", help="Write the table into BENCHMARKS.md.")
    ap.add_argument("--worker", nargs=4, metavar=("KIND", "N", "HOME", "SECONDS"), help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.worker:
        kind, n, home, seconds = a.worker
        worker(kind, int(n), home, float(seconds))
        return
    work = Path(tempfile.mkdtemp(prefix="gitmem-load-"))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITMEM_", "GIT_"))}
    (work / "userhome").mkdir()
    (work / "userhome" / ".gitconfig").write_text("[user]\n\tname = Load\n\temail = load@example.com\n")
    env.update(HOME=str(work / "userhome"), GIT_CONFIG_GLOBAL=str(work / "userhome" / ".gitconfig"),
               GIT_CONFIG_NOSYSTEM="1", GITMEM_EMBED_MODEL="fake-64",
               GITMEM_FSYNC="0" if a.no_fsync else "1")
    os.environ.clear()
    os.environ.update(env)
    s = run(work / "home", a.seconds, a.writers, a.readers, env)
    text = table(s, not a.no_fsync)
    print(text)
    for k, r in s["kinds"].items():
        for e in r["errors"]:
            print(f"ERROR {k}: {e}")
    if a.write:
        from _report import write_section

        write_section("<!-- load:begin -->", "<!-- load:end -->", text, "Reliability: load")
    import shutil

    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
