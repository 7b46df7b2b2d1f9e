"""Configuration: a frozen Config built from flags > GITMEM_* environment >
$GITMEM_HOME/config.toml > defaults. No module-level cache: every call reads afresh."""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any, Mapping

from .errors import UsageError

DEFAULT_TYPES = ("preference", "decision", "fact", "todo", "lesson", "reference", "note")

# Feature sections and their documented defaults. Every tunable lives here so that
# `gitmem config` style tooling and the README can list them from one place.
DEFAULTS: dict[str, dict[str, Any]] = {
    "store": {
        "max_text_bytes": 64 * 1024,
        "fsync": True,
        "gc_every": 200,  # run `git gc --auto` about once per this many commits
        "default_scope": "main",
        "types": list(DEFAULT_TYPES),
    },
    "identity": {"name": "", "email": ""},
    "redact": {"allow": [], "entropy": True},
}


def default_home() -> Path:
    return Path(os.environ.get("GITMEM_HOME") or Path.home() / ".gitmem")


@dataclass(frozen=True)
class Config:
    home: Path
    data: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    session: str | None = None
    agent: str | None = None

    def get(self, section: str, key: str, default: Any = None) -> Any:
        sec = self.data.get(section, {})
        if key in sec:
            return sec[key]
        return DEFAULTS.get(section, {}).get(key, default)

    def section(self, name: str) -> dict[str, Any]:
        merged = dict(DEFAULTS.get(name, {}))
        merged.update(self.data.get(name, {}))
        return merged

    # Frequently used fields, spelled out for readability at call sites.
    @property
    def max_text_bytes(self) -> int:
        return int(self.get("store", "max_text_bytes"))

    @property
    def fsync(self) -> bool:
        return bool(self.get("store", "fsync"))

    @property
    def types(self) -> tuple[str, ...]:
        return tuple(self.get("store", "types"))

    @property
    def config_path(self) -> Path:
        return self.home / "config.toml"


# Environment variables that map onto config keys (section, key, parser).
_ENV_MAP: dict[str, tuple[str, str, Any]] = {
    "GITMEM_MAX_TEXT_BYTES": ("store", "max_text_bytes", int),
    "GITMEM_FSYNC": ("store", "fsync", lambda v: v.lower() not in ("0", "false", "no", "off")),
    "GITMEM_DEFAULT_SCOPE": ("store", "default_scope", str),
    "GITMEM_NAME": ("identity", "name", str),
    "GITMEM_EMAIL": ("identity", "email", str),
    "GITMEM_EMBED_MODEL": ("embed", "model", str),
    "GITMEM_EMBED_PATH": ("embed", "path", str),
}


def read_toml(path: Path) -> dict[str, Any]:
    try:
        with open(path, "rb") as fh:
            return tomllib.load(fh)
    except FileNotFoundError:
        return {}
    except (tomllib.TOMLDecodeError, OSError) as e:
        raise UsageError(f"cannot read {path}: {e}", hint="fix or remove the file") from e


def load_config(
    home: str | os.PathLike[str] | None = None,
    env: Mapping[str, str] | None = None,
    overrides: Mapping[str, Mapping[str, Any]] | None = None,
    session: str | None = None,
    agent: str | None = None,
) -> Config:
    """Build a Config: overrides > env > config.toml > defaults."""
    env = os.environ if env is None else env
    home_path = Path(home) if home else Path(env.get("GITMEM_HOME") or Path.home() / ".gitmem")
    home_path = home_path.expanduser()
    data: dict[str, dict[str, Any]] = {}
    for sec, values in read_toml(home_path / "config.toml").items():
        if isinstance(values, dict):
            data.setdefault(sec, {}).update(values)
    for var, (sec, key, parse) in _ENV_MAP.items():
        if env.get(var):
            try:
                data.setdefault(sec, {})[key] = parse(env[var])
            except ValueError as e:
                raise UsageError(f"bad value for {var}: {env[var]!r}") from e
    for sec, values in (overrides or {}).items():
        data.setdefault(sec, {}).update(values)
    frozen = MappingProxyType({k: MappingProxyType(v) for k, v in data.items()})
    return Config(
        home=home_path,
        data=frozen,
        session=session or env.get("GITMEM_SESSION") or None,
        agent=agent or env.get("GITMEM_AGENT") or None,
    )


def write_config_value(home: Path, section: str, key: str, value: Any) -> None:
    """Set one value in config.toml atomically (used by `link`, `init --name`)."""
    import tomli_w

    from .fsutil import atomic_write

    path = Path(home) / "config.toml"
    data = read_toml(path)
    if value is None:
        data.get(section, {}).pop(key, None)
    else:
        data.setdefault(section, {})[key] = value
    atomic_write(path, tomli_w.dumps(data).encode())
