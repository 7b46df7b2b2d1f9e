"""The session-start bundle: preferences, MEMORY.md, the last hours' memories and
journal lines and the heaviest memories (gitmem.weight), fitted to a token budget, and
its rendering as reference data for an agent's context.

Works on the service layer (memories.py). Library code: no printing, no exiting."""

from __future__ import annotations

import datetime as dt
import re
from typing import Any, Iterable

from gitmem.agents import receipts
from gitmem.core import model
from gitmem.core.errors import UsageError
from gitmem.core.tokens import CJK_CHAR, count_tokens
from gitmem.memories import scopes as scoping
from gitmem.memories import succession
from gitmem.memories.service import Memories, daily_path
from gitmem.policy import access
from gitmem.policy.injection import injectable, suspect
from gitmem.policy.weight import timestamp, weight
from gitmem.recall.render import quote, render_context

# The [capture] context_* settings are in config.SCHEMA.


def _when(mem: model.Memory) -> float:
    return timestamp(mem.updated or mem.created)


# Recent memories read from the catalog at first (a fresh import makes every memory
# recent; a budget of a few thousand tokens shows a few dozen).
RECENT_ROWS = 2000

_JOURNAL_LINE = re.compile(r"^- (\d{2}):(\d{2}) (.*)$")


# A memory `context` may show, as the catalog's picks give it (index.catalog.PICKED, then
# the weight): the fields it chooses by and the measure of its quoted line, so its cost
# is known before its body is read.
_SCOPE, _ID, _PATH, _BLOB, _TYPE, _IMP, _UPDATED, _WHEN, _QLEN, _QCJK, _W = range(11)


def _row_of(m: model.Memory, w: float) -> tuple:
    """The same row for a memory read whole (no catalog)."""
    q = quote(m.text)
    return (m.scope or "", m.id, m.path, None, m.type, m.importance, m.updated, _when(m), len(q),
            len(CJK_CHAR.findall(q)), w)


def _cost(r: tuple) -> int:
    """count_tokens(f"- {quote(text)} ({type}, {scope}, {id})") + 1, from the measure."""
    rest = f"- ({r[_TYPE]}, {r[_SCOPE]}, {r[_ID]}) "
    cjk = r[_QCJK] + (len(CJK_CHAR.findall(rest)) if not rest.isascii() else 0)
    return cjk + (r[_QLEN] + len(rest) - cjk + 3) // 4 + 1


