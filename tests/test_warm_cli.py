"""The warm CLI path (gitmem/frontends/launch.py): with `gitmem serve` running, the commands it
serves run in the daemon on the client's descriptors, directory and environment, and
print exactly what they print in-process. Every comparison runs the same command line
twice against the same store, once through the daemon and once with GITMEM_NO_DAEMON=1
(in-process), and compares stdout, stderr and the exit code byte for byte; the
daemon's request counter proves which way each went."""

from __future__ import annotations

import json
import os
import pty
import re
import signal
import subprocess
import sys
import time

import pytest
from conftest import daemon_requests, wait_for

from gitmem.frontends import hook_support
from gitmem.frontends.daemon import client as serve_client
from gitmem.frontends.runtime import Runtime

OLD = "2021-03-0{}T09:00:00Z"  # old dates: recency moves too slowly to change a rounded score
ITEMS = [
    {"text": "We deploy on Tuesdays after the standup, never on Fridays.", "type": "decision",
     "key": "deploy-window", "importance": 8, "tags": ["ops", "release"]},
    {"text": "The staging database is Postgres 16 on the small instance.", "type": "fact"},
    {"text": "I prefer tabs over spaces in Go code.", "type": "preference", "importance": 7},
    {"text": "The release checklist lives in docs/release.md.\nStep two: tag the build.\n"
             "Step three: write the notes <topic> & \"quotes\" — 部署时间.", "type": "reference"},
    {"text": "Coffee machine on floor three is broken again.", "type": "note", "scope": "channel/office"},
]


_wait = wait_for
_requests = daemon_requests


def _gitmem(*args, input=None, env=None, cwd=None, stdin=None):
    kw = {"input": input} if stdin is None else {"stdin": stdin}
    return subprocess.run([sys.executable, "-m", "gitmem", *args], capture_output=True,
                          env={**os.environ, **(env or {})}, cwd=cwd, **kw)


@pytest.fixture
def filled(store):
    items = [dict(it, created=OLD.format(i + 1)) for i, it in enumerate(ITEMS)]
    store.import_items(items)
    store.append("journal: shipped the importer")
    return store


def both(home, *args, input=None, env=None, cwd=None, stdin_tty=False):
    """(warm, cold) CompletedProcess of the same command line; asserts the warm one was
    run by the daemon (one request besides our own status calls) and the cold one not."""
    from gitmem.policy.access import log_path

    log = log_path(home)
    start = log.read_bytes() if log.exists() else b""
    out, added = [], []
    for cold in (False, True):
        # Recall and context count what they show (access log, which weighs memories):
        # both runs start from the same counts, and must add the same lines.
        log.parent.mkdir(parents=True, exist_ok=True)
        log.write_bytes(start)
        n = _requests(home)
        e = dict(env or {}, **({"GITMEM_NO_DAEMON": "1"} if cold else {}))
        if stdin_tty:
            master, slave = pty.openpty()
            try:
                res = _gitmem(*args, env=e, cwd=cwd, stdin=slave)
            finally:
                os.close(slave)
                os.close(master)
        else:
            res = _gitmem(*args, input=input, env=e, cwd=cwd)
        assert _requests(home) - n == (1 if cold else 2), f"{args}: the {'cold' if cold else 'warm'} run went the wrong way"
        out.append(res)
        added.append(re.sub(rb'"t": \d+', b'"t": 0', log.read_bytes()[len(start):]))
    assert added[0] == added[1], args
    return out


# `context` stamps the second it was built: the one thing two runs may not share.
_GENERATED = re.compile(rb'(generated"?[=:] ?")\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"')


# A hit's recency decays with the clock: the warm and the cold run read it a moment apart,
# and its sixth decimal may round either way (0.99387 / 0.993869 failed a CI check).
_RECENCY = re.compile(rb'("recency": )[0-9.e-]+')


def same(home, *args, **kw):
    warm, cold = both(home, *args, **kw)
    if args[0] == "context":
        warm.stdout, cold.stdout = (_GENERATED.sub(rb'\1<now>"', r.stdout) for r in (warm, cold))
    masked = [_RECENCY.sub(rb"\1<t>", r.stdout) for r in (warm, cold)]
    assert (warm.returncode, masked[0], warm.stderr) == (cold.returncode, masked[1], cold.stderr), args
    return warm


