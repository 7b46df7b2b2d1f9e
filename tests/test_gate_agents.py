"""The must-show of issue 20 for what agents send: a fake token planted in each argument
of each MCP tool (through the SDK's own client against a real `gitmem mcp` process) and in
each field of the hook payloads the agent CLIs send is found in no git object, no file
under the home (index and state/ included) and no output (MCP responses, hook stdout and
stderr). A name (a session id, a scope, a key, a transcript's path) is refused; free text
is stored redacted."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import git, invoke_cli, run_cli
from gate_sweep import index_rows, leaks, refs, token
from test_mcp import run_session

# ---- MCP --------------------------------------------------------------------------------
# (tool, arguments with {t} for the token, expected: "refused" | "written" | "either")
MCP_CALLS = [
    ("memory_remember", {"text": "deploys use {t} today"}, "written"),
    ("memory_remember", {"text": "x", "type": "{t}"}, "refused"),
    ("memory_remember", {"text": "x", "key": "{t}"}, "refused"),
    ("memory_remember", {"text": "x", "tags": ["ops", "{t}"]}, "refused"),
    ("memory_remember", {"text": "x", "scope": "channel/{t}"}, "refused"),
    ("memory_remember", {"text": "x", "link": "{t}"}, "refused"),
    ("memory_remember", {"text": "x", "importance": "{t}"}, "refused"),
    ("memory_append", {"text": "journal {t}"}, "written"),
    ("memory_append", {"text": "x", "scope": "project/{t}"}, "refused"),
    ("memory_search", {"query": "what about {t}"}, "either"),
    ("memory_search", {"query": "deploys", "scopes": ["channel/{t}"]}, "either"),
    ("memory_search", {"query": "deploys", "type": "{t}"}, "either"),
    ("memory_search", {"query": "deploys", "since": "{t}"}, "either"),
    ("memory_search", {"query": "deploys", "at": "{t}"}, "either"),
    ("memory_search", {"query": "deploys", "k": "{t}"}, "either"),
    ("memory_get", {"ref": "{t}"}, "either"),
    ("memory_get", {"ref": "daily/{t}.md"}, "either"),
    ("memory_get", {"ref": "seed", "scope": "channel/{t}"}, "either"),
    ("memory_get", {"ref": "seed", "from_line": "{t}"}, "either"),
    ("memory_forget", {"ids": ["{t}"]}, "either"),
    ("memory_forget", {"ids": ["victim"], "reason": "pasted {t}"}, "written"),
    ("memory_{t}", {"text": "a tool that is not there"}, "either"),
]


def _fill(value, tok: str):
    if isinstance(value, str):
        return value.replace("{t}", tok)
    if isinstance(value, list):
        return [_fill(v, tok) for v in value]
    if isinstance(value, dict):
        return {k: _fill(v, tok) for k, v in value.items()}
    return value


def _text(result) -> str:
    return json.dumps([getattr(c, "text", None) for c in result.content]) + json.dumps(result.structured_content)


def test_a_token_in_any_mcp_argument_is_nowhere(gm_home, tmp_path):
    assert invoke_cli("init").returncode == 0
    assert invoke_cli("remember", "--key", "seed", "the seed memory").returncode == 0
    assert invoke_cli("remember", "--key", "victim", "a memory to forget").returncode == 0

    async def scenario(s):
        out = []
        for n, (tool, args, expect) in enumerate(MCP_CALLS, start=200):
            before = refs(gm_home)
            res = await s.call_tool(_fill(tool, token(n)), _fill(args, token(n)))
            out.append((n, tool, args, expect, res, before, refs(gm_home)))
        return out

    found = {}
    for n, tool, args, expect, res, before, after in run_session(scenario):
        where = leaks(token(n), [gm_home, tmp_path / "home"], [_text(res)])
        if expect == "refused" and (not res.is_error or before != after):
            where.append("not refused, or a ref moved")
        if expect == "written" and res.is_error:
            where.append(f"refused: {_text(res)[:200]}")
        if where:
            found[f"{tool} {args}"] = where
    assert found == {}
    rows = index_rows(gm_home)  # the server indexed what it was given
    assert "deploys" in rows
    assert not [n for n in range(200, 200 + len(MCP_CALLS)) if token(n)[-16:] in rows]


@pytest.mark.parametrize("flag", ["--session", "--agent"])
def test_an_mcp_server_for_a_session_or_agent_holding_a_token_does_not_start(gm_home, tmp_path, flag):
    assert invoke_cli("init").returncode == 0
    before = refs(gm_home)
    res = run_cli(flag, token(240), "mcp", input="", timeout=60)
    assert res.returncode == 2 and res.stderr.startswith("error: ") and "hint: " in res.stderr
    assert refs(gm_home) == before
    assert leaks(token(240), [gm_home, tmp_path / "home"], [res.stdout, res.stderr]) == []


# ---- hook payloads ------------------------------------------------------------------------
def _turns(path: Path, *texts: str) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps({"type": "user", "message": {"role": "user", "content": t}}) + "\n"
                            for t in texts))
    return str(path)


# (event, payload builder (work folder, token) -> payload, what the hook's output shows:
# "refused" (it failed open with the gate's error) or a piece of what it did).
REFUSED = "failed open: the session id holds what looks like a secret"
HOOKS = [
    ("session-start", lambda w, t: {"session_id": t, "cwd": str(w)}, REFUSED),
    ("session-start", lambda w, t: {"sessionId": t, "cwd": str(w)}, REFUSED),
    ("session-start", lambda w, t: {"session_id": "s1", "cwd": str(w), "source": t, "model": t,
                                     "hook_event_name": t, "transcript_path": t}, "<gitmem-context"),
    ("prompt", lambda w, t: {"session_id": "s2", "prompt": f"use {t} to deploy", "cwd": str(w)}, "<gitmem-memory"),
    ("prompt", lambda w, t: {"session_id": "s3", "submitted_prompt": f"what is {t}", "cwd": str(w)}, "<gitmem-memory"),
    ("prompt", lambda w, t: {"session_id": t, "prompt": "deploys", "cwd": str(w)}, REFUSED),
    ("prompt", lambda w, t: {"session_id": "s4", "prompt": "tabs", "cwd": str(w / t)}, "<gitmem-memory"),
    ("stop", lambda w, t: {"session_id": "s5", "cwd": str(w), "transcript_path": _turns(
        w / "t5.jsonl", f"I always deploy with the token {t}.", "I prefer tabs over spaces.")}, "kept"),
    ("stop", lambda w, t: {"session_id": "s6", "cwd": str(w), "transcript_path": _turns(
        w / t / "t6.jsonl", "I prefer short commit messages.")}, "failed open: the transcript path holds"),
    ("stop", lambda w, t: {"session_id": t, "cwd": str(w), "transcript_path": _turns(
        w / "t7.jsonl", "I prefer dark themes.")}, REFUSED),
    ("pre-compact", lambda w, t: {"session_id": "s8", "cwd": str(w), "transcript_path": _turns(
        w / "t8.jsonl", f"the key is {t}", "I prefer small pull requests.")}, "session summary stored"),
    ("pre-compact", lambda w, t: {"session_id": t, "cwd": str(w), "transcript_path": _turns(
        w / "t9.jsonl", "we shipped")}, REFUSED),
]


def _hook(event: str, payload: dict, cwd: Path):
    """`gitmem hook EVENT` in-process (as a running `gitmem serve` runs it), the payload on stdin."""
    import os

    from click.testing import CliRunner

    from gitmem.frontends.cli import cli

    here = os.getcwd()
    os.chdir(cwd)
    try:
        run = CliRunner().invoke(cli, ["hook", event, "--budget", "60"], input=json.dumps(payload))
    finally:
        os.chdir(here)
    assert run.exit_code == 0 and "Traceback" not in run.stderr, run.stderr
    return run


def test_a_token_in_any_hook_payload_field_is_nowhere(gm_home, tmp_path):
    import gitmem

    store = gitmem.init(gm_home)
    store.remember("I prefer tabs", type="preference")
    # No detached indexer after a hook: it would write the index while the test reads it.
    (gm_home / "config.toml").write_text("[hooks]\nwarm_index = false\n")
    work = tmp_path / "work"
    work.mkdir()
    found = {}
    for n, (event, build, shows) in enumerate(HOOKS, start=300):
        payload = build(work, token(n))
        res = _hook(event, payload, work)
        assert shows in res.stdout + res.stderr, (event, sorted(payload), res.stdout[:200], res.stderr)
        where = leaks(token(n), [gm_home, tmp_path / "home"], [res.stdout, res.stderr])
        if where:
            found[f"{event} {sorted(payload)} #{n}"] = where
    # The post-commit hook journals the code commit's subject: free text, stored redacted.
    repo, tok = tmp_path / "app", token(320)
    git("init", "-q", str(repo))
    store.link(repo)
    git("-C", str(repo), "commit", "-q", "--allow-empty", "-m", f"rotate {tok}")
    res = _hook("git-post-commit", {"cwd": str(repo)}, repo)
    assert "failed" not in res.stderr, res.stderr
    assert "rotate [REDACTED:" in gitmem.open(gm_home).read_path(
        "daily/" + _today() + ".md", scope=store.linked_scope(str(repo)))["text"]
    found.update({"git-post-commit": w for w in [leaks(tok, [gm_home, tmp_path / "home"], [res.stdout, res.stderr])]
                  if w})
    assert found == {}


def _today() -> str:
    import datetime as dt

    return dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d")
