"""Names that would carry a secret past redaction (issue 20; the sweep over every input
is in test_gate_cli, test_gate_api and test_gate_agents): a scope, an agent, a
remote's name or URL is refused with one error line and a hint, and nothing is written; a
forget reason is redacted before it reaches the commit, the ledger and the answer."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from conftest import invoke_cli, raw_forms
from gate_sweep import files_holding, git_objects, refs

# A fake GitHub token (the format detect-secrets knows), never a real one.
TOKEN = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"


def _nowhere(home: Path, *outputs: str) -> None:
    assert not any(form in git_objects(home) for form in raw_forms(TOKEN)), "a git object holds the token"
    assert files_holding(home, TOKEN) == [], "a file under the home holds the token"
    assert not any(TOKEN in out for out in outputs), "the output shows the token"


@pytest.mark.parametrize("args", [
    ["remember", "--scope", f"channel/{TOKEN}", "a note"],
    ["--agent", TOKEN, "remember", "a note"],
    ["--agent", f"bot {TOKEN}", "append", "a journal line"],
    ["remote", "add", "origin", f"https://me:{TOKEN}@example.com/memory.git"],
    ["remote", "add", "origin", f"https://{TOKEN}@github.com/me/memory.git"],
    ["remote", "add", TOKEN, "/tmp/elsewhere.git"],
    ["scopes", "private", f"channel/{TOKEN}"],
])
def test_a_name_holding_a_secret_is_refused_and_nothing_is_written(store, gm_home, args):
    store.remember("something already there")
    before = refs(gm_home)
    res = invoke_cli(*args)
    assert res.returncode == 2, res.stderr
    lines = res.stderr.strip().splitlines()
    assert lines[0].startswith("error: ") and lines[1].startswith("hint: "), res.stderr
    assert refs(gm_home) == before
    _nowhere(gm_home, res.stdout, res.stderr)


def test_remotes_without_credentials_are_still_fine(store, gm_home, tmp_path):
    urls = ("git@github.com:me/memory.git", "https://github.com/me/memory.git", str(tmp_path / "bare.git"),
            "ssh://git@example.com/memory.git")
    for n, url in enumerate(urls):
        res = invoke_cli("remote", "add", f"r{n}", url)
        assert res.returncode == 0, res.stderr


def test_a_forget_reason_is_redacted_before_the_ledger_every_clone_fetches(store, gm_home):
    m = store.remember("the staging password rotates monthly")
    res = invoke_cli("forget", m.id, "--reason", f"pasted {TOKEN} by mistake", "--json")
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout)
    _nowhere(gm_home, res.stdout, res.stderr)
    ledger = subprocess.run(["git", f"--git-dir={gm_home / 'repo.git'}", "log", "-p", "refs/gitmem/redactions"],
                            capture_output=True, text=True, check=True).stdout
    assert ledger and TOKEN not in ledger
