"""Code repositories: linking a repo to a project scope, notes on code commits, `why`.

Everything here works on the *code* repository, never the memory store's own: notes
(`refs/notes/gitmem`) go through pygit2 on that repo, blame through the git command
with GIT_DIR & co. scrubbed from the environment. A note carries ids and scopes only,
never memory text: code repos are pushed to places memory must not go."""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import pygit2

from .errors import GitmemError, NotFound, UsageError
from .fsutil import file_lock
from .store import NOTES_REF, git_env

if TYPE_CHECKING:
    from .api import Store
    from .model import Memory

_PART_BAD = re.compile(r"[^A-Za-z0-9._-]+")
_NOTE_LINE = re.compile(r"^gitmem: ([0-9a-z]{13}) scope=(\S+)\s*$")
_SCP = re.compile(r"^(?:[^@/\s]+@)?([^:/\s]+):(?!//)(.+)$")  # git@host:owner/repo.git


# ---- finding the repository and its project key ----------------------------------------
def open_repo(path: str | os.PathLike[str] | None = None) -> pygit2.Repository:
    """The code repository containing `path` (default: the current directory)."""
    start = Path(path or os.getcwd()).resolve()
    found = pygit2.discover_repository(str(start))
    if not found:
        raise NotFound(f"not inside a git repository: {start}",
                       hint="run this in a code repository, or give its path")
    repo = pygit2.Repository(found)
    if repo.workdir is None:
        raise UsageError(f"{found} is a bare repository", hint="link a checkout with a work tree")
    return repo


def repo_root(repo: pygit2.Repository) -> Path:
    return Path(repo.workdir).resolve()


def _clean_part(p: str) -> str:
    p = _PART_BAD.sub("-", p).strip("-._")
    while ".." in p:
        p = p.replace("..", ".")
    if p.endswith(".lock"):
        p = p[:-5]
    return p[:100].rstrip("-._")


def normalise_url(url: str) -> str | None:
    """`git@github.com:owner/repo.git`, `https://u:p@github.com/owner/repo` ... ->
    `github.com/owner/repo`; None when the URL names no host (a local path)."""
    url = url.strip()
    host, path = None, None
    if "://" in url:
        try:
            parts = urlsplit(url)
            host, path = parts.hostname, parts.path
        except ValueError:  # "Invalid IPv6 URL", a bad port ...
            return None
        if parts.scheme == "file":
            return None
    else:
        m = _SCP.match(url)
        if m and "/" not in m.group(1) and not url.startswith(("/", ".")):
            host, path = m.group(1), m.group(2)
    if not host or not path:
        return None
    parts = [_clean_part(p) for p in path.strip("/").removesuffix(".git").split("/")]
    parts = [p for p in parts if p]
    host = _clean_part(host.lower())
    if not host or not parts:
        return None
    return "/".join([host, *parts])


def public_url(url: str) -> str:
    """The origin URL without credentials (it is written into memories)."""
    if "://" in url:
        try:
            parts = urlsplit(url)
            if parts.username or parts.password:
                netloc = parts.hostname or ""
                if parts.port:
                    netloc += f":{parts.port}"
                return parts._replace(netloc=netloc).geturl()
        except ValueError:
            # Unparseable: keep only what follows the last '@' of the authority.
            scheme, _, rest = url.partition("://")
            return f"{scheme}://{rest.rpartition('@')[2]}"
        return url
    m = re.match(r"^([^@/\s:]+):[^@/\s]*@(.+)$", url)  # user:password@host:path
    return f"{m.group(1)}@{m.group(2)}" if m else url


def origin_url(repo: pygit2.Repository) -> str | None:
    try:
        return repo.remotes["origin"].url
    except (KeyError, ValueError):
        return None


def project_key(repo: pygit2.Repository) -> str:
    """From the `origin` URL (`github.com/owner/repo`), else folder name + path hash."""
    url = origin_url(repo)
    key = normalise_url(url) if url else None
    if key:
        return key
    root = repo_root(repo)
    name = _clean_part(root.name) or "repo"
    digest = hashlib.sha1(str(root).encode()).hexdigest()[:8]
    return f"{name}-{digest}"


