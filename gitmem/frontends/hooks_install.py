"""Hook installers: gitmem's entries in agent CLIs' settings (Claude Code, Qwen Code,
Codex) and git hook shims in code repositories, each undone by its uninstaller.

An existing settings file keeps its other hooks, and uninstall puts its very bytes back
if nothing else changed; a foreign git hook is kept as <name>.gitmem-legacy and chained.
Library code: no printing."""

from __future__ import annotations

import json
import math
import os
import shlex
import sys
from pathlib import Path
from typing import Any

from gitmem.core import paths
from gitmem.core.config import Config
from gitmem.core.errors import UsageError
from gitmem.core.fsutil import atomic_write
from gitmem.frontends.hookrun import AGENT_EVENTS, hook_setting

AGENT_SETTINGS = {"claude": "~/.claude/settings.json", "qwen": "~/.qwen/settings.json",
                  "codex": "~/.codex/hooks.json"}
GIT_HOOKS = ("post-commit",)
LAUNCHER = "gitmem-hook"
GIT_MARKER = "# gitmem-managed hook"
LEGACY_SUFFIX = ".gitmem-legacy"


def launcher_path() -> Path:
    from importlib import resources

    return Path(str(resources.files("gitmem.hooks").joinpath(LAUNCHER)))


def hook_command(event: str, home: Path, budget: float | None = None, agent: str | None = None) -> str:
    """The shell command an agent CLI runs: environment (the budget is baked in, so the
    launcher's hard limit and the runner's deadline agree), launcher, event."""
    env = [f"GITMEM_HOME={shlex.quote(str(home))}", f"GITMEM_PYTHON={shlex.quote(sys.executable)}"]
    if budget is not None:
        env.append(f"GITMEM_HOOK_BUDGET={budget:g}")
    if agent:
        env.append(f"GITMEM_AGENT={shlex.quote(agent)}")
    return " ".join(env + ["sh", shlex.quote(str(launcher_path())), event])


def _is_ours(entry: Any) -> bool:
    return isinstance(entry, dict) and LAUNCHER in str(entry.get("command", "")) and "GITMEM_" in str(
        entry.get("command", ""))


def _installed_path(home: Path) -> Path:
    return paths.state_file(home, "hooks-installed.json")


def _load_installed(home: Path) -> dict[str, Any]:
    try:
        data = json.loads(_installed_path(home).read_text())
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}


def settings_path(agent: str, settings: str | os.PathLike[str] | None) -> Path:
    if agent not in AGENT_SETTINGS:
        raise UsageError(f"unknown agent {agent!r}", hint="one of: " + ", ".join(AGENT_SETTINGS))
    return Path(os.path.expanduser(str(settings or AGENT_SETTINGS[agent]))).absolute()


def _read_settings(path: Path) -> dict[str, Any]:
    if not path.exists():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8") or "{}")
    except (OSError, ValueError) as e:
        raise UsageError(f"cannot read {path}: {e}", hint="fix the JSON, or pass --settings FILE") from e
    if not isinstance(data, dict) or not isinstance(data.get("hooks", {}), dict):
        raise UsageError(f"{path} is not a settings object with a `hooks` table")
    return data


def _strip_ours(data: dict[str, Any]) -> int:
    """Remove our entries from a settings dict; drop lists and tables left empty."""
    removed = 0
    hooks = data.get("hooks")
    if not isinstance(hooks, dict):
        return 0
    for name in list(hooks):
        groups = hooks[name]
        if not isinstance(groups, list):
            continue
        kept_groups = []
        for g in groups:
            if isinstance(g, dict) and isinstance(g.get("hooks"), list):
                inner = [h for h in g["hooks"] if not _is_ours(h)]
                removed += len(g["hooks"]) - len(inner)
                if not inner:
                    continue
                g = dict(g, hooks=inner)
            kept_groups.append(g)
        if kept_groups:
            hooks[name] = kept_groups
        else:
            del hooks[name]
    if not hooks:
        del data["hooks"]
    return removed


def check_installed(home: Path) -> dict[str, Any]:
    """For `doctor`: the agent settings gitmem installed into, and what no longer holds
    (a settings file gone or without gitmem's entries, a launcher or Python that moved)."""
    problems: list[str] = []
    files = sorted(_load_installed(home))
    for f in files:
        path = Path(f)
        try:
            data = _read_settings(path)
        except UsageError as e:
            problems.append(f"{f}: {e.message}")
            continue
        entries = [h for groups in (data.get("hooks") or {}).values() if isinstance(groups, list)
                   for g in groups if isinstance(g, dict) for h in (g.get("hooks") or []) if _is_ours(h)]
        if not path.exists() or not entries:
            problems.append(f"{f}: gitmem's hooks are gone (`gitmem hooks install AGENT` puts them back)")
            continue
        for h in entries:
            cmd = shlex.split(str(h.get("command", "")))
            py = next((c.split("=", 1)[1] for c in cmd if c.startswith("GITMEM_PYTHON=")), None)
            if py and not Path(py).exists():
                problems.append(f"{f}: its hooks run {py}, which no longer exists (reinstall the hooks)")
                break
            if str(launcher_path()) not in cmd:
                problems.append(f"{f}: its hooks point to another gitmem installation (reinstall the hooks)")
                break
    return {"files": files, "problems": problems}


