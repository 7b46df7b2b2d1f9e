"""A dream an agent leads: `dream --plan --json`, decisions back through `dream --apply`
and the MCP tool memory_consolidate (SDK client), one dream commit, `undream`; refused
decision lists change no ref."""

from __future__ import annotations

import json
import subprocess

import pytest

from conftest import run_cli
from test_mcp import run_session


def _payload(result) -> dict:
    """A tool result's structured content (or its text parsed as JSON)."""
    assert not result.is_error, result.content
    if result.structured_content is not None:
        return result.structured_content
    return json.loads(result.content[0].text)


def refs(gm_home) -> str:
    """Every ref of the store and where it points (what a refused list must not move)."""
    return subprocess.run(["git", f"--git-dir={gm_home / 'repo.git'}", "for-each-ref"],
                          capture_output=True, text=True, check=True).stdout


@pytest.fixture
def filled(store):
    ids = store.import_items([
        {"text": "Deploy window is Tuesday morning at the office", "created": "2024-01-01", "importance": 6},
        {"text": "Deploy window is Tuesday morning in the office", "created": "2024-02-01", "importance": 6},
        {"text": "I live in Lisbon near the river", "created": "2024-01-01", "importance": 6},
        {"text": "I moved to Porto, I live near the station now", "created": "2024-05-01", "importance": 6},
        {"text": "the coffee machine on floor two is broken", "importance": 1},
        {"text": "Backups run nightly and are tested monthly", "importance": 9},
    ]).created
    return store, dict(zip(["dup_a", "dup_b", "old", "new", "faded", "keep"], ids))


def test_plan_lists_groups_with_ids_texts_dates_and_the_rules_suggestion(filled, gm_home):
    store, ids = filled
    before = refs(gm_home)
    res = run_cli("dream", "--plan", "--json")
    assert res.returncode == 0, res.stderr
    plan = json.loads(res.stdout)
    assert "merge" in plan["instructions"] and set(plan["decision_schema"]) == {"merge", "supersede", "keep", "archive"}
    groups = {g["kind"]: g for g in plan["scopes"]["main"]["groups"]}
    assert set(groups["duplicates"]["ids"]) == {ids["dup_a"], ids["dup_b"]}
    assert groups["possible_update"]["rules"] == {"supersede": ids["old"], "by": ids["new"]}
    assert groups["faded"]["ids"] == [ids["faded"]]
    shown = {m["id"]: m for g in groups.values() for m in g["memories"]}
    assert shown[ids["old"]]["text"] == "I live in Lisbon near the river"
    assert shown[ids["old"]]["created"].startswith("2024-01-01")
    assert refs(gm_home) == before  # a plan writes nothing
    text = run_cli("dream", "--plan")
    assert text.returncode == 0 and "possible_update" in text.stdout
    # for people, the rules' suggestion in words, not a Python dict
    assert f"rules would supersede {ids['old']} by {ids['new']}" in text.stdout and "{'" not in text.stdout
    assert f"rules would archive {ids['faded']}" in text.stdout


