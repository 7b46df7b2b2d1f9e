"""Remotes, fetch and push, through the git command.

Why the git command and not libgit2: it is what users' credentials are set up for —
credential helpers (osxkeychain, libsecret, `store`, GitHub CLI), `~/.ssh/config`
host aliases, ssh-agent, `core.sshCommand`, proxies, `insteadOf` rewrites — and it
speaks every URL git speaks (paths, file://, git://, http(s)://, ssh://, scp-like).
libgit2 would need each of those re-implemented by hand.

Runs headless: no terminal prompt (GIT_TERMINAL_PROMPT=0, stdin closed, its own
session so ssh cannot open /dev/tty), so a missing credential is an error, never a
hang."""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

from gitmem.core.errors import GitmemError, NotFound, RemoteError, UsageError
from gitmem.store import gitcmd

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}\Z")


def tracking_prefix(name: str) -> str:
    """Where a remote's scopes are tracked: refs/remotes/NAME/<scope>."""
    return f"refs/remotes/{name}/"


def tracking_ref(name: str, remote_ref: str) -> str:
    """The local tracking ref of a remote ref (scopes, notes, gitmem refs)."""
    if remote_ref.startswith("refs/heads/"):
        return tracking_prefix(name) + remote_ref[len("refs/heads/"):]
    return f"refs/gitmem/remotes/{name}/{remote_ref[len('refs/'):]}"


def fetch_refspecs(name: str) -> list[str]:
    """What gitmem fetches (written into the remote's config, so plain `git fetch`
    does the same): scopes, notes and gitmem's own refs, each to a tracking ref."""
    return [f"+refs/heads/*:{tracking_prefix(name)}*",
            f"+refs/notes/*:refs/gitmem/remotes/{name}/notes/*",
            # Patterns, not exact refs: `*` also matches nothing, and a pattern the remote
            # does not have is no error (an empty remote has neither yet).
            f"+refs/gitmem/redactions*:refs/gitmem/remotes/{name}/gitmem/redactions*",
            f"+refs/gitmem/meta*:refs/gitmem/remotes/{name}/gitmem/meta*",
            f"+refs/gitmem/keyring*:refs/gitmem/remotes/{name}/gitmem/keyring*"]


def check_name(name: str) -> str:
    if not isinstance(name, str) or not _NAME.match(name) or name.endswith(".lock") or ".." in name:
        raise UsageError(f"invalid remote name {name!r}",
                         hint="letters, digits, '.', '_' and '-', e.g. origin or laptop")
    return name


@dataclass
class PushResult:
    ref: str
    ok: bool
    status: str  # "new", "updated", "forced", "deleted", "up-to-date", "rejected"
    reason: str = ""


