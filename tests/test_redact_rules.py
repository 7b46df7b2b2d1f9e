"""Redaction against every rule gitmem ships, well-known token formats, and false positives.

The rules: the detect-secrets plugins' regexes (read from the installed library) and
gitmem's extra rules (gitmem/data/extra_rules.toml). Per-rule recall: for every rule, a
format-valid fake is generated from the rule's own regex (a walk of the parse tree
choosing random branches and characters), placed in a sentence, and must be gone after
`redact`. Known formats: the hand-written fakes of tests/known_tokens.py (AWS, GitHub,
GitLab, Slack, Stripe, Google, OpenAI, Anthropic, npm, PyPI, Twilio, SendGrid, JWT,
private keys, database URLs, Azure, assignments, ...) must all be redacted. False
positives: the ordinary strings in tests/data/ordinary_text.txt (commit hashes,
digests, UUIDs, base64 data URIs, identifiers, paths, URLs, prose with numbers,
sentences that mention keys, tokens and passwords) must come back unchanged (at most
1%). The figures are printed and recorded in BENCHMARKS.md."""

from __future__ import annotations

import random
import re
import warnings
from pathlib import Path

import pytest

from gitmem.policy import redact as R
from gitmem.policy import rules as RL
from known_tokens import KNOWN

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    import sre_constants as C
    import sre_parse

ORDINARY = Path(__file__).parent / "data" / "ordinary_text.txt"
_ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"


def _chars_in(items, rnd: random.Random) -> str:
    """A random character a character class accepts."""
    negate = any(op is C.NEGATE for op, _ in items)
    allowed: list[str] = []
    for op, av in items:
        if op is C.LITERAL:
            allowed.append(chr(av))
        elif op is C.RANGE:
            lo, hi = av
            allowed.extend(chr(c) for c in range(lo, min(hi, lo + 200) + 1))
        elif op is C.CATEGORY:
            allowed.extend({C.CATEGORY_DIGIT: "0123456789", C.CATEGORY_WORD: _ALNUM + "_",
                            C.CATEGORY_SPACE: " ", C.CATEGORY_NOT_SPACE: _ALNUM, C.CATEGORY_NOT_DIGIT: _ALNUM[:52],
                            C.CATEGORY_NOT_WORD: " "}[av])
    if negate:
        pool = [c for c in _ALNUM + " -_.:" if c not in allowed]
        return rnd.choice(pool or [chr(c) for c in range(33, 127) if chr(c) not in allowed])
    # Prefer letters and digits (a token's alphabet) when the class has them.
    alnum = [c for c in allowed if c.isascii() and c.isalnum()]
    return rnd.choice(alnum if alnum and rnd.random() < 0.9 else allowed)


def generate(pattern: str, rnd: random.Random, flags: int = 0) -> str:
    """A string matching `pattern` (Python syntax), built from its parse tree."""
    groups: dict[int, str] = {}

    def walk(items) -> str:
        out = []
        for op, av in items:
            if op is C.LITERAL:
                out.append(chr(av))
            elif op is C.NOT_LITERAL:
                out.append(rnd.choice([c for c in _ALNUM if ord(c) != av]))
            elif op is C.ANY:
                # An unescaped dot in these rules often stands for a dot (hooks.slack.com).
                out.append("." if rnd.random() < 0.5 else rnd.choice(_ALNUM))
            elif op is C.IN:
                out.append(_chars_in(av, rnd))
            elif op is C.CATEGORY:
                out.append(_chars_in([(op, av)], rnd))
            elif op is C.BRANCH:
                out.append(walk(rnd.choice(av[1])))
            elif op is C.SUBPATTERN:
                gid, _, _, sub = av
                s = walk(sub)
                if gid:
                    groups[gid] = s
                out.append(s)
            elif op in (C.MAX_REPEAT, C.MIN_REPEAT, getattr(C, "POSSESSIVE_REPEAT", None)):
                lo, hi, sub = av
                hi = lo + 40 if hi is C.MAXREPEAT else hi
                # Prefixes before a keyword are short; secrets somewhere in their range.
                n = lo if op is C.MIN_REPEAT else rnd.randint(lo, max(lo, min(hi, lo + 40)))
                out.extend(walk(sub) for _ in range(n))
            elif op is C.GROUPREF:
                out.append(groups.get(av, ""))
            elif op in (C.AT, C.ASSERT, C.ASSERT_NOT):
                pass
            elif op is C.GROUPREF_EXISTS:
                out.append(walk(av[1]))
            else:
                raise NotImplementedError(op)
        return "".join(out)

    return walk(sre_parse.parse(pattern, flags))


def shipped_rules() -> list[RL.Rule]:
    """Every rule gitmem ships: the library's and the extra ones."""
    return list(RL.ruleset().rules)


