"""Issue 21: a recall right after a write, in process (warm Store), old tree vs new.

    .venv/bin/python benchmarks/recall_after_write.py OLD_TREE 10000 20000

OLD_TREE holds an older `gitmem/` package (e.g. `git archive <commit> gitmem | tar -x -C OLD`).
Prints the worst and median of 5 (remember, then a timed recall) per size and tree, and the ratio.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
import cli_latency as cl  # noqa: E402

PROBE = ("import json, sys, time, gitmem; s = gitmem.open(sys.argv[1]); print(gitmem.__file__)\n"
         "s.recall('deploy freeze', k=5)\n"
         "s.remember('warm write: deploys pause'); s.recall('deploys pause', k=5)\n"
         "out = []\n"
         "for i in range(5):\n"
         "    s.remember(f'issue21 write {i}: deploys pause during the freeze')\n"
         "    t = time.perf_counter(); s.recall('deploys pause freeze', k=5); out.append(time.perf_counter() - t)\n"
         "print(json.dumps(out))")


def main() -> None:
    old, sizes = Path(sys.argv[1]), [int(x) for x in sys.argv[2:]] or [10000]
    env = dict(os.environ, GITMEM_FSYNC="0", GITMEM_HOOK_AUTOSTART="0", GITMEM_EMBED_MODEL="fake-384")
    work = Path(os.environ.get("TMPDIR", "/tmp")) / "gm-recall-after-write"
    work.mkdir(exist_ok=True)
    for n in sizes:
        home = work / f"s{n}"
        if not home.exists():
            cl.make_store(home, env, n)
        for name, tree in (("old", old), ("new", ROOT)):
            copy = work / f"s{n}-{name}"
            shutil.rmtree(copy, ignore_errors=True)
            shutil.copytree(home, copy)
            out = subprocess.run([sys.executable, "-c", PROBE, str(copy)], check=True, capture_output=True,
                                 text=True, env=dict(env, PYTHONPATH=str(tree)), cwd=work).stdout
            assert out.splitlines()[0].startswith(str(tree)), out  # the tree asked for
            ms = [x * 1000 for x in json.loads(out.splitlines()[-1])]
            print(f"{n:>7} {name}: worst {max(ms):7.1f} ms  median {statistics.median(ms):7.1f} ms", flush=True)
            shutil.rmtree(copy)


if __name__ == "__main__":
    main()
