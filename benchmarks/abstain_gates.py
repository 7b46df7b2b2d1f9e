"""Issue 19, offline, from an `abstain.py --set every --dump FILE` dump (no store rebuilt):

- `--refit [PARTS] [--known]`: CJK_FORM refitted (abstain.fit_gate, placed by the same
  anchors) on FORM_PARTS plus PARTS (comma-separated), optionally with the query's `known`
  share as another term; per tuning part, the prompt figures at the shipped gate, at the
  refit one and at one fitted without that part, and how many parts meet all three
  PROMPT_TARGETS. Only the cjk side's hits are re-scored; hybrid hits keep their dumped
  relevance (the gate changed here is the Chinese one).
- `--names`: English questions that name a capitalised word (not a month or weekday) the
  asker's store never says, by kind of question and by what the prompt path showed.
- `--meaning`: where the prompt path filled, the best cosine against the top hit's relevance
  for telling on-topic English questions from other conversations' (relevance.MEANING_GATE).
- `--zh-gate`: a Chinese prompt gate over the store's best coverage or the query's known
  share, on a grid of thresholds: the parts meeting all three PROMPT_TARGETS (zh_gate).

    .venv/bin/python benchmarks/abstain.py --set every --dump /tmp/every.json
    .venv/bin/python benchmarks/abstain_gates.py /tmp/every.json --refit held_out29,held_out30,held_out31,held_out32,held_out33 --known
    .venv/bin/python benchmarks/abstain_gates.py /tmp/every.json --names
    .venv/bin/python benchmarks/abstain_gates.py /tmp/every.json --zh-gate
"""

from __future__ import annotations

import argparse
import collections
import json
import re
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT))

import abstain as A  # noqa: E402
from gitmem.core.calendar import MONTHS, WEEKDAYS  # noqa: E402
from gitmem.recall import relevance as R  # noqa: E402

FIGURES = ("unrelated empty", "other empty", "evidence kept")


def _view(r: dict) -> R.QueryView:
    v = r["view"]
    return R.QueryView(known=v["known"], top_cov=v["top_cov"], top_cos=v["top_cos"], run=v.get("run", 0.0),
                       vectors=True, own=v.get("own", 0.0), general=v.get("general", 0.0))


def _gate(beta: np.ndarray, terms: tuple[str, ...]) -> R.Model:
    return R.Model(float(beta[0]), **{f"w_{t}": float(x) for t, x in zip(terms, beta[1:])})


def _rescore(rows: list[dict], gate: R.Model | None) -> None:
    """Each cjk hit's relevance with `gate` as CJK_FORM (None: as dumped)."""
    for r in rows:
        if r["side"] != "cjk":
            continue
        view = _view(r)
        cap = 1.0 if gate is None or view.top_cov >= R.FORM_COVERAGE else gate(0.0, 0.0, view)
        for h in r["hits"]:
            h.setdefault("p_dumped", h["p"])
            h.setdefault("p_ungated", R.relevance("cjk", h.get("cov", 0.0), h.get("cos", 0.0), view, form=False))
            h["p"] = h["p_dumped"] if gate is None else min(h["p_ungated"], cap)


