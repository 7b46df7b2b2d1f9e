"""Crash safety (issue 11): SIGKILL real `gitmem` processes at random points and check
what is left.

    python benchmarks/crash.py [--trials 30] [--seed 11] [--ops remember,import,dream,forget,sync]
                               [--no-fsync] [--write]

Per operation, in a fresh temporary home (`GITMEM_EMBED_MODEL=fake-64`, fsync on unless
--no-fsync), first run the operation twice to completion to measure its wall time T
and the next command's wall time when nothing crashed (the baseline). Then per trial:
start the operation as its own process (`python -m gitmem ...`, as a user runs it),
sleep a random delay (seeded: half uniform over [0, 1.1 T], half uniform over the last
third of T, where the writing happens), SIGKILL it, and check:

  fsck      `git fsck --strict` of the home's repository (and of the remote, for sync)
  acked     every write that returned 0 before (and the killed one if it returned)
            is present (live, or archived by a dream)
  atomic    import: the 1,000 lines of the killed import are all there or none is;
            dream and forget: the op's ids moved all together or not at all
  next      the next command (`gitmem remember`, or `gitmem sync` after a killed sync)
            exits 0; its wall time is recorded (a stale lock would show up here)
  recall    `gitmem recall --json` of a unique word answers correctly (the index heals):
            a memory present is found, a forgotten one is not

Outcomes say where the kill landed as seen from the store afterwards ("before": nothing
of the op is visible; "after": its commit is there; "done": the op had already exited).
The delay is also bucketed by its fraction of T. Run by tests/test_crash.py with a few
trials per op (`GITMEM_CRASH_TRIALS` for more).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

OPS = ("remember", "import", "dream", "forget", "sync")
IMPORT_LINES = 1000


@dataclass
class Trial:
    op: str
    mode: str              # spawn: delay from spawn | lock: delay from the write lock's taking
    delay: float
    kill_at: float | None  # seconds after spawn the kill was sent (None: it exited first)
    in_lock: bool          # the write lock was held when the kill was sent
    outcome: str           # done | before | after
    rc: int | None         # the op's exit code (None: killed)
    next_wall: float = 0.0
    next_rc: int = 0
    problems: list[str] = field(default_factory=list)


@dataclass
class OpReport:
    op: str
    t_op: float
    baseline_next: float
    hold: float = 0.0
    trials: list[Trial] = field(default_factory=list)

    def summary(self) -> dict:
        walls = [t.next_wall for t in self.trials]
        outcomes: dict[str, int] = {}
        for t in self.trials:
            outcomes[t.outcome] = outcomes.get(t.outcome, 0) + 1
        killed = [t for t in self.trials if t.rc is None]
        return {
            "op": self.op, "trials": len(self.trials), "t_op": self.t_op, "hold": self.hold,
            "outcomes": outcomes,
            "killed": len(killed),
            "killed_in_lock": sum(t.in_lock for t in killed),
            "killed_startup": sum(t.mode == "spawn" and not t.in_lock and t.outcome == "before" for t in killed),
            "next_p50": statistics.median(walls) if walls else 0.0,
            "next_max": max(walls) if walls else 0.0,
            "baseline_next": self.baseline_next,
            "next_failed": sum(t.next_rc != 0 for t in self.trials),
            "problems": [f"{self.op}#{i}: {p}" for i, t in enumerate(self.trials) for p in t.problems
                         if not p.startswith("pending:")],
            "pending": sum(p.startswith("pending:") for t in self.trials for p in t.problems),
        }


# ---- processes --------------------------------------------------------------------------
class Env:
    """The environment of every gitmem process of a run (one home per operation)."""

    def __init__(self, base: dict[str, str], workdir: Path, fsync: bool):
        self.base = dict(base)
        self.base["GITMEM_EMBED_MODEL"] = "fake-64"
        self.base["GITMEM_FSYNC"] = "1" if fsync else "0"
        self.base["GITMEM_HOOK_AUTOSTART"] = "0"
        self.base.setdefault("GITMEM_NAME", "Crash Test")
        self.base.setdefault("GITMEM_EMAIL", "crash@example.com")
        pp = self.base.get("PYTHONPATH")
        self.base["PYTHONPATH"] = str(ROOT) + (os.pathsep + pp if pp else "")
        self.workdir = workdir

    def for_home(self, home: Path) -> dict[str, str]:
        return {**self.base, "GITMEM_HOME": str(home)}


def gm(env: dict[str, str], *args: str, input: str | None = None) -> tuple[int, str, str, float]:
    t0 = time.perf_counter()
    p = subprocess.run([sys.executable, "-m", "gitmem", *args], env=env, capture_output=True,
                       text=True, input=input)
    return p.returncode, p.stdout, p.stderr, time.perf_counter() - t0


def spawn_and_kill(env: dict[str, str], args: list[str], delay: float | None,
                   lock: Path | None = None) -> tuple[int | None, str, str, dict]:
    """Run `gitmem args` and SIGKILL it: `delay` seconds after spawn, or with `lock`,
    `delay` seconds after some process first holds that flock (the store's write lock:
    the kill lands inside the write). None: let it finish. Returns (exit code or None
    if killed, stdout, stderr, timing: spawn->lock first seen, kill time, whether the
    lock was held at the kill)."""
    from gitmem.core.fsutil import is_locked

    info: dict = {"lock_at": None, "kill_at": None, "in_lock": False}
    t0 = time.perf_counter()
    # Its own process group, killed whole: the git processes it runs die with it, as in
    # a machine crash or an OOM kill of the session.
    p = subprocess.Popen([sys.executable, "-m", "gitmem", *args], env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, start_new_session=True)
    if delay is not None:
        deadline = None if lock is not None else t0 + delay
        while p.poll() is None:
            now = time.perf_counter()
            if deadline is None:
                if is_locked(lock):
                    info["lock_at"] = now - t0
                    deadline = now + delay
                else:
                    time.sleep(0.0005)
                    continue
            if now >= deadline:
                info["in_lock"] = bool(lock is not None and is_locked(lock))
                os.killpg(p.pid, signal.SIGKILL)
                info["kill_at"] = time.perf_counter() - t0
                break
            time.sleep(min(0.002, max(0.0, deadline - now)))
    elif lock is not None:
        while p.poll() is None:  # calibration: how long the lock is held
            if is_locked(lock):
                now = time.perf_counter() - t0
                info["lock_at"] = info["lock_at"] or now
            time.sleep(0.0005)
        info["end"] = time.perf_counter() - t0
    out, err = p.communicate()
    rc = p.returncode
    return (None if rc == -signal.SIGKILL else rc), out, err, info


def wait_git_orphans(*paths: Path, timeout: float = 30.0) -> None:
    """Wait for git processes that name one of these paths to exit. `gitmem sync` runs
    `git push` in a session of its own (so ssh cannot open the terminal): a SIGKILL of
    gitmem's process group leaves that push, and the receive-pack it started, running to
    its end. fsck racing them sees a ref that moved after it listed the objects as
    pointing at a missing commit. Linux reads /proc; elsewhere a short sleep."""
    proc = Path("/proc")
    if not proc.is_dir():
        time.sleep(1.0)
        return
    needles = [str(p).encode() for p in paths]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        busy = False
        for d in proc.iterdir():
            if not d.name.isdigit() or int(d.name) == os.getpid():
                continue
            try:
                cmd = (d / "cmdline").read_bytes()
            except OSError:
                continue
            if b"git" in cmd and any(n in cmd for n in needles):
                busy = True
                break
        if not busy:
            return
        time.sleep(0.05)


def fsck(git_dir: Path) -> list[str]:
    """`git fsck --strict` problems ([] when clean), background maintenance waited for."""
    def run():
        r = subprocess.run(["git", "--git-dir", str(git_dir), "fsck", "--strict", "--no-progress"],
                           capture_output=True, text=True)
        lines = [ln for ln in (r.stdout + r.stderr).splitlines()
                 if ln.strip() and not ln.startswith(("dangling", "notice:"))]
        return lines or (["git fsck failed"] if r.returncode else [])

    if (git_dir.parent / "state").is_dir():
        from gitmem.store import GitStore

        with GitStore(git_dir.parent, fsync=False).maintenance_paused():
            return run()
    # A plain bare remote: a push into it starts git's own `gc --auto` (detached, so a
    # killed push's process group does not take it along); fsck racing its repack
    # reports packs it deletes meanwhile as missing objects. Wait for it first.
    for _ in range(300):
        if not (git_dir / "gc.pid").exists():
            break
        time.sleep(0.1)
    return run()


def tree_paths(git_dir: Path, ref: str) -> list[str]:
    r = subprocess.run(["git", "--git-dir", str(git_dir), "ls-tree", "-r", "--name-only", ref],
                       capture_output=True, text=True)
    return r.stdout.split() if r.returncode == 0 else []


def ids_in(git_dir: Path, ref: str = "main", roots: tuple[str, ...] = ("memories/",)) -> set[str]:
    return {p.rsplit("/", 1)[1][:-3] for p in tree_paths(git_dir, ref)
            if p.startswith(roots) and p.endswith(".md")}


def recall_ids(env: dict[str, str], query: str, *extra: str) -> tuple[int, list[str], str]:
    rc, out, err, _ = gm(env, "recall", query, "-k", "5", "--json", "--mode", "bm25", *extra)
    if rc != 0:
        return rc, [], err
    return rc, [h["id"] for h in json.loads(out)], err


def plan(rng: random.Random, n: int, t_op: float, hold: float) -> list[tuple[str, float]]:
    """Half the trials: a kill at a uniform point of [0, 1.1 T] from spawn (most land
    in start-up: a short command is mostly imports); the other half: a uniform point of
    [0, 1.1 W] after the write lock is first taken (W: from then to the exit)."""
    out = [("spawn", rng.uniform(0, 1.1 * t_op)) if i % 2 == 0 else ("lock", rng.uniform(0, 1.1 * hold))
           for i in range(n)]
    rng.shuffle(out)
    return out


# ---- the operations -----------------------------------------------------------------------
class Op:
    """One operation under test: set-up, the command of trial i, and the checks."""

    name = ""
    next_args: tuple[str, ...] = ()

    def __init__(self, env: Env, workdir: Path):
        self.env = env
        self.home = workdir / self.name / "home"
        self.git_dir = self.home / "repo.git"
        self.e = env.for_home(self.home)
        self.acked: set[str] = set()
        self.word_of: dict[str, str] = {}   # id -> a unique word of its text

    def api(self):
        import gitmem

        return gitmem.open(self.home)

    def setup(self) -> None:
        import gitmem

        s = gitmem.init(self.home)
        for j in range(20):
            self._ack(s.remember(f"seed memory {j} about topic w{self.name}seed{j}").id, f"w{self.name}seed{j}")

    def _ack(self, mem_id: str, word: str) -> None:
        self.acked.add(mem_id)
        self.word_of[mem_id] = word

    def before(self, i: int) -> None:
        """Untimed preparation of trial i (acknowledged writes through the API)."""

    def args(self, i: int) -> list[str]:
        raise NotImplementedError

    def after(self, i: int, rc: int | None, out: str, err: str = "") -> tuple[str, list[str]]:
        """(outcome, problems) right after the kill, before the next command."""
        raise NotImplementedError

    def present(self) -> set[str]:
        return ids_in(self.git_dir)

    def check_acked(self) -> list[str]:
        missing = self.acked - self.present()
        return [f"lost: acknowledged write(s) {sorted(missing)[:3]}"] if missing else []

    def next_command(self, i: int) -> tuple[int, float, list[str]]:
        word = f"w{self.name}next{i}"
        rc, out, err, wall = gm(self.e, "remember", f"after trial {i}: {word}", "--json")
        if rc != 0:
            return rc, wall, [f"next: command failed ({rc}): {err.strip()[:200]}"]
        self._ack(json.loads(out)["id"], word)
        return rc, wall, []

    def answers(self, mem_id: str) -> set[str]:
        """Ids that correctly answer a recall of `mem_id`'s word."""
        return {mem_id}

    def check_recall(self, i: int) -> list[str]:
        """The newest acknowledged memory and one older one are found by recall."""
        probs = []
        rng = random.Random(i)
        chosen = sorted(self.acked)[-1:] + rng.sample(sorted(self.acked), 1)
        for mid in chosen:
            word = self.word_of.get(mid)
            if not word:
                continue
            rc, ids, err = recall_ids(self.e, word, *self.recall_args())
            if rc != 0:
                probs.append(f"recall: failed ({rc}): {err.strip()[:200]}")
            elif not self.answers(mid) & set(ids):
                probs.append(f"recall: {word!r} missed {mid} (got {ids[:3]})")
        return probs

    def recall_args(self) -> tuple[str, ...]:
        return ()


