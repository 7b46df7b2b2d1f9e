"""The secret rules redaction runs, read as data.

Most come from the detect-secrets library (Yelp, Apache-2.0, a runtime dependency), read
from the installed package: every regex-based plugin's `denylist` regexes, the keyword
plugin's assignment regexes (`password = "..."`, `api_key: ...`) and its quoted
high-entropy-string detector; for library rules the keywords are the literals any match
must contain, read off the regex. A few formats it does not cover are gitmem's own rules
(data/extra_rules.toml, each naming its provider).

Importing detect-secrets costs ~0.2-0.5 s (it pulls in requests), and every CLI write
loads the rules: so the rules read from it, with the extra rules, are kept as JSON in
the user's cache directory ($XDG_CACHE_HOME/gitmem), keyed by the installed library's
files, this module and the extra rule file, and rebuilt when any of them changes."""

from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gitmem.core import paths
from gitmem.core.errors import GitmemError
from gitmem.core.fsutil import atomic_write

LIBRARY = "detect_secrets"  # the import name of the detect-secrets distribution
DATA = Path(__file__).resolve().parent / "data"
EXTRA_RULES = DATA / "extra_rules.toml"
_CACHE_SCHEMA = 3  # bump when what _build() writes changes shape or meaning


# Library plugins left out, and why.
_SKIP_PLUGINS = {
    "IPPublicDetector": "a public IP address is where a service is, not a credential; memories name hosts",
    "HexHighEntropyString": "quoted hex is mostly commit ids and digests in a memory (references, not secrets)",
}
# The keyword plugin keeps one map of regexes per file type; a memory has no file type. The
# config files' map takes values with or without quotes (`api_key: x`, `password = "x"`,
# JSON's `"secret": "x"`), which covers what the code files' maps (quotes required) find.
_KEYWORD_MAPS = ("CONFIG_DENYLIST_REGEX_TO_GROUP",)

# ---- rules ---------------------------------------------------------------------------


@dataclass
class _Allowlist:
    target: str  # "secret" | "match" | "line"
    patterns: tuple[str, ...]
    stopwords: tuple[str, ...] = ()
    _compiled: list[re.Pattern[str]] | None = None

    def allows(self, secret: str, match: str, line: str) -> bool:
        if self._compiled is None:
            self._compiled = [re.compile(p) for p in self.patterns]
        target = match if self.target == "match" else line if self.target == "line" else secret
        lower = secret.lower()
        return (any(r.search(target) for r in self._compiled)
                or any(w in lower for w in self.stopwords))


@dataclass
class Rule:
    """One secret rule: a detect-secrets plugin regex or one of gitmem's extra rules."""

    id: str  # unique: "<PluginClass>[i]" for library rules, the rule's id for extra ones
    kind: str  # what the placeholder names: [REDACTED:<kind>]
    regex: str
    flags: int = 0
    keywords: tuple[str, ...] = ()
    entropy: float = 0.0
    secret_group: int = 0
    allowlists: tuple[_Allowlist, ...] = ()
    priority: int = 0  # merged spans take the kind of the lowest
    source: str = "detect-secrets"  # or "gitmem"
    widen: bool = False  # a finding outside a group covers the whole token it sits in
    per_line: bool = False  # runs on each line alone, as the library's plugins do
    _rx: re.Pattern[str] | None = field(default=None, repr=False)

    @property
    def rx(self) -> re.Pattern[str]:
        if self._rx is None:
            self._rx = re.compile(self.regex, self.flags)
        return self._rx

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "kind": self.kind, "regex": self.regex, "flags": self.flags,
                "keywords": list(self.keywords), "entropy": self.entropy, "secret_group": self.secret_group,
                "allowlists": [{"target": a.target, "patterns": list(a.patterns), "stopwords": list(a.stopwords)}
                               for a in self.allowlists],
                "priority": self.priority, "source": self.source, "widen": self.widen, "per_line": self.per_line}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> "Rule":
        d = dict(d)
        d["keywords"] = tuple(d["keywords"])
        d["allowlists"] = tuple(_Allowlist(a["target"], tuple(a["patterns"]), tuple(a["stopwords"]))
                                for a in d["allowlists"])
        return cls(**d)


