"""The must-show of issue 20 for the Python API: a fake token planted in each keyword
argument of the Store's writing (and recording) methods is found in no git object, no
file under the home and no error message; a name holding one is refused (UsageError with
a hint, the refs unchanged), free text is stored redacted. One store per module."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest

import gitmem
from conftest import git
from gitmem.core.errors import GitmemError
from gate_sweep import index_rows, leaks, refs, token

_SHARED: dict[str, SimpleNamespace] = {}


@pytest.fixture
def ctx(tmp_path_factory):
    """The module's store, made once in the first test's isolated environment."""
    if "ctx" not in _SHARED:
        base = tmp_path_factory.mktemp("gate-api")
        store = gitmem.init(base / "gitmem")
        (base / "work").mkdir()
        seed = store.remember("the seed memory", key="seed")
        _SHARED["ctx"] = SimpleNamespace(store=store, home=store.home, work=base / "work", seed=seed.id)
    c = _SHARED["ctx"]
    c.store = gitmem.open(c.home)  # a fresh Store per test: nothing cached from the last one
    return c


def _transcript(c, n: int, text: str, name: str | None = None) -> str:
    p = Path(c.work) / (name or f"transcript-{n}.jsonl")
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(json.dumps({"role": "user", "content": text}) + "\n")
    return str(p)


def _code_repo(c, n: int, tok: str) -> str:
    repo = Path(c.work) / f"code-{n}" / tok / "app"
    repo.mkdir(parents=True)
    git("init", "-q", str(repo))
    git("-C", str(repo), "commit", "-q", "--allow-empty", "-m", "first")
    return str(repo)


def _fresh(c, n: int) -> str:
    return c.store.remember(f"a memory to forget {n}").id


S = "channel/"
CASES = [
    ("remember text", "written", lambda c, n, t: c.store.remember(f"token {t} here")),
    ("remember scope", "refused", lambda c, n, t: c.store.remember("x", scope=S + t)),
    ("remember type", "refused", lambda c, n, t: c.store.remember("x", type=t)),
    ("remember importance", "refused", lambda c, n, t: c.store.remember("x", importance=t)),
    ("remember tags", "refused", lambda c, n, t: c.store.remember("x", tags=["ok", t])),
    ("remember tags string", "refused", lambda c, n, t: c.store.remember("x", tags=f"ok,{t}")),
    ("remember key", "refused", lambda c, n, t: c.store.remember("x", key=t)),
    ("remember created", "refused", lambda c, n, t: c.store.remember("x", created=t)),
    ("remember source", "written", lambda c, n, t: c.store.remember("src", source={"url": t, t: 1})),
    ("remember links", "written", lambda c, n, t: c.store.remember("lnk", links=[{"repo": t, "commit": "abc"}])),
    ("remember metadata", "written", lambda c, n, t: c.store.remember("md", metadata={"a": [t], t: {"b": t}})),
    ("remember supersedes", "refused", lambda c, n, t: c.store.remember("sup", supersedes=[t])),
    ("remember link", "refused", lambda c, n, t: c.store.remember("x", link=t, cwd=_code_repo(c, n, "plain"))),
    ("remember link repo path", "refused", lambda c, n, t: c.store.remember("x", link="HEAD", cwd=_code_repo(c, n, t))),
    ("remember op", "refused", lambda c, n, t: c.store.remember("x", op=t)),
    ("update text", "written", lambda c, n, t: c.store.update(c.seed, f"seed {t}")),
    ("update ref", "either", lambda c, n, t: c.store.update(t, "x")),
    ("update scope", "either", lambda c, n, t: c.store.update(c.seed, "x", scope=S + t)),
    ("update type", "refused", lambda c, n, t: c.store.update(c.seed, type=t)),
    ("update tags", "refused", lambda c, n, t: c.store.update(c.seed, tags=[t])),
    ("update subject", "written", lambda c, n, t: c.store.update(c.seed, f"seed again {n}", subject=f"s {t}")),
    ("update op", "refused", lambda c, n, t: c.store.update(c.seed, f"seed op {n}", op=t)),
    ("restore rev", "either", lambda c, n, t: c.store.restore(c.seed, t)),
    ("append text", "written", lambda c, n, t: c.store.append(f"journal {t}")),
    ("append scope", "refused", lambda c, n, t: c.store.append("line", scope=S + t)),
    ("import_items text", "written", lambda c, n, t: c.store.import_items([{"text": f"imp {t}"}])),
    ("import_items key", "refused", lambda c, n, t: c.store.import_items([{"text": "ok"}, {"text": "i", "key": t}])),
    ("import_items extra", "written", lambda c, n, t: c.store.import_items([{"text": "e", "x": t, t: [t]}])),
    ("import_items scope", "refused", lambda c, n, t: c.store.import_items([{"text": "i"}], scope=S + t)),
    ("import_items subject", "written", lambda c, n, t: c.store.import_items([{"text": f"s{n}"}], subject=t)),
    ("import_items op", "refused", lambda c, n, t: c.store.import_items([{"text": f"o{n}"}], op=t)),
    ("forget ids", "either", lambda c, n, t: c.store.forget([t])),
    ("forget reason", "written", lambda c, n, t: c.store.forget([_fresh(c, n)], reason=f"r {t}")),
    ("forget reason, history kept", "written", lambda c, n, t: c.store.forget([_fresh(c, n)], reason=t,
                                                                               keep_history=True)),
    ("redact_text reason", "written", lambda c, n, t: c.store.redact_text(
        f"a memory to forget {n}" if _fresh(c, n) else "", reason=t)),
    ("extract session", "refused", lambda c, n, t: c.store.extract(_transcript(c, n, "I prefer tabs."), session=t)),
    ("extract dry run session", "refused", lambda c, n, t: c.store.extract(
        _transcript(c, n, "I prefer tabs."), session=t, dry_run=True)),
    ("extract scope", "refused", lambda c, n, t: c.store.extract(
        _transcript(c, n, "I prefer tabs."), session=f"s{n}", scope=S + t)),
    ("extract transcript text", "written", lambda c, n, t: c.store.extract(
        _transcript(c, n, f"I always use the token {t} for deploys."), session=f"s{n}")),
    ("extract transcript path", "refused", lambda c, n, t: c.store.extract(
        _transcript(c, n, "I prefer tabs.", f"p{n}/{t}.jsonl"), session=f"s{n}")),
    ("flush summary", "written", lambda c, n, t: c.store.flush(_transcript(c, n, "done"), summary=f"sum {t}",
                                                                  session=f"f{n}")),
    ("flush session", "refused", lambda c, n, t: c.store.flush(_transcript(c, n, "done"), session=t)),
    ("changes cursor", "refused", lambda c, n, t: c.store.changes(t)),
    ("changes session", "either", lambda c, n, t: c.store.changes(f"c{n}", session=t)),
    ("record_receipt query", "written", lambda c, n, t: c.store.record_receipt(
        "test", f"q {t}", [{"id": c.seed, "scope": "main"}])),
    ("record_receipt kind", "refused", lambda c, n, t: c.store.record_receipt(t, "q", [{"id": c.seed, "scope": "main"}])),
    ("record_receipt id", "refused", lambda c, n, t: c.store.record_receipt("test", "q", [{"id": t, "scope": "main"}])),
    ("record_receipt scope", "refused", lambda c, n, t: c.store.record_receipt("test", "q", [{"id": c.seed, "scope": t}])),
    ("receipts session", "either", lambda c, n, t: c.store.receipts(session=t)),
    ("recall query", "written", lambda c, n, t: c.store.recall(f"what is {t}", record=True)),
    ("set_private", "refused", lambda c, n, t: c.store.set_private(S + t)),
    ("remote_add url", "refused", lambda c, n, t: c.store.remote_add("o", f"https://u:{t}@example.com/r.git")),
    ("link path", "refused", lambda c, n, t: c.store.link(_code_repo(c, n, t))),
    ("resolve keep", "either", lambda c, n, t: c.store.resolve(c.seed, keep=f"keep {t}")),
    ("open session", "refused", lambda c, n, t: gitmem.open(c.home, session=t)),
    ("open agent", "refused", lambda c, n, t: gitmem.open(c.home, agent=t)),
    ("identity name", "refused", lambda c, n, t: gitmem.open(
        c.home, overrides={"identity": {"name": f"bot {t}"}}).remember("x")),
    ("identity email", "refused", lambda c, n, t: gitmem.open(
        c.home, overrides={"identity": {"email": f"{t}@example.com"}}).remember("x")),
]


@pytest.mark.parametrize("n,what,expect,call", [(100 + i, *case) for i, case in enumerate(CASES)],
                         ids=[case[0] for case in CASES])
def test_a_token_planted_in_an_api_argument_is_nowhere(ctx, tmp_path, n, what, expect, call):
    tok = token(n)
    before = refs(ctx.home)
    error = None
    try:
        call(ctx, n, tok)
    except GitmemError as e:
        error = e
    if expect == "refused":
        assert error is not None, "not refused"
        assert error.hint and error.exit_code != 0
        assert refs(ctx.home) == before, "a refused argument moved a ref"
    elif expect == "written":
        assert error is None, error
    # The error itself, before any front end scrubs what it shows: a refusal does not quote it.
    messages = [] if error is None else [str(error.message), str(error.hint)]
    assert leaks(tok, [ctx.home, tmp_path], messages) == []


def test_the_index_holds_no_planted_token(tmp_path):
    """Every free-text input above written into one store, then the index built: no row
    (and no byte of the file) holds a token."""
    store = gitmem.init(tmp_path / "idx")
    c = SimpleNamespace(store=store, home=store.home, work=tmp_path, seed=store.remember("the seed", key="seed").id)
    written = [(100 + i, call) for i, (_, expect, call) in enumerate(CASES) if expect == "written"]
    for n, call in written:
        call(c, n, token(n))
    store.reindex()
    rows = index_rows(store.home)
    data = b"".join(p.read_bytes() for p in Path(store.home).rglob("*.duckdb*") if p.is_file())
    assert "journal" in rows and "redact" in rows and len(written) > 10  # the writes are in it
    for n, _ in written:
        assert token(n)[-16:] not in rows and token(n)[-16:].encode() not in data
