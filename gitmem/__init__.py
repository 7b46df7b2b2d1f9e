"""gitmem: a git-backed versioned memory store for AI agents and people.

    import gitmem
    store = gitmem.open()            # $GITMEM_HOME or ~/.gitmem
    mem = store.remember("Prefers tabs", type="preference")
"""

from __future__ import annotations

from gitmem.core.version import __version__

# Not `from typing import ...`: the `gitmem` entry point (gitmem/frontends/launch.py) imports this
# package on every command, and typing costs it 5 ms.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from gitmem.api import Store


def open(home: Any = None, **kw: Any) -> "Store":  # noqa: A001
    """Open the store at `home` (default $GITMEM_HOME, else ~/.gitmem)."""
    from gitmem import api

    return api.open(home, **kw)


def init(home: Any = None, **kw: Any) -> "Store":
    """Create the store if needed and open it."""
    from gitmem import api

    return api.init(home, **kw)


__all__ = ["open", "init", "__version__"]
