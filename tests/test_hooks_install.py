"""hooks_install: entries in agent settings and git hook shims, each undone by its
uninstaller; the launcher's fail-open time limit; git hooks journalling commits."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

from gitmem.frontends import hooks_install
from gitmem.frontends.hookrun import AGENT_EVENTS

from conftest import git, invoke_cli


FOREIGN = {"type": "command", "command": "echo foreign"}


def _commands(settings: Path) -> dict[str, list[str]]:
    data = json.loads(settings.read_text())
    return {ev: [h["command"] for g in groups for h in g["hooks"]] for ev, groups in data["hooks"].items()}


def test_install_agent_keeps_foreign_hooks_and_uninstall_restores(store, tmp_path):
    settings = tmp_path / "settings.json"
    original = {"model": "x", "hooks": {"Stop": [{"hooks": [FOREIGN]}]}}
    settings.write_text(json.dumps(original, indent=4) + "\n")
    before = settings.read_bytes()
    for _ in range(2):  # idempotent
        res = invoke_cli("hooks", "install", "--agent", "claude", "--settings", str(settings), "--json")
        assert res.returncode == 0, res.stderr
    cmds = _commands(settings)
    assert set(cmds) == {"SessionStart", "UserPromptSubmit", "Stop", "PreCompact"}
    assert cmds["Stop"][0] == "echo foreign" and len(cmds["Stop"]) == 2
    for ev, name in AGENT_EVENTS.items():
        ours = [c for c in cmds[ev] if "gitmem-hook" in c]
        assert len(ours) == 1 and ours[0].endswith(f" {name}") and f"GITMEM_HOME={store.home}" in ours[0]
    assert json.loads(settings.read_text())["model"] == "x"
    res = invoke_cli("hooks", "uninstall", "--agent", "claude", "--settings", str(settings))
    assert res.returncode == 0, res.stderr
    assert settings.read_bytes() == before  # the very bytes, formatting included


def test_install_creates_and_uninstall_deletes_default_settings(store):
    home = Path(os.environ["HOME"])
    res = invoke_cli("hooks", "install", "--agent", "codex")
    assert res.returncode == 0, res.stderr
    assert "codex_hooks" in res.stderr  # says what it does not do for Codex
    path = home / ".codex" / "hooks.json"
    assert set(_commands(path)) == {"SessionStart", "UserPromptSubmit", "Stop", "PreCompact"}
    res = invoke_cli("hooks", "install", "--agent", "qwen")
    qwen = json.loads((home / ".qwen" / "settings.json").read_text())["hooks"]
    assert qwen["Stop"][0]["hooks"][0]["timeout"] == 3000  # Qwen Code counts milliseconds
    assert json.loads(path.read_text())["hooks"]["Stop"][0]["hooks"][0]["timeout"] == 3
    assert invoke_cli("hooks", "uninstall", "--agent", "codex").returncode == 0
    assert not path.exists()


def test_install_rejects_bad_settings(store, tmp_path):
    bad = tmp_path / "s.json"
    bad.write_text("{not json")
    res = invoke_cli("hooks", "install", "--agent", "claude", "--settings", str(bad))
    assert res.returncode == 2 and "error:" in res.stderr
    assert bad.read_text() == "{not json"


def test_launcher_fails_open_and_enforces_budget(tmp_path):
    launcher = str(hooks_install.launcher_path())
    slow = tmp_path / "slowpython"
    slow.write_text("#!/bin/sh\nsleep 10\n")
    slow.chmod(0o755)
    # The launcher kills the hook at its budget (timeout's exit 124, reported) and exits 0;
    # a launcher that waited for the 10 s sleep would hit this test's own limit.
    res = subprocess.run(["sh", launcher, "prompt"], input="{}", capture_output=True, text=True,
                         env={**os.environ, "GITMEM_PYTHON": str(slow), "GITMEM_HOOK_BUDGET": "0.5"}, timeout=8)
    assert res.returncode == 0
    assert "exited 124" in res.stderr
    res = subprocess.run(["sh", launcher, "prompt"], input="{}", capture_output=True, text=True,
                         env={**os.environ, "GITMEM_PYTHON": str(tmp_path / "nope")})
    assert res.returncode == 0 and "exited" in res.stderr


def _code_repo(tmp_path: Path) -> Path:
    repo = tmp_path / "code"
    repo.mkdir()
    git("init", "-q", "-b", "main", cwd=repo)
    git("config", "user.name", "Dev", cwd=repo)
    git("config", "user.email", "dev@example.com", cwd=repo)
    return repo


def test_git_hook_journals_commits_and_chains_a_foreign_hook(store, tmp_path):
    repo = _code_repo(tmp_path)
    hooks_dir = repo / ".git" / "hooks"
    foreign = "#!/bin/sh\necho ran >> \"$(git rev-parse --show-toplevel)/../foreign.log\"\n"
    (hooks_dir / "post-commit").write_text(foreign)
    (hooks_dir / "post-commit").chmod(0o755)
    res = invoke_cli("link", cwd=repo)
    assert res.returncode == 0, res.stderr
    scope = json.loads(invoke_cli("link", "--json", cwd=repo).stdout)["scope"]
    res = invoke_cli("hooks", "install", "--git", cwd=repo)
    assert res.returncode == 0, res.stderr
    assert (hooks_dir / "post-commit.gitmem-legacy").read_text() == foreign
    (repo / "a.txt").write_text("a\n")
    git("add", "a.txt", cwd=repo)
    out = subprocess.run(["git", "commit", "-q", "-m", "Add the a file"], cwd=repo, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    sha = git("rev-parse", "HEAD", cwd=repo).strip()
    assert (tmp_path / "foreign.log").read_text() == "ran\n"
    import gitmem

    s = gitmem.open(store.home)
    day = s.read_path(f"daily/{time.strftime('%Y-%m-%d', time.gmtime())}.md", scope=scope)["text"]
    assert f"commit {sha[:12]} Add the a file" in day
    res = invoke_cli("hooks", "uninstall", "--git", cwd=repo)
    assert res.returncode == 0, res.stderr
    assert (hooks_dir / "post-commit").read_text() == foreign
    assert not (hooks_dir / "post-commit.gitmem-legacy").exists()


def test_git_hook_in_unlinked_repo_fails_open(store, tmp_path):
    repo = _code_repo(tmp_path)
    res = invoke_cli("hooks", "install", "--git", cwd=repo)
    assert res.returncode == 0 and "not linked" in res.stderr
    (repo / "b.txt").write_text("b\n")
    git("add", "b.txt", cwd=repo)
    out = subprocess.run(["git", "commit", "-q", "-m", "b"], cwd=repo, capture_output=True, text=True)
    assert out.returncode == 0 and "not linked" in out.stderr
    assert git("log", "--format=%s", cwd=repo).strip() == "b"
