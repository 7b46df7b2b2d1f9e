"""The before-prompt hook: the top preferences not yet shown this session, what other sessions wrote since this one last looked, and recall for the prompt, within the hook's token and time budget."""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gitmem.core import paths
from gitmem.core.errors import GitmemError
from gitmem.core.fsutil import atomic_write
from gitmem.frontends.hook_support import HookResult, cursor_name, hook_setting, time_left, warm_index

if TYPE_CHECKING:
    from gitmem.api import Store
    from gitmem.frontends.runtime import Runtime


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


def save_shown(store: "Store", session: str, ids: set[str]) -> None:
    atomic_write(_shown_path(store, session), json.dumps({"preferences": sorted(ids)}).encode())


def _preferences(store: "Store", scopes: list[str], n: int) -> list[Any]:
    return store.top_preferences(scopes, n)

def _recall(home: str, session: str | None, prompt: str, scopes: list[str], k: int, rt: "Runtime",
            timeout: float = 2.0, box: dict[str, Any] | None = None) -> list[Any]:
    """Recall from a running `gitmem serve` if one answers within `timeout`, else in its
    own Store (it runs in a worker thread). box["served"] says which it was; the caller
    keeps only what may be injected (Store.injectable)."""

    # Never wait on embedding a bulk import: by words (BM25) while vectors are pending,
    # and they are embedded in the background (the daemon's worker, else warm_index).
    timeout_ms = max(0, int(timeout * 1000))
    if rt.recall is not None:  # in the daemon: its warm Store, under its recall lock
        remote: Any = (rt.recall(prompt, k + 3, scopes, timeout_ms), {})
    else:
        remote = rt.served_recall(home, prompt, k + 3, scopes, timeout=timeout, timeout_ms=timeout_ms)
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
                if store.may_inject(m):
                    out.append({"id": m.id, "scope": m.scope, "type": m.type, "text": m.text,
                                "op": ev.op, "agent": ev.agent or ev.author, "commit": m.commit, "path": m.path})
        elif store.may_inject(text=ev.summary):
            out.append({"id": None, "scope": ev.scope, "type": ev.op, "text": ev.summary,
                        "op": ev.op, "agent": ev.agent or ev.author})
    return out[-limit:]


def on_prompt(store: "Store", payload: dict[str, Any], deadline: float, res: HookResult, rt: "Runtime") -> None:
    from gitmem.core.tokens import count_tokens
    from gitmem.recall.render import load_template, quote, render_prompt

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
                box["hits"] = _recall(str(store.home), sid, prompt, scopes, k, rt, time_left(deadline), box)
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
        worker.join(max(0.0, time_left(deadline)))
        if worker.is_alive():
            res.abandoned = True
            res.notes.append("gitmem: recall took longer than the hook budget; went on without it")
        elif "error" in box:
            res.notes.append(f"gitmem: recall failed: {box['error']}")
        else:
            # At most [hooks] max_results, each above the prompt's relevance floor.
            hits = store.prompt_hits(box.get("hits") or [], min(k, int(hook_setting(store.config, "max_results"))))
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
        save_shown(store, sid, shown | {d["id"] for d in sections["preferences"]})
    if seen - {h.id for h in hits}:
        store.record_injected(seen - {h.id for h in hits})
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
