"""Agent and git hooks: what `gitmem hook EVENT` does, under a time budget, and the
installers that write hook entries into agent settings and git hook shims.

The launchers in hooks/ hold no logic; everything that can fail is here and is caught
by the `hook` command, which always exits 0 (fail open). Library code: no printing."""

from __future__ import annotations

import json
import math
import os
import re
import shlex
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from .errors import GitmemError, UsageError
from .fsutil import atomic_write

if TYPE_CHECKING:
    from .api import Store

# Documented defaults ([hooks] in config.toml; GITMEM_HOOK_BUDGET overrides `budget`).
HOOK_DEFAULTS: dict[str, Any] = {
    "budget": 2.0,  # seconds a hook may hold up the agent, all included
    "recall_k": 5,  # recalled memories offered before a prompt
    "prompt_budget": 800,  # tokens offered before a prompt (preferences and changes: half at most)
    "prompt_preferences": 5,  # top preferences offered before every prompt
    "prompt_changes": 8,  # other sessions' writes shown before a prompt
    "read_assistant": False,  # extract from assistant turns too (they can carry injections)
    "warm_index": True,  # after a hook wrote, catch the index up in a detached process
    "autostart_serve": True,  # an installed prompt hook with no daemon starts `gitmem serve`
    "serve_idle_exit": 1800.0,  # seconds an autostarted daemon waits for requests before exiting
}

# Agent CLI event -> our event name. Claude Code, Qwen Code and Codex share these names.
AGENT_EVENTS = {"SessionStart": "session-start", "UserPromptSubmit": "prompt",
                "Stop": "stop", "PreCompact": "pre-compact"}
AGENT_SETTINGS = {"claude": "~/.claude/settings.json", "qwen": "~/.qwen/settings.json",
                  "codex": "~/.codex/hooks.json"}
GIT_HOOKS = ("post-commit",)
LAUNCHER = "gitmem-hook"
GIT_MARKER = "# gitmem-managed hook"
LEGACY_SUFFIX = ".gitmem-legacy"


def hook_setting(store: "Store | None", key: str) -> Any:
    if key == "budget" and os.environ.get("GITMEM_HOOK_BUDGET"):
        try:
            return float(os.environ["GITMEM_HOOK_BUDGET"])
        except ValueError:
            pass
    if store is None:
        return HOOK_DEFAULTS[key]
    return store.config.get("hooks", key, HOOK_DEFAULTS[key])


def parse_payload(raw: str | bytes | None) -> dict[str, Any]:
    """The JSON object an agent CLI sends on stdin; {} when absent or not JSON."""
    if not raw:
        return {}
    if isinstance(raw, bytes):
        raw = raw.decode("utf-8", "replace")
    try:
        data = json.loads(raw)
    except json.JSONDecodeError:
        return {}
    return data if isinstance(data, dict) else {}


def cursor_name(session: str) -> str:
    """A watch cursor name for a session id (letters, digits, '.', '_', '-')."""
    return "session-" + re.sub(r"[^A-Za-z0-9._-]", "_", session)[:80]


# ---- running with a deadline ----------------------------------------------------------

class HookTimeout(GitmemError):
    exit_code = 0


def with_deadline(fn: Callable[[], Any], seconds: float) -> Any:
    """Run fn in a daemon thread; raise HookTimeout if it is not done in `seconds`.
    The thread is abandoned (the caller exits the process soon after)."""
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["value"] = fn()
        except BaseException as e:  # noqa: BLE001 - handed to the caller
            box["error"] = e

    t = threading.Thread(target=target, daemon=True)
    t.start()
    t.join(max(0.0, seconds))
    if t.is_alive():
        raise HookTimeout(f"gave up after {seconds:.2f}s")
    if "error" in box:
        raise box["error"]
    return box.get("value")


@dataclass
class HookResult:
    stdout: str = ""
    notes: list[str] = field(default_factory=list)  # for stderr
    timings: dict[str, float] = field(default_factory=dict)
    abandoned: bool = False  # a worker thread is still running: exit hard


def open_store(home: str | None, session: str | None, agent: str | None) -> "Store":
    from . import api

    return api.open(home, session=session, agent=agent)


