"""Redaction: recall, false positives and cost per KB of the rules gitmem ships (the
detect-secrets plugins' regexes read from the installed library, plus gitmem's extra
rules) against the hand-written detector they replaced (before), same run, same texts.

The "before" module is gitmem/redact.py at REV (default `main`), read from git, so
both run in this process on the same inputs:
- ordinary: the strings of tests/data/ordinary_text.txt, one redact() call each (a
  memory is short: this is the common case); a string changed is a false positive;
- keyword-dense: prose that names keys, tokens, passwords and access in every line
  (every keyword rule runs), 1 KB per call;
- rule fakes: one generated fake per shipped rule (tests/test_redact_rules.py), each
  in a sentence;
- known formats: the hand-written fakes of tests/known_tokens.py;
- long line: one unbroken 64 KB line of letters and digits (a pasted blob).
Recall is the share of fakes whose secret is gone after redact(). Also the cost of
loading the rules once per process (the CLI pays it on every write): from the cache,
and cold (importing detect-secrets to read its plugins), and for the old module.

    python benchmarks/redact.py [--rev main] [--repeat 5] [--write]
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from gitmem.policy import redact as now  # noqa: E402

# One unbroken 64 KB line (a pasted blob): the worst case for patterns that scan a run.
BLOB = "".join("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"[(i * 7919 + i // 61) % 62]
               for i in range(64 * 1024))
DENSE = ("The deploy window is Tuesday 14:00 UTC; we pin the api key rotation to the token service, "
         "and the secret store lives at /etc/app/config.yaml. They said the access pattern is fine. ") * 6


def old_module(rev: str):
    src = subprocess.run(["git", "-C", str(ROOT), "show", f"{rev}:gitmem/redact.py"], capture_output=True,
                         text=True, check=True).stdout
    path = Path(tempfile.gettempdir()) / f"gitmem_redact_{rev.replace('/', '_')}.py"
    path.write_text(src)
    spec = importlib.util.spec_from_file_location(f"redact_{rev.replace('/', '_')}", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


def per_kb(fns, texts: list[str], repeat: int) -> list[float]:
    """Best-of-`repeat` milliseconds per KB of text over all `texts`, for each of `fns`;
    the functions take turns within each repeat, so load on the machine hits both alike."""
    kb = sum(len(t.encode()) for t in texts) / 1024
    best = [float("inf")] * len(fns)
    for _ in range(repeat):
        for i, fn in enumerate(fns):
            t0 = time.perf_counter()
            for t in texts:
                fn(t)
            best[i] = min(best[i], time.perf_counter() - t0)
    return [x * 1000 / kb for x in best]


_PRELOAD = "import gitmem, time, json, hashlib, dataclasses, importlib.util, pathlib, re, math, collections"


def load_ms(cache_dir: str, cold: bool) -> float:
    """Best of 7: a fresh process's first redact(), importing the module included. The
    gitmem package and the standard modules any gitmem command has loaded by then (json,
    hashlib, dataclasses, ...) are imported first, untimed, as for the old module."""
    code = (f"{_PRELOAD}; t=time.perf_counter(); from gitmem.policy import redact; redact.redact('x'); "
            "print((time.perf_counter()-t)*1000)")
    runs = []
    for _ in range(7):
        env = dict(os.environ, XDG_CACHE_HOME=tempfile.mkdtemp() if cold else cache_dir, PYTHONPATH=str(ROOT))
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True,
                             env=env).stdout
        runs.append(float(out))
    return min(runs)


def old_load_ms(rev_path: Path) -> float:
    code = (f"{_PRELOAD}; import importlib.util as u; t=time.perf_counter(); "
            f"s=u.spec_from_file_location('r', {str(rev_path)!r}); "
            "m=u.module_from_spec(s); import sys; sys.modules['r']=m; s.loader.exec_module(m); m.redact('x'); "
            "print((time.perf_counter()-t)*1000)")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return min(float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                                    env=env).stdout) for _ in range(7))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rev", default="main", help="the commit whose redact.py is 'before'")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--write", action="store_true", help="record the table in BENCHMARKS.md")
    args = ap.parse_args()
    from known_tokens import KNOWN
    from test_redact_rules import _ordinary, known_redacted, sample_for, shipped_rules

    old = old_module(args.rev)
    rules = shipped_rules()
    n_lib = sum(r.source == "detect-secrets" for r in rules)
    ordinary = _ordinary()
    samples = [s for s in (sample_for(r) for r in rules) if s]
    known = [text for _, text, _ in KNOWN]
    rows = []
    for name, texts in (("ordinary", ordinary), ("keyword-dense", [DENSE]), ("rule fakes", [s for s, _ in samples]),
                        ("known formats", known), ("long line", [BLOB])):
        b, a = per_kb([old.redact, now.redact], texts, args.repeat)
        rows.append((name, len(texts), sum(len(t.encode()) for t in texts) / len(texts), b, a))
    rule_old = sum(secret not in old.redact(s)[0] for s, secret in samples)
    rule_now = sum(secret not in now.redact(s)[0] for s, secret in samples)
    known_old, _ = known_redacted(old.redact)
    known_now, missed_now = known_redacted(now.redact)
    # The library's rules alone (no extra rules, no entropy check): how much it carries.
    full = now.ruleset()
    now._RULESET = now.RuleSet([r for r in full.rules if r.source == "detect-secrets"])
    known_lib, _ = known_redacted(lambda t: now.redact(t, entropy=False))
    rule_lib = sum(secret not in now.redact(s, entropy=False)[0] for s, secret in samples)
    now._RULESET = full
    fp_old = sum(bool(old.find_secrets(t)) for t in ordinary)
    fp_now = sum(bool(now.find_secrets(t)) for t in ordinary)
    warm_cache = tempfile.mkdtemp()
    load_ms(warm_cache, cold=False)  # fills the cache
    old_path = Path(tempfile.gettempdir()) / f"gitmem_redact_{args.rev.replace('/', '_')}.py"

    import detect_secrets  # noqa: F401
    from importlib.metadata import version

    def share(k: int, n: int) -> str:
        return f"{k}/{n} ({k / n:.0%})"

    lines = ["| texts | n | bytes each | before ms/KB | now ms/KB | ratio |", "|---|---|---|---|---|---|"]
    for name, n, size, b, a in rows:
        lines.append(f"| {name} | {n} | {size:.0f} | {b:.3f} | {a:.3f} | {a / b:.2f}x |")
    lines += ["",
              f"Rules now: {len(rules)} — {n_lib} regexes from detect-secrets {version('detect-secrets')} plugins, "
              f"{len(rules) - n_lib} gitmem extra rules — plus the high-entropy check. Before: the hand-written "
              f"detector at `{args.rev}`.  ",
              f"Recall, one generated fake per shipped rule: before {share(rule_old, len(samples))}, now "
              f"{share(rule_now, len(samples))} (detect-secrets rules alone: {share(rule_lib, len(samples))}).  ",
              f"Recall, hand-written fakes of well-known formats (tests/known_tokens.py): before "
              f"{share(known_old, len(KNOWN))}, now {share(known_now, len(KNOWN))}"
              f"{' (missed: ' + ', '.join(missed_now) + ')' if missed_now else ''} "
              f"(detect-secrets rules alone: {share(known_lib, len(KNOWN))}).  ",
              f"False positives on {len(ordinary)} ordinary strings: before {fp_old} "
              f"({fp_old / len(ordinary):.1%}), now {fp_now} ({fp_now / len(ordinary):.1%}).  ",
              f"Loading the rules (a fresh process's first redact, module import included): before "
              f"{old_load_ms(old_path):.0f} ms; now {load_ms(warm_cache, cold=False):.0f} ms from the cache, "
              f"{load_ms(warm_cache, cold=True):.0f} ms cold (importing detect-secrets, once per library or gitmem "
              f"version)."]
    text = "\n".join(lines) + "\n"
    print(text)
    if args.write:
        sys.path.insert(0, str(ROOT / "benchmarks"))
        from _report import write_section

        write_section("<!-- redact:begin -->", "<!-- redact:end -->",
                      "`python benchmarks/redact.py --write`\n\n" + text, "Redaction")


if __name__ == "__main__":
    main()
