"""`gitmem serve`: a real daemon process on a temporary store, its light client, and the
hook runner and `recall` command using it when it runs and recalling in-process when not."""

from __future__ import annotations

import json
import os
import signal
import socket
import stat
import subprocess
import sys
import time

import pytest

from gitmem.frontends import hookrun, hooks_install
from gitmem.frontends.daemon import client as serve_client

from conftest import daemon_requests, run_cli, start_daemon, stop_daemon, wait_for

TEXTS = [
    "We deploy on Tuesdays after the standup, never on Fridays.",
    "The staging database is Postgres 16 on the small instance.",
    "I prefer tabs over spaces in Go code.",
    "The release checklist lives in docs/release.md.",
    "Coffee machine on floor three is broken again.",
]




@pytest.fixture
def filled(store):
    for t in TEXTS:
        store.remember(t)
    return store


def test_recall_through_the_daemon_matches_in_process(filled, daemon, gm_home):
    served = serve_client.try_recall(gm_home, "when do we deploy", k=3)
    local = filled.recall("when do we deploy", k=3)
    assert served is not None and [h["id"] for h in served] == [h.id for h in local]
    # Recency (and so the score) moves with the clock between the two calls; the rest must not.
    same = lambda d: {k: v for k, v in d.items() if k not in ("score", "scores")} | {  # noqa: E731
        "scores": {k: v for k, v in d["scores"].items() if k != "recency"}}
    assert served[0]["text"] == local[0].text
    assert [same(h) for h in served] == [same(dict(h.to_dict(explain=True), text=h.text)) for h in local]
    # The CLI asks the daemon (its request count moves) and prints the same JSON.
    before = daemon_requests(gm_home)
    res = run_cli("recall", "when do we deploy", "-k", "3", "--json")
    assert res.returncode == 0, res.stderr
    assert [h["id"] for h in json.loads(res.stdout)] == [h.id for h in local]
    assert [same(h) for h in json.loads(res.stdout)] == [same(h.to_dict()) for h in local]
    assert daemon_requests(gm_home) == before + 2  # the CLI's recall, then our status


def test_a_write_by_another_process_is_in_the_next_recall(daemon, gm_home):
    assert not any("zeppelin" in h["text"] for h in serve_client.try_recall(gm_home, "zeppelin hangar", k=5))
    res = run_cli("remember", "The zeppelin hangar key is in the blue drawer.")
    assert res.returncode == 0, res.stderr
    hits = serve_client.try_recall(gm_home, "zeppelin hangar", k=5)
    assert hits and "zeppelin" in hits[0]["text"]


def test_socket_is_private_and_a_second_daemon_is_refused(daemon, gm_home):
    sock = serve_client.socket_path(gm_home)
    assert stat.S_IMODE(sock.stat().st_mode) == 0o600
    assert serve_client.pid_path(gm_home).read_text().strip() == str(daemon.pid)
    res = run_cli("serve", "--idle-exit", "5")
    assert res.returncode == 5 and "already running" in res.stderr and "Traceback" not in res.stderr
    assert serve_client.ping(gm_home)["pid"] == daemon.pid  # the first one is untouched


def test_sigterm_stops_it_and_removes_socket_and_pid_file(daemon, gm_home):
    daemon.send_signal(signal.SIGTERM)
    assert daemon.wait(10) == 0
    assert not serve_client.socket_path(gm_home).exists()
    assert not serve_client.pid_path(gm_home).exists()
    assert "Traceback" not in daemon.stderr.read()
    assert serve_client.try_recall(gm_home, "deploy") is None