def refit(rows: list[dict], extra: tuple[str, ...], known: bool) -> str:
    terms = A.FORM_TERMS + (("known",) if known else ())
    parts = A.FORM_PARTS + extra
    cjk = [r for r in rows if r["side"] == "cjk"]
    floor = float(A.SCHEMA_DEFAULT("prompt_min_relevance"))
    new = _gate(A.fit_gate([r for r in cjk if r["part"] in parts], terms, A.FORM_PROMPT_QUANTILE)[0], terms)
    out = [f"refit: {new}", "", "| part | shipped (both) | refit (both) | left out (both) | shipped (zh) | refit (zh) |",
           "|---|---|---|---|---|---|"]
    met = collections.Counter()
    fmt = lambda f: " / ".join(f"{f[k]:.2f}" for k in FIGURES)  # noqa: E731
    for part in sorted({r["part"] for r in rows}, key=lambda p: (len(p), p)):
        rs = [r for r in rows if r["part"] == part]
        if not {"on_topic", "other", "unrelated"} <= {r["kind"] for r in rs}:
            continue
        zh = [r for r in rs if r["lang"] == "zh"]
        got = {}
        for name, gate in (("shipped", None), ("refit", new),
                           ("left out", _gate(A.fit_gate([r for r in cjk if r["part"] in parts and r["part"] != part],
                                                         terms, A.FORM_PROMPT_QUANTILE)[0], terms))):
            _rescore(rs, gate)
            got[name] = (A.prompt_figures(rs, floor), A.prompt_figures(zh, floor))
            met[name] += all(got[name][0][k] >= v - 1e-9 for k, v in A.PROMPT_TARGETS.items())
        out.append(f"| {part} | {fmt(got['shipped'][0])} | {fmt(got['refit'][0])} | {fmt(got['left out'][0])} "
                   f"| {fmt(got['shipped'][1])} | {fmt(got['refit'][1])} |")
    n = len(out) - 4
    out += ["", f"parts meeting all three targets: shipped {met['shipped']}/{n}, refit {met['refit']}/{n}, "
                f"each left out of its own fit {met['left out']}/{n}"]
    return "\n".join(out)


_NAME = re.compile(r"(?<!^)(?<![.?!]\s)\b[A-Z][a-zA-Z'’-]+")


def _store_words() -> dict[tuple[str, str], set[str]]:
    """(part, scope) -> the lower-case words of that English store's turns."""
    out: dict[tuple[str, str], set[str]] = {}
    for f in (ROOT / "tests" / "data").glob("abstain*.json"):
        data = json.loads(f.read_text(encoding="utf-8"))
        store = data["stores"]["en"]
        if isinstance(store, str):
            store = json.loads((ROOT / "tests" / "data" / store).read_text(encoding="utf-8"))
        parts = set(data["nonsense"]) if isinstance(data.get("nonsense"), dict) else set()
        for unrelated in (data.get("unrelated") or {}).values():
            parts |= set(unrelated) if isinstance(unrelated, dict) else set()
        for user in store["users"]:
            words = {w for s in user["sessions"] for t in s["turns"] for w in re.findall(r"[a-z0-9]+", t["text"].lower())}
            for part in parts:
                out[(part, f"channel/{user['user']}")] = words
    return out


def names(rows: list[dict]) -> str:
    known = _store_words()
    skip = {w.capitalize() for w in (*MONTHS, *WEEKDAYS)} | {"I", "I'm", "I've", "I'd", "I'll"}
    floor = float(A.SCHEMA_DEFAULT("prompt_min_relevance"))
    counts: collections.Counter = collections.Counter()
    for r in rows:
        if r["lang"] != "en" or (r["part"], r["scope"]) not in known:
            continue
        words = known[(r["part"], r["scope"])]
        unknown = [n for n in _NAME.findall(r["q"]) if n not in skip
                   and not set(re.findall(r"[a-z0-9]+", re.sub(r"['’]s$", "", n.lower()))) <= words]
        shown = [h for h in r["hits"] if h["p"] >= floor and (h.get("score") or 0.0) >= 0.2][:3]
        what = "evidence shown" if any(h["evidence"] for h in shown) else "shown" if shown else "empty"
        counts[(r["kind"], what, bool(unknown))] += 1
    out = ["| question | prompt | with a name the store never says | without |", "|---|---|---|---|"]
    for kind, what in sorted({(k, w) for k, w, _ in counts}):
        out.append(f"| {kind} | {what} | {counts[(kind, what, True)]} | {counts[(kind, what, False)]} |")
    return "\n".join(out)


