"""Whole-process latency of the `gitmem` command line, as a new user runs it: a fresh
process per command through the console script (`gitmem.frontends.launch:main`), with and
without a warm `gitmem serve`, on a store of 10,000 (and 100,000) memories.

Floors, measured in the same run: `python -c 'import click'` as a process (what any
click CLI pays before it does anything) and `git --git-dir … rev-parse main` (git's own
fastest answer about the same repository). Targets (issue 12): recall p95 <= 100 ms at
10k and <= 150 ms at 100k, each within 3x the python floor; remember >= 10 a second.

    .venv/bin/python benchmarks/cli_latency.py                       # 10k, fake embedder
    .venv/bin/python benchmarks/cli_latency.py --memories 10000 100000 --model --write
    .venv/bin/python benchmarks/cli_latency.py --issue21 --runs 5 --memories 10000 100000 \
        --old-python /work/main/.venv/bin/python --write     # issue 21: old tree vs new
    .venv/bin/python benchmarks/cli_latency.py --issue21 --alternate --runs 10 --memories 10000 \
        --old-python /work/main/.venv/bin/python --stores DIR   # the same, one command of each in turn
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
sys.path.insert(0, str(ROOT))

from _report import pct, write_section  # noqa: E402

MODEL_PATH = ROOT.parent / "shared" / "models" / "all-MiniLM-L6-v2-onnx-int8"
MODEL_ID = "sentence-transformers/all-MiniLM-L6-v2"
# One block per embedder: the fake one (10k and 100k) and the real model (10k).
MARKERS = {False: ("<!-- cli-latency-fake:begin -->", "<!-- cli-latency-fake:end -->"),
           True: ("<!-- cli-latency-model:begin -->", "<!-- cli-latency-model:end -->")}

SUBJECTS = ["deploy", "database", "release", "tests", "review", "logging", "cache", "backups",
            "on-call", "migrations", "CI", "staging", "tokens", "API", "docs", "the linter",
            "the billing service", "feature flags", "the mobile app", "search", "onboarding"]
VERBS = ["we decided", "remember that", "note:", "the team agreed", "I prefer", "always", "never",
         "from now on", "last sprint showed"]
DETAILS = ["on Tuesdays after standup", "with Postgres 16", "behind a feature flag", "in UTC",
           "before the freeze", "with two reviewers", "from the main branch", "using tabs",
           "at most 500 lines", "inside the VPN", "with retries and jitter", "by Friday noon",
           "in the eu-west region", "with a canary first", "after the load test"]
TYPES = ["note", "fact", "decision", "preference", "lesson"]
QUERIES = ["when do we deploy", "which database for staging", "how do we review code", "logging format",
           "where do backups go", "cache invalidation", "on-call rotation", "migration rules",
           "CI is flaky", "API tokens", "feature flag cleanup", "mobile app release", "search ranking",
           "onboarding checklist", "billing retries", "linter settings"]


def corpus(n: int) -> list[dict]:
    out = []
    for i in range(n):
        s, v = SUBJECTS[i % len(SUBJECTS)], VERBS[(i // 7) % len(VERBS)]
        d = DETAILS[(i * 11) % len(DETAILS)]
        out.append({"text": f"{v} {s} happens {d} (item {i}, ticket T-{i * 37 % 100003}).",
                    "type": TYPES[i % len(TYPES)], "importance": 1 + i % 10,
                    "created": f"20{20 + i % 6}-0{1 + i % 9}-1{i % 10}T08:00:00Z"})
    return out


def make_store(home: Path, env: dict[str, str], n: int) -> dict[str, float]:
    """Bulk import through the API (one commit), then the index: seconds of each."""
    code = ("import json, sys, time, gitmem; s = gitmem.init(sys.argv[1]); "
            "t = time.perf_counter(); s.import_items(json.load(open(sys.argv[2]))); "
            "t2 = time.perf_counter(); s.index.ensure_fresh(); "
            "print(json.dumps({'import': t2 - t, 'index': time.perf_counter() - t2}))")
    items = home.parent / f"{home.name}-items.json"
    items.write_text(json.dumps(corpus(n)))
    out = subprocess.run([sys.executable, "-c", code, str(home), str(items)], check=True, env=env,
                         capture_output=True, text=True).stdout
    items.unlink()
    return json.loads(out.splitlines()[-1])


def console_script(dirpath: Path, python: str | None = None) -> Path:
    """What `pip install` writes for [project.scripts] gitmem = "gitmem.frontends.launch:main"."""
    dirpath.mkdir(parents=True, exist_ok=True)
    path = dirpath / "gitmem"
    path.write_text(f"#!{python or sys.executable}\nimport sys\nfrom gitmem.frontends.launch import main\n"
                    "if __name__ == '__main__':\n    sys.exit(main())\n")
    path.chmod(0o755)
    return path


def timed(cmd: list[str], env: dict[str, str], runs: int, check_out=None, stdin=None) -> list[float]:
    walls = []
    for i in range(runs):
        c = [a.replace("{i}", str(i)).replace("{q}", QUERIES[i % len(QUERIES)]) for a in cmd]
        t = time.perf_counter()
        res = subprocess.run(c, capture_output=True, env=env, input=stdin)
        walls.append(time.perf_counter() - t)
        if res.returncode != 0:
            raise SystemExit(f"{' '.join(c)} failed: {res.stderr.decode()}")
        if check_out is not None:
            check_out(res.stdout)
    return walls


def stats(walls: list[float]) -> dict[str, float]:
    return {"p50": pct(walls, 50), "p95": pct(walls, 95), "max": max(walls), "n": len(walls)}


def served_requests(home: Path) -> int:
    from gitmem.frontends.daemon import client as serve_client

    return int(serve_client.request(home, {"op": "status"})["requests"])


def measure(home: Path, env: dict[str, str], script: Path, a) -> dict:
    gm = [sys.executable, str(script)]
    warm_env = dict(env)
    cold_env = dict(env, GITMEM_NO_DAEMON="1")
    out: dict = {}

    def five(stdout: bytes) -> None:
        assert len(json.loads(stdout)) == 5, stdout[:200]

    # Floors.
    out["floor_python"] = stats(timed([sys.executable, "-c", "import click"], env, a.runs))
    out["floor_git"] = stats(timed(["git", "--git-dir", str(home / "repo.git"), "rev-parse", "main"], env, a.runs))
    # No daemon: what every command cost before.
    out["cold_recall"] = stats(timed(gm + ["recall", "--json", "-k", "5", "{q}"], cold_env, a.cold_runs, five))
    cold_rem = timed(gm + ["remember", "cold write {i}: the build takes {i} minutes"], cold_env, a.cold_runs)
    out["cold_remember_per_s"] = len(cold_rem) / sum(cold_rem)
    # Warm daemon.
    t = time.perf_counter()
    subprocess.run(gm + ["serve", "--detach", "--idle-exit", "900"], env=env, check=True, capture_output=True)
    out["serve_up"] = time.perf_counter() - t
    try:
        timed(gm + ["recall", "--json", "-k", "5", "warm up"], warm_env, 3)  # first query: caches
        n0 = served_requests(home)
        out["recall"] = stats(timed(gm + ["recall", "--json", "-k", "5", "{q}"], warm_env, a.runs, five))
        out["recall_text"] = stats(timed(gm + ["recall", "-k", "5", "{q}"], warm_env, a.runs))
        rem = timed(gm + ["remember", "warm write {i}: the build takes {i} minutes"], warm_env, a.writes)
        out["remember_per_s"] = len(rem) / sum(rem)
        out["remember"] = stats(rem)
        # Recall right after writes: the daemon catches the index up on the query's clock.
        mixed = []
        for i in range(max(3, a.runs // 4)):
            timed(gm + ["remember", f"mixed write {i}: deploys pause during the freeze"], warm_env, 1)
            mixed += timed(gm + ["recall", "--json", "-k", "5", "deploy freeze"], warm_env, 1, five)
        out["recall_after_write"] = stats(mixed)
        out["get"] = stats(timed(gm + ["get", "--json", a.some_id], warm_env, a.runs))
        out["status"] = stats(timed(gm + ["status"], warm_env, a.extra_runs))
        out["context"] = stats(timed(gm + ["context"], warm_env, a.extra_runs))
        served = served_requests(home) - n0
        expected = 2 * a.runs + a.writes + 2 * max(3, a.runs // 4) + a.runs + 2 * a.extra_runs
        out["served_all"] = served >= expected
    finally:
        subprocess.run(gm + ["serve", "--stop"], env=env, capture_output=True)
    return out


def measure21(home: Path, env: dict[str, str], python: str, runs: int = 5) -> dict:
    """Issue 21's rows, worst of `runs` (and p50), through a warm daemon of the tree that
    `python` imports: context, status, list --json -n 50 (plain list --json on a tree
    without -n), recall, recall right after a write; and context without a daemon."""
    script = console_script(home.parent / f"bin-{Path(python).parent.parent.parent.name}", python)
    gm = [python, str(script)]
    cold = dict(env, GITMEM_NO_DAEMON="1")
    has_n = b"--limit" in subprocess.run(gm + ["list", "--help"], env=cold, capture_output=True).stdout
    lst = ["list", "--json", "-n", "50"] if has_n else ["list", "--json"]
    out: dict = {"list_n": has_n}
    # The first read after the import builds the catalog (once per store): timed apart.
    out["first_status"] = timed(gm + ["status"], cold, 1)[0]
    out["cold_context"] = stats(timed(gm + ["context"], cold, runs))
    subprocess.run(gm + ["serve", "--detach", "--idle-exit", "900"], env=env, check=True, capture_output=True)
    try:
        timed(gm + ["recall", "--json", "-k", "5", "warm up"], env, 2)
        timed(gm + ["context"], env, 1)
        for name, cmd in (("context", ["context"]), ("status", ["status"]), ("list", lst),
                          ("recall", ["recall", "--json", "-k", "5", "{q}"])):
            out[name] = stats(timed(gm + cmd, env, runs))
        after = []
        for i in range(runs):
            timed(gm + ["remember", f"issue21 write {i}: deploys pause during the freeze"], env, 1)
            after += timed(gm + ["recall", "--json", "-k", "5", "deploy freeze"], env, 1)
        out["recall_after_write"] = stats(after)
    finally:
        subprocess.run(gm + ["serve", "--stop"], env=env, capture_output=True)
    return out


def alternate21(a) -> None:
    """`--issue21 --alternate`: old and new tree on copies of one store, each with its own
    warm daemon, one command of each in turn (old, new, old, new...), so load on the
    shared machine falls on both alike; worst and p50 of --runs per command."""
    import shutil

    base = {k: v for k, v in os.environ.items() if not k.startswith("GITMEM_")}
    base.update(GITMEM_FSYNC="0", GITMEM_HOOK_AUTOSTART="0", GITMEM_EMBED_MODEL="fake-384")
    trees = [("old", a.old_python), ("new", sys.executable)]
    cmds = [("context", ["context"]), ("status", ["status"]), ("list", ["list", "--json", "-n", "50"]),
            ("recall", ["recall", "--json", "-k", "5", "{q}"])]
    with tempfile.TemporaryDirectory(prefix="gitmem-i21a-") as tmp:
        for n in a.memories:
            gms, envs = {}, {}
            for tree, python in trees:
                h = Path(tmp) / f"{tree}-{n}"
                shutil.copytree(Path(a.stores) / f"store-{n}", h, symlinks=True)
                envs[tree] = dict(base, GITMEM_HOME=str(h))
                gms[tree] = [python, str(console_script(Path(tmp) / f"bin-{tree}", python))]
            walls: dict = {(t, c): [] for t, _ in trees for c, _ in cmds + [("recall_after_write", []),
                                                                             ("cold_context", [])]}
            for i in range(a.runs):
                for tree, _ in trees:
                    walls[(tree, "cold_context")] += timed(gms[tree] + ["context"], dict(envs[tree], GITMEM_NO_DAEMON="1"), 1)
            for tree, _ in trees:
                subprocess.run(gms[tree] + ["serve", "--detach", "--idle-exit", "900"], env=envs[tree], check=True,
                               capture_output=True)
            try:
                for tree, _ in trees:  # warm up: first query, first context, first status
                    for c, cmd in cmds:
                        timed(gms[tree] + cmd, envs[tree], 1)
                for i in range(a.runs):
                    for c, cmd in cmds:
                        for tree, _ in trees:
                            walls[(tree, c)] += timed(gms[tree] + [x.replace("{q}", QUERIES[i % len(QUERIES)])
                                                                  for x in cmd], envs[tree], 1)
                for i in range(a.runs):
                    for tree, _ in trees:
                        timed(gms[tree] + ["remember", f"issue21 write {i}: deploys pause during the freeze"],
                              envs[tree], 1)
                        walls[(tree, "recall_after_write")] += timed(
                            gms[tree] + ["recall", "--json", "-k", "5", "deploy freeze"], envs[tree], 1)
            finally:
                for tree, _ in trees:
                    subprocess.run(gms[tree] + ["serve", "--stop"], env=envs[tree], capture_output=True)
            cols = [c for c, _ in cmds] + ["recall_after_write", "cold_context"]
            print(f"\n{n:,} memories, alternating, worst of {a.runs} (p50), ms\n")
            print("| memories | tree | " + " | ".join(cols) + " |")
            print("|---|---|" + "---|" * len(cols))
            for tree, _ in trees:
                print(f"| {n:,} | {tree} | " + " | ".join(
                    f"{max(walls[(tree, c)]) * 1000:.0f} ({pct(walls[(tree, c)], 50) * 1000:.0f})" for c in cols) + " |",
                    flush=True)


def main21(a) -> None:
    """`--issue21`: old tree vs new on copies of one store per size."""
    import shutil

    base = {k: v for k, v in os.environ.items() if not k.startswith("GITMEM_")}
    base.update(GITMEM_FSYNC="0", GITMEM_HOOK_AUTOSTART="0", GITMEM_EMBED_MODEL="fake-384")
    trees = [("new", sys.executable)] + ([("old", a.old_python)] if a.old_python else [])
    rows = []
    with tempfile.TemporaryDirectory(prefix="gitmem-i21-") as tmp:
        for n in a.memories:
            home = Path(tmp) / f"store-{n}"
            kept = Path(a.stores) / f"store-{n}" if a.stores else None
            if kept is not None and kept.exists():  # built once, copied per tree
                shutil.copytree(kept, home, symlinks=True)
                built = json.loads((kept.parent / f"store-{n}.built.json").read_text())
            else:
                built = make_store(home, dict(base, GITMEM_HOME=str(home)), n)
                if kept is not None:  # kept for the next run
                    shutil.copytree(home, kept, symlinks=True)
                    (kept.parent / f"store-{n}.built.json").write_text(json.dumps(built))
            print(f"{n} memories: import {built['import']:.1f} s, index {built['index']:.1f} s", flush=True)
            for tree, python in trees:
                h = Path(tmp) / f"{tree}-{n}"
                shutil.copytree(home, h, symlinks=True)
                res = measure21(h, dict(base, GITMEM_HOME=str(h)), python, a.runs)
                res.update(n=n, tree=tree, built=built)
                print(json.dumps(res, default=float), flush=True)
                rows.append(res)
                shutil.rmtree(h, ignore_errors=True)
            shutil.rmtree(home, ignore_errors=True)
    table = render21(rows)
    print(table)
    if a.write:
        write_section("<!-- issue21:begin -->", "<!-- issue21:end -->", table, "Issue 21")


TARGETS21 = {"context": 300, "status": 200, "list": 200, "recall": 150, "recall_after_write": 300,
             "cold_context": 1000}


def render21(rows) -> str:
    ms = lambda s: f"{s * 1000:.0f}"  # noqa: E731
    cols = ["context", "status", "list", "recall", "recall_after_write", "cold_context"]
    out = ["Whole process through the console script, fake-384 embedder, warm `gitmem serve` (but the last "
           f"column: no daemon), {os.cpu_count()} cores shared with other work; worst of {rows[0]['context']['n']} "
           "(p50 in brackets), ms. "
           "`list` is `list --json -n 50` (the old tree has no -n: `list --json`, every memory). Targets "
           "(100k): " + ", ".join(f"{c} <= {t}" for c, t in TARGETS21.items()) + ".", "",
           "| memories | tree | " + " | ".join(cols) + " |", "|---|---|" + "---|" * len(cols)]
    for r in rows:
        cells = []
        for c in cols:
            v = r[c]
            mark = "" if r["tree"] != "new" or v["max"] * 1000 <= TARGETS21[c] else " (over)"
            cells.append(f"{ms(v['max'])} ({ms(v['p50'])}){mark}")
        out.append(f"| {r['n']:,} | {r['tree']} | " + " | ".join(cells) + " |")
    out += ["", "First `status` after the bulk import, no daemon (the new tree builds the catalog then): " + "; ".join(
        f"{r['n']:,} {r['tree']} {r['first_status']:.1f} s" for r in rows) + "."]
    out += ["", "Stores: " + "; ".join(sorted({f"{r['n']:,} built in {r['built']['import']:.0f} s import + "
                                               f"{r['built']['index']:.0f} s index" for r in rows})) + "."]
    return "\n".join(out) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--memories", type=int, nargs="+", default=[10000])
    ap.add_argument("--runs", type=int, default=40, help="warm runs per command")
    ap.add_argument("--cold-runs", type=int, default=8, help="in-process runs (slow)")
    ap.add_argument("--writes", type=int, default=30, help="warm remembers")
    ap.add_argument("--extra-runs", type=int, default=5, help="warm runs of status and context")
    ap.add_argument("--model", action="store_true", help="the real all-MiniLM-L6-v2 (else the fake embedder)")
    ap.add_argument("--write", action="store_true", help="update BENCHMARKS.md between the markers")
    ap.add_argument("--issue21", action="store_true", help="issue 21's rows (worst of --runs), new tree vs "
                    "--old-python's")
    ap.add_argument("--old-python", help="a python that imports the old tree (e.g. /work/main/.venv/bin/python)")
    ap.add_argument("--alternate", action="store_true", help="with --issue21 and --stores: old and new "
                    "tree one command each in turn, each with its own daemon")
    ap.add_argument("--stores", help="with --issue21: a folder with store-N (and store-N.built.json) built "
                    "before (built and kept there when missing), copied instead of building one per run")
    a = ap.parse_args()
    if a.issue21 and a.alternate:
        return alternate21(a)
    if a.issue21:
        return main21(a)
    base = {k: v for k, v in os.environ.items() if not k.startswith("GITMEM_")}
    base["GITMEM_FSYNC"] = "0"
    base["GITMEM_HOOK_AUTOSTART"] = "0"
    if a.model:
        base.update(GITMEM_EMBED_MODEL=MODEL_ID, GITMEM_EMBED_PATH=str(MODEL_PATH))
    else:
        base["GITMEM_EMBED_MODEL"] = "fake-384"
    embedder = "all-MiniLM-L6-v2 (int8 ONNX)" if a.model else "fake-384"
    rows = []
    with tempfile.TemporaryDirectory(prefix="gitmem-clibench-") as tmp:
        script = console_script(Path(tmp))
        for n in a.memories:
            home = Path(tmp) / f"store-{n}"
            env = dict(base, GITMEM_HOME=str(home))
            built = make_store(home, env, n)
            print(f"{n} memories: import {built['import']:.1f} s, index {built['index']:.1f} s", flush=True)
            a.some_id = json.loads(subprocess.run([sys.executable, str(script), "recall", "--json", "-k", "1",
                                                   "deploy"], env=dict(env, GITMEM_NO_DAEMON="1"),
                                                  capture_output=True, check=True).stdout)[0]["id"]
            res = measure(home, env, script, a)
            res.update(n=n, built=built)
            print(json.dumps(res, indent=1, default=float), flush=True)
            rows.append(res)
    table = render(rows, a, embedder)
    print(table)
    if a.write:
        write_section(*MARKERS[a.model], table, "CLI latency (issue 12, part 1)")


def render(rows, a, embedder: str) -> str:
    ms = lambda s: f"{s * 1000:.0f}"  # noqa: E731
    out = [f"Whole process, fresh per command, through the console script (`gitmem.frontends.launch:main`); "
           f"embedder {embedder}; {os.cpu_count()} cores (shared); {a.runs} warm runs per row, "
           f"{a.cold_runs} in-process. ms unless said.", "",
           "| memories | floor: `python -c 'import click'` p50 / p95 | floor: `git rev-parse main` p50 | "
           "recall --json -k 5, no daemon p50 / p95 | **recall --json -k 5, warm p50 / p95** | "
           "recall p95 / python floor p95 | recall p95 / git floor p50 | target p95 |",
           "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        target = 100 if r["n"] <= 10000 else 150
        fp, fg, c, w = r["floor_python"], r["floor_git"], r["cold_recall"], r["recall"]
        ok = "met" if w["p95"] * 1000 <= target and w["p95"] <= 3 * fp["p95"] else "missed"
        out.append(f"| {r['n']:,} | {ms(fp['p50'])} / {ms(fp['p95'])} | {ms(fg['p50'])} | {ms(c['p50'])} / "
                   f"{ms(c['p95'])} | **{ms(w['p50'])} / {ms(w['p95'])}** | {w['p95'] / fp['p95']:.2f}x | "
                   f"{w['p95'] / fg['p50']:.1f}x | {target} ({ok}) |")
    out += ["", "| memories | remember/s, no daemon | **remember/s, warm** (p50 / p95 ms) | recall text p50 / p95 | "
            "recall right after a write p50 / p95 | get --json p50 | status p50 | context p50 | "
            "`serve --detach` ready in |", "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        out.append(f"| {r['n']:,} | {r['cold_remember_per_s']:.1f} | **{r['remember_per_s']:.1f}** "
                   f"({ms(r['remember']['p50'])} / {ms(r['remember']['p95'])}) | {ms(r['recall_text']['p50'])} / "
                   f"{ms(r['recall_text']['p95'])} | {ms(r['recall_after_write']['p50'])} / "
                   f"{ms(r['recall_after_write']['p95'])} | {ms(r['get']['p50'])} | {ms(r['status']['p50'])} | "
                   f"{ms(r['context']['p50'])} | {r['serve_up']:.1f} s |")
    out += ["", "Store built by one bulk `import_items` then `index.ensure_fresh()`: " + "; ".join(
        f"{r['n']:,} in {r['built']['import']:.1f} s + index {r['built']['index']:.1f} s" for r in rows) + "."]
    if not all(r["served_all"] for r in rows):
        out.append("WARNING: some warm commands were not served by the daemon.")
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    main()
