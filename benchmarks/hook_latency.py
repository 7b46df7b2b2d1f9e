"""Wall time of the real before-prompt hook, as an agent CLI runs it: the installed
command line (`GITMEM_HOME=… sh hooks/gitmem-hook prompt`) with Claude Code's
UserPromptSubmit JSON on stdin, on a store of ~1000 memories, with and without a warm
`gitmem serve`, with the fake embedder and with the real model.

Also: where a hook process spends its start-up (python -X importtime), and the same
recall through the client alone (no hook process).

    .venv/bin/python benchmarks/hook_latency.py --runs 20 --write
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from _report import pct  # noqa: E402
from gitmem.frontends import hooks_install  # noqa: E402

MODEL_PATH = ROOT.parent / "shared" / "models" / "all-MiniLM-L6-v2-onnx-int8"
MODEL_ID = "sentence-transformers/all-MiniLM-L6-v2"
BEGIN, END = "<!-- hook-latency:begin -->", "<!-- hook-latency:end -->"

SUBJECTS = ["deploy", "database", "release", "tests", "review", "logging", "cache", "backups",
            "on-call", "migrations", "CI", "staging", "tokens", "API", "docs", "the linter"]
VERBS = ["we decided", "remember that", "note:", "the team agreed", "I prefer", "always", "never"]
DETAILS = ["on Tuesdays after standup", "with Postgres 16", "behind a feature flag", "in UTC",
           "before the freeze", "with two reviewers", "from the main branch", "using tabs",
           "at most 500 lines", "inside the VPN", "with retries and jitter", "by Friday noon"]
PROMPTS = ["when do we deploy?", "which database do we use for staging", "how should I write the migration",
           "fix the flaky tests in CI", "what is our review policy", "set up logging for the API",
           "where do backups go", "rename the cache module"]


def corpus(n: int) -> list[dict]:
    out = []
    for i in range(n):
        s, v, d = SUBJECTS[i % len(SUBJECTS)], VERBS[(i // 3) % len(VERBS)], DETAILS[(i * 7) % len(DETAILS)]
        out.append({"text": f"{v} {s} happens {d} (item {i}).", "type": "note"})
    return out


def make_store(home: Path, env: dict[str, str], n: int) -> float:
    code = ("import json, sys, gitmem; s = gitmem.init(sys.argv[1]); "
            "s.import_items(json.load(open(sys.argv[2]))); s.index.ensure_fresh()")
    items = home.parent / f"{home.name}-items.json"
    items.write_text(json.dumps(corpus(n)))
    t = time.perf_counter()
    subprocess.run([sys.executable, "-c", code, str(home), str(items)], check=True, env=env)
    (home / "config.toml").write_text("[hooks]\nautostart_serve = false\n")  # we start it ourselves
    return time.perf_counter() - t


def run_hook(home: Path, env: dict[str, str], runs: int, budget: float) -> dict:
    cmd = hooks_install.hook_command("prompt", home, budget=budget, agent="claude")
    walls, recalled = [], 0
    for i in range(runs):
        payload = {"session_id": "bench-session", "transcript_path": str(home / "none.jsonl"),
                   "cwd": str(home), "hook_event_name": "UserPromptSubmit",
                   "prompt": PROMPTS[i % len(PROMPTS)]}
        t = time.perf_counter()
        res = subprocess.run(["sh", "-c", cmd], input=json.dumps(payload), capture_output=True, text=True,
                             env=env, timeout=60)
        walls.append(time.perf_counter() - t)
        recalled += "<gitmem-recall" in res.stdout
    return {"p50": pct(walls, 50), "p95": pct(walls, 95), "max": max(walls), "recalled": recalled,
            "runs": runs}


def client_only(home: Path, env: dict[str, str], runs: int) -> dict:
    code = ("import sys, time; t = time.perf_counter(); from gitmem.frontends.daemon import client as serve_client; "
            "h = serve_client.try_recall(sys.argv[1], sys.argv[2], 8); "
            "print(time.perf_counter() - t, h is not None)")
    walls, inner = [], []
    for i in range(runs):
        t = time.perf_counter()
        out = subprocess.run([sys.executable, "-c", code, str(home), PROMPTS[i % len(PROMPTS)]],
                             capture_output=True, text=True, env=env, check=True).stdout.split()
        walls.append(time.perf_counter() - t)
        assert out[1] == "True", "the daemon did not answer"
        inner.append(float(out[0]))
    return {"p50": pct(walls, 50), "p95": pct(walls, 95), "inner_p50": pct(inner, 50)}


def import_profile(home: Path, env: dict[str, str]) -> list[tuple[str, float]]:
    """Cumulative import time (ms) of the top-level packages a prompt hook process loads."""
    payload = json.dumps({"session_id": "bench-session", "prompt": PROMPTS[0], "cwd": str(home)})
    res = subprocess.run([sys.executable, "-X", "importtime", "-m", "gitmem", "hook", "prompt"],
                         input=payload, capture_output=True, text=True, env=env)
    tops: dict[str, float] = {}
    for line in res.stderr.splitlines():
        m = re.match(r"import time:\s+\d+ \|\s+(\d+) \|( *)(\S+)", line)
        if m and len(m.group(2)) == 1:  # a top-level import (one space of indent)
            tops[m.group(3)] = tops.get(m.group(3), 0.0) + int(m.group(1)) / 1000
    return sorted(tops.items(), key=lambda kv: -kv[1])[:12]


def startup(env: dict[str, str], runs: int) -> dict:
    out = {}
    for name, args in (("python -c pass", ["-c", "pass"]),
                       ("python -m gitmem --version", ["-m", "gitmem", "--version"]),
                       ("import gitmem.frontends.daemon.client", ["-c", "import gitmem.frontends.daemon.client"])):
        walls = []
        for _ in range(runs):
            t = time.perf_counter()
            subprocess.run([sys.executable, *args], capture_output=True, env=env, check=True)
            walls.append(time.perf_counter() - t)
        out[name] = pct(walls, 50)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--memories", type=int, default=1000)
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--budget", type=float, default=2.0)
    ap.add_argument("--no-model", action="store_true", help="skip the real model")
    ap.add_argument("--write", action="store_true", help="update BENCHMARKS.md between the markers")
    a = ap.parse_args()
    base = {k: v for k, v in os.environ.items() if not k.startswith("GITMEM_")}
    base["GITMEM_FSYNC"] = "0"
    setups = [("fake embedder", {"GITMEM_EMBED_MODEL": "fake-384"})]
    if not a.no_model:
        setups.append(("all-MiniLM-L6-v2", {"GITMEM_EMBED_MODEL": MODEL_ID, "GITMEM_EMBED_PATH": str(MODEL_PATH)}))
    rows, extra = [], {}
    with tempfile.TemporaryDirectory(prefix="gitmem-hookbench-") as tmp:
        for label, e in setups:
            env = {**base, **e}
            home = Path(tmp) / label.replace(" ", "-")
            env["GITMEM_HOME"] = str(home)
            built = make_store(home, env, a.memories)
            print(f"{label}: store of {a.memories} built in {built:.1f} s", flush=True)
            cold = run_hook(home, env, a.runs, a.budget)
            print(f"  no daemon: {cold}", flush=True)
            t = time.perf_counter()
            subprocess.run([sys.executable, "-m", "gitmem", "serve", "--detach", "--idle-exit", "600"],
                           env=env, check=True, capture_output=True)
            up = time.perf_counter() - t
            try:
                warm = run_hook(home, env, a.runs, a.budget)
                print(f"  daemon (up in {up:.2f} s): {warm}", flush=True)
                client = client_only(home, env, a.runs)
                print(f"  client alone: {client}", flush=True)
                if label == "fake embedder":
                    extra["imports"] = import_profile(home, env)
                    extra["startup"] = startup(env, a.runs)
            finally:
                subprocess.run([sys.executable, "-m", "gitmem", "serve", "--stop"], env=env, capture_output=True)
            rows.append((label, cold, warm, client, up))
    table = render(rows, extra, a)
    print(table)
    if a.write:
        path = ROOT / "BENCHMARKS.md"
        text = path.read_text()
        if BEGIN in text:
            text = re.sub(re.escape(BEGIN) + ".*?" + re.escape(END), BEGIN + "\n" + table + END, text, flags=re.S)
        else:
            text = text.rstrip("\n") + "\n\n## Hooks and serve\n\n" + BEGIN + "\n" + table + END + "\n"
        path.write_text(text)


def render(rows, extra, a) -> str:
    ms = lambda s: f"{s * 1000:.0f}"  # noqa: E731
    out = [f"{a.memories} memories, {a.runs} prompts per row, hook budget {a.budget:g} s, "
           f"{os.cpu_count()} cores; wall time of the installed hook command, ms.", "",
           "| embedder | daemon | p50 | p95 | max | prompts with recall |", "|---|---|---|---|---|---|"]
    for label, cold, warm, client, up in rows:
        out.append(f"| {label} | none (in-process) | {ms(cold['p50'])} | {ms(cold['p95'])} | {ms(cold['max'])} | "
                   f"{cold['recalled']}/{cold['runs']} |")
        out.append(f"| {label} | `gitmem serve` | {ms(warm['p50'])} | {ms(warm['p95'])} | {ms(warm['max'])} | "
                   f"{warm['recalled']}/{warm['runs']} |")
    out += ["", "Recall through the client alone (a fresh `python -c` that imports only "
            "`gitmem.frontends.daemon.client`), ms:", "", "| embedder | process p50 | process p95 | import + request p50 | `serve --detach` ready in |",
            "|---|---|---|---|---|"]
    for label, cold, warm, client, up in rows:
        out.append(f"| {label} | {ms(client['p50'])} | {ms(client['p95'])} | {client['inner_p50'] * 1000:.1f} | "
                   f"{up:.2f} s |")
    if extra.get("startup"):
        out += ["", "Process start-up, p50 ms: " + ", ".join(f"`{k}` {ms(v)}" for k, v in extra["startup"].items())
                + ".", "", "Top-level imports of one `gitmem hook prompt` process (cumulative ms, "
                "`python -X importtime`, daemon running): "
                + ", ".join(f"`{k}` {v:.0f}" for k, v in extra["imports"]) + "."]
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    main()