def test_each_served_command_prints_the_same_bytes_either_way(filled, daemon, gm_home):
    """The default run's check: every command the daemon serves, with --json, a usage
    error and a not-found error among them."""
    mid = filled.locate("deploy-window")[1]
    for args, code in ((("recall", "deploy", "--json", "-k", "3"), 0),
                       (("get", "deploy-window"), 0),
                       (("get", "no-such-memory"), 4),
                       (("list",), 0),
                       (("context",), 0),
                       (("changes", "--cursor", "c1", "--from-start", "--peek", "--json"), 0),
                       (("status",), 0),
                       (("remember", "x", "--importance", "99"), 2),
                       (("append", "--scope", "nope nope", "text"), 2)):
        res = same(gm_home, *args)
        assert res.returncode == code, (args, res.stderr)
        assert (res.stderr.startswith(b"error: ") and b"\nhint: " in res.stderr) if code else res.stdout
    assert json.loads(same(gm_home, "recall", "deploy", "--json").stdout)[0]["id"] == mid


@pytest.mark.slow
def test_read_commands_print_the_same_bytes_either_way(filled, daemon, gm_home):
    mems = {m.key or m.summary[:8]: m for m in filled.list(all_scopes=True)}
    mid = mems["deploy-window"].id
    today = filled.append("journal: one more line")["path"]
    runs = [
        ("recall", "deploy", "--json", "-k", "3"),
        ("recall", "release checklist"),
        ("recall", "release checklist", "--explain", "--all-scopes"),
        ("recall", "release", "--format", "prompt", "--budget", "200"),
        ("recall", "qqqzzz nothing like it", "--mode", "bm25"),
        ("get", mid, "--json"),
        ("get", "deploy-window"),
        ("get", today, "--from", "1", "--lines", "1"),
        ("list",),
        ("list", "--all-scopes", "--json"),
        ("list", "--type", "preference"),
        ("context",),
        ("context", "--format", "json"),
        ("context", "--budget", "200"),
        ("changes", "--cursor", "c1", "--from-start", "--peek", "--json"),
        ("changes", "--cursor", "c1", "--from-start", "--peek"),
        ("status",),
        ("status", "--json"),
        ("--session", "s1", "--agent", "bot", "list", "--scope", "channel/office"),
    ]
    for args in runs:
        res = same(gm_home, *args)
        assert res.returncode == 0, (args, res.stderr)
    assert json.loads(same(gm_home, "recall", "deploy", "--json").stdout)[0]["id"] == mid


@pytest.mark.slow
def test_errors_and_usage_errors_are_the_same(filled, daemon, gm_home):
    cases = [
        (("get", "no-such-memory"), 4),
        (("get", "no-such-memory", "--json"), 4),
        (("recall", " "), 2),
        (("recall", "x", "-k", "0"), 2),
        (("recall", "x", "--mode", "psychic"), 2),
        (("list", "--scope", "Not A Scope!"), 2),
        (("remember", "x", "--importance", "99"), 2),
        (("remember", "x", "--type", "feeling"), 2),
        (("append", "--scope", "nope nope", "text"), 2),
        (("changes",), 2),
        (("context", "--budget", "20"), 2),
        (("status", "--no-such-flag"), 2),
    ]
    for args, code in cases:
        res = same(gm_home, *args)
        assert res.returncode == code and res.stderr.startswith(b"error: "), (args, res.stderr)
        assert b"Traceback" not in res.stderr