def run(event: str, payload: dict[str, Any], *, home: str | None = None, agent: str | None = None,
        budget: float | None = None, started: float | None = None, session: str | None = None,
        use_daemon: bool = True) -> HookResult:
    """Do what hook EVENT does with the agent's payload, within the budget. A prompt hook
    is handed whole to a running `gitmem serve` when one answers (use_daemon)."""
    started = time.monotonic() if started is None else started
    session = (session or payload.get("session_id") or payload.get("sessionId")
               or os.environ.get("GITMEM_SESSION"))
    if use_daemon and event in SERVED_EVENTS:
        served = _run_served(event, payload, home, agent, budget, started, session)
        if served is not None:
            return served
    store = open_store(home, session, agent)
    budget = float(hook_setting(store, "budget") if budget is None else budget)
    deadline = started + budget - 0.15  # leave time to print and exit
    handler = HANDLERS.get(event)
    if handler is None:
        raise UsageError(f"unknown hook event {event!r}", hint="one of: " + ", ".join(sorted(HANDLERS)))
    res = HookResult()
    try:
        handler(store, payload, deadline, res)
    except HookTimeout as e:
        res.abandoned = True
        res.notes.append(f"{event}: {e}; went on without it")
    res.timings["total"] = round(time.monotonic() - started, 3)
    return res


# Before each prompt is the hook on the agent's clock; the others may take their time.
SERVED_EVENTS = ("prompt",)

# Set by `gitmem serve` in its own process: recall on its warm Store, not over the socket.
warm_recall: Callable[[str, int, list[str]], list[Any]] | None = None


def _run_served(event: str, payload: dict[str, Any], home: str | None, agent: str | None,
                budget: float | None, started: float, session: str | None) -> HookResult | None:
    """The hook's result from a running daemon, or None (no daemon, another environment,
    no answer in time): the caller then runs the hook here."""
    from . import serve_client

    if budget is None and os.environ.get("GITMEM_HOOK_BUDGET"):
        budget = hook_setting(None, "budget")
    home = home or os.environ.get("GITMEM_HOME") or os.path.expanduser("~/.gitmem")
    elapsed = time.monotonic() - started
    left = float(HOOK_DEFAULTS["budget"] if budget is None else budget) - elapsed
    if left <= 0.2:
        return None
    # The daemon's cwd is not ours: the payload says where the session is.
    payload = dict(payload, cwd=payload.get("cwd") or os.getcwd())
    ans = serve_client.request(home, {"op": "hook", "event": event, "payload": payload, "agent": agent,
                                      "session": session, "budget": budget, "elapsed": elapsed,
                                      "env": serve_client.env_fingerprint()}, timeout=left - 0.1)
    if not ans or not ans.get("ok"):
        return None
    res = HookResult(stdout=str(ans.get("stdout") or ""), notes=[str(n) for n in ans.get("notes") or []],
                     timings={k: float(v) for k, v in (ans.get("timings") or {}).items()})
    res.timings["total"] = round(time.monotonic() - started, 3)
    return res


def agent_output(event: str, text: str, agent: str | None) -> str:
    """What to print for the agent. Claude Code adds a context hook's plain stdout to the
    context; Codex and Qwen Code parse stdout as JSON and take
    `hookSpecificOutput.additionalContext`."""
    names = {v: k for k, v in AGENT_EVENTS.items()}
    if agent in ("codex", "qwen") and event in ("session-start", "prompt"):
        return json.dumps({"hookSpecificOutput": {"hookEventName": names[event],
                                                  "additionalContext": text}}, ensure_ascii=False) + "\n"
    return text


def _left(deadline: float) -> float:
    return deadline - time.monotonic()


# ---- handlers ---------------------------------------------------------------------------

def on_session_start(store: "Store", payload: dict[str, Any], deadline: float, res: HookResult) -> None:
    from .capture import render_context

    cwd = payload.get("cwd")
    t = time.monotonic()
    bundle = with_deadline(lambda: store.context(cwd=cwd), _left(deadline))
    res.stdout = render_context(bundle)
    res.timings["context"] = round(time.monotonic() - t, 3)
    sid = payload.get("session_id")
    if sid:
        # Start this session's change cursor now: the bundle already shows what came before.
        store.changes(cursor_name(sid), session=sid)
        # A new context (startup, resume, clear, compact) holds these preferences, and no others.
        _save_shown(store, sid, {m["id"] for m in bundle["preferences"]})


# Preferences are offered before a prompt once per context, not before every prompt: the
# agent keeps what it was given, and repeating them would fill its window.
def _shown_path(store: "Store", session: str) -> Path:
    return store.home / "state" / "hook-sessions" / f"{cursor_name(session)}.json"


def _load_shown(store: "Store", session: str | None) -> set[str]:
    if not session:
        return set()
    try:
        return set(json.loads(_shown_path(store, session).read_text()).get("preferences", []))
    except (OSError, ValueError, AttributeError):
        return set()


