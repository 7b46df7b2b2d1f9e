"""Agent and git hooks: what `gitmem hook EVENT` does, under a time budget.

A front end, like the CLI: handlers call the api (gitmem.api.Store). The launchers in
hooks/ hold no logic; everything that can fail is here and is caught by the `hook`
command, which always exits 0 (fail open). The installers are in hooks_install.py.
Library code: no printing."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from gitmem.core import paths
from gitmem.core.errors import GitmemError, UsageError
from gitmem.core.fsutil import atomic_write

if TYPE_CHECKING:
    from gitmem.api import Store
    from gitmem.core.config import Config
    from gitmem.frontends.runtime import Runtime

# Agent CLI event -> our event name. Claude Code, Qwen Code and Codex share these names.
AGENT_EVENTS = {"SessionStart": "session-start", "UserPromptSubmit": "prompt",
                "Stop": "stop", "PreCompact": "pre-compact"}


def hook_setting(config: "Config | None", key: str) -> Any:
    """A [hooks] setting (see config.SCHEMA); without a config (before a store is opened)
    GITMEM_HOOK_BUDGET, else the default."""
    if config is not None:
        return config.get("hooks", key)
    if key == "budget" and os.environ.get("GITMEM_HOOK_BUDGET"):
        try:
            return float(os.environ["GITMEM_HOOK_BUDGET"])
        except ValueError:
            pass
    # Imported here: a prompt hook handed to the daemon never loads the config schema.
    from gitmem.core.config import DEFAULTS

    return DEFAULTS["hooks"][key]


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


def run(event: str, payload: dict[str, Any], *, home: str | None = None, agent: str | None = None,
        budget: float | None = None, started: float | None = None, session: str | None = None,
        runtime: "Runtime | None" = None) -> HookResult:
    """Do what hook EVENT does with the agent's payload, within the budget. A prompt hook
    is handed whole to a running `gitmem serve` when one answers (unless `runtime` says
    not to ask it: in the daemon itself, which also answers its recall warm)."""
    from gitmem.frontends.runtime import DEFAULT

    rt = runtime or DEFAULT
    started = time.monotonic() if started is None else started
    session = (session or payload.get("session_id") or payload.get("sessionId")
               or os.environ.get("GITMEM_SESSION"))
    if rt.ask_daemon and event in SERVED_EVENTS:
        served = _run_served(event, payload, home, agent, budget, started, session)
        if served is not None:
            return served
    store = rt.open(home, session=session, agent=agent)
    budget = float(hook_setting(store.config, "budget") if budget is None else budget)
    deadline = started + budget - 0.15  # leave time to print and exit
    handler = HANDLERS.get(event)
    if handler is None:
        raise UsageError(f"unknown hook event {event!r}", hint="one of: " + ", ".join(sorted(HANDLERS)))
    res = HookResult()
    try:
        handler(store, payload, deadline, res, rt)
    except HookTimeout as e:
        res.abandoned = True
        res.notes.append(f"{event}: {e}; went on without it")
    res.timings["total"] = round(time.monotonic() - started, 3)
    return res


# Before each prompt is the hook on the agent's clock; the others may take their time.
SERVED_EVENTS = ("prompt",)

def _run_served(event: str, payload: dict[str, Any], home: str | None, agent: str | None,
                budget: float | None, started: float, session: str | None) -> HookResult | None:
    """The hook's result from a running daemon, or None (no daemon, another environment,
    no answer in time): the caller then runs the hook here."""
    from gitmem.frontends.daemon import client as serve_client

    if budget is None and os.environ.get("GITMEM_HOOK_BUDGET"):
        budget = hook_setting(None, "budget")
    home = str(paths.home_dir(home))
    elapsed = time.monotonic() - started
    left = float(hook_setting(None, "budget") if budget is None else budget) - elapsed
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

# ---- sync in hooks (hooks.sync) ---------------------------------------------------------
# The share of what is left of the budget a session-start sync may use: the rest is kept
# for building the context, which the agent needs more than fresh memories.
SESSION_SYNC_SHARE = 0.7


def sync_remotes(store: "Store", seconds: float, res: HookResult) -> None:
    """With `hooks.sync = true`, sync every remote within `seconds`, failing open: an
    error, an unreachable remote or the time running out becomes a note, never an
    exception. Off (the default), or with no remotes, it does nothing and says nothing,
    and no network is touched."""
    if not hook_setting(store.config, "sync"):
        return
    t = time.monotonic()
    try:
        names = store.remote_names()
    except Exception as e:  # noqa: BLE001 - fail open: the context still gets built
        res.notes.append(f"gitmem: sync skipped: {getattr(e, 'message', None) or e}")
        return
    if not names:
        return
    if seconds <= 0.05:
        res.notes.append("gitmem: no time left in the hook budget to sync; `gitmem sync` does it")
        return

    end = time.monotonic() + seconds

    def work() -> list[tuple[str, Any]]:
        # Its own Store: if the budget runs out this thread is abandoned, and it must not
        # share objects with the context being built meanwhile. Each git fetch or push
        # gets what is left as its timeout, so a hung remote's git is stopped (and the
        # next remote tried) while this thread still waits for it.
        from gitmem import api

        out: list[tuple[str, Any]] = []
        for name in names:  # one at a time: one unreachable remote does not stop the others
            # Less than what is left: opening the store and reading the config come
            # before the fetch, and git should stop before the deadline abandons us.
            left = end - time.monotonic() - 0.25
            if left <= 0.05:
                out.append((name, GitmemError("no time left in the hook budget")))
                continue
            try:
                own = api.open(store.home, session=store.config.session, agent=store.config.agent,
                               overrides={"sync": {"timeout": left}})
                out.append((name, own.sync(name)["remotes"][0]))
            except GitmemError as e:
                out.append((name, e))
            except Exception as e:  # noqa: BLE001 - one remote's surprise does not stop the others
                out.append((name, GitmemError(f"{type(e).__name__}: {e}")))
        return out

    try:
        results = with_deadline(work, seconds)
    except HookTimeout:
        res.abandoned = True
        res.notes.append(f"gitmem: sync with {', '.join(names)} did not finish within the hook budget "
                         f"({seconds:.2f}s); went on without it")
        return
    except Exception as e:  # noqa: BLE001 - fail open, whatever it was
        res.notes.append(f"gitmem: sync failed: {getattr(e, 'message', None) or e}; went on without it")
        return
    finally:
        res.timings["sync"] = round(time.monotonic() - t, 3)
    for name, out in results:
        if isinstance(out, GitmemError):
            res.notes.append(f"gitmem: sync {name} failed: {out.message}; went on without it")
            continue
        n = sum(len(sc.get("conflicts") or ()) for sc in out.get("scopes") or ())
        if n:
            res.notes.append(f"gitmem: sync {name}: {n} conflict(s) kept as copies; "
                             "`gitmem list --conflicts` shows them")
        if out.get("still_holding_text"):
            res.notes.append(f"gitmem: sync {name}: {out.get('hint') or 'the remote refused a rewind'}")


def on_session_start(store: "Store", payload: dict[str, Any], deadline: float, res: HookResult, rt: "Runtime") -> None:
    from gitmem.agents.context import render_context

    cwd = payload.get("cwd")
    # Pull what other machines remembered before the context is built from it.
    sync_remotes(store, _left(deadline) * SESSION_SYNC_SHARE, res)
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
    return paths.state_file(store.home, "hook-sessions", f"{cursor_name(session)}.json")


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
    from gitmem.policy import access
    from gitmem.policy.injection import injectable
    from gitmem.policy.weight import weight

    prefs = [m for m in store.list(type="preference", scopes=scopes) if injectable(m.type, m.text, m.metadata)]
    counts = access.counts(store.home) if prefs else {}
    now = time.time()
    prefs.sort(key=lambda m: -weight(store.config, m, counts, now))
    return prefs[:n]


def _recall(home: str, session: str | None, prompt: str, scopes: list[str], k: int, rt: "Runtime",
            timeout: float = 2.0, box: dict[str, Any] | None = None) -> list[Any]:
    """Recall from a running `gitmem serve` if one answers within `timeout`, else in its
    own Store (it runs in a worker thread). box["served"] says which it was; the caller
    keeps only what may be injected (Store.injectable)."""
    from gitmem.frontends.daemon import client as serve_client

    # Never wait on embedding a bulk import: by words (BM25) while vectors are pending,
    # and they are embedded in the background (the daemon's worker, else warm_index).
    timeout_ms = max(0, int(timeout * 1000))
    remote: Any = None
    if rt.recall is not None:
        remote = (rt.recall(prompt, k + 3, scopes, timeout_ms), {})
    elif rt.ask_daemon:
        remote = serve_client.recall(home, prompt, k + 3, scopes, timeout=timeout, timeout_ms=timeout_ms)
    if box is not None:
        box["served"] = remote is not None
    if remote is not None:
        hits = remote[0]
    else:
        store = rt.open(home, session=session, agent=None)
        result = store.search(prompt, k=k + 3, scopes=scopes, timeout_ms=timeout_ms)
        hits = result.hits
        if (result.info.get("vectors") or {}).get("pending"):
            warm_index(store, rt)
    return list(hits)


def _changes(store: "Store", session: str, scopes: list[str], limit: int) -> list[dict[str, Any]]:
    """Other sessions' writes since this session last looked, as lines of data."""
    from gitmem.policy.injection import injectable, suspect

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
                if injectable(m.type, m.text, m.metadata):
                    out.append({"id": m.id, "scope": m.scope, "type": m.type, "text": m.text,
                                "op": ev.op, "agent": ev.agent or ev.author, "commit": m.commit, "path": m.path})
        elif not suspect(ev.summary):
            out.append({"id": None, "scope": ev.scope, "type": ev.op, "text": ev.summary,
                        "op": ev.op, "agent": ev.agent or ev.author})
    return out[-limit:]


