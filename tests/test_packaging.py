"""The built wheel carries every package, templates/ and hooks/, and the console script.

The wheel is built from a copy of the checkout in a temporary folder: a build inside
the checkout would leave build/ and egg-info behind and race other test runs."""

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# What a build needs is the sources; everything else stays behind.
_LEAVE_OUT = shutil.ignore_patterns(".git", ".venv", "venv", "build", "dist", "*.egg-info", "__pycache__",
                                    "*.pyc", ".pytest_cache", ".hypothesis", "benchmarks", "tests")


def _copy_checkout(dest: Path) -> Path:
    src = dest / "src"
    shutil.copytree(ROOT, src, ignore=_LEAVE_OUT, symlinks=True)
    return src


def _build_outputs() -> dict[str, int]:
    """What a build inside the checkout would create or touch."""
    return {p.name: p.stat().st_mtime_ns for p in ROOT.iterdir()
            if p.name in ("build", "dist") or p.name.endswith(".egg-info")}


def _packages_in_checkout() -> set[str]:
    """gitmem and every sub-package (a folder with __init__.py) under it."""
    return {".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "gitmem").rglob("__init__.py")
            if "__pycache__" not in p.parts}


@pytest.mark.slow
def test_wheel_contains_every_package_templates_and_hooks(tmp_path):
    before = _build_outputs()
    src = _copy_checkout(tmp_path)
    out = tmp_path / "wheel"
    res = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out), str(src)],
                         capture_output=True, text=True, cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    assert _build_outputs() == before, "the build wrote into the checkout"
    wheel = next(out.glob("*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    templates = [n for n in names if n.startswith("gitmem/templates/") and n.endswith(".j2")]
    hooks = [n for n in names if n.startswith("gitmem/hooks/") and not n.endswith(".py")]
    assert templates, names
    assert hooks, names
    # pyproject.toml lists packages by name: a new sub-package must be added there.
    shipped = {n.rsplit("/", 1)[0].replace("/", ".") for n in names if n.endswith("/__init__.py")}
    missing = _packages_in_checkout() - shipped
    assert not missing, f"not in the wheel (add them to [tool.setuptools] packages): {sorted(missing)}"
    for pkg in _packages_in_checkout():
        folder = ROOT.joinpath(*pkg.split("."))
        for module in folder.glob("*.py"):
            assert f"{pkg.replace('.', '/')}/{module.name}" in names, module
    entry = next(n for n in names if n.endswith("entry_points.txt"))
    assert "gitmem = gitmem.frontends.launch:main" in zipfile.ZipFile(wheel).read(entry).decode()


def test_copy_leaves_out_what_the_build_does_not_need(tmp_path):
    src = _copy_checkout(tmp_path)
    assert (src / "pyproject.toml").is_file() and (src / "gitmem" / "frontends" / "cli.py").is_file()
    assert not (src / ".git").exists() and not (src / ".venv").exists()
    assert not list(src.rglob("__pycache__")) and not list(src.glob("*.egg-info"))
