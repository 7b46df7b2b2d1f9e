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

from conftest import git, raw_forms

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


def _objects_hold(store, word: str) -> bool:
    from gitmem.store import GitStore

    with GitStore(store.home, fsync=False).maintenance_paused():
        out = subprocess.run(["git", "--git-dir", str(store.git.path), "cat-file", "--batch-all-objects",
                              "--batch", "--unordered"], capture_output=True).stdout
    return any(f in out for f in raw_forms(word))


def test_a_forget_killed_after_its_rewrite_is_finished_by_the_next_open(store, monkeypatch):
    """Found by benchmarks/crash.py: 4 of 30 forgets killed between the ref move and the
    prune left the forgotten text in unreachable objects (and the index)."""
    from gitmem.store import GitStore

    victim = store.remember("the old vpn nickname is bluefish-wq9")
    keep = store.remember("keep this one")
    store.recall("bluefish-wq9")  # the index holds the text too

    def killed(self, *a, **kw):
        raise KeyboardInterrupt  # as if SIGKILL landed here

    monkeypatch.setattr(GitStore, "prune", killed)
    with pytest.raises(KeyboardInterrupt):
        store.forget([victim.id])
    monkeypatch.undo()
    assert victim.id not in {m.id for m in store.list()}  # the refs had moved
    assert _objects_hold(store, "bluefish-wq9")
    assert (store.home / "state" / "purge-pending.json").exists()
    fresh = gitmem.open(store.home)
    assert not _objects_hold(store, "bluefish-wq9")
    assert not (store.home / "state" / "purge-pending.json").exists()
    assert [h.id for h in fresh.recall("bluefish-wq9")] != [victim.id]
    assert keep.id in {m.id for m in fresh.list()}
    git("--git-dir", str(store.git.path), "fsck", "--strict")


def test_a_forget_refused_before_its_rewrite_leaves_no_marker(store, monkeypatch):
    from gitmem.core.errors import ConflictError
    from gitmem.store import GitStore

    victim = store.remember("short lived note wq9")

    def moved(self, *a, **kw):
        raise ConflictError("refs moved")

    monkeypatch.setattr(GitStore, "update_refs", moved)
    with pytest.raises(ConflictError):
        store.forget([victim.id])
    assert not (store.home / "state" / "purge-pending.json").exists()


def test_a_ref_lock_left_by_a_killed_writer_is_cleared_without_a_pack_per_retry(store):
    store.remember("before the crash")
    lock = store.git.path / "refs" / "heads" / "main.lock"
    lock.parent.mkdir(parents=True, exist_ok=True)
    lock.write_text("0" * 40 + "\n")  # fresh: a killed writer's, just now
    packs = set((store.git.path / "objects" / "pack").glob("*.pack"))
    t0 = time.monotonic()
    m = store.remember("after the crash")
    waited = time.monotonic() - t0
    print(f"\nnext write after a fresh stale ref lock: {waited:.2f} s")
    assert not lock.exists()
    assert m.id in {x.id for x in gitmem.open(store.home).list()}
    new = set((store.git.path / "objects" / "pack").glob("*.pack")) - packs
    assert len(new) <= 2  # the write's pack (and at most one repack), not one per retry


@pytest.mark.parametrize("name", ["refs/gitmem/redactions", "refs/heads/main", "packed-refs"])
def test_a_lock_left_by_a_killed_ref_transaction_does_not_block_the_next_forget(store, name):
    """Found by benchmarks/crash.py: a forget killed inside `git update-ref --stdin`
    left a ref lock behind, and every later forget failed (exit 5)."""
    store.remember("keep me")
    victim = store.remember("forget me please wq7")
    lock = store.git.path / (name + ".lock")
    lock.parent.mkdir(parents=True, exist_ok=True)
    lock.write_text("0" * 40 + "\n")
    os.utime(lock, (time.time() - 3, time.time() - 3))  # left a moment ago by a killed process
    out = store.forget([victim.id])
    assert out["ids"] == [victim.id] and not lock.exists()
    git("--git-dir", str(store.git.path), "fsck", "--strict")