def sample_for(rule: RL.Rule, tries: int = 80) -> tuple[str, str] | None:
    """(sentence, secret): a generated fake that the rule's regex matches in a sentence,
    with entropy above the rule's floor, and not of a shape the rule's own allowlists
    let go (an empty value, a placeholder, a plain word)."""
    rnd = random.Random(rule.id)
    for _ in range(tries):
        fake = generate(rule.regex, rnd, rule.flags)
        sentence = f"note for later: {fake} \nthanks"
        m = rule.rx.search(sentence)
        if not m:
            continue
        a, b = R.secret_span(rule, m)
        secret = sentence[a:b]
        if len(secret.strip()) < 4 or (rule.entropy and R._entropy(secret) <= rule.entropy):
            continue
        if any(al.allows(secret, m.group(0), R._line(sentence, *m.span())) for al in rule.allowlists):
            continue
        return sentence, secret
    return None


def _ordinary() -> list[str]:
    return [ln for ln in ORDINARY.read_text(encoding="utf-8").splitlines() if ln.strip()]


def known_redacted(redact=R.redact) -> tuple[int, list[str]]:
    """How many of the hand-written known-format fakes `redact` removes, and the missed formats."""
    missed = []
    for fmt, text, secrets in KNOWN:
        out = redact(text)[0]
        if any(s in out for s in secrets):
            missed.append(fmt)
    return len(KNOWN) - len(missed), missed


def test_library_rules_are_read_from_detect_secrets():
    import detect_secrets  # noqa: F401  (a runtime dependency)
    from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class
    from detect_secrets.plugins.base import RegexBasedDetector

    rules = shipped_rules()
    ids = [r.id for r in rules]
    assert len(ids) == len(set(ids))
    lib = {r.id.split("[")[0] for r in rules if r.source == "detect-secrets"}
    plugins = {c.__name__ for c in get_mapping_from_secret_type_to_class().values()}
    # Every plugin is used but the ones left out on purpose (each with its reason).
    assert lib == plugins - set(RL._SKIP_PLUGINS), plugins - lib
    for cls in get_mapping_from_secret_type_to_class().values():
        if issubclass(cls, RegexBasedDetector) and cls.__name__ not in RL._SKIP_PLUGINS:
            assert sum(r.id.startswith(cls.__name__ + "[") for r in rules) == len(cls.denylist)
    extra = [r for r in rules if r.source == "gitmem"]
    # The library carries the bulk; gitmem's own list stays short.
    assert len(lib) >= 20 and len(extra) <= 20 and len(extra) < len(rules) - len(extra)
    for r in rules:
        assert r.rx.pattern


def test_every_shipped_rule_redacts_a_generated_sample():
    rules = shipped_rules()
    missed, no_sample = [], []
    for rule in rules:
        got = sample_for(rule)
        if got is None:
            no_sample.append(rule.id)
            continue
        sentence, secret = got
        out, found = R.redact(sentence)
        if secret in out or not found:
            missed.append((rule.id, sentence, out))
    tested = len(rules) - len(no_sample)
    lib = sum(r.source == "detect-secrets" for r in rules)
    print(f"\nredact recall: {tested - len(missed)}/{tested} shipped rules ({lib} detect-secrets, "
          f"{len(rules) - lib} gitmem) redacted their generated sample; no sample for {len(no_sample)}: {no_sample}")
    assert not no_sample, no_sample
    assert not missed, missed


def test_known_formats_are_redacted():
    n, missed = known_redacted()
    formats = len({fmt.split(" (")[0] for fmt, _, _ in KNOWN})
    print(f"\nredact known formats: {n}/{len(KNOWN)} hand-written fakes ({formats} formats) redacted; missed {missed}")
    assert len(KNOWN) >= 27
    assert not missed, missed


@pytest.mark.parametrize("fmt,text,secrets", KNOWN, ids=[k[0] for k in KNOWN])
def test_known_format_keeps_the_text_around_it(fmt, text, secrets):
    out, found = R.redact(text)
    assert found and all(s not in out for s in secrets)
    assert "[REDACTED:" in out
    # Only the secret goes: the first word of the text (a name, a label) stays unless it is the secret.
    first = text.split()[0]
    if not any(first in s or s in first for s in secrets) and len(first) > 3 and "-----" not in first:
        assert out.lstrip().startswith(first[:3]), (text, out)


def test_false_positives_on_ordinary_text():
    lines = _ordinary()
    assert len(lines) >= 200
    flagged = [(ln, [f.kind for f in R.find_secrets(ln)]) for ln in lines]
    flagged = [x for x in flagged if x[1]]
    rate = len(flagged) / len(lines)
    print(f"\nredact false positives: {len(flagged)}/{len(lines)} ordinary strings ({rate:.2%})")
    assert rate <= 0.01, flagged


