"""One exception hierarchy for gitmem; the CLI maps it to exit codes in one place."""

from __future__ import annotations

from typing import Callable

# An error may quote the value it refuses, a token say, and errors reach people, agents
# and logs. policy.gate installs the secret scrubber here (core imports nothing above
# it); every message and hint made after that passes through it.
_scrubber: list[Callable[[str], str]] = []


def set_scrubber(scrub: Callable[[str], str]) -> None:
    """What every GitmemError's message and hint pass through from now on."""
    _scrubber[:] = [scrub]


class GitmemError(Exception):
    """Base class: a message for people, an optional hint and an exit code."""

    exit_code = 1
    default_hint: str | None = None

    def __init__(self, message: str, hint: str | None = None):
        if _scrubber:
            message = _scrubber[0](message) if isinstance(message, str) else message
            hint = _scrubber[0](hint) if isinstance(hint, str) else hint
        super().__init__(message)
        self.message = message
        self.hint = hint if hint is not None else self.default_hint

    def __str__(self) -> str:
        return self.message


class UsageError(GitmemError):
    """The caller asked for something malformed (bad text, scope, field...)."""

    exit_code = 2


class MalformedMemory(UsageError):
    """A memory file whose front matter does not parse (written by hand or plain git)."""

    def __init__(self, message: str, path: str | None = None, hint: str | None = None):
        super().__init__(message, hint=hint or "fix the file (`gitmem edit ID`, or plain git); "
                                              "`gitmem doctor` lists every malformed memory")
        self.path = path


class NotFound(GitmemError):
    """An id, key, revision or path that does not exist."""

    exit_code = 4


class StoreMissing(GitmemError):
    """No store at the home (exit 3; internal errors exit 70)."""

    exit_code = 3
    default_hint = "run `gitmem init` first (or pass --home / set GITMEM_HOME)"


class ConflictError(GitmemError):
    """A write lost a race too many times or a lock is held."""

    exit_code = 5



class LockBusy(ConflictError):
    """A lock stayed held by another process past the wait asked for (fsutil.file_lock)."""

class IndexError_(GitmemError):
    """The derived index could not be opened or built."""

    exit_code = 6


class ImportFormatError(UsageError):
    """A malformed import file; carries the line number."""

    def __init__(self, message: str, line: int | None = None, hint: str | None = None):
        if line is not None:
            message = f"line {line}: {message}"
        super().__init__(message, hint)
        self.line = line


class CorruptObject(GitmemError):
    """A git object that cannot be decoded (damaged, or written around gitmem)."""

    exit_code = 7


class RemoteError(GitmemError):
    """A remote that cannot be reached, refuses us, or is not a gitmem store."""

    exit_code = 8


# Exit codes: 0 ok, 1 error, 2 usage/config, 3 no store, 4 not found, 5 conflict/lock,
# 6 index, 7 corrupt object, 8 remote, 70 internal error (a bug: EX_SOFTWARE), 130 interrupted.
EXIT_INTERNAL = 70
