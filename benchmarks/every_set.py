"""Every consolidation set at once (issue 22): run one benchmark over each
tests/data/consolidation*.json into a directory of per-file reports, then sum the rows
those reports print, or compare two such directories (two trees, or before and after a
change). The totals in BENCHMARKS.md ("Every set") are these sums.

    .venv/bin/python benchmarks/every_set.py run /tmp/d_new --bench dream        # dream_consolidation.py --why
    .venv/bin/python benchmarks/every_set.py run /tmp/c_new --bench recall       # consolidation.py --part all --why
    GITMEM_TREE=/tmp/base .venv/bin/python benchmarks/every_set.py run /tmp/d_old --bench dream   # another tree
    .venv/bin/python benchmarks/every_set.py sum /tmp/d_old /tmp/d_new           # totals, and the files that moved

Each run is a process of its own (`--jobs` at once, 2 by default: the machine's cores), with
this process's environment (GITMEM_TREE selects the tree)."""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data"
BENCH = {"dream": ["dream_consolidation.py", "--why"], "recall": ["consolidation.py", "--part", "all", "--why"]}

# dream_consolidation.py: | part | lang | clusters collapsed | look-alikes kept | updates superseded | unrelated touched |
_DREAM_ROW = re.compile(r"^\| \S+ \| (?:en|zh) \| (.*?) \| (.*?) \| (.*?) \| (.*?) \|$", re.M)
_DREAM_COLUMNS = ("clusters collapsed", "look-alikes kept", "updates superseded", "unrelated touched")
_COUNT = re.compile(r"(\d+)/(\d+)")
_FALSE = {"false merges": re.compile(r"^false merges.*?: (\d+)", re.M),
          "false supersessions": re.compile(r"^false supersessions.*?: (\d+)", re.M)}
# consolidation.py: | stage | metric | part lang | ... with "0.87 (13/15)" cells
_RECALL_STAGES = {"recall alone (defaults": "recall alone", "after dream": "after dream",
                  "recall alone, prefer_newer off": "prefer_newer off"}
_RECALL_METRICS = ("newer above older", "newer at rank 1", "false supersessions (lower is better)")
_CELL = re.compile(r"\((\d+)/(\d+)\)")


def sets(only: str = "") -> list[Path]:
    return sorted(p for p in DATA.glob("consolidation*.json") if only in p.stem)


def run(out: Path, bench: str, jobs: int, agent: bool, only: str = "") -> int:
    """Each set's report into `out`/NAME.txt (stdout and stderr: a traceback shows there)."""
    out.mkdir(parents=True, exist_ok=True)
    cmd = [sys.executable, str(ROOT / "benchmarks" / BENCH[bench][0]), *BENCH[bench][1:]]
    if agent:
        cmd.append("--agent")

    def one(path: Path) -> int:
        with open(out / f"{path.stem}.txt", "w") as fh:
            return subprocess.run([*cmd, "--data", str(path)], stdout=fh, stderr=subprocess.STDOUT).returncode

    files = sets(only)
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        codes = list(pool.map(one, files))
    failed = [p.stem for p, c in zip(files, codes) if c]
    print(f"{len(codes)} sets into {out}" + (f"; failed: {', '.join(failed)}" if failed else ""))
    return 0


def read(path: Path) -> dict[str, tuple[int, int]]:
    """One report's figures: name -> (count, of)."""
    text = path.read_text()
    got: dict[str, list[int]] = {}
    if "clusters collapsed" in text:
        for row in _DREAM_ROW.finditer(text):
            for name, cell in zip(_DREAM_COLUMNS, row.groups()):
                if m := _COUNT.match(cell):
                    acc = got.setdefault("dream: " + name, [0, 0])
                    acc[0] += int(m[1])
                    acc[1] += int(m[2])
        for name, pattern in _FALSE.items():
            if m := pattern.search(text):
                got["dream: " + name] = [int(m[1]), 0]
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 3 or cells[1] not in _RECALL_METRICS:
            continue
        stage = next((v for k, v in _RECALL_STAGES.items() if cells[0].startswith(k)), None)
        if stage is None or (stage == "prefer_newer off") != cells[1].startswith("false"):
            continue
        acc = got.setdefault(f"{stage}: {cells[1]}", [0, 0])
        for cell in cells[2:]:
            if m := _CELL.search(cell):
                acc[0] += int(m[1])
                acc[1] += int(m[2])
    return {k: (v[0], v[1]) for k, v in got.items()}


def total(reports: dict[str, dict[str, tuple[int, int]]]) -> dict[str, tuple[int, int]]:
    out: dict[str, list[int]] = {}
    for figures in reports.values():
        for k, (n, of) in figures.items():
            acc = out.setdefault(k, [0, 0])
            acc[0] += n
            acc[1] += of
    return {k: (v[0], v[1]) for k, v in out.items()}


def summary(dirs: list[Path]) -> str:
    """Totals of one directory, or of two side by side with the files whose figures moved."""
    reports = [{p.stem: read(p) for p in sorted(d.glob("*.txt"))} for d in dirs]
    lines = []
    for r, d in zip(reports, dirs):
        broken = sorted(s for s in r if "Traceback" in (d / f"{s}.txt").read_text())
        if broken:
            lines.append(f"{d}: a traceback in {', '.join(broken)} (left out of its totals)")
            for s in broken:
                r[s] = {}
    if len(reports) == 2:
        a, b = reports
        for s in sorted(a.keys() | b.keys()):
            if a.get(s) != b.get(s):
                moved = [f"{k} {a.get(s, {}).get(k, (0, 0))[0]} -> {b.get(s, {}).get(k, (0, 0))[0]}"
                         for k in sorted(a.get(s, {}).keys() | b.get(s, {}).keys())
                         if a.get(s, {}).get(k) != b.get(s, {}).get(k)]
                lines.append(f"{s}: " + "; ".join(moved))
    totals = [total(r) for r in reports]
    lines.append("")
    lines.append("| measure | " + " | ".join(str(d) for d in dirs) + " |")
    lines.append("|---|" + "---|" * len(dirs))
    for k in sorted(set().union(*totals)):
        cells = [f"{t[k][0]}/{t[k][1]}" if t.get(k, (0, 0))[1] else str(t.get(k, (0, 0))[0]) for t in totals]
        lines.append(f"| {k} | " + " | ".join(cells) + " |")
    lines.append(f"\n{len(reports[0])} files" + (f" / {len(reports[1])} files" if len(reports) == 2 else ""))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run", help="Run one benchmark over every set into DIR.")
    r.add_argument("dir", type=Path)
    r.add_argument("--bench", choices=sorted(BENCH), default="dream")
    r.add_argument("--jobs", type=int, default=2)
    r.add_argument("--agent", action="store_true", help="dream only: the agent's plan too")
    r.add_argument("--only", default="", metavar="TEXT", help="only the sets whose name holds TEXT (v47)")
    s = sub.add_parser("sum", help="Totals of DIR, or of two DIRs compared.")
    s.add_argument("dirs", type=Path, nargs="+")
    args = ap.parse_args(argv)
    if args.cmd == "run":
        return run(args.dir, args.bench, args.jobs, args.agent, args.only)
    if len(args.dirs) > 2:
        ap.error("sum takes one directory or two")
    print(summary(args.dirs))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
