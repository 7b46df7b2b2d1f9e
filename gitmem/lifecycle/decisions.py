"""An agent's dream decisions: validated whole, applied as ONE dream commit.

The decision list (JSON), as `dream --apply FILE|-` and the MCP tool `memory_consolidate`
take it:

    {"scope": "main",                       # optional: the default scope
     "decisions": [
       {"merge": ["ID1", "ID2"], "text": "merged text", "into": "ID2"},  # text, into optional
       {"supersede": "OLD_ID", "by": "NEW_ID"},
       {"keep": ["ID3", "ID4"]},
       {"archive": ["ID5"]}]}

(a bare list of decisions is read as {"decisions": [...]}). A merge keeps `into` (else
the newest) with the given text, the union of tags and links, the highest importance,
the earliest `created`, and the others' ids in `supersedes`; the others leave the live
store (their text stays in history). A supersession names OLD in NEW's `supersedes` and
moves OLD to archive/. Archive moves to archive/. Keep changes nothing and is recorded.

Refused whole, with nothing written, when: the JSON is malformed; an id is unknown,
forgotten, archived or in another scope; an id appears in two decisions that change it;
a merge names fewer than two memories, an `into` outside its list, two different
stable keys or an empty text; a supersession's two ids are the same. Every decision
names its successor inside the decision itself, so no decision drops a memory without
one. The commit (`Gitmem-Op: dream`, `Gitmem-Decided-By: agent`) names every decision in
its trailers; the pre-dream tip is pinned under refs/gitmem/archive/, and `undream`
reverts it."""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

from gitmem.core import model
from gitmem.core.errors import UsageError
from gitmem.core.model import Memory
from gitmem.core.trailers import format_message
from gitmem.lifecycle.consolidate import MEMORY_MD, merge_memories, newest_key, render_memory_md
from gitmem.memories import ledger, memory_md
from gitmem.memories.service import INTERNAL_TYPES, Memories, key_path
from gitmem.store import Change, Keep, Rev

ACTIONS = ("merge", "supersede", "keep", "archive")
EXTRAS = {"merge": {"text", "into", "reason"}, "supersede": {"by", "reason"}, "keep": {"reason"},
          "archive": {"reason"}}
HINT = "decisions look like {\"decisions\": [{\"merge\": [ID, ID], \"text\": \"...\"}, " \
       "{\"supersede\": OLD, \"by\": NEW}, {\"keep\": [ID]}, {\"archive\": [ID]}]} (see `gitmem dream --help`)"


def parse(raw: str | bytes | dict | list) -> dict[str, Any]:
    """The decision document as a dict {"scope", "decisions"} (UsageError if malformed)."""
    doc = raw
    if isinstance(raw, (str, bytes)):
        try:
            doc = json.loads(raw)
        except ValueError as e:
            raise UsageError(f"decisions are not valid JSON: {e}", hint=HINT) from e
    if isinstance(doc, list):
        doc = {"decisions": doc}
    if not isinstance(doc, dict) or not isinstance(doc.get("decisions"), list):
        raise UsageError("decisions must be an object with a \"decisions\" list", hint=HINT)
    unknown = set(doc) - {"scope", "decisions", "instructions", "note"}
    if unknown:
        raise UsageError(f"unknown field(s) {', '.join(sorted(unknown))} in the decision list", hint=HINT)
    if doc.get("scope") is not None and not isinstance(doc["scope"], str):
        raise UsageError("\"scope\" must be a string", hint=HINT)
    out = []
    for n, d in enumerate(doc["decisions"], 1):
        if not isinstance(d, dict):
            raise UsageError(f"decision {n} is not an object", hint=HINT)
        acts = [a for a in ACTIONS if a in d]
        if len(acts) != 1:
            raise UsageError(f"decision {n} must have exactly one of {', '.join(ACTIONS)}", hint=HINT)
        act = acts[0]
        extra = set(d) - {act} - EXTRAS[act]
        if extra:
            raise UsageError(f"decision {n} ({act}) has unknown field(s) {', '.join(sorted(extra))}", hint=HINT)
        ids = d[act]
        if act == "supersede":
            if not isinstance(ids, str) or not isinstance(d.get("by"), str):
                raise UsageError(f"decision {n}: supersede needs an id and \"by\": an id", hint=HINT)
        elif not isinstance(ids, list) or not ids or not all(isinstance(i, str) for i in ids):
            raise UsageError(f"decision {n}: {act} needs a non-empty list of ids", hint=HINT)
        if act == "merge":
            if len(set(ids)) < 2:
                raise UsageError(f"decision {n}: a merge needs at least two different ids", hint=HINT)
            if "text" in d and (not isinstance(d["text"], str) or not d["text"].strip()):
                raise UsageError(f"decision {n}: the merged text is empty", hint="give the text or leave it out")
            if "into" in d and d["into"] not in ids:
                raise UsageError(f"decision {n}: \"into\" {d['into']!r:.40} is not one of the merged ids", hint=HINT)
        if act == "supersede" and d["supersede"] == d["by"]:
            raise UsageError(f"decision {n}: a memory cannot supersede itself", hint=HINT)
        out.append({k: v for k, v in d.items() if k != "reason"} | ({"reason": str(d["reason"])}
                                                                    if d.get("reason") else {}))
    return {"scope": doc.get("scope"), "decisions": out}


