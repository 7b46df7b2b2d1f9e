"""Dream: consolidation of a scope as ONE commit on top of its history.

A plan is a pure function of a scope's tip, the access counts and the clock: exact
duplicates merge; near duplicates merge when their embeddings agree (cosine >=
`dream.near_threshold`) and they do not differ in numbers or names; memories whose
weight fell below `dream.archive_below` move to `archive/`; `MEMORY.md` is rebuilt.
Nothing is rewritten: the pre-dream tip stays reachable (and is pinned at
`refs/gitmem/archive/<scope>/<time>`), and `undream` reverts the commit.

Gates ("since the last dream" = since the newest dream or undream commit on the
scope, or since the scope's first commit if it never dreamt): `dream.min_hours` of
wall time and `dream.min_sessions` distinct sessions, counted from the
`Gitmem-Session` trailers of the commits since. Commits written without a session
(a person at the CLI) count as one session per UTC day, so a store used by hand still
dreams after five active days.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import os
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

import pygit2

from . import access, model
from .errors import ConflictError, NotFound
from .model import Memory
from .store import format_message

ARCHIVE_REF_PREFIX = "refs/gitmem/archive/"
MEMORY_MD = "MEMORY.md"
POSSIBLE_UPDATES_SHOWN = 200  # the most similar pairs; the plan also gives the total

# Every number of the lifecycle, overridable under [dream] in config.toml.
DEFAULTS: dict[str, Any] = {
    "near_threshold": 0.88,  # a float, or a table {model id = float}
    "fake_near_threshold": 0.8,  # the hashed bag-of-words test embedder is coarser
    "min_hours": 24,
    "min_sessions": 5,
    "archive_below": 2.0,
    "protect_importance": 8,
    "access_cap": 10,
    "access_weight": 0.5,
    "idle_weight": 0.3,
    "lock_stale_seconds": 3600,
    "memory_md_lines": 200,
    "memory_md_bytes": 25 * 1024,
    "memory_md_line_chars": 150,
}


def setting(config, key: str) -> Any:
    return config.get("dream", key, DEFAULTS[key])


def near_threshold(config, model_id: str) -> float:
    """`dream.near_threshold`: one float for every model, or a table by model id."""
    value = config.get("dream", "near_threshold", None)
    if isinstance(value, dict):
        value = value.get(model_id)
    if value is None:
        fake = model_id.startswith("fake")
        value = setting(config, "fake_near_threshold") if fake else DEFAULTS["near_threshold"]
    return float(value)


# ---- the numbers-and-names guard ---------------------------------------------------------
_NUM = re.compile(r"\d+(?:[.,:]\d+)*")
_WORD = re.compile(r"[^\W\d_][\w'-]*")
_SENTENCE_END = re.compile(r"[.!?:;]\s*$")


def facts(text: str) -> tuple[frozenset[str], frozenset[str]]:
    """Number tokens and capitalised name tokens (not a sentence's first word)."""
    nums = frozenset(_NUM.findall(text))
    names = set()
    for line in text.splitlines():
        prev_end = 0
        for m in _WORD.finditer(line):
            w = m.group(0)
            starts = prev_end == 0 or bool(_SENTENCE_END.search(line[:m.start()]))
            prev_end = m.end()
            if w[0].isupper() and (not starts or w.isupper() and len(w) > 1):
                names.add(w)
    return nums, frozenset(names)


def same_facts(a: str, b: str) -> bool:
    return facts(a) == facts(b)


def _norm(text: str) -> str:
    return " ".join(text.split()).casefold()


# ---- the plan ----------------------------------------------------------------------------
@dataclass
class Plan:
    scope: str
    tip: str | None
    merges: list[dict[str, Any]] = field(default_factory=list)
    archive: list[dict[str, Any]] = field(default_factory=list)
    possible_updates: list[dict[str, Any]] = field(default_factory=list)
    changes: dict[str, Any] = field(default_factory=dict)
    memory_md: bytes | None = None
    memory_md_changed: bool = False
    memory_md_lines: int = 0
    near: str | None = None
    gates: dict[str, Any] = field(default_factory=dict)
    ids: list[str] = field(default_factory=list)
    possible_updates_total: int = 0
    vectors_from: dict[str, int] = field(default_factory=dict)

    @property
    def empty(self) -> bool:
        return not self.changes

    def to_dict(self) -> dict[str, Any]:
        return {"scope": self.scope, "tip": self.tip, "merges": self.merges, "archive": self.archive,
                "possible_updates": self.possible_updates,
                "possible_updates_total": self.possible_updates_total, "memory_md_changed": self.memory_md_changed,
                "memory_md_lines": self.memory_md_lines, "near_model": self.near, "vectors_from": self.vectors_from,
                "gates": self.gates}


def _ts(value: str) -> float:
    if not value:
        return 0.0
    try:
        return model.parse_when(value).timestamp()
    except Exception:  # a hand-edited date must not stop a dream
        return 0.0


def _newest_key(m: Memory) -> tuple[float, float, str]:
    """Newest text: last updated, then (an import's ties) latest created, then id."""
    return (_ts(m.updated), _ts(m.created), m.id)


class _Groups:
    def __init__(self, n: int):
        self.parent = list(range(n))
        self.members = {i: [i] for i in range(n)}

    def find(self, i: int) -> int:
        while self.parent[i] != i:
            self.parent[i] = self.parent[self.parent[i]]
            i = self.parent[i]
        return i

    def union(self, a: int, b: int) -> None:
        a, b = self.find(a), self.find(b)
        if a != b:
            self.parent[b] = a
            self.members[a].extend(self.members.pop(b))


def access_counts(store, scope: str) -> dict[str, tuple[int, int]]:
    """Local access log merged (max) with the counts last flushed to notes."""
    counts = dict(access.counts(store.home))
    last = last_dream(store, scope, ops=("dream",))
    if last is not None:
        raw = store.git.note(last.id)
        try:
            flushed = json.loads(raw).get("access", {}) if raw else {}
        except ValueError:
            flushed = {}
        for i, v in flushed.items():
            try:
                n, t = int(v[0]), int(v[1])
            except (TypeError, ValueError, IndexError):
                continue
            old = counts.get(i, (0, 0))
            counts[i] = (max(old[0], n), max(old[1], t))
    return counts


def weight(config, m: Memory, counts: dict[str, tuple[int, int]], now: float,
           updated_ts: float | None = None) -> float:
    n, last_access = counts.get(m.id, (0, 0))
    entered = model.id_time(m.id).timestamp() if model.is_id(m.id) else 0.0
    latest = max(last_access, updated_ts if updated_ts is not None else _ts(m.updated), entered)
    idle_days = max(0.0, (now - latest) / 86400.0)
    return (m.importance + min(n, int(setting(config, "access_cap"))) * float(setting(config, "access_weight"))
            - idle_days * float(setting(config, "idle_weight")))


def make_plan(store, scope: str, tip: pygit2.Commit | None, now: float,
              counts: dict[str, tuple[int, int]] | None = None, embedder: Any = "load") -> Plan:
    """What a dream would do to `scope` at `tip`: merges, archive moves, MEMORY.md."""
    plan = Plan(scope=scope, tip=str(tip.id) if tip is not None else None)
    if tip is None:
        return plan
    cfg = store.config
    mems: list[Memory] = []
    blobs: dict[str, str] = {}
    for path, oid in store.git.walk_files(tip, "memories"):
        if path.endswith(".md"):
            blobs[path] = oid
            mem = model.parse(store.git.blob(oid), path=path)
            mems.append(mem.with_(scope=scope, path=path, commit=str(tip.id)))
    # Quarantined (internal-type) memories wait for a person: dream neither merges,
    # archives nor lists them in MEMORY.md, which agents load as context.
    from .api import INTERNAL_TYPES

    mems = [m for m in mems if m.type not in INTERNAL_TYPES]
    mems.sort(key=lambda m: m.id)
    counts = dict(access_counts(store, scope) if counts is None else counts)

    # 1. Exact duplicates, then near duplicates by complete linkage over units.
    by_text: dict[str, list[int]] = {}
    for i, m in enumerate(mems):
        by_text.setdefault(_norm(m.text), []).append(i)
    units = list(by_text.values())
    groups = _Groups(len(units))
    cosf: Any = None
    if embedder == "load":
        embedder = get_embedder(cfg)[0] if len(units) > 1 else None
    if embedder is not None and len(units) > 1:
        plan.near = embedder.model_id
        th = near_threshold(cfg, embedder.model_id)
        reps = [max(u, key=lambda k: _newest_key(mems[k])) for u in units]
        import numpy as np

        vecs = _vectors(store, scope, embedder, [mems[r] for r in reps], plan)
        norms = np.linalg.norm(vecs, axis=1, keepdims=True)
        vecs = vecs / np.where(norms == 0, 1, norms)
        # Blocks of rows keep memory at O(block * n), not O(n^2), on large scopes.
        cand = []
        step = 1024
        for lo in range(0, len(units), step):
            block = vecs[lo:lo + step] @ vecs.T
            rows, cols = np.nonzero(block >= th)
            for r, c in zip(rows.tolist(), cols.tolist()):
                a = lo + r
                if c > a:
                    cand.append((float(block[r, c]), a, c))
        cand.sort(reverse=True)
        pair_sim = {(a, b): s for s, a, b in cand}

        def cos(a: int, b: int) -> float:
            key = (a, b) if a < b else (b, a)
            if key not in pair_sim:
                pair_sim[key] = float(vecs[key[0]] @ vecs[key[1]])
            return pair_sim[key]

        cosf = cos
        unit_facts: dict[int, tuple[frozenset[str], frozenset[str]]] = {}

        def facts_of(u: int) -> tuple[frozenset[str], frozenset[str]]:
            if u not in unit_facts:
                unit_facts[u] = facts(mems[reps[u]].text)
            return unit_facts[u]

        def compatible(a: int, b: int) -> str | None:
            ma, mb = mems[reps[a]], mems[reps[b]]
            if cos(a, b) < th:
                return "below threshold"
            if facts_of(a) != facts_of(b):
                return "numbers or names differ"
            if ma.key and mb.key and ma.key != mb.key:
                return "different keys"
            return None

        for s, a, b in cand:
            why = compatible(a, b)
            if why is not None:
                if why != "below threshold":
                    plan.possible_updates.append({"a": mems[reps[a]].id, "b": mems[reps[b]].id,
                                                  "cosine": round(s, 4), "why": why})
                continue
            ra, rb = groups.find(a), groups.find(b)
            if ra == rb:
                continue
            if all(compatible(x, y) is None for x in groups.members[ra] for y in groups.members[rb]):
                groups.union(ra, rb)
    # Keys: exact duplicates with different keys stay apart too.
    merged_away: set[str] = set()
    survivors: dict[str, Memory] = {}
    group_updated: dict[str, float] = {}
    for root, members in groups.members.items():
        idx = [k for u in members for k in units[u]]
        if len(idx) < 2:
            continue
        group = [mems[k] for k in idx]
        keys = {m.key for m in group if m.key}
        if len(keys) > 1:  # two stable names: the caller means two memories
            keyed = sorted((m for m in group if m.key), key=lambda m: m.id)
            plan.possible_updates.append({"a": keyed[0].id, "b": keyed[1].id, "cosine": 1.0,
                                          "why": "different keys"})
            continue
        group.sort(key=_newest_key, reverse=True)
        top, rest = group[0], group[1:]
        merged = _merge(top, rest, keys)
        survivors[top.id] = merged
        group_updated[top.id] = max(max(_ts(m.updated), _ts(m.created)) for m in group)
        merged_away |= {m.id for m in rest}
        # Recalls of the merged copies count for the survivor.
        uses = [counts.get(m.id, (0, 0)) for m in group]
        counts[top.id] = (sum(n for n, _ in uses), max(t for _, t in uses))
        kind = "exact" if len({_norm(m.text) for m in group}) == 1 else "near"
        entry: dict[str, Any] = {"survivor": top.id, "merged": [m.id for m in rest], "kind": kind}
        if kind == "near":
            us = sorted(set(members))
            entry["cosine"] = round(min(cosf(a, b) for a in us for b in us if a < b), 4)
        plan.merges.append(entry)

    # 2. Decay.
    below = float(setting(cfg, "archive_below"))
    protect = int(setting(cfg, "protect_importance"))
    live: list[Memory] = []
    for m in mems:
        if m.id in merged_away:
            continue
        cur = survivors.get(m.id, m)
        w = weight(cfg, cur, counts, now, group_updated.get(m.id))
        if w < below and cur.importance < protect:
            plan.archive.append({"id": m.id, "weight": round(w, 3), "summary": cur.summary,
                                 "importance": cur.importance})
            continue
        live.append(cur)
    archived = {a["id"] for a in plan.archive}

    # 3. The change set.
    from .api import key_path

    changes: dict[str, Any] = {}
    for m in mems:
        if m.id in merged_away:
            changes[m.path] = None
    for mid, merged in survivors.items():
        changes[merged.path] = model.render(merged)
        if merged.key and store._key_id(tip, merged.key) != mid:
            changes[key_path(merged.key)] = (mid + "\n").encode()
    for m in mems:
        if m.id in archived:
            body = changes.pop(m.path, None)
            changes[m.path] = None
            dest = model.memory_path(m.id, m.type, "archive")
            if body is None:
                changes[dest] = pygit2.Oid(hex=blobs[m.path])  # a move keeps the blob id
            else:
                changes[dest] = body
    md, nlines = render_memory_md(cfg, scope, live)
    plan.memory_md, plan.memory_md_lines = md, nlines
    current_md = store.git.read(tip, MEMORY_MD)
    if current_md != md and (live or current_md is not None):  # no index for a scope without memories
        changes[MEMORY_MD] = md
        plan.memory_md_changed = True
    plan.changes = changes if (plan.merges or plan.archive or plan.memory_md_changed) else {}
    if len(plan.possible_updates) > POSSIBLE_UPDATES_SHOWN:
        plan.possible_updates_total = len(plan.possible_updates)
        plan.possible_updates = plan.possible_updates[:POSSIBLE_UPDATES_SHOWN]
    else:
        plan.possible_updates_total = len(plan.possible_updates)
    plan.ids = sorted({e["survivor"] for e in plan.merges} | merged_away | archived)
    return plan


def _vectors(store, scope: str, embedder: Any, mems: list[Memory], plan: Plan) -> Any:
    """Embeddings of the memories' texts: from a warm index of the same model when it
    has them (re-embedding a large scope with a real model costs seconds), else fresh."""
    import numpy as np

    known: dict[str, Any] = {}
    try:
        from .index import index_path

        if index_path(store.home).exists():
            ix = store.index
            # Only where the index embedded exactly the text: one chunk, no tags appended
            # (so a warm and a cold index give the same plan).
            plain = [m.id for m in mems if not m.tags and len(m.text) <= 1000 and m.text.count("\n") < 20]
            if ix.model_id == embedder.model_id and plain:
                known = ix.vectors_for(plain, scopes=[scope])
    except Exception:  # the index is an optimisation here, never a requirement
        known = {}
    missing = [k for k, m in enumerate(mems) if m.id not in known]
    fresh = embedder.embed([mems[k].text for k in missing]) if missing else []
    out = np.zeros((len(mems), embedder.dim), dtype=np.float32)
    for k, m in enumerate(mems):
        if m.id in known and len(known[m.id]) == embedder.dim:
            out[k] = known[m.id]
    for row, k in enumerate(missing):
        out[k] = fresh[row]
    plan.vectors_from = {"index": len(mems) - len(missing), "embedded": len(missing)}
    return out


def get_embedder(config) -> tuple[Any, str | None]:
    """(embedder, None) or (None, why): dream then merges exact duplicates only."""
    from .embed import load_embedder

    res = load_embedder(config)
    if isinstance(res, tuple):  # newer embed.py returns (embedder, reason)
        return res[0], res[1]
    return res, None if res is not None else "no embedding model"


def _merge(top: Memory, rest: list[Memory], keys: set[str]) -> Memory:
    tags = list(top.tags)
    for m in rest:
        tags += [t for t in m.tags if t not in tags]
    created = [c for c in (m.created for m in [top, *rest]) if c]
    earliest = min(created, key=_ts) if created else top.created
    sup = list(top.supersedes)
    for m in rest:
        for s in (m.id, *m.supersedes):
            if s not in sup and s != top.id:
                sup.append(s)
    links = list(top.links)
    for m in rest:
        links += [l for l in m.links if l not in links]
    return top.with_(
        tags=tuple(tags), importance=max(m.importance for m in [top, *rest]), created=earliest,
        supersedes=tuple(sup), key=top.key or (next(iter(keys)) if keys else None),
        links=tuple(links), updated=model.now_iso(),
    )


def render_memory_md(config, scope: str, live: list[Memory]) -> tuple[bytes, int]:
    """The importance-ordered index of a scope, within the line, byte and width limits."""
    import importlib.resources as resources

    import jinja2

    width = int(setting(config, "memory_md_line_chars"))
    max_lines = int(setting(config, "memory_md_lines"))
    max_bytes = int(setting(config, "memory_md_bytes"))
    src = resources.files("gitmem.templates").joinpath("MEMORY.md.j2").read_text(encoding="utf-8")
    tmpl = jinja2.Environment(keep_trailing_newline=True, autoescape=False).from_string(src)
    ordered = sorted(live, key=lambda m: (-m.importance, [-ord(c) for c in m.id]))

    def line(m: Memory) -> str:
        tail = f" ({m.type}, {m.id})"
        head = f"- [{m.importance}] "
        summary = " ".join((m.summary or model.summarise(m.text)).split())
        room = width - len(head) - len(tail)
        if len(summary) > room:
            summary = summary[: max(0, room - 1)].rstrip() + "…"
        return head + summary + tail

    lines = [line(m) for m in ordered]
    k = len(lines)
    while True:
        out = tmpl.render(scope=scope, total=len(live), lines=lines[:k], more=len(lines) - k)
        data = out.encode("utf-8")
        n = out.count("\n")
        if (n <= max_lines and len(data) <= max_bytes) or k == 0:
            return data, n
        k = max(0, min(k - 1, k - (n - max_lines), int(k * 0.9)))


# ---- history: last dream, sessions -------------------------------------------------------
def first_parent(store, tip) -> Iterator[Any]:
    """The scope's own line of commits, newest first (clock skew cannot reorder it)."""
    from .store import to_commit

    c = tip
    while c is not None:
        yield to_commit(c)
        c = c.parents[0] if c.parents else None


def last_dream(store, scope: str, ops: tuple[str, ...] = ("dream", "undream")):
    tip = store.git.tip(scope)
    if tip is None:
        return None
    for c in first_parent(store, tip):
        if c.op in ops:
            return c
    return None


def gates(store, scope: str, now: float) -> dict[str, Any]:
    tip = store.git.tip(scope)
    since = None
    sessions: set[str] = set()
    first_time = None
    if tip is not None:
        for c in first_parent(store, tip):
            if c.op in ("dream", "undream"):
                since = c.time
                break
            first_time = c.time
            found = c.trailers.get("Gitmem-Session")
            if found:
                sessions.update(found)
            else:
                sessions.add("day:" + dt.datetime.fromtimestamp(c.time, dt.timezone.utc).strftime("%Y-%m-%d"))
    ref_time = since if since is not None else (first_time if first_time is not None else now)
    hours = (now - ref_time) / 3600.0
    need_h, need_s = float(setting(store.config, "min_hours")), int(setting(store.config, "min_sessions"))
    return {"hours_since": round(hours, 2), "sessions_since": len(sessions), "min_hours": need_h,
            "min_sessions": need_s, "open": hours >= need_h and len(sessions) >= need_s,
            "last_dream": since}


# ---- the lock ----------------------------------------------------------------------------
def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


@contextlib.contextmanager
def dream_lock(home: Path, stale_after: float) -> Iterator[None]:
    """A lock file holding our PID; stale after `stale_after` seconds or when the PID is gone."""
    path = Path(home) / "state" / "locks" / "dream.lock"
    path.parent.mkdir(parents=True, exist_ok=True)
    mine = f"{os.getpid()} {int(time.time())}\n"
    for attempt in range(2):
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        except FileExistsError:
            try:
                pid_s, t_s = path.read_text().split()[:2]
                pid, started = int(pid_s), int(t_s)
            except (OSError, ValueError):
                pid, started = 0, 0
            if attempt == 0 and (time.time() - started > stale_after or not _pid_alive(pid)):
                with contextlib.suppress(FileNotFoundError):
                    path.unlink()
                continue
            raise ConflictError(f"another dream is running (pid {pid})",
                                hint=f"wait for it, or remove {path} if that process is gone") from None
        with os.fdopen(fd, "w") as fh:
            fh.write(mine)
        break
    try:
        yield
    finally:
        with contextlib.suppress(OSError):
            if path.read_text() == mine:
                path.unlink()


# ---- the operations ----------------------------------------------------------------------
def dream(store, scope: str | None = None, dry_run: bool = False, force: bool = False,
          now: float | None = None) -> dict[str, Any]:
    """Dream every scope (or one); each gets at most one commit."""
    now = time.time() if now is None else float(now)
    scopes = [model.check_scope(scope)] if scope else list(store.git.scopes())
    if scope and store.git.tip(scope) is None:
        raise NotFound(f"no scope {scope}", hint="`gitmem scopes` lists them")
    out: dict[str, Any] = {"dry_run": dry_run, "scopes": {}}
    if dry_run:
        for s in scopes:
            plan = make_plan(store, s, store.git.tip(s), now)
            plan.gates = gates(store, s, now)
            out["scopes"][s] = {**plan.to_dict(), "commit": None, "skipped": None}
        return out
    with dream_lock(store.home, float(setting(store.config, "lock_stale_seconds"))):
        for s in scopes:
            out["scopes"][s] = _dream_scope(store, s, force, now)
    return out


def _dream_scope(store, scope: str, force: bool, now: float) -> dict[str, Any]:
    g = gates(store, scope, now)
    if not force and not g["open"]:
        why = (f"{g['hours_since']:.1f} h and {g['sessions_since']} session(s) since the last dream; "
               f"needs {g['min_hours']:g} h and {g['min_sessions']} (or --force)")
        return {"scope": scope, "skipped": why, "gates": g, "commit": None, "merges": [], "archive": [],
                "possible_updates": []}
    counts = access_counts(store, scope)
    embedder, _ = get_embedder(store.config)
    first = make_plan(store, scope, store.git.tip(scope), now, counts, embedder)
    state: dict[str, Plan] = {}

    def build(tip):
        plan = first if (tip is not None and str(tip.id) == first.tip) else make_plan(
            store, scope, tip, now, counts, embedder)
        state["plan"] = plan
        if plan.empty:
            return None
        red = store._redactor()
        trailers = store._trailers("dream", plan.ids, scope, red)
        for e in plan.merges:
            trailers += [("Gitmem-Merged", f"{m} into {e['survivor']}") for m in e["merged"]]
        trailers += [("Gitmem-Archived", a["id"]) for a in plan.archive]
        # Pin the pre-dream tip now, under the write lock, so no forget can prune it
        # between our commit and the pin (a retry re-pins the newer tip).
        pinned = store.git.refs(ref).get(ref)
        update_refs_cas(store.git, [(ref, str(tip.id), pinned)], message="gitmem dream: pre-dream tip")
        n_merged = sum(len(e["merged"]) for e in plan.merges)
        subject = f"dream: merged {n_merged}, archived {len(plan.archive)}, MEMORY.md {plan.memory_md_lines} lines"
        return plan.changes, format_message(subject, None, trailers)

    from .forget import update_refs_cas

    stamp = dt.datetime.fromtimestamp(now, dt.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    ref = f"{ARCHIVE_REF_PREFIX}{scope}/{stamp}"
    commit = store.git.commit(scope, build, store._author())
    plan = state.get("plan", first)
    result = {**plan.to_dict(), "gates": g, "commit": commit, "skipped": None, "archive_ref": None}
    if commit:
        result["archive_ref"] = ref
        note = {"access": {i: [n, t] for i, (n, t) in sorted(counts.items())}, "flushed": int(now)}
        store.git.set_note(commit, json.dumps(note, sort_keys=True), store._author())
    return result


def undream(store, scope: str | None = None) -> dict[str, Any]:
    """Revert the newest not-yet-reverted dream commit of a scope with a new commit.
    Paths written after the dream keep their newer content."""
    scope = store._scope(scope)
    tip = store.git.tip(scope)
    if tip is None:
        raise NotFound(f"no scope {scope}")
    reverted: set[str] = set()
    target = None
    for c in first_parent(store, tip):
        if c.op == "undream":
            reverted.update(c.trailers.get("Gitmem-Reverts", []))
        elif c.op == "dream" and c.id not in reverted:
            target = c
            break
    if target is None:
        raise NotFound(f"no dream to undo in {scope}", hint="`gitmem log --scope SCOPE` shows dreams")
    dc = store.git.commit_obj(target.id)
    parent = dc.parents[0]
    info: dict[str, list[str]] = {}

    def build(cur):
        restored, kept = [], []
        changes: dict[str, Any] = {}
        for _, path, _ in store.git.diff_files(str(parent.id), str(dc.id)):
            dream_blob = store.git.blob_id(dc, path)
            before = store.git.blob_id(parent, path)
            if store.git.blob_id(cur, path) != dream_blob:
                kept.append(path)  # written again after the dream: the newer write wins
                continue
            name = path.rsplit("/", 1)[-1]
            if before and name.endswith(".md") and model.is_id(name[:-3]):
                elsewhere = store._find_in(cur, name[:-3])
                if elsewhere and elsewhere != path and \
                        store.git.blob_id(cur, elsewhere) != store.git.blob_id(dc, elsewhere):
                    kept.append(path)  # it lives on elsewhere (say archive/), changed since
                    continue
            changes[path] = pygit2.Oid(hex=before) if before else None
            restored.append(path)
        info.update(restored=restored, kept=kept)
        if not changes:
            return None
        red = store._redactor()
        trailers = store._trailers("undream", target.ids, scope, red) + [("Gitmem-Reverts", target.id)]
        return changes, format_message(f"undream: revert {target.id[:12]}", None, trailers)

    commit = store.git.commit(scope, build, store._author())
    if commit is None:
        raise ConflictError("everything the dream changed was changed again since; nothing to revert")
    return {"scope": scope, "reverted": target.id, "commit": commit, **info}