def context(svc: Memories, *, scopes: Iterable[str] | None = None, hours: float | None = None,
            budget: int | None = None, cwd: str | None = None, now: dt.datetime | None = None,
            record: bool = True, at: str | None = None, recent_limit: int | None = RECENT_ROWS) -> dict[str, Any]:
    """The session-start bundle as data: preferences, MEMORY.md, recent memories and
    journal lines, top memories by weight; fitted to `budget` tokens, counting what was
    left out. Quarantined memories, and any text with injection phrasing that a person
    did not release, are never included (`withheld` counts such memories); text is
    redacted again on the way out (`quote`).

    `at` (a revision or date): the bundle a session would have got then, from each
    scope as it stood at that instant (gitmem.timetravel), "the last hours" counted
    back from it; forgotten memories stay out, and no use is counted (`as_of` says
    which commits; `note` why there is nothing).

    `recent_limit`: with the catalog, read only this many recent memories, and all of
    them only if one left out could still fit the budget (the answer is the same)."""
    hours = float(svc.config.get("capture", "context_hours") if hours is None else hours)
    budget = int(svc.config.get("capture", "context_budget") if budget is None else budget)
    if hours < 0 or budget < 0:
        raise UsageError("--hours and --budget must not be negative")
    existing = svc.git.scopes()
    if scopes:
        chosen = [s for s in (model.check_scope(x) for x in scopes) if s in existing]
    else:
        chosen = scoping.session_scopes(svc.config, existing, cwd)
    revs: dict[str, Any] = {}
    forgotten: set[str] = set()
    as_of = note = None
    if at is not None:
        from gitmem.recall import timetravel

        asof = timetravel.resolve(svc, at, chosen)
        asked = list(chosen)
        chosen = [s for s in chosen if s in asof.revs] + [s for s in asof.revs if s not in chosen]
        revs, forgotten = asof.revs, asof.forgotten
        now = dt.datetime.fromtimestamp(asof.time, dt.timezone.utc)
        as_of = {"at": at, "time": asof.iso(), "commits": {s: asof.revs[s].id for s in chosen}}
        note = timetravel.empty_note(svc, asof, asked)
    now = now or dt.datetime.now(dt.timezone.utc)
    now_ts = now.timestamp()
    since = now_ts - hours * 3600
    counts = access.counts(svc.home)
    mems: list[model.Memory] = []
    memory_md: list[tuple[str, list[str]]] = []
    journal: list[dict[str, Any]] = []
    withheld = 0
    n_prefs = int(svc.config.get("capture", "context_preferences"))
    n_top = int(svc.config.get("capture", "context_top"))
    # The catalog chooses from every memory's fields in one query; only the bodies of
    # the memories shown are read. Without it (or --at), the trees are read whole.
    total = 0
    tail: tuple[int, int] = (0, 0)
    # Only the current statement of a fact: memories a live one replaced are left out.
    tips = {s: revs[s] if at is not None else svc.git.tip(s) for s in chosen}
    replaced = {s: succession.successors(svc, s, tips[s]) for s in chosen}
    got = None if at is not None else svc.context_picks(
        chosen, now=now_ts, counts=counts, since=since, n_prefs=n_prefs, n_top=n_top, recent_limit=recent_limit,
        exclude=sorted(set().union(*replaced.values())))
    catalogued = got is not None  # (None: no catalog, or its file is busy)
    if got is not None:
        withheld, total = got["withheld"], got["total"]
        prefs, recent, top = got["prefs"], got["recent"], got["top"]
        tail = got.get("tail") or (0, 0)
    for s in chosen:
        tip = tips[s]
        for m in () if catalogued else svc.iter_memories(s, tip):
            if m.id in forgotten or m.id in replaced[s]:
                continue
            if not injectable(m.type, m.text, m.metadata):
                withheld += 1
            else:
                mems.append(m)
        md = svc.read_file(tip, "MEMORY.md")
        if md:
            lines = md.splitlines()
            memory_md.append((s, [ln for ln in lines if not suspect(ln)]))
        day = (now - dt.timedelta(hours=hours)).date()
        while day <= now.date():
            for line in (svc.read_file(tip, daily_path(day)) or "").splitlines():
                m = _JOURNAL_LINE.match(line)
                if not m or suspect(line):
                    continue
                when = dt.datetime(day.year, day.month, day.day, int(m.group(1)), int(m.group(2)),
                                   tzinfo=dt.timezone.utc)  # (not `at`: that is the --at argument)
                if since - 60 <= when.timestamp() <= now_ts + 60:
                    journal.append({"scope": s, "day": f"{day:%Y-%m-%d}", "time": f"{m.group(1)}:{m.group(2)}",
                                    "text": quote(m.group(3)), "at": when.timestamp()})
            day += dt.timedelta(days=1)
    if not catalogued:
        # Ties in weight or time go to the newest id, then the scopes' order (as the
        # catalog's query orders them).
        mems.sort(key=lambda m: m.id, reverse=True)
        total = len(mems)
        whole = {(m.scope, m.id): m for m in mems}
        rows = [_row_of(m, weight(svc.config, m, counts, now_ts)) for m in mems]
        prefs = sorted((r for r in rows if r[_TYPE] == "preference"), key=lambda r: -r[_W])[:n_prefs]
        recent = sorted((r for r in rows if r[_WHEN] >= since), key=lambda r: r[_WHEN], reverse=True)
        top = sorted(rows, key=lambda r: -r[_W])[:n_top]
    journal.sort(key=lambda j: j["at"], reverse=True)
    tips = {s: svc.git.tip(s) for s in chosen} if catalogued else {}
    bodies: dict[tuple[str, str], model.Memory] = {}

    def body(r: tuple) -> model.Memory:
        """The whole memory of a row (read from git only for a memory shown)."""
        k = (r[_SCOPE], r[_ID])
        if k not in bodies:
            bodies[k] = (svc.load(tips[r[_SCOPE]], r[_PATH], r[_SCOPE], r[_BLOB]) if catalogued else whole[k])
        return bodies[k]

    # Priority order: what applies to nearly every prompt first, then the scope index,
    # then what is new, then what weighs most. (section, cost, id or None, row or data)
    candidates: list[tuple[str, int, str | None, Any]] = [("preferences", _cost(r), r[_ID], r) for r in prefs]
    for s, lines in memory_md:
        candidates += [("memory_md", count_tokens(ln) + 1, None, {"scope": s, "line": quote(ln, 400)})
                       for ln in lines]
    candidates += [("recent", _cost(r), r[_ID], r) for r in recent]
    if tail[0]:  # recent rows the catalog left out: none of them may fit, or read them all
        candidates.append(("recent_tail", tail[1], None, None))
    candidates += [("journal", count_tokens(j["text"]) + 8, None, j) for j in journal]
    candidates += [("top", _cost(r), r[_ID], r) for r in top]
    # The framing (header, the "left out" line with its fetch hints, the closing tag)
    # is part of the budget: a budget below it is refused rather than exceeded.
    sections = {k for k, v in (("preferences", prefs), ("memory_md", [ln for _, x in memory_md for ln in x]),
                               ("recent", recent or tail[0]), ("journal", journal), ("top", top)) if v}
    overhead = framing_tokens(chosen, hours, budget, now, at) + 4 * len(sections)  # section titles
    if budget < overhead:
        raise UsageError(f"--budget {budget} is below the {overhead} tokens the framing itself takes",
                         hint=f"use --budget {overhead} or more (the default is "
                              f"{svc.config.get('capture', 'context_budget')})")
    used = overhead
    placed: dict[str, list[dict[str, Any]]] = {k: [] for k in ("preferences", "memory_md", "recent", "journal", "top")}
    seen_ids: set[str] = set()
    omitted = {"memories": 0, "journal": 0, "memory_md": 0}
    omitted_ids: set[str] = set()
    for section, cost, mid, data in candidates:
        if section == "recent_tail":
            if used + cost <= budget:  # one of them might fit after all
                return context(svc, scopes=scopes, hours=hours, budget=budget, cwd=cwd, now=now,
                               record=record, at=at, recent_limit=None)
            continue
        if mid and mid in seen_ids:
            continue
        if used + cost <= budget:
            used += cost
            if mid:  # a memory: its text now, from its body
                r = data
                data = {"id": mid, "scope": r[_SCOPE], "type": r[_TYPE], "importance": r[_IMP],
                        "text": quote(body(r).text), "weight": round(r[_W], 2), "updated": r[_UPDATED]}
                seen_ids.add(mid)
            placed[section].append(data)
        elif mid:
            omitted_ids.add(mid)
        elif section == "journal":
            omitted["journal"] += 1
        else:
            omitted["memory_md"] += 1
    # Every pick is either shown or left out (with a tail: counted by the catalog).
    omitted["memories"] = got["ids"] - len(seen_ids) if got and tail[0] else len(omitted_ids - seen_ids)
    shown_md: dict[str, list[str]] = {}
    for d in placed["memory_md"]:
        shown_md.setdefault(d["scope"], []).append(d["line"])
    if record and seen_ids:
        if at is None:  # a look back is not a use of what is known now
            access.record(svc.home, sorted(seen_ids), kind="context")
        # commit and path known: no lookups for the receipt
        by_id = {m.id: m for m in bodies.values()}
        receipts.record(svc, "context", None, [
            {"id": m.id, "scope": m.scope, "commit": m.commit, "path": m.path}
            for m in (by_id.get(d["id"]) for k in ("preferences", "recent", "top") for d in placed[k]) if m])
    fetch = []
    if omitted["memories"]:
        fetch.append(" ".join(["gitmem list"] + [f"--scope {s}" for s in chosen]))
        fetch.append('gitmem recall "<topic>"' + (f" --at {at}" if at is not None else ""))
    if omitted["journal"]:
        fetch.append(f"gitmem get daily/{now:%Y-%m-%d}.md --scope {journal[0]['scope']}")
    if omitted["memory_md"]:
        fetch.append(f"gitmem get MEMORY.md --scope {memory_md[0][0]}")
    for j in placed["journal"]:
        j.pop("at", None)
    return {"scopes": chosen, "hours": hours, "budget": budget, "tokens": used,
            "generated": now.replace(microsecond=0).isoformat().replace("+00:00", "Z"),
            "preferences": placed["preferences"], "memory_md": shown_md, "recent": placed["recent"],
            "journal": placed["journal"], "top": placed["top"], "omitted": omitted, "fetch": fetch,
            "withheld": withheld,
            "total_memories": total, **({"as_of": as_of, "note": note} if at is not None else {})}