def install_agent(config: Config, agent: str, settings: str | os.PathLike[str] | None = None,
                  budget: float | None = None) -> dict[str, Any]:
    """Write gitmem's entries for session start, before each prompt, after each reply and
    before compaction into an agent CLI's settings (idempotent; others' hooks are kept)."""
    path = settings_path(agent, settings)
    data = _read_settings(path)
    existed = path.exists()
    before = path.read_text(encoding="utf-8") if existed else None
    _strip_ours(data)
    hooks = data.setdefault("hooks", {})
    b = float(hook_setting(config, "budget") if budget is None else budget)
    for agent_event, event in AGENT_EVENTS.items():
        # The agent's own kill timer, a step behind ours. Qwen Code counts milliseconds.
        timeout = int(math.ceil(b)) + 1
        entry = {"type": "command", "command": hook_command(event, config.home, b, agent),
                 "timeout": timeout * 1000 if agent == "qwen" else timeout}
        hooks.setdefault(agent_event, []).append({"hooks": [entry]})
    atomic_write(path, (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode())
    rec = _load_installed(config.home)
    prev = rec.get(str(path))
    # The file as it was before gitmem's first install: uninstall puts these very bytes
    # back if nothing else changed meanwhile.
    rec[str(path)] = prev if prev is not None else {"agent": agent, "created": not existed, "original": before}
    atomic_write(_installed_path(config.home), json.dumps(rec, indent=2).encode())
    notes = []
    if agent == "codex":
        notes.append("Codex reads ~/.codex/hooks.json (or .codex/hooks.json in a project). Codex "
                     "releases before hooks were on by default need `[features] codex_hooks = true` "
                     "in ~/.codex/config.toml; gitmem does not edit that file. PreCompact needs a "
                     "Codex with compact hooks; older ones ignore that entry.")
    return {"agent": agent, "settings": str(path), "events": list(AGENT_EVENTS), "budget": b,
            "launcher": str(launcher_path()), "notes": notes}


def _same_json(text: str, data: Any) -> bool:
    try:
        return json.loads(text or "{}") == data
    except ValueError:
        return False


def uninstall_agent(config: Config, agent: str, settings: str | os.PathLike[str] | None = None) -> dict[str, Any]:
    """Remove gitmem's entries; delete the settings file if gitmem created it and it is empty."""
    path = settings_path(agent, settings)
    data = _read_settings(path)
    removed = _strip_ours(data)
    rec = _load_installed(config.home)
    created = bool(rec.get(str(path), {}).get("created"))
    deleted = False
    original = rec.get(str(path), {}).get("original")
    if path.exists():
        if created and not data:
            path.unlink()
            deleted = True
        elif original is not None and _same_json(original, data):
            atomic_write(path, original.encode("utf-8"))
        elif removed:
            atomic_write(path, (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode())
    if str(path) in rec:
        del rec[str(path)]
        atomic_write(_installed_path(config.home), json.dumps(rec, indent=2).encode())
    return {"agent": agent, "settings": str(path), "removed": removed, "deleted": deleted}


def git_shim(name: str, home: Path, budget: float) -> str:
    """A git hook that runs the hook it replaced (kept as <name>.gitmem-legacy), then gitmem."""
    launcher = shlex.quote(str(launcher_path()))
    return f"""#!/bin/sh
{GIT_MARKER} (`gitmem hooks uninstall --git` restores the previous one)
rc=0
legacy="$(dirname "$0")/{name}{LEGACY_SUFFIX}"
if [ -x "$legacy" ]; then "$legacy" "$@" || rc=$?; fi
GITMEM_HOME={shlex.quote(str(home))} GITMEM_PYTHON={shlex.quote(sys.executable)} GITMEM_HOOK_BUDGET={budget:g} sh {launcher} git-{name} </dev/null
exit $rc
"""


def install_git(config: Config, d: Path, linked_scope: str | None) -> dict[str, Any]:
    """Install gitmem's git hooks in a code repository's hooks folder `d` (of a repository
    linked to `linked_scope`, if any), chaining any existing hook."""
    d.mkdir(parents=True, exist_ok=True)
    out = []
    for name in GIT_HOOKS:
        hook = d / name
        legacy = d / (name + LEGACY_SUFFIX)
        kept = None
        if hook.exists() and GIT_MARKER not in hook.read_text(errors="replace"):
            if legacy.exists():
                raise UsageError(f"both {hook} and {legacy} exist",
                                 hint=f"merge them by hand, remove {legacy.name}, then retry")
            os.replace(hook, legacy)
            kept = str(legacy)
        atomic_write(hook, git_shim(name, config.home, float(hook_setting(config, "budget"))).encode(),
                     mode=0o755)
        out.append({"hook": str(hook), "chained": kept or (str(legacy) if legacy.exists() else None)})
    return {"hooks_dir": str(d), "installed": out,
            "linked_scope": linked_scope}


def uninstall_git(config: Config, d: Path) -> dict[str, Any]:
    """Remove gitmem's git hooks from the hooks folder `d` and put back the hooks they chained."""
    out = []
    for name in GIT_HOOKS:
        hook = d / name
        legacy = d / (name + LEGACY_SUFFIX)
        if hook.exists() and GIT_MARKER in hook.read_text(errors="replace"):
            hook.unlink()
            restored = None
            if legacy.exists():
                os.replace(legacy, hook)
                restored = str(hook)
            out.append({"hook": str(hook), "removed": True, "restored": restored})
        else:
            out.append({"hook": str(hook), "removed": False, "restored": None})
    return {"hooks_dir": str(d), "uninstalled": out}
