"""Commit messages: a subject, an optional body and `Key: value` trailers that tools
can parse (`Gitmem-Op`, `Gitmem-Id`, ...). Pure functions, no I/O."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field


def parse_trailers(message: str) -> dict[str, list[str]]:
    """Trailers are `Key: value` lines in the last paragraph of the message."""
    paras = message.strip().split("\n\n")
    if len(paras) < 2:
        return {}
    out: dict[str, list[str]] = {}
    for line in paras[-1].splitlines():
        key, sep, value = line.partition(": ")
        if not sep or not key or " " in key:
            return {}
        out.setdefault(key, []).append(value.strip())
    return out


def split_message(message: str) -> tuple[str, str]:
    """(free text, trailer paragraph); the trailer part is '' when there is none."""
    stripped = message.rstrip("\n")
    head, sep, last = stripped.rpartition("\n\n")
    if sep and parse_trailers(message):
        return head, last
    return stripped, ""


def format_message(subject: str, body: str | None, trailers: list[tuple[str, str]]) -> str:
    """Subject, body and trailers as one commit message (whitespace in values folded)."""
    subject = " ".join(subject.split()) or "(no subject)"
    parts = [subject]
    if body:
        parts.append(body.strip())
    if trailers:
        parts.append("\n".join(f"{k}: {' '.join(str(v).split())}" for k, v in trailers if v))
    return "\n\n".join(parts) + "\n"


@dataclass
class Commit:
    """One commit as gitmem reads it: the message decoded, trailers parsed out."""

    id: str
    subject: str
    message: str
    author: str
    email: str
    time: int
    parents: list[str]
    trailers: dict[str, list[str]] = field(default_factory=dict)

    @property
    def op(self) -> str | None:
        return (self.trailers.get("Gitmem-Op") or [None])[0]

    @property
    def ids(self) -> list[str]:
        return self.trailers.get("Gitmem-Id", [])

    @property
    def scope(self) -> str | None:
        return (self.trailers.get("Gitmem-Scope") or [None])[0]

    @property
    def iso_time(self) -> str:
        when = dt.datetime.fromtimestamp(self.time, tz=dt.timezone.utc)
        return when.isoformat().replace("+00:00", "Z")