def on_prompt(store: "Store", payload: dict[str, Any], deadline: float, res: HookResult, rt: "Runtime") -> None:
    from gitmem.agents.context import quote
    from gitmem.core.tokens import count_tokens
    from gitmem.recall.render import load_template, render_prompt

    # Qwen Code also fires this before tool-result continuations; `submitted_prompt` is
    # what the person typed, when it knows. A pasted log makes a poor query: cap it.
    prompt = str(payload.get("submitted_prompt") or payload.get("prompt") or "")[:2000]
    cwd = payload.get("cwd")
    sid = payload.get("session_id")
    scopes = store.session_scopes(cwd)
    k = int(hook_setting(store.config, "recall_k"))
    box: dict[str, Any] = {}
    worker = None
    if prompt.strip():
        # Recall (index catch-up, maybe a model) is the slow part: start it first.
        def work() -> None:
            t = time.monotonic()
            try:
                box["hits"] = _recall(str(store.home), sid, prompt, scopes, k, rt, _left(deadline), box)
            except BaseException as e:  # noqa: BLE001
                box["error"] = e
            box["time"] = time.monotonic() - t

        worker = threading.Thread(target=work, daemon=True)
        worker.start()
    t = time.monotonic()
    shown = _load_shown(store, sid)
    prefs = [_mem_dict(m) for m in _preferences(store, scopes, int(hook_setting(store.config, "prompt_preferences")))
             if m.id not in shown]
    res.timings["preferences"] = round(time.monotonic() - t, 3)
    changes: list[dict[str, Any]] = []
    if sid:
        t = time.monotonic()
        changes = _changes(store, sid, scopes, int(hook_setting(store.config, "prompt_changes")))
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
            hits = store.injectable(box.get("hits") or [])[:k]
            res.timings["recall"] = round(box.get("time", 0.0), 3)
    # Preferences apply to nearly every prompt, so they go first; then what other sessions
    # wrote; recall gets the rest of the token budget.
    limit = int(hook_setting(store.config, "prompt_budget"))
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
    rendered: list[Any] = []
    if hits:
        out.append(render_prompt(hits, budget=max(limit - used, 150), query=prompt, shown=rendered))
        seen.update(h.id for h in hits)
    res.stdout = "".join(out)
    shown_items = [{"id": d["id"], "scope": d["scope"], "commit": d.get("commit"), "path": d.get("path")}
                   for name in ("preferences", "changes") for d in sections[name] if d.get("id")] + rendered
    if shown_items:
        try:
            store.record_receipt("prompt", prompt, shown_items)
        except Exception as e:  # noqa: BLE001 - a hook fails open
            res.notes.append(f"gitmem: could not record the receipt: {e}")
    if sid and sections["preferences"]:
        _save_shown(store, sid, shown | {d["id"] for d in sections["preferences"]})
    if seen - {h.id for h in hits}:
        from gitmem.policy import access

        access.record(store.home, sorted(seen - {h.id for h in hits}), kind="inject")
    if box.get("served") is False:
        autostart_serve(store)