def meaning(rows: list[dict]) -> str:
    """Among English questions the prompt path filled (an on-topic one with its evidence shown,
    another conversation's with anything shown), the ROC area of the store's best cosine
    (top_cos) and of the top hit's relevance for telling them apart (MEANING_GATE's case)."""
    en = [r for r in rows if r["lang"] == "en"]
    on = [r for r in en if r["kind"] == "on_topic" and r["shipped"]["prompt_evidence"]]
    other = [r for r in en if r["kind"] == "other" and r["shipped"]["prompt"] > 0]
    cos = A.auc([r["view"]["top_cos"] for r in on], [r["view"]["top_cos"] for r in other])
    rel = A.auc([A.top(r) for r in on], [A.top(r) for r in other])
    return (f"{len(on)} on-topic with evidence shown, {len(other)} other-conversation filled: "
            f"ROC area of the best cosine {cos:.3f}, of the top hit's relevance {rel:.3f}")


def zh_gate(rows: list[dict]) -> str:
    """A Chinese prompt gate over the store's best coverage or the query's known share: a cjk
    question passes when top_cov >= a or known >= b, else each hit is held under the prompt
    floor; the parts meeting all three PROMPT_TARGETS, best first, against no gate (a = 0)."""
    floor = float(A.SCHEMA_DEFAULT("prompt_min_relevance"))
    parts = [p for p in dict.fromkeys(r["part"] for r in rows)
             if {"on_topic", "other", "unrelated"} <= {r["kind"] for r in rows if r["part"] == p}]

    def met(a: float, b: float) -> tuple[int, dict[str, float]]:
        rs = [r if r["side"] != "cjk" or r["view"]["top_cov"] >= a or r["view"]["known"] >= b
              else dict(r, hits=[dict(h, p=min(h["p"], floor - 0.01)) for h in r["hits"]]) for r in rows]
        n = sum(all(A.prompt_figures([r for r in rs if r["part"] == p], floor)[k] >= v - 1e-9
                    for k, v in A.PROMPT_TARGETS.items()) for p in parts)
        return n, A.prompt_figures([r for r in rs if r["lang"] == "zh"], floor)

    grid = [(a, b) for a in (0.05, 0.08, 0.1, 0.12, 0.15, 0.2, float("inf"))
            for b in (0.3, 0.4, 0.5, 0.6, 0.7, 0.8, float("inf"))]
    out = [f"parts: {len(parts)}; without a gate {met(0.0, 0.0)[0]} meet all three",
           "| top_cov >= | or known >= | parts meeting all three | zh: unrelated / other / evidence |",
           "|---|---|---|---|"]
    for (n, f), (a, b) in sorted(((met(a, b), (a, b)) for a, b in grid), key=lambda x: -x[0][0])[:10]:
        out.append(f"| {a:g} | {b:g} | {n} | {f['unrelated empty']:.3f} / {f['other empty']:.3f} / {f['evidence kept']:.3f} |")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dump", help="a file written by abstain.py --set every --dump")
    ap.add_argument("--refit", nargs="?", const="", default=None, metavar="PARTS",
                    help="refit CJK_FORM on FORM_PARTS and these parts (comma-separated)")
    ap.add_argument("--known", action="store_true", help="with --refit: the query's known share as another term")
    ap.add_argument("--names", action="store_true", help="English questions naming what their store never says")
    ap.add_argument("--zh-gate", action="store_true", help="a Chinese prompt gate over best coverage or known share")
    ap.add_argument("--meaning", action="store_true", help="best cosine against relevance where the prompt filled")
    args = ap.parse_args(argv)
    rows = json.loads(Path(args.dump).read_text(encoding="utf-8"))
    if args.refit is None and not (args.names or args.zh_gate or args.meaning):
        ap.error("say --refit, --names, --zh-gate or --meaning")
    if args.refit is not None:
        print(refit(rows, tuple(p for p in args.refit.split(",") if p), args.known))
    if args.names:
        print(names(rows))
    if args.zh_gate:
        print(zh_gate(rows))
    if args.meaning:
        print(meaning(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