def framing_tokens(scopes: list[str], hours: float, budget: int, now: dt.datetime, at: str | None = None) -> int:
    """Tokens of the context with nothing in it but the header, the longest "left out"
    line and the closing tag."""
    many = 10 ** 6
    bundle = {"scopes": scopes, "hours": hours, "budget": budget, "tokens": 0,
              "generated": now.replace(microsecond=0).isoformat().replace("+00:00", "Z"),
              "preferences": [], "memory_md": {}, "recent": [], "journal": [], "top": [],
              "omitted": {"memories": many, "journal": many, "memory_md": many},
              "fetch": [" ".join(["gitmem list"] + [f"--scope {s}" for s in scopes]),
                        'gitmem recall "<topic>"' + (f" --at {at}" if at is not None else ""),
                        f"gitmem get daily/{now:%Y-%m-%d}.md --scope {scopes[0] if scopes else 'main'}",
                        f"gitmem get MEMORY.md --scope {scopes[0] if scopes else 'main'}"],
              "withheld": 0, "total_memories": 0}
    if at is not None:
        bundle["as_of"] = {"at": at, "time": bundle["generated"], "commits": {}}
    return count_tokens(render_context(bundle))




def top_preferences(svc: Memories, preferences: Iterable[model.Memory], n: int,
                    now: float | None = None) -> list[model.Memory]:
    """The `n` heaviest of these preferences that may go into a prompt (before each
    prompt, the hook offers the ones not yet shown in the session)."""
    import time

    prefs = [m for m in preferences if injectable(m.type, m.text, m.metadata)]
    counts = access.counts(svc.home) if prefs else {}
    now = time.time() if now is None else now
    prefs.sort(key=lambda m: -weight(svc.config, m, counts, now))
    return prefs[:n]


def line_cost(line: dict[str, Any]) -> int:
    """Tokens of one quoted memory line of the bundle (what `_cost` computes from a
    catalog row's measure)."""
    return count_tokens(f"- {line['text']} ({line['type']}, {line['scope']}, {line['id']})") + 1


def relevant_section(hits: Iterable[Any], budget: int) -> tuple[list[dict[str, Any]], int]:
    """Recall hits (already cut to what a prompt may get: Store.prompt_hits) as the
    context's "relevant" lines, in rank order while they fit `budget` tokens: (lines,
    their cost)."""
    out: list[dict[str, Any]] = []
    used = 0
    for h in hits:
        line = {"id": h.id, "scope": h.scope, "type": h.type, "text": quote(h.text or h.snippet),
                "relevance": h.relevance}
        cost = line_cost(line)
        if used + cost > budget:
            break
        out.append(line)
        used += cost
    return out, used
