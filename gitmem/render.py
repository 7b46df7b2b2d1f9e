"""Rendering recall results for agents (jinja2 over templates/), and reading cited
slices of files back (`gitmem get PATH --from N --lines M`)."""

from __future__ import annotations

from typing import Any, Sequence

from . import model
from .errors import NotFound, UsageError
from .tokens import count_tokens

DEFAULT_BUDGET = 1500  # tokens, when --budget is not given


def _env():
    import jinja2

    env = jinja2.Environment(autoescape=False, trim_blocks=True, lstrip_blocks=True,
                             keep_trailing_newline=True, undefined=jinja2.StrictUndefined)
    env.filters["attr_safe"] = lambda v: str(v if v is not None else "").replace('"', "'").replace("<", "‹")
    return env


def load_template(name: str):
    """A jinja2 template from the packaged templates/ folder."""
    from importlib import resources

    text = resources.files("gitmem.templates").joinpath(name).read_text(encoding="utf-8")
    return _env().from_string(text)


def _defang(line: str) -> str:
    """Memory text cannot close or open the framing tags around it."""
    return line.replace("</memory", "‹/memory").replace("<memory", "‹memory").replace(
        "</gitmem-", "‹/gitmem-").replace("<gitmem-", "‹gitmem-")


def render_prompt(hits: Sequence[Any], budget: int | None = DEFAULT_BUDGET, query: str = "",
                  template: str = "recall.j2") -> str:
    """Hits as quoted reference data for a prompt, cut to `budget` tokens (estimated).

    Whole hits are kept in rank order; the first one that does not fit is shortened
    by lines if at least a few lines fit, and the rest are dropped."""
    tpl = load_template(template)
    budget = DEFAULT_BUDGET if budget is None else int(budget)
    frame = count_tokens(tpl.render(hits=[], query=query, truncated=0))
    left = budget - frame
    kept: list[dict[str, Any]] = []
    for n, h in enumerate(hits):
        lines = [_defang(ln) for ln in (getattr(h, "text", "") or h.snippet).splitlines() if ln.strip()]
        head = 40  # the memory tag line
        cost = head + sum(count_tokens(ln) + 2 for ln in lines)
        if cost > left:
            fit, used = [], head
            for ln in lines:
                c = count_tokens(ln) + 2
                if used + c > left:
                    break
                fit.append(ln)
                used += c
            if len(fit) >= 2 or (fit and len(lines) == 1):
                kept.append(_hit_view(h, fit + ["[…]"], h.start_line + len(fit) - 1))
            break
        kept.append(_hit_view(h, lines, h.end_line))
        left -= cost
    return tpl.render(hits=kept, query=query, truncated=len(hits) - len(kept))


def _hit_view(h: Any, lines: list[str], end_line: int) -> dict[str, Any]:
    return {"id": h.id, "scope": h.scope, "type": h.type, "created": h.created, "path": h.path,
            "start_line": h.start_line, "end_line": end_line, "score": h.score, "lines": lines}


# ---- reading slices ----------------------------------------------------------------------
def check_path(path: str) -> str:
    """A repository-relative path that cannot leave the tree."""
    p = path.strip().lstrip("./") if path.startswith("./") else path.strip()
    parts = p.split("/")
    if not p or p.startswith("/") or any(x in ("", ".", "..") for x in parts) or "\x00" in p:
        raise UsageError(f"bad path {path!r}", hint="a path inside a scope, e.g. daily/2024-05-01.md")
    return p


def read_slice(store, path: str, scope: str | None = None, at: str | None = None,
               start: int | None = None, count: int | None = None) -> dict[str, Any]:
    """`{text, path, scope, start_line, end_line, commit}` of a file's lines.

    Memory files (memories/, archive/) are numbered by body lines, as recall cites them."""
    path = check_path(path)
    scopes = [model.check_scope(scope)] if scope else _scope_order(store)
    for s in scopes:
        commit = _commit_at(store, s, at)
        data = store.git.read(commit, path) if commit is not None else None
        if data is None:
            continue
        if path.startswith(("memories/", "archive/")):
            text = model.parse(data, path=path).text
        else:
            text = data.decode("utf-8", "replace")
        lines = text.splitlines(True)
        first = max(1, int(start or 1))
        if count is not None and count < 0:
            raise UsageError("--lines must be positive")
        end = len(lines) if count is None else min(len(lines), first - 1 + int(count))
        return {"text": "".join(lines[first - 1 : end]), "path": path, "scope": s,
                "start_line": first, "end_line": max(first - 1, end), "commit": str(commit.id)}
    raise NotFound(f"no file {path!r}" + (f" in scope {scope}" if scope else " in any scope"),
                   hint="recall hits cite paths; `gitmem export` lists every file")


def _scope_order(store) -> list[str]:
    out = []
    for s in [store.default_scope(), "main", *store.git.scopes()]:
        if s not in out:
            out.append(s)
    return out


def _commit_at(store, scope: str, at: str | None):
    tip = store.git.tip(scope)
    if at is None or tip is None:
        return tip
    try:
        when = model.parse_when(at)
    except UsageError:
        return store.git.commit_obj(at)
    ts = when.timestamp() + (86400 - 1 if len(at.strip()) == 10 else 0)
    for c in store.git.history(str(tip.id)):
        if c.time <= ts:
            return store.git.commit_obj(c.id)
    return None