def _save_shown(store: "Store", session: str, ids: set[str]) -> None:
    atomic_write(_shown_path(store, session), json.dumps({"preferences": sorted(ids)}).encode())


def _preferences(store: "Store", scopes: list[str], n: int) -> list[Any]:
    from . import access
    from .capture import weight

    from .capture import suspect

    prefs = [m for m in store.list(type="preference", scopes=scopes) if not suspect(m.text)]
    counts = access.counts(store.home) if prefs else {}
    now = time.time()
    prefs.sort(key=lambda m: -weight(m, counts, now))
    return prefs[:n]


def _recall(home: str, session: str | None, prompt: str, scopes: list[str], k: int,
            timeout: float = 2.0, box: dict[str, Any] | None = None) -> list[Any]:
    """Recall from a running `gitmem serve` if one answers within `timeout`, else in its
    own Store (it runs in a worker thread); quarantined hits and hits with injection
    phrasing dropped. box["served"] says which it was."""
    from . import serve_client

    if warm_recall is not None:
        remote: Any = (warm_recall(prompt, k + 3, scopes), {})
    else:
        remote = serve_client.recall(home, prompt, k + 3, scopes, timeout=timeout)
    if box is not None:
        box["served"] = remote is not None
    if remote is not None:
        hits = remote[0]
    else:
        store = open_store(home, session, None)
        hits = store.recall(prompt, k=k + 3, scopes=scopes)
    from .capture import suspect

    return [h for h in hits if h.type != "quarantine" and not suspect(h.text or h.snippet)][:k]


def _changes(store: "Store", session: str, scopes: list[str], limit: int) -> list[dict[str, Any]]:
    """Other sessions' writes since this session last looked, as lines of data."""
    from .capture import suspect

    out: list[dict[str, Any]] = []
    events = store.changes(cursor_name(session), session=session)
    for ev in events:
        if ev.scope not in scopes or ev.op in ("forget", "redact"):
            continue
        if ev.ids:
            for mid in ev.ids[:limit]:
                try:
                    m = store.get(mid, scope=ev.scope)
                except GitmemError:
                    continue  # forgotten meanwhile
                if m.type != "quarantine" and not suspect(m.text):
                    out.append({"id": m.id, "scope": m.scope, "type": m.type, "text": m.text,
                                "op": ev.op, "agent": ev.agent or ev.author})
        elif not suspect(ev.summary):
            out.append({"id": None, "scope": ev.scope, "type": ev.op, "text": ev.summary,
                        "op": ev.op, "agent": ev.agent or ev.author})
    return out[-limit:]


def on_prompt(store: "Store", payload: dict[str, Any], deadline: float, res: HookResult) -> None:
    from .capture import quote, session_scopes
    from .render import load_template, render_prompt
    from .tokens import count_tokens

    # Qwen Code also fires this before tool-result continuations; `submitted_prompt` is
    # what the person typed, when it knows. A pasted log makes a poor query: cap it.
    prompt = str(payload.get("submitted_prompt") or payload.get("prompt") or "")[:2000]
    cwd = payload.get("cwd")
    sid = payload.get("session_id")
    scopes = session_scopes(store, cwd)
    k = int(hook_setting(store, "recall_k"))
    box: dict[str, Any] = {}
    worker = None
    if prompt.strip():
        # Recall (index catch-up, maybe a model) is the slow part: start it first.
        def work() -> None:
            t = time.monotonic()
            try:
                box["hits"] = _recall(str(store.home), sid, prompt, scopes, k, _left(deadline), box)
            except BaseException as e:  # noqa: BLE001
                box["error"] = e
            box["time"] = time.monotonic() - t

        worker = threading.Thread(target=work, daemon=True)
        worker.start()
    t = time.monotonic()
    shown = _load_shown(store, sid)
    prefs = [_mem_dict(m) for m in _preferences(store, scopes, int(hook_setting(store, "prompt_preferences")))
             if m.id not in shown]
    res.timings["preferences"] = round(time.monotonic() - t, 3)
    changes: list[dict[str, Any]] = []
    if sid:
        t = time.monotonic()
        changes = _changes(store, sid, scopes, int(hook_setting(store, "prompt_changes")))
        res.timings["changes"] = round(time.monotonic() - t, 3)
    hits: list[Any] = []
    if worker is not None:
        worker.join(max(0.0, _left(deadline)))
        if worker.is_alive():
            res.abandoned = True
            res.notes.append("gitmem: recall took longer than the hook budget; went on without it")
        elif "error" in box:
            res.notes.append(f"gitmem: recall failed: {box['error']}")
        else:
            hits = box.get("hits") or []
            res.timings["recall"] = round(box.get("time", 0.0), 3)
    # Preferences apply to nearly every prompt, so they go first; then what other sessions
    # wrote; recall gets the rest of the token budget.
    limit = int(hook_setting(store, "prompt_budget"))
    used = 70
    seen: set[str] = set()
    sections: dict[str, list[dict[str, Any]]] = {"preferences": [], "changes": []}
    left_out = 0
    for name, items in (("preferences", prefs), ("changes", changes)):
        for d in items:
            if d.get("id") and d["id"] in seen:
                continue
            d = dict(d, text=quote(d.get("text") or ""))
            cost = count_tokens(d["text"]) + 12
            if used + cost > limit // 2:
                left_out += 1
                continue
            used += cost
            sections[name].append(d)
            if d.get("id"):
                seen.add(d["id"])
    out = []
    if any(sections.values()):
        out.append(load_template("hook_prompt.j2").render(left_out=left_out, budget=limit, **sections))
    hits = [h for h in hits if h.id not in seen]
    if hits:
        out.append(render_prompt(hits, budget=max(limit - used, 150), query=prompt))
        seen.update(h.id for h in hits)
    res.stdout = "".join(out)
    if sid and sections["preferences"]:
        _save_shown(store, sid, shown | {d["id"] for d in sections["preferences"]})
    if seen - {h.id for h in hits}:
        from . import access

        access.record(store.home, sorted(seen - {h.id for h in hits}), kind="inject")
    if box.get("served") is False:
        autostart_serve(store)


