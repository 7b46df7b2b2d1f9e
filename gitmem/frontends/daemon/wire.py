"""The daemon's wire protocol: one JSON object per line each way (UTF-8), descriptors
beside a request by SCM_RIGHTS. Standard library only: the launcher and the light client
use it on every command. The one owner of the framing (server, client and launcher)."""

from __future__ import annotations

import json
from typing import Any, Callable

MAX_LINE = 1 << 20  # bytes in one line; a longer one ends the connection


def encode(obj: Any) -> bytes:
    """One message as its line."""
    return json.dumps(obj, ensure_ascii=False, default=str).encode("utf-8") + b"\n"


def read(recv: Callable[[], bytes], buf: bytearray) -> Any:
    """The next message from `recv` (which returns b"" at the end), or None at the end.
    Bytes after the line stay in `buf` for the next call. ValueError: not JSON;
    OSError: a line longer than MAX_LINE."""
    while b"\n" not in buf:
        if len(buf) > MAX_LINE:
            raise OSError("message too long")
        chunk = recv()
        if not chunk:
            return None
        buf += chunk
    line, _, rest = bytes(buf).partition(b"\n")
    buf[:] = rest
    return json.loads(line)


def read_dict(recv: Callable[[], bytes], buf: bytearray) -> dict | None:
    """read, keeping only an object (anything else reads as None)."""
    data = read(recv, buf)
    return data if isinstance(data, dict) else None
