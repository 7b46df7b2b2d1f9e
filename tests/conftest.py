"""Shared fixtures: every test runs with its own HOME, GITMEM_HOME and git identity, and
the deterministic fake embedder unless it asks for the real model."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

pytest_plugins = ["gitservers"]

ROOT = Path(__file__).resolve().parent.parent
# `GITMEM_TEST_CODEC=reversed pytest` runs the whole suite with a codec that stores every
# blob and message reversed: a code path around the object layer's codec seam fails.
TEST_CODEC = os.environ.get("GITMEM_TEST_CODEC") or ""
MODEL_PATH = (ROOT.parent / "shared" / "models" / "all-MiniLM-L6-v2-onnx-int8").resolve()


@pytest.fixture(autouse=True)
def isolated_env(tmp_path, tmp_path_factory, monkeypatch):
    home = tmp_path / "home"
    home.mkdir()
    for var in list(os.environ):
        if var.startswith("GITMEM_") or var.startswith("GIT_"):
            monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    # One cache for the run: the secret rules read from detect-secrets are built once
    # (gitmem.redact), not in every CLI subprocess of every test.
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.getbasetemp() / "xdg-cache"))
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(home / ".gitconfig"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GITMEM_HOME", str(tmp_path / "gitmem"))
    monkeypatch.setenv("GITMEM_NAME", "Test Person")
    monkeypatch.setenv("GITMEM_EMAIL", "test@example.com")
    monkeypatch.setenv("GITMEM_EMBED_MODEL", "fake-64")
    monkeypatch.setenv("GITMEM_FSYNC", "0")
    # Hooks run through the launcher would start a `gitmem serve` that outlives the test.
    monkeypatch.setenv("GITMEM_HOOK_AUTOSTART", "0")
    if TEST_CODEC:
        monkeypatch.setenv("GITMEM_TEST_CODEC", TEST_CODEC)
    (home / ".gitconfig").write_text("[user]\n\tname = Test Person\n\temail = test@example.com\n")
    yield


@pytest.fixture
def gm_home(tmp_path) -> Path:
    return tmp_path / "gitmem"


@pytest.fixture
def store(gm_home):
    import gitmem

    return gitmem.init(gm_home)


@pytest.fixture
def real_model(monkeypatch):
    """Use the offline copy of all-MiniLM-L6-v2 (tests marked `model`)."""
    if not MODEL_PATH.is_dir():
        pytest.fail(f"offline model missing at {MODEL_PATH}")
    monkeypatch.setenv("GITMEM_EMBED_MODEL", "sentence-transformers/all-MiniLM-L6-v2")
    monkeypatch.setenv("GITMEM_EMBED_PATH", str(MODEL_PATH))
    return MODEL_PATH


def run_cli(*args: str, input: str | None = None, env: dict | None = None, cwd=None, timeout: float | None = None):
    """Run the real `gitmem` command in a subprocess (`timeout`: a hang fails the test
    with TimeoutExpired instead of holding the suite; not a measurement)."""
    return subprocess.run(
        [sys.executable, "-m", "gitmem", *args], input=input, capture_output=True, text=True,
        env={**os.environ, **(env or {})}, cwd=cwd, timeout=timeout,
    )


def invoke_cli(*args: str, input: str | None = None, env: dict | None = None, cwd=None):
    """Run `gitmem` in this process through click's CliRunner, for tests about what a
    command prints and does rather than about the process (run_cli's result shape:
    returncode, stdout, stderr); an exception that escapes the CLI fails the test."""
    from click.testing import CliRunner

    from gitmem.frontends.cli import cli

    old = os.getcwd()
    if cwd is not None:
        os.chdir(cwd)
    try:
        res = CliRunner().invoke(cli, list(args), input=input, env=env, prog_name="gitmem")
    finally:
        os.chdir(old)
    if res.exception is not None and not isinstance(res.exception, SystemExit):
        raise res.exception
    return subprocess.CompletedProcess(["gitmem", *args], res.exit_code, res.stdout, res.stderr)


def git(*args: str, cwd=None, check: bool = True) -> str:
    git_dir = next((a.split("=", 1)[1] for a in args if a.startswith("--git-dir=")), None)
    if git_dir is None and "--git-dir" in args:
        git_dir = args[args.index("--git-dir") + 1]
    if "fsck" in args and git_dir and (Path(git_dir).parent / "state").is_dir():
        # A background repack started by the writes deletes packs as it folds them;
        # git itself would report them missing mid-way. Let it finish first.
        from gitmem.store import GitStore

        with GitStore(Path(git_dir).parent, fsync=False).maintenance_paused():
            return _git(args, cwd, check)
    return _git(args, cwd, check)


def _git(args, cwd, check: bool) -> str:
    res = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True)
    if check and res.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} failed: {res.stderr}")
    return res.stdout


def raw_forms(text: str) -> list[bytes]:
    """The forms `text` takes inside raw git objects under the active codec, so a test
    that greps plain git output for a string checks for it however it is stored."""
    forms = [text.encode()]
    if TEST_CODEC == "reversed":
        forms.append(text.encode()[::-1])
    return forms


def decode_blob(data: bytes, path: str = "") -> bytes:
    """A blob's raw bytes (as `git cat-file` prints them) through the active codec."""
    from gitmem.store.codec import select_codec

    return select_codec({"GITMEM_TEST_CODEC": TEST_CODEC}).decode(path, data)