def test_cli_apply_is_one_dream_commit_and_undream_reverts_it(filled, gm_home):
    store, ids = filled
    tip = store.git.tip("main").id
    decisions = {"scope": "main", "decisions": [
        {"merge": [ids["dup_a"], ids["dup_b"]], "text": "Deploy window: Tuesday mornings, at the office."},
        {"supersede": ids["old"], "by": ids["new"]},
        {"keep": [ids["keep"]]},
        {"archive": [ids["faded"]]}]}
    res = run_cli("dream", "--apply", "-", "--json", input=json.dumps(decisions))
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    head = store.git.tip("main")
    assert out["commit"] == head.id and store.git.commit_obj(head.id).parents == [tip]
    msg = store.show(out["commit"])["message"]
    assert msg.startswith("dream (agent): merged 1, superseded 1, archived 1, kept 1")
    for line in (f"Gitmem-Merged: {ids['dup_a']} into {ids['dup_b']}",
                 f"Gitmem-Superseded: {ids['old']} by {ids['new']}",
                 f"Gitmem-Archived: {ids['faded']}", f"Gitmem-Kept: {ids['keep']}",
                 "Gitmem-Op: dream", "Gitmem-Decided-By: agent"):
        assert line in msg
    every = {m.id: m for m in store.list(archived=True)}
    assert ids["dup_a"] not in every
    assert every[ids["dup_b"]].text == "Deploy window: Tuesday mornings, at the office."
    assert every[ids["dup_b"]].supersedes == (ids["dup_a"],)
    assert every[ids["new"]].supersedes == (ids["old"],)
    assert every[ids["old"]].path.startswith("archive/") and every[ids["faded"]].path.startswith("archive/")
    assert store.git.refs("refs/gitmem/archive/") == {out["archive_ref"]: tip}

    res = run_cli("undream", "--json")
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout)["reverted"] == out["commit"]
    after = {m.id: m for m in store.list()}
    assert set(after) == set(ids.values())
    assert after[ids["dup_b"]].text == "Deploy window is Tuesday morning in the office"
    assert after[ids["new"]].supersedes == ()


def _refused(gm_home, payload: str, *words: str) -> None:
    before = refs(gm_home)
    res = run_cli("dream", "--apply", "-", input=payload)
    assert res.returncode != 0
    err = res.stderr.strip().splitlines()
    assert err[0].startswith("error:") and err[-1].startswith("hint:") and "Traceback" not in res.stderr
    for w in words:
        assert w in err[0], err
    assert refs(gm_home) == before, "a refused list must not move any ref"


def test_refused_decision_lists_change_nothing(filled, gm_home):
    store, ids = filled
    other = store.remember("a note in another scope", scope="channel/work")
    gone = store.remember("a note that will be forgotten")
    store.forget([gone.id], keep_history=True)
    good = {"supersede": ids["old"], "by": ids["new"]}
    cases = [
        ("{not json", "not valid JSON"),
        (json.dumps({"decisions": [good, {"merge": [ids["dup_a"], "0zzzzzzzzzzzz"]}]}), "no memory"),
        (json.dumps({"decisions": [good, {"archive": [gone.id]}]}), "forgotten"),
        (json.dumps({"decisions": [good, {"archive": [other.id]}]}), "in scope channel/work"),
        (json.dumps({"decisions": [good, {"archive": [ids["new"]]}]}), "decision 1 and decision 2"),
        (json.dumps({"decisions": [{"merge": [ids["dup_a"]]}]}), "at least two"),
        (json.dumps({"decisions": [{"merge": [ids["dup_a"], ids["dup_b"]], "text": "  "}]}), "empty"),
        (json.dumps({"decisions": [{"supersede": ids["old"], "by": ids["old"]}]}), "itself"),
        (json.dumps({"decisions": [{"drop": [ids["old"]]}]}), "exactly one of"),
        (json.dumps({"decisions": [good, {"keep": [ids["old"]]}]}), "both kept and changed"),
    ]
    for payload, word in cases:
        _refused(gm_home, payload, word)


def test_different_keys_are_refused_as_a_merge(store, gm_home):
    a = store.remember("Standup is at ten", key="standup-a")
    b = store.remember("Standup is at ten sharp", key="standup-b")
    _refused(gm_home, json.dumps([{"merge": [a.id, b.id]}]), "different keys")


