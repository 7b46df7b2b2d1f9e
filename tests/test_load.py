"""Load with real processes (issue 11): writers and readers of every kind against one
home; no failed call, no lost write, recall right throughout. The full run (8 + 8 for
30 s, figures in BENCHMARKS.md) is `python benchmarks/load.py`; this is a short one."""

import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

import load  # noqa: E402


@pytest.mark.slow
def test_short_mixed_load_loses_nothing(tmp_path, capsys):
    # writers: a CLI process per write, an API process; readers: CLI (through the
    # daemon), an API process with its own index, requests on the daemon's socket
    s = load.run(tmp_path / "home", 10.0, writers=2, readers=3, env=dict(os.environ))
    with capsys.disabled():
        print("\n" + load.table(s, False))
    assert {"cli-remember", "api-remember", "cli-recall", "api-recall", "serve-recall"} <= set(s["kinds"])
    assert s["acked_writes"] > 0
    assert s["failed"] == 0, {k: r["errors"] for k, r in s["kinds"].items()}
    assert s["lost"] == [] and s["bad_keys"] == [] and s["lost_journal_lines"] == []
    assert s["wrong"] == 0
    assert s["problems"] == []
    # every kind got calls through, and every recall kind answered at least once
    assert all(r["ops"] > 0 for r in s["kinds"].values())
