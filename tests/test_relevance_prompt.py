"""The prompt path and Chinese judged by words (issue 19): `recall --format prompt` and
`context --query` inject at most [hooks] max_results hits above prompt_min_relevance and
nothing (no empty section) when none pass; a query with Chinese judged by words uses the
"cjk" relevance model (coverage and the share of its content terms the store knows)."""

from __future__ import annotations

import gitmem
from conftest import dialogue_set, invoke_cli
from gitmem.recall import relevance
from test_relevance import QUIET_FAKE, TINY, UNRELATED


def _tiny(gm_home, **sections):
    s = gitmem.init(gm_home, overrides={"recall": QUIET_FAKE, **sections})
    s.import_items(TINY)
    return s


def _write_config(gm_home, text: str) -> None:
    path = gm_home / "config.toml"
    path.write_text((path.read_text() if path.exists() else "") + "\n" + text)


def test_recall_format_prompt_injects_at_most_max_results(gm_home):
    _tiny(gm_home)
    _write_config(gm_home, '[recall.vector_floors]\n"fake-64" = 0.7\n')
    res = invoke_cli("recall", "when does the nightly build run", "--format", "prompt")
    assert res.returncode == 0, res.stderr
    assert res.stdout.count("<memory ") == 3       # [hooks] max_results, of the five that match
    res = invoke_cli("recall", "when does the nightly build run", "--format", "prompt", "-k", "5")
    assert res.stdout.count("<memory ") == 5       # -k given: it rules
    res = invoke_cli("recall", "Which server hosts the Minecraft world?", "--format", "prompt")
    assert res.returncode == 0 and res.stdout == "" and "no matches" in res.stderr  # no empty frame
    _write_config(gm_home, "[hooks]\nmax_results = 2\n")
    res = invoke_cli("recall", "when does the nightly build run", "--format", "prompt")
    assert res.stdout.count("<memory ") == 2


def test_prompt_hits_cut_to_the_floor_and_the_cap(gm_home):
    store = _tiny(gm_home)
    hits = store.recall("when does the nightly build run", record=False)
    assert len(hits) == 5
    assert len(store.prompt_hits(hits)) == 3 and len(store.prompt_hits(hits, k=4)) == 4
    floor = store.config.get("recall", "prompt_min_relevance")
    assert all(h.relevance >= floor for h in store.prompt_hits(hits, k=10))
    low = [h for h in store.recall("Which server hosts the Minecraft world?", record=False, min_relevance=0)]
    assert low and store.prompt_hits(low) == []


def test_context_query_adds_a_relevant_section_only_when_something_passes(gm_home):
    store = _tiny(gm_home)
    store.remember("The cat is called Miso")
    bundle = store.context(query="when does the nightly build run")
    assert len(bundle["relevant"]) == 3 and all("nightly job" in m["text"] for m in bundle["relevant"])
    assert all(m["relevance"] >= 0.5 for m in bundle["relevant"])
    shown = {m["id"] for m in bundle["relevant"]}
    # The other sections do not repeat what it shows, and the whole stays in the budget.
    assert not shown & {m["id"] for k in ("preferences", "recent", "top") for m in bundle[k]}
    assert bundle["tokens"] <= bundle["budget"]
    for q in UNRELATED:
        assert store.context(query=q)["relevant"] == [], q
    # Without a query, the bundle is as before (no section at all).
    assert "relevant" not in store.context()
    # Small budgets: the section's heading counts, and a budget the bundle alone takes is
    # never refused because of the section (it is left out when the rest would not fit).
    for budget in range(150, 260, 10):
        plain = store.context(budget=budget)
        got = store.context(query="when does the nightly build run", budget=budget)
        assert got["tokens"] <= budget, budget
        assert plain["tokens"] <= budget


def test_context_query_cli_renders_the_section_or_nothing(gm_home):
    _tiny(gm_home)
    _write_config(gm_home, '[recall.vector_floors]\n"fake-64" = 0.7\n')
    res = invoke_cli("context", "--query", "when does the nightly build run")
    assert res.returncode == 0, res.stderr
    assert '## Relevant to "when does the nightly build run"' in res.stdout
    res = invoke_cli("context", "--query", "Who discovered penicillin?")
    assert res.returncode == 0 and "Relevant" not in res.stdout and "nightly job" in res.stdout
    res = invoke_cli("context", "--query", "  ")
    assert res.returncode != 0 and "error:" in res.stderr and "hint:" in res.stderr
    assert "Traceback" not in res.stderr


def test_content_terms_and_the_cjk_model():
    assert relevance.content_terms(["什么", "乐器", "乐", "器", "我的", "violin"]) == ["乐器", "乐", "器", "violin"]
    view = relevance.QueryView
    for known in (0.0, 0.5, 1.0):
        ps = [relevance.relevance("cjk", c / 10, 0.0, view(known=known, top_cov=c / 10)) for c in range(0, 16)]
        assert ps == sorted(ps) and all(0.0 < p < 1.0 for p in ps)
    assert relevance.relevance("cjk", 0.2, 0.0, view(0.9, 0.2)) > relevance.relevance("cjk", 0.2, 0.0, view(0.1, 0.2))
    # The English model's cosine has no say on the "cjk" side; the store's best cosine
    # neither when no vectors were read (test_relevance_cjk: when they were, it counts).
    assert relevance.relevance("cjk", 0.2, 0.9, view(0.5, 0.2, 0.9)) == relevance.relevance("cjk", 0.2, 0.0, view(0.5, 0.2))
    assert relevance.has_cjk("Kubernetes 的 ingress") and not relevance.has_cjk("Kubernetes ingress")


def test_chinese_by_words_abstains_on_the_prompt_path(gm_home):
    """BM25 mode (as with no model, or an English-only one under the language rule):
    questions from other domains are mostly made of terms a dialogue store never saw."""
    items, _, _ = dialogue_set("zh_dialogue")
    store = gitmem.init(gm_home, overrides={"recall": QUIET_FAKE})
    store.import_items(items)
    scope = ["channel/u1"]
    on = store.search("我女儿学小提琴多久了？", scopes=scope, mode="bm25", record=False, explain=True)
    assert on.info["relevance"]["side"] == "cjk" and on.info["relevance"]["known"] > 0.5
    assert store.prompt_hits(on.hits)
    for q in ("青霉素是谁发现的？", "液氮的沸点是多少？", "Kubernetes 的 ingress 是怎么工作的？"):
        res = store.search(q, scopes=scope, mode="bm25", record=False, explain=True)
        assert res.info["relevance"]["known"] < 0.5, q
        assert store.prompt_hits(res.hits) == [], (q, [(h.snippet, h.relevance) for h in res.hits])
    # and a hit's relevance does not depend on -k
    small = store.recall("我女儿学小提琴多久了？", k=2, scopes=scope, mode="bm25", record=False)
    large = store.recall("我女儿学小提琴多久了？", k=20, scopes=scope, mode="bm25", record=False)
    assert [h.relevance for h in small] == [h.relevance for h in large[:2]]
    res = invoke_cli("recall", "青霉素是谁发现的？", "--scope", "channel/u1", "--mode", "bm25", "--explain",
                     "--min-relevance", "0")
    assert res.returncode == 0 and "relevance judged by words" in res.stderr, res.stderr
    assert "longest shared stretch" in res.stderr and "best cosine" not in res.stderr, res.stderr
