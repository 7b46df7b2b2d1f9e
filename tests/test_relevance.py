"""Relevance and abstention (issue 19): every hit's `relevance` (gitmem.recall.relevance)
is a probability in [0, 1] that does not depend on -k; recall leaves out what is below
[recall] min_relevance (`no matches`, JSON `[]`); the prompt hook prints nothing when
nothing passes its floor. Calibration is measured with the real model in
benchmarks/abstain.py (BENCHMARKS.md, Issue 19)."""

from __future__ import annotations

import json

import pytest
from conftest import dialogue_set, invoke_cli

import gitmem
from gitmem.frontends import hookrun
from gitmem.recall import relevance

NONSENSE = ("xqzvblorft", "blorp snarfle wibble", "asdf qwer zxcv")
UNRELATED = ("Who discovered penicillin?", "How do I tune JVM garbage collection?",
             "What is the capital of Australia?")
TINY = [{"text": f"Deploy note: the build server runs the nightly job at {h} am"} for h in range(1, 6)]
# The fake embedder hashes words into 64 dimensions: texts sharing no word reach a cosine
# of 0.67 by collisions, so here its vector side has no say in relevance (a cosine under
# the model's vector floor counts as 0); the real model's floor is measured (0.2).
QUIET_FAKE = {"vector_floors": {"fake-64": 0.7}}


def _store(gm_home, items, **recall):
    s = gitmem.init(gm_home, overrides={"recall": {**QUIET_FAKE, **recall}})
    s.import_items(items)
    return s


def _shape(name: str, gm_home):
    """(store, an on-topic query, queries it must answer with nothing, those of them that
    share a word with the store, which only the floor empties)."""
    if name == "tiny and uniform":
        floored = ("Which server hosts the Minecraft world?",)
        return _store(gm_home, TINY), "when does the nightly build run", NONSENSE + UNRELATED + floored, floored
    if name == "dialogue":
        items, _, _ = dialogue_set("en_dialogue")
        return _store(gm_home, items), "violin lessons for my daughter", NONSENSE + UNRELATED, ()
    # The fake embedder counts as multilingual, so Chinese is ranked hybrid here, as with
    # a multilingual model. (With the default English-only model a CJK query is ranked by
    # words alone, and Chinese questions from other domains mostly still match a common
    # word or two: BENCHMARKS.md, Issue 19.)
    items, _, _ = dialogue_set("zh_dialogue")
    floored = ("青霉素是谁发现的？", "液氮的沸点是多少？")
    return _store(gm_home, items), "小提琴", NONSENSE + UNRELATED + ("嗯嗯嗯",) + floored, floored


@pytest.mark.parametrize("shape", ["tiny and uniform", "dialogue", "chinese"])
def test_nonsense_and_unrelated_queries_find_nothing(gm_home, shape):
    store, on_topic, empty, floored = _shape(shape, gm_home)
    assert store.recall(on_topic, all_scopes=True, record=False)  # the store answers what it holds
    for q in empty:
        result = store.search(q, all_scopes=True, record=False)
        assert result.hits == [], (q, [(h.snippet, h.relevance) for h in result.hits])
    for q in floored:   # without the floor they get hits, and a note says why there are none
        assert store.recall(q, all_scopes=True, record=False, min_relevance=0), q
        assert "min_relevance" in store.search(q, all_scopes=True, record=False).info["note"]


def test_cli_prints_no_matches_and_json_empty(store):
    store.import_items(TINY)
    res = invoke_cli("recall", "xqzvblorft", "--json")
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout) == []
    res = invoke_cli("recall", "xqzvblorft")
    assert res.returncode == 0 and res.stdout == "" and "no matches" in res.stderr
    res = invoke_cli("recall", "nightly job", "--json")
    hits = json.loads(res.stdout)
    assert hits and all(0.0 <= h["relevance"] <= 1.0 for h in hits)
    # --min-relevance 0 shows what a floor of 1 leaves out.
    res = invoke_cli("recall", "nightly job", "--json", "--min-relevance", "1")
    assert json.loads(res.stdout) == []
    res = invoke_cli("recall", "nightly job", "--json", "--min-relevance", "0")
    assert len(json.loads(res.stdout)) == len(hits)
    res = invoke_cli("recall", "nightly job", "--min-relevance", "2")
    assert res.returncode != 0 and "Traceback" not in res.stderr


