"""What a hit says about itself: rounding, dates, the snippet and the one-line --explain reason."""

from __future__ import annotations

import datetime as dt
from typing import Sequence

from gitmem.core.model import DEFAULT_IMPORTANCE


def iso_time(ts: float | None) -> str | None:
    if not ts:
        return None
    return dt.datetime.fromtimestamp(ts, dt.timezone.utc).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def snippet(text: str, terms: Sequence[str], width: int = 240) -> str:
    flat = " ".join(text.split())
    if len(flat) <= width:
        return flat
    low = flat.casefold()
    pos = min((p for p in (low.find(t) for t in terms if t) if p >= 0), default=0)
    start = max(0, pos - width // 3)
    out = flat[start : start + width]
    return ("…" if start else "") + out + ("…" if start + width < len(flat) else "")


def why(mode: str, b: int | None, v: int | None, cos: float | None, ref: int,
         part: tuple[float, float], importance: int, imp_f: float, boost: str | None = None) -> str:
    """One line on why a hit ranked where it did."""
    bits = []
    if boost and not (part[0] or part[1]):
        return boost + ("" if importance == DEFAULT_IMPORTANCE else f"; importance {importance} (x{imp_f:.2f})")
    in_b = b is not None and b <= ref
    in_v = v is not None and v <= ref
    if mode == "bm25":
        bits.append(f"BM25 #{b}" if b else "no BM25 match")
    elif mode == "vector":
        bits.append(f"vector #{v} (cosine {cos:.2f})" if v else "no vector match")
    elif in_b and in_v:
        lead = ("weak on both" if part[0] + part[1] <= 0 else "mostly words" if part[0] >= 2 * part[1] else
                "mostly meaning" if part[1] >= 2 * part[0] else "words and meaning")
        bits.append(f"BM25 #{b} and vector #{v} (cosine {cos:.2f}): {lead}")
    elif in_b:
        bits.append(f"BM25 #{b} only (shares words with the query)" + (
            f"; vector #{v} below the floor or the top {ref}" if v else ""))
    elif in_v:
        bits.append(f"vector #{v} only (cosine {cos:.2f}: similar meaning, few shared words)")
    else:
        bits.append(f"beyond the top {ref} of both rankings (listed in rank order)")
    if boost:
        bits.append(boost)
    if importance != DEFAULT_IMPORTANCE:
        bits.append(f"importance {importance} (x{imp_f:.2f})")
    return "; ".join(bits)


def rounded(v: float | None) -> float | None:
    return None if v is None else round(float(v), 6)
