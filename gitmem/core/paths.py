"""The layout of a gitmem home, in one place (standard library only: the launcher and
the daemon client use it too).

    $GITMEM_HOME (default ~/.gitmem; --home overrides)
      repo.git/            the store (gitmem.store)
      index.duckdb         the derived index (gitmem.index)
      config.toml          local settings (gitmem.core.config)
      keys/                encryption keys (gitmem.store.crypto)
      state/               everything else this machine keeps:
        locks/<name>.lock    flocks: write, index, sync, dream, extract, receipts, serve, ...
        serve.sock, serve.pid, serve.log   the daemon
        cursors/ extract/ sync/ hook-sessions/   cursors of watch, extract, sync and hooks
        access.jsonl, receipts.jsonl, purge-pending.json, hooks-installed.json, ...
"""

from __future__ import annotations

import os

# Not `from pathlib import Path` / `typing` at import time: the launcher imports this module
# on every command and pays for each module it loads (pathlib ~3 ms).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Mapping

DEFAULT_HOME = "~/.gitmem"


def home_dir(home: str | os.PathLike[str] | None = None, env: Mapping[str, str] | None = None) -> Path:
    """The home a command works on: `home` (--home), else $GITMEM_HOME, else ~/.gitmem."""
    from pathlib import Path

    return Path(home_str(home, env))


def home_str(home: str | os.PathLike[str] | None = None, env: Mapping[str, str] | None = None) -> str:
    """home_dir as a string, without loading pathlib (the launcher)."""
    env = os.environ if env is None else env
    return os.path.expanduser(str(home or env.get("GITMEM_HOME") or DEFAULT_HOME))


def state(home: str | os.PathLike[str]) -> Path:
    """`state/`: what this machine keeps beside the store (never synced)."""
    from pathlib import Path

    return Path(home) / "state"


def state_file(home: str | os.PathLike[str], *parts: str) -> Path:
    """A file (or folder) under `state/`."""
    return state(home).joinpath(*parts)


def serve_socket(home: str | os.PathLike[str]) -> str:
    """`state/serve.sock`, as a string (the launcher connects to it without pathlib)."""
    return os.path.join(os.fspath(home), "state", "serve.sock")


def locks(home: str | os.PathLike[str]) -> Path:
    """`state/locks/`: every flock of the home."""
    return state(home) / "locks"


def lock(home: str | os.PathLike[str], name: str) -> Path:
    """`state/locks/<name>.lock`."""
    return locks(home) / f"{name}.lock"


def cache_dir(env: Mapping[str, str] | None = None) -> Path:
    """The user's cache folder for gitmem ($XDG_CACHE_HOME/gitmem, else ~/.cache/gitmem)."""
    from pathlib import Path

    env = os.environ if env is None else env
    return Path(env.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")) / "gitmem"
