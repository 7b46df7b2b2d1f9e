"""The first query after a bulk import (issue 13, "indexing never stalls a query").

N memories are imported into a store whose index is otherwise complete, with
`--no-index` (so every variant starts from the same state: written, not indexed), and
then the first `gitmem recall QUERY --json` is timed as a whole process:

- reference, the pre-change behaviour: no daemon, no --timeout (the query embeds all N);
- the pre-change daemon: a `--timeout` the daemon ignored, i.e. a warm daemon, no timeout;
- no daemon, `--timeout 200`: words indexed in the query, BM25 answer, a detached
  `gitmem reindex` embeds;
- the daemon, `--timeout 200`: the same in the warm daemon, whose worker thread embeds;
- the daemon, `gitmem import` without --no-index: the import hands its indexing to the
  daemon, and the first query comes right after the import returns.

For the last three: seconds until a query answers hybrid (every vector in), and the
latency of queries made while the vectors are being embedded (p50 / max). Ratios are
against the reference measured in the same run.

    .venv/bin/python benchmarks/first_query.py                  # N=4000, fake embedder
    .venv/bin/python benchmarks/first_query.py --model --write  # the real model too
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from _report import write_section  # noqa: E402

MODEL_PATH = ROOT.parent / "shared" / "models" / "all-MiniLM-L6-v2-onnx-int8"
MODEL_ID = "sentence-transformers/all-MiniLM-L6-v2"
MARKERS = ("<!-- first-query:begin -->", "<!-- first-query:end -->")
QUERY = "when do we deploy the billing service"
SUBJECTS = ["deploy", "database", "release", "tests", "review", "logging", "cache", "backups",
            "on-call", "migrations", "CI", "staging", "tokens", "API", "docs", "the billing service"]
DETAILS = ["on Tuesdays after standup", "with Postgres 16", "behind a feature flag", "in UTC",
           "before the freeze", "with two reviewers", "from the main branch", "inside the VPN",
           "with retries and jitter", "by Friday noon", "with a canary first", "after the load test"]


def corpus(n: int) -> str:
    return "".join(json.dumps({"text": f"note {i}: {SUBJECTS[i % len(SUBJECTS)]} happens "
                                        f"{DETAILS[(i * 7) % len(DETAILS)]} (ticket T-{i * 37 % 100003})."}) + "\n"
                   for i in range(n))


class Store:
    def __init__(self, base: Path, env: dict[str, str], name: str):
        self.home = base / name
        self.env = dict(env, GITMEM_HOME=str(self.home))
        self.daemon: subprocess.Popen | None = None
        self.gm("init")
        self.gm("remember", "The deploy window is Tuesday afternoon")
        self.gm("recall", "deploy", env={"GITMEM_NO_DAEMON": "1"})  # an index with every vector

    def gm(self, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
        r = subprocess.run([sys.executable, "-m", "gitmem", *args], capture_output=True, text=True,
                           env={**self.env, **(env or {})})
        if r.returncode != 0:
            raise SystemExit(f"gitmem {' '.join(args)} failed: {r.stderr}")
        return r

    def timed(self, *args: str, env: dict[str, str] | None = None) -> tuple[float, subprocess.CompletedProcess]:
        t0 = time.perf_counter()
        r = self.gm(*args, env=env)
        return time.perf_counter() - t0, r

    def start_daemon(self) -> None:
        from gitmem.frontends.daemon import client as serve_client

        self.daemon = subprocess.Popen([sys.executable, "-m", "gitmem", "serve", "--idle-exit", "0"],
                                       env=self.env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        while serve_client.ping(self.home) is None:
            if self.daemon.poll() is not None:
                raise SystemExit("gitmem serve did not start")
            time.sleep(0.05)
        while serve_client.request(self.home, {"op": "status"})["indexing"]:
            time.sleep(0.05)

    def stop(self) -> None:
        if self.daemon is not None:
            self.daemon.send_signal(signal.SIGTERM)
            self.daemon.wait(60)

    def recall_json(self, *extra: str, env: dict[str, str] | None = None) -> tuple[float, dict]:
        s, r = self.timed("recall", QUERY, "--json", *extra, env=env)
        out = json.loads(r.stdout)
        return s, out if isinstance(out, dict) else {"hits": out, "backend": "hybrid", "vectors": {"pending": 0}}

    def until_hybrid(self, t0: float, env: dict[str, str] | None = None) -> tuple[float, list[float]]:
        """Query with --timeout 200 until the answer is hybrid: seconds since t0, and the
        latencies of the queries made meanwhile (BM25 answers while vectors are embedded)."""
        during = []
        while True:
            s, out = self.recall_json("--timeout", "200", env=env)
            if out["vectors"].get("pending") == 0 and out["backend"] == "hybrid":
                return time.perf_counter() - t0, during
            during.append(s)
            time.sleep(0.2)


def run(n: int, model: bool) -> dict:
    base = Path(tempfile.mkdtemp(prefix="gitmem-firstq-"))
    env = {k: v for k, v in os.environ.items() if not k.startswith("GITMEM_")}
    env.update(GITMEM_NAME="Bench", GITMEM_EMAIL="bench@example.com", PYTHONPATH=str(ROOT))
    if model:
        env.update(GITMEM_EMBED_MODEL=MODEL_ID, GITMEM_EMBED_PATH=str(MODEL_PATH))
    else:
        env["GITMEM_EMBED_MODEL"] = "fake-384"
    src = base / "import.jsonl"
    src.write_text(corpus(n))
    solo = {"GITMEM_NO_DAEMON": "1"}
    res: dict = {"n": n, "model": MODEL_ID if model else "fake-384"}

    st = Store(base, env, "pre")
    st.gm("import", "--jsonl", str(src), "--no-index")
    res["pre"], out = st.recall_json(env=solo)
    assert out["backend"] == "hybrid"

    st = Store(base, env, "pre-daemon")
    st.start_daemon()
    st.gm("import", "--jsonl", str(src), "--no-index")
    res["pre_daemon"], out = st.recall_json()
    st.stop()

    def timed_first_query(name: str, daemon: bool, handoff: bool) -> None:
        """Import (indexing left to the query, or handed to the daemon), then the first
        query with --timeout 200, and the queries until the answer is hybrid."""
        st = Store(base, env, name)
        run_env = None if daemon else solo
        if daemon:
            st.start_daemon()
        if handoff:
            res[f"{name}_import"], _ = st.timed("import", "--jsonl", str(src))
        else:
            st.gm("import", "--jsonl", str(src), "--no-index")
        t0 = time.perf_counter()
        res[name], out = st.recall_json("--timeout", "200", env=run_env)
        res[f"{name}_pending"] = out["vectors"]["pending"]
        res[f"{name}_ready"], res[f"{name}_during"] = st.until_hybrid(t0, env=run_env)
        if daemon:
            st.stop()

    timed_first_query("cold", daemon=False, handoff=False)
    timed_first_query("daemon", daemon=True, handoff=False)
    timed_first_query("handoff", daemon=True, handoff=True)

    st = Store(base, env, "inline-import")
    res["inline_import"], _ = st.timed("import", "--jsonl", str(src), env=solo)
    res["inline_first"], _ = st.recall_json("--timeout", "200", env=solo)
    return res


def fmt(r: dict) -> str:
    ref = r["pre"]

    def row(name: str, s: float, pending, ready=None, during=None) -> str:
        d = (f"{statistics.median(during) * 1000:.0f} / {max(during) * 1000:.0f}" if during else "-")
        return (f"| {name} | {s * 1000:.0f} | {s / ref:.3f} | {pending} | "
                f"{f'{ready:.1f}' if ready is not None else '-'} | {d} |\n")

    out = (f"N = {r['n']} memories imported with `--no-index` into an indexed store, model `{r['model']}`; "
           f"first `gitmem recall \"{QUERY}\" --json` as a process (ms), ratio to the pre-change first query "
           "measured in the same run; hybrid after: seconds from the first query until a `--timeout 200` query "
           "answers hybrid; queries meanwhile: p50 / max ms of the `--timeout 200` queries made while the "
           "vectors were embedded (every 0.2 s).\n\n"
           "| first query | ms | ratio | pending in its answer | hybrid after (s) | queries meanwhile p50 / max ms |\n"
           "|---|---|---|---|---|---|\n")
    out += row("pre-change: no daemon, no `--timeout` (reference)", r["pre"], 0)
    out += row("pre-change daemon (ignored `--timeout`)", r["pre_daemon"], 0)
    out += row("no daemon, `--timeout 200` (detached reindex)", r["cold"], r["cold_pending"], r["cold_ready"],
               r["cold_during"])
    out += row("daemon, `--timeout 200` (its worker embeds)", r["daemon"], r["daemon_pending"], r["daemon_ready"],
               r["daemon_during"])
    out += row("daemon, after `gitmem import` handed it the indexing", r["handoff"], r["handoff_pending"],
               r["handoff_ready"], r["handoff_during"])
    out += (f"\n`gitmem import` of the same N: {r['inline_import']:.1f} s embedding in its own process (no daemon; "
            f"the first `--timeout 200` query after it {r['inline_first'] * 1000:.0f} ms), "
            f"{r['handoff_import']:.1f} s when it hands the indexing to a running daemon.\n")
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--memories", type=int, default=4000)
    ap.add_argument("--model", action="store_true", help="also with the real model (MODEL_PATH)")
    ap.add_argument("--write", action="store_true", help="write the tables into BENCHMARKS.md")
    a = ap.parse_args()
    text = ""
    for model in ([False, True] if a.model else [False]):
        r = run(a.memories, model)
        block = fmt(r)
        print(block, flush=True)
        text += block + "\n"
    if a.write:
        write_section(*MARKERS, text, "First query after a bulk import (issue 13)")


if __name__ == "__main__":
    main()