def test_keyword_prefilter_never_skips_a_match():
    """A rule's keywords are read off its regex: every string it matches holds one."""
    for rule in shipped_rules():
        if not rule.keywords:
            continue
        rnd = random.Random(rule.id + "/kw")
        for _ in range(25):
            s = generate(rule.regex, rnd, rule.flags)
            if rule.rx.search(s):
                assert any(k in s.lower() for k in rule.keywords), (rule.id, rule.keywords, s)


@pytest.mark.parametrize("pattern,flags,want", [
    (r"(ghp|gho|ghu)_[A-Za-z0-9_]{36}", 0, ("gh",)),  # the parser folds the common prefix
    (r"sk-[A-Za-z0-9-_]*[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20}", 0, ("t3blbkfj",)),
    (r"(?:\s|=|:|^)AKC[a-z]{10,}", 0, ("akc",)),
    (r"AC[a-z0-9]{32}", 0, ("ac",)),
    (r"\d{8,10}:[0-9A-Za-z_-]{35}", 0, ()),  # no literal of 2 characters: always runs
    (r"(api_?key|password)\w*\s*=", re.IGNORECASE, ("api", "password")),
    (r"x(?:ab)?y", 0, ()),  # an optional literal is not required
    (r"(?:ab){2}cd", 0, ("ab",)),
])
def test_required_literals(pattern, flags, want):
    assert RL.required_literals(pattern, flags) == want


def test_rules_come_from_the_cache_and_it_follows_the_sources(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    fresh = RL.load_rules(cache=True)  # builds (imports the library) and writes the cache
    files = list((tmp_path / "cache" / "gitmem").glob("secret-rules-*.json"))
    assert len(files) == 1
    cached = RL.load_rules(cache=True)
    assert [r.to_json() for r in cached] == [r.to_json() for r in fresh] == [r.to_json() for r in RL._build()]
    # A different extra rule file (as after an upgrade) is a different key: a new cache entry.
    extra = tmp_path / "extra.toml"
    extra.write_text(RL.EXTRA_RULES.read_text(encoding="utf-8") + '\n[[rules]]\nid = "x-test"\nregex = "xtest_[0-9]{8}"\n')
    monkeypatch.setattr(RL, "EXTRA_RULES", extra)
    assert "x-test" in {r.id for r in RL.load_rules(cache=True)}
    assert len(list((tmp_path / "cache" / "gitmem").glob("secret-rules-*.json"))) == 2
    # A cache that cannot be written costs only the import.
    blocked = tmp_path / "blocked"
    blocked.write_text("a file, not a folder")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocked))
    assert len(RL.load_rules(cache=True)) == len(fresh) + 1
    # A corrupt cache file is rebuilt.
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    for f in (tmp_path / "cache" / "gitmem").glob("secret-rules-*.json"):
        f.write_text("{not json")
    assert len(RL.load_rules(cache=True)) == len(fresh) + 1


@pytest.mark.parametrize("at", [0, 1500, 1536, 1700, 2000, 2040, 3100, 5000])
def test_long_lines_are_scanned_in_overlapping_windows(at):
    """Library rules see a long line in windows; a token across a window edge is still found."""
    filler = "".join(chr(97 + (i * 7) % 26) if i % 9 else " " for i in range(at))
    tokens = ["AKIAVQJXXVBOTHD0WTFL", "ghp_SnH6av1Ib8pp1xxXHU0BScJXj675eVq30XYq", 'api_key: "ae578485090fb254c2a9"']
    text = filler + " " + " and ".join(tokens) + " " + filler
    out, found = R.redact(text, entropy=False)
    assert "VQJXXVBOTHD0WTFL" not in out and "SnH6av1Ib8pp1xxXHU0BScJXj675eVq30XYq" not in out
    assert "ae578485090fb254c2a9" not in out
    assert out.startswith(filler[:100]) and out.endswith(filler[-100:])


def test_a_missing_library_is_an_error_with_a_hint(monkeypatch):
    from gitmem.core.errors import GitmemError

    monkeypatch.setattr(RL, "LIBRARY", "no_such_detect_secrets_pkg")
    with pytest.raises(GitmemError) as e:
        RL.load_rules()
    assert "detect-secrets" in str(e.value) and "pip install detect-secrets" in e.value.hint


@pytest.mark.parametrize("text", ["#10482 -> bronte walsh, auspost express, trk AP774109632218",
                                  "parcel AP1234567890 delivered", "key: AKC1234567890123"])
def test_a_tracking_number_is_no_artifactory_token(text):
    """"AP" and digits alone is a parcel's tracking number (a blind set's note lost it)."""
    assert R.redact(text)[0] == text


@pytest.mark.parametrize("token", ["AP6xbk7Lq2mZ9pQw3", "AKCp8jQ2vN5kLm9xR4tYz"])
def test_an_artifactory_token_is_still_redacted(token):
    assert R.redact(f"token {token}")[0] == "token [REDACTED:artifactory-credentials]"
