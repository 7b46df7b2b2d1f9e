"""Supersession in the store (issue 22, item 1): a memory names what it replaces.

Rules tested here, one per test: live recall leaves a replaced memory out and
`include_superseded` brings it back below its successor; `--at` before the successor
still shows it; list and get say what replaced it; context and MEMORY.md use only the
current one; bad targets are clean errors that write nothing; a chain leaves only its
end current; forgetting the successor makes the old one current again (kept or purged
history alike) and forgetting the old one leaves the successor alone; an edit of the
old memory arriving by sync does not undo the supersession; undream takes a dream's
supersessions with it; `update --supersedes` adds to the memory's list and refuses a
cycle."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import gitmem
from gitmem.core.errors import NotFound, UsageError
from gitmem.memories import succession

from conftest import git, invoke_cli


def ids_of(hits) -> list[str]:
    return [h.id for h in hits]


@pytest.fixture
def pair(store):
    old = store.remember("The team stores logs in Elasticsearch", created="2024-01-01")
    new = store.remember("The team stores logs in Loki", created="2024-06-01", supersedes=[old.id])
    return store, old, new


def test_live_recall_leaves_the_replaced_memory_out_and_include_superseded_shows_it_below(pair):
    store, old, new = pair
    assert new.supersedes == (old.id,)
    hits = ids_of(store.recall("where does the team store logs elasticsearch", k=5))
    assert new.id in hits and old.id not in hits
    res = store.search("where does the team store logs elasticsearch", k=5, include_superseded=True)
    both = ids_of(res.hits)
    assert both.index(new.id) < both.index(old.id) and res.info["superseded"] == {old.id: [new.id]}
    out = invoke_cli("--home", str(store.home), "recall", "--include-superseded", "--json", "logs elasticsearch")
    rows = {r["id"]: r for r in json.loads(out.stdout)}
    assert rows[old.id]["superseded_by"] == [new.id] and "superseded_by" not in rows[new.id]


def test_at_a_time_before_the_successor_recall_and_get_show_the_old_memory(pair):
    store, old, new = pair
    before = store.log(scope="main")[-1].commit  # the first write: only the old memory
    hits = ids_of(store.recall("logs elasticsearch", k=5, at=before))
    assert hits == [old.id]
    assert store.get(old.id, at=before).text == old.text


def test_list_and_get_say_what_replaced_a_memory(pair):
    store, old, new = pair
    listed = {m.id: m for m in store.list()}
    assert listed[old.id].superseded_by == (new.id,) and listed[new.id].superseded_by == ()
    assert store.get(old.id).superseded_by == (new.id,)
    out = invoke_cli("--home", str(store.home), "list", "--json")
    rows = {r["id"]: r for r in json.loads(out.stdout)}
    assert rows[old.id]["superseded_by"] == [new.id] and rows[new.id]["supersedes"] == [old.id]
    text = invoke_cli("--home", str(store.home), "get", old.id).stdout
    assert f"# superseded by: {new.id}" in text
    assert f"(superseded by {new.id})" in invoke_cli("--home", str(store.home), "list").stdout


def test_context_and_memory_md_use_only_the_current_memory(pair):
    store, old, new = pair
    ctx = store.context(budget=4000, hours=10**6)
    shown = {i["id"] for sec in ("recent", "top") for i in ctx["sections"].get(sec, [])} \
        if "sections" in ctx else json.dumps(ctx)
    assert new.id in shown and old.id not in shown
    store.dream(force=True)
    md = store.git.read(store.git.tip("main"), "MEMORY.md").decode()
    assert new.id in md and old.id not in md


def test_bad_targets_are_clean_errors_and_write_nothing(store):
    a = store.remember("a fact in main")
    other = store.remember("a fact in another scope", scope="project/x")
    tip = store.git.tip("main").id
    with pytest.raises(NotFound) as e:
        store.remember("x", supersedes=["0000000000000"])
    assert e.value.hint
    with pytest.raises(UsageError, match="scope project/x"):
        store.remember("x", supersedes=[other.id])
    with pytest.raises(UsageError, match="itself"):
        store.update(a.id, supersedes=[a.id])
    store.forget([a.id])
    with pytest.raises(NotFound):
        store.remember("x", supersedes=[a.id])
    assert store.git.tip("main").id != tip  # the forget moved it; nothing else did
    after = store.git.tip("main").id
    out = invoke_cli("--home", str(store.home), "remember", "--supersedes", "no-such-key", "y")
    assert out.returncode != 0 and out.stderr.startswith("error:") and "hint:" in out.stderr
    assert "Traceback" not in out.stderr and store.git.tip("main").id == after


def test_a_key_can_name_the_replaced_memory(store):
    old = store.remember("We deploy on Tuesdays", key="deploy-day")
    new = store.remember("We deploy on Thursdays now", supersedes=["deploy-day"])
    assert new.supersedes == (old.id,)


def test_a_chain_leaves_only_its_end_current_and_forgetting_the_end_brings_back_the_middle(store):
    a = store.remember("office in building A", created="2023-01-01")
    b = store.remember("office in building B", created="2023-06-01", supersedes=[a.id])
    c = store.remember("office in building C", created="2024-01-01", supersedes=[b.id])
    chain = succession.successors(store.memories, "main")
    assert succession.current_successors(chain, a.id) == (c.id,)
    assert ids_of(store.recall("office building", k=5)) == [c.id]
    store.forget([c.id])  # purges history too
    assert ids_of(store.recall("office building", k=5)) == [b.id]
    assert {m.id for m in store.list()} == {a.id, b.id}  # the old one was not forgotten with it
    assert store.get(a.id).superseded_by == (b.id,)


def test_forgetting_the_successor_with_history_kept_makes_the_old_one_current(pair):
    store, old, new = pair
    store.forget([new.id], keep_history=True)
    assert store.get(old.id).superseded_by == ()
    assert ids_of(store.recall("logs elasticsearch", k=5)) == [old.id]


def test_forgetting_the_old_one_leaves_the_successor_alone(pair):
    store, old, new = pair
    store.forget([old.id])
    assert store.get(new.id).supersedes == (old.id,)
    assert ids_of(store.recall("logs", k=5)) == [new.id]


def test_update_supersedes_adds_to_the_list_and_refuses_a_cycle(store):
    a = store.remember("standup at 9:30")
    b = store.remember("standup moved to 10:15")
    m = store.update(b.id, supersedes=[a.id])
    assert m.supersedes == (a.id,) and store.get(a.id).superseded_by == (b.id,)
    with pytest.raises(UsageError, match="already replaces"):
        store.update(a.id, supersedes=[b.id])
    out = invoke_cli("--home", str(store.home), "update", a.id, "--supersedes", b.id)
    assert out.returncode != 0 and "hint:" in out.stderr


def test_an_edit_of_the_old_memory_arriving_by_sync_does_not_undo_the_supersession(tmp_path):
    url = str(tmp_path / "remote.git")
    git("init", "-q", "--bare", "-b", "main", url)
    one, two = gitmem.init(tmp_path / "one"), gitmem.init(tmp_path / "two")
    for s in (one, two):
        s.remote_add("origin", url)
    old = one.remember("The wiki lives on Confluence")
    one.sync()
    two.sync()
    two.update(old.id, "The wiki lives on Confluence, space ENG")
    new = one.remember("The wiki moved to Notion", supersedes=[old.id])
    one.sync()
    two.sync()
    one.sync()
    for s in (one, two):
        got = s.get(old.id)
        assert got.text == "The wiki lives on Confluence, space ENG" and got.superseded_by == (new.id,)


def test_undream_takes_a_dreams_supersessions_with_it(store):
    store.remember("Use ruff for linting python code")
    store.remember("Use ruff for linting  python code")
    store.dream(force=True)
    merged = [m for m in store.list() if m.supersedes]
    assert merged
    store.undream()
    assert not any(m.supersedes for m in store.list())
    assert succession.successors(store.memories, "main") == {}


def test_remember_supersedes_on_the_cli_prints_it(store):
    old = store.remember("Our CI is Jenkins")
    out = invoke_cli("--home", str(store.home), "remember", "--supersedes", old.id, "--json", "Our CI is GitHub Actions")
    assert out.returncode == 0, out.stderr
    d = json.loads(out.stdout)
    assert d["supersedes"] == [old.id] and d["status"] == "created"
    assert store.get(old.id).superseded_by == (d["id"],)


def test_a_new_process_starts_from_the_saved_map_and_survives_a_rewrite(pair):
    store, old, new = pair
    assert store.get(old.id).superseded_by == (new.id,)  # builds and saves the map
    saved = json.loads((Path(store.home) / "state" / succession.STATE_FILE).read_text())
    assert [old.id] in saved["main"]["named"].values()
    other = gitmem.open(store.home)
    newer = other.remember("The team stores logs in Loki and S3", supersedes=[new.id])
    third = gitmem.open(store.home)
    assert third.get(new.id).superseded_by == (newer.id,)
    third.forget([newer.id])  # rewrites history: the saved commit is gone
    assert gitmem.open(store.home).get(new.id).superseded_by == ()


@pytest.mark.parametrize("catalog", [True, False])
def test_a_first_map_from_the_catalog_equals_the_tree_walk(store, monkeypatch, catalog):
    """With no saved map, a process reads the supersessions off the catalog's rows when
    the catalog is on (no blob read per memory), else walks the tree: the same map."""
    a = store.remember("The build runs on Jenkins", created="2023-01-01")
    b = store.remember("The build runs on GitHub Actions", created="2024-01-01", supersedes=[a.id])
    c = store.remember("The build runs on Buildkite", created="2024-06-01", supersedes=[b.id])
    d = store.remember("Lunch is at noon", created="2024-02-01")
    e = store.remember("Lunch is at one", created="2024-03-01", supersedes=[d.id])
    store.dream_apply({"decisions": [{"archive": [e.id]}]})  # an archived successor names nothing
    walked = succession.successors(store.memories, "main")
    assert walked == {a.id: (b.id,), b.id: (c.id,)}
    (Path(store.home) / "state" / succession.STATE_FILE).unlink()
    monkeypatch.setenv("GITMEM_CATALOG", "1" if catalog else "0")
    fresh = gitmem.open(store.home)
    if catalog:  # the first map comes from the rows: no memory blob is read for it
        reads = []
        real = fresh.memories.git.blob
        monkeypatch.setattr(fresh.memories.git, "blob", lambda *a, **k: reads.append(a) or real(*a, **k))
        fresh.memories.entries(["main"])  # the catalog caught up first (its own reads)
        reads.clear()
        assert succession.successors(fresh.memories, "main") == walked
        assert reads == []
    else:
        assert succession.successors(fresh.memories, "main") == walked


def test_a_first_map_does_not_build_a_catalog_that_was_never_built(store, monkeypatch):
    """A recall's first map must not pay for building the catalog (a parse of every
    memory): without a catalog built before, the tree is walked and nothing is built."""
    a = store.remember("Standup is at 9", created="2024-01-01")
    b = store.remember("Standup is at 10 now", created="2024-05-01", supersedes=[a.id])
    state = Path(store.home) / "state"
    (state / succession.STATE_FILE).unlink(missing_ok=True)
    (state / "catalog.built").unlink(missing_ok=True)
    monkeypatch.setenv("GITMEM_CATALOG", "1")
    fresh = gitmem.open(store.home)
    assert succession.successors(fresh.memories, "main") == {a.id: (b.id,)}
    assert not (state / "catalog.built").exists()
