"""Sync time (issue 9): N new memories on one clone, time until the other has them,
against plain git moving the same refs in the same run.

    python benchmarks/sync.py [--n 1000] [--reps 3] [--no-fsync] [--profile] [--write]
                              [--cases remember,import,diverged,forget]

Set-up of every repetition, in a fresh temporary folder: a bare remote
(`git init --bare -b main`), stores A and B (`gitmem.init`, `GITMEM_EMBED_MODEL=fake-64`
so no model loads, `GITMEM_FSYNC` on unless --no-fsync), both with the remote as
`origin` (`Store.remote_add`). A remembers 10 memories and syncs, B syncs: both share
that history. (B's first sync is at least a second after A's, as on two real machines:
a store marker B made itself would then differ from A's; B adopts the remote's.) Then,
untimed, per case:

  remember  A writes N memories through `Store.remember`, one by one (N commits: the
            agent case). B has nothing new: its sync fast-forwards.
  import    A writes N memories through `Store.import_items` in batches of 100
            (N/100 commits). B fast-forwards.
  diverged  as `remember`, and B writes 50 memories of its own first: B's sync makes a
            true merge commit and pushes it back.
  forget    as `remember`, then A forgets one of the 10 shared memories (history purged,
            a record in the redaction ledger): A force-pushes the rewritten history and
            the ledger, B applies the ledger to its own history before it moves.

Before anything is synced, A's and B's repo.git and the remote are copied (`cp -a`), and
the timed part runs twice, once per copy:

  gitmem    `A.sync()` (fetch, nothing new, push) then `B.sync()` (fetch, ledger, merge,
            push if anything is new locally), each on a freshly opened Store.
  plain git what a careful script does to move the same refs, each step one git process
            like gitmem's own transport. On A's copy: one `git push <remote-copy> R:R ...`
            with `--force-with-lease=R:<remote tip>` for each ref that differs from the
            remote (gitmem's refs: scopes, ledger, notes; listed untimed; not
            refs/gitmem/meta, a format stamp with the same content on every clone). On
            B's copy: `git fetch --prune <remote-copy>` with gitmem's refspecs into the
            tracking refs, one `git for-each-ref`, then per moved ref
            `git merge-base --is-ancestor` and `git update-ref NEW OLD` (fast-forward),
            or `git merge-tree --write-tree` + `git commit-tree` + `git update-ref`
            (diverged) and a leased `git push` of the result; for the rewritten history
            of `forget`, `git update-ref` to the remote's tip.

Both sides run the same git binary with the same repository configuration (so the git
transport fsyncs alike); gitmem's own writes (merge commits, ref moves) fsync per
GITMEM_FSYNC. Background repacks are waited for before each timed step. Each case is
repeated --reps times with fresh folders (the order gitmem / plain alternates); the
table shows median seconds, and the ratio is the median of the per-repetition ratios
gitmem ÷ plain git (target of the issue: total within 2×). --profile runs one more
gitmem sync of each case under cProfile and prints the top costs.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import io
import os
import pstats
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import gitmem  # noqa: E402
from gitmem.store.transport import fetch_refspecs  # noqa: E402

CASES = ("remember", "import", "diverged", "forget")
SHARED = 10
B_LOCAL = 50
BATCH = 100
# The refs gitmem pushes (sync.py): scopes, notes, its meta and ledger refs.
PUSHED = ("refs/heads/", "refs/notes/", "refs/gitmem/meta", "refs/gitmem/redactions")


def git(git_dir: Path, *args: str, input: bytes | None = None, check: bool = True) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_AUTHOR_NAME="b", GIT_AUTHOR_EMAIL="b@x", GIT_COMMITTER_NAME="b", GIT_COMMITTER_EMAIL="b@x",
               GIT_TERMINAL_PROMPT="0")
    res = subprocess.run(["git", f"--git-dir={git_dir}", *args], input=input, capture_output=True, env=env,
                         check=False, stdin=None if input is not None else subprocess.DEVNULL)
    if check and res.returncode != 0:
        raise RuntimeError(f"git {' '.join(args[:3])} failed ({res.returncode}): {res.stderr.decode()[-500:]}")
    return res


def refs(git_dir: Path, prefixes: tuple[str, ...] = PUSHED) -> dict[str, str]:
    out = git(git_dir, "for-each-ref", "--format=%(objectname) %(refname)").stdout.decode()
    found = {}
    for line in out.splitlines():
        oid, ref = line.split(" ", 1)
        if ref.startswith(prefixes) and not ref.startswith("refs/gitmem/remotes/"):
            found[ref] = oid
    return found


def memory_paths(git_dir: Path, ref: str = "refs/heads/main") -> set[str]:
    out = git(git_dir, "ls-tree", "-r", "--name-only", ref).stdout.decode()
    return {p for p in out.splitlines() if p.endswith(".md")}


def quiesce(*stores) -> None:
    """Wait for background repacks started by earlier writes (they compete for the cores),
    and collect garbage: a Store dropped earlier sits in a reference cycle, and freeing it
    unmaps packs a repack deleted meanwhile; on a disk mounted with `discard` the kernel
    then frees their blocks synchronously, 0.3-1 s that would land in whatever runs next."""
    for s in stores:
        with s.git.maintenance_paused():
            pass
    gc.collect()


# ---- set-up ---------------------------------------------------------------------------
def setup(tmp: Path, case: str, n: int) -> dict[str, Path]:
    remote = tmp / "remote.git"
    git(tmp, "init", "-q", "--bare", "-b", "main", str(remote))
    a, b = gitmem.init(tmp / "a"), gitmem.init(tmp / "b")
    for s in (a, b):
        s.remote_add("origin", str(remote))
    shared = [a.remember(f"shared memory {i}: the project uses tool {i}", type="fact").id for i in range(SHARED)]
    a.sync()
    # Two real machines never set up in the same second: a marker B made itself would
    # differ from A's (sync adopts the remote's; this keeps that path measured).
    time.sleep(1.05 - time.time() % 1)
    b.sync()
    if case == "diverged":
        for i in range(B_LOCAL):
            b.remember(f"memory {i} written on B: B's user likes colour {i % 7}", type="fact")
    if case == "import":
        for start in range(0, n, BATCH):
            a.import_items({"text": f"new memory {i} on A: the user prefers option {i % 13} for task {i}",
                            "type": "fact"} for i in range(start, min(n, start + BATCH)))
    else:
        for i in range(n):
            a.remember(f"new memory {i} on A: the user prefers option {i % 13} for task {i}", type="fact")
    if case == "forget":
        a.forget([shared[SHARED // 2]], reason="benchmark")
    quiesce(a, b)
    plain = tmp / "plain"
    plain.mkdir()
    for src, dst in ((remote, "remote.git"), (tmp / "a" / "repo.git", "a.git"), (tmp / "b" / "repo.git", "b.git")):
        subprocess.run(["cp", "-a", str(src), str(plain / dst)], check=True)
    return {"a": tmp / "a", "b": tmp / "b", "remote": remote, "pa": plain / "a.git", "pb": plain / "b.git",
            "premote": plain / "remote.git"}


# ---- the two ways -----------------------------------------------------------------------
def run_gitmem(p: dict[str, Path], case: str) -> tuple[float, float]:
    a, b = gitmem.open(p["a"]), gitmem.open(p["b"])
    quiesce(a, b)
    t0 = time.perf_counter()
    ra = a.sync()
    t1 = time.perf_counter()
    quiesce(a, b)
    t2 = time.perf_counter()
    rb = b.sync()
    t3 = time.perf_counter()
    quiesce(a, b)
    sa, sb = ra["remotes"][0]["scopes"][0], rb["remotes"][0]["scopes"][0]
    assert sa["pushed"], ra
    want = {"diverged": ("merge",), "forget": ("fast-forward", "merge")}.get(case, ("fast-forward",))
    assert sb["merged"] in want, rb
    if case == "forget":
        assert rb["remotes"][0]["ledger"]["merged"] != "none", rb
    return t1 - t0, t3 - t2


def push_specs(local: Path, remote: Path) -> list[tuple[str, str | None]]:
    """(ref, remote's current id) for each gitmem ref whose local tip differs from the
    remote's (listed untimed: a script knows which refs it wrote)."""
    there, here = refs(remote), refs(local)
    return [(r, there.get(r)) for r, oid in sorted(here.items()) if there.get(r) != oid
            and not (r == "refs/gitmem/meta" and r in there)]  # the format stamp: any copy will do


def plain_push(local: Path, remote: Path, specs: list[tuple[str, str | None]]) -> None:
    """One `git push`, each ref leased on the tip seen (as gitmem does)."""
    if specs:
        git(local, "push", "--porcelain", "--no-verify", *(f"--force-with-lease={r}:{old or ''}" for r, old in specs),
            str(remote), *(f"{r}:{r}" for r, _ in specs))


def plain_pull(local: Path, remote: Path, case: str) -> list[tuple[str, str | None]]:
    """Fetch into the tracking refs, then move each local ref; returns what to push
    back (a merge)."""
    git(local, "fetch", "--quiet", "--no-tags", "--no-write-fetch-head", "--prune", str(remote),
        *fetch_refspecs("origin"))
    out = git(local, "for-each-ref", "--format=%(objectname) %(refname)").stdout.decode()
    have = {ref: oid for oid, ref in (line.split(" ", 1) for line in out.splitlines())}
    push = []
    for ref, tracking in (("refs/heads/main", "refs/remotes/origin/main"),
                          ("refs/gitmem/redactions", "refs/gitmem/remotes/origin/gitmem/redactions")):
        ours, theirs = have.get(ref), have.get(tracking)
        if theirs is None or ours == theirs:
            continue
        if ours is None or git(local, "merge-base", "--is-ancestor", ours, theirs, check=False).returncode == 0:
            git(local, "update-ref", ref, theirs, ours or "0" * 40)
        elif case == "forget":  # the remote's history was rewritten: take it
            git(local, "update-ref", ref, theirs, ours)
        elif git(local, "merge-base", "--is-ancestor", theirs, ours, check=False).returncode == 0:
            push.append((ref, theirs))
        else:
            tree = git(local, "merge-tree", "--write-tree", ours, theirs).stdout.decode().split()[0]
            merge = git(local, "commit-tree", tree, "-p", ours, "-p", theirs, "-m", "merge: main from origin")
            git(local, "update-ref", ref, merge.stdout.decode().strip(), ours)
            push.append((ref, theirs))
    return push


def run_plain(p: dict[str, Path], case: str) -> tuple[float, float]:
    specs = push_specs(p["pa"], p["premote"])
    gc.collect()
    t0 = time.perf_counter()
    plain_push(p["pa"], p["premote"], specs)
    t1 = time.perf_counter()
    plain_push(p["pb"], p["premote"], plain_pull(p["pb"], p["premote"], case))
    t2 = time.perf_counter()
    return t1 - t0, t2 - t1


def check_same(p: dict[str, Path], case: str, n: int) -> None:
    """Both ways left B with the same memories (the same files on main)."""
    got, ref = memory_paths(p["b"] / "repo.git"), memory_paths(p["pb"])
    want = SHARED + n + (B_LOCAL if case == "diverged" else 0) - (1 if case == "forget" else 0)
    assert len(got) == want, (case, len(got), want)
    assert got == ref, (case, len(got ^ ref))


def profile_one(tmp: Path, case: str, n: int, top: int = 14) -> str:
    p = setup(tmp, case, n)
    a, b = gitmem.open(p["a"]), gitmem.open(p["b"])
    quiesce(a, b)
    prof = cProfile.Profile()
    prof.enable()
    a.sync()
    b.sync()
    prof.disable()
    buf = io.StringIO()
    st = pstats.Stats(prof, stream=buf)
    st.sort_stats("cumulative").print_stats(top)
    st.sort_stats("tottime").print_stats(top)
    return buf.getvalue()


# ---- main ----------------------------------------------------------------------------------
def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=1000, help="new memories on A")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--cases", default=",".join(CASES))
    ap.add_argument("--no-fsync", action="store_true")
    ap.add_argument("--profile", action="store_true", help="cProfile one gitmem sync per case")
    ap.add_argument("--write", action="store_true", help="put the table into BENCHMARKS.md")
    args = ap.parse_args()
    cases = [c for c in args.cases.split(",") if c]
    assert all(c in CASES for c in cases), cases
    fsync = not args.no_fsync
    os.environ["GITMEM_FSYNC"] = "1" if fsync else "0"
    os.environ["GITMEM_EMBED_MODEL"] = "fake-64"
    os.environ.setdefault("GITMEM_NAME", "bench")
    os.environ.setdefault("GITMEM_EMAIL", "bench@example.com")
    t_start = time.perf_counter()
    loads = []
    results: dict[str, list[tuple[float, float, float, float]]] = {c: [] for c in cases}
    profiles = {}
    top = Path(tempfile.mkdtemp(prefix="gitmem-sync-bench-"))
    try:
        for rep in range(args.reps):
            for case in cases:
                tmp = top / f"{case}-{rep}"
                tmp.mkdir()
                p = setup(tmp, case, args.n)
                loads.append(os.getloadavg()[0])
                if (rep + CASES.index(case)) % 2 == 0:
                    g = run_gitmem(p, case)
                    pl = run_plain(p, case)
                else:
                    pl = run_plain(p, case)
                    g = run_gitmem(p, case)
                check_same(p, case, args.n)
                results[case].append((*g, *pl))
                print(f"rep {rep + 1} {case:>8}: gitmem push {g[0]:.3f} pull {g[1]:.3f}  "
                      f"plain push {pl[0]:.3f} pull {pl[1]:.3f}  ratio {sum(g) / sum(pl):.2f}x", flush=True)
                shutil.rmtree(tmp, ignore_errors=True)
        if args.profile:
            for case in cases:
                tmp = top / f"profile-{case}"
                tmp.mkdir()
                profiles[case] = profile_one(tmp, case, args.n)
    finally:
        shutil.rmtree(top, ignore_errors=True)

    med = statistics.median
    what = {"remember": f"{args.n:,} remembers (commits), B fast-forwards",
            "import": f"{args.n:,} imported in batches of {BATCH} ({-(-args.n // BATCH)} commits), B fast-forwards",
            "diverged": f"{args.n:,} remembers, B has {B_LOCAL} of its own (merge, pushed back)",
            "forget": f"{args.n:,} remembers + a forget on A (rewritten history, ledger applied on B)"}
    head = (f"{args.n:,} new memories on A, {args.reps} repetitions, median seconds; fsync "
            f"{'on' if fsync else 'off'}; load average {min(loads):.1f}-{max(loads):.1f} on {os.cpu_count()} cores.")
    cols = ("case", "gitmem A.sync", "gitmem B.sync", "gitmem total", "git A: push",
            "git B: fetch, move refs (merge, push back)", "git total", "gitmem ÷ git, total (per run)", "within 2×")
    lines = [head, "", "| " + " | ".join(cols) + " |", "|---" * len(cols) + "|"]
    for case in cases:
        rs = results[case]
        gp, gb, pp, pb = (med(r[i] for r in rs) for i in range(4))
        gt, pt = med(r[0] + r[1] for r in rs), med(r[2] + r[3] for r in rs)
        ratio = med((r[0] + r[1]) / (r[2] + r[3]) for r in rs)
        per = " ".join(f"{(r[0] + r[1]) / (r[2] + r[3]):.2f}" for r in rs)
        lines.append(f"| {what[case]} | {gp:.3f} | {gb:.3f} | {gt:.3f} | {pp:.3f} | {pb:.3f} | {pt:.3f} | "
                     f"**{ratio:.2f}×** ({per}) | {'yes' if ratio <= 2 else 'no'} |")
    table = "\n".join(lines) + "\n"
    print()
    print(table)
    print(f"benchmark wall time {time.perf_counter() - t_start:.0f} s")
    for case, text in profiles.items():
        print(f"\n---- cProfile: one gitmem sync (A then B), case {case} ----\n{text}")
    if args.write:
        from _report import write_section

        write_section("<!-- sync:begin -->", "<!-- sync:end -->", table, "Sync")


if __name__ == "__main__":
    main()
