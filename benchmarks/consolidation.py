"""Memory that stays current (issue 22) on tests/data/consolidation.json, real model.

The set (committed before anything was measured on it): `updates` (an older statement,
the newer one that replaces it, a question whose answer is the newer), `clusters`
(paraphrases of one fact), `lookalikes` (two true facts of the same shape), `unrelated`
notes; every item dated, `part` tuning (even index) or heldout (odd). Every memory is
imported into one store with its `created` date; then each STAGE runs in turn on that
store and every METRIC is reported per part and language.

    .venv/bin/python benchmarks/consolidation.py [--model-path DIR] [--part heldout]
    .venv/bin/python benchmarks/consolidation.py --data tests/data/consolidation_v2.json
    .venv/bin/python benchmarks/consolidation.py --set v3 --part heldout3
    .venv/bin/python benchmarks/consolidation.py --set v4   # the fourth held-out half (heldout4)
    .venv/bin/python benchmarks/consolidation.py --set v8 --why   # heldout8, the updates missed listed
    GITMEM_TREE=/tmp/old .venv/bin/python benchmarks/consolidation.py --set v8   # another tree (git archive)

`--data` takes any set in this format (tests/data/consolidation_v2.json: the second
held-out half, part `heldout2`, imported into a store of its own); the columns are the
parts the set has.

Rows are easy to add:
- a stage is `(name, fn)`: fn(store, ctx) prepares the store for the rows that follow
  (swap a recall setting, run dream …) and stages run in order on one store, so a
  "after dream" stage goes after the recall-only ones;
- a metric is `(name, fn)`: fn(store, ctx, items) -> (hits, total) over the items of one
  part and language (ctx["updates"], ctx["clusters"], … hold the set's items with the
  ids they got: item["ids"] for clusters and lookalikes, item["older_id"] /
  item["newer_id"] for updates). A metric that does not apply to a kind returns (0, 0)
  and shows "—".

Metrics here: newer ranked above older for the update's question (k=10; the older one
absent counts as above, the newer one absent as not), newer at rank 1, updates found at
write time (what `remember` reports as possible_updates for the newer text), and false
supersessions: look-alike pairs and unrelated notes that the write-time detection flags
as updating something (lower is better; unrelated notes have no part and count in
every part's row)."""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, os.environ.get("GITMEM_TREE") or str(ROOT))  # the tree to measure (default: this one)

import gitmem  # noqa: E402
from recall_locomo import DEFAULT_MODEL, set_recall  # noqa: E402

DATA = ROOT / "tests" / "data" / "consolidation.json"
# Every set by its suffix: v1 is consolidation.json, vN consolidation_vN.json (as dream_consolidation.py's --set).
SETS = {"v1": DATA} | {p.stem.split("_")[1]: p for p in sorted(DATA.parent.glob("consolidation_v*.json"))}
K = 10


def load(store, data: dict) -> dict[str, Any]:
    """Import every item with its date; the set's items with the ids they got."""
    items: list[dict] = []
    for u in data["updates"]:
        items += [{"text": u["older"]["text"], "created": u["older"]["created"]},
                  {"text": u["newer"]["text"], "created": u["newer"]["created"]}]
    for kind in ("clusters", "lookalikes"):
        for c in data[kind]:
            items += [{"text": t, "created": d} for t, d in zip(c["texts"], c["created"])]
    items += [{"text": n["text"], "created": n["created"]} for n in data["unrelated"]]
    # ids in the order given, not looked up by text: a text the store redacts on write
    # ("Our wifi password is hunter22.", consolidation_hand0) is stored otherwise
    created = store.import_items(items).created
    if len(created) != len(items):
        raise SystemExit(f"error: {len(items)} items imported as {len(created)} new memories")
    ids = iter(created)
    ctx: dict[str, Any] = {"updates": [], "clusters": [], "lookalikes": [], "unrelated": []}
    for u in data["updates"]:
        ctx["updates"].append({**u, "older_id": next(ids), "newer_id": next(ids)})
    for kind in ("clusters", "lookalikes"):
        for c in data[kind]:
            ctx[kind].append({**c, "ids": [next(ids) for _ in c["texts"]]})
    ctx["unrelated"] = [{**n, "part": None, "ids": [next(ids)]} for n in data["unrelated"]]
    ctx["mems"] = {m.id: m for m in store.list()}
    return ctx


def _ranks(store, u, hits=None) -> tuple[int | None, int | None]:
    """(newer's rank, older's rank) among the update question's top K (`hits`, when already
    recalled), None where absent."""
    hits = store.recall(u["question"], k=K, record=False) if hits is None else hits
    rank = {h.id: n for n, h in enumerate(hits, 1)}
    return rank.get(u["newer_id"]), rank.get(u["older_id"])


def newer_above_older(store, ctx, items) -> tuple[int, int]:
    ups = items["updates"]
    ok = 0
    for u in ups:
        new, old = _ranks(store, u)
        ok += new is not None and (old is None or new < old)
    return ok, len(ups)


def newer_at_1(store, ctx, items) -> tuple[int, int]:
    ups = items["updates"]
    return sum(_ranks(store, u)[0] == 1 for u in ups), len(ups)


