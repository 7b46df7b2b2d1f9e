"""The MCP server through the SDK's own stdio client: a real `gitmem mcp` subprocess."""

from __future__ import annotations

import pytest
import json
import os
import subprocess
import sys

import anyio

from conftest import git, raw_forms, run_cli

TOOLS = {"memory_search", "memory_get", "memory_remember", "memory_append", "memory_forget"}


def _payload(result) -> dict:
    """A tool result's structured content (or its text parsed as JSON)."""
    assert not result.is_error, result.content
    if result.structured_content is not None:
        return result.structured_content
    return json.loads(result.content[0].text)


def _in_git_objects(gm_home, text: str) -> bool:
    """Whether `text` is in any blob or commit message of the store, in whatever form
    the active codec stores it (to look for a forgotten one)."""
    gd = str(gm_home / "repo.git")
    out = subprocess.run(["git", f"--git-dir={gd}", "cat-file", "--batch-all-objects",
                          "--batch"], capture_output=True).stdout
    return any(form in out for form in raw_forms(text))


async def _session(args, fn, cwd=None):
    from mcp import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(command=sys.executable, args=["-m", "gitmem", "mcp", *args],
                                   env=dict(os.environ), cwd=cwd)
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            return await fn(session)


def run_session(fn, *args, cwd=None):
    return anyio.run(_session, list(args), fn, cwd)


@pytest.mark.slow
def test_mcp_lists_and_calls_every_tool(gm_home):
    assert run_cli("init").returncode == 0

    async def scenario(s):
        tools = (await s.list_tools()).tools
        names = {t.name for t in tools}
        out = {"names": names, "tools": {t.name: t for t in tools}}
        r1 = _payload(await s.call_tool("memory_remember", {
            "text": "Deploys happen only on Tuesdays", "type": "decision", "key": "deploy-window",
            "importance": 8, "tags": ["ops"]}))
        r2 = _payload(await s.call_tool("memory_remember", {
            "text": "Deploys happen on Tuesdays and Thursdays", "type": "decision",
            "key": "deploy-window"}))
        out["remember"] = (r1, r2)
        out["bad_type"] = await s.call_tool("memory_remember", {"text": "x", "type": "nonsense"})
        out["get"] = _payload(await s.call_tool("memory_get", {"ref": "deploy-window"}))
        out["missing"] = await s.call_tool("memory_get", {"ref": "no-such-key"})
        out["append"] = _payload(await s.call_tool("memory_append", {"text": "shipped the MCP server"}))
        out["search"] = _payload(await s.call_tool("memory_search", {"query": "when do deploys happen", "k": 5}))
        victim = _payload(await s.call_tool("memory_remember", {
            "text": "The staging password hint is purple-elephant", "type": "fact"}))
        out["victim"] = victim
        out["forget"] = _payload(await s.call_tool("memory_forget", {"ids": [victim["id"]],
                                                                      "reason": "outdated"}))
        out["after_forget"] = await s.call_tool("memory_get", {"ref": victim["id"]})
        return out

    out = run_session(scenario)
    assert TOOLS <= out["names"]
    tools = out["tools"]
    assert tools["memory_search"].annotations.read_only_hint is True
    assert tools["memory_forget"].annotations.destructive_hint is True
    assert "query" in tools["memory_search"].input_schema["properties"]
    assert tools["memory_remember"].input_schema["required"] == ["text"]
    r1, r2 = out["remember"]
    assert r1["status"] == "created" and r2["status"] == "updated"
    assert r1["id"] == r2["id"], "a key upserts: same memory, new version"
    assert out["bad_type"].is_error and "unknown type" in out["bad_type"].content[0].text
    got = out["get"]
    assert got["id"] == r1["id"] and "Thursdays" in got["text"] and got["type"] == "decision"
    assert out["missing"].is_error
    assert out["append"]["path"].startswith("daily/")
    hits = out["search"]["results"]
    assert hits and hits[0]["id"] == r1["id"]
    # Forget over MCP without --allow-redact: gone from the store, history kept.
    assert out["after_forget"].is_error
    assert out["forget"]["history_kept"] is True
    log = run_cli("log", out["victim"]["id"], "--json")
    assert log.returncode == 0 and len(json.loads(log.stdout)) >= 2
    assert _in_git_objects(gm_home, "purple-elephant"), "keep_history: old versions stay"
    # The same API as the CLI: the CLI sees what MCP wrote.
    cli = run_cli("get", "deploy-window", "--json")
    assert json.loads(cli.stdout)["id"] == r1["id"]


@pytest.mark.slow
def test_mcp_allow_redact_purges_history(gm_home):
    assert run_cli("init").returncode == 0

    async def scenario(s):
        v = _payload(await s.call_tool("memory_remember", {"text": "Old wifi code is tangerine-42"}))
        f = _payload(await s.call_tool("memory_forget", {"ids": [v["id"]]}))
        return v, f

    v, f = run_session(scenario, "--allow-redact")
    assert f["history_kept"] is False
    assert not _in_git_objects(gm_home, "tangerine-42")


def test_importing_cli_does_not_import_mcp():
    code = "import sys, gitmem.frontends.cli; print('mcp' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.stdout.strip() == "False"


@pytest.mark.slow
def test_mcp_reaches_what_the_cli_can(gm_home, tmp_path):
    """remember --link and recall over every scope, through the tools."""
    assert run_cli("init").returncode == 0
    code = tmp_path / "code"
    code.mkdir()
    git("init", "-q", "-b", "main", cwd=code)
    (code / "cache.py").write_text("TTL = 300\n")
    git("add", ".", cwd=code)
    git("commit", "-q", "-m", "cache: longer TTL", cwd=code)
    head = git("rev-parse", "HEAD", cwd=code).strip()
    assert run_cli("remember", "--scope", "channel/ops", "the pager rota rotates on mondays").returncode == 0

    async def scenario(s):
        m = _payload(await s.call_tool("memory_remember", {
            "text": "TTL raised to 300 s: the origin was overloaded", "type": "decision",
            "link": "HEAD:cache.py"}))
        bad = await s.call_tool("memory_remember", {"text": "x", "link": "HEAD:no/such.py"})
        default = _payload(await s.call_tool("memory_search", {"query": "pager rota"}))
        every = _payload(await s.call_tool("memory_search", {"query": "pager rota", "all_scopes": True}))
        return m, bad, default, every

    m, bad, default, every = run_session(scenario, cwd=str(code))
    got = json.loads(run_cli("get", m["id"], "--json").stdout)
    assert got["links"] and got["links"][0]["commit"] == head and got["links"][0]["path"] == "cache.py"
    assert bad.is_error
    assert default["results"] == []
    assert every["results"] and every["results"][0]["scope"] == "channel/ops"
