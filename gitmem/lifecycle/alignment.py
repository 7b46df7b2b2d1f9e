"""Where two token sequences differ, as dream's guard (gitmem.lifecycle.samefact) reads
them: the slots where they differ, whether each slot swaps content for content (the shape
of two true facts about different entities: "My son plays…" / "My daughter plays…"), and
whether the differences are short swaps of content words in one frame of words, whether
each Chinese swap is a verb, a measure word or a particle (`light_swapped`), and whether
two Chinese texts open with two things (`first_swap_apart`)."""

from __future__ import annotations

import difflib
import re

HAN = re.compile(r"[\u3400-\u9fff]")  # a Han character: Chinese tokens are single characters


def slots(a: tuple[str, ...], b: tuple[str, ...]) -> list[list[int]]:
    """The stretches where b differs from a, as [tokens from a, tokens from b] each, when
    they share at least half of the longer; [] otherwise."""
    if not a or not b:
        return []
    ops = difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes()
    shared = sum(i2 - i1 for tag, i1, i2, _, _ in ops if tag == "equal")
    if shared == 0 or shared * 2 < max(len(a), len(b)):
        return []
    out: list[list[int]] = []  # per slot: [tokens from a, tokens from b]
    gap_ok, last = True, ""
    for tag, i1, i2, j1, j2 in ops:
        if tag == "equal":
            # A one-character match inside a Chinese slot (儿子/女儿: 儿 moved within
            # the word) does not end it; between two deletions or two insertions it does.
            gap_ok = i2 - i1 == 1 and HAN.match(a[i1]) is not None
            if not gap_ok:
                out.append([0, 0])
            continue
        if out and gap_ok and last and "replace" not in (tag, last) and tag == last:
            gap_ok = False
        if not out or not gap_ok:
            out.append([0, 0])
            gap_ok = True
        out[-1][0] += i2 - i1
        out[-1][1] += j2 - j1
        last = tag
    return [s for s in out if s != [0, 0]]


def prefixed(a: tuple[str, ...], b: tuple[str, ...]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """`a` and `b` with an English word written as a shorter word of either text that
    begins it and lacks at most an ending (accountant / account, logs / log: one word
    where a template is looked for; grandfather / grandmother and timestamp / time stay
    two)."""
    words = sorted({t for t in a + b if t.isascii() and len(t) >= 3}, key=len)
    short = {}
    for w in words:
        short[w] = next((v for v in words if len(v) < len(w) <= len(v) + 3 and w.startswith(v)), w)
    return tuple(short.get(t, t) for t in a), tuple(short.get(t, t) for t in b)


def substitution(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    """Whether b is a with one or more slots swapped for other content and nothing else:
    the shape of two true facts about different entities."""
    def swapped(x: tuple[str, ...], y: tuple[str, ...]) -> bool:
        found = slots(x, y)
        return bool(found) and all(m > 0 and n > 0 for m, n in found)

    # Word endings only take a swap away (accounts / accountant), never make one; so does
    # a stretch said in the other language (普测 / Putonghua test: one test).
    return swapped(a, b) and swapped(*prefixed(a, b)) and not translated(a, b)


def translated(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    """Whether every stretch where a and b differ is Chinese on one side and Latin letters
    on the other."""
    ops = [op for op in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes() if op[0] != "equal"]

    def script(ts: tuple[str, ...]) -> str:
        return "han" if ts and all(HAN.match(t) for t in ts) else "latin" if ts and all(
            t.isascii() and t.isalpha() for t in ts) else ""

    return bool(ops) and all({script(a[i1:i2]), script(b[j1:j2])} == {"han", "latin"} for _, i1, i2, j1, j2 in ops)


def swaps(a: tuple[str, ...], b: tuple[str, ...], stop: frozenset[str]) -> bool:
    """Whether b is a with stretches of content words (each at most SWAP_MAX, no function
    word of `stop`: "the puppy weighs" / "weighed in at" is a rewording) swapped for others and
    every other word, SWAP_FRAME of them at least, the same: one swap, or several in a frame
    with two content words ("The carbon monoxide alarm in the kitchen was tested" / "The
    smoke alarm in the hallway"; not "Castlegate quoted £6,200 to resurface the driveway" /
    "castlegate want 6200 quid to redo the drive", reworded around one name)."""
    ops = [op for op in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes()]
    frame = [t for op in ops if op[0] == "equal" for t in a[op[1]:op[2]]]
    ops = [op for op in ops if op[0] != "equal"]
    if not ops or any(op[0] != "replace" for op in ops) or len(frame) < SWAP_FRAME or (
            len(ops) > 1 and sum(t not in stop and t != "\x00" for t in frame) < 2):
        return False
    return all(0 < len(x) <= SWAP_MAX and not any(t in stop or t == "\x00" for t in x)
               for _, i1, i2, j1, j2 in ops for x in (a[i1:i2], b[j1:j2]))


SWAP_MAX, SWAP_FRAME = 3, 4


def light_swapped(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    """Whether every stretch `b` swaps in for one of `a` is a Chinese verb, a measure word
    or a particle, not an entity: it ends in 了, or 了 follows it, on either side (交了 /
    花了, 签了 / 为期), or it is one character after 这 or 那 (这次 / 这回) or for 的."""
    ops = [op for op in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes() if op[0] != "equal"]
    def verb(x: tuple[str, ...], i1: int, i2: int) -> bool:
        return "了" in x[max(i1, i2 - 1):i2 + 1]
    return bool(ops) and all(op[0] == "replace" and (verb(a, op[1], op[2]) or verb(b, op[3], op[4])
                                                     or _measure_word(a, b, op)) for op in ops)


def _measure_word(a: tuple[str, ...], b: tuple[str, ...], op: tuple[str, int, int, int, int]) -> bool:
    """Whether `op` swaps one character for one right after a 这 or 那 both texts share, or
    for the particle 的 (村里办百家宴 / 村里的百家宴)."""
    _, i1, i2, j1, j2 = op
    return i2 - i1 == j2 - j1 == 1 and ("的" in (a[i1], b[j1]) or (
        i1 > 0 and j1 > 0 and a[i1 - 1] == b[j1 - 1] and a[i1 - 1] in "这那"))


def first_swap_apart(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    """Whether the first stretch where two Chinese texts differ swaps content for content
    with no character in common: another owner, place or thing (厨房 / 卫生间, 楼下 / 隔壁小区,
    我和老公 / 爸妈), the shape of two true facts. A stretch said another way shares a
    character (女儿 / 闺女, 地库 / 地下车库), is only added on one side, or is the measure
    word after 这 or 那 (这次 / 这回)."""
    ops = [op for op in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes() if op[0] != "equal"]
    if not ops or ops[0][0] != "replace":
        return False
    _, i1, i2, j1, j2 = ops[0]
    if set(a[i1:i2]) <= set(b) and set(b[j1:j2]) <= set(a):  # the two moved, not swapped (青岛住海悦湾酒店 / 酒店：海悦湾（青岛）)
        return False
    return not _measure_word(a, b, ops[0]) and not (set(a[i1:i2]) & set(b[j1:j2])) - {"\x00"}