def _ids(d: dict[str, Any]) -> list[str]:
    if "supersede" in d:
        return [d["supersede"], d["by"]]
    return list(next(d[a] for a in ACTIONS if a in d))


def _soft_forgotten(svc: Memories, tip: Rev | None, limit: int = 20000) -> set[str]:
    """Ids the scope's own forget commits removed (history kept), newest first."""
    out: set[str] = set()
    rev = tip
    for _ in range(limit):
        if rev is None:
            break
        c = svc.git.info(rev)
        if c.op == "forget":
            out.update(c.ids)
        rev = svc.git.first_parent(rev)
    return out


def check(svc: Memories, scope: str, tip: Rev | None, decisions: list[dict[str, Any]]) -> dict[str, Memory]:
    """The live memories the decisions name, by id (UsageError on the first bad id)."""
    changing: dict[str, int] = {}
    kept: set[str] = set()
    for n, d in enumerate(decisions, 1):
        for i in _ids(d):
            if "keep" in d:
                kept.add(i)
                continue
            if i in changing and changing[i] != n:
                raise UsageError(f"memory {i} is in decision {changing[i]} and decision {n}",
                                 hint="give each memory at most one decision (chains: supersede the oldest "
                                      "by the newest)")
            changing[i] = n
    both = kept & set(changing)
    if both:
        i = sorted(both)[0]
        raise UsageError(f"memory {i} is both kept and changed (decision {changing[i]})",
                         hint="give each memory at most one decision")
    found: dict[str, Memory] = {}
    forgotten: set[str] | None = None
    for i in sorted(set(changing) | kept):
        path = svc.find_in(tip, i, archived=False) if model.is_id(i) else None
        if path is not None:
            m = svc.load(tip, path, scope)
            if m.type not in INTERNAL_TYPES:
                found[i] = m
                continue
            raise UsageError(f"memory {i} is quarantined", hint="a person reviews quarantined memories first")
        if model.is_id(i) and svc.find_in(tip, i) is not None:
            raise UsageError(f"memory {i} is archived already", hint="decide only about live memories")
        for other, otip in svc.git.scopes().items():
            if other != scope and model.is_id(i) and svc.find_in(svc.git.tip(other), i) is not None:
                raise UsageError(f"memory {i} is in scope {other}, not {scope}",
                                 hint=f"one decision list per scope: give \"scope\": \"{other}\" in another list")
        if forgotten is None:
            forgotten = ledger.forgotten_ids(svc.git) | _soft_forgotten(svc, tip)
        if i in forgotten:
            raise UsageError(f"memory {i} was forgotten", hint="`gitmem dream --plan` lists the live candidates")
        raise UsageError(f"no memory {i!r:.40} in scope {scope}", hint="use the ids `gitmem dream --plan --json` shows")
    for n, d in enumerate(decisions, 1):
        if "merge" in d:
            keys = {found[i].key for i in d["merge"] if found[i].key}
            if len(keys) > 1:
                raise UsageError(f"decision {n}: memories with different keys ({', '.join(sorted(keys))}) "
                                 "are never merged", hint="two stable keys mean two memories: keep or supersede")
    return found


