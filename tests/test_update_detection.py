"""Update detection without a model in the loop, and truthful write results (issue 22,
items 2 and 5): `judge` in English and Chinese, what `remember` reports through the CLI
and through MCP, and recall putting the newer statement of a subject first."""

from __future__ import annotations

import json

import pytest

from gitmem.memories import updates

from conftest import invoke_cli


# ---- judge: the rules, in both languages (sentences not taken from the data set) ----
@pytest.mark.parametrize("older,newer,sim", [
    ("I keep my bike in the garage.", "I now keep the bike in the basement instead.", 0.6),
    ("Our database is MySQL.", "We migrated the database from MySQL to Postgres.", 0.7),
    ("The support rota is owned by Priya.", "Dan took over the support rota from Priya.", 0.5),
    ("I park in bay 12 behind the office.", "no reserved bay any more – whoever gets in first", 0.5),  # "any more"
    # cues read off consolidation_v45 to v47's newer statements (sentences of our own)
    ("The team stand-up is at 9:15 every morning.", "As of June the team stand-up is at 10.", 0.7),
    ("The clinic gave me 50mg of sertraline.", "The GP upped the sertraline to 100mg.", 0.6),
    ("The school play is on 3 March.", "The school play got pushed back to 17 March.", 0.7),
])
def test_english_updates_are_found(older, newer, sim):
    v = updates.judge(older, newer, sim)
    assert v.kind == "update" and v.cues


@pytest.mark.parametrize("older,newer,sim", [
    ("My niece plays the cello.", "My nephew plays the cello.", 0.85),         # look-alike, both true
    ("The printer is on floor three.", "The new hire starts on Monday.", 0.2),  # a cue, another subject
    ("We now use tabs.", "We now use tabs for Go files.", 0.9),                 # the cue was there already
])
def test_english_non_updates_are_left_alone(older, newer, sim):
    assert updates.judge(older, newer, sim).kind != "update"


def test_an_update_never_runs_backwards_in_time():
    v = updates.judge("I now keep the bike in the basement.", "I keep my bike in the garage.", 0.6,
                      older_created="2024-05-01T00:00:00Z", newer_created="2024-01-01T00:00:00Z")
    assert v.kind is None


@pytest.mark.parametrize("older,newer", [
    ("我每天晚上跑步。", "我现在晚上不再跑步，改成游泳了。"),
    ("我们的代码放在 GitLab 上。", "我们的代码换成放在 GitHub 上了。"),
    ("店面的租约到今年六月。", "店面续租了三年，租约到2028年六月。"),
    ("物业的维修师傅是老马。", "物业维修师傅换人了，是小吴。"),
])
def test_chinese_updates_are_found_by_shared_words_without_a_vector(older, newer):
    v = updates.judge(older, newer, None)
    assert v.kind == "update" and v.cues


@pytest.mark.parametrize("older,newer", [
    ("我家的兔子叫雪球，两岁了。", "我家的乌龟叫石头，两岁了。"),      # look-alike
    ("我周末喜欢看电影。", "我现在住在成都。"),                        # a cue, another subject
])
def test_chinese_non_updates_are_left_alone(older, newer):
    # An English-only model scores any two Chinese sentences high: the cosine is ignored.
    assert updates.judge(older, newer, 0.95).kind != "update"


def test_find_sorts_candidates_into_updates_and_duplicates():
    class M:
        def __init__(self, i, text):
            self.id, self.text, self.summary, self.created = i, text, text, "2024-01-01T00:00:00Z"

    got = updates.find("We migrated the database from MySQL to Postgres.",
                       [(M("a", "Our database is MySQL."), 0.7),
                        (M("b", "We migrated the database from MySQL to Postgres."), 0.99),
                        (M("c", "Lunch is at noon."), 0.1)])
    assert [r["id"] for r in got.updates] == ["a"] and [r["id"] for r in got.duplicates] == ["b"]