class Remember(Op):
    name = "remember"

    def args(self, i):
        self.cur = f"w{self.name}{i}x"
        return ["remember", f"killed remember {i}: {self.cur}", "--json"]

    def after(self, i, rc, out, err=""):
        found = [m for m in self.present() - self.acked]
        if rc == 0:
            mid = json.loads(out)["id"]
            self._ack(mid, self.cur)
            return "done", []
        if rc is not None:
            return "done", [f"exit: {rc}"]
        if not found:
            return "before", []
        if len(found) > 1:
            return "after", [f"half: one remember made {len(found)} memories"]
        self._ack(found[0], self.cur)  # committed before the kill: it must stay
        return "after", []


class Import(Op):
    name = "import"

    def setup(self):
        super().setup()
        self.dir = self.home.parent / "jsonl"
        self.dir.mkdir(parents=True, exist_ok=True)

    @staticmethod
    def scope(i: int) -> str:
        return f"channel/imp{i}".replace("-", "c")

    def args(self, i):
        path = self.dir / f"{i}.jsonl"
        with open(path, "w") as fh:
            for j in range(IMPORT_LINES):
                fh.write(json.dumps({"text": f"imported line {j} of batch {i}: wimp{i}x{j}",
                                     "scope": self.scope(i), "tags": ["crash"]}) + "\n")
        return ["import", "--jsonl", str(path), "--json"]

    def after(self, i, rc, out, err=""):
        n = len(ids_in(self.git_dir, self.scope(i)))
        outcome = "done" if rc is not None else ("before" if n == 0 else "after")
        probs = [] if n in (0, IMPORT_LINES) else [f"half: import wrote {n} of {IMPORT_LINES}"]
        if rc == 0 and n != IMPORT_LINES:
            probs.append(f"lost: import returned 0 with {n} lines")
        if rc not in (0, None):
            probs.append(f"exit: {rc}")
        if n == IMPORT_LINES:
            ids = sorted(ids_in(self.git_dir, self.scope(i)))
            self.imported = (i, ids)
        else:
            self.imported = None
        return outcome, probs

    def check_recall(self, i):
        probs = super().check_recall(i)
        if getattr(self, "imported", None):
            j, ids = self.imported
            # the word of line 0 of this batch: exactly one memory holds it
            rc, hits, err = recall_ids(self.e, f"wimp{j}x0", "--scope", self.scope(j))
            if rc != 0 or len(hits) != 1:
                probs.append(f"recall: imported batch {j}: rc {rc}, {hits[:3]} {err.strip()[:100]}")
        return probs


