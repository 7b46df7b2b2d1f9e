"""Secret detection and redaction. Pure functions: text in, text and findings out."""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass
from typing import Any, Iterable

PLACEHOLDER = "[REDACTED:{kind}]"

# (kind, pattern, group holding the secret or 0). Order matters: specific before generic.
_PATTERNS: list[tuple[str, re.Pattern[str], int]] = [
    ("private-key", re.compile(
        r"-----BEGIN ((?:RSA |EC |DSA |OPENSSH |ENCRYPTED |PGP )?PRIVATE KEY(?: BLOCK)?)-----"
        r"[\s\S]*?(?:-----END \1-----|\Z)"), 0),
    ("aws-access-key", re.compile(r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA)[0-9A-Z]{16}\b"), 0),
    ("github-token", re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b"), 0),
    ("gitlab-token", re.compile(r"\bglpat-[A-Za-z0-9_\-]{20,}\b"), 0),
    ("anthropic-key", re.compile(r"\bsk-ant-[A-Za-z0-9_\-]{20,}"), 0),
    ("openai-key", re.compile(r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}"), 0),
    ("stripe-key", re.compile(r"\b[rsp]k_(?:live|test)_[A-Za-z0-9]{16,}\b"), 0),
    ("slack-token", re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,}"), 0),
    ("slack-webhook", re.compile(r"https://hooks\.slack\.com/services/[A-Za-z0-9/_-]+"), 0),
    ("google-api-key", re.compile(r"\bAIza[0-9A-Za-z_\-]{35}\b"), 0),
    ("jwt", re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"), 0),
    ("npm-token", re.compile(r"\bnpm_[A-Za-z0-9]{36}\b"), 0),
    ("huggingface-token", re.compile(r"\bhf_[A-Za-z0-9]{30,}\b"), 0),
    ("url-credentials", re.compile(r"(?<=://)[^\s:/@]+:([^\s@/]{3,})(?=@)"), 1),
    ("bearer-token", re.compile(r"(?i)\b(?:bearer|token)\s+([A-Za-z0-9_\-\.=]{20,})"), 1),
    ("password", re.compile(
        r"(?i)(?<![A-Za-z0-9])(?:password|passwd|pwd|passphrase|secret|api[_-]?key|apikey|access[_-]?key|"
        r"auth[_-]?token|access[_-]?token|client[_-]?secret|private[_-]?key|token)"
        r"\s*[:=]\s*[\"']?([^\s\"',;]{4,})"), 1),
]

# Candidate high-entropy strings: long runs of token characters.
_CANDIDATE = re.compile(r"[A-Za-z0-9+/=_\-]{32,}")
_HEX = re.compile(r"^[0-9a-fA-F]+$")
_UUIDISH = re.compile(r"^[0-9a-fA-F-]+$")


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
    return _entropy(core) >= 4.2


def find_secrets(text: str, allow: Iterable[str] = (), entropy: bool = True) -> list[Finding]:
    """All non-overlapping secret spans in `text`, minus allowlisted matches."""
    allow_res = [re.compile(a) for a in allow]
    spans: list[Finding] = []

    def taken(a: int, b: int) -> bool:
        return any(not (b <= f.start or a >= f.end) for f in spans)

    def allowed(s: str) -> bool:
        return any(r.search(s) for r in allow_res)

    for kind, pat, group in _PATTERNS:
        for m in pat.finditer(text):
            a, b = m.span(group)
            if a < 0 or b <= a or taken(a, b):
                continue
            value = text[a:b]
            if value.startswith("[REDACTED:") or allowed(value):
                continue
            spans.append(Finding(kind, a, b))
    if entropy:
        for m in _CANDIDATE.finditer(text):
            a, b = m.span()
            if taken(a, b) or not _looks_random(m.group()) or allowed(m.group()):
                continue
            spans.append(Finding("high-entropy", a, b))
    spans.sort(key=lambda f: f.start)
    return spans


def redact(text: str, allow: Iterable[str] = (), entropy: bool = True) -> tuple[str, list[Finding]]:
    """Replace every secret with `[REDACTED:<kind>]`; returns (new text, findings)."""
    found = find_secrets(text, allow, entropy)
    if not found:
        return text, []
    out: list[str] = []
    pos = 0
    for f in found:
        out.append(text[pos : f.start])
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
