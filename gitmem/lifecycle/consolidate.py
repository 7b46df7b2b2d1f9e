"""The dream plan: what consolidating a scope would change, as a function of the
scope's tip, the access counts and the clock. Nothing here writes.

Exact duplicates merge; near duplicates merge when their embeddings agree (cosine >=
`dream.near_threshold`, `anchored_margin` less when they share a date, number or name or
every content word of the shorter, `cjk_margin` less for two Chinese texts sharing a
value and a word: gitmem.lifecycle.grouping) and nothing tells them apart
(gitmem.lifecycle.samefact: values, names, entities);
a later memory with a change cue supersedes a similar earlier one, which is archived
(gitmem.lifecycle.updates); memories whose
weight (gitmem.weight) fell below `dream.archive_below` move to `archive/`; `MEMORY.md`
is rebuilt within its line, byte and width limits. Fields come from the index's catalog
when it knows the files at the tip (`read_memories`), vectors from the index."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gitmem.core import model
from gitmem.core.model import Memory
from gitmem.core.tokens import simplified
from gitmem.index.embed import get_embedder
from gitmem.lifecycle import grouping, samefact, updates
from gitmem.memories import succession
from gitmem.memories.service import INTERNAL_TYPES, Memories, key_path
from gitmem.policy import weight as weighing
from gitmem.store import Change, Keep, Rev

MEMORY_MD = "MEMORY.md"
POSSIBLE_UPDATES_SHOWN = 200  # the most similar pairs; the plan also gives the total

# Every number of the lifecycle is a [dream] setting in gitmem.config.SCHEMA. With no
# near_threshold set, real models use NEAR_THRESHOLD and the hashed test embedder
# (coarser) `fake_near_threshold`.
NEAR_THRESHOLD = 0.88


def setting(config, key: str) -> Any:
    """One [dream] setting: config.toml, else its default."""
    return config.get("dream", key)


def near_threshold(config, model_id: str) -> float:
    """`dream.near_threshold`: one float for every model, or a table by model id."""
    value = config.get("dream", "near_threshold", None)
    if isinstance(value, dict):
        value = value.get(model_id)
    if value is None:
        fake = model_id.startswith("fake")
        value = setting(config, "fake_near_threshold") if fake else NEAR_THRESHOLD
    return float(value)


def _norm(text: str) -> str:
    return " ".join(text.split()).casefold()


# ---- the plan ----------------------------------------------------------------------------
@dataclass
class Plan:
    """What a dream would do to one scope; `changes` is the commit's change set."""

    scope: str
    tip: str | None
    merges: list[dict[str, Any]] = field(default_factory=list)
    archive: list[dict[str, Any]] = field(default_factory=list)
    possible_updates: list[dict[str, Any]] = field(default_factory=list)
    supersessions: list[dict[str, Any]] = field(default_factory=list)
    changes: dict[str, Change] = field(default_factory=dict)
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
                "possible_updates": self.possible_updates, "supersessions": self.supersessions,
                "possible_updates_total": self.possible_updates_total, "memory_md_changed": self.memory_md_changed,
                "memory_md_lines": self.memory_md_lines, "near_model": self.near, "vectors_from": self.vectors_from,
                "gates": self.gates}


def newest_key(m: Memory) -> tuple[float, float, str]:
    """Newest text: last updated, then (an import's ties) latest created, then id."""
    return (weighing.timestamp(m.updated), weighing.timestamp(m.created), m.id)


# A merge keeps the most detailed of the paraphrases written within this many days of
# the group's newest; an older text never survives a newer one (a group that joined an
# update to what it replaced by mistake then still says what is true now).
SURVIVOR_DAYS = 30


def informative_key(m: Memory) -> tuple[int, int, tuple[float, float, str]]:
    """The most kinds of value read (a date, a time, a weekday, an amount...), then the
    most content words (a sentence over a terse note), then the newest."""
    fact = samefact.read(m.text)
    return len(set(fact.values) - {"slash"}), len(fact.tokens), newest_key(m)