class Dream(Op):
    name = "dream"

    def before(self, i):
        s = self.api()
        self.pair = []
        for k in range(3):  # exact duplicates: dream merges each pair
            text = f"duplicate note {i}-{k}: wdream{i}d{k}"
            a = s.remember(text).id
            b = s.remember(text).id
            self._ack(a, f"wdream{i}d{k}")
            self._ack(b, f"wdream{i}d{k}")
            self.pair.append((a, b))
        self.tip = subprocess.run(["git", "--git-dir", str(self.git_dir), "rev-parse", "main"],
                                  capture_output=True, text=True).stdout.strip()

    def args(self, i):
        return ["dream", "--force", "--json"]

    def present(self):
        return ids_in(self.git_dir, roots=("memories/", "archive/")) | self._merged()

    def _survivors(self) -> dict[str, set[str]]:
        # ids a dream merged into another -> the memories naming them in `supersedes`
        out: dict[str, set[str]] = {}
        for m in self.api().list(archived=True):
            for old in m.supersedes:
                out.setdefault(old, set()).add(m.id)
        return out

    def _merged(self) -> set[str]:
        return set(self._survivors())

    def check_recall(self, i):
        # A memory dream merged into another is present through the survivor's
        # `supersedes`, its words possibly not (a merge keeps one text): recall is
        # checked on the memories whose own file is still there.
        files = ids_in(self.git_dir, roots=("memories/", "archive/"))
        kept = self.acked
        self.acked = {m for m in kept if m in files}
        try:
            return super().check_recall(i)
        finally:
            self.acked = kept

    def after(self, i, rc, out, err=""):
        live = ids_in(self.git_dir)
        merged = [a not in live or b not in live for a, b in self.pair]
        tip = subprocess.run(["git", "--git-dir", str(self.git_dir), "rev-parse", "main"],
                             capture_output=True, text=True).stdout.strip()
        probs = []
        if any(merged) and not all(merged):
            probs.append(f"half: dream merged {merged}")
        if rc not in (0, None):
            probs.append(f"exit: {rc}")
        if rc is not None:
            return "done", probs
        return ("after" if tip != self.tip else "before"), probs

    def recall_args(self):
        return ("--archived",)


