"""Write throughput: gitmem API and CLI against a plain-git loop, same run, same durability.

The plain-git baseline does the same writes a careful shell script would: one
`git hash-object -w`, one `git mktree` per tree level of the memory's path (it keeps the
tree listings in memory rather than re-reading them), `git commit-tree` and
`git update-ref` with the expected old value. Both sides fsync (gitmem: libgit2
fsync_gitdir; git: core.fsync=all), or neither with --no-fsync.

    python benchmarks/write.py [--n 300] [--prefill 10000] [--cli-n 40] [--no-fsync]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import gitmem  # noqa: E402
from gitmem.core import model  # noqa: E402


def git(git_dir: Path, *args: str, input: bytes | None = None) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_AUTHOR_NAME="b", GIT_AUTHOR_EMAIL="b@x", GIT_COMMITTER_NAME="b", GIT_COMMITTER_EMAIL="b@x")
    res = subprocess.run(["git", f"--git-dir={git_dir}", *args], input=input, capture_output=True, env=env, check=True)
    return res.stdout.decode()


class PlainGit:
    """The baseline: plumbing commands per write, tree listings cached in memory."""

    def __init__(self, git_dir: Path, fsync: bool):
        self.dir = git_dir
        git(git_dir, "config", "core.fsync", "all" if fsync else "none")
        git(git_dir, "config", "core.fsyncMethod", "fsync")
        self.trees: dict[str, dict[str, tuple[str, str, str]]] = {"": {}}
        self.tip = None
        try:
            self.tip = git(git_dir, "rev-parse", "--verify", "-q", "refs/heads/main").strip() or None
        except subprocess.CalledProcessError:
            self.tip = None
        if self.tip:
            for line in git(git_dir, "ls-tree", "-r", "-t", "--full-tree", self.tip).splitlines():
                meta, path = line.split("\t", 1)
                mode, typ, oid = meta.split()
                parent, _, name = path.rpartition("/")
                self.trees.setdefault(parent, {})[name] = (mode, typ, oid)
                if typ == "tree":
                    self.trees.setdefault(path, {})

    def write(self, path: str, content: bytes, message: str) -> None:
        blob = git(self.dir, "hash-object", "-w", "--stdin", input=content).strip()
        parent, _, name = path.rpartition("/")
        entry = ("100644", "blob", blob)
        while True:
            self.trees.setdefault(parent, {})[name] = entry
            listing = "".join(f"{m} {t} {o}\t{n}\n" for n, (m, t, o) in sorted(self.trees[parent].items()))
            oid = git(self.dir, "mktree", input=listing.encode()).strip()
            entry = ("040000", "tree", oid)
            if parent == "":
                break
            parent, _, name = parent.rpartition("/")
        args = ["commit-tree", oid, "-m", message] + (["-p", self.tip] if self.tip else [])
        commit = git(self.dir, *args).strip()
        git(self.dir, "update-ref", "refs/heads/main", commit, self.tip or "0" * 40)
        self.tip = commit


def prefill(home: Path, n: int) -> None:
    s = gitmem.init(home)
    batch = 2000
    for start in range(0, n, batch):
        s.import_items({"text": f"prefill memory {i} about topic {i % 97}", "type": "fact"}
                       for i in range(start, min(n, start + batch)))


def texts(n: int, tag: str) -> list[str]:
    return [f"{tag} memory {i}: the user prefers option {i % 13} for task {i}" for i in range(n)]


def bench_api(home: Path, n: int) -> float:
    s = gitmem.open(home)
    t = time.perf_counter()
    for text in texts(n, "api"):
        s.remember(text, type="fact")
    return n / (time.perf_counter() - t)


def bench_cli(home: Path, n: int) -> float:
    env = {**os.environ, "GITMEM_HOME": str(home)}
    t = time.perf_counter()
    for text in texts(n, "cli"):
        subprocess.run([sys.executable, "-m", "gitmem", "remember", "--type", "fact", text],
                       env=env, check=True, capture_output=True)
    return n / (time.perf_counter() - t)


def bench_plain(git_dir: Path, n: int, fsync: bool) -> float:
    pg = PlainGit(git_dir, fsync)
    s_texts = texts(n, "plain")
    t = time.perf_counter()
    for text in s_texts:
        mid = model.new_id()
        mem = model.Memory(id=mid, text=text, type="fact", summary=model.summarise(text),
                           created=model.now_iso(), updated=model.now_iso())
        pg.write(model.memory_path(mid, "fact"), model.render(mem),
                 f"remember: {mem.summary}\n\nGitmem-Op: remember\nGitmem-Id: {mid}\n")
    return n / (time.perf_counter() - t)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=300, help="API writes per case")
    ap.add_argument("--plain-n", type=int, default=100, help="plain-git writes per case")
    ap.add_argument("--cli-n", type=int, default=40, help="CLI writes per case")
    ap.add_argument("--prefill", type=int, default=10_000)
    ap.add_argument("--no-fsync", action="store_true")
    args = ap.parse_args()
    fsync = not args.no_fsync
    os.environ["GITMEM_FSYNC"] = "1" if fsync else "0"
    os.environ.setdefault("GITMEM_NAME", "bench")
    os.environ.setdefault("GITMEM_EMAIL", "bench@example.com")
    os.environ["GITMEM_EMBED_MODEL"] = "none"
    tmp = Path(tempfile.mkdtemp(prefix="gitmem-bench-"))
    rows = []
    try:
        for label, pre in (("empty", 0), (f"{args.prefill // 1000}k", args.prefill)):
            home = tmp / f"store-{label}"
            t = time.perf_counter()
            gitmem.init(home)
            if pre:
                prefill(home, pre)
            prefill_s = time.perf_counter() - t
            # The baseline starts from an identical copy of the prefilled repository.
            plain_dir = tmp / f"plain-{label}.git"
            shutil.copytree(home / "repo.git", plain_dir)
            plain = bench_plain(plain_dir, args.plain_n, fsync)
            api = bench_api(home, args.n)
            cli = bench_cli(home, args.cli_n)
            rows.append((label, api, cli, plain, prefill_s))
            print(f"{label:>6}: api {api:7.1f}/s  cli {cli:6.1f}/s  plain-git {plain:6.1f}/s  "
                  f"api/plain {api / plain:5.1f}x  cli/plain {cli / plain:4.2f}x  (prefill {prefill_s:.1f}s)", flush=True)
        (_, api0, cli0, _, _), (lab, api1, cli1, _, _) = rows
        print(f"slowdown {lab} vs empty: api {api0 / api1:.2f}x  cli {cli0 / cli1:.2f}x  (fsync={'on' if fsync else 'off'})")
        for c in (home,):
            fsck = subprocess.run(["git", f"--git-dir={c / 'repo.git'}", "fsck", "--strict"], capture_output=True)
            print("fsck --strict:", "clean" if fsck.returncode == 0 else fsck.stderr.decode()[:200])
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
