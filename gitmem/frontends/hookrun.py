"""Agent and git hooks: what `gitmem hook EVENT` does, under a time budget.

A front end, like the CLI: handlers call the api (gitmem.api.Store). The launchers in
hooks/ hold no logic; everything that can fail is here and is caught by the `hook`
command, which always exits 0 (fail open). The installers are in hooks_install.py.
Library code: no printing."""

from __future__ import annotations

import json
import os
import time
from typing import TYPE_CHECKING, Any, Callable

from gitmem.core import paths
from gitmem.core.errors import GitmemError, UsageError
from gitmem.frontends.hook_prompt import on_prompt, save_shown
from gitmem.frontends.hook_support import (
    HookResult,
    HookTimeout,
    cursor_name,
    hook_setting,
    time_left,
    warm_index,
    with_deadline,
)

if TYPE_CHECKING:
    from gitmem.api import Store
    from gitmem.frontends.runtime import Runtime

# Agent CLI event -> our event name. Claude Code, Qwen Code and Codex share these names.
AGENT_EVENTS = {"SessionStart": "session-start", "UserPromptSubmit": "prompt",
                "Stop": "stop", "PreCompact": "pre-compact"}


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


# ---- handlers ---------------------------------------------------------------------------

# ---- sync in hooks (hooks.sync) ---------------------------------------------------------
# The share of what is left of the budget a session-start sync may use, and the seconds it
# always leaves for building the context, which the agent needs more than fresh memories:
# with a hung remote and the default 2 s budget, a cold process still prints its context.
SESSION_SYNC_SHARE = 0.7
CONTEXT_RESERVE = 1.0


def session_sync_seconds(left: float) -> float:
    """How long a session-start sync may take with `left` seconds of the budget left."""
    return max(0.0, min(left * SESSION_SYNC_SHARE, left - CONTEXT_RESERVE))


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
    from gitmem.recall.render import render_context

    cwd = payload.get("cwd")
    # Pull what other machines remembered before the context is built from it.
    sync_remotes(store, session_sync_seconds(time_left(deadline)), res)
    t = time.monotonic()
    bundle = with_deadline(lambda: store.context(cwd=cwd), time_left(deadline))
    res.stdout = render_context(bundle)
    res.timings["context"] = round(time.monotonic() - t, 3)
    sid = payload.get("session_id")
    if sid:
        # Start this session's change cursor now: the bundle already shows what came before.
        store.changes(cursor_name(sid), session=sid)
        # A new context (startup, resume, clear, compact) holds these preferences, and no others.
        save_shown(store, sid, {m["id"] for m in bundle["preferences"]})


def _roles(store: "Store") -> tuple[str, ...]:
    return ("user", "assistant") if hook_setting(store.config, "read_assistant") else ("user",)


def on_stop(store: "Store", payload: dict[str, Any], deadline: float, res: HookResult, rt: "Runtime") -> None:
    path = payload.get("transcript_path")
    if not path:
        res.notes.append("stop: no transcript_path in the payload; nothing to extract")
    else:
        out = with_deadline(lambda: store.extract(path, session=payload.get("session_id"),
                                                  cwd=payload.get("cwd"), roles=_roles(store)), time_left(deadline))
        if out["kept"]:
            res.notes.append(f"gitmem: kept {len(out['kept'])} statement(s) from this session")
        if out["commits"]:
            warm_index(store, rt)
    # Push what this session wrote (extracted or remembered along the way) to the remotes.
    sync_remotes(store, time_left(deadline), res)


def on_pre_compact(store: "Store", payload: dict[str, Any], deadline: float, res: HookResult, rt: "Runtime") -> None:
    path = payload.get("transcript_path")
    if not path:
        res.notes.append("pre-compact: no transcript_path in the payload; nothing to flush")
        return
    out = with_deadline(lambda: store.flush(path, session=payload.get("session_id"),
                                            cwd=payload.get("cwd")), time_left(deadline))
    res.notes.append(f"gitmem: session summary stored at {out['path']} in {out['scope']}")
    warm_index(store, rt)


def on_git_post_commit(store: "Store", payload: dict[str, Any], deadline: float, res: HookResult, rt: "Runtime") -> None:
    cwd = payload.get("cwd") or os.getcwd()
    top, sha, subject = store.code_head(cwd)
    scope = store.linked_scope(top)
    if not scope:
        res.notes.append(f"gitmem: {top} is not linked (run `gitmem link`); commit not journalled")
        return
    # Silent on success: a git hook that talks on every commit is noise.
    with_deadline(lambda: store.append(f"commit {sha[:12]} {subject}", scope=scope), time_left(deadline))


HANDLERS: dict[str, Callable[..., None]] = {
    "session-start": on_session_start, "prompt": on_prompt, "stop": on_stop,
    "pre-compact": on_pre_compact, "git-post-commit": on_git_post_commit,
}