class Forget(Op):
    name = "forget"

    def before(self, i):
        s = self.api()
        self.victim = s.remember(f"forget me {i}: wforget{i}v secret-ish").id
        keep = s.remember(f"keep me {i}: wforget{i}k").id
        self._ack(keep, f"wforget{i}k")

    def args(self, i):
        return ["forget", self.victim, "--json"]

    def after(self, i, rc, out, err=""):
        live = self.victim in ids_in(self.git_dir)
        probs = []
        if rc == 0 and live:
            probs.append("half: forget returned 0 and the memory is still live")
        if rc not in (0, None):
            probs.append(f"exit: {rc}: {err.strip()[:200]}")
        self.forgotten = not live
        if not live and self.text_left(f"wforget{i}v"):
            # Left by a kill between the ref move and the prune: the next open finishes
            # the purge (counted, not a problem; still there after the next command is).
            probs.append("pending: forgotten text still in the objects right after the kill"
                         if rc is None else "leak: forgotten text still in the objects after exit 0")
        if rc is not None:
            return "done", probs
        return ("before" if live else "after"), probs

    def text_left(self, word: str) -> bool:
        """Whether any object of the repository (reachable or not) still holds `word`."""
        from gitmem.store import GitStore

        with GitStore(self.home, fsync=False).maintenance_paused():
            r = subprocess.run(["git", "--git-dir", str(self.git_dir), "cat-file", "--batch-all-objects",
                                "--batch", "--unordered"], capture_output=True)
        return any(f in r.stdout for f in (word.encode(), word.encode()[::-1]))

    def check_recall(self, i):
        probs = super().check_recall(i)
        if self.forgotten and self.text_left(f"wforget{i}v"):
            probs.append("leak: forgotten text still in the objects after the next command")
        rc, ids, err = recall_ids(self.e, f"wforget{i}v")
        if rc != 0:
            probs.append(f"recall: failed ({rc}): {err.strip()[:200]}")
        elif self.forgotten and self.victim in ids:
            probs.append(f"recall: still finds forgotten {self.victim}")
        elif not self.forgotten and self.victim not in ids:
            probs.append(f"recall: misses the unforgotten {self.victim}")
        return probs