# ---- link / unlink ------------------------------------------------------------------------
def link(store: "Store", path: str | os.PathLike[str] | None = None) -> dict[str, Any]:
    """Record the code repo at `path` as project scope `project/<key>` in config."""
    from .config import write_config_value
    from .model import check_scope

    repo = open_repo(path)
    root = repo_root(repo)
    scope = check_scope(f"project/{project_key(repo)}")
    links = store.config.section("links")
    previous = links.get(str(root))
    write_config_value(store.home, "links", str(root), scope)
    _reload(store)
    url = origin_url(repo)
    return {"root": str(root), "scope": scope, "origin": public_url(url) if url else None,
            "previous": previous}


def unlink(store: "Store", path: str | os.PathLike[str] | None = None) -> dict[str, Any]:
    """Forget the link of the code repo at `path` (or the linked root containing it)."""
    from .config import write_config_value

    links = store.config.section("links")
    here = Path(path or os.getcwd()).resolve()
    best = None
    for root in links:
        if here == Path(root) or here.is_relative_to(Path(root)):
            if best is None or len(root) > len(best):
                best = root
    if best is None:
        raise NotFound(f"{here} is not linked", hint="`gitmem link` links the current repository")
    scope = links[best]
    write_config_value(store.home, "links", best, None)
    _reload(store)
    return {"root": best, "scope": scope}


def _reload(store: "Store") -> None:
    """Pick up the config just written (Config is frozen; load it afresh)."""
    from .config import load_config

    c = store.config
    store.config = load_config(c.home, session=c.session, agent=c.agent)


# ---- remember --link ----------------------------------------------------------------------
def resolve_link(spec: str, cwd: str | os.PathLike[str] | None = None) -> dict[str, Any]:
    """`REV[:PATH]` in the code repo at cwd -> {repo, commit, path?, project}."""
    if not spec or not spec.strip():
        raise UsageError("empty --link", hint="e.g. --link HEAD or --link HEAD:src/app.py")
    repo = open_repo(cwd)
    rev, sep, path = spec.partition(":")
    try:
        commit = repo.revparse_single(rev or "HEAD").peel(pygit2.Commit)
    except (KeyError, ValueError, pygit2.GitError, pygit2.InvalidSpecError) as e:
        raise NotFound(f"unknown revision {rev!r} in {repo_root(repo)}",
                       hint="give a commit of the code repo, e.g. HEAD or a sha") from e
    url = origin_url(repo)
    out: dict[str, Any] = {"repo": public_url(url) if url else str(repo_root(repo)),
                           "commit": str(commit.id), "project": project_key(repo)}
    if sep and path:
        rel = _repo_path(repo, path, cwd)
        try:
            commit.tree[rel]
        except KeyError:
            raise NotFound(f"{rel} is not in commit {str(commit.id)[:10]}",
                           hint="paths are relative to the current directory or the repo root") from None
        out["path"] = rel
    return out


def _repo_path(repo: pygit2.Repository, path: str, cwd: str | os.PathLike[str] | None) -> str:
    """A path (relative to cwd, or to the root) as a repo-relative posix path, inside the repo."""
    root = repo_root(repo)
    here = Path(cwd or os.getcwd()).resolve()
    cand = (here / path) if not os.path.isabs(path) else Path(path)
    if not cand.exists() and not os.path.isabs(path):
        cand = root / path
    full = Path(os.path.normpath(cand.absolute()))
    try:
        # Resolve symlinked folders, but keep the file's own name (it may be deleted).
        full = full.parent.resolve() / full.name
        return full.relative_to(root).as_posix()
    except ValueError:
        raise UsageError(f"{path} is outside the repository {root}") from None


