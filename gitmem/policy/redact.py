"""Secret detection and redaction. Pure functions: text in, text and findings out.

The rules are data (rules.py: read from the detect-secrets library and gitmem's own
file). Per rule: `keywords` are a cheap prefilter (a rule's regex runs only on text that
holds one of them, case-insensitively), the secret is the rule's `secretGroup` (else the
first non-empty group, else the whole match), `entropy` is the Shannon entropy it must
exceed, and allowlists (regexes on the secret, the match or the line; stopwords) let a
finding go. A library regex tells where a token is, not always where it ends (a Stripe
key longer than the plugin expects, a JWT whose signature the lazy pattern leaves out): a
finding it makes outside a group is widened to the whole token it sits in. Overlapping
findings merge into one, named after the most specific rule. Library rules run on each
line alone, as the plugins do (a long line in overlapping windows); gitmem's rules run on
the whole text (a private key block spans lines). An optional high-entropy check
(`[redact] entropy`) catches long random runs."""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass
from typing import Any, Iterable

from gitmem.policy.rules import Rule, ruleset

PLACEHOLDER = "[REDACTED:{kind}]"

_PLACEHOLDER_RE = re.compile(r"\[REDACTED:[\w.-]*\]")


# ---- detection -------------------------------------------------------------------------

# Candidate high-entropy strings: long runs of token characters.
_CANDIDATE = re.compile(r"[A-Za-z0-9+/=_\-]{32,}")
_HEX = re.compile(r"^[0-9a-fA-F]+$")
_UUIDISH = re.compile(r"^[0-9a-fA-F-]+$")
# What comes right before a run that is data, not a secret: a data URI's payload, a
# go.sum / Subresource Integrity hash.
_DATA_BEFORE = re.compile(r"(?:;base64,|\bh1:|\bsha(?:256|384|512)-)$")
_WORDISH = re.compile(r"[A-Z]?[a-z]{2,}|[A-Z]{2,}(?![a-z])")
# What a token is made of, for widening a library finding to the whole token.
_TOKEN_CHARS = re.compile(r"[A-Za-z0-9_\-+=.]*")
_TOKEN_SET = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-+=.")
_TRIM = " \t\r\n\"'`=:,;"
# Library rules see a long line in overlapping windows: some of their patterns (a keyword,
# then `\w*`) cost time quadratic in the length of an unbroken run, and a 200 KB blob of
# base64 took 18 s whole. A token shorter than the overlap lies wholly in some window.
_WINDOW, _OVERLAP = 2048, 512


@dataclass(frozen=True)
class Finding:
    kind: str
    start: int
    end: int

    def to_dict(self, field: str | None = None) -> dict[str, Any]:
        d: dict[str, Any] = {"kind": self.kind}
        if field:
            d["field"] = field
        return d


def _entropy(s: str) -> float:
    counts = Counter(s)
    n = len(s)
    return -sum(c / n * math.log2(c / n) for c in counts.values())


def _looks_random(s: str) -> bool:
    core = s.strip("=")
    if len(core) < 32 or _HEX.match(core) or _UUIDISH.match(core):
        return False  # commit ids, hashes and UUIDs are references, not secrets
    classes = sum(bool(re.search(p, core)) for p in ("[a-z]", "[A-Z]", "[0-9]"))
    if classes < 3:
        return False
    if "/" in core and core.count("/") >= 2 and not re.search(r"[0-9]", core.split("/")[-1]):
        return False  # path-like
    if sum(len(w) for w in _WORDISH.findall(core)) >= 0.6 * len(core):
        return False  # an identifier, a branch or test name: words, joined
    return _entropy(core) >= 4.2


def _line(text: str, a: int, b: int) -> str:
    start = text.rfind("\n", 0, a) + 1
    end = text.find("\n", b)
    return text[start: len(text) if end < 0 else end]


def secret_span(rule: Rule, m: re.Match[str]) -> tuple[int, int]:
    """Where the secret is in a match of `rule`: its secretGroup, else the first non-empty
    group (unless that is only a leading prefix such as `(ghp|gho)_`), else the match; a
    library finding outside a group is widened to its whole token, then trimmed of
    surrounding spaces, quotes and separators."""
    ngroups = m.re.groups or 0
    if rule.secret_group and rule.secret_group <= ngroups:
        return m.span(rule.secret_group)
    a, b = m.span()
    grouped = False
    for g in range(1, ngroups + 1):
        ga, gb = m.span(g)
        if gb > ga >= 0:
            if not (ga == a and (b - gb) > (gb - ga)):
                a, b, grouped = ga, gb, True
            break
    text = m.string
    while a < b and text[a] in _TRIM:
        a += 1
    while b > a and text[b - 1] in _TRIM:
        b -= 1
    if rule.widen and not grouped and b > a:
        while a > 0 and text[a - 1] in _TOKEN_SET:
            a -= 1
        b = _TOKEN_CHARS.match(text, b).end()
        while b > a and text[b - 1] == ".":
            b -= 1  # a full stop after the token
    return a, b