def autostart_serve(store: "Store") -> None:
    """Start `gitmem serve` in the background after a prompt hook recalled cold, so the
    next prompt is answered warm. Only for hooks run by the launcher (an agent CLI), not
    for `gitmem hook prompt` typed by hand; GITMEM_HOOK_AUTOSTART=0 turns it off for a
    process tree (a test suite), [hooks] autostart_serve = false for a store. Never waits."""
    if (not os.environ.get("GITMEM_HOOK_T0") or os.environ.get("GITMEM_HOOK_AUTOSTART") == "0"
            or not hook_setting(store.config, "autostart_serve")):
        return
    from gitmem.frontends.daemon import client as serve_client

    serve_client.spawn(store.home, idle_exit=float(hook_setting(store.config, "serve_idle_exit")))


def _mem_dict(m: Any) -> dict[str, Any]:
    return {"id": m.id, "scope": m.scope, "type": m.type, "text": m.text, "commit": m.commit, "path": m.path}


def _roles(store: "Store") -> tuple[str, ...]:
    return ("user", "assistant") if hook_setting(store.config, "read_assistant") else ("user",)


def on_stop(store: "Store", payload: dict[str, Any], deadline: float, res: HookResult, rt: "Runtime") -> None:
    path = payload.get("transcript_path")
    if not path:
        res.notes.append("stop: no transcript_path in the payload; nothing to extract")
    else:
        out = with_deadline(lambda: store.extract(path, session=payload.get("session_id"),
                                                  cwd=payload.get("cwd"), roles=_roles(store)), _left(deadline))
        if out["kept"]:
            res.notes.append(f"gitmem: kept {len(out['kept'])} statement(s) from this session")
        if out["commits"]:
            warm_index(store, rt)
    # Push what this session wrote (extracted or remembered along the way) to the remotes.
    sync_remotes(store, _left(deadline), res)