# ---- what remember reports ------------------------------------------------------------
def remember_json(home, *args) -> dict:
    out = invoke_cli("--home", str(home), "remember", "--json", *args)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def test_cli_remember_reports_status_and_possible_updates(gm_home):
    assert invoke_cli("--home", str(gm_home), "init").returncode == 0
    first = remember_json(gm_home, "--key", "ci", "Our CI system is Jenkins")
    assert first["status"] == "created" and first["possible_updates"] == []
    assert remember_json(gm_home, "--key", "ci", "Our CI system is Jenkins")["status"] == "unchanged"
    assert remember_json(gm_home, "--key", "ci", "Our CI system is Jenkins on k8s")["status"] == "updated"
    new = remember_json(gm_home, "We switched our CI system from Jenkins to GitHub Actions")
    assert [c["id"] for c in new["possible_updates"]] == [first["id"]]
    assert "switched" in new["possible_updates"][0]["cues"]
    text = invoke_cli("--home", str(gm_home), "remember", "Now our CI system is Buildkite instead").stdout
    assert f"may update {new['id']}: We switched" in text


def test_a_repeated_fact_is_a_possible_duplicate_and_detection_is_asked_for(store):
    first = store.remember("We switched our CI system from Jenkins to GitHub Actions")
    assert store.last_write == {"status": "created", "possible_updates": [], "possible_duplicates": []}
    store.remember("We switched our CI system from Jenkins to GitHub Actions", detect=True)
    assert [c["id"] for c in store.last_write["possible_duplicates"]] == [first.id]
    assert store.last_write["possible_updates"] == []


def test_cli_remember_reports_chinese_updates(gm_home):
    assert invoke_cli("--home", str(gm_home), "init").returncode == 0
    old = remember_json(gm_home, "我们的代码放在 GitLab 上。")
    new = remember_json(gm_home, "我们的代码现在换成放在 GitHub 上了。")
    assert [c["id"] for c in new["possible_updates"]] == [old["id"]]


def test_mcp_remember_reports_what_the_service_did(gm_home):
    from test_mcp import _payload, run_session

    assert invoke_cli("--home", str(gm_home), "init").returncode == 0

    async def scenario(s):
        out = []
        for args in ({"text": "Standup is at 9:30", "key": "standup"},
                     {"text": "Standup is at 9:30", "key": "standup"},
                     {"text": "Standup is at 9:30 sharp", "key": "standup"},
                     {"text": "Standup moved, it is now at 10:15"}):
            out.append(_payload(await s.call_tool("memory_remember", args)))
        bad = await s.call_tool("memory_remember", {"text": "x", "supersedes": ["0000000000000"]})
        return out, bad

    (created, unchanged, updated, newer), bad = run_session(scenario)
    assert [created["status"], unchanged["status"], updated["status"], newer["status"]] == \
        ["created", "unchanged", "updated", "created"]
    assert unchanged["commit"] == created["commit"]
    assert [c["id"] for c in newer["possible_updates"]] == [created["id"]]
    assert bad.is_error and "hint" in bad.content[0].text


# ---- recall prefers the newer statement -----------------------------------------------
def test_recall_puts_the_newer_statement_of_a_subject_first(store):
    old = store.remember("The design review happens in room Aster, design review room Aster",
                         created="2024-01-01")
    new = store.remember("The design review moved to room Birch", created="2024-06-01")
    store.remember("Lunch is served in room Cedar", created="2024-03-01")
    q = "which room is the design review in, Aster?"
    hits = [h.id for h in store.recall(q, k=5)]
    assert hits.index(new.id) < hits.index(old.id)
    import gitmem

    plain = gitmem.open(store.home, overrides={"recall": {"prefer_newer": False}})
    hits_off = [h.id for h in plain.recall(q, k=5)]
    assert hits_off.index(old.id) < hits_off.index(new.id)  # the ranking alone had it the other way
    assert set(hits) == set(hits_off)
