"""Indexing never stalls a query (issue 13): a real `gitmem serve` answers a recall with a
timeout by words while vectors are pending and embeds them in its own worker thread (no
`gitmem reindex` anywhere); `import` hands its indexing to the daemon and shows progress
only on a terminal or with --progress; MCP memory_search answers by words with a note;
`status` counts the chunks waiting for vectors."""

from __future__ import annotations

import json
import subprocess

import anyio
import pytest
from conftest import invoke_cli, run_cli, start_daemon, stop_daemon, wait_for

import gitmem
from gitmem.frontends.daemon import client as serve_client
from gitmem.frontends.runtime import Runtime

N = 300  # imported memories: more than a timeout of 0 (or the MCP default) embeds inline


def _jsonl(tmp_path, name: str, n: int, word: str):
    src = tmp_path / f"{name}.jsonl"
    src.write_text("".join(json.dumps({"text": f"{word} note {i}: the {word} depot ships crate {i}"}) + "\n"
                           for i in range(n)))
    return src


def _recall(home, query: str, timeout_ms: int | None = 0) -> dict:
    req = {"op": "recall", "query": query, "k": 5, "env": serve_client.env_fingerprint()}
    if timeout_ms is not None:
        req["timeout_ms"] = timeout_ms
    res = serve_client.request(home, req, timeout=60)
    assert res and res["ok"], res
    return res


@pytest.fixture
def daemon(store, gm_home):
    store.remember("The deploy window is Tuesday afternoon")
    store.recall("deploy", record=False)  # an index with every vector
    proc = start_daemon(gm_home, "--idle-exit", "120")
    yield proc
    stop_daemon(proc)


def test_a_daemon_recall_with_a_timeout_answers_by_words_then_embeds_in_the_background(daemon, gm_home, tmp_path):
    # Written by another process without indexing: the daemon first hears of it in a query.
    r = run_cli("import", "--jsonl", str(_jsonl(tmp_path, "a", N, "walrus")), "--no-index")
    assert r.returncode == 0, r.stderr
    res = _recall(gm_home, "walrus depot")
    info = res["info"]
    assert info["backend"] == "bm25" and info["vectors"]["ready"] is False
    assert info["vectors"]["pending"] == N and "not ready" in info["note"]
    assert res["hits"] and all("walrus" in h["text"] for h in res["hits"])
    assert all(h["scores"]["vector"] is None for h in res["hits"])
    # Nobody runs reindex: the daemon's worker embeds them, and a later query is hybrid.
    assert wait_for(lambda: _recall(gm_home, "walrus depot")["info"]["vectors"]["pending"] == 0, timeout=60)
    res = _recall(gm_home, "walrus depot")
    assert res["info"]["backend"] == "hybrid" and res["info"]["vectors"] == {"ready": True, "pending": 0}
    assert any(h["scores"]["vector"] is not None for h in res["hits"])
    st = serve_client.request(gm_home, {"op": "status"})
    assert st["pending"] == 0 and st["embedded"] == N
    # The file has them too: a fresh process has nothing to embed.
    status = gitmem.open(gm_home).index_status()
    assert status["index_pending"] == 0 and status["index_vectors"] == status["index_chunks"] == N + 1


