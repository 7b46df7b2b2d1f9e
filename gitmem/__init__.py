"""gitmem: a git-backed versioned memory store for AI agents and people.

    import gitmem
    store = gitmem.open()            # $GITMEM_HOME or ~/.gitmem
    mem = store.remember("Prefers tabs", type="preference")
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

if TYPE_CHECKING:
    from .api import Store


def open(home: Any = None, **kw: Any) -> "Store":  # noqa: A001
    """Open the store at `home` (default $GITMEM_HOME, else ~/.gitmem)."""
    from . import api

    return api.open(home, **kw)


def init(home: Any = None, **kw: Any) -> "Store":
    """Create the store if needed and open it."""
    from . import api

    return api.init(home, **kw)


__all__ = ["open", "init", "__version__"]