def _flags(store, ctx, mem_id: str) -> list[str]:
    from gitmem.recall import currency

    return [c["id"] for c in currency.detect(store.recaller, ctx["mems"][mem_id])["possible_updates"]]


def updates_found(store, ctx, items) -> tuple[int, int]:
    ups = items["updates"]
    return sum(u["older_id"] in _flags(store, ctx, u["newer_id"]) for u in ups), len(ups)


def false_supersessions(store, ctx, items) -> tuple[int, int]:
    """Look-alike pairs whose later fact is flagged as updating anything, and unrelated
    notes flagged as updating anything."""
    bad = total = 0
    for la in items["lookalikes"]:
        total += 1
        bad += bool(_flags(store, ctx, la["ids"][-1]))
    for n in items["unrelated"]:
        total += 1
        bad += bool(_flags(store, ctx, n["ids"][0]))
    return bad, total


def _prefer_newer(on: bool) -> Callable:
    def stage(store, ctx) -> None:
        set_recall(store, {"prefer_newer": on})
    return stage


STAGES: list[tuple[str, Callable]] = [
    ("recall alone, prefer_newer off (the ranking before issue 22)", _prefer_newer(False)),
    ("recall alone (defaults: prefer_newer on)", _prefer_newer(True)),
    # Dream's rules: merges, and the supersessions it is confident of (archived older).
    ("after dream --force (defaults)", lambda store, ctx: store.dream(force=True)),
]
METRICS: list[tuple[str, Callable]] = [
    ("newer above older", newer_above_older),
    ("newer at rank 1", newer_at_1),
    ("updates found on write", updates_found),
    ("false supersessions (lower is better)", false_supersessions),
]
# Metrics that do not change with a recall setting run in the first stage only.
ONCE = {"updates found on write", "false supersessions (lower is better)"}


def parts_of(data: dict) -> list[str]:
    """The set's parts in the order they first appear (unrelated notes have none)."""
    seen = [x["part"] for kind in ("updates", "clusters", "lookalikes") for x in data[kind] if x.get("part")]
    return list(dict.fromkeys(seen))


def select(ctx, part: str, lang: str) -> dict[str, list]:
    out = {}
    for kind in ("updates", "clusters", "lookalikes", "unrelated"):
        out[kind] = [x for x in ctx[kind] if x.get("lang") == lang and x.get("part") in (part, None)]
    return out


def misses(store, ctx, parts: list[str]) -> list[str]:
    """The updates whose newer statement is not ranked above the older one (--why)."""
    out = []
    for u in ctx["updates"]:
        if u.get("part") not in parts:
            continue
        hits = store.recall(u["question"], k=K, record=False)
        new, old = _ranks(store, u, hits)
        if new is None or (old is not None and old < new):
            out.append(f"  {u['id']}: newer at {new}, older at {old} | {u['question']} | older: {u['older']['text']}"
                       f" | newer: {u['newer']['text']}")
        elif new != 1:  # above the older one, not at rank 1: what is above it
            out.append(f"  {u['id']}: newer at {new}, not first | {u['question']} | first: {hits[0].text} | newer: "
                       f"{u['newer']['text']}")
    return out


def run(store, ctx, parts: list[str], langs=("en", "zh"), why: bool = False) -> str:
    model = store.recaller.embedder().model_id if store.recaller.embedder() else "none"
    lines = [f"gitmem from `{Path(gitmem.__file__).parent}`, model `{model}`, k={K}", ""]
    head = [f"{p} {lang}" for p in parts for lang in langs]
    lines += ["| stage | metric | " + " | ".join(head) + " |", "|---|---|" + "---|" * len(head)]
    notes: list[str] = []
    for n, (stage_name, prepare) in enumerate(STAGES):
        prepare(store, ctx)
        if why:
            notes += [f"{stage_name}: newer not above older"] + misses(store, ctx, parts)
        for name, fn in METRICS:
            if name in ONCE and n > 0:
                continue
            cells = []
            for p in parts:
                for lang in langs:
                    hit, tot = fn(store, ctx, select(ctx, p, lang))
                    cells.append("—" if not tot else f"{hit / tot:.2f} ({hit}/{tot})")
            lines.append(f"| {stage_name} | {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines + ([""] + notes if notes else []))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model-path", default=str(DEFAULT_MODEL))
    ap.add_argument("--data", default=str(DATA))
    ap.add_argument("--set", choices=sorted(SETS), help="A set by name (v3: consolidation_v3.json); overrides --data.")
    ap.add_argument("--part", default="all",
                    help="A part of the set (tuning, heldout, heldout2 ...) or `all` (every part it has).")
    ap.add_argument("--why", action="store_true", help="list, per stage, the updates whose newer is not above the older, or not first")
    args = ap.parse_args(argv)
    os.environ.setdefault("GITMEM_FSYNC", "0")
    data = json.loads(Path(SETS[args.set] if args.set else args.data).read_text(encoding="utf-8"))
    home = Path(tempfile.mkdtemp(prefix="gitmem-consolidation-"))
    conf = {"embed": {"path": args.model_path}} if args.model_path else None
    store = gitmem.init(home, overrides=conf)
    ctx = load(store, data)
    parts = parts_of(data) if args.part in ("all", "both") else [args.part]
    print(run(store, ctx, parts, why=args.why))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
