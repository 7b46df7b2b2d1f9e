"""What `dream --force` does to the consolidation set (issue 22, items 3 and 4).

tests/data/consolidation.json (committed before anything was measured on it): paraphrase
`clusters`, `lookalikes` (two true facts of one shape), `updates` (an older statement
and the newer one replacing it), `unrelated` notes; every item dated, each group in the
`tuning` or `heldout` part. The whole set is imported, with its dates, into one scope
of a fresh store; dream runs once with the real model; per part and language:

- clusters collapsed: a cluster's texts end as exactly one live memory;
- look-alikes kept: both live, neither merged into nor superseding the other;
- updates superseded: the older is gone from the live store and the newer (or its
  survivor) names it in `supersedes`;
- unrelated touched: unrelated notes merged, superseded or superseding anything.

With `--agent`, first what `dream --plan --json` hands an agent (gitmem.lifecycle.agentplan),
read as if the agent answered every group right: clusters within reach (all of a cluster's
memories joined by the plan's groups, so right answers collapse it to one), look-alikes
shown together (the agent must answer keep: tokens spent, no loss when it does), groups
and the memories they quote (what the agent reads).

    .venv/bin/python benchmarks/dream_consolidation.py [--model-path DIR] [--set dream.KEY=VALUE]
    .venv/bin/python benchmarks/dream_consolidation.py --scale 10000   # dream's time at N memories
    .venv/bin/python benchmarks/dream_consolidation.py --data tests/data/consolidation_v2.json  # heldout2
    .venv/bin/python benchmarks/dream_consolidation.py --set v4 --why  # consolidation_v4.json, misses listed
    GITMEM_TREE=/work/main .venv/bin/python benchmarks/dream_consolidation.py --scale 10000  # another tree

Targets on held-out: clusters collapsed >= 0.80, look-alikes kept 1.00.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, os.environ.get("GITMEM_TREE") or str(ROOT))  # the tree to measure (default: this one)

import gitmem  # noqa: E402

DATA = ROOT / "tests" / "data" / "consolidation.json"
DEFAULT_MODEL = ROOT.parent / "shared" / "models" / "all-MiniLM-L6-v2-onnx-int8"
REAL = "sentence-transformers/all-MiniLM-L6-v2"


def open_store(model_path: str | None, overrides: dict | None = None):
    conf = {sec: dict(v) for sec, v in (overrides or {}).items()}
    if model_path:
        conf.setdefault("embed", {}).update(model=REAL, path=model_path)
    home = Path(tempfile.mkdtemp(prefix="gitmem-dream-"))
    return gitmem.init(home, overrides=conf or None)


def load(store, data: dict) -> dict:
    """Import every text with its date; returns the ids per group."""
    items, where = [], []
    for kind in ("clusters", "lookalikes"):
        for g in data[kind]:
            for t, c in zip(g["texts"], g["created"]):
                items.append({"text": t, "created": c})
                where.append((kind, g["id"]))
    for g in data["updates"]:
        for side in ("older", "newer"):
            items.append({"text": g[side]["text"], "created": g[side]["created"]})
            where.append(("updates", g["id"]))
    for g in data["unrelated"]:
        items.append({"text": g["text"], "created": g["created"]})
        where.append(("unrelated", g["id"]))
    ids = store.import_items(items).created
    out: dict = {}
    for (kind, gid), i in zip(where, ids):
        out.setdefault((kind, gid), []).append(i)
    return out


def tally(rows: dict, part: str, lang: str, metric: str, ok: bool) -> None:
    """Count one item of `part` and `lang` for `metric` (ok or not) in `rows`."""
    r = rows.setdefault((part, lang), {})
    n, k = r.get(metric, (0, 0))
    r[metric] = (n + 1, k + int(ok))


def score(store, data: dict, ids: dict) -> dict:
    every = {m.id: m for m in store.list()}
    sup = {s: m.id for m in every.values() for s in m.supersedes}  # old id -> who names it
    rows: dict = {}

    for g in data["clusters"]:
        live = [i for i in ids[("clusters", g["id"])] if i in every]
        tally(rows, g["part"], g["lang"], "clusters collapsed", len(live) == 1)
    for g in data["lookalikes"]:
        a, b = ids[("lookalikes", g["id"])]
        ok = a in every and b in every and a not in every[b].supersedes and b not in every[a].supersedes
        tally(rows, g["part"], g["lang"], "look-alikes kept", ok)
    for g in data["updates"]:
        old, new = ids[("updates", g["id"])]
        tally(rows, g["part"], g["lang"], "updates superseded", old not in every and sup.get(old) is not None
            and (sup[old] == new or new not in every))
    for g in data["unrelated"]:
        (i,) = ids[("unrelated", g["id"])]
        touched = i not in every or i in sup or bool(every[i].supersedes)
        tally(rows, "all", g["lang"], "unrelated touched", touched)
    return rows


def _group_of(ids: dict) -> dict:
    """Memory id -> the group of the set it states: a cluster, or one fact of a look-alike
    pair or an update (an update's two statements are two facts), or an unrelated note."""
    return {i: (key if key[0] not in ("lookalikes", "updates") else (key, n))
            for key, members in ids.items() for n, i in enumerate(members)}


def false_merges(merges: list, ids: dict) -> int:
    """Merges whose memories come from more than one group of the set (two clusters, a
    look-alike's two facts, an update's two statements, unrelated notes)."""
    group_of = _group_of(ids)
    return sum(len({group_of.get(i) for i in (m["survivor"], *m["merged"])}) > 1 for m in merges)


def false_supersessions(sups: list, ids: dict) -> list[dict]:
    """Supersessions other than an update's older statement by its newer one (or by a
    rewording of one cluster within it): a memory retired by a text of another group."""
    group_of = _group_of(ids)

    def right(s: dict) -> bool:
        a, b = group_of.get(s["old"]), group_of.get(s["by"])
        if a is not None and a[0] == "clusters":
            return a == b
        return a is not None and a[0][0] == "updates" and a[1] == 0 and b == (a[0], 1)
    return [s for s in sups if not right(s)]


def explain(store, data: dict, ids: dict, merges: list, sups: list = ()) -> str:
    """The clusters left at more than one memory, the updates whose older statement is
    live and not superseded by its newer, the false merges and the false supersessions,
    with their texts."""
    from gitmem.lifecycle.updates import cue

    every = {m.id: m for m in store.list()}
    text = {i: t for kind in ("clusters", "lookalikes") for g in data[kind]
            for i, t in zip(ids[(kind, g["id"])], g["texts"])}
    for g in data["updates"]:
        text.update(zip(ids[("updates", g["id"])], (g["older"]["text"], g["newer"]["text"])))
    for g in data["unrelated"]:
        text[ids[("unrelated", g["id"])][0]] = g["text"]
    out = []
    for g in data["clusters"]:
        live = [i for i in ids[("clusters", g["id"])] if i in every]
        if len(live) != 1:
            out.append(f"cluster {g['id']} left {len(live)}: " + " | ".join(every[i].text for i in live))
    for g in data["lookalikes"]:
        pair = ids[("lookalikes", g["id"])]
        gone = [i for i in pair if i not in every]
        named = [i for i in pair if i in every and set(pair) & set(every[i].supersedes)]
        if gone or named:
            why = "superseded or merged" if named else "archived (decay)"
            out.append(f"look-alike {g['id']} lost, {why}: " + " | ".join(g["texts"]))
    sup = {x["old"]: x for x in sups}
    for g in data["updates"]:
        old, new = ids[("updates", g["id"])]
        if sup.get(old, {}).get("by") != new and old in every:
            out.append(f"update {g['id']} not superseded (cue {cue(g['newer']['text'])!r}): "
                       f"{g['older']['text']} -> {g['newer']['text']}")
    group_of = _group_of(ids)
    name = {i: key[1] for key, members in ids.items() for i in members}
    for m in merges:
        members = (m["survivor"], *m["merged"])
        if len({group_of.get(i) for i in members}) > 1:
            out.append("false merge: " + " | ".join(f"[{name[i]}] {text.get(i, i)}" for i in members))
    for x in false_supersessions(sups, ids):
        out.append(f"false supersession: [{name.get(x['old'])}] {text.get(x['old'], x['old'])} -> "
                   f"[{name.get(x['by'])}] {text.get(x['by'], x['by'])} ({x['cue']})")
    return "\n".join(out)


def plan_reach(plan: dict, data: dict, ids: dict) -> dict:
    """The agent's plan read as if every group were answered right (module docstring)."""
    from gitmem.lifecycle.grouping import Groups

    groups = plan["groups"]
    every = list(dict.fromkeys(i for g in groups for i in g["ids"]))
    at = {i: n for n, i in enumerate(every)}
    joined = Groups(len(every))
    for g in groups:
        for i in g["ids"][1:]:
            joined.union(at[g["ids"][0]], at[i])

    def find(x: str) -> int | str:  # a memory in no group is its own
        return joined.find(at[x]) if x in at else x

    rows: dict = {}

    for g in data["clusters"]:
        tally(rows, g["part"], g["lang"], "clusters within reach", len({find(i) for i in ids[("clusters", g["id"])]}) == 1)
    for g in data["lookalikes"]:
        a, b = ids[("lookalikes", g["id"])]
        tally(rows, g["part"], g["lang"], "look-alikes shown together", find(a) == find(b))
    rows["groups"] = (len(groups), sum(len(g["ids"]) for g in groups))
    return rows


def report_reach(rows: dict) -> str:
    n, k = rows.pop("groups")
    table = _table(rows, ("clusters within reach", "look-alikes shown together"),
                   "the agent's plan (`dream --plan --json`), every group answered right")
    return table + f"\n\n{n} group(s) quoting {k} memories"


def report(rows: dict, model: str) -> str:
    return _table(rows, ("clusters collapsed", "look-alikes kept", "updates superseded", "unrelated touched"),
                  f"consolidation set, one scope, `dream --force`, model `{model}`")


def _table(rows: dict, metrics: tuple[str, ...], title: str) -> str:
    out = [title, "", "| part | lang | " + " | ".join(metrics) + " |", "|---|---|" + "---|" * len(metrics)]
    for (part, lang) in sorted(rows):
        r = rows[(part, lang)]
        cells = [f"{r[m][1]}/{r[m][0]} = {r[m][1] / r[m][0]:.2f}" if m in r else "-" for m in metrics]
        out.append(f"| {part} | {lang} | " + " | ".join(cells) + " |")
    return "\n".join(out)


def scale(n: int, model_path: str | None) -> str:
    """Dream's time on a store of `n` dated notes (templated sentences with names,
    numbers and dates, some paraphrased and some updated), with the index warm and cold."""
    rnd = random.Random(7)
    subjects = ["the build cache", "standup", "the staging database", "my manager", "the release branch",
                "backups", "the on-call lead", "the VPN config", "code review", "the coffee machine"]
    verbs = ["is", "lives in", "happens at", "runs on", "moved to", "is now", "needs", "uses"]
    things = ["Lisbon", "Porto", "Postgres 13", "room Aster", "2 approvals", "9:30", "Oct 20", "Jenkins",
              "Loki", "the wiki", "S3 bucket gm-cache", "Helen", "floor two"]
    items = []
    for k in range(n):
        t = f"{rnd.choice(subjects).capitalize()} {rnd.choice(verbs)} {rnd.choice(things)} (note {k % 997})."
        items.append({"text": t, "created": f"2024-{1 + k % 12:02d}-{1 + k % 28:02d}T09:00:00Z"})
    store = open_store(model_path)
    for lo in range(0, n, 2000):
        store.import_items(items[lo:lo + 2000])
    t0 = time.perf_counter()
    plan = store.dream(dry_run=True)["scopes"]["main"]
    t_plan = time.perf_counter() - t0
    store.recall("warm the index")
    store.list(limit=1)  # ... and its catalog, as `context` and `list` keep it
    t0 = time.perf_counter()
    warm = store.dream(dry_run=True)["scopes"]["main"]
    t_warm = time.perf_counter() - t0
    t0 = time.perf_counter()
    done = store.dream(force=True)["scopes"]["main"]
    t_dream = time.perf_counter() - t0
    t0 = time.perf_counter()
    store.undream()
    t_undream = time.perf_counter() - t0
    merged = sum(len(g["merged"]) for g in done["merges"])
    return (f"gitmem from `{Path(gitmem.__file__).parent}`: {n} memories, model `{plan['near_model']}`: plan cold {t_plan:.1f} s (embedded "
            f"{plan['vectors_from'].get('embedded')}), plan warm {t_warm:.1f} s (from index "
            f"{warm['vectors_from'].get('index')}), dream --force {t_dream:.1f} s (merged {merged}, "
            f"superseded {len(done.get('supersessions', []))}, archived {len(done['archive'])}), undream {t_undream:.1f} s")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model-path", default=str(DEFAULT_MODEL) if DEFAULT_MODEL.is_dir() else None)
    ap.add_argument("--data", default=str(DATA))
    ap.add_argument("--set", action="append", default=[], metavar="dream.KEY=VALUE | vN",
                    help="a setting, or a data set by its suffix: v2, v3, v4 = tests/data/consolidation_vN.json")
    ap.add_argument("--why", action="store_true", help="list the clusters left apart, the look-alikes lost, the updates not superseded and the false merges")
    ap.add_argument("--scale", type=int, default=0, help="time dream on a generated store of N memories")
    ap.add_argument("--agent", action="store_true", help="first, what the agent's plan puts within reach")
    args = ap.parse_args(argv)
    if args.scale:
        print(scale(args.scale, args.model_path))
        return 0
    overrides: dict = {}
    for s in args.set:
        if "=" not in s:  # --set v4: the fourth set (same shape as the others)
            args.data = str(DATA.with_name(f"consolidation_{s}.json"))
            continue
        key, value = s.split("=", 1)
        sec, k = key.split(".", 1)
        overrides.setdefault(sec, {})[k] = json.loads(value)
    data = json.loads(Path(args.data).read_text(encoding="utf-8"))
    store = open_store(args.model_path, overrides)
    ids = load(store, data)
    reach = report_reach(plan_reach(store.dream_plan()["scopes"]["main"], data, ids)) if args.agent else None
    out = store.dream(force=True)["scopes"]["main"]
    print(f"gitmem from `{Path(gitmem.__file__).parent}`")
    print(report(score(store, data, ids), out["near_model"]))
    print(f"\nmerged {sum(len(g['merged']) for g in out['merges'])} in {len(out['merges'])} group(s), "
          f"superseded {len(out['supersessions'])}, archived {len(out['archive'])}")
    print(f"false merges (a merge joining texts of two groups of the set): {false_merges(out['merges'], ids)}")
    print(f"false supersessions (a memory superseded by a text of another group): "
          f"{len(false_supersessions(out['supersessions'], ids))}")
    if args.why:
        print(explain(store, data, ids, out["merges"], out["supersessions"]))
    if reach:
        print("\n" + reach)
    return 0


if __name__ == "__main__":
    sys.exit(main())