class Sync(Op):
    name = "sync"
    next_args = ("sync",)

    def setup(self):
        import gitmem

        self.remote = self.home.parent / "remote.git"
        subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(self.remote)], check=True)
        super().setup()
        s = gitmem.open(self.home)
        s.remote_add("origin", str(self.remote))
        s.sync()
        time.sleep(1.1)  # B's first sync a second later, as on another machine
        self.other = self.home.parent / "other"
        b = gitmem.init(self.other)
        b.remote_add("origin", str(self.remote))
        b.sync()

    def before(self, i):
        import gitmem

        s = self.api()
        for k in range(2):
            self._ack(s.remember(f"local {i}-{k}: wsync{i}l{k}").id, f"wsync{i}l{k}")
        b = gitmem.open(self.other)
        b.remember(f"from the other clone {i}: wsync{i}o")
        b.sync()
        self.remote_before = set(ids_in(self.remote))

    def args(self, i):
        return ["sync", "--json", "--quiet"]

    def after(self, i, rc, out, err=""):
        wait_git_orphans(self.home, self.remote)
        probs = [f"fsck: remote: {p}" for p in fsck(self.remote)]
        on_remote = ids_in(self.remote)
        mine = {m for m in self.acked if m in ids_in(self.git_dir)}
        if rc not in (0, None):
            probs.append(f"exit: {rc}: {out[:200]}")
        if rc == 0 and not mine <= on_remote:
            probs.append("lost: sync returned 0 but the remote lacks local memories")
        if rc is not None:
            return "done", probs
        return ("after" if on_remote != self.remote_before else "before"), probs

    def next_command(self, i):
        rc, out, err, wall = gm(self.e, "sync", "--json", "--quiet")
        probs = [] if rc == 0 else [f"next: sync failed ({rc}): {err.strip()[:200]}"]
        if rc == 0:
            missing = self.acked - ids_in(self.remote)
            if missing:
                probs.append(f"lost: after the next sync the remote lacks {sorted(missing)[:3]}")
            probs += [f"fsck: remote after next sync: {p}" for p in fsck(self.remote)]
        return rc, wall, probs


