"""Code repositories: linking a repo to a project scope, notes on code commits, `why`.

The code repository itself is reached through store.coderepo (the object layer). A note
on a code commit carries ids and scopes only, never memory text: code repos are pushed
to places memory must not go."""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from gitmem.core import paths
from gitmem.core.errors import NotFound, UsageError
from gitmem.store.coderepo import CodeRepo

if TYPE_CHECKING:
    from gitmem.core.model import Memory
    from gitmem.memories.service import Memories

_PART_BAD = re.compile(r"[^A-Za-z0-9._-]+")
_NOTE_LINE = re.compile(r"^gitmem: ([0-9a-z]{13}) scope=(\S+)\s*$")
_SCP = re.compile(r"^(?:[^@/\s]+@)?([^:/\s]+):(?!//)(.+)$")  # git@host:owner/repo.git


# ---- the project key ---------------------------------------------------------------------
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


def project_key(repo: CodeRepo) -> str:
    """From the `origin` URL (`github.com/owner/repo`), else folder name + path hash."""
    url = repo.origin_url()
    key = normalise_url(url) if url else None
    if key:
        return key
    root = repo.root
    name = _clean_part(root.name) or "repo"
    digest = hashlib.sha1(str(root).encode()).hexdigest()[:8]
    return f"{name}-{digest}"


# ---- link / unlink ------------------------------------------------------------------------
def link(svc: "Memories", path: str | os.PathLike[str] | None = None) -> dict[str, Any]:
    """Record the code repo at `path` as project scope `project/<key>` in config
    (the caller reloads its config)."""
    from gitmem.core.config import write_config_value
    from gitmem.core.model import check_scope

    from gitmem.policy import gate

    repo = CodeRepo.discover(path)
    root = repo.root
    # The path becomes a config entry (and its folder name the scope): no secret in it.
    gate.check_name("linked path", str(root), svc.config.get("redact", "allow") or ())
    scope = check_scope(f"project/{project_key(repo)}")
    links = svc.config.section("links")
    previous = links.get(str(root))
    write_config_value(svc.home, "links", str(root), scope)
    url = repo.origin_url()
    return {"root": str(root), "scope": scope, "origin": public_url(url) if url else None,
            "previous": previous}


def unlink(svc: "Memories", path: str | os.PathLike[str] | None = None) -> dict[str, Any]:
    """Forget the link of the code repo at `path` (or the linked root containing it)."""
    from gitmem.core.config import write_config_value

    links = svc.config.section("links")
    here = Path(path or os.getcwd()).resolve()
    best = None
    for root in links:
        if here == Path(root) or here.is_relative_to(Path(root)):
            if best is None or len(root) > len(best):
                best = root
    if best is None:
        raise NotFound(f"{here} is not linked", hint="`gitmem link` links the current repository")
    scope = links[best]
    write_config_value(svc.home, "links", best, None)
    return {"root": best, "scope": scope}


# ---- remember --link ----------------------------------------------------------------------
def resolve_link(spec: str, cwd: str | os.PathLike[str] | None = None) -> dict[str, Any]:
    """`REV[:PATH]` in the code repo at cwd -> {repo, commit, path?, project}."""
    if not spec or not spec.strip():
        raise UsageError("empty --link", hint="e.g. --link HEAD or --link HEAD:src/app.py")
    repo = CodeRepo.discover(cwd)
    rev, sep, path = spec.partition(":")
    commit = repo.resolve(rev or "HEAD")
    url = repo.origin_url()
    out: dict[str, Any] = {"repo": public_url(url) if url else str(repo.root),
                           "commit": commit, "project": project_key(repo)}
    if sep and path:
        rel = _repo_path(repo, path, cwd)
        if not repo.has_path(commit, rel):
            raise NotFound(f"{rel} is not in commit {commit[:10]}",
                           hint="paths are relative to the current directory or the repo root")
        out["path"] = rel
    # The link goes into the memory's front matter: a repository path holding a secret is refused.
    from gitmem.policy import gate

    return {k: gate.check_name("code link", v) for k, v in out.items()}