def note_lines(text: str | None) -> list[tuple[str, str]]:
    """(id, scope) pairs from a gitmem note."""
    out = []
    for line in (text or "").splitlines():
        m = _NOTE_LINE.match(line.strip())
        if m:
            out.append((m.group(1), m.group(2)))
    return out


def note_code_commit(store: "Store", mem: "Memory", link_info: dict[str, Any],
                     cwd: str | os.PathLike[str] | None = None) -> str:
    """Add `gitmem: <id> scope=<scope>` to the code commit's note (appending to what is
    there). Returns the note text."""
    repo = open_repo(cwd)
    commit = link_info["commit"]
    line = f"gitmem: {mem.id} scope={mem.scope}"
    name, email = store.identity()
    sig = pygit2.Signature(name, email)
    lock = store.home / "state" / "locks" / ("notes-" + hashlib.sha1(repo.path.encode()).hexdigest()[:12] + ".lock")
    with file_lock(lock, timeout=30):
        for _ in range(5):
            try:
                existing = repo.lookup_note(commit, NOTES_REF).message
            except KeyError:
                existing = ""
            if line in existing.splitlines():
                return existing
            text = (existing.rstrip("\n") + "\n" if existing.strip() else "") + line + "\n"
            try:
                repo.create_note(text, sig, sig, commit, NOTES_REF, True)
            except pygit2.GitError:
                continue  # a concurrent `git notes` moved the ref; read again
            return text
    raise GitmemError(f"could not write the note on {commit[:10]}", hint="retry")


# ---- why ----------------------------------------------------------------------------------
@dataclass
class WhyEntry:
    commit: str
    summary: str
    author: str
    time: str
    lines: list[tuple[int, int]] = field(default_factory=list)
    memories: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"commit": self.commit, "summary": self.summary, "author": self.author,
                "time": self.time, "lines": [list(r) for r in self.lines],
                "memories": self.memories}


_SPEC = re.compile(r"^(.*?):(\d+)(?:-(\d+))?$")


def parse_spec(spec: str) -> tuple[str, int | None, int | None]:
    """`FILE[:LINE[-LINE]]` -> (file, first, last)."""
    m = _SPEC.match(spec)
    if not m or not m.group(1):
        return spec, None, None
    a = int(m.group(2))
    b = int(m.group(3)) if m.group(3) else a
    if a < 1 or b < a:
        raise UsageError(f"bad line range in {spec!r}", hint="e.g. src/app.py:10-20")
    return m.group(1), a, b


def blame(repo: pygit2.Repository, rel: str, first: int | None, last: int | None) -> list[tuple[str, int, dict[str, str]]]:
    """(commit, final line number, commit info) for each line, via `git blame --porcelain`."""
    root = repo_root(repo)
    args = ["git", "-C", str(root), "blame", "--porcelain"]
    if first is not None:
        args += ["-L", f"{first},{last}"]
    args += ["--", rel]
    try:
        res = subprocess.run(args, capture_output=True, env=git_env())
    except FileNotFoundError as e:
        raise GitmemError("the git command is not installed", hint="install git 2.30 or newer") from e
    if res.returncode != 0:
        err = res.stderr.decode(errors="replace").strip().splitlines()
        msg = err[-1] if err else "git blame failed"
        raise NotFound(f"cannot blame {rel}: {msg.removeprefix('fatal: ')}",
                       hint="the file must be committed; line ranges must exist")
    out = []
    info: dict[str, dict[str, str]] = {}
    current = None
    for raw in res.stdout.decode(errors="replace").splitlines():
        if raw.startswith("\t"):
            continue
        parts = raw.split(" ")
        if len(parts) >= 3 and re.fullmatch(r"[0-9a-f]{40}", parts[0]):
            current = parts[0]
            info.setdefault(current, {})
            out.append((current, int(parts[2]), info[current]))
        elif current is not None:
            key, _, value = raw.partition(" ")
            info[current].setdefault(key, value)
    return out