@pytest.mark.slow
def test_stdin_and_terminal_detection_are_the_clients(filled, daemon, gm_home):
    # stdin is a terminal: `remember` without TEXT refuses instead of waiting for input.
    res = same(gm_home, "remember", stdin_tty=True)
    assert res.returncode == 2 and b"missing TEXT" in res.stderr
    # stdin is a pipe: the daemon reads the client's stdin.
    warm, cold = both(gm_home, "remember", "-", "--type", "fact", "--json",
                      input="Piped in: the VPN needs a restart on Mondays.\n".encode())
    assert warm.returncode == cold.returncode == 0
    w, c = json.loads(warm.stdout), json.loads(cold.stdout)
    assert w["id"] != c["id"]
    a, b = (_content(filled, d["id"]) for d in (w, c))
    assert a == b and a["text"] == "Piped in: the VPN needs a restart on Mondays.\n"
    res = same(gm_home, "remember", "-", input=b"\xff\xfe not utf-8")
    assert res.returncode == 2 and b"UTF-8" in res.stderr


def _content(store, mem_id):
    d = store.memory_json(store.get(mem_id))
    return {k: v for k, v in d.items() if k not in ("id", "commit", "created", "updated", "path")}


def _masked(out: bytes, ids) -> bytes:
    for i in ids:
        out = out.replace(i.encode(), b"<id>")
    out = re.sub(rb"/\w/\w/<id>", b"/_/_/<id>", out)  # the fan-out folders come from the id
    return re.sub(rb"\b[0-9a-f]{10,40}\b", b"<commit>", out)


@pytest.mark.slow
def test_writes_do_the_same_and_say_the_same(filled, daemon, gm_home):
    """A write differs only in its new id and commit: the rest of the output, and the
    memory written, are the same either way. (`--no-detect`: the second run would find
    the first one's memory as a possible duplicate; test_writes_report_the_same_duplicates
    compares that report.)"""
    for args in (("remember", "Alpha: the build cache lives in /var/cache/b.", "--type", "fact", "--tag", "ci",
                  "-i", "6", "--no-detect"),
                 ("remember", "Beta: token sk-live-0123456789abcdefghijklmnop must not leak", "--json",
                  "--no-detect"),
                 ("append", "a journal line from the warm test")):
        warm, cold = both(gm_home, *args)
        assert warm.returncode == cold.returncode == 0, (warm.stderr, cold.stderr)
        ids = set(re.findall(r"\b[0-9a-z]{13}\b", (warm.stdout + cold.stdout).decode()))
        assert _masked(warm.stdout, ids) == _masked(cold.stdout, ids), args
        assert warm.stderr == cold.stderr, args
        if args[0] == "remember":
            mems = [m for m in filled.list() if m.text.startswith(args[1][:5])]
            assert len(mems) == 2 and _content(filled, mems[0].id) == _content(filled, mems[1].id)
    # The second of two appends is one line further down the same file.
    warm, cold = (json.loads(r.stdout) for r in both(gm_home, "append", "another journal line", "--json"))
    assert cold.pop("line") == warm.pop("line") + 1 and cold.pop("commit") != warm.pop("commit")
    assert warm == cold


@pytest.mark.slow
def test_the_clients_session_agent_cwd_and_relative_home(filled, daemon, gm_home, tmp_path):
    n = _requests(gm_home)
    warm = _gitmem("remember", "Gamma: written by the bot.", "--json",
                   env={"GITMEM_SESSION": "sess-42", "GITMEM_AGENT": "bot"})
    assert warm.returncode == 0 and _requests(gm_home) == n + 2, warm.stderr
    entry = filled.log(json.loads(warm.stdout)["id"])[0]
    assert entry.author == "bot" and "Gamma" in entry.summary
    assert b"sess-42" in _gitmem("show", entry.commit).stdout  # the session trailer
    # The next command without them is nobody's: nothing of the last client stayed behind.
    warm = _gitmem("remember", "Delta: written by nobody in particular.", "--json")
    assert filled.log(json.loads(warm.stdout)["id"])[0].author == "Test Person"
    assert b"sess-42" not in _gitmem("show", filled.log(json.loads(warm.stdout)["id"])[0].commit).stdout
    # A relative --home is the client's, from the client's directory.
    # (From a folder beside the store: with an editable install, `python -m gitmem` run
    # in a folder that holds a `gitmem` folder would import that folder as the package.)
    work = tmp_path / "work"
    work.mkdir()
    rel = os.path.relpath(gm_home, work)
    filled.recall("gamma")  # the index caught up first: status reports it, whichever way it runs
    res = same(gm_home, "--home", rel, "status", cwd=str(work))
    assert res.stdout.startswith(f"home:     {rel}\n".encode())
    # A linked code repository: the client's directory picks the project scope.
    filled.remember("The widget repo builds with meson, not make.", scope="project/widget", created=OLD.format(9))
    repo = tmp_path / "widget"
    repo.mkdir()
    from gitmem.core.config import write_config_value

    write_config_value(gm_home, "links", str(repo.resolve()), "project/widget")
    res = same(gm_home, "recall", "meson", "--json", cwd=str(repo))
    assert json.loads(res.stdout)[0]["scope"] == "project/widget"
    warm = _gitmem("remember", "Epsilon: the widget uses ninja too.", "--json", cwd=str(repo))
    assert json.loads(warm.stdout)["scope"] == "project/widget"


