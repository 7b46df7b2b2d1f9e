"""The gate for names: a scope, an agent, a session, a key, a cursor, a linked path, a
remote's name or URL becomes a ref name, an author, a trailer, a config entry or a file
name, where redaction cannot reach it. So a name that holds a secret is refused (one
UsageError, before anything is written), where free text (a memory, a reason, a query) is
redacted by policy.redact instead. `scrub` is for what goes out: an error message may
quote the value it refused."""

from __future__ import annotations

import re
from typing import Any, Iterable
from urllib.parse import urlsplit

from gitmem.core.errors import UsageError, set_scrubber
from gitmem.policy.redact import find_secrets, redact

# user:password@ or a token as the user of an http(s) URL: what git would store in config.
_USERINFO = re.compile(r"^[a-z][a-z0-9+.-]*://([^/@]+)@", re.I)


def check_name(kind: str, value: str | None, allow: Iterable[str] = ()) -> str | None:
    """`value` unchanged, or UsageError when it holds a secret (a known token format)."""
    if value is None:
        return None
    if find_secrets(str(value), allow, entropy=False):
        raise UsageError(f"the {kind} holds what looks like a secret (a token or password); nothing was written",
                         hint=f"use another {kind}: names, ids and paths are never redacted, so they may hold none")
    return value


def check_names(kind: str, values: Iterable[str], allow: Iterable[str] = ()) -> Any:
    """`values` (tags, say) unchanged, or UsageError when one holds a secret."""
    for v in values:
        check_name(kind, v, allow)
    return values


def check_remote_url(url: str, allow: Iterable[str] = ()) -> str:
    """A remote URL that would keep a password or token in repo.git/config is refused."""
    m = _USERINFO.match(url.strip())
    if m and (":" in m.group(1) or urlsplit(url).scheme.lower() in ("http", "https")
              and find_secrets(m.group(1), allow, entropy=False)):
        raise UsageError("the remote URL carries a password or token, which git would keep in "
                         "repo.git/config; nothing was written",
                         hint="give the URL without it and let a git credential helper supply it "
                              "(git config --global credential.helper store|cache|osxkeychain)")
    if find_secrets(url, allow, entropy=False):
        raise UsageError("the remote URL holds what looks like a secret; nothing was written",
                         hint="give the URL without it and let a git credential helper supply it")
    return url


def scrub(text: str | None, allow: Iterable[str] = ()) -> str | None:
    """`text` (a message for a person or an agent) with every secret replaced."""
    if not text:
        return text
    return redact(text, allow, entropy=False)[0]


set_scrubber(lambda text: redact(text, (), entropy=False)[0])