def test_relevance_is_a_probability_the_same_whatever_k(gm_home):
    items, questions, _ = dialogue_set("en_dialogue")
    store = _store(gm_home, items)
    for q in questions[:12]:
        small = store.recall(q["q"], k=3, scopes=[q["scope"]], record=False, min_relevance=0)
        large = store.recall(q["q"], k=30, scopes=[q["scope"]], record=False, min_relevance=0)
        assert [h.id for h in small] == [h.id for h in large[:3]]
        assert [h.relevance for h in small] == [h.relevance for h in large[:3]]
        assert all(0.0 <= h.relevance <= 1.0 for h in large)
        # and as in explain, where its parts are shown
        ex = store.recall(q["q"], k=3, scopes=[q["scope"]], record=False, min_relevance=0, explain=True)
        assert [h.explain["relevance"]["p"] for h in ex] == [h.relevance for h in small]


def test_the_model_is_monotone_and_bounded():
    for side in ("hybrid", "words", "meaning"):
        ps = [relevance.relevance(side, c / 10, c / 10) for c in range(0, 16)]
        assert ps == sorted(ps) and all(0.0 < p < 1.0 for p in ps)
    assert relevance.features(None, 3.0, None) == (0.0, 0.0)
    assert relevance.features(99.0, 3.0, 1.5) == (relevance.COVERAGE_CAP, 1.0)
    # A BM25-only match is not punished for the cosine the words side never reads.
    assert relevance.relevance("words", 0.5, 0.0) == relevance.relevance("words", 0.5, 0.9)


def test_the_prompt_hook_prints_nothing_when_nothing_is_relevant(gm_home):
    store = _store(gm_home, TINY)
    # The hook reads the store's config file: the fake's vector side has no say there too.
    with open(gm_home / "config.toml", "a") as f:
        f.write('\n[recall.vector_floors]\n"fake-64" = 0.7\n')
    payload = {"session_id": "s", "cwd": "."}
    # Whatever else this session would be shown first (other sessions' writes so far).
    hookrun.run("prompt", {**payload, "prompt": "when does the nightly build run"}, home=str(store.home), budget=30)
    for q in UNRELATED:
        res = hookrun.run("prompt", {**payload, "prompt": q}, home=str(store.home), budget=30)
        assert res.stdout == "", q
    res = hookrun.run("prompt", {**payload, "prompt": "when does the nightly build run"},
                      home=str(store.home), budget=30)
    assert "nightly job" in res.stdout
    # At most [hooks] max_results memories (default 3) of the five that match.
    assert res.stdout.count("nightly job") == 3


def test_the_question_form_in_english():
    form = relevance.question_form
    assert form("How do I tune JVM garbage collection?") == (0.0, 1.0)   # "I" in a general question
    assert form("What is the boiling point of ethanol?") == (0.0, 1.0)
    assert form("\u201cWhy do cats purr?\u201d") == form("Why do cats purr?") == (0.0, 1.0)
    assert form("How long did I serve on the force before stepping down?") == (1.0, 0.0)  # the asker's past
    assert form("When is my dentist appointment?") == (1.0, 1.0)
    assert form("Which day did we fly to Lisbon?") == (1.0, 0.0)
    assert form("Krebs cycle, explained") == (0.0, 0.0)
    assert form("Which race is the user training for?") == (1.0, 1.0)  # an agent asks of the user
    assert form("What is the user's sister called?") == (1.0, 1.0)


