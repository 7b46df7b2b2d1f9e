"""Configuration: a frozen Config built from flags > GITMEM_* environment >
$GITMEM_HOME/config.toml > defaults. No module-level cache: every call reads afresh.

The schema (`gitmem.core.schema.SCHEMA`) is the one place a setting's type, default and allowed values
live. `load_config` checks the file, the environment and the overrides against it, so
a misspelt section or `w_bm25 = "heavy"` is a one-line `error:`/`hint:` (exit 2) naming
the file and the key, before any command runs. Imports nothing from the features: they
read their numbers through `Config.get`."""

from __future__ import annotations

import os
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any, Mapping

from gitmem.core import paths
from gitmem.core.errors import UsageError
from gitmem.core.schema import DEFAULTS, ENV_VARS, SCHEMA, Invalid, Key, show

@dataclass(frozen=True)
class Config:
    home: Path
    data: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    session: str | None = None
    agent: str | None = None

    def get(self, section: str, key: str, default: Any = None) -> Any:
        """The value set for [section] key, else the schema's default, else `default`."""
        sec = self.data.get(section, {})
        if key in sec:
            return sec[key]
        spec = SCHEMA.get(section)
        known = spec.keys.get(key) if spec else None
        if known is not None and known.default is not None:
            return known.default
        return default

    def section(self, name: str) -> dict[str, Any]:
        """A section's defaults overlaid with what is set (a copy)."""
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



# ---- validation ---------------------------------------------------------------------

def _near(word: str, options: list[str], fmt: str = "{}") -> str:
    import difflib

    close = difflib.get_close_matches(word, options, n=1, cutoff=0.6)
    return f"did you mean {fmt.format(close[0])}? " if close else ""


def _key(name: str) -> str:
    """A key as TOML spells it: bare when it can be, else quoted (paths in [links])."""
    return name if re.fullmatch(r"[A-Za-z0-9_-]+", name) else show(name, limit=200)


def validate(data: Mapping[str, Any], where: str) -> dict[str, dict[str, Any]]:
    """Check a parsed config.toml (or overrides) against SCHEMA; the values as Config
    keeps them. Raises UsageError naming `where`, the key and what is allowed."""
    out: dict[str, dict[str, Any]] = {}
    for name, values in data.items():
        sec = SCHEMA.get(name)
        if sec is None:
            if not isinstance(values, dict):
                raise UsageError(f"{where}: {name} = {show(values)} is outside any section",
                                 hint="put each setting under its [section]; sections: " + ", ".join(SCHEMA))
            raise UsageError(f"{where}: unknown section [{_key(name)}]",
                             hint=_near(name, list(SCHEMA), "[{}]") + "sections: " + ", ".join(SCHEMA))
        if not isinstance(values, dict):
            raise UsageError(f"{where}: {name} = {show(values)}: expected a [{name}] section",
                             hint=f"write it as [{name}] followed by key = value lines")
        out[name] = {k: check_value(name, k, v, where) for k, v in values.items()}
    return out


def check_value(section: str, key: str, value: Any, where: str) -> Any:
    """One [section] key = value checked against SCHEMA (UsageError if not allowed)."""
    sec = SCHEMA.get(section)
    if sec is None:
        raise UsageError(f"{where}: unknown section [{_key(section)}]",
                         hint=_near(section, list(SCHEMA), "[{}]") + "sections: " + ", ".join(SCHEMA))
    spec = sec.keys.get(key) or sec.any_key
    if spec is None:
        raise UsageError(f"{where}: [{section}] unknown key {_key(key)}",
                         hint=_near(key, list(sec.keys)) + f"[{section}] keys: " + ", ".join(sec.keys))
    try:
        return spec.check(value)
    except Invalid as e:
        detail = f" ({e.detail})" if e.detail else ""
        raise UsageError(f"{where}: [{section}] {_key(key)} = {show(value)}: expected {e.expected}{detail}",
                         hint=_hint(section, key, spec)) from None


def _hint(section: str, key: str, spec: Key) -> str:
    text = f"[{section}] {_key(key)}: {spec.doc}"
    if spec.default is not None and spec.default != ():
        default = list(spec.default) if isinstance(spec.default, tuple) else spec.default
        text += f"; default {show(default, limit=200)}"
    return (text + "; remove the line to use the default") if spec.default is not None else text


def env_setting(section: str, key: str, env: Mapping[str, str] | None = None) -> Any:
    """One setting from the environment alone (before a store's config.toml is read, as
    a hook does): its GITMEM_* variable checked by the schema, else the default.
    UsageError on a bad value."""
    env = os.environ if env is None else env
    spec = SCHEMA[section].keys[key]
    found = _from_env({spec.env: env[spec.env]}) if spec.env and env.get(spec.env) else {}
    return found.get(section, {}).get(key, spec.default)


def _from_env(env: Mapping[str, str]) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for var, (section, key) in ENV_VARS.items():
        text = env.get(var)
        if not text:
            continue
        spec = SCHEMA[section].keys[key]
        try:
            value = spec.check(spec.parse_env(text))
        except Invalid as e:
            detail = f" ({e.detail})" if e.detail else ""
            raise UsageError(f"{var}={show(text)}: expected {e.expected}{detail}",
                             hint=f"{var} sets [{section}] {key}: {spec.doc}; fix or unset it") from None
        out.setdefault(section, {})[key] = value
    return out


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
    """Build a Config: overrides > env > config.toml > defaults, each checked against
    SCHEMA (UsageError, exit 2, on an unknown section or key or a bad value)."""
    env = os.environ if env is None else env
    home_path = paths.home_dir(home, env)
    home_path = home_path.expanduser()
    path = home_path / "config.toml"
    data: dict[str, dict[str, Any]] = {}
    layers = (validate(read_toml(path), str(path)), _from_env(env),
              validate(dict(overrides or {}), "overrides"))
    for layer in layers:
        for sec, values in layer.items():
            data.setdefault(sec, {}).update(values)
    frozen = MappingProxyType({k: MappingProxyType(v) for k, v in data.items()})
    return Config(
        home=home_path,
        data=frozen,
        session=session or env.get("GITMEM_SESSION") or None,
        agent=agent or env.get("GITMEM_AGENT") or None,
    )


def write_config_value(home: Path, section: str, key: str, value: Any) -> None:
    """Set one value in config.toml atomically (used by `link`, `init --name`); the
    value is checked first, so what is written always loads."""
    import tomli_w

    from gitmem.core.fsutil import atomic_write

    path = Path(home) / "config.toml"
    data = read_toml(path)
    if value is None:
        data.get(section, {}).pop(key, None)
    else:
        check_value(section, key, value, str(path))
        data.setdefault(section, {})[key] = value
    atomic_write(path, tomli_w.dumps(data).encode())