@pytest.mark.slow
def test_a_stale_socket_means_in_process_recall_and_is_cleared_on_start(filled, gm_home):
    sock = serve_client.socket_path(gm_home)
    sock.parent.mkdir(parents=True, exist_ok=True)
    s = socket.socket(socket.AF_UNIX)
    s.bind(str(sock))  # bound, never listening, closed: what a killed daemon leaves
    s.close()
    assert serve_client.try_recall(gm_home, "deploy", timeout=2.0) is None  # refused: no daemon
    res = run_cli("recall", "when do we deploy", "--json")
    assert res.returncode == 0 and json.loads(res.stdout)[0]["id"] == filled.recall("when do we deploy")[0].id
    res = run_cli("hook", "prompt", input=json.dumps({"session_id": "s", "prompt": "when do we deploy"}))
    assert res.returncode == 0 and "Tuesdays" in res.stdout
    proc = start_daemon(gm_home, "--idle-exit", "60")
    try:
        assert serve_client.try_recall(gm_home, "deploy")
    finally:
        stop_daemon(proc)


@pytest.mark.slow
def test_idle_exit(filled, gm_home):
    proc = start_daemon(gm_home, "--idle-exit", "1")
    assert proc.wait(10) == 0
    assert "idle" in proc.stderr.read()
    assert not serve_client.socket_path(gm_home).exists()


def test_another_environment_is_not_served(daemon, gm_home, monkeypatch):
    assert serve_client.try_recall(gm_home, "deploy") is not None
    monkeypatch.setenv("GITMEM_EMBED_MODEL", "fake-32")  # another model: not the daemon's answer
    assert serve_client.try_recall(gm_home, "deploy") is None


def test_the_prompt_hook_uses_the_daemon(daemon, gm_home):
    payload = {"session_id": "s1", "prompt": "when do we deploy", "cwd": str(gm_home)}
    before = daemon_requests(gm_home)
    res = hookrun.run("prompt", payload)
    assert "Tuesdays" in res.stdout and not res.notes
    assert daemon_requests(gm_home) == before + 2
    # And through the real command, as an agent CLI runs it.
    res = run_cli("--agent", "claude", "hook", "prompt", input=json.dumps(payload))
    assert res.returncode == 0 and "Tuesdays" in res.stdout and res.stderr == ""
    assert daemon_requests(gm_home) == before + 4
    # The whole hook ran in the daemon: this process loaded neither git, numpy nor the index.
    res = subprocess.run([sys.executable, "-X", "importtime", "-m", "gitmem", "hook", "prompt"],
                         input=json.dumps(payload), capture_output=True, text=True)
    assert "Tuesdays" in res.stdout
    loaded = {ln.split("|")[-1].strip() for ln in res.stderr.splitlines() if ln.startswith("import time:")}
    assert "gitmem.frontends.hookrun" in loaded and not loaded & {"numpy", "duckdb", "pygit2", "gitmem.api", "jinja2"}


@pytest.mark.slow
def test_the_installed_prompt_hook_starts_a_daemon_for_the_next_prompt(filled, gm_home, monkeypatch):
    monkeypatch.delenv("GITMEM_HOOK_AUTOSTART", raising=False)
    cmd = hooks_install.hook_command("prompt", gm_home, budget=5)
    payload = json.dumps({"session_id": "s1", "prompt": "when do we deploy", "cwd": str(gm_home)})
    res = subprocess.run(["sh", "-c", cmd], input=payload, capture_output=True, text=True, timeout=30)
    assert res.returncode == 0 and "Tuesdays" in res.stdout  # the first prompt recalled in-process
    try:
        assert wait_for(lambda: serve_client.ping(gm_home) is not None), "no daemon came up"
        n = daemon_requests(gm_home)
        res = subprocess.run(["sh", "-c", cmd], input=payload, capture_output=True, text=True, timeout=30)
        assert res.returncode == 0 and "Tuesdays" in res.stdout
        assert daemon_requests(gm_home) == n + 2  # the second prompt was served
    finally:
        pid = serve_client.ping(gm_home)["pid"]
        os.kill(pid, signal.SIGTERM)
        assert wait_for(lambda: not serve_client.socket_path(gm_home).exists(), timeout=10)