def test_the_hybrid_gate_reads_the_form_only_with_vectors():
    """Same store evidence: a general question with no word of the asker falls under the
    prompt floor where the asker's own passes; a strong match passes whatever its form;
    without a vector view the hit's model alone judges."""
    from gitmem.core.schema import SCHEMA

    floor = float(SCHEMA["recall"].keys["prompt_min_relevance"].default)
    view = relevance.QueryView
    mid = dict(top_cov=0.3, top_cos=0.2, vectors=True)
    general = relevance.relevance("hybrid", 0.3, 0.2, view(**mid, general=1.0))
    asker = relevance.relevance("hybrid", 0.3, 0.2, view(**mid, own=1.0))
    assert general < floor <= asker
    assert general == min(relevance.HYBRID(0.3, 0.2, view(**mid, general=1.0)),
                          relevance.HYBRID_FORM(0.3, 0.2, view(**mid, general=1.0)))
    strong = dict(top_cov=0.45, top_cos=0.7, vectors=True)
    assert relevance.relevance("hybrid", 0.45, 0.7, view(**strong, general=1.0)) >= floor
    # A memory that holds half the query's words or more settles it, whatever the form
    # and however little the vector side says.
    words = dict(top_cov=relevance.FORM_COVERAGE, top_cos=0.0, vectors=True)
    assert relevance.relevance("hybrid", 0.5, 0.0, view(**words, general=1.0)) == relevance.HYBRID(
        0.5, 0.0, view(**words)) > relevance.relevance("hybrid", 0.49, 0.0, view(**dict(words, top_cov=0.49), general=1.0))
    bare = dict(mid, vectors=False)
    assert relevance.relevance("hybrid", 0.3, 0.2, view(**bare, general=1.0)) == relevance.HYBRID(
        0.3, 0.2, view(**bare))


def test_the_meaning_gate_keeps_a_question_no_memory_means_out_of_the_prompt_only():
    """A question in the asker's own form ("what did I pay for the house?") that no memory
    comes near in meaning (best cosine under MEANING_COSINE) and none holds half the words
    of: under the prompt floor, still above recall's (recall keeps what it did); near in
    meaning it passes, and a memory holding half the query's words settles it."""
    from gitmem.core.schema import SCHEMA

    keys = SCHEMA["recall"].keys
    prompt_floor, recall_floor = (float(keys[k].default) for k in ("prompt_min_relevance", "min_relevance"))
    view = relevance.QueryView
    low = relevance.MEANING_COSINE - 0.02
    for cos in (0.0, low / 2, low):
        far = view(top_cov=0.45, top_cos=cos, own=1.0, vectors=True)
        p = relevance.relevance("hybrid", 0.45, cos, far)
        assert recall_floor <= p < prompt_floor, (cos, p)
        assert relevance.HYBRID_FORM(0.0, 0.0, far) >= prompt_floor  # the form alone would have let it in
    near = relevance.MEANING_COSINE + 0.02
    assert relevance.relevance("hybrid", 0.45, near, view(top_cov=0.45, top_cos=near, own=1.0, vectors=True)) >= prompt_floor
    words = view(top_cov=relevance.FORM_COVERAGE, top_cos=0.0, own=1.0, vectors=True)
    assert relevance.relevance("hybrid", 0.5, 0.0, words) == relevance.HYBRID(0.5, 0.0, words)
    # The gate is the query's: the same cap for every hit, whatever its own cosine.
    assert relevance.form_cap("hybrid", view(top_cov=0.3, top_cos=low, own=1.0, vectors=True)) == pytest.approx(
        relevance.MEANING_GATE(0.0, 0.9, view(top_cov=0.3, top_cos=low, own=1.0, vectors=True)))


@pytest.mark.model
def test_everyday_english_questions_in_a_general_form_stay_out_of_the_prompt(real_model, gm_home):
    """Everyday questions sharing a word with the chat (plane, drive, audit) asked in
    general: the prompt gets nothing (before the question's form was read, each put one
    or two turns in it); the asker's own questions bring their evidence."""
    items, _, _ = dialogue_set("en_dialogue")
    store = gitmem.init(gm_home)
    store.import_items(items)
    scope = ["channel/u1"]
    for q in ("Can you take a power bank on a plane?", "Is it safe to drive with a cracked windshield?",
              "What is the difference between an audit and a review?"):
        hits = store.recall(q, scopes=scope, record=False)
        assert store.prompt_hits(hits) == [], (q, [(h.text[:30], h.relevance) for h in hits[:3]])
    for q, word in (("Where is my husband flying for work?", "Chicago"), ("What fruit am I allergic to?", "mango"),
                    ("How long will my car be in the shop?", "rear-ended")):
        shown = store.prompt_hits(store.recall(q, scopes=scope, record=False))
        assert any(word in h.text for h in shown), (q, [(h.text[:30], h.relevance) for h in shown])
    res = invoke_cli("recall", "Can you take a power bank on a plane?", "--scope", "channel/u1", "--explain",
                     "--min-relevance", "0")
    assert res.returncode == 0 and "the question's form: it asks in general" in res.stderr, res.stderr