def _consider(rule: Rule, m: re.Match[str], text: str, offset: int, ok, raw: list[tuple[int, int, int, str]]) -> None:
    """Add the finding of match `m` (in `text`, which starts at `offset` of the whole) to
    `raw` unless its secret is empty, too plain for the rule's entropy or allowlisted."""
    a, b = secret_span(rule, m)
    secret = text[a:b]
    if not secret.strip():
        return
    if rule.entropy and _entropy(secret) <= rule.entropy:
        return
    if rule.allowlists and any(al.allows(secret, m.group(0), _line(text, *m.span())) for al in rule.allowlists):
        return
    if ok(a + offset, b + offset, secret):
        raw.append((a + offset, b + offset, rule.priority, rule.kind))


def find_secrets(text: str, allow: Iterable[str] = (), entropy: bool = True) -> list[Finding]:
    """All secret spans in `text` (overlapping findings merged), minus allowlisted ones."""
    allow_res = [re.compile(a) for a in allow]
    rs = ruleset()
    marks = [m.span() for m in _PLACEHOLDER_RE.finditer(text)] if "[REDACTED:" in text else []

    def ok(a: int, b: int, secret: str) -> bool:
        if any(not (b <= x or a >= y) for x, y in marks):
            return False  # inside an earlier redaction's placeholder
        return not any(r.search(secret) for r in allow_res)

    raw: list[tuple[int, int, int, str]] = []
    lower = text.lower()
    lines: list[tuple[int, str, str]] | None = None
    for rule in rs.candidates(lower):
        if not rule.per_line:
            for m in rule.rx.finditer(text):
                _consider(rule, m, text, 0, ok, raw)
            continue
        if lines is None:
            lines, pos = [], 0
            for ln in text.split("\n"):
                for off in range(0, max(1, len(ln) - _OVERLAP), _WINDOW - _OVERLAP):
                    piece = ln[off: off + _WINDOW]
                    lines.append((pos + off, piece, piece.lower()))
                pos += len(ln) + 1
        for start, ln, low in lines:
            if rule.keywords and not any(k in low for k in rule.keywords):
                continue
            for m in rule.rx.finditer(ln):
                _consider(rule, m, ln, start, ok, raw)
    if entropy:
        for m in _CANDIDATE.finditer(text):
            a, b = m.span()
            if any(not (b <= x or a >= y) for x, y, _, _ in raw):
                continue
            if _DATA_BEFORE.search(text, max(0, a - 8), a) or not _looks_random(m.group()):
                continue
            if ok(a, b, m.group()):
                raw.append((a, b, 9, "high-entropy"))
    return _merge(raw)


def _merge(raw: list[tuple[int, int, int, str]]) -> list[Finding]:
    """Overlapping spans become one, named after its most specific rule."""
    out: list[Finding] = []
    raw.sort()
    cur: list[Any] | None = None
    for a, b, pri, kind in raw:
        if cur is not None and a < cur[1]:
            cur[1] = max(cur[1], b)
            if pri < cur[2]:
                cur[2], cur[3] = pri, kind
            continue
        if cur is not None:
            out.append(Finding(cur[3], cur[0], cur[1]))
        cur = [a, b, pri, kind]
    if cur is not None:
        out.append(Finding(cur[3], cur[0], cur[1]))
    return out


def redact(text: str, allow: Iterable[str] = (), entropy: bool = True) -> tuple[str, list[Finding]]:
    """Replace every secret with `[REDACTED:<kind>]`; returns (new text, findings)."""
    found = find_secrets(text, allow, entropy)
    if not found:
        return text, []
    out: list[str] = []
    pos = 0
    for f in found:
        out.append(text[pos: f.start])
        out.append(PLACEHOLDER.format(kind=f.kind))
        pos = f.end
    out.append(text[pos:])
    return "".join(out), found


class Redactor:
    """Redacts values of any shape (str, list, dict) and remembers what it found."""

    def __init__(self, allow: Iterable[str] = (), entropy: bool = True):
        self.allow = list(allow)
        self.entropy = entropy
        self.findings: list[dict[str, Any]] = []

    def text(self, value: str, field: str) -> str:
        new, found = redact(value, self.allow, self.entropy)
        self.findings.extend(f.to_dict(field) for f in found)
        return new

    def value(self, value: Any, field: str) -> Any:
        if isinstance(value, str):
            return self.text(value, field)
        if isinstance(value, (list, tuple)):
            return type(value)(self.value(v, field) for v in value)
        if isinstance(value, dict):
            return {self.text(str(k), field) if isinstance(k, str) else k: self.value(v, f"{field}.{k}")
                    for k, v in value.items()}
        return value
