"""The codec seam: every blob the object layer writes is encoded here and every blob it
reads is decoded here, and so is the free text of every commit message (trailers stay
readable so that tools and sync can parse ids and ops without a key).

Identity today; the encryption issue plugs an AEAD codec in. `Reversed` is a codec for
tests only: it turns every blob and message around, so a code path that reads or writes
git objects around the seam returns garbage and its test fails."""

from __future__ import annotations

import os
from typing import Mapping, Protocol

from gitmem.core.errors import UsageError
from gitmem.core.trailers import split_message

TEST_CODEC_ENV = "GITMEM_TEST_CODEC"


class Codec(Protocol):
    """Encode on write, decode on read. `path` is the file's path in its tree."""

    name: str

    def encode(self, path: str, data: bytes) -> bytes: ...

    def decode(self, path: str, data: bytes) -> bytes: ...

    def encode_message(self, message: str) -> str: ...

    def decode_message(self, message: str) -> str: ...


class Identity:
    """Plain git: what is written is what plain `git show` prints."""

    name = "identity"

    def encode(self, path: str, data: bytes) -> bytes:
        return data

    def decode(self, path: str, data: bytes) -> bytes:
        return data

    def encode_message(self, message: str) -> str:
        return message

    def decode_message(self, message: str) -> str:
        return message


class Reversed:
    """Test-only: blobs byte-reversed, message free text reversed line by line."""

    name = "reversed"
    MARK = b"\x00rev\x00"

    def encode(self, path: str, data: bytes) -> bytes:
        return self.MARK + data[::-1]

    def decode(self, path: str, data: bytes) -> bytes:
        if not data.startswith(self.MARK):
            raise ValueError(f"{path}: blob was not written through the codec")
        return data[len(self.MARK):][::-1]

    def encode_message(self, message: str) -> str:
        text, trailers = split_message(message)
        out = "~" + text[::-1].replace("\n", "\x1f")
        return out + ("\n\n" + trailers if trailers else "") + "\n"

    def decode_message(self, message: str) -> str:
        text, trailers = split_message(message)
        if not text.startswith("~"):
            return message  # written by plain git: kept as it is
        out = text[1:].replace("\x1f", "\n")[::-1]
        return out + ("\n\n" + trailers if trailers else "") + "\n"


IDENTITY = Identity()
_CODECS = {"identity": IDENTITY, "reversed": Reversed()}


def test_encrypt(env: Mapping[str, str] | None = None) -> bool:
    """`GITMEM_TEST_CODEC=aes-siv`: the test suite runs with every new store encrypted."""
    env = os.environ if env is None else env
    return env.get(TEST_CODEC_ENV) == "aes-siv"


def select_codec(env: Mapping[str, str] | None = None) -> Codec:
    """The store's codec: identity unless the test suite asks for another."""
    env = os.environ if env is None else env
    name = env.get(TEST_CODEC_ENV) or "identity"
    if name == "aes-siv":
        return IDENTITY  # (tests) every store gitmem.init makes is encrypted; others stay plain
    try:
        return _CODECS[name]
    except KeyError:
        raise UsageError(f"unknown codec {name!r} in {TEST_CODEC_ENV}",
                         hint=f"one of: {', '.join(sorted(_CODECS))}") from None