@pytest.mark.slow
def test_autostart_can_be_turned_off(filled, gm_home):
    (gm_home / "config.toml").write_text("[hooks]\nautostart_serve = false\n")
    cmd = hooks_install.hook_command("prompt", gm_home, budget=5)
    res = subprocess.run(["sh", "-c", cmd], input=json.dumps({"session_id": "s", "prompt": "deploy"}),
                         capture_output=True, text=True, timeout=30)
    assert res.returncode == 0
    (gm_home / "config.toml").write_text("")
    res = subprocess.run(["sh", "-c", cmd], input=json.dumps({"session_id": "s", "prompt": "deploy"}),
                         capture_output=True, text=True, timeout=30, env={**os.environ, "GITMEM_HOOK_AUTOSTART": "0"})
    assert res.returncode == 0
    time.sleep(0.5)
    assert not serve_client.running(gm_home) and not serve_client.socket_path(gm_home).exists()


@pytest.mark.slow
def test_serve_command_detach_status_stop(filled, gm_home):
    res = run_cli("serve", "--detach", "--idle-exit", "60", "--json")
    assert res.returncode == 0, res.stderr
    info = json.loads(res.stdout)
    try:
        assert info["ready"] and not info["already"]
        st = json.loads(run_cli("serve", "--status", "--json").stdout)
        assert st["running"] and st["pid"] == info["pid"] and st["backend"] == "hybrid"
        again = json.loads(run_cli("serve", "--detach", "--json").stdout)
        assert again["already"] and again["pid"] == info["pid"]
    finally:
        res = run_cli("serve", "--stop")
    assert res.returncode == 0 and "stopped" in res.stdout
    assert not serve_client.socket_path(gm_home).exists()
    assert json.loads(run_cli("serve", "--status", "--json").stdout) == {"running": False}


def test_a_bad_request_gets_an_error_not_a_dead_daemon(daemon, gm_home):
    assert serve_client.request(gm_home, {"op": "nope"})["ok"] is False
    res = serve_client.request(gm_home, {"op": "recall", "query": "  "})
    assert res["ok"] is False and "empty query" in res["error"]
    s = socket.socket(socket.AF_UNIX)
    s.connect(str(serve_client.socket_path(gm_home)))
    s.sendall(b"not json\n")
    assert json.loads(s.makefile().readline())["ok"] is False
    s.close()
    assert serve_client.ping(gm_home) is not None


def test_the_client_imports_no_heavy_modules():
    code = ("import sys, gitmem.frontends.daemon.client; "
            "print(sorted(m for m in ('numpy', 'duckdb', 'fastembed', 'onnxruntime', 'pygit2') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.stdout.strip() == "[]", out.stderr


def test_concurrent_clients_get_the_same_answers(daemon, gm_home):
    from concurrent.futures import ThreadPoolExecutor

    want = [h["id"] for h in serve_client.try_recall(gm_home, "staging database", k=3)]
    with ThreadPoolExecutor(16) as pool:
        got = list(pool.map(lambda _: serve_client.try_recall(gm_home, "staging database", k=3, timeout=10), range(64)))
    assert all(g is not None and [h["id"] for h in g] == want for g in got)


def test_linked_project_by_the_clients_cwd_and_config_changes(filled, daemon, gm_home, tmp_path):
    from gitmem.core.config import write_config_value

    filled.remember("The widget repo builds with meson, not make.", scope="project/widget")
    repo = tmp_path / "widget"
    repo.mkdir()
    # Not linked yet: the default scopes do not include the project.
    assert serve_client.try_recall(gm_home, "meson build", cwd=str(repo)) == []
    write_config_value(gm_home, "links", str(repo.resolve()), "project/widget")  # what `gitmem link` does
    hits = serve_client.try_recall(gm_home, "meson build", cwd=str(repo))
    assert hits and hits[0]["scope"] == "project/widget"
    assert serve_client.try_recall(gm_home, "meson build", cwd=str(tmp_path)) == []  # elsewhere: not linked
    # And the CLI run inside the repository asks the daemon, which looks from there.
    n = daemon_requests(gm_home)
    res = run_cli("recall", "meson build", "--json", cwd=str(repo))
    assert res.returncode == 0 and json.loads(res.stdout)[0]["scope"] == "project/widget"
    assert daemon_requests(gm_home) == n + 2
