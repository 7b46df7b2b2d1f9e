"""The must-show of issue 20 for the command line: a fake token planted in each option,
argument, stdin and JSONL field of every command is found in no git object, no file under
the home (index and state/ included) and no output. A name (scope, key, type, agent,
session, cursor, linked path) holding one is refused with one `error:` and a `hint:`,
nothing written and the refs unchanged; free text is stored redacted. One store per
module (per xdist worker); each input has its own token, so a leak names its input."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from conftest import git, run_cli
from gate_sweep import assert_refused, leaks, refs, token

_SHARED: dict[str, SimpleNamespace] = {}


@pytest.fixture
def ctx(tmp_path_factory):
    """The module's store, made once in the first test's isolated environment."""
    if "ctx" not in _SHARED:
        base = tmp_path_factory.mktemp("gate-cli")
        home, work = base / "gitmem", base / "work"
        work.mkdir()
        env = {"GITMEM_HOME": str(home)}
        assert run_cli("init", env=env).returncode == 0
        res = run_cli("remember", "--key", "seed", "the seed memory", "--json", env=env)
        assert res.returncode == 0, res.stderr
        _SHARED["ctx"] = SimpleNamespace(home=home, work=work, env=env, seed=json.loads(res.stdout)["id"])
    return _SHARED["ctx"]


def _file(c, name: str, text: str) -> str:
    p = Path(c.work) / name
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text)
    return str(p)


def _jsonl(c, n: int, item: dict) -> dict:
    return {"args": ["import", "--jsonl", _file(c, f"items-{n}.jsonl", json.dumps(item) + "\n"), "--json"]}


def _transcript(c, n: int, text: str, name: str | None = None) -> str:
    line = json.dumps({"role": "user", "content": text})
    return _file(c, name or f"transcript-{n}.jsonl", line + "\n")


def _code_repo(c, n: int, tok: str) -> str:
    repo = Path(c.work) / f"code-{n}" / tok / "app"
    repo.mkdir(parents=True)
    git("init", "-q", str(repo))
    return str(repo)


# (input, expected outcome, what to run): "refused" (error + hint, refs unchanged),
# "written" (exit 0, the token redacted), "either" (a read or a lookup: either is fine).
CASES = [
    ("remember TEXT", "written", lambda c, n, t: {"args": ["remember", f"deploy key is {t} ok"]}),
    ("remember stdin", "written", lambda c, n, t: {"args": ["remember", "-"], "input": f"stdin {t}\n"}),
    ("remember --scope", "refused", lambda c, n, t: {"args": ["remember", "--scope", f"channel/{t}", "x"]}),
    ("remember --key", "refused", lambda c, n, t: {"args": ["remember", "--key", t, "a note"]}),
    ("remember --type", "refused", lambda c, n, t: {"args": ["remember", "--type", t, "a note"]}),
    ("remember --tag", "refused", lambda c, n, t: {"args": ["remember", "--tag", t, "a tagged note"]}),
    ("remember --link", "refused", lambda c, n, t: {"args": ["remember", "--link", t, "a linked note"]}),
    ("--agent", "refused", lambda c, n, t: {"args": ["--agent", t, "remember", "a note"]}),
    ("--session", "refused", lambda c, n, t: {"args": ["--session", t, "remember", "a note"]}),
    ("--session on a read", "refused", lambda c, n, t: {"args": ["--session", t, "recall", "seed"]}),
    ("update TEXT", "written", lambda c, n, t: {"args": ["update", c.seed, f"seed now {t}"]}),
    ("update --tag", "refused", lambda c, n, t: {"args": ["update", c.seed, "--tag", t]}),
    ("update --type", "refused", lambda c, n, t: {"args": ["update", c.seed, "--type", t]}),
    ("update REF", "either", lambda c, n, t: {"args": ["update", t, "new text"]}),
    ("update --scope", "either", lambda c, n, t: {"args": ["update", c.seed, "x", "--scope", f"channel/{t}"]}),
    ("append TEXT", "written", lambda c, n, t: {"args": ["append", f"journal {t}"]}),
    ("append --scope", "refused", lambda c, n, t: {"args": ["append", "--scope", f"project/{t}", "line"]}),
    ("import --scope", "refused", lambda c, n, t: dict(_jsonl(c, n, {"text": "x"}), args=[
        "import", "--scope", f"channel/{t}", "--jsonl", _file(c, f"s-{n}.jsonl", '{"text": "x"}\n')])),
    ("import text", "written", lambda c, n, t: _jsonl(c, n, {"text": f"imported {t}"})),
    ("import key", "refused", lambda c, n, t: _jsonl(c, n, {"text": "imported", "key": t})),
    ("import scope", "refused", lambda c, n, t: _jsonl(c, n, {"text": "imported", "scope": f"channel/{t}"})),
    ("import type", "refused", lambda c, n, t: _jsonl(c, n, {"text": "imported", "type": t})),
    ("import tags", "refused", lambda c, n, t: _jsonl(c, n, {"text": "imported tags", "tags": [t]})),
    ("import importance", "refused", lambda c, n, t: _jsonl(c, n, {"text": "imported", "importance": t})),
    ("import created", "refused", lambda c, n, t: _jsonl(c, n, {"text": "imported", "created": t})),
    ("import id", "either", lambda c, n, t: _jsonl(c, n, {"text": "imported id", "id": t})),
    ("import metadata", "written", lambda c, n, t: _jsonl(c, n, {"text": "imported m", "metadata": {"k": t}})),
    ("import metadata key", "written", lambda c, n, t: _jsonl(c, n, {"text": "imported mk", "metadata": {t: 1}})),
    ("import extra field", "written", lambda c, n, t: _jsonl(c, n, {"text": "imported x", "origin": t})),
    ("import extra field name", "written", lambda c, n, t: _jsonl(c, n, {"text": "imported xn", t: "v"})),
    ("import nested extra", "written", lambda c, n, t: _jsonl(c, n, {"text": "imported ne", "o": {"a": [t]}})),
    ("import source", "written", lambda c, n, t: _jsonl(c, n, {"text": "imported src", "source": {"url": t}})),
    ("import summary", "written", lambda c, n, t: _jsonl(c, n, {"text": "imported sum", "summary": t})),
    ("import --from markdown", "written", lambda c, n, t: {"args": [
        "import", "--from", "markdown", str(Path(_file(c, f"md-{n}/notes.md", f"# Notes\n\n- a line {t}\n")).parent)]}),
    ("import --from markdown file name", "either", lambda c, n, t: {"args": [
        "import", "--from", "markdown", str(Path(_file(c, f"mdn-{n}/{t}.md", "# T\n\n- plain line\n")).parent)]}),
    ("extract transcript text", "written", lambda c, n, t: {"args": [
        "extract", "-t", _transcript(c, n, f"I always deploy with the token {t}."), "--session", f"s{n}"]}),
    ("extract transcript path", "refused", lambda c, n, t: {"args": [
        "extract", "-t", _transcript(c, n, "I prefer short commit messages.", f"tr-{n}/{t}.jsonl"),
        "--session", f"s{n}"]}),
    ("extract --session", "refused", lambda c, n, t: {"args": [
        "extract", "-t", _transcript(c, n, "I prefer tabs."), "--session", t]}),
    ("extract --scope", "refused", lambda c, n, t: {"args": [
        "extract", "-t", _transcript(c, n, "I prefer tabs."), "--session", f"s{n}", "--scope", f"channel/{t}"]}),
    ("flush --summary", "written", lambda c, n, t: {"args": [
        "flush", "-t", _transcript(c, n, "we shipped"), "--summary", "-", "--session", f"f{n}"],
        "input": f"summary with {t}\n"}),
    ("flush transcript text", "written", lambda c, n, t: {"args": [
        "flush", "-t", _transcript(c, n, f"the key was {t}"), "--session", f"g{n}"]}),
    ("flush --session", "refused", lambda c, n, t: {"args": [
        "flush", "-t", _transcript(c, n, "we shipped"), "--session", t]}),
    ("forget --reason", "written", lambda c, n, t: {"args": ["forget", _seed(c, n), "--reason", f"leaked {t}"]}),
    ("forget ID", "either", lambda c, n, t: {"args": ["forget", t]}),
    ("forget --query", "either", lambda c, n, t: {"args": ["forget", "--query", t]}),
    ("redact --reason", "written", lambda c, n, t: {"args": [
        "redact", "--text", f"a memory to forget {n}" if _seed(c, n) else "", "--reason", f"x {t}"]}),
    ("redact STRING", "either", lambda c, n, t: {"args": ["redact", "--text", t]}),
    ("changes --cursor", "refused", lambda c, n, t: {"args": ["changes", "--cursor", t]}),
    ("changes --session", "either", lambda c, n, t: {"args": ["changes", "--cursor", f"c{n}", "--session", t]}),
    ("changes --remote", "either", lambda c, n, t: {"args": ["changes", "--cursor", f"r{n}", "--remote", t]}),
    ("changes --scope", "either", lambda c, n, t: {"args": ["changes", "--cursor", f"q{n}", "--scope", f"channel/{t}"]}),
    ("link PATH", "refused", lambda c, n, t: {"args": ["link", _code_repo(c, n, t)]}),
    ("unlink PATH", "either", lambda c, n, t: {"args": ["unlink", _code_repo(c, n, t)]}),
    ("why SPEC", "either", lambda c, n, t: {"args": ["why", f"{t}.py:1"]}),
    ("remote remove", "either", lambda c, n, t: {"args": ["remote", "remove", t]}),
    ("scopes public", "refused", lambda c, n, t: {"args": ["scopes", "public", f"channel/{t}"]}),
    ("sync REMOTE", "either", lambda c, n, t: {"args": ["sync", t]}),
    ("recall QUERY", "written", lambda c, n, t: {"args": ["recall", f"what is {t}", "--json"]}),
    ("recall --scope", "either", lambda c, n, t: {"args": ["recall", "seed", "--scope", f"channel/{t}"]}),
    ("recall --since", "either", lambda c, n, t: {"args": ["recall", "seed", "--since", t]}),
    ("recall --at", "either", lambda c, n, t: {"args": ["recall", "seed", "--at", t]}),
    ("context --scope", "either", lambda c, n, t: {"args": ["context", "--scope", f"channel/{t}"]}),
    ("get REF", "either", lambda c, n, t: {"args": ["get", t]}),
    ("log REF", "either", lambda c, n, t: {"args": ["log", t]}),
    ("show REV", "either", lambda c, n, t: {"args": ["show", t]}),
    ("diff REVS", "either", lambda c, n, t: {"args": ["diff", t, t]}),
    ("restore REV", "either", lambda c, n, t: {"args": ["restore", c.seed, t]}),
    ("resolve REF", "either", lambda c, n, t: {"args": ["resolve", t]}),
    ("resolve --keep", "either", lambda c, n, t: {"args": ["resolve", c.seed, "--keep", f"keep {t}"]}),
    ("receipts --session", "either", lambda c, n, t: {"args": ["receipts", "--session", t]}),
    ("receipts --id", "either", lambda c, n, t: {"args": ["receipts", "--id", t]}),
    ("receipts --since", "either", lambda c, n, t: {"args": ["receipts", "--since", t]}),
    ("list --scope", "either", lambda c, n, t: {"args": ["list", "--scope", f"channel/{t}"]}),
    ("export --scope", "either", lambda c, n, t: {"args": ["export", "--scope", f"channel/{t}", "--jsonl", "-"]}),
    ("dream --scope", "either", lambda c, n, t: {"args": ["dream", "--scope", f"channel/{t}", "--dry-run"]}),
    ("remember --importance", "refused", lambda c, n, t: {"args": ["remember", "--importance", t, "x"]}),
    ("import --jsonl -", "written", lambda c, n, t: {"args": ["import", "--jsonl", "-"],
                                                     "input": json.dumps({"text": f"stdin item {t}", "k": t}) + "\n"}),
    ("edit (the editor's text)", "written", lambda c, n, t: {"args": ["edit", c.seed], "env": {
        "EDITOR": f"{sys.executable} -c \"import sys; open(sys.argv[1], 'a').write(' now {t}')\""}}),
    ("recall --format prompt", "written", lambda c, n, t: {"args": ["recall", f"seed {t}", "--format", "prompt"]}),
    ("recall -k", "either", lambda c, n, t: {"args": ["recall", "seed", "-k", t]}),
    ("recall --type", "either", lambda c, n, t: {"args": ["recall", "seed", "--type", t]}),
    ("recall --budget", "either", lambda c, n, t: {"args": ["recall", "seed", "--budget", t]}),
    ("recall --timeout", "either", lambda c, n, t: {"args": ["recall", "seed", "--timeout", t]}),
    ("get --at", "either", lambda c, n, t: {"args": ["get", c.seed, "--at", t]}),
    ("get --from", "either", lambda c, n, t: {"args": ["get", c.seed, "--from", t]}),
    ("get --scope", "either", lambda c, n, t: {"args": ["get", c.seed, "--scope", f"channel/{t}"]}),
    ("list --type", "either", lambda c, n, t: {"args": ["list", "--type", t]}),
    ("log --limit", "either", lambda c, n, t: {"args": ["log", "--limit", t]}),
    ("log --scope", "either", lambda c, n, t: {"args": ["log", "--scope", f"channel/{t}"]}),
    ("context --at", "either", lambda c, n, t: {"args": ["context", "--at", t]}),
    ("context --hours", "either", lambda c, n, t: {"args": ["context", "--hours", t]}),
    ("watch --remote", "either", lambda c, n, t: {"args": ["watch", "--remote", t, "--count", "1"]}),
    ("key import", "either", lambda c, n, t: {"args": ["key", "import", _file(c, f"key-{n}.txt", t)]}),
]


@pytest.mark.parametrize("n,what,expect,build", [(i, *case) for i, case in enumerate(CASES)],
                         ids=[case[0] for case in CASES])
def test_a_token_planted_in_a_command_input_is_nowhere(ctx, tmp_path, monkeypatch, n, what, expect, build):
    from click.testing import CliRunner

    from gitmem.frontends.cli import cli

    tok = token(n)
    spec = build(ctx, n, tok)
    before = refs(ctx.home)
    monkeypatch.chdir(ctx.work)
    # In-process (as the daemon runs a command): the same code path, without an interpreter per input.
    run = CliRunner().invoke(cli, spec["args"], input=spec.get("input"), env={**ctx.env, **spec.get("env", {})})
    res = SimpleNamespace(returncode=run.exit_code, stdout=run.stdout, stderr=run.stderr)
    if expect == "refused":
        assert_refused(res, ctx.home, before)
    elif expect == "written":
        assert res.returncode == 0, res.stderr
    assert "Traceback" not in res.stderr
    assert leaks(tok, [ctx.home, tmp_path], [res.stdout, res.stderr]) == []


def _seed(c, n: int) -> str:
    res = run_cli("remember", f"a memory to forget {n}", "--json", env=c.env)
    assert res.returncode == 0, res.stderr
    return json.loads(res.stdout)["id"]