def survivor_first(group: list[Memory]) -> list[Memory]:
    """`group` with the memory a merge keeps first: of the paraphrases written within
    SURVIVOR_DAYS of the newest, the one that says the fact best (`informative_key`):
    paraphrases state one fact, so the text that keeps every detail and matches the most
    ways of asking is the one to keep; the others' ids go in its `supersedes`."""
    newest = max(group, key=newest_key)
    recent = weighing.timestamp(newest.created) - SURVIVOR_DAYS * 86400.0
    best = max((m for m in group if weighing.timestamp(m.created) >= recent), key=informative_key, default=newest)
    return [best] + [m for m in group if m is not best]


def make_plan(svc: Memories, scope: str, tip: Rev | None, now: float,
              counts: weighing.Counts, embedder: Any = "load") -> Plan:
    """What a dream would do to `scope` at `tip`: merges, archive moves, MEMORY.md.
    `embedder` "load" loads the configured model only when there are pairs to compare;
    None merges exact duplicates only."""
    plan = Plan(scope=scope, tip=tip.id if tip is not None else None)
    if tip is None:
        return plan
    cfg = svc.config
    mems, blobs, light = read_memories(svc, scope, tip)
    # Quarantined (internal-type) memories wait for a person: dream neither merges,
    # archives nor lists them in MEMORY.md, which agents load as context.
    mems = [m for m in mems if m.type not in INTERNAL_TYPES]
    mems.sort(key=lambda m: m.id)
    counts = dict(counts)

    # 1. Exact duplicates, then near duplicates (gitmem.lifecycle.grouping), then the
    # later memories that replace earlier ones (gitmem.lifecycle.updates).
    # A memory a live one names in `supersedes` is history (recall hides it): it merges
    # with no copy, which would bring its fact back as the current one, and is not
    # superseded again.
    replaced = {s for m in mems for s in m.supersedes} & {m.id for m in mems}
    by_text: dict[str, list[int]] = {}
    for i, m in enumerate(mems):
        if m.id not in replaced:
            by_text.setdefault(_norm(m.text), []).append(i)
    units = list(by_text.values())
    groups = grouping.Groups(len(units))
    vecs: Any = None
    pairs: list[tuple[float, int, int]] = []
    reps = [max(u, key=lambda k: newest_key(mems[k])) for u in units]
    if embedder == "load":
        embedder = get_embedder(cfg)[0] if len(units) > 1 else None
    if embedder is not None and len(units) > 1:
        plan.near = embedder.model_id
        th = near_threshold(cfg, embedder.model_id)
        margin = float(setting(cfg, "anchored_margin"))
        cjk_margin = float(setting(cfg, "cjk_margin"))
        update_th = th - float(setting(cfg, "update_margin"))
        strong_th = update_th - float(setting(cfg, "strong_cue_margin"))
        import numpy as np

        vecs = _vectors(svc, scope, embedder, [mems[r] for r in reps], plan)
        norms = np.linalg.norm(vecs, axis=1, keepdims=True)
        vecs = vecs / np.where(norms == 0, 1, norms)
        texts = [simplified(mems[r].text) for r in reps]  # 婦幼 / 妇幼: one word in two scripts
        pairs = grouping.candidate_pairs(vecs, min(th - margin, strong_th))
        pairs = grouping.lexical_pairs(texts, vecs, th - cjk_margin - grouping.CJK_MEASURED_MARGIN, pairs)
        pairs = updates.left_pairs(texts, vecs, updates.frame_pairs(texts, vecs, pairs))
        near = grouping.group(texts, [mems[r].key for r in reps], [mems[r].id for r in reps], pairs, th, margin,
                              cjk_margin, vecs=vecs, created=[weighing.timestamp(mems[r].created) for r in reps])
        groups = near.groups
        plan.possible_updates.extend(near.held_apart)
    # Keys: exact duplicates with different keys stay apart too.
    merged_away: set[str] = set()
    survivors: dict[str, Memory] = {}
    group_updated: dict[str, float] = {}
    group_top: dict[int, Memory] = {}
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
        group = survivor_first([_full(svc, m, blobs, light) for m in group])
        top, rest = group[0], group[1:]
        merged = merge_memories(top, rest, keys)
        survivors[top.id] = merged
        group_top[root] = merged
        group_updated[top.id] = max(max(weighing.timestamp(m.updated), weighing.timestamp(m.created)) for m in group)
        merged_away |= {m.id for m in rest}
        # Recalls of the merged copies count for the survivor.
        uses = [counts.get(m.id, (0, 0)) for m in group]
        counts[top.id] = (sum(n for n, _ in uses), max(t for _, t in uses))
        kind = "exact" if len({_norm(m.text) for m in group}) == 1 else "near"
        entry: dict[str, Any] = {"survivor": top.id, "merged": [m.id for m in rest], "kind": kind}
        if kind == "near":
            us = sorted(set(members))
            entry["cosine"] = round(float((vecs[us] @ vecs[us].T).min()), 4)
        plan.merges.append(entry)

    # Updates: a later memory with a change cue supersedes an earlier similar one.
    superseded: dict[str, str] = {}
    if pairs:
        root_of = [groups.find(u) for u in range(len(units))]
        items = []
        for u in range(len(units)):
            m = group_top.get(root_of[u]) or mems[reps[u]]
            items.append(updates.Item(m.id, simplified(m.text), weighing.timestamp(m.created), m.key))
        cross = [(s, a, b) for s, a, b in pairs if items[a].id != items[b].id]
        for p in updates.update_pairs(items, cross, update_th, strong_th):
            if p.get("held"):
                plan.possible_updates.append({"a": p["old"], "b": p["by"], "cosine": p["cosine"],
                                              "why": f"'{p['cue']}' would replace several memories"})
                continue
            if p["old"] in superseded or p["by"] in superseded:
                continue
            superseded[p["old"]] = p["by"]
            plan.supersessions.append(p)
    by_id = {m.id: m for m in mems} if superseded else {}
    for old, new in superseded.items():
        base = survivors.get(new) or _full(svc, by_id[new], blobs, light)
        if old not in base.supersedes:
            survivors[new] = base.with_(supersedes=(*base.supersedes, old), updated=model.now_iso())

    # 2. Decay.
    below = float(setting(cfg, "archive_below"))
    protect = int(setting(cfg, "protect_importance"))
    live: list[Memory] = []
    for m in mems:
        if m.id in merged_away:
            continue
        cur = survivors.get(m.id, m)
        w = weighing.weight(cfg, cur, counts, now, updated=group_updated.get(m.id))
        if m.id in superseded:
            plan.archive.append({"id": m.id, "weight": round(w, 3), "summary": cur.summary,
                                 "importance": cur.importance, "superseded_by": superseded[m.id]})
            continue
        if w < below and cur.importance < protect:
            plan.archive.append({"id": m.id, "weight": round(w, 3), "summary": cur.summary,
                                 "importance": cur.importance})
            continue
        live.append(cur)
    archived = {a["id"] for a in plan.archive}

    # 3. The change set.
    changes: dict[str, Change] = {}
    for m in mems:
        if m.id in merged_away:
            changes[m.path] = None
    for mid, merged in survivors.items():
        changes[merged.path] = model.render(merged)
        if merged.key and svc.key_id(tip, merged.key) != mid:
            changes[key_path(merged.key)] = (mid + "\n").encode()
    for m in mems:
        if m.id in archived:
            body = changes.pop(m.path, None)
            changes[m.path] = None
            dest = model.memory_path(m.id, m.type, "archive")
            if body is None:
                changes[dest] = Keep(blobs[m.path])  # a move keeps the blob id
            else:
                changes[dest] = body
    md, nlines = render_memory_md(cfg, scope, succession.current_in(live))  # only the current ones
    plan.memory_md, plan.memory_md_lines = md, nlines
    current_md = svc.git.read(tip, MEMORY_MD)
    if current_md != md and (live or current_md is not None):  # no index for a scope without memories
        changes[MEMORY_MD] = md
        plan.memory_md_changed = True
    plan.changes = changes if (plan.merges or plan.archive or plan.memory_md_changed) else {}
    if len(plan.possible_updates) > POSSIBLE_UPDATES_SHOWN:
        plan.possible_updates_total = len(plan.possible_updates)
        plan.possible_updates = plan.possible_updates[:POSSIBLE_UPDATES_SHOWN]
    else:
        plan.possible_updates_total = len(plan.possible_updates)
    plan.ids = sorted({e["survivor"] for e in plan.merges} | merged_away | archived | set(superseded.values()))
    return plan