def test_mcp_consolidate_plans_and_applies(filled, gm_home):
    store, ids = filled
    bad = {"decisions": None}

    async def scenario(s):
        prompts = (await s.list_prompts()).prompts
        prompt = await s.get_prompt("dream", {"scope": "main"})
        plan = _payload(await s.call_tool("memory_consolidate", {"scope": "main"}))
        before = refs(gm_home)
        bad["result"] = await s.call_tool("memory_consolidate", {"decisions": [{"archive": ["0zzzzzzzzzzzz"]}]})
        bad["unchanged"] = refs(gm_home) == before
        done = _payload(await s.call_tool("memory_consolidate", {"scope": "main", "decisions": [
            {"supersede": ids["old"], "by": ids["new"]}, {"merge": [ids["dup_a"], ids["dup_b"]]}]}))
        return prompts, prompt, plan, done

    prompts, prompt, plan, done = run_session(scenario)
    assert "dream" in {p.name for p in prompts}
    text = prompt.messages[0].content.text
    assert "memory_consolidate" in text and ids["old"] in text
    kinds = {g["kind"] for g in plan["scopes"]["main"]["groups"]}
    assert {"duplicates", "possible_update"} <= kinds
    assert bad["result"].is_error and "no memory" in bad["result"].content[0].text and bad["unchanged"]
    assert done["commit"] and done["superseded"] == [{"old": ids["old"], "by": ids["new"]}]
    every = {m.id: m for m in store.list(archived=True)}
    assert every[ids["old"]].path.startswith("archive/") and ids["dup_a"] not in every
    assert run_cli("undream").returncode == 0
    assert {m.id for m in store.list()} == set(ids.values())


# heldout52: the booking's reference (KTR4QZ) against the flight's code (WA617), which the
# guard reads as two codes, one on each side (its date and time, 21-02-2025 0705, once read
# as one number, are read as a date and a time now)
FLIGHT = ["For the Perth site audit I'm on Wattle Air WA 617, leaving Brisbane at 7:05 a.m. on Friday 21 February.",
           "Perth audit flight - WA617, fri 21/2, 7.05am ex BNE",
           "Booking ref KTR4QZ: Wattle Air 617 BNE→PER 21-02-2025 0705",
           "flying out for the perth audit friday the 21st, five past seven in the morning, wattle air 617"]


def test_a_paraphrase_the_rules_hold_apart_is_shown_with_their_merge_and_one_decision_takes_it_in(store, monkeypatch):
    """The rules merge some of four rewordings and hold the others apart ("values differ":
    a booking's reference against the flight's code). The plan shows all four in one group,
    the rules' merge as its suggestion and each pair held apart with why; an agent that
    merges the four leaves one memory (heldout40: the plan used to drop every pair one of
    whose memories a merge had taken, so no decision could reach them)."""
    from test_dream_values import EqualCosine

    from gitmem.lifecycle import agentplan, grouping

    ids = store.import_items([{"text": t, "created": f"2024-05-0{i + 1}", "importance": 9}
                              for i, t in enumerate(FLIGHT)]).created
    plan_with = agentplan.make_plan
    monkeypatch.setattr(agentplan, "make_plan", lambda svc, scope, tip, now, counts:
                        plan_with(svc, scope, tip, now, counts, EqualCosine(0.8, len(FLIGHT))))
    plan = store.dream_plan()["scopes"]["main"]
    (group,) = [g for g in plan["groups"] if set(g["ids"]) & set(ids)]
    assert group["kind"] == "duplicates" and set(group["ids"]) == set(ids)
    assert len(group["rules"]["merge"]) < len(ids)  # the rules alone merge only some
    whys = [p["why"] for p in group["held_apart"]]
    assert "values differ" in whys and set(whys) <= {"values differ", grouping.LINKED_APART}
    done = store.dream_apply({"scope": "main", "decisions": [{"merge": ids, "into": ids[0]}]})
    assert done["commit"]
    assert [m.id for m in store.list() if m.id in ids] == [ids[0]]


def test_the_plan_as_text_says_which_pairs_the_rules_held_apart_and_why():
    from gitmem.frontends.commands.lifecycle import _plan_text

    plan = {"scopes": {"main": {"groups": [{
        "kind": "duplicates", "similarity": 0.8, "rules": {"merge": ["a", "b"], "into": "a"},
        "memories": [{"id": i, "created": "2024-05-01", "summary": t} for i, t in (("a", "x"), ("b", "y"), ("c", "z"))],
        "held_apart": [{"a": "a", "b": "c", "why": "values differ"}]}]}}}
    text = _plan_text(plan)
    assert "    c  2024-05-01  z" in text and "held apart: a / c (values differ)" in text
