"""Keys of an encrypted store: the master key file (keys/master.json, 0600 in a 0700
folder), its one-way ratchet, wrapping data keys under it, and the names data keys go by
(see crypto.py for the design)."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESSIV
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from gitmem.core.errors import UsageError
from gitmem.core.fsutil import atomic_write
from gitmem.core.model import is_id
from gitmem.core.trailers import parse_trailers

KEY_LEN = 64
STORE_NAME = "s"
FORMAT = 1


class KeyError_(UsageError):
    """A missing, wrong or foreign key (exit 2: fix it with `gitmem key import`)."""


def keys_dir(home: Path) -> Path:
    return Path(home) / "keys"


def master_path(home: Path) -> Path:
    return keys_dir(home) / "master.json"


def key_name(path: str) -> str:
    """Which data key encrypts the file at `path` (see the module docstring)."""
    parts = path.split("/")
    if parts[0] in ("memories", "archive"):
        stem = parts[-1][:-3] if parts[-1].endswith(".md") else ""
        if is_id(stem):
            return "m:" + stem
    elif parts[0] == "conflicts" and len(parts) > 1 and is_id(parts[1]):
        return "m:" + parts[1]
    elif parts[0] in ("daily", "sessions"):
        return "p:" + path
    return STORE_NAME


def message_key_name(message: str) -> str:
    """A commit about one memory is sealed with that memory's key, a journal line's with
    the journal's (its subject holds the text); the rest with the store key."""
    trailers = parse_trailers(message)
    ids = trailers.get("Gitmem-Id", [])
    if len(ids) == 1 and is_id(ids[0]):
        return "m:" + ids[0]
    paths = trailers.get("Gitmem-Path", [])
    if len(paths) == 1:
        return key_name(paths[0])
    return STORE_NAME


def name_path(name: str) -> str:
    h = hashlib.sha1(name.encode()).hexdigest()
    return f"n/{h[:2]}/{h}"


def kid_path(kid: str) -> str:
    return f"k/{kid[:2]}/{kid}"


def ratchet(key: bytes) -> bytes:
    return HKDF(algorithm=hashes.SHA256(), length=KEY_LEN, salt=None, info=b"gitmem ratchet").derive(key)


_WRAPPERS: dict[bytes, AESSIV] = {}


def _wrapper(epoch_key: bytes) -> AESSIV:
    c = _WRAPPERS.get(epoch_key)
    if c is None:
        if len(_WRAPPERS) > 8:
            _WRAPPERS.clear()
        c = _WRAPPERS[epoch_key] = AESSIV(epoch_key)
    return c


def wrap(epoch_key: bytes, kid: str, data_key: bytes) -> bytes:
    return _wrapper(epoch_key).encrypt(data_key, [b"gitmem key", kid.encode()])


def unwrap(epoch_key: bytes, kid: str, wrapped: bytes) -> bytes:
    return _wrapper(epoch_key).decrypt(wrapped, [b"gitmem key", kid.encode()])


def check_value(epoch_key: bytes, lineage: str) -> str:
    return base64.b64encode(AESSIV(epoch_key).encrypt(b"gitmem check", [lineage.encode()])).decode()


def fingerprint(lineage: str) -> str:
    h = hashlib.sha256(b"gitmem lineage " + lineage.encode()).hexdigest()[:20]
    return ":".join(h[i:i + 4] for i in range(0, 20, 4))


# ---- the master key ---------------------------------------------------------------------
@dataclass
class Master:
    lineage: str
    epoch: int
    key: bytes
    retiring: dict[int, bytes] = field(default_factory=dict)
    # After `key rotate`: the lineages this key replaced (so another home can import it
    # over the old one), and the old key itself until a sync has re-wrapped the remote's
    # keyring under the new one.
    rotated_from: list[str] = field(default_factory=list)
    previous: "Master | None" = None

    @classmethod
    def new(cls) -> "Master":
        return cls(lineage=os.urandom(16).hex(), epoch=0, key=os.urandom(KEY_LEN))

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.lineage)

    def key_at(self, epoch: int) -> bytes | None:
        """The epoch key of `epoch`: ours, a retiring one, or derived forward."""
        if epoch == self.epoch:
            return self.key
        if epoch in self.retiring:
            return self.retiring[epoch]
        if epoch > self.epoch:
            k = self.key
            for _ in range(epoch - self.epoch):
                k = ratchet(k)
            return k
        return None

    def advance(self, epoch: int) -> None:
        """Move to `epoch` (forward only), keeping the old key as retiring."""
        while self.epoch < epoch:
            self.retiring[self.epoch] = self.key
            self.key = ratchet(self.key)
            self.epoch += 1

    def to_json(self, export: bool = False) -> dict[str, Any]:
        """The key file's content; `export` leaves out the retiring and previous keys
        (a home that imports it derives what it needs, and holds nothing older)."""
        out: dict[str, Any] = {"format": FORMAT, "lineage": self.lineage, "epoch": self.epoch,
                               "key": base64.b64encode(self.key).decode()}
        if self.rotated_from:
            out["rotated_from"] = list(self.rotated_from)
        if not export:
            out["retiring"] = {str(e): base64.b64encode(k).decode() for e, k in sorted(self.retiring.items())}
            if self.previous is not None:
                out["previous"] = self.previous.to_json()
        return out

    @classmethod
    def from_json(cls, data: Any, source: str = "key file") -> "Master":
        try:
            key = base64.b64decode(data["key"], validate=True)
            m = cls(lineage=str(data["lineage"]), epoch=int(data["epoch"]), key=key,
                    retiring={int(e): base64.b64decode(k) for e, k in (data.get("retiring") or {}).items()},
                    rotated_from=[str(x) for x in data.get("rotated_from") or []],
                    previous=cls.from_json(data["previous"], source) if data.get("previous") else None)
        except (KeyError, TypeError, ValueError) as e:
            raise KeyError_(f"{source} is not a gitmem key file", hint="it should come from `gitmem key export`") from e
        if len(m.key) != KEY_LEN or not re.fullmatch(r"[0-9a-f]{32}", m.lineage):
            raise KeyError_(f"{source} is not a gitmem key file", hint="it should come from `gitmem key export`")
        return m


def load_master(home: Path) -> Master | None:
    path = master_path(home)
    try:
        text = path.read_text()
    except FileNotFoundError:
        return None
    try:
        return Master.from_json(json.loads(text), str(path))
    except json.JSONDecodeError as e:
        raise KeyError_(f"{path} is damaged", hint="import the key again: `gitmem key import FILE`") from e


def save_master(home: Path, master: Master) -> None:
    d = keys_dir(home)
    d.mkdir(mode=0o700, parents=True, exist_ok=True)
    os.chmod(d, 0o700)
    atomic_write(master_path(home), json.dumps(master.to_json(), indent=1).encode("utf-8"), mode=0o600)
