"""What every hook handler uses: the [hooks] settings, the deadline, the result it fills, session cursors, and handing indexing to a warm process."""

from __future__ import annotations

import re
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable

from gitmem.core.errors import GitmemError, UsageError

if TYPE_CHECKING:
    from gitmem.api import Store
    from gitmem.core.config import Config
    from gitmem.frontends.runtime import Runtime


def hook_setting(config: "Config | None", key: str) -> Any:
    """A [hooks] setting (see config.SCHEMA); without a config (before a store is opened)
    its GITMEM_* variable as the schema reads it, else the default (a hook fails open: a
    bad value is the default here, and the error of the store's own config says why)."""
    if config is not None:
        return config.get("hooks", key)
    # Imported here: the launcher passes --budget, so a prompt hook handed to the daemon
    # never gets here and never loads the config schema.
    from gitmem.core.config import env_setting
    from gitmem.core.schema import DEFAULTS

    try:
        return env_setting("hooks", key)
    except UsageError:
        return DEFAULTS["hooks"][key]


def cursor_name(session: str) -> str:
    """A watch cursor name for a session id (letters, digits, '.', '_', '-')."""
    return "session-" + re.sub(r"[^A-Za-z0-9._-]", "_", session)[:80]


# ---- running with a deadline ----------------------------------------------------------

class HookTimeout(GitmemError):
    exit_code = 0


def with_deadline(fn: Callable[[], Any], seconds: float) -> Any:
    """Run fn in a daemon thread; raise HookTimeout if it is not done in `seconds`.
    The thread is abandoned (the caller exits the process soon after)."""
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["value"] = fn()
        except BaseException as e:  # noqa: BLE001 - handed to the caller
            box["error"] = e

    t = threading.Thread(target=target, daemon=True)
    t.start()
    t.join(max(0.0, seconds))
    if t.is_alive():
        raise HookTimeout(f"gave up after {seconds:.2f}s")
    if "error" in box:
        raise box["error"]
    return box.get("value")


@dataclass
class HookResult:
    stdout: str = ""
    notes: list[str] = field(default_factory=list)  # for stderr
    timings: dict[str, float] = field(default_factory=dict)
    abandoned: bool = False  # a worker thread is still running: exit hard


def time_left(deadline: float) -> float:
    return deadline - time.monotonic()


def warm_index(store: "Store", rt: "Runtime") -> None:
    """Index (and embed) what a hook just wrote, so the next prompt's recall finds the
    index fresh instead of doing that work on its clock: in a running `gitmem serve`,
    else in a detached process."""
    if not hook_setting(store.config, "warm_index"):
        return
    # A running daemon does it with the model it has loaded: no second model in memory.
    if rt.ask_refresh(store.home, timeout=1.0):
        return
    code = "import sys, gitmem; gitmem.open(sys.argv[1]).index.ensure_fresh()"
    try:
        subprocess.Popen([sys.executable, "-c", code, str(store.home)], stdin=subprocess.DEVNULL,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    except OSError:
        pass  # an optimisation: the next recall catches up by itself