def test_the_cli_recall_timeout_through_the_daemon_leaves_the_embedding_to_it(daemon, gm_home, tmp_path):
    r = run_cli("import", "--jsonl", str(_jsonl(tmp_path, "b", N, "otter")), "--no-index")
    assert r.returncode == 0, r.stderr
    r = run_cli("recall", "otter depot", "--timeout", "0", "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["backend"] == "bm25" and out["vectors"]["pending"] == N and out["hits"]
    # The command ran in the daemon (warm), which took the catch-up itself.
    assert wait_for(lambda: serve_client.request(gm_home, {"op": "status"})["embedded"] == N, timeout=60)
    r = run_cli("recall", "otter depot", "--timeout", "0", "--json")
    assert json.loads(r.stdout)["vectors"] == {"ready": True, "pending": 0}
    assert json.loads(r.stdout)["backend"] == "hybrid"


def test_an_import_hands_its_indexing_to_a_running_daemon(daemon, gm_home, tmp_path):
    r = run_cli("import", "--jsonl", str(_jsonl(tmp_path, "c", N, "heron")))
    assert r.returncode == 0, r.stderr
    assert "indexing: gitmem serve (pid" in r.stderr and "embedding" not in r.stderr
    r = run_cli("import", "--jsonl", str(_jsonl(tmp_path, "d", 20, "ibis")), "--json")
    assert json.loads(r.stdout)["index"]["background"] is True

    def caught_up():
        st = json.loads(run_cli("status", "--json").stdout)
        return st["index_pending"] == 0 and st["index_chunks"] == N + 21 and not any(st["index_lag"].values())

    assert wait_for(caught_up, timeout=60)
    assert _recall(gm_home, "heron depot")["info"]["backend"] == "hybrid"


def test_a_write_through_the_daemon_is_indexed_before_anyone_asks(daemon, gm_home):
    before = serve_client.request(gm_home, {"op": "status"})["snapshot_chunks"]
    r = run_cli("remember", "Kestrels nest on the north tower")
    assert r.returncode == 0, r.stderr
    # No recall is made: the daemon's worker indexes the write once writes pause.
    assert wait_for(lambda: serve_client.request(gm_home, {"op": "status"})["snapshot_chunks"] == before + 1,
                    timeout=30)


def test_status_counts_the_chunks_waiting_for_vectors(store, tmp_path):
    store.remember("The deploy window is Tuesday afternoon")
    store.recall("deploy", record=False)
    store.import_items([{"text": f"puffin note {i}"} for i in range(40)])
    store.recall("puffin", timeout_ms=0, record=False)  # words indexed, vectors pending
    r = invoke_cli("status", "--json")
    st = json.loads(r.stdout)
    assert st["index_pending"] == 40 and st["index_chunks"] == 41 and st["index_vectors"] == 1
    human = invoke_cli("status").stdout
    line = [ln for ln in human.splitlines() if ln.startswith("vectors:")]
    assert line == [line[0]] and "1 of 41 chunks; 40 pending" in line[0]
    store.index_catch_up()
    assert gitmem.open(store.home).status()["index_pending"] == 0


def test_import_progress_only_on_a_terminal_or_with_the_flag(store, tmp_path):
    folder = tmp_path / "md"
    folder.mkdir()
    for i in range(12):
        (folder / f"note{i}.md").write_text(f"# Note {i}\n\nGannets dive for fish number {i}.\n")
    r = invoke_cli("import", "--from", "markdown", str(folder))
    assert r.returncode == 0, r.stderr
    assert "gitmem: " not in r.stderr  # a pipe, no --progress
    for i in range(12):
        (folder / f"note{i}.md").write_text(f"# Note {i}\n\nGannets dive for herring number {i}.\n")
    r = invoke_cli("import", "--from", "markdown", str(folder), "--progress")
    assert r.returncode == 0, r.stderr
    assert "gitmem: checking 12/12" in r.stderr and "gitmem: writing 12/12" in r.stderr
    r = invoke_cli("import", "--jsonl", str(_jsonl(tmp_path, "e", 30, "tern")), "--progress", "--no-index", "--json")
    assert r.returncode == 0, r.stderr
    assert "gitmem: checking 30/30" in r.stderr and "gitmem: writing 30/30" in r.stderr
    assert json.loads(r.stdout)["created"] == 30  # stdout stays JSON


def _search(server, query: str) -> dict:
    async def call():
        return await server.call_tool("memory_search", {"query": query, "k": 5})

    res = anyio.run(call)
    if isinstance(res, tuple):
        return res[1]
    return res.structured_content or json.loads(res.content[0].text)


def test_mcp_search_answers_by_words_with_a_note_while_vectors_are_pending(store):
    from gitmem.frontends.mcp import build_server

    store.remember("The deploy window is Tuesday afternoon")
    store.recall("deploy", record=False)
    # More than [mcp] search_timeout_ms (default 2 s) lets it embed inline.
    store.import_items([{"text": f"cormorant {i} roosts on pier {i}"} for i in range(500)])
    server = build_server(store)
    out = _search(server, "cormorant pier 7")
    assert "500 new memory chunk(s) are not embedded yet" in out["note"]
    assert out["results"] and out["results"][0]["snippet"] == "cormorant 7 roosts on pier 7"
    assert out["results"][0]["scores"]["vector"] is None
    server.gitmem_indexer.thread.join(60)
    assert server.gitmem_indexer.last["pending"] == 0 and server.gitmem_indexer.last["embedded"] == 500
    out = _search(server, "cormorant pier 7")
    assert "note" not in out and out["results"][0]["scores"]["vector"] is not None


def test_mcp_search_timeout_is_configurable(store):
    from gitmem.core.config import write_config_value
    from gitmem.frontends.mcp import build_server

    store.remember("The deploy window is Tuesday afternoon")
    store.recall("deploy", record=False)
    store.import_items([{"text": f"shag {i} dries on rock {i}"} for i in range(5)])
    write_config_value(store.home, "mcp", "search_timeout_ms", 0)
    server = build_server(gitmem.open(store.home))
    assert "5 new memory chunk(s)" in _search(server, "shag rock 3")["note"]
    server.gitmem_indexer.stop()


def test_mcp_search_through_the_daemon_gets_the_note_and_leaves_the_work_to_it(daemon, gm_home, tmp_path):
    from gitmem.frontends.mcp import build_server

    r = run_cli("import", "--jsonl", str(_jsonl(tmp_path, "f", N, "grebe")), "--no-index")
    assert r.returncode == 0, r.stderr
    # The default [mcp] search_timeout_ms (2 s) embeds about 200 texts inline; N is more.
    server = build_server(gitmem.open(gm_home))
    out = _search(server, "grebe depot crate 7")
    assert f"{N} new memory chunk(s)" in out["note"] and out["results"]
    assert server.gitmem_indexer.thread is None  # the daemon answered: it embeds them
    assert wait_for(lambda: "note" not in _search(server, "grebe depot crate 7"), timeout=60)


def test_the_prompt_hook_answers_by_words_and_leaves_the_vectors_to_the_background(store, monkeypatch):
    from gitmem.frontends import hookrun

    store.remember("The deploy window is Tuesday afternoon")
    store.recall("deploy", record=False)
    store.import_items([{"text": f"albatross {i} circles mast {i}"} for i in range(500)])
    spawned = []
    monkeypatch.setattr(subprocess, "Popen", lambda cmd, **kw: spawned.append(cmd))
    res = hookrun.run("prompt", {"session_id": "s", "prompt": "albatross mast 7"}, home=str(store.home),
                      budget=2.0, runtime=Runtime(ask_daemon=False))
    assert "albatross 7 circles mast 7" in res.stdout
    # It indexed the words and embedded none of the 500 (a 2 s budget allows ~200 inline)…
    assert gitmem.open(store.home).index_status()["index_pending"] == 500
    # …and asked for them to be embedded elsewhere (no daemon: a detached catch-up).
    assert spawned and "ensure_fresh" in " ".join(spawned[0])
