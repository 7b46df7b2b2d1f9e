"""Two Chinese texts about one thing that say two different things of it: the same head
up to 的 at the start of both, then tails that share no word and no value
(锦绣花园12栋302的新租客刘晨…交了一年房租42000元 / 锦绣花园12栋302的热水器是2021年换的;
《夜航船》第36期的嘉宾是作家沈一舟… / 《夜航船》第36期的封面是阿May做的). The English model
scores such pairs 0.86-0.88 and the head shares a value (the flat, the episode), so nothing
else in dream's guard tells them apart; a paraphrase of one fact says its word or its
value again after the head (…的电话是138… / …的手机号 138…)."""

from __future__ import annotations

import os
import re

from gitmem.core.tokens import CJK_STOP_CHARS
from gitmem.lifecycle import values

_HAN = re.compile(r"[\u3400-\u9fff]")
HEAD_MIN = 3  # the shared head, 的 included, is at least this many characters


def differ(a: str, b: str) -> bool:
    """Whether two mostly-Chinese texts share a head up to 的 at their start and nothing
    after it (no pair of content characters, no value, no number)."""
    if not (_mostly_han(a) and _mostly_han(b)):
        return False
    head = os.path.commonprefix([a, b])
    cut = head.rfind("的") + 1
    if cut < HEAD_MIN or not _HAN.search(head[:cut - 1]):
        return False
    ta, tb = a[cut:], b[cut:]
    va, ra = values.extract(ta)
    vb, rb = values.extract(tb)
    pa, pb = _pairs(ra), _pairs(rb)
    if not pa or not pb or set(va) & set(vb) or set(re.findall(r"\d+", ta)) & set(re.findall(r"\d+", tb)):
        return False  # a tail saying nothing of its own is no second thing
    return not pa & pb


def _mostly_han(text: str) -> bool:
    return len(_HAN.findall(text)) > len(re.findall(r"[A-Za-z]", text))


def _pairs(text: str) -> set[str]:
    """Pairs of adjacent content characters (one character alone is too common a match)."""
    out: set[str] = set()
    for run in re.findall(r"[\u3400-\u9fff]+", text):
        run = "".join(c for c in run if c not in CJK_STOP_CHARS)
        out |= {x + y for x, y in zip(run, run[1:])}
    return out