def _repo_path(repo: CodeRepo, path: str, cwd: str | os.PathLike[str] | None) -> str:
    """A path (relative to cwd, or to the root) as a repo-relative posix path, inside the repo."""
    root = repo.root
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


def note_code_commit(svc: "Memories", mem: "Memory", link_info: dict[str, Any],
                     cwd: str | os.PathLike[str] | None = None) -> str:
    """Add `gitmem: <id> scope=<scope>` to the code commit's note (appending to what is
    there). Returns the note text."""
    repo = CodeRepo.discover(cwd)
    name, email = svc.identity()
    return repo.add_note_line(link_info["commit"], f"gitmem: {mem.id} scope={mem.scope}", name, email,
                              paths.locks(svc.home))


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


def _ranges(nums: list[int]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for n in sorted(set(nums)):
        if out and out[-1][1] == n - 1:
            out[-1] = (out[-1][0], n)
        else:
            out.append((n, n))
    return out


def why(svc: "Memories", spec: str, cwd: str | os.PathLike[str] | None = None) -> list[WhyEntry]:
    """Blame FILE[:LINE[-LINE]] and list, per commit that wrote those lines, the memories
    linked to it (from the code repo's notes, and from memories whose links name it)."""
    import datetime as dt

    path, first, last = parse_spec(spec)
    here = Path(cwd or os.getcwd())
    target = here / path if not os.path.isabs(path) else Path(path)
    repo = CodeRepo.discover(target.parent if target.parent.exists() else here)
    rel = _repo_path(repo, str(target), here)
    lines = repo.blame(rel, first, last)
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
    linked = _memories_linking(svc, set(by_commit))
    for sha, entry in by_commit.items():
        entry.lines = _ranges(nums[sha])
        pairs: list[tuple[str, str | None]] = list(note_lines(repo.note(sha)))
        for pair in linked.get(sha, []):
            if pair[0] not in {p[0] for p in pairs}:
                pairs.append(pair)
        for mem_id, scope in pairs:
            entry.memories.append(_describe(svc, mem_id, scope))
    order = sorted(by_commit.values(), key=lambda e: min(nums[e.commit]))
    return order


def _describe(svc: "Memories", mem_id: str, scope: str | None) -> dict[str, Any]:
    try:
        s, _, path = svc.locate(mem_id, scope if scope and scope in svc.git.scopes() else None)
        m = svc.load(svc.git.tip(s), path, s)
    except (NotFound, UsageError):
        return {"id": mem_id, "scope": scope, "found": False, "summary": None}
    return {"id": m.id, "scope": m.scope, "found": True, "type": m.type, "summary": m.summary,
            "importance": m.importance}


def _memories_linking(svc: "Memories", shas: set[str]) -> dict[str, list[tuple[str, str]]]:
    """Memories whose front matter links name one of the commits, so `why` works even
    where the code repo's notes were not fetched. Reads decoded memory files (a grep
    of the raw objects would miss an encrypted store)."""
    out: dict[str, list[tuple[str, str]]] = {}
    if not shas:
        return out
    needles = [s.encode() for s in shas]
    for scope in svc.git.scopes():
        tip = svc.git.tip(scope)
        for path, oid in svc.memory_files(tip):
            data = svc.git.blob(oid, path)
            if not any(n in data for n in needles):
                continue
            mem = svc.load(tip, path, scope)
            for ln in mem.links:
                sha = str(ln.get("commit", ""))
                if sha in shas and (mem.id, scope) not in out.get(sha, []):
                    out.setdefault(sha, []).append((mem.id, scope))
    return out


def code_head(cwd: str | os.PathLike[str]) -> tuple[str, str, str]:
    """(top folder, HEAD commit id, its subject) of the code repository at `cwd`."""
    from gitmem.store.coderepo import toplevel

    top = toplevel(cwd)
    sha, subject = CodeRepo.discover(top).head()
    return top, sha, subject


def code_hooks_dir(repo: str | os.PathLike[str] | None) -> Path:
    """The git hooks folder of the code repository at `repo` (default: the cwd's)."""
    from gitmem.store.coderepo import hooks_dir

    return hooks_dir(repo)