def autostart_serve(store: "Store") -> None:
    """Start `gitmem serve` in the background after a prompt hook recalled cold, so the
    next prompt is answered warm. Only for hooks run by the launcher (an agent CLI), not
    for `gitmem hook prompt` typed by hand; GITMEM_HOOK_AUTOSTART=0 turns it off for a
    process tree (a test suite), [hooks] autostart_serve = false for a store. Never waits."""
    if (not os.environ.get("GITMEM_HOOK_T0") or os.environ.get("GITMEM_HOOK_AUTOSTART") == "0"
            or not hook_setting(store, "autostart_serve")):
        return
    from . import serve_client

    serve_client.spawn(store.home, idle_exit=float(hook_setting(store, "serve_idle_exit")))


def _mem_dict(m: Any) -> dict[str, Any]:
    return {"id": m.id, "scope": m.scope, "type": m.type, "text": m.text}


def _roles(store: "Store") -> tuple[str, ...]:
    return ("user", "assistant") if hook_setting(store, "read_assistant") else ("user",)


def on_stop(store: "Store", payload: dict[str, Any], deadline: float, res: HookResult) -> None:
    path = payload.get("transcript_path")
    if not path:
        res.notes.append("stop: no transcript_path in the payload; nothing to extract")
        return
    out = with_deadline(lambda: store.extract(path, session=payload.get("session_id"),
                                              cwd=payload.get("cwd"), roles=_roles(store)), _left(deadline))
    if out["kept"]:
        res.notes.append(f"gitmem: kept {len(out['kept'])} statement(s) from this session")
    if out["commits"]:
        warm_index(store)


def on_pre_compact(store: "Store", payload: dict[str, Any], deadline: float, res: HookResult) -> None:
    path = payload.get("transcript_path")
    if not path:
        res.notes.append("pre-compact: no transcript_path in the payload; nothing to flush")
        return
    out = with_deadline(lambda: store.flush(path, session=payload.get("session_id"),
                                            cwd=payload.get("cwd")), _left(deadline))
    res.notes.append(f"gitmem: session summary stored at {out['path']} in {out['scope']}")
    warm_index(store)


