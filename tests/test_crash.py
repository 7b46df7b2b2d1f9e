"""Crash safety with real processes: a writer killed at random never loses an
acknowledged write and never leaves the store broken."""

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import gitmem

from conftest import git

WRITER = """
import sys, gitmem
s = gitmem.open(sys.argv[1])
i = 0
while True:
    m = s.remember(f"crash test {sys.argv[2]} {i}")
    print(m.id, flush=True)   # acknowledged: remember returned
    i += 1
"""


@pytest.mark.slow
def test_killed_writers_lose_no_acknowledged_write(store, tmp_path, monkeypatch):
    monkeypatch.setenv("GITMEM_FSYNC", "1")
    (tmp_path / "bin").mkdir()
    script = tmp_path / "bin" / "writer.py"
    script.write_text(WRITER)
    acked: list[str] = []
    rng = random.Random(7)
    for round_ in range(6):
        p = subprocess.Popen([sys.executable, str(script), str(store.home), str(round_)],
                             stdout=subprocess.PIPE, text=True)
        # Kill at a random moment after a few acknowledged writes, so every round
        # interrupts a writer mid-flight however slow the machine is.
        for _ in range(rng.randint(2, 6)):
            line = p.stdout.readline()
            if not line:
                break
            acked.append(line.strip())
        time.sleep(rng.random() * 0.05)
        p.send_signal(signal.SIGKILL)
        out, _ = p.communicate()
        acked += out.split()
    assert len(acked) >= 12
    fresh = gitmem.open(store.home)
    live = {m.id for m in fresh.list()}
    assert set(acked) <= live
    git("--git-dir", str(store.git.path), "fsck", "--strict")
    # and the store still takes writes (no stale lock left behind)
    fresh.remember("after the crashes")


# ---- every writing command killed at random (benchmarks/crash.py is the harness) ----------
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

import crash  # noqa: E402

# A few trials per operation keep `pytest -m slow` short; GITMEM_CRASH_TRIALS=30 runs the
# issue's full count (the figures in BENCHMARKS.md come from `benchmarks/crash.py`).
TRIALS = int(os.environ.get("GITMEM_CRASH_TRIALS") or 4)


@pytest.mark.slow
@pytest.mark.parametrize("op", crash.OPS)
def test_sigkill_at_random_points(op, tmp_path, capsys):
    report = crash.run_op(op, TRIALS, seed=11, workdir=tmp_path, base_env=dict(os.environ))
    s = report.summary()
    with capsys.disabled():
        print("\n" + crash.table([report], TRIALS, True).splitlines()[-1])
    # fsck clean, no acknowledged write lost, nothing half-written, forgotten text gone,
    # the next command succeeded and recall answered right after every kill
    assert s["problems"] == []
    assert s["next_failed"] == 0
    assert s["trials"] == TRIALS
