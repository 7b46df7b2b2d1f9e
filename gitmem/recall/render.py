"""Rendering memories for an agent's prompt (jinja2 over templates/): recall hits, the
context bundle, single quoted lines."""

from __future__ import annotations

import functools
from typing import Any, Sequence

from gitmem.core.tokens import count_tokens
from gitmem.policy.redact import redact

DEFAULT_BUDGET = 1500  # tokens, when --budget is not given


def _env():
    import jinja2

    env = jinja2.Environment(autoescape=False, trim_blocks=True, lstrip_blocks=True,
                             keep_trailing_newline=True, undefined=jinja2.StrictUndefined)
    env.filters["attr_safe"] = lambda v: str(v if v is not None else "").replace('"', "'").replace("<", "‹")
    return env


@functools.lru_cache(maxsize=16)
def load_template(name: str):
    """A jinja2 template from the packaged templates/ folder (compiled once a process: a
    daemon's `context` renders twice a call, ~15 ms a compile)."""
    from importlib import resources

    text = resources.files("gitmem.templates").joinpath(name).read_text(encoding="utf-8")
    return _env().from_string(text)


def defang(line: str) -> str:
    """Memory text cannot close or open the framing tags around it."""
    return line.replace("</memory", "‹/memory").replace("<memory", "‹memory").replace(
        "</gitmem-", "‹/gitmem-").replace("<gitmem-", "‹gitmem-")


def render_prompt(hits: Sequence[Any], budget: int | None = DEFAULT_BUDGET, query: str = "",
                  template: str = "recall.j2", shown: list[Any] | None = None) -> str:
    """Hits as quoted reference data for a prompt, cut to `budget` tokens (estimated).

    Whole hits are kept in rank order; the first one that does not fit is shortened
    by lines if at least a few lines fit, and the rest are dropped."""
    from gitmem.policy import gate

    tpl = load_template(template)
    budget = DEFAULT_BUDGET if budget is None else int(budget)
    query = gate.scrub(query) or ""  # the frame quotes the query, which goes into a prompt (issue 20)
    frame = count_tokens(tpl.render(hits=[], query=query, truncated=0))
    left = budget - frame
    kept: list[dict[str, Any]] = []
    for n, h in enumerate(hits):
        lines = [defang(ln) for ln in redact((getattr(h, "text", "") or h.snippet))[0].splitlines() if ln.strip()]
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
    if shown is not None:  # what was rendered, for the caller's receipt
        shown.extend(hits[: len(kept)])
    return tpl.render(hits=kept, query=query, truncated=len(hits) - len(kept))


def _hit_view(h: Any, lines: list[str], end_line: int) -> dict[str, Any]:
    return {"id": h.id, "scope": h.scope, "type": h.type, "created": h.created, "path": h.path,
            "start_line": h.start_line, "end_line": end_line, "score": h.score, "lines": lines}


def quote(text: str, limit: int = 300) -> str:
    """One line of memory text that cannot open or close the data fence around it."""
    t = " ".join(defang(redact(text)[0]).split())
    return t if len(t) <= limit else t[: limit - 1] + "…"


def render_context(bundle: dict[str, Any]) -> str:
    """The bundle as text for an agent's context (templates/context.j2)."""
    return load_template("context.j2").render(**bundle)