def apply(svc: Memories, scope: str, tip: Rev, decisions: list[dict[str, Any]],
          found: dict[str, Memory]) -> tuple[dict[str, Change], list[tuple[str, str]], dict[str, Any]]:
    """The change set, trailers and summary of the decisions at `tip` (already checked)."""
    red = svc.redactor()
    changes: dict[str, Change] = {}
    now = model.now_iso()
    gone: set[str] = set()
    archived: set[str] = set()
    bodies: dict[str, Memory] = {}
    trailers: list[tuple[str, str]] = []
    summary = {"merged": [], "superseded": [], "archived": [], "kept": []}
    for d in decisions:
        if "merge" in d:
            group = [found[i] for i in dict.fromkeys(d["merge"])]
            group.sort(key=newest_key, reverse=True)
            top = found[d["into"]] if d.get("into") else group[0]
            rest = [m for m in group if m.id != top.id]
            merged = merge_memories(top, rest, {m.key for m in group if m.key})
            if d.get("text"):
                text = red.text(model.check_text(d["text"], svc.config.max_text_bytes), "text")
                merged = merged.with_(text=text, summary=model.summarise(text))
            bodies[top.id] = merged.with_(updated=now)
            gone |= {m.id for m in rest}
            trailers += [("Gitmem-Merged", f"{m.id} into {top.id}") for m in rest]
            summary["merged"].append({"survivor": top.id, "merged": [m.id for m in rest]})
        elif "supersede" in d:
            old, new = d["supersede"], d["by"]
            base = bodies.get(new, found[new])
            if old not in base.supersedes:
                bodies[new] = base.with_(supersedes=(*base.supersedes, old), updated=now)
            archived.add(old)
            trailers.append(("Gitmem-Superseded", f"{old} by {new}"))
            summary["superseded"].append({"old": old, "by": new})
        elif "archive" in d:
            archived |= set(d["archive"])
            trailers += [("Gitmem-Archived", i) for i in d["archive"]]
            summary["archived"] += list(d["archive"])
        else:
            trailers += [("Gitmem-Kept", i) for i in dict.fromkeys(d["keep"])]
            summary["kept"] += [i for i in dict.fromkeys(d["keep"]) if i not in summary["kept"]]
    for i in gone:
        changes[found[i].path] = None
    for i, m in bodies.items():
        changes[m.path] = model.render(m)
        if m.key and svc.key_id(tip, m.key) != i:
            changes[key_path(m.key)] = (i + "\n").encode()
    for i in archived:
        m = bodies.get(i, found[i])
        body = changes.pop(m.path, None)
        changes[m.path] = None
        dest = model.memory_path(i, m.type, "archive")
        changes[dest] = body if body is not None else Keep(svc.git.blob_id(tip, m.path))
    live = []
    known = memory_md.catalogued(svc, scope)
    for path, blob in svc.memory_files(tip):
        m = memory_md.fields(svc, known, tip, path, blob, scope)
        if m.id in gone or m.id in archived or m.type in INTERNAL_TYPES:
            continue
        live.append(bodies.get(m.id, m))
    md, nlines = render_memory_md(svc.config, scope, live)
    if svc.git.read(tip, MEMORY_MD) != md:
        changes[MEMORY_MD] = md
    summary["memory_md_lines"] = nlines
    return changes, trailers, summary


def subject(summary: dict[str, Any]) -> str:
    return (f"dream (agent): merged {sum(len(m['merged']) for m in summary['merged'])}, "
            f"superseded {len(summary['superseded'])}, archived {len(summary['archived'])}, "
            f"kept {len(summary['kept'])}")


def stamp(now: float) -> str:
    return dt.datetime.fromtimestamp(now, dt.timezone.utc).strftime("%Y%m%dT%H%M%SZ")


def commit(svc: Memories, scope: str, decisions: list[dict[str, Any]], ref: str) -> dict[str, Any]:
    """Check and apply the decisions as one dream commit; pins the pre-dream tip at `ref`."""
    state: dict[str, Any] = {}
    if svc.git.tip(scope) is None:
        raise UsageError(f"no scope {scope}", hint="`gitmem scopes` lists them")

    def build(tip: Rev | None):
        found = check(svc, scope, tip, decisions)
        changes, trailers, summary = apply(svc, scope, tip, decisions, found)
        state["summary"] = summary
        touched = sorted({i for d in decisions if "keep" not in d for i in _ids(d)})
        if not changes and not trailers:
            return None
        red = svc.redactor()
        all_trailers = svc.trailers("dream", touched, scope, red) + [("Gitmem-Decided-By", "agent")] + trailers
        svc.git.set_ref(ref, tip.id)  # the pre-dream tip, pinned under the write lock
        return changes, format_message(subject(summary), None, all_trailers)

    # Checked once before the commit too: a refused list must not pin a ref.
    check(svc, scope, svc.git.tip(scope), decisions)
    made = svc.git.commit(scope, build, svc.author())
    return {"scope": scope, "commit": made, "archive_ref": ref if made else None, **state.get("summary", {})}