def _ranges(nums: list[int]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for n in sorted(set(nums)):
        if out and out[-1][1] == n - 1:
            out[-1] = (out[-1][0], n)
        else:
            out.append((n, n))
    return out


def why(store: "Store", spec: str, cwd: str | os.PathLike[str] | None = None) -> list[WhyEntry]:
    """Blame FILE[:LINE[-LINE]] and list, per commit that wrote those lines, the memories
    linked to it (from the code repo's notes, and from memories whose links name it)."""
    import datetime as dt

    path, first, last = parse_spec(spec)
    here = Path(cwd or os.getcwd())
    target = here / path if not os.path.isabs(path) else Path(path)
    repo = open_repo(target.parent if target.parent.exists() else here)
    rel = _repo_path(repo, str(target), here)
    lines = blame(repo, rel, first, last)
    by_commit: dict[str, WhyEntry] = {}
    nums: dict[str, list[int]] = {}
    for sha, lineno, info in lines:
        if set(sha) == {"0"}:
            continue  # not committed yet
        if sha not in by_commit:
            try:
                when = dt.datetime.fromtimestamp(int(info.get("author-time", "0")), dt.timezone.utc)
                stamp = when.isoformat().replace("+00:00", "Z")
            except ValueError:
                stamp = ""
            by_commit[sha] = WhyEntry(commit=sha, summary=info.get("summary", ""),
                                      author=info.get("author", ""), time=stamp)
        nums.setdefault(sha, []).append(lineno)
    linked = _memories_linking(store, set(by_commit))
    for sha, entry in by_commit.items():
        entry.lines = _ranges(nums[sha])
        pairs: list[tuple[str, str | None]] = []
        try:
            pairs += note_lines(repo.lookup_note(sha, NOTES_REF).message)
        except KeyError:
            pass
        for pair in linked.get(sha, []):
            if pair[0] not in {p[0] for p in pairs}:
                pairs.append(pair)
        for mem_id, scope in pairs:
            entry.memories.append(_describe(store, mem_id, scope))
    order = sorted(by_commit.values(), key=lambda e: min(nums[e.commit]))
    return order


def _describe(store: "Store", mem_id: str, scope: str | None) -> dict[str, Any]:
    try:
        m = store.get(mem_id, scope=scope) if scope and scope in store.git.scopes() else store.get(mem_id)
    except (NotFound, UsageError):
        return {"id": mem_id, "scope": scope, "found": False, "summary": None}
    return {"id": m.id, "scope": m.scope, "found": True, "type": m.type, "summary": m.summary,
            "importance": m.importance}


def _memories_linking(store: "Store", shas: set[str]) -> dict[str, list[tuple[str, str]]]:
    """Memories whose front matter links name one of the commits (`git grep` per scope),
    so `why` works even where the code repo's notes were not fetched."""
    from .model import parse

    out: dict[str, list[tuple[str, str]]] = {}
    tips = store.git.scopes()
    if not shas or not tips:
        return out
    # One `git grep` over every scope tip: its output lines are `<tip>:<path>`.
    args = ["git", f"--git-dir={store.git.path}", "grep", "-l", "-F"]
    for s in sorted(shas):
        args += ["-e", s]
    args += sorted(set(tips.values())) + ["--", "memories"]
    res = subprocess.run(args, capture_output=True, env=git_env())
    if res.returncode not in (0, 1):
        return out
    scopes_of: dict[str, list[str]] = {}
    for scope, tip in tips.items():
        scopes_of.setdefault(tip, []).append(scope)
    for line in res.stdout.decode(errors="replace").splitlines():
        tip, _, path = line.partition(":")
        for scope in scopes_of.get(tip, []):
            data = store.git.read(store.git.repo[tip], path)
            if not data:
                continue
            mem = parse(data, path=path)
            for ln in mem.links:
                sha = str(ln.get("commit", ""))
                if sha in shas and (mem.id, scope) not in out.get(sha, []):
                    out.setdefault(sha, []).append((mem.id, scope))
    return out
