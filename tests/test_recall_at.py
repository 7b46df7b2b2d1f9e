"""Time-travel recall (`recall --at`, `context --at`): a history written on a clock the
test controls, then looks back at four points, through the API and the CLI."""

from __future__ import annotations

import datetime as dt
import json

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from gitmem.core.errors import NotFound, UsageError

from conftest import daemon_requests, invoke_cli, run_cli, start_daemon, stop_daemon

Q = "deploy window staging release freeze checklist"


def _at(store, day: int, hour: int = 10) -> None:
    t = dt.datetime(2024, 3, day, hour, tzinfo=dt.timezone.utc).timestamp()
    store.memories.clock = lambda: t


@pytest.fixture
def history(store):
    """Mar 1: A (key deploy-window, Tuesday), B. Mar 5: A -> Thursday, C in project/x.
    Mar 10: B forgotten (purged), D. Mar 12: E. Mar 15: A -> Monday, E forgotten with
    --keep-history. Nothing is recalled meanwhile: the index only ever sees the tips."""
    _at(store, 1)
    a = store.remember("the deploy window is Tuesday", key="deploy-window")
    b = store.remember("staging host is stg-7 internal, deploy there first")
    _at(store, 5)
    store.remember("the deploy window is Thursday", key="deploy-window")
    c = store.remember("the release train leaves on Fridays", scope="project/x")
    _at(store, 10)
    store.forget([b.id])
    d = store.remember("deploy freeze over the December holidays")
    _at(store, 12)
    e = store.remember("the deploy checklist lives in the wiki")
    _at(store, 15)
    store.remember("the deploy window is Monday", key="deploy-window")
    store.forget([e.id], keep_history=True)
    return {"A": a.id, "B": b.id, "C": c.id, "D": d.id, "E": e.id, "e_commit": e.commit}


# What was live at each point, as (name, text); B and E are forgotten, so never.
POINTS = {
    "2024-03-02": {("A", "the deploy window is Tuesday")},
    "2024-03-06": {("A", "the deploy window is Thursday"), ("C", "the release train leaves on Fridays")},
    "2024-03-12T12:00:00Z": {("A", "the deploy window is Thursday"), ("C", "the release train leaves on Fridays"),
                             ("D", "deploy freeze over the December holidays")},
    "2024-03-16": {("A", "the deploy window is Monday"), ("C", "the release train leaves on Fridays"),
                   ("D", "deploy freeze over the December holidays")},
}


def _named(history, pairs):
    names = {v: k for k, v in history.items()}
    return {(names.get(i, i), text) for i, text in pairs}


@pytest.mark.parametrize("mode", ["bm25", "hybrid"])
def test_recall_at_four_points_returns_what_was_live(store, history, mode):
    for at, want in POINTS.items():
        # Every memory live then, however little of the query it holds (relevance: elsewhere).
        hits = store.recall(Q, k=20, all_scopes=True, at=at, mode=mode, min_relevance=0)
        assert _named(history, {(h.id, h.text) for h in hits}) == want, at
        for h in hits:
            # Each hit cites the commit its scope stood at then.
            assert h.commit == store.memories.rev_at(h.scope, at).id
            assert store.get(h.id, at=h.commit).text == h.text
        assert {h.key for h in hits if h.id == history["A"]} == {"deploy-window"}
        assert store.last_recall["at"]["commits"] == {
            s: store.memories.rev_at(s, at).id for s in {"main", "project/x"}
            if store.memories.rev_at(s, at) is not None}
    # Now: the same as the last point, from the normal path.
    now = store.recall(Q, k=20, all_scopes=True, mode=mode, min_relevance=0)
    assert _named(history, {(h.id, h.text) for h in now}) == POINTS["2024-03-16"]