@pytest.mark.model
def test_another_persons_questions_stay_out_of_the_prompt_but_not_out_of_recall(real_model, gm_home):
    """Questions from another user's conversation, in the asker's own form ("what did the
    doctor recommend for my diabetes?" on a store that never speaks of diabetes): no memory
    comes near in meaning, so the prompt gets nothing (each put turns in it before
    MEANING_GATE); recall still lists what it did, for a person who asks."""
    items, _, _ = dialogue_set("en_dialogue")
    store = gitmem.init(gm_home)
    store.import_items(items)
    scope = ["channel/u1"]
    for q in ("What did the doctor recommend for my diabetes?", "What did my old pupils invite me to?"):
        hits = store.recall(q, scopes=scope, record=False)
        assert hits and store.prompt_hits(hits) == [], (q, [(h.text[:30], h.relevance) for h in hits[:3]])
    shown = store.prompt_hits(store.recall("Where is my husband flying for work?", scopes=scope, record=False))
    assert any("Chicago" in h.text for h in shown)
    res = invoke_cli("recall", "What did my old pupils invite me to?", "--scope", "channel/u1", "--explain")
    assert res.returncode == 0 and "no memory is near the question in meaning" in res.stderr, res.stderr
    res = invoke_cli("recall", "Where is my husband flying for work?", "--scope", "channel/u1", "--explain")
    assert res.returncode == 0 and "near the question in meaning" not in res.stderr, res.stderr


@pytest.mark.model
def test_a_paraphrase_sharing_no_word_passes_and_unrelated_ones_do_not(real_model, gm_home):
    store = gitmem.init(gm_home)
    store.import_items([{"text": t} for t in (
        "User: My daughter just started violin lessons, so every Saturday I drive her to the arts center.",
        "User: Somebody rear-ended me the day before yesterday; the car is at the body shop.",
        "User: I'm allergic to mangoes, please never suggest them.",
        "User: We've got the quarterly audit at work this month.")])
    hits = store.recall("What instrument is my kid learning?", record=False)
    assert hits and "violin" in hits[0].text
    prompt_floor = store.config.get("recall", "prompt_min_relevance")
    assert hits[0].relevance >= prompt_floor
    assert store.injectable(hits)
    for q in UNRELATED + NONSENSE:
        assert store.recall(q, record=False) == [], q


def test_mcp_search_returns_nothing_irrelevant_and_at_most_max_results(gm_home):
    from test_mcp import _payload, run_session

    store = gitmem.init(gm_home)
    store.import_items(TINY)

    async def scenario(s):
        return {q: _payload(await s.call_tool("memory_search", {"query": q}))
                for q in ("xqzvblorft", "when does the nightly build run")}

    out = run_session(scenario)
    assert out["xqzvblorft"]["results"] == []
    hits = out["when does the nightly build run"]["results"]
    assert len(hits) == 3 and all(h["relevance"] >= 0.5 for h in hits)   # [hooks] max_results


@pytest.mark.model
def test_a_general_question_of_the_user_keeps_the_newer_first_and_reaches_the_prompt(real_model, gm_home):
    """An agent asks of "the user", in a general form: the store's answer still reaches the
    prompt (the user is the asker's own), and the newer statement stays above the older
    one (ranking reads a hit's relevance before the question's form is weighed)."""
    store = gitmem.init(gm_home)
    store.import_items([
        {"text": "I'm training for a half marathon in April.", "created": "2023-01-10T00:00:00Z"},
        {"text": "Signed up for the full Berlin Marathon in September, so no half this spring.",
         "created": "2023-06-02T00:00:00Z"},
        {"text": "My sister lives in Leeds.", "created": "2023-02-01T00:00:00Z"}])
    hits = store.recall("Which race is the user training for?", record=False)
    assert hits and "Berlin" in hits[0].text, [(h.text[:30], h.relevance) for h in hits]
    assert any("Berlin" in h.text for h in store.prompt_hits(hits))