def decode_message(message: str) -> str:
    """A commit message (as `git log --format=%B` prints it) through the active codec."""
    from gitmem.store.codec import select_codec

    return select_codec({"GITMEM_TEST_CODEC": TEST_CODEC}).decode_message(message)


def encode_blob(data: bytes, path: str = "") -> bytes:
    """What the active codec stores for `data` (to plant a file with plain git)."""
    from gitmem.store.codec import select_codec

    return select_codec({"GITMEM_TEST_CODEC": TEST_CODEC}).encode(path, data)


# ---- a real `gitmem serve` (test_serve, test_warm_cli, test_recall_at) --------------------
def commit_by_hand(store, path: str, data: bytes, tmp_path: Path) -> None:
    """Commit a file to main with plain git (a hand edit), around gitmem."""
    gd = str(store.git.path)
    blob_file = tmp_path / "blob"
    blob_file.write_bytes(encode_blob(data, path))
    oid = git("--git-dir", gd, "hash-object", "-w", str(blob_file)).strip()
    env = {**os.environ, "GIT_INDEX_FILE": str(tmp_path / "idx")}
    subprocess.run(["git", "--git-dir", gd, "read-tree", "main"], env=env, check=True)
    subprocess.run(["git", "--git-dir", gd, "update-index", "--add", "--cacheinfo", f"100644,{oid},{path}"],
                   env=env, check=True)
    tree = subprocess.run(["git", "--git-dir", gd, "write-tree"], env=env, capture_output=True, text=True,
                          check=True).stdout.strip()
    commit = git("--git-dir", gd, "commit-tree", tree, "-p", "main", "-m", "hand edit").strip()
    git("--git-dir", gd, "update-ref", "refs/heads/main", commit)


def wait_for(pred, timeout: float = 30.0, step: float = 0.05) -> bool:
    """Poll `pred` until it is true (True) or `timeout` seconds pass (False)."""
    import time

    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if pred():
            return True
        time.sleep(step)
    return False


def start_daemon(home, *extra: str) -> subprocess.Popen:
    """`gitmem serve` for `home`, up and answering pings (the test fails otherwise)."""
    from gitmem.frontends.daemon import client as serve_client

    proc = subprocess.Popen([sys.executable, "-m", "gitmem", "serve", *extra], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True, env={**os.environ, "GITMEM_HOME": str(home)})
    if not wait_for(lambda: serve_client.ping(home) is not None or proc.poll() is not None):
        proc.kill()
        pytest.fail("gitmem serve did not come up")
    assert proc.poll() is None, proc.communicate()
    return proc


def stop_daemon(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def dialogue_set(name: str):
    """(items, questions, data) of a dialogue recall set in tests/data (`zh_dialogue`,
    `en_dialogue`), read by the benchmarks' own reader; benchmarks/ goes on the path, so
    `from recall_chinese import dialogue_scores` works after it."""
    bench = str(ROOT / "benchmarks")
    if bench not in sys.path:
        sys.path.insert(0, bench)
    from recall_chinese import load_dialogue

    return load_dialogue(ROOT / "tests" / "data" / f"{name}.json")


@pytest.fixture
def daemon(filled, gm_home):
    """A `gitmem serve` over the requesting module's `filled` store (stopped after)."""
    proc = start_daemon(gm_home, "--idle-exit", "120")
    yield proc
    stop_daemon(proc)


def daemon_requests(home) -> int:
    """Requests the daemon of `home` has answered (this status request included)."""
    from gitmem.frontends.daemon import client as serve_client

    return serve_client.request(home, {"op": "status"})["requests"]
