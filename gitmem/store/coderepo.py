"""Code repositories the user links to memory: finding them, their origin, commits and
paths, notes on their commits (ids and scopes only, never memory text), blame and the
hooks folder. Nothing here touches the memory repository."""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path

import pygit2

from gitmem.core.errors import GitmemError, NotFound, UsageError
from gitmem.core.fsutil import file_lock
from gitmem.store import gitcmd
from gitmem.store.objects import NOTES_REF


class CodeRepo:
    """A checkout with a work tree."""

    def __init__(self, repo: pygit2.Repository):
        self._repo = repo
        self.root = Path(repo.workdir).resolve()
        self.git_dir = repo.path

    @classmethod
    def discover(cls, path: str | os.PathLike[str] | None = None) -> "CodeRepo":
        """The code repository containing `path` (default: the current directory)."""
        start = Path(path or os.getcwd()).resolve()
        found = pygit2.discover_repository(str(start))
        if not found:
            raise NotFound(f"not inside a git repository: {start}",
                           hint="run this in a code repository, or give its path")
        repo = pygit2.Repository(found)
        if repo.workdir is None:
            raise UsageError(f"{found} is a bare repository", hint="link a checkout with a work tree")
        return cls(repo)

    def origin_url(self) -> str | None:
        try:
            return self._repo.remotes["origin"].url
        except (KeyError, ValueError):
            return None

    def resolve(self, rev: str) -> str:
        """A revision of the code repo as a full commit id."""
        try:
            return str(self._repo.revparse_single(rev or "HEAD").peel(pygit2.Commit).id)
        except (KeyError, ValueError, pygit2.GitError, pygit2.InvalidSpecError) as e:
            raise NotFound(f"unknown revision {rev!r} in {self.root}",
                           hint="give a commit of the code repo, e.g. HEAD or a sha") from e

    def has_path(self, commit: str, rel: str) -> bool:
        try:
            self._repo[commit].peel(pygit2.Commit).tree[rel]
        except KeyError:
            return False
        return True

    def head(self) -> tuple[str, str]:
        """(sha, subject) of HEAD; the subject as `git log --format=%s` prints it (the
        first paragraph on one line)."""
        c = self._repo.revparse_single("HEAD").peel(pygit2.Commit)
        title = c.message.strip().split("\n\n", 1)[0]
        return str(c.id), " ".join(ln.strip() for ln in title.splitlines() if ln.strip())

    def note(self, commit: str) -> str:
        try:
            return self._repo.lookup_note(commit, NOTES_REF).message
        except KeyError:
            return ""

    def add_note_line(self, commit: str, line: str, name: str, email: str, lock_dir: Path) -> str:
        """Append `line` to the commit's gitmem note (once); returns the note text."""
        sig = pygit2.Signature(name, email)
        lock = lock_dir / ("notes-" + hashlib.sha1(self.git_dir.encode()).hexdigest()[:12] + ".lock")
        with file_lock(lock, timeout=30):
            for _ in range(5):
                existing = self.note(commit)
                if line in existing.splitlines():
                    return existing
                text = (existing.rstrip("\n") + "\n" if existing.strip() else "") + line + "\n"
                try:
                    self._repo.create_note(text, sig, sig, commit, NOTES_REF, True)
                except pygit2.GitError:
                    continue  # a concurrent `git notes` moved the ref; read again
                return text
        raise GitmemError(f"could not write the note on {commit[:10]}", hint="retry")

    def blame(self, rel: str, first: int | None, last: int | None) -> list[tuple[str, int, dict[str, str]]]:
        """(commit, final line number, commit info) for each line (`git blame --porcelain`)."""
        args = ["blame", "--porcelain"]
        if first is not None:
            args += ["-L", f"{first},{last}"]
        args += ["--", rel]
        try:
            text = gitcmd.run(None, "-C", str(self.root), *args)
        except GitmemError as e:
            if "not installed" in e.message:
                raise
            err = e.message.strip().splitlines()
            msg = err[-1] if err else "git blame failed"
            raise NotFound(f"cannot blame {rel}: {msg.split('fatal: ')[-1]}",
                           hint="the file must be committed; line ranges must exist") from e
        out = []
        info: dict[str, dict[str, str]] = {}
        current = None
        for raw in text.splitlines():
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


def toplevel(cwd: str | os.PathLike[str]) -> str:
    """The work tree root containing `cwd` (the git command, as a git hook sees it)."""
    try:
        return gitcmd.run(None, "rev-parse", "--show-toplevel", cwd=cwd, timeout=10).strip()
    except GitmemError as e:
        raise GitmemError(e.message, hint="run this inside a git work tree") from e


def hooks_dir(repo: str | os.PathLike[str] | None) -> Path:
    """The hooks folder of the repository at `repo` (honours core.hooksPath, worktrees)."""
    cwd = str(repo or os.getcwd())
    try:
        out = gitcmd.run(None, "rev-parse", "--git-path", "hooks", cwd=cwd, timeout=10)
    except GitmemError as e:
        if "not installed" in e.message:
            raise
        raise UsageError(f"{cwd} is not in a git repository", hint="run this inside a code repository") from e
    except OSError as e:
        raise UsageError(f"{cwd} is not usable: {e.strerror}") from e
    p = Path(out.strip())
    return (Path(cwd) / p if not p.is_absolute() else p).resolve()