@pytest.mark.slow
def test_another_processes_writes_are_seen(filled, daemon, gm_home):
    before = same(gm_home, "list", "--json")
    filled.remember("Zeta: added by another process, not through the daemon.", created=OLD.format(8))
    after = same(gm_home, "list", "--json")
    assert len(json.loads(after.stdout)) == len(json.loads(before.stdout)) + 1
    res = same(gm_home, "recall", "Zeta another process", "--json", "-k", "1")
    assert "Zeta" in json.loads(res.stdout)[0]["snippet"]
    res = same(gm_home, "status", "--json")
    assert json.loads(res.stdout)["memories"] == len(json.loads(after.stdout)) + 1  # + channel/office


@pytest.mark.slow
def test_another_configuration_runs_in_process(filled, daemon, gm_home):
    """A client with other GITMEM_* settings is not served: its own limits apply."""
    res = _gitmem("remember", "longer than twenty bytes, surely", env={"GITMEM_MAX_TEXT_BYTES": "20"})
    assert res.returncode == 2 and b"error:" in res.stderr
    res = _gitmem("remember", "longer than twenty bytes, surely")
    assert res.returncode == 0


def test_the_client_path_imports_the_standard_library_only(filled, daemon, gm_home):
    code = ("import sys; from gitmem.frontends import launch; code = launch.try_warm(['list', '--json']); "
            "heavy = sorted(m for m in sys.modules if m.split('.')[0] in ('click', 'pygit2', 'duckdb', 'numpy', "
            "'yaml', 'fastembed', 'jinja2') or m in ('gitmem.api', 'gitmem.frontends.cli', 'gitmem.frontends.daemon.client')); "
            "sys.stderr.write(repr((code, heavy)))")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert res.stderr == "(0, [])"
    assert len(json.loads(res.stdout)) == len(filled.list())


def test_autostart_starts_a_daemon_for_the_next_call(filled, gm_home):
    from gitmem.core.config import write_config_value

    write_config_value(gm_home, "serve", "autostart", True)
    write_config_value(gm_home, "serve", "idle_exit", 60)
    try:
        assert _gitmem("list").returncode == 0  # in-process; starts one in the background
        assert _wait(lambda: serve_client.ping(gm_home) is not None)
        n = _requests(gm_home)
        res = _gitmem("list")
        assert res.returncode == 0 and _requests(gm_home) == n + 2  # this one was served
    finally:
        pid = (serve_client.ping(gm_home) or {}).get("pid")
        if pid:
            os.kill(pid, signal.SIGTERM)
            _wait(lambda: not serve_client.socket_path(gm_home).exists())


def test_no_autostart_by_default(filled, gm_home):
    assert _gitmem("list").returncode == 0
    time.sleep(0.3)
    assert not serve_client.running(gm_home) and not serve_client.socket_path(gm_home).exists()