def on_pre_compact(store: "Store", payload: dict[str, Any], deadline: float, res: HookResult, rt: "Runtime") -> None:
    path = payload.get("transcript_path")
    if not path:
        res.notes.append("pre-compact: no transcript_path in the payload; nothing to flush")
        return
    out = with_deadline(lambda: store.flush(path, session=payload.get("session_id"),
                                            cwd=payload.get("cwd")), _left(deadline))
    res.notes.append(f"gitmem: session summary stored at {out['path']} in {out['scope']}")
    warm_index(store, rt)


def warm_index(store: "Store", rt: "Runtime") -> None:
    """Index (and embed) what a hook just wrote, so the next prompt's recall finds the
    index fresh instead of doing that work on its clock: in a running `gitmem serve`,
    else in a detached process."""
    if not hook_setting(store.config, "warm_index"):
        return
    from gitmem.frontends.daemon import client as serve_client

    # A running daemon does it with the model it has loaded: no second model in memory.
    ans = serve_client.request(store.home, {"op": "refresh", "env": serve_client.env_fingerprint()},
                               timeout=1.0) if rt.ask_daemon else None
    if ans and ans.get("ok"):
        return
    code = "import sys, gitmem; gitmem.open(sys.argv[1]).index.ensure_fresh()"
    try:
        subprocess.Popen([sys.executable, "-c", code, str(store.home)], stdin=subprocess.DEVNULL,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    except OSError:
        pass  # an optimisation: the next recall catches up by itself


def on_git_post_commit(store: "Store", payload: dict[str, Any], deadline: float, res: HookResult, rt: "Runtime") -> None:
    from gitmem.store.coderepo import CodeRepo, toplevel

    cwd = payload.get("cwd") or os.getcwd()
    top = toplevel(cwd)
    scope = store.linked_scope(top)
    if not scope:
        res.notes.append(f"gitmem: {top} is not linked (run `gitmem link`); commit not journalled")
        return
    sha, subject = CodeRepo.discover(top).head()
    # Silent on success: a git hook that talks on every commit is noise.
    with_deadline(lambda: store.append(f"commit {sha[:12]} {subject}", scope=scope), _left(deadline))


HANDLERS: dict[str, Callable[..., None]] = {
    "session-start": on_session_start, "prompt": on_prompt, "stop": on_stop,
    "pre-compact": on_pre_compact, "git-post-commit": on_git_post_commit,
}
