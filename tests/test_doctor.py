"""`gitmem doctor` and what it reports, and a memory committed by plain git with front
matter that does not parse: reported, skipped, the rest readable and recallable."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

import gitmem
from gitmem.core import model
from gitmem.core.errors import GitmemError, MalformedMemory

from conftest import commit_by_hand, invoke_cli

BAD = b"---\nid: mwsixxxxxxxxx\nsummary: [bad] yaml here\n---\nbroken cats\n"




def test_a_malformed_memory_is_reported_and_the_rest_stays_usable(store, tmp_path):
    good = [store.remember(f"memory number {i} about cats") for i in range(3)]
    path = "memories/note/2026-11/x/x/mwsixxxxxxxxx.md"
    commit_by_hand(store, path, BAD, tmp_path)
    s = gitmem.open(store.home)
    assert {m.id for m in s.list()} == {m.id for m in good}
    assert [x["path"] for x in s.skipped()] == [path]
    assert {h.id for h in s.recall("cats", k=10)} >= {m.id for m in good}
    res = invoke_cli("list")
    assert res.returncode == 0 and all(m.id in res.stdout for m in good)
    assert res.stderr.startswith("warning: skipped 1 malformed memory file(s): " + path)
    res = invoke_cli("get", "mwsixxxxxxxxx")
    assert res.returncode == 2 and res.stderr.count("\n") == 2  # one error line, one hint line
    assert "bad front matter" in res.stderr and "hint: fix the file" in res.stderr
    for args in (["context"], ["export", "--jsonl", "-"]):
        res = invoke_cli(*args)
        assert res.returncode == 0 and "Traceback" not in res.stderr, args
    res = invoke_cli("doctor", "--json")
    out = json.loads(res.stdout)
    mem = next(c for c in out["checks"] if c["check"] == "memories")
    assert mem["status"] == "warn" and mem["malformed"][0]["path"] == path
    assert res.returncode == 0, res.stderr  # a warning, not a failure


def test_doctor_finds_and_fixes_a_broken_index_and_a_stale_lock(store):
    for i in range(3):
        store.remember(f"note {i}")
    store.recall("note")
    res = invoke_cli("doctor")
    assert res.returncode == 0, res.stdout + res.stderr
    assert "ok    repository git fsck --strict: clean" in res.stdout
    lock = Path(store.git.path) / "refs" / "heads" / "main.lock"
    lock.write_text("")
    old = time.time() - 3600
    os.utime(lock, (old, old))
    for p in Path(store.home).glob("index.duckdb*"):
        p.write_bytes(os.urandom(4096))
    res = invoke_cli("doctor", "--json")
    assert res.returncode == 1 and res.stderr.startswith("error: ") and "hint: `gitmem doctor --fix`" in res.stderr
    checks = {c["check"]: c for c in json.loads(res.stdout)["checks"]}
    assert checks["locks"]["status"] == "error" and "main.lock" in checks["locks"]["detail"]
    res = invoke_cli("doctor", "--fix", "--json")
    assert res.returncode == 0, res.stdout + res.stderr
    checks = {c["check"]: c for c in json.loads(res.stdout)["checks"]}
    assert checks["locks"]["fixed"] and not lock.exists()
    assert checks["index"]["status"] == "ok"
    assert invoke_cli("remember", "after the fix").returncode == 0


def test_doctor_reports_a_missing_key_of_an_encrypted_store(tmp_path):
    s = gitmem.init(tmp_path / "enc", encrypt=True)
    s.remember("sealed")
    (Path(s.home) / "keys" / "master.json").rename(tmp_path / "away.json")
    res = invoke_cli("--home", str(s.home), "doctor", "--json")
    assert res.returncode == 1
    keys = next(c for c in json.loads(res.stdout)["checks"] if c["check"] == "keys")
    assert keys["status"] == "error" and "missing" in keys["detail"]


def test_doctor_reports_fsck_problems(store, tmp_path):
    store.remember("one")
    gd = Path(store.git.path)
    # A ref to an object that does not exist: fsck reports it.
    (gd / "refs" / "heads" / "broken").write_text("1" * 40 + "\n")
    res = invoke_cli("doctor", "--json")
    repo = next(c for c in json.loads(res.stdout)["checks"] if c["check"] == "repository")
    assert repo["status"] == "error" and res.returncode == 1


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=300) | st.binary(max_size=300).map(lambda b: b.decode("latin-1")))
def test_front_matter_parser_fuzz(text):
    """Any file: a Memory, or a MalformedMemory with one line and a hint; nothing else."""
    data = ("---\n" + text) if len(text) % 2 else text
    try:
        mem = model.parse(data.encode("utf-8", "surrogatepass"), path="memories/note/x.md")
    except MalformedMemory as e:
        assert "\n" not in e.message and e.hint
        return
    except GitmemError as e:  # pragma: no cover - would be a new failure mode
        raise AssertionError(f"unexpected {type(e).__name__}: {e.message}")
    assert isinstance(mem.text, str) and isinstance(mem.tags, tuple) and isinstance(mem.source, dict)


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.sampled_from(["id", "type", "summary", "importance", "tags", "created", "updated",
                                        "source", "key", "links", "supersedes", "metadata"]),
                       st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=20),
                                    lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=5), c,
                                                                                        max_size=3),
                                    max_leaves=6)))
def test_front_matter_of_any_shape_parses_leniently(fm):
    import yaml

    data = "---\n" + yaml.safe_dump(fm) + "---\nbody text\n"
    mem = model.parse(data.encode(), path="memories/note/x.md")
    assert mem.text == "body text\n"
    assert isinstance(mem.tags, tuple) and isinstance(mem.source, dict) and isinstance(mem.metadata, dict)
    model.render(mem)  # and it can be written back