OP_CLASSES = {c.name: c for c in (Remember, Import, Dream, Forget, Sync)}


def run_op(name: str, trials: int, seed: int, workdir: Path, base_env: dict[str, str],
           fsync: bool = True, log=print) -> OpReport:
    env = Env(base_env, workdir, fsync)
    op = OP_CLASSES[name](env, workdir)
    op.setup()
    lock = op.home / "state" / "locks" / "write.lock"
    # Calibration: the op run to completion twice, and the next command after it.
    times, holds, nexts = [], [], []
    for c in range(2):
        i = 900 + c  # calibration runs: their own numbers
        op.before(i)
        t0 = time.perf_counter()
        rc, out, err, info = spawn_and_kill(op.e, op.args(i), None, lock)
        times.append(time.perf_counter() - t0)
        if info["lock_at"] is not None:
            holds.append(info["end"] - info["lock_at"])
        if rc != 0:
            raise RuntimeError(f"{name} failed uninterrupted ({rc}): {err}")
        op.after(i, rc, out)
        rc, wall, probs = op.next_command(i)
        if rc != 0:
            raise RuntimeError(f"next command failed with no crash: {probs}")
        nexts.append(wall)
    t_op = statistics.median(times)
    hold = max(0.005, statistics.median(holds) if holds else 0.0)
    report = OpReport(name, t_op, statistics.median(nexts), hold=hold)
    rng = random.Random(f"{seed}-{name}")
    for i, (mode, delay) in enumerate(plan(rng, trials, t_op, hold)):
        op.before(i)
        rc, out, err, info = spawn_and_kill(op.e, op.args(i), delay, lock if mode == "lock" else None)
        outcome, probs = op.after(i, rc, out, err)
        t = Trial(name, mode, delay, info["kill_at"], info["in_lock"], outcome, rc, problems=list(probs))
        t.problems += [f"fsck: {p}" for p in fsck(op.git_dir)]
        t.problems += op.check_acked()
        t.next_rc, t.next_wall, p = op.next_command(i)
        t.problems += p
        t.problems += op.check_recall(i)
        t.problems += op.check_acked()
        report.trials.append(t)
        where = "exited first" if rc is not None else (
            f"killed at {info['kill_at'] * 1000:.0f} ms" + (" (in the write lock)" if t.in_lock else ""))
        log(f"  {name} #{i}: {mode} +{delay * 1000:.0f} ms, {where}, {outcome}, "
            f"next {t.next_wall:.2f} s" + (f"  PROBLEMS: {t.problems}" if t.problems else ""))
    return report