def warm_index(store: "Store") -> None:
    """Index (and embed) what a hook just wrote in a detached process, so the next
    prompt's recall finds the index fresh instead of doing that work on its clock."""
    if not hook_setting(store, "warm_index"):
        return
    code = "import sys, gitmem; gitmem.open(sys.argv[1]).index.ensure_fresh()"
    try:
        subprocess.Popen([sys.executable, "-c", code, str(store.home)], stdin=subprocess.DEVNULL,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    except OSError:
        pass  # an optimisation: the next recall catches up by itself


def on_git_post_commit(store: "Store", payload: dict[str, Any], deadline: float, res: HookResult) -> None:
    cwd = payload.get("cwd") or os.getcwd()
    top = _git(cwd, "rev-parse", "--show-toplevel").strip()
    scope = store.linked_scope(top)
    if not scope:
        res.notes.append(f"gitmem: {top} is not linked (run `gitmem link`); commit not journalled")
        return
    sha, _, subject = _git(cwd, "log", "-1", "--format=%H%x00%s").strip().partition("\x00")
    # Silent on success: a git hook that talks on every commit is noise.
    with_deadline(lambda: store.append(f"commit {sha[:12]} {subject}", scope=scope), _left(deadline))


HANDLERS: dict[str, Callable[..., None]] = {
    "session-start": on_session_start, "prompt": on_prompt, "stop": on_stop,
    "pre-compact": on_pre_compact, "git-post-commit": on_git_post_commit,
}


def _git(cwd: str, *args: str) -> str:
    try:
        res = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise GitmemError(f"git {args[0]} failed: {e}") from e
    if res.returncode != 0:
        raise GitmemError(f"git {args[0]} failed: {res.stderr.strip()}",
                          hint="run this inside a git work tree")
    return res.stdout


# ---- installers ---------------------------------------------------------------------------

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
    return Path(home) / "state" / "hooks-installed.json"


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


def install_agent(store: "Store", agent: str, settings: str | os.PathLike[str] | None = None,
                  budget: float | None = None) -> dict[str, Any]:
    """Write gitmem's entries for session start, before each prompt, after each reply and
    before compaction into an agent CLI's settings (idempotent; others' hooks are kept)."""
    path = settings_path(agent, settings)
    data = _read_settings(path)
    existed = path.exists()
    before = path.read_text(encoding="utf-8") if existed else None
    _strip_ours(data)
    hooks = data.setdefault("hooks", {})
    b = float(hook_setting(store, "budget") if budget is None else budget)
    for agent_event, event in AGENT_EVENTS.items():
        # The agent's own kill timer, a step behind ours. Qwen Code counts milliseconds.
        timeout = int(math.ceil(b)) + 1
        entry = {"type": "command", "command": hook_command(event, store.home, b, agent),
                 "timeout": timeout * 1000 if agent == "qwen" else timeout}
        hooks.setdefault(agent_event, []).append({"hooks": [entry]})
    atomic_write(path, (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode())
    rec = _load_installed(store.home)
    prev = rec.get(str(path))
    # The file as it was before gitmem's first install: uninstall puts these very bytes
    # back if nothing else changed meanwhile.
    rec[str(path)] = prev if prev is not None else {"agent": agent, "created": not existed, "original": before}
    atomic_write(_installed_path(store.home), json.dumps(rec, indent=2).encode())
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


def uninstall_agent(store: "Store", agent: str, settings: str | os.PathLike[str] | None = None) -> dict[str, Any]:
    """Remove gitmem's entries; delete the settings file if gitmem created it and it is empty."""
    path = settings_path(agent, settings)
    data = _read_settings(path)
    removed = _strip_ours(data)
    rec = _load_installed(store.home)
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
        atomic_write(_installed_path(store.home), json.dumps(rec, indent=2).encode())
    return {"agent": agent, "settings": str(path), "removed": removed, "deleted": deleted}


def _hooks_dir(repo: str | os.PathLike[str] | None) -> Path:
    from .store import git_env

    cwd = str(repo or os.getcwd())
    try:
        res = subprocess.run(["git", "rev-parse", "--git-path", "hooks"], cwd=cwd, capture_output=True,
                             text=True, env=git_env(), timeout=10)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise GitmemError(f"cannot run git: {e}", hint="install git") from e
    if res.returncode != 0:
        raise UsageError(f"{cwd} is not in a git repository", hint="run this inside a code repository")
    p = Path(res.stdout.strip())
    return (Path(cwd) / p if not p.is_absolute() else p).resolve()


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


def install_git(store: "Store", repo: str | os.PathLike[str] | None = None) -> dict[str, Any]:
    """Install gitmem's git hooks in a code repository, chaining any existing hook."""
    d = _hooks_dir(repo)
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
        atomic_write(hook, git_shim(name, store.home, float(hook_setting(store, "budget"))).encode(),
                     mode=0o755)
        out.append({"hook": str(hook), "chained": kept or (str(legacy) if legacy.exists() else None)})
    return {"hooks_dir": str(d), "installed": out, "linked_scope": store.linked_scope(
        str(repo or os.getcwd()))}


def uninstall_git(store: "Store", repo: str | os.PathLike[str] | None = None) -> dict[str, Any]:
    """Remove gitmem's git hooks and put back the hooks they chained."""
    d = _hooks_dir(repo)
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
