"""Encryption at the codec seam: deterministic AEAD (AES-SIV) for every blob and every
commit message of an encrypted store, per-memory data keys, a keyring ref that keeps no
history, and a master key that ratchets forward at every forget.

Keys
- A *data key* (64 random bytes, AES-256-SIV) per key name: `m:<id>` for a memory's file
  wherever it sits (memories/, archive/, conflicts/<id>/) and for a commit whose only
  Gitmem-Id is that memory (its subject is the memory's summary); `p:<path>` for a daily
  journal or a session file; `s` (the store key) for everything else (key maps, notes,
  ledger records, multi-memory commit messages).
- The *keyring*, `refs/gitmem/keyring`: one parentless commit (so no old keyring stays
  reachable), written raw (not through a codec):
      keyring.json        {"format": 1, "lineage": hex, "epoch": n, "check": b64}
      k/<kk>/<kid>        the data key `kid`, wrapped (AES-SIV) under the epoch key
      n/<hh>/<sha1(name)> the key id currently used for that name (hex)
- The *master key* (`keys/master.json` in the home, 0600 in a 0700 folder): lineage id,
  epoch and the epoch key K(e). A forget shreds the forgotten memories' data keys: their
  entries leave the keyring and the epoch key moves on one way,
  K(e+1) = HKDF-SHA256(K(e), info="gitmem ratchet"), so old keyring copies (a host's
  unreachable objects, an old clone) can never be unwrapped by any key a home still
  holds. Other homes derive K(e+1) themselves when sync brings the ledger record; a home
  keeps K(e) as "retiring" only until the remote's keyring is at its epoch.

Blob format: MAGIC (5 bytes) + key id (12 bytes) + AES-SIV(data, ad=[MAGIC, key id]).
Deterministic: the same plaintext under the same key is the same blob, so unchanged
memories keep their blob ids and three-way merges still work. Message format: first
line `gitmem-enc1 <base64 of key id + ciphertext of the whole message>`, then the
Gitmem-Op and Gitmem-Id trailers in the clear (so sync and plain `git log` can see what
kind of commit it is without a key). Everything else of the message is ciphertext."""

from __future__ import annotations

import base64
import json
import os
from typing import Any

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESSIV

from gitmem.core.errors import GitmemError
from gitmem.core.trailers import parse_trailers
from gitmem.store.codec import select_codec
from gitmem.store.masterkey import (
    FORMAT,
    KEY_LEN,
    KeyError_,
    Master,
    check_value,
    fingerprint,
    key_name,
    kid_path,
    load_master,
    master_path,
    message_key_name,
    name_path,
    unwrap,
    wrap,
)

KEYRING_REF = "refs/gitmem/keyring"
MAGIC = b"\x00gmE1"
MSG_MARK = "gitmem-enc1 "
KID_LEN = 12
_PLAIN_TRAILERS = ("Gitmem-Op", "Gitmem-Id")