def test_recall_at_a_revision_reads_its_scope_there_and_forgotten_stays_out(store, history):
    # E's own commit holds E, but E was forgotten later: it stays out.
    hits = store.recall(Q, k=20, all_scopes=True, at=history["e_commit"], mode="bm25")
    assert _named(history, {(h.id, h.text) for h in hits}) == {
        ("A", "the deploy window is Thursday"), ("D", "deploy freeze over the December holidays"),
        ("C", "the release train leaves on Fridays")}
    info = store.last_recall["at"]
    assert info["rev_scope"] == "main" and info["commits"]["main"] == history["e_commit"]
    # project/x as of that commit's time.
    assert info["commits"]["project/x"] == store.memories.rev_at("project/x", "2024-03-12T10:00:00Z").id
    # Only project/x asked for: the revision's scope is searched too.
    hits = store.recall(Q, k=20, scopes=["project/x"], at=history["e_commit"], mode="bm25")
    assert {h.scope for h in hits} == {"main", "project/x"}
    # B's first commit (rewritten by the purge: its version there is a placeholder).
    first = next(e for e in store.log(scope="main") if history["B"] in e.ids and e.op == "remember")
    assert store.get(history["B"], at=first.commit).text.strip() == "[forgotten]"
    hits = store.recall("staging host stg forgotten deploy", k=20, at=first.commit, mode="bm25")
    assert history["B"] not in {h.id for h in hits} and all("forgotten" not in h.text for h in hits)
    assert _named(history, {(h.id, h.text) for h in hits}) == {("A", "the deploy window is Tuesday")}


def test_recall_at_embeds_a_past_version_once(store, history, gm_home, monkeypatch):
    from gitmem.index import embed

    seen: list[str] = []
    real = embed.FakeEmbedder.embed

    def counting(self, texts):
        seen.extend(texts)
        return real(self, texts)

    monkeypatch.setattr(embed.FakeEmbedder, "embed", counting)
    store.recall(Q, k=5, all_scopes=True)           # builds the index: tips only
    seen.clear()
    store.recall(Q, k=20, all_scopes=True, at="2024-03-02")
    # The Tuesday version was never indexed: embedded now, once (the query is cached).
    assert [t for t in seen if t != Q] == ["the deploy window is Tuesday"]
    assert store.last_recall["at"]["index"]["embedded"] == 1
    # A new Store (as a new process would): the cache has it, nothing is embedded.
    import gitmem

    again = gitmem.open(gm_home)
    seen.clear()
    hits = again.recall(Q, k=20, all_scopes=True, at="2024-03-02")
    assert [t for t in seen if t != Q] == []
    assert again.last_recall["at"]["index"]["embedded"] == 0
    assert [h.text for h in hits] == ["the deploy window is Tuesday"]
    # Asked again in the same process: the view itself is kept.
    again.recall(Q, k=20, all_scopes=True, at="2024-03-02")
    assert again.last_recall["at"]["index"]["cached"] is True


def test_recall_at_before_the_store_existed_is_empty_with_a_note(store, history):
    assert store.recall(Q, all_scopes=True, at="2024-02-01") == []
    note = store.last_recall["note"]
    assert "as of 2024-02-01T23:59:59Z" in note and "first commit is from 2024-03-01T10:00:00Z" in note


def test_recall_at_bad_input(store, history):
    with pytest.raises(UsageError):
        store.recall(Q, at="last tuesday")
    with pytest.raises(UsageError):
        store.recall(Q, at="2024-13-45")
    with pytest.raises(NotFound):
        store.recall(Q, at="0123456789abcdef0123")


