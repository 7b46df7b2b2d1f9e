"""Conflict copies: the versions a sync merge did not keep live (merge.py writes them
to `conflicts/<id>/<blob>.md`). `list --conflicts` shows them; `resolve` settles one
memory as one commit."""

from __future__ import annotations

from typing import Any

from gitmem.core import model
from gitmem.core.errors import NotFound, UsageError
from gitmem.memories.service import Memories
from gitmem.store import Change
from gitmem.sync.merge import CONFLICTS


def _copies(svc: Memories, rev, mem_id: str) -> list[tuple[str, model.Memory]]:
    out = []
    for path, _ in svc.git.walk_files(rev, f"{CONFLICTS}/{mem_id}"):
        data = svc.git.read(rev, path)
        if data is not None:
            out.append((path, model.parse(data, path=path)))
    out.sort(key=lambda pm: (pm[1].updated, pm[0]), reverse=True)
    return out


def list_conflicts(svc: Memories, scopes: list[str]) -> list[dict[str, Any]]:
    """[{id, scope, current: {...} | None, copies: [{path, updated, summary, text}]}]."""
    out = []
    for scope in scopes:
        tip = svc.git.tip(scope)
        for mem_id in sorted(svc.git.subdirs(tip, CONFLICTS)):
            path = svc.find_in(tip, mem_id)
            cur = svc.load(tip, path, scope) if path else None
            copies = [{"path": p, "updated": m.updated, "summary": m.summary, "text": m.text}
                      for p, m in _copies(svc, tip, mem_id)]
            out.append({"id": mem_id, "scope": scope, "copies": copies,
                        "current": {"path": cur.path, "updated": cur.updated, "summary": cur.summary,
                                    "text": cur.text} if cur else None})
    return out


def resolve(svc: Memories, ref: str, keep: str, *, scope: str | None = None) -> dict[str, Any]:
    """keep "current": drop the copies; "other": the newest copy becomes the memory;
    anything else: that text becomes the memory. One commit."""
    mode = keep.lower() if keep.lower() in ("current", "other") else "text"
    chosen = [model.check_scope(scope)] if scope else list(svc.git.scopes())
    for s in chosen:
        tip = svc.git.tip(s)
        mem_id = ref if model.is_id(ref) else svc.key_id(tip, ref)
        if mem_id and mem_id in svc.git.subdirs(tip, CONFLICTS):
            break
    else:
        raise NotFound(f"no conflict for {ref!r}", hint="`gitmem list --conflicts` shows them")
    red = svc.redactor()
    text = None
    if mode == "text":
        text = red.text(model.check_text(keep, svc.config.max_text_bytes), "text")
    info: dict[str, Any] = {}

    def build(tip):
        copies = _copies(svc, tip, mem_id)
        if not copies:
            raise NotFound(f"no conflict for {ref!r} any more", hint="another process resolved it")
        changes: dict[str, Change] = {p: None for p, _ in copies}
        path = svc.find_in(tip, mem_id)
        current = svc.load(tip, path, s) if path else None
        if mode != "current":
            base = current or copies[0][1]
            new = copies[0][1] if mode == "other" else base.with_(text=text, summary=model.summarise(text))
            new = new.with_(id=mem_id, updated=model.now_iso())
            new_path = model.memory_path(mem_id, new.type)
            if path and path != new_path:
                changes[path] = None
            changes[new_path] = model.render(new)
            info["path"] = new_path
        elif current is None:
            raise UsageError(f"{mem_id} has no live version to keep", hint="use --keep other or --keep TEXT")
        info["dropped"] = [p for p, _ in copies]
        return changes, svc.message(f"resolve: {mem_id} (kept {mode})", "resolve", [mem_id], s, red)

    commit = svc.git.commit(s, build, svc.author())
    return {"id": mem_id, "scope": s, "kept": mode, "commit": commit, **info}
