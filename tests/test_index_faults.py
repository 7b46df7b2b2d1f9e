"""Index and state faults (issue 11): whatever happened to index.duckdb or state/, the
next command rebuilds or degrades with at most one warning and the right answer, never a
traceback; a write that cannot take its lock is one clean error and changes nothing."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from conftest import git, invoke_cli


@pytest.fixture
def cats(store):
    ids = [store.remember(f"memory number {i} about cats").id for i in range(3)]
    store.remember("an unrelated note about the garden")
    assert invoke_cli("recall", "cats").returncode == 0  # the index exists
    return ids


def answer(res) -> set[str]:
    assert res.returncode == 0, res.stderr
    assert "Traceback" not in res.stderr and "internal error" not in res.stderr
    return {h["id"] for h in json.loads(res.stdout)}


def _older_schema(home: Path) -> None:
    import duckdb

    con = duckdb.connect(str(home / "index.duckdb"))
    con.execute("UPDATE meta SET v = '0' WHERE k = 'schema'")
    con.close()


FAULTS = {
    "deleted": lambda home: [p.unlink() for p in home.glob("index.duckdb*")],
    "truncated": lambda home: os.truncate(home / "index.duckdb", 10000),
    "garbage": lambda home: (home / "index.duckdb").write_bytes(os.urandom(300_000)),
    "empty": lambda home: (home / "index.duckdb").write_bytes(b""),
    "older schema": _older_schema,
}


@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_a_damaged_index_is_rebuilt_with_the_right_answer(cats, gm_home, fault):
    FAULTS[fault](gm_home)
    res = invoke_cli("recall", "cats", "--json", "-k", "10")
    assert set(cats) <= answer(res)
    assert res.stderr.count("warning:") <= 1
    # And it is a working index again afterwards.
    assert set(cats) <= answer(invoke_cli("recall", "cats", "--json", "-k", "10"))


def test_an_index_path_that_is_not_a_file_degrades_with_one_warning(cats, gm_home):
    for p in gm_home.glob("index.duckdb*"):
        p.unlink()
    (gm_home / "index.duckdb").mkdir()
    res = invoke_cli("recall", "cats", "--json", "-k", "10")
    assert set(cats) <= answer(res)
    assert res.stderr.count("warning:") == 1 and "temporary index" in res.stderr


def test_an_unusable_state_folder(cats, gm_home):
    before = git("--git-dir", str(gm_home / "repo.git"), "for-each-ref")
    shutil.move(str(gm_home / "state"), str(gm_home / "state.bak"))
    (gm_home / "state").write_text("not a folder")
    try:
        res = invoke_cli("recall", "cats", "--json", "-k", "10")
        assert set(cats) <= answer(res)
        assert res.stderr.count("warning:") == 1
        res = invoke_cli("context")
        assert res.returncode == 0 and "memory number 1 about cats" in res.stdout
        assert "Traceback" not in res.stderr
        # A write needs its lock: one clean error, nothing written.
        res = invoke_cli("remember", "cannot be written now")
        assert res.returncode == 1
        assert res.stderr.startswith("error: cannot write in ") and "\nhint: " in res.stderr
        assert git("--git-dir", str(gm_home / "repo.git"), "for-each-ref") == before
    finally:
        (gm_home / "state").unlink()
        shutil.move(str(gm_home / "state.bak"), str(gm_home / "state"))
    assert invoke_cli("remember", "written again").returncode == 0
