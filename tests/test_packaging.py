"""The built wheel carries templates/ and hooks/, and the console script."""

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.slow
def test_wheel_contains_templates_and_hooks(tmp_path):
    res = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps",
                          "-q", "-w", str(tmp_path), str(ROOT)], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    wheel = next(tmp_path.glob("*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    templates = [n for n in names if n.startswith("gitmem/templates/") and n.endswith(".j2")]
    hooks = [n for n in names if n.startswith("gitmem/hooks/") and not n.endswith(".py")]
    assert templates, names
    assert hooks, names
    entry = next(n for n in names if n.endswith("entry_points.txt"))
    assert "gitmem = gitmem.cli:main" in zipfile.ZipFile(wheel).read(entry).decode()