def table(reports: list[OpReport], trials: int, fsync: bool) -> str:
    lines = [
        f"SIGKILL of a real `gitmem` process, {trials} trials per operation (seeded), fsync "
        f"{'on' if fsync else 'off'}, fake embedder. Half the kills at a uniform point of "
        "[0, 1.1 T] after spawn, half at a uniform point of [0, 1.1 W] after the store's write "
        "lock is first taken; the process group is killed (its git children die too). T = the "
        "operation's wall time uninterrupted, W = from its first taking of the write lock to its "
        "exit (medians of 2). Outcomes as seen in the store afterwards: before = "
        "nothing of the op visible, after = its commit there, done = it exited before the kill. "
        "next = wall time of the next command as a new process (`gitmem remember`; `gitmem sync` "
        "after a killed sync), baseline = the same after an uninterrupted run.",
        "",
        "| operation | T / W (s) | killed (in write lock) | outcomes | fsck --strict | acked lost | "
        "half-written | forgotten text left after the next command | next p50 / max (s) | baseline next (s) | next failed | "
        "recall wrong |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in reports:
        s = r.summary()
        oc = ", ".join(f"{k} {v}" for k, v in sorted(s["outcomes"].items()))
        probs = s["problems"]

        def count(kind: str) -> int:
            return sum(p.split(": ", 1)[1].startswith(kind + ":") for p in probs)

        n_fsck, lost, half, rec = count("fsck"), count("lost"), count("half"), count("recall")
        leak = count("leak")
        left = f"{leak} ({s['pending']} right after the kill)" if r.op == "forget" else "-"
        lines.append(f"| {r.op} | {s['t_op']:.2f} / {s['hold']:.3f} | {s['killed']} ({s['killed_in_lock']}) | "
                     f"{oc} | {'clean' if not n_fsck else f'{n_fsck} problem(s)'} | {lost} | {half} | "
                     f"{left} | "
                     f"{s['next_p50']:.2f} / {s['next_max']:.2f} | {s['baseline_next']:.2f} | "
                     f"{s['next_failed']} | {rec} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--trials", type=int, default=30)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--ops", default=",".join(OPS))
    ap.add_argument("--no-fsync", action="store_true")
    ap.add_argument("--write", action="store_true", help="Write the table into BENCHMARKS.md.")
    a = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="gitmem-crash-"))
    base = {k: v for k, v in os.environ.items() if not k.startswith(("GITMEM_", "GIT_"))}
    base["HOME"] = str(work / "userhome")
    base["GIT_CONFIG_GLOBAL"] = str(work / "userhome" / ".gitconfig")
    base["GIT_CONFIG_NOSYSTEM"] = "1"
    (work / "userhome").mkdir()
    (work / "userhome" / ".gitconfig").write_text("[user]\n\tname = Crash\n\temail = crash@example.com\n")
    os.environ.clear()
    os.environ.update({**base, "GITMEM_EMBED_MODEL": "fake-64", "GITMEM_FSYNC": "0" if a.no_fsync else "1"})
    reports = []
    t0 = time.time()
    try:
        for name in a.ops.split(","):
            print(f"{name}:", flush=True)
            reports.append(run_op(name, a.trials, a.seed, work, base, fsync=not a.no_fsync,
                                  log=lambda s: print(s, flush=True)))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    text = table(reports, a.trials, not a.no_fsync)
    text += f"\n({time.time() - t0:.0f} s in all; `python benchmarks/crash.py --trials {a.trials} --seed {a.seed}`)\n"
    print(text)
    for r in reports:
        for p in r.summary()["problems"]:
            print("PROBLEM", p)
    if a.write:
        from _report import write_section

        write_section("<!-- crash:begin -->", "<!-- crash:end -->", text, "Reliability: crashes")


if __name__ == "__main__":
    main()
