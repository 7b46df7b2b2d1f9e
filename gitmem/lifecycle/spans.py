"""Reading values out of text: patterns with an ASCII word boundary, and blanking out
what was read (gitmem.lifecycle.values and gitmem.lifecycle.clock)."""

from __future__ import annotations

import re

BLANK = " \x00 "

# Python's \b takes a Chinese character for a word character: "每晚21:30" and "签证2026-05-31到期"
# have no \b before the digits. Patterns use an ASCII word boundary instead.
_ASCII_B = r"(?:(?<![a-z0-9_])(?=[a-z0-9_])|(?<=[a-z0-9_])(?![a-z0-9_]))"


def ascii_re(pattern: str, flags: int = 0) -> re.Pattern:
    """`pattern` compiled with each \\b an ASCII word boundary."""
    return re.compile(pattern.replace(r"\b", _ASCII_B), flags)


def take(pattern: re.Pattern, text: str, fn, out: list[str]) -> str:
    """Record what `fn` reads from each match (None: not a value) and blank the match out."""
    def sub(m: re.Match) -> str:
        got = fn(m)
        if got is None:
            return m.group(0)
        out.extend(got)
        return BLANK
    return pattern.sub(sub, text)