class Transport:
    """The remotes of one bare repository."""

    def __init__(self, git_dir: Path, timeout: float | None = None):
        self.git_dir = Path(git_dir)
        self.timeout = timeout
        self._remotes: dict[str, str] | None = None  # read once per Transport

    # ---- configuration ------------------------------------------------------------------
    def remotes(self) -> dict[str, str]:
        """name -> URL, as in repo.git/config."""
        if self._remotes is not None:
            return dict(self._remotes)
        out = gitcmd.run(self.git_dir, "config", "--get-regexp", r"^remote\..*\.url$", check=False)
        found = {}
        for line in out.splitlines():
            key, _, url = line.partition(" ")
            found[key[len("remote."):-len(".url")]] = url
        self._remotes = dict(sorted(found.items()))
        return dict(self._remotes)

    def url(self, name: str) -> str:
        remotes = self.remotes()
        if name not in remotes:
            known = ", ".join(remotes) or "none yet"
            raise NotFound(f"no remote {name!r} (known: {known})",
                           hint="`gitmem remote add NAME URL` adds one")
        return remotes[name]

    def add(self, name: str, url: str) -> None:
        check_name(name)
        if not url or not url.strip() or url.startswith("-"):
            raise UsageError(f"invalid URL {url!r}", hint="a path, file://, git://, http(s)://, ssh:// or host:path")
        if name in self.remotes():
            raise UsageError(f"remote {name!r} exists", hint=f"`gitmem remote remove {name}` first")
        gitcmd.run(self.git_dir, "config", f"remote.{name}.url", url)
        gitcmd.run(self.git_dir, "config", f"remote.{name}.tagOpt", "--no-tags")
        for spec in fetch_refspecs(name):
            gitcmd.run(self.git_dir, "config", "--add", f"remote.{name}.fetch", spec)
        self._remotes = None

    def remove(self, name: str) -> None:
        self.url(name)
        gitcmd.run(self.git_dir, "remote", "remove", name)  # drops tracking refs/remotes/NAME/*
        self._remotes = None

    # ---- talking to it ------------------------------------------------------------------
    def _git(self, *args: str, input: bytes | None = None) -> subprocess.CompletedProcess:
        env = gitcmd.git_env({"GIT_TERMINAL_PROMPT": "0", "GCM_INTERACTIVE": "never",
                              "SSH_ASKPASS_REQUIRE": "never"})
        env.pop("SSH_ASKPASS", None)
        try:
            return subprocess.run(["git", f"--git-dir={self.git_dir}", *args], input=input,
                                  capture_output=True, env=env, timeout=self.timeout,
                                  stdin=None if input is not None else subprocess.DEVNULL,
                                  start_new_session=True)
        except FileNotFoundError as e:
            raise GitmemError("the git command is not installed", hint="install git 2.30 or newer") from e
        except subprocess.TimeoutExpired as e:
            raise RemoteError(f"git {args[0]} timed out after {self.timeout:.3g} s",
                              hint="the remote is slow or unreachable; retry later") from e

    def ls_remote(self, name: str) -> dict[str, str]:
        """Every ref of the remote -> id (one round trip, nothing downloaded)."""
        url = self.url(name)
        res = self._git("ls-remote", name)
        if res.returncode != 0:
            raise _remote_error(name, url, res.stderr.decode(errors="replace"))
        out = {}
        for line in res.stdout.decode().splitlines():
            oid, _, ref = line.partition("\t")
            if ref and not ref.endswith("^{}") and ref != "HEAD":
                out[ref] = oid
        return out

    def fetch(self, name: str, refs: list[str] | None = None) -> None:
        """Fetch into the tracking refs (only they move; --prune drops gone ones)."""
        url = self.url(name)
        specs = fetch_refspecs(name) if refs is None else [f"+{r}:{tracking_ref(name, r)}" for r in refs]
        args = ["fetch", "--quiet", "--no-tags", "--no-write-fetch-head"]
        if refs is None:
            args.append("--prune")
        res = self._git(*args, name, *specs)
        if res.returncode != 0:
            raise _remote_error(name, url, res.stderr.decode(errors="replace"))

    def push(self, name: str, updates: list[tuple[str, str, str | None]]) -> list[PushResult]:
        """Push (local commit, remote ref, expected remote id or None for "must not
        exist") with that expectation as the lease: a ref the remote moved meanwhile is
        rejected, never overwritten. Returns one result per ref."""
        if not updates:
            return []
        url = self.url(name)
        args = ["push", "--porcelain", "--no-verify"]
        for src, dst, expect in updates:
            args.append(f"--force-with-lease={dst}:{expect or ''}")
        args.append(name)
        args += [f"{src}:{dst}" if src else f":{dst}" for src, dst, _ in updates]
        res = self._git(*args)
        out = res.stdout.decode(errors="replace")
        results = _parse_porcelain(out)
        if not results and res.returncode != 0:
            raise _remote_error(name, url, res.stderr.decode(errors="replace"))
        err = res.stderr.decode(errors="replace")
        for r in results:
            if not r.ok and not r.reason:
                r.reason = err.strip().splitlines()[-1] if err.strip() else "rejected"
        return results


_FLAGS = {" ": "updated", "+": "forced", "-": "deleted", "*": "new", "=": "up-to-date", "!": "rejected"}


def _parse_porcelain(out: str) -> list[PushResult]:
    results = []
    for line in out.splitlines():
        if len(line) < 3 or line[1] != "\t":
            continue
        flag, rest = line[0], line[2:]
        spec, _, summary = rest.partition("\t")
        dst = spec.partition(":")[2]
        reason = ""
        m = re.search(r"\((.*)\)\s*$", summary)
        if m:
            reason = m.group(1)
        status = _FLAGS.get(flag, "rejected")
        results.append(PushResult(dst, status != "rejected", status, reason if status == "rejected" else ""))
    return results


def _remote_error(name: str, url: str, stderr: str) -> RemoteError:
    text = " ".join(stderr.split())
    # What git says, not the URL or path it quotes: "/tmp/pytest-401/x.git" holds no HTTP 401.
    low = re.sub(r"'[^']*'", "''", text.replace(url, "")).lower()
    where = f"remote {name} ({_safe_url(url)})"
    if any(s in low for s in ("authentication failed", "permission denied", "could not read username",
                              "invalid credentials", "access denied", "terminal prompts disabled")) \
            or re.search(r"(?<![\w/.-])40[13](?![\w/.-])", low):
        return RemoteError(f"{where}: authentication failed",
                           hint="set up credentials as for git: a credential helper, ssh-agent or ~/.ssh/config")
    if any(s in low for s in ("does not appear to be a git repository", "repository not found", "not found",
                              "no such file or directory", "not a git repository")):
        return RemoteError(f"{where}: no repository there",
                           hint="create an empty bare repository (`git init --bare`) or fix the URL "
                                f"with `gitmem remote remove {name}` and `gitmem remote add`")
    if any(s in low for s in ("could not resolve", "connection refused", "timed out", "unable to connect",
                              "network is unreachable", "no route to host", "couldn't connect",
                              "failed to connect", "connection reset")):
        return RemoteError(f"{where}: unreachable", hint="check the network and the URL; retry later")
    detail = text[-300:] if text else "git failed"
    return RemoteError(f"{where}: {detail}", hint="run the same with plain `git fetch` to see more")


def _safe_url(url: str) -> str:
    """The URL without a password."""
    return re.sub(r"//([^/@:]+):[^/@]*@", r"//\1:***@", url)