def test_cli_recall_at_matches_the_api(store, history):
    for at, want in POINTS.items():
        r = invoke_cli("recall", Q, "--at", at, "--all-scopes", "-k", "20", "--json", "--min-relevance", "0")
        assert r.returncode == 0, r.stderr
        got = json.loads(r.stdout)
        assert _named(history, {(h["id"], h["snippet"]) for h in got}) == want, at
        assert {h["commit"] for h in got} <= {store.memories.rev_at(s, at).id for s in ("main", "project/x")
                                              if store.memories.rev_at(s, at) is not None}
    # Before the store: an empty answer and a note, not an error.
    r = invoke_cli("recall", Q, "--at", "2024-02-01", "--json")
    assert (r.returncode, json.loads(r.stdout)) == (0, [])
    assert r.stderr.startswith("note: nothing in main as of 2024-02-01T23:59:59Z")
    r = _cli(store, "recall", Q, "--at", history["e_commit"], "--json")
    assert r.exit_code == 0 and history["E"] not in r.stdout and history["D"] in r.stdout
    for bad, code in (("last tuesday", 2), ("2024-13-45", 2), ("deadbeefdeadbeef", 4), ("yesterday", 4)):
        r = _cli(store, "recall", Q, "--at", bad)
        assert r.exit_code == code, (bad, r.stderr)
        lines = r.stderr.splitlines()
        assert lines[0].startswith("error: ") and lines[1].startswith("hint: ") and "2024-05-01" in lines[1]
        assert "Traceback" not in r.stderr


def _cli(store, *args: str):
    from click.testing import CliRunner

    from gitmem.frontends.cli import cli

    return CliRunner().invoke(cli, ["--home", str(store.home), *args])


def test_context_at_four_points(store, history):
    for at, want in POINTS.items():
        b = store.context(at=at, hours=24 * 30, budget=5000, scopes=["main", "project/x"])
        shown = {(d["id"], d["text"]) for k in ("preferences", "recent", "top") for d in b[k]}
        assert _named(history, shown) == want, at
        assert b["as_of"]["commits"] == {s: store.memories.rev_at(s, at).id for s in b["scopes"]}
    r = invoke_cli("context", "--at", "2024-03-06", "--scope", "main", "--scope", "project/x",
                   "--hours", "720", "--format", "json")
    assert r.returncode == 0, r.stderr
    b = json.loads(r.stdout)
    shown = {(d["id"], d["text"]) for k in ("preferences", "recent", "top") for d in b[k]}
    assert _named(history, shown) == POINTS["2024-03-06"]
    r = _cli(store, "context", "--at", "2024-02-01")
    assert r.exit_code == 0 and "note: nothing in main" in r.stderr
    r = _cli(store, "context", "--at", "not a date")
    assert r.exit_code == 2 and r.stderr.startswith("error: ") and "hint: " in r.stderr


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.datetimes(min_value=dt.datetime(2000, 1, 1), max_value=dt.datetime(2100, 1, 1),
                    timezones=st.just(dt.timezone.utc)))
def test_parse_at_reads_any_iso_instant(store, when):
    ts, rev = store.memories.parse_at(when.isoformat())
    assert rev is None and ts == pytest.approx(when.timestamp(), abs=1e-3)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.text(max_size=30))
def test_parse_at_answers_any_text_cleanly(store, text):
    try:
        ts, rev = store.memories.parse_at(text)
    except (UsageError, NotFound) as e:
        assert e.hint and "2024-05-01" in e.hint
    else:
        assert (ts is None) != (rev is None)


def test_recall_at_through_a_running_daemon(store, history, gm_home):
    want = {(h.id, h.snippet, h.commit) for h in store.recall(Q, k=20, all_scopes=True, at="2024-03-06")}
    proc = start_daemon(gm_home, "--idle-exit", "60")
    try:
        before = daemon_requests(gm_home)
        r = run_cli("recall", Q, "--at", "2024-03-06", "--all-scopes", "-k", "20", "--json")
        assert r.returncode == 0, r.stderr
        assert {(h["id"], h["snippet"], h["commit"]) for h in json.loads(r.stdout)} == want
        # The daemon answered it (the status request itself counts one more).
        assert daemon_requests(gm_home) == before + 2
        r = run_cli("recall", Q, "--at", "2024-02-01", "--json")
        assert r.returncode == 0 and "note: nothing in main" in r.stderr
    finally:
        stop_daemon(proc)
