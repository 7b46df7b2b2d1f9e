"""What `dream` would merge in a store of chat turns (issue 22: no false merge is the hard line).

Each conversation of LoCoMo dev (../shared/data/locomo-dev.json) and each user of
tests/data/en_dialogue.json and zh_dialogue.json is imported turn by turn ("Speaker: text",
dated) into a fresh store of its own; `dream --dry-run` plans once with the real model.
Turns of a chat are different statements: every merge it plans joins turns a careful reader
would keep apart unless they restate one thing (small talk: "Thanks, Maria! Your support
means a lot." twice). Prints, per set, the merges and the turns they would fold into one;
the turns it would mark replaced by a later one; `--show` lists each merge's and each
supersession's texts.

    .venv/bin/python benchmarks/dream_dialogue.py [--show]
    GITMEM_TREE=/tmp/base .venv/bin/python benchmarks/dream_dialogue.py   # another tree
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, os.environ.get("GITMEM_TREE") or str(ROOT))  # the tree to measure (default: this one)

import gitmem  # noqa: E402

DEFAULT_MODEL = ROOT.parent / "shared" / "models" / "all-MiniLM-L6-v2-onnx-int8"
LOCOMO = ROOT.parent / "shared" / "data" / "locomo-dev.json"
REAL = "sentence-transformers/all-MiniLM-L6-v2"


def chats(locomo: Path) -> list[tuple[str, str, list[dict]]]:
    """(set, conversation, items) for every chat: LoCoMo's conversations, the dialogue sets' users."""
    out = []
    for f in ("en_dialogue.json", "zh_dialogue.json"):
        d = json.loads((ROOT / "tests" / "data" / f).read_text())
        for u in d["users"]:
            out.append((f, u["user"], [{"text": t["text"], "created": s["date"]}
                                       for s in u["sessions"] for t in s["turns"]]))
    if locomo.is_file():
        for c in json.loads(locomo.read_text()):
            conv, items = c["conversation"], []
            for k in conv:
                if k.startswith("session_") and not k.endswith("date_time"):
                    items += [{"text": f"{t['speaker']}: {t['text']}", "created": "2023-05-01T10:00:00Z"}
                              for t in conv[k]]
            out.append(("LoCoMo dev", c["sample_id"], items))
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model-path", default=str(DEFAULT_MODEL) if DEFAULT_MODEL.is_dir() else None)
    ap.add_argument("--locomo", default=str(LOCOMO))
    ap.add_argument("--show", action="store_true", help="list the texts of every merge")
    args = ap.parse_args(argv)
    conf = {"embed": {"model": REAL, "path": args.model_path}} if args.model_path else None
    totals: dict[str, list[int]] = {}
    shown = []
    for label, name, items in chats(Path(args.locomo)):
        store = gitmem.init(Path(tempfile.mkdtemp(prefix="gitmem-dd-")), overrides=conf)
        ids = store.import_items(items).created
        text = dict(zip(ids, (i["text"] for i in items)))
        plan = store.dream(dry_run=True)["scopes"]["main"]
        t = totals.setdefault(label, [0, 0, 0, 0, 0])
        t[0] += 1
        t[1] += len(items)
        for m in plan["merges"]:
            members = (m["survivor"], *m["merged"])
            t[2] += 1
            t[3] += len(members)
            shown.append(f"{label} {name}: " + " || ".join(text.get(i, i)[:100] for i in members))
        for s in plan.get("supersessions", []):  # a turn marked replaced by a later one ("cue": why)
            t[4] += 1
            shown.append(f"{label} {name}: {text.get(s['old'], s['old'])[:100]} ==> {text.get(s['by'], s['by'])[:100]} "
                         f"({s.get('cue')})")
    print(f"gitmem from `{Path(gitmem.__file__).parent}`, model `{REAL if args.model_path else 'default'}`, "
          "dream --dry-run, one store per chat\n")
    print("| set | chats | turns | merges planned | turns folded into them | supersessions planned |\n"
          "|---|---|---|---|---|---|")
    for label, (n, turns, merges, folded, sup) in totals.items():
        print(f"| {label} | {n} | {turns} | {merges} | {folded} | {sup} |")
    if args.show:
        print("\n" + "\n".join(shown))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