# ---- the codec --------------------------------------------------------------------------
class Aead:
    """The AES-SIV codec of an encrypted store (see the module docstring)."""

    name = "aes-siv"

    def __init__(self, git: Any, lineage: str, plain_ok: bool = False):
        self.git = git
        self.lineage = lineage
        # Plain blobs read through the plain codec while the store converts (see
        # GitStore.plain_history).
        self.plain_ok = plain_ok
        self.plain = select_codec()
        self._master: Master | None = None
        self._keys: dict[str, AESSIV] = {}  # kid -> cipher
        self._raw: dict[str, bytes] = {}  # kid -> data key
        self._names: dict[str, str] = {}  # name -> kid
        self.pending: dict[str, bytes] = {}  # kid -> data key, not in the keyring yet
        self.pending_names: dict[str, str] = {}
        self._ring_tip: str | None = None
        self._ring_epoch: int | None = None
        self._ring_meta: dict[str, Any] | None = None
        self._epoch_keys: dict[tuple[int, str], bytes] = {}
        self._orphans: list[Any] | None = None
        # A forget in progress: blobs and messages sealed with these key ids are
        # re-encoded by the rewrite, and these names get fresh keys.
        self.shredding: set[str] = set()
        self.renew: set[str] = set()

    # -- keys
    @property
    def master(self) -> Master:
        if self._master is None:
            m = load_master(self.git.home)
            if m is None:
                raise KeyError_(f"this store is encrypted and {master_path(self.git.home)} is missing",
                                hint="import its key: `gitmem key import FILE` (made by `gitmem key export` "
                                     "on a machine that has it)")
            if m.lineage != self.lineage:
                raise KeyError_(f"the key in {master_path(self.git.home)} belongs to another store "
                                f"({m.fingerprint}, this one is {fingerprint(self.lineage)})",
                                hint="import this store's key: `gitmem key import FILE`")
            self._master = m
        return self._master

    def forget_master(self) -> None:
        self._master = None

    def ring(self) -> Any:
        return self.git.ref_tip(KEYRING_REF)

    def refresh(self) -> None:
        """Drop cached keys when the keyring moved to another epoch or lost entries
        (a forget here or in another process): called under the write lock."""
        tip = self.git.ref(KEYRING_REF)
        if tip == self._ring_tip:
            return
        self._ring_tip = tip
        # Another process wrote the keyring: a name may have a new key now, or its key
        # may be shredded (a ledger record applied): look names up again.
        self._names.clear()
        meta = self._ring_meta = read_ring_meta(self.git, self.ring())
        epoch = meta["epoch"] if meta else None
        if epoch != self._ring_epoch:
            self._ring_epoch = epoch
            self._keys.clear()
            self._raw.clear()
            self._master = None

    def _epoch_key(self, ring_meta: dict[str, Any]) -> bytes:
        cache = (int(ring_meta["epoch"]), str(ring_meta.get("check")))
        if cache in self._epoch_keys and self._master is not None:
            return self._epoch_keys[cache]
        m = self.master
        key = m.key_at(int(ring_meta["epoch"]))
        if key is None or check_value(key, self.lineage) != ring_meta.get("check"):
            raise KeyError_("the key does not open this store's keyring (a wrong key, or one from "
                            "before `gitmem key rotate`)",
                            hint="import the current key: `gitmem key import FILE`")
        self._epoch_keys[cache] = key
        return key

    def data_key(self, kid: str) -> bytes | None:
        if kid in self._raw:
            return self._raw[kid]
        if kid in self.pending:
            return self.pending[kid]
        for attempt in range(2):
            rev = self.ring()
            wrapped = self.git.read_raw(rev, kid_path(kid))
            if wrapped is not None:
                meta = read_ring_meta(self.git, rev)
                try:
                    key = unwrap(self._epoch_key(meta), kid, wrapped)
                except InvalidTag as e:
                    raise KeyError_("a keyring entry does not open with this key",
                                    hint="import the current key: `gitmem key import FILE`") from e
                self._raw[kid] = key
                return key
            if attempt == 0:
                self._master = None
        return self._recover(kid)

    def _recover(self, kid: str) -> bytes | None:
        """A key the keyring ref does not name: after a crash between writing a keyring
        commit (durable, in the fsynced pack of the write that needed it) and moving the
        ref (not fsynced, to keep a write at one ref fsync), it sits in an unreferenced
        keyring commit. Found there, it is kept for the next keyring write."""
        if self._orphans is None:
            self._orphans = self.git.orphan_keyrings()
        for rev in self._orphans:
            wrapped = self.git.read_raw(rev, kid_path(kid))
            meta = read_ring_meta(self.git, rev) if wrapped is not None else None
            if meta is None or meta.get("lineage") != self.lineage:
                continue
            try:
                key = unwrap(self._epoch_key(meta), kid, wrapped)
            except (InvalidTag, KeyError_):
                continue
            self._raw[kid] = key
            self.pending[kid] = key
            return key
        return None

    def key_for(self, name: str) -> tuple[str, bytes]:
        if name in self.renew:
            self.renew.discard(name)
            self._names.pop(name, None)
            self.pending_names.pop(name, None)
            kid = None
        else:
            kid = self._names.get(name) or self.pending_names.get(name)
        if kid is None and name not in self._names:
            text = self.git.read_raw(self.ring(), name_path(name))
            kid = text.decode().strip() if text else None
        key = self.data_key(kid) if kid else None
        if kid is None or key is None or kid in self.shredding:
            kid, key = os.urandom(KID_LEN).hex(), os.urandom(KEY_LEN)
            self.master  # noqa: B018 - fail before writing anything when there is no key
            self.pending[kid] = key
            self.pending_names[name] = kid
        self._names[name] = kid
        return kid, key

    def _cipher(self, kid: str, key: bytes) -> AESSIV:
        c = self._keys.get(kid)
        if c is None:
            c = self._keys[kid] = AESSIV(key)
        return c

    # -- the codec
    def _seal(self, name: str, data: bytes) -> bytes:
        kid, key = self.key_for(name)
        raw_kid = bytes.fromhex(kid)
        return raw_kid + self._cipher(kid, key).encrypt(data, [MAGIC, raw_kid])

    def _open(self, sealed: bytes, what: str) -> bytes:
        raw_kid, ct = sealed[:KID_LEN], sealed[KID_LEN:]
        kid = raw_kid.hex()
        key = self.data_key(kid)
        if key is None:
            raise ValueError(f"{what} is sealed with a key this store no longer has "
                             f"(forgotten, or the keyring is not synced)")
        try:
            return self._cipher(kid, key).decrypt(ct, [MAGIC, raw_kid])
        except InvalidTag:
            raise ValueError(f"{what}: the ciphertext does not authenticate (damaged or tampered with)") from None

    def encode(self, path: str, data: bytes) -> bytes:
        return MAGIC + self._seal(key_name(path), data)

    def decode(self, path: str, data: bytes) -> bytes:
        if not data.startswith(MAGIC):
            if self.plain_ok:
                return self.plain.decode(path, data)
            raise ValueError("not encrypted (written around gitmem into an encrypted store)")
        return self._open(data[len(MAGIC):], path)

    def encode_message(self, message: str) -> str:
        name = message_key_name(message)
        sealed = base64.b64encode(self._seal(name, message.encode("utf-8"))).decode()
        plain = [(k, v) for k, v in _trailer_pairs(message) if k in _PLAIN_TRAILERS]
        out = MSG_MARK + sealed + "\n"
        if plain:
            out += "\n" + "".join(f"{k}: {v}\n" for k, v in plain)
        return out

    def decode_message(self, message: str) -> str:
        if not message.startswith(MSG_MARK):
            return self.plain.decode_message(message)  # plain history, or written by plain git
        first = message.split("\n", 1)[0][len(MSG_MARK):]
        try:
            sealed = base64.b64decode(first, validate=True)
        except ValueError:
            raise ValueError("commit message: damaged ciphertext") from None
        return self._open(sealed, "commit message").decode("utf-8", "replace")

    def sealed_kid(self, data: bytes) -> str | None:
        """The key id a raw blob is sealed with (None: not an encrypted blob)."""
        if data.startswith(MAGIC) and len(data) >= len(MAGIC) + KID_LEN:
            return data[len(MAGIC):len(MAGIC) + KID_LEN].hex()
        return None

    def stale(self, raw: bytes) -> bool:
        """Whether a raw blob or message is sealed with a key being shredded."""
        if not self.shredding:
            return False
        kid = self.sealed_kid(raw)
        if kid is None and raw.startswith(MSG_MARK.encode()):
            kid = self.message_kid(raw.decode("utf-8", "replace"))
        return kid in self.shredding

    def name_kid(self, name: str) -> str | None:
        """The key id the keyring names for `name` (None: none yet)."""
        kid = self.pending_names.get(name)
        if kid:
            return kid
        text = self.git.read_raw(self.ring(), name_path(name))
        return text.decode().strip() if text else None

    def message_kid(self, message: str) -> str | None:
        if not message.startswith(MSG_MARK):
            return None
        try:
            return base64.b64decode(message.split("\n", 1)[0][len(MSG_MARK):])[:KID_LEN].hex()
        except ValueError:
            return None

    # -- persisting new keys
    def staged_entries(self) -> dict[str, bytes]:
        """Raw keyring files for the pending keys, wrapped under the current epoch."""
        if not self.pending:
            return {}
        self.refresh()
        meta = self._ring_meta
        m = self.master
        epoch_key = self._epoch_key(meta) if meta else m.key
        out: dict[str, bytes] = {}
        for kid, key in self.pending.items():
            out[kid_path(kid)] = wrap(epoch_key, kid, key)
        for name, kid in self.pending_names.items():
            out[name_path(name)] = kid.encode()
        return out

    def committed(self, ring_tip: str | None = None) -> None:
        if ring_tip is not None and self._ring_tip is not None:
            self._ring_tip = ring_tip  # our own write: no need to look names up again
        self._raw.update(self.pending)
        self.pending.clear()
        self.pending_names.clear()


def _trailer_pairs(message: str) -> list[tuple[str, str]]:
    return [(k, v) for k, vs in parse_trailers(message).items() for v in vs]


def read_ring_meta(git: Any, rev: Any) -> dict[str, Any] | None:
    data = git.read_raw(rev, "keyring.json")
    if data is None:
        return None
    try:
        meta = json.loads(data)
        int(meta["epoch"])
        return meta
    except (ValueError, KeyError, TypeError) as e:
        raise GitmemError(f"{KEYRING_REF} is damaged", hint="sync again, or import the key again") from e


def ring_meta(master: Master) -> bytes:
    return (json.dumps({"format": FORMAT, "lineage": master.lineage, "epoch": master.epoch,
                        "check": check_value(master.key, master.lineage)}, sort_keys=True) + "\n").encode()