@pytest.mark.slow
def test_mcp_search_asks_the_daemon(filled, daemon, gm_home):
    from test_mcp import _payload, run_session

    async def scenario(s):
        n = _requests(gm_home)
        out = _payload(await s.call_tool("memory_search", {"query": "when do we deploy", "k": 3}))
        return out, _requests(gm_home) - n

    out, asked = run_session(scenario)
    assert asked == 2  # the search (and our status call) went to the daemon
    # What MCP shows a model: the same recall, through the relevance floor and quarantine.
    expect = [h.id for h in filled.injectable(filled.recall("when do we deploy", k=3))]
    assert expect and [h["id"] for h in out["results"]] == expect
    assert filled.receipts()[-1]["kind"] == "mcp-search"  # the MCP server still records what it showed


def _kept_after_click_wrote(wrap) -> bool:
    """Whether a finished command's stdout stays alive once click has written to
    sys.stdout = wrap(stream) and every other reference is gone."""
    import gc
    import weakref

    import click

    from gitmem.frontends.daemon.runner import _stdio

    r, w = os.pipe()
    os.close(r)
    stream = _stdio(w, "w", "utf-8", "strict", line=False)
    ref = weakref.ref(stream)
    saved, sys.stdout = sys.stdout, wrap(stream)
    try:
        click.echo("", nl=False)
    finally:
        sys.stdout = saved
    stream.close()
    del stream
    gc.collect()
    return ref() is not None


def test_the_daemon_does_not_keep_a_finished_commands_streams():
    """click caches every sys.stdout it writes to, for good (a WeakKeyDictionary whose
    value is the stream); a command run in the daemon writes through ClientStream, which
    that cache passes over, so a long-lived daemon keeps no client's streams."""
    from gitmem.frontends.daemon.runner import ClientStream

    assert not _kept_after_click_wrote(ClientStream)
    assert _kept_after_click_wrote(lambda s: s)  # the test can fail: a plain stream is kept


@pytest.mark.slow
def test_a_hooks_index_catch_up_is_done_by_the_daemon(filled, daemon, gm_home, monkeypatch):
    """After a stop hook wrote, the index catch-up goes to the running daemon (its model
    is loaded) instead of a detached process loading another copy."""

    same(gm_home, "recall", "deploy", "--json")  # the index is fresh now
    filled.remember("Eta: written by a hook's extract.", created=OLD.format(7))
    assert any(filled.index_status()["index_lag"].values())
    monkeypatch.setattr(subprocess, "Popen", lambda *a, **k: pytest.fail("spawned a process"))
    hook_support.warm_index(filled, Runtime())
    assert _wait(lambda: not any(filled.index_status()["index_lag"].values()), timeout=20)


@pytest.mark.slow
def test_a_client_stopped_while_its_command_reads_the_terminal_does_not_wedge_the_daemon(filled, daemon, gm_home):
    master, slave = pty.openpty()
    try:
        proc = subprocess.Popen([sys.executable, "-m", "gitmem", "remember", "-"], stdin=slave,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        # Wait until the daemon runs it (reading the terminal), then Ctrl-C the client.
        assert _wait(lambda: serve_client.request(gm_home, {"op": "status"})["running_command"]
                     or proc.poll() is not None, timeout=20)
        time.sleep(0.2)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=20)
        assert proc.returncode == 130 and err == b"error: interrupted\n"
    finally:
        os.close(slave)
        os.close(master)
    # The daemon gave the terminal up: the next command is served, and nothing was written.
    n = _requests(gm_home)
    res = _gitmem("list", "--json")
    assert res.returncode == 0 and _requests(gm_home) == n + 2
    assert len(json.loads(res.stdout)) == len(filled.list())


@pytest.mark.slow
def test_writes_report_the_same_duplicates(filled, daemon, gm_home):
    """Update detection runs the same through the daemon: a text already stored is
    reported as a possible duplicate of the same memory either way."""
    first = filled.remember("Gamma: the staging database is db-stage-2.").to_dict()
    warm, cold = both(gm_home, "remember", "Gamma: the staging database is db-stage-2.", "--json")
    assert warm.returncode == cold.returncode == 0, (warm.stderr, cold.stderr)
    w, c = json.loads(warm.stdout), json.loads(cold.stdout)
    assert first["id"] in [d["id"] for d in w["possible_duplicates"]]
    assert first["id"] in [d["id"] for d in c["possible_duplicates"]]
