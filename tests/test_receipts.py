"""receipts.py: what the agent saw, and from which version."""

from __future__ import annotations

import re

from click.testing import CliRunner

import gitmem
from gitmem.frontends import hookrun
from gitmem.agents import receipts
from gitmem.frontends.cli import cli

ID = re.compile(r"\b([0-9a-z]{13})\b")


def test_a_hook_driven_session_has_receipts_for_exactly_what_its_outputs_showed(store):
    pref = store.remember("I prefer short answers", type="preference")
    deploy = store.remember("we deploy the api with argocd on fridays", type="decision")
    store.remember("the office plant is a ficus")  # never asked about
    run = lambda ev, **kw: hookrun.run(ev, {"session_id": "sess-1", "cwd": ".", **kw},  # noqa: E731
                                       home=str(store.home), budget=30)
    outputs = [run("session-start").stdout, run("prompt", prompt="how do we deploy the api").stdout]
    shown_ids = {i for out in outputs for i in ID.findall(out)} & {m.id for m in store.list()}
    assert {pref.id, deploy.id} <= shown_ids
    got = store.receipts(session="sess-1")
    assert [r["kind"] for r in got] == ["context", "prompt"]
    assert {i["id"] for r in got for i in r["items"]} == shown_ids
    tip = store.git.tip("main").id
    for r in got:
        for i in r["items"]:
            m = store.get(i["id"])
            assert i["commit"] == tip and i["blob"] == store.git.blob_id(store.git.tip("main"), m.path)
    assert got[1]["query"] == "how do we deploy the api"
    dump = (store.home / "state" / receipts.NAME).read_text()
    assert "argocd" not in dump and "ficus" not in dump  # ids and versions, never text


def test_recall_prompt_and_get_receipts_and_forget_purges(store):
    m = store.remember("the vpn gateway is vpn.example.org")
    runner = CliRunner()
    res = runner.invoke(cli, ["--home", str(store.home), "--session", "cli-1", "recall", "vpn gateway",
                              "--format", "prompt"])
    assert res.exit_code == 0 and m.id in res.output
    res = runner.invoke(cli, ["--home", str(store.home), "get", m.id, "--receipts", "--json"])
    assert res.exit_code == 0, res.output
    assert '"kind": "recall"' in res.output and '"session": "cli-1"' in res.output
    store.reindex()  # receipts live outside the index
    assert len(store.receipts(id=m.id)) == 1
    store.forget([m.id])
    assert store.receipts(id=m.id) == []
    assert m.id not in (store.home / "state" / receipts.NAME).read_text()


def test_receipts_rotate_by_size_and_filters_work(store, monkeypatch):
    m = store.remember("a memory to be seen many times")
    monkeypatch.setattr(receipts, "ROTATE_BYTES", 2000)
    svc = gitmem.open(store.home, session="s-a").memories
    for _ in range(40):
        receipts.record(svc, "recall", "seen", [{"id": m.id, "scope": "main"}])
    files = sorted(p.name for p in (store.home / "state").glob(receipts.NAME + "*"))
    assert files == [receipts.NAME, receipts.NAME + ".1", receipts.NAME + ".2"]
    assert all((store.home / "state" / f).stat().st_size <= 2000 for f in files)
    kept = store.receipts(session="s-a")
    assert 0 < len(kept) < 40 and store.receipts(session="other") == []
    assert store.receipts(since="2999-01-01") == []


def test_redact_scrubs_the_string_from_receipt_queries(store):
    m = store.remember("the build box is hermes-42-build")
    store.record_receipt("recall", "where is hermes-42-build again", [{"id": m.id, "scope": "main"}])
    store.redact_text("hermes-42-build")
    (r,) = store.receipts()
    assert r["query"] == "where is [redacted] again" and r["items"][0]["id"] == m.id
    assert "hermes-42-build" not in (store.home / "state" / receipts.NAME).read_text()
