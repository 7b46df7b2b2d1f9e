"""Shared by the benchmark scripts: replace a marked block in BENCHMARKS.md."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def write_section(begin: str, end: str, text: str, heading: str) -> None:
    """Put `text` between the `begin`/`end` markers, or append it under `heading`."""
    path = ROOT / "BENCHMARKS.md"
    body = path.read_text() if path.exists() else "# Benchmarks\n"
    block = f"{begin}\n{text}{end}"
    if begin in body and end in body:
        body = body[: body.index(begin)] + block + body[body.index(end) + len(end):]
    else:
        body = body.rstrip("\n") + f"\n\n## {heading}\n\n" + block + "\n"
    path.write_text(body)


def pct(xs: list[float], p: float) -> float:
    """The p-th percentile (nearest rank) of xs."""
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]


def start_watcher(args: list[str], env: dict[str, str]):
    """A `gitmem watch --json ...` process and a reader thread that stamps each event's
    arrival: returns (process, {commit: arrival time}, condition notified per event)."""
    import json
    import subprocess
    import sys
    import threading
    import time

    proc = subprocess.Popen([sys.executable, "-m", "gitmem", "watch", "--json", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env, bufsize=1)
    seen: dict[str, float] = {}
    cond = threading.Condition()

    def reader():
        for line in proc.stdout:
            t = time.time()
            ev = json.loads(line)
            with cond:
                seen[ev["commit"]] = t
                cond.notify_all()

    threading.Thread(target=reader, daemon=True).start()
    return proc, seen, cond
