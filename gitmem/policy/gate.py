"""The gate for names: a scope, an agent, a key, a remote's name or URL becomes a ref
name, an author, a config entry or a file name, where redaction cannot reach it. So a name
that holds a secret is refused (one UsageError, before anything is written), where free
text (a memory, a reason, a session id) is redacted by policy.redact instead."""

from __future__ import annotations

import re
from typing import Iterable
from urllib.parse import urlsplit

from gitmem.core.errors import UsageError
from gitmem.policy.redact import find_secrets

# user:password@ or a token as the user of an http(s) URL: what git would store in config.
_USERINFO = re.compile(r"^[a-z][a-z0-9+.-]*://([^/@]+)@", re.I)


def check_name(kind: str, value: str | None, allow: Iterable[str] = ()) -> str | None:
    """`value` unchanged, or UsageError when it holds a secret (a known token format)."""
    if value is None:
        return None
    if find_secrets(str(value), allow, entropy=False):
        raise UsageError(f"the {kind} name holds what looks like a secret; nothing was written",
                         hint=f"choose a {kind} name without credentials in it")
    return value


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