def _slug(s: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", s.lower()).strip("-")


# ---- keywords: the literals any match must contain -------------------------------------

def required_literals(pattern: str, flags: int = 0) -> tuple[str, ...]:
    """Lower-cased strings one of which every match of `pattern` contains (the longest such
    set found), or () when there is none of 2 characters or more: then the rule always runs."""
    import re._constants as C
    import re._parser as P

    repeats = (C.MAX_REPEAT, C.MIN_REPEAT, getattr(C, "POSSESSIVE_REPEAT", C.MAX_REPEAT))

    def better(a: frozenset[str] | None, b: frozenset[str] | None) -> frozenset[str] | None:
        if not b:
            return a
        if not a:
            return b
        ka, kb = (min(map(len, a)), -len(a)), (min(map(len, b)), -len(b))
        return b if kb > ka else a

    def seq(items) -> frozenset[str] | None:
        best: frozenset[str] | None = None
        run: list[str] = []
        for op, av in list(items) + [(None, None)]:
            if op is C.LITERAL:
                run.append(chr(av))
                continue
            if run:
                best = better(best, frozenset(["".join(run)]))
                run = []
            if op is C.SUBPATTERN:
                best = better(best, seq(av[-1]))
            elif op is C.BRANCH:
                alts = [seq(a) for a in av[1]]
                if all(alts):
                    best = better(best, frozenset().union(*alts))  # type: ignore[arg-type]
            elif op in repeats and av[0] >= 1:
                best = better(best, seq(av[2]))
        return best

    found = seq(P.parse(pattern, flags))
    if not found or min(map(len, found)) < 2:
        return ()
    return tuple(sorted({s.lower() for s in found}))


# ---- building the rules (from the library and the extra file) --------------------------

def _library_rules() -> list[Rule]:
    """Every detect-secrets plugin's regexes as rules (import is slow: see the module doc)."""
    import inspect

    from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class
    from detect_secrets.plugins import keyword as kw
    from detect_secrets.plugins.base import RegexBasedDetector
    from detect_secrets.plugins.high_entropy_strings import HighEntropyStringsPlugin

    rules: list[Rule] = []
    for secret_type, cls in sorted(get_mapping_from_secret_type_to_class().items()):
        name = cls.__name__
        if name in _SKIP_PLUGINS:
            continue
        kind = _slug(secret_type)
        if issubclass(cls, RegexBasedDetector):
            denylist = cls.denylist if not isinstance(cls.denylist, property) else cls().denylist
            for i, rx in enumerate(denylist):
                rules.append(Rule(id=f"{name}[{i}]", kind=kind, regex=rx.pattern, flags=int(rx.flags) & ~re.UNICODE,
                                  keywords=required_literals(rx.pattern, rx.flags), widen=True, per_line=True,
                                  allowlists=_PLUGIN_ALLOW.get(name, ())))
        elif name == "KeywordDetector":
            seen: dict[str, int] = {}
            for mapname in _KEYWORD_MAPS:
                for rx, group in getattr(kw, mapname).items():
                    if rx.pattern not in seen:
                        seen[rx.pattern] = len(seen)
                        rules.append(Rule(id=f"{name}[{seen[rx.pattern]}]", kind=kind, regex=rx.pattern,
                                          flags=int(rx.flags) & ~re.UNICODE, secret_group=group, priority=2,
                                          keywords=required_literals(rx.pattern, rx.flags),
                                          allowlists=(_ASSIGNMENT_ALLOW,), per_line=True))
        elif issubclass(cls, HighEntropyStringsPlugin) and not inspect.isabstract(cls):
            plugin = cls()
            rules.append(Rule(id=f"{name}[0]", kind=kind, regex=plugin.regex.pattern,
                              flags=int(plugin.regex.flags) & ~re.UNICODE, secret_group=2,
                              entropy=float(plugin.entropy_limit), priority=8, per_line=True))
    return rules


# What a plugin's regex finds that is no secret of its kind: "AP" or "AKC" and digits alone
# is a parcel's tracking number (AusPost "AP774109632218"), not an Artifactory token,
# which mixes letters and digits.
_PLUGIN_ALLOW = {"ArtifactoryDetector": (_Allowlist("match", (r"^[\s=:\"]*A(?:P|KC)\d+[\s\"]*$",)),)}


# A value after a secret-sounding name that is not a secret: prose after a colon ("secret:
# keep it"), a placeholder or variable, code (a call, an index), an earlier redaction.
_ASSIGNMENT_ALLOW = _Allowlist("secret", (
    r"^[a-z]{1,14}[.!?]?$", r"^(?:\$\{?[A-Za-z_]+\}?|<[^>]*>?|\{\{.*\}\}|\*+|x+|\.\.\.?|…)$", r"^\[REDACTED",
    r"[(\[{]", r"^(?:true|false|null|none|nil|yes|no|required|optional|changeme)$",
    r"^[A-Za-z]+[,.;:!?]?(?: [A-Za-z]+[,.;:!?]?)+$"))


def _extra_rules() -> list[Rule]:
    """gitmem's own rules (data/extra_rules.toml): Python regexes, priority 1 (specific)
    or 2 (`generic = true`)."""
    import tomllib

    doc = tomllib.loads(EXTRA_RULES.read_text(encoding="utf-8"))
    out = []
    for r in doc.get("rules", ()):
        allow = tuple(_Allowlist(a.get("regexTarget", "secret"), tuple(a.get("regexes", ())),
                                 tuple(w.lower() for w in a.get("stopwords", ())))
                      for a in r.get("allowlists", ()))
        keywords = tuple(k.lower() for k in r.get("keywords", ())) or required_literals(r["regex"])
        out.append(Rule(id=r["id"], kind=r["id"], regex=r["regex"], keywords=keywords,
                        entropy=float(r.get("entropy", 0.0)), secret_group=int(r.get("secretGroup", 0)),
                        allowlists=allow, priority=2 if r.get("generic") else 1, source="gitmem"))
    return out


def _library_key() -> str | None:
    """What identifies the installed library's rules: its files' paths, sizes and mtimes
    (found without importing it), or None when it is not installed."""
    import importlib.util

    spec = importlib.util.find_spec(LIBRARY)
    if spec is None or not spec.submodule_search_locations:
        return None
    root = Path(list(spec.submodule_search_locations)[0])
    parts = [str(root)]
    for sub in ("plugins", "core/plugins"):
        try:
            entries = sorted(os.scandir(root / sub), key=lambda e: e.name)
        except OSError:
            continue
        parts.extend(f"{e.name}:{e.stat().st_size}:{e.stat().st_mtime_ns}" for e in entries
                     if e.name.endswith(".py"))
    return "|".join(parts)


def _cache_path(key: str) -> Path:
    return paths.cache_dir() / f"secret-rules-{hashlib.sha256(key.encode()).hexdigest()[:16]}.json"


def _build() -> list[Rule]:
    rules = _library_rules() + _extra_rules()
    rules.sort(key=lambda r: r.priority)
    return rules


def load_rules(cache: bool = True) -> list[Rule]:
    """The library's rules and the extra ones, by priority; from the cache when it is
    current: keyed by the library's files, this module and the extra rule file (a
    missing or unwritable cache only costs the import)."""
    lib = _library_key()
    if lib is None:
        raise GitmemError("the detect-secrets package is not installed: gitmem reads its secret rules from it",
                          hint="install it (pip install detect-secrets), or reinstall gitmem with its dependencies")
    mine = [f"{p}:{st.st_size}:{st.st_mtime_ns}" for p, st in ((p, p.stat()) for p in (Path(__file__), EXTRA_RULES))]
    key = "|".join([str(_CACHE_SCHEMA), lib, *mine])
    path = _cache_path(key)
    if cache:
        try:
            return [Rule.from_json(d) for d in json.loads(path.read_text(encoding="utf-8"))]
        except (OSError, ValueError, KeyError, TypeError):
            pass
    rules = _build()
    if cache:
        try:
            atomic_write(path, json.dumps([r.to_json() for r in rules]).encode("utf-8"))
        except (OSError, GitmemError):
            pass  # an unwritable cache only costs the import next time
    return rules


class RuleSet:
    """Rules indexed by keyword."""

    def __init__(self, rules: list[Rule]):
        self.rules = rules
        self.by_keyword: dict[str, list[int]] = {}
        self.always: list[int] = []
        for n, r in enumerate(rules):
            if not r.keywords:
                self.always.append(n)
            for k in r.keywords:
                self.by_keyword.setdefault(k, []).append(n)

    def candidates(self, lower: str) -> list[Rule]:
        """The rules with a keyword in `lower` (the text, lower-cased), in rule order."""
        hit = set(self.always)
        for k, idx in self.by_keyword.items():
            if k in lower:
                hit.update(idx)
        return [self.rules[n] for n in sorted(hit)]


_RULESET: RuleSet | None = None


def ruleset() -> RuleSet:
    """The rules, loaded once per process."""
    global _RULESET
    if _RULESET is None:
        _RULESET = RuleSet(load_rules())
    return _RULESET
