"""Helpers of the secret sweep (issue 20): fake tokens in the formats the redactor knows,
one unique token per planted input (so a leak names the input that let it through), and
the search for them in every git object, every file under the home and every output."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from conftest import raw_forms
from known_tokens import _JWT

# Fake tokens (random characters in each provider's shape, never real credentials); the
# last three characters are replaced by the input's number.
FORMATS = {
    "github": "ghp_SnH6av1Ib8pp1xxXHU0BScJXj675eVq30XYq",
    "aws": "AKIAVQJXXVBOTHD0WTFL",
    "slack": "xoxb-4307422460291-0524185755453-i7z9KwRkNr4aE28uz5eRTpPW",
    "jwt": _JWT,
}
_ORDER = list(FORMATS)


def token(n: int, fmt: str | None = None) -> str:
    """The fake token of input `n` (its format by turns unless given)."""
    base = FORMATS[fmt or _ORDER[n % len(_ORDER)]]
    return base[:-3] + f"{n % 1000:03d}"


def needles(tok: str) -> list[bytes]:
    """What must not be found: the token, and its secret tail on its own (the part a
    redaction that kept a prefix would leave), in every form the codec stores."""
    return [form for part in (tok, tok[-16:]) for form in raw_forms(part)]


def git_objects(home: Path) -> bytes:
    return subprocess.run(["git", f"--git-dir={home / 'repo.git'}", "cat-file", "--batch-all-objects", "--batch"],
                          capture_output=True, check=True).stdout


def refs(home: Path) -> str:
    return subprocess.run(["git", f"--git-dir={home / 'repo.git'}", "for-each-ref"], capture_output=True,
                          text=True, check=True).stdout


def files_holding(root: Path, tok: str) -> list[str]:
    """Files under root whose name or bytes hold the token (the index, state/ included)."""
    found = []
    for p in root.rglob("*"):
        if tok[-16:] in str(p.relative_to(root)):
            found.append(str(p.relative_to(root)))
        elif p.is_file() and any(n in p.read_bytes() for n in needles(tok)):
            found.append(str(p.relative_to(root)))
    return found


def leaks(tok: str, homes: list[Path], outputs: list[str]) -> list[str]:
    """Where the token was found: [] when nowhere."""
    out = []
    for home in homes:
        if (home / "repo.git").is_dir() and any(n in git_objects(home) for n in needles(tok)):
            out.append(f"a git object of {home.name}")
        out += [f"file {home.name}/{f}" for f in files_holding(home, tok)]
    for i, text in enumerate(outputs):
        if tok[-16:] in text:
            out.append(f"output #{i}")
    return out


def assert_refused(res, home: Path, before: str) -> None:
    """One `error:` line and a `hint:`, a non-zero exit, refs unchanged."""
    assert res.returncode != 0, (res.stdout, res.stderr)
    lines = res.stderr.strip().splitlines()
    assert lines and lines[0].startswith("error: "), res.stderr
    assert any(line.startswith("hint: ") for line in lines[1:]), res.stderr
    assert refs(home) == before, "a refused input moved a ref"


def isolated(env_home: Path) -> dict[str, str]:
    """GITMEM_HOME for a subprocess (the rest of the environment is the test's own)."""
    return {**os.environ, "GITMEM_HOME": str(env_home)}


def index_rows(home: Path) -> str:
    """Every row of every table of the index, as text: the file's bytes alone could hide
    a string in a compressed column."""
    import duckdb

    con = duckdb.connect(str(home / "index.duckdb"), read_only=True)
    try:
        tables = [r[0] for r in con.execute("select table_name from information_schema.tables").fetchall()]
        return "\n".join(repr(con.execute(f'select * from "{t}"').fetchall()) for t in tables)
    finally:
        con.close()