def read_memories(svc: Memories, scope: str, tip: Rev) -> tuple[list[Memory], dict[str, str], set[str]]:
    """The scope's live memories at `tip`, their blob ids by path, and the ids read
    light: the index's catalog gives every field but the text (no front matter parsed),
    the blob its body; a file the catalog does not know at this blob (or no index file
    yet, or a catalog that is off or busy) is parsed whole. `_full` parses a light one when a plan rewrites it."""
    from gitmem.index import index_path

    blobs = dict(svc.memory_files(tip))
    known: dict[str, Any] = {}
    if blobs and index_path(svc.home).exists():  # a dream (or a dry run) builds no index of its own
        for e in svc.entries([scope]) or ():
            if blobs.get(e.path) == e.blob:
                known[e.path] = e
    mems: list[Memory] = []
    light: set[str] = set()
    for path, oid in blobs.items():
        data = svc.git.blob(oid, path)
        e = known.get(path)
        if e is None:
            mem = model.parse(data, path=path)
        else:
            body = model.split_front_matter(data.decode("utf-8", errors="replace"), parse=False)[1]
            mem = e.stub().with_(text=body)
            light.add(mem.id)
        mems.append(mem.with_(scope=scope, path=path, commit=tip.id))
    return mems, blobs, light


def _full(svc: Memories, m: Memory, blobs: dict[str, str], light: set[str]) -> Memory:
    """`m` with every field of its file (links, source ...), for a memory a plan rewrites."""
    if m.id not in light:
        return m
    whole = model.parse(svc.git.blob(blobs[m.path], m.path), path=m.path)
    return whole.with_(scope=m.scope, path=m.path, commit=m.commit)


def _vectors(svc: Memories, scope: str, embedder: Any, mems: list[Memory], plan: Plan) -> Any:
    """Embeddings of the memories' texts: from a warm index of the same model when it
    has them (re-embedding a large scope with a real model costs seconds), else fresh."""
    import numpy as np

    known: dict[str, Any] = {}
    try:
        from gitmem.index import Index, index_path

        # Only where the index embedded exactly the text: one chunk, no tags appended
        # (so a warm and a cold index give the same plan).
        plain = [m.id for m in mems if not m.tags and len(m.text) <= 1000 and m.text.count("\n") < 20]
        if plain and index_path(svc.home).exists():
            ix = Index(svc.home, svc.git, svc.config, embedder)
            try:
                known = ix.vectors_for(plain, scopes=[scope])
            finally:
                ix.close()
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


def merge_memories(top: Memory, rest: list[Memory], keys: set[str]) -> Memory:
    """`top` with the others merged in: their tags, links and ids (`supersedes`), the
    highest importance, the earliest `created`."""
    tags = list(top.tags)
    for m in rest:
        tags += [t for t in m.tags if t not in tags]
    created = [c for c in (m.created for m in [top, *rest]) if c]
    earliest = min(created, key=weighing.timestamp) if created else top.created
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


