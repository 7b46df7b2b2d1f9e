"""watch / changes: ref polling with real processes writing meanwhile."""

from __future__ import annotations

import pytest
import json
import os
import queue
import subprocess
import sys
import time

from conftest import run_cli
from gitmem.sync.watch import Watcher


def _spawn_watch(*args: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "gitmem", "watch", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=dict(os.environ))


_READERS: dict[int, "queue.Queue[str]"] = {}


def _read_lines(proc: subprocess.Popen, n: int, timeout: float = 20) -> list[str]:
    """Up to n lines within timeout. A reader thread owns the pipe: select() on a
    buffered file misses lines that readline() already pulled into its buffer."""
    import queue
    import threading

    q = _READERS.get(proc.pid)
    if q is None:
        q = _READERS[proc.pid] = queue.Queue()

        def pump() -> None:
            for line in proc.stdout:
                q.put(line)

        threading.Thread(target=pump, daemon=True).start()
    lines: list[str] = []
    deadline = time.monotonic() + timeout
    while len(lines) < n:
        left = deadline - time.monotonic()
        if left <= 0:
            break
        try:
            lines.append(q.get(timeout=left))
        except queue.Empty:
            break
    return lines


def _wait_started(proc: subprocess.Popen, gm_home) -> None:
    # The watcher says so on stderr once it has taken its starting tips.
    line = proc.stderr.readline()
    assert line.startswith("watching "), line + proc.stderr.read()


def test_watch_cli_sees_commits_from_another_process(store, gm_home):
    store.remember("before the watcher started")
    proc = _spawn_watch("--json", "--interval", "0.2", "--count", "2")
    try:
        _wait_started(proc, gm_home)
        w1 = run_cli("--session", "writer-1", "--agent", "bot", "remember", "--type", "decision",
                     "Use SQLite for the cache", "--json")
        w2 = run_cli("append", "--scope", "channel/ops", "deployed v2")
        assert w1.returncode == 0 and w2.returncode == 0, w1.stderr + w2.stderr
        lines = _read_lines(proc, 2)
        proc.wait(timeout=10)
    finally:
        proc.kill()
    events = [json.loads(l) for l in lines]
    assert len(events) == 2, lines
    first = next(e for e in events if e["scope"] == "main")
    mem_id = json.loads(w1.stdout)["id"]
    assert first["ids"] == [mem_id] and first["op"] == "remember"
    assert first["ref"] == "refs/heads/main" and first["new"] == first["commit"]
    assert first["old"] == store.git.commit_obj("main~1").id
    assert first["session"] == "writer-1" and first["agent"] == "bot"
    assert "SQLite" in first["summary"] and first["time"].endswith("Z")
    ops = next(e for e in events if e["scope"] == "channel/ops")
    assert ops["op"] == "append" and ops["old"] is None  # a new scope: its first commit
    assert proc.returncode == 0  # --count 2 ended it


def test_watch_exec_gets_event_on_stdin(store, gm_home, tmp_path):
    out = tmp_path / "events.jsonl"
    proc = _spawn_watch("--interval", "0.2", "--count", "1", "--exec", f"cat >> {out}")
    try:
        _wait_started(proc, gm_home)
        assert run_cli("remember", "exec me").returncode == 0
        proc.wait(timeout=20)
    finally:
        proc.kill()
    ev = json.loads(out.read_text().strip())
    assert ev["op"] == "remember" and ev["summary"] == "remember: exec me"


def test_iterator_survives_forget_rewrite_and_hides_text(store):
    keep = store.remember("Tabs over spaces")
    secret = store.remember("The door code is 7261-alpha")
    w = Watcher(store.memories)
    writer = subprocess.run([sys.executable, "-m", "gitmem", "remember", "after start"],
                            capture_output=True, text=True)
    assert writer.returncode == 0, writer.stderr
    evs = w.poll()
    assert [e.summary for e in evs] == ["remember: after start"]
    old_tip = store.git.scopes()["main"]
    store.forget([secret.id], reason="leaked")  # rewrites history
    assert not store.git.is_ancestor(old_tip, store.git.scopes()["main"]), "history was rewritten"
    later = store.remember("written after the forget")
    evs = w.poll()
    dumped = json.dumps([e.to_dict() for e in evs])
    assert "7261-alpha" not in dumped and "door code" not in dumped
    forget_ev = [e for e in evs if e.op == "forget"]
    assert forget_ev and forget_ev[0].ids == [secret.id]
    assert evs[-1].ids == [later.id]
    # Rewritten copies of commits already reported are not reported again.
    assert not any(keep.id in e.ids or e.summary == "remember: after start" for e in evs)
    assert all(e.rewritten for e in evs)
    assert w.poll() == []


def test_iterator_events_with_stop(store):
    seen = []
    n = {"polls": 0}

    def stop():
        n["polls"] += 1
        if n["polls"] == 1:
            store.remember("during the watch")
        return n["polls"] >= 2

    for ev in store.watch_events(interval=0.01, stop=stop):
        seen.append(ev)
    assert [e.summary for e in seen] == ["remember: during the watch"]


@pytest.mark.slow
def test_changes_cursor_and_sessions(store, gm_home):
    first = run_cli("--session", "s1", "changes", "--cursor", "s1", "--json")
    assert first.returncode == 0 and json.loads(first.stdout) == []
    assert run_cli("--session", "s1", "remember", "mine").returncode == 0
    theirs = run_cli("--session", "s2", "remember", "theirs", "--json")
    theirs_id = json.loads(theirs.stdout)["id"]
    got = json.loads(run_cli("--session", "s1", "changes", "--cursor", "s1", "--json").stdout)
    assert [e["ids"] for e in got] == [[theirs_id]], "own writes left out"
    again = run_cli("--session", "s1", "changes", "--cursor", "s1", "--json")
    assert json.loads(again.stdout) == [], "the cursor moved"
    # --include-own and a fresh cursor from the start
    allc = json.loads(run_cli("changes", "--cursor", "audit", "--from-start", "--json").stdout)
    assert [e["summary"] for e in allc] == ["remember: mine", "remember: theirs"]
    bad = run_cli("changes", "--cursor", "../escape")
    assert bad.returncode == 2 and "bad cursor name" in bad.stderr
    # A cursor file holds positions, never memory text.
    text = (gm_home / "state" / "cursors" / "audit.json").read_text()
    assert "theirs" not in text and "mine" not in text


def test_changes_peek_and_scope_filter(store):
    store.changes("c")
    store.remember("main one")
    store.remember("ops one", scope="channel/ops")
    peek = store.changes("c", scopes=["channel/ops"], peek=True)
    assert [e.scope for e in peek] == ["channel/ops"]
    only_ops = store.changes("c", scopes=["channel/ops"])
    assert [e.summary for e in only_ops] == ["remember: ops one"]
    rest = store.changes("c")
    assert [e.summary for e in rest] == ["remember: main one"], "other scopes keep their place"


def test_rewrite_then_backdated_import_in_one_poll(store, tmp_path):
    """A forget (rewrite, old objects pruned) and an import of a dated file between two
    polls: the import's commit is dated 2024 yet is news, and is reported."""
    secret = store.remember("The vault combination is 31-41-59")
    store.remember("an ordinary memory")
    w = Watcher(store.memories)
    store.forget([secret.id], reason="leaked")
    ws = tmp_path / "ws" / "memory"
    ws.mkdir(parents=True)
    (ws / "2024-02-29.md").write_text("- leap day notes\n")
    store.import_dir("openclaw", ws.parent)
    evs = w.poll()
    assert [e.op for e in evs] == ["forget", "import"]
    assert evs[1].time.startswith("2024-02-29") and evs[1].summary == "import: openclaw memory/2024-02-29.md"
    assert "31-41-59" not in json.dumps([e.to_dict() for e in evs])


def test_watch_process_survives_a_forget_rewrite(store, gm_home):
    secret = store.remember("Backup phrase is correct-horse-battery")  # forget removes it, not redaction
    proc = _spawn_watch("--json", "--interval", "0.2")
    try:
        _wait_started(proc, gm_home)
        f = run_cli("forget", secret.id, "--reason", "leaked")
        assert f.returncode == 0, f.stderr
        after = json.loads(run_cli("remember", "after the rewrite", "--json").stdout)
        lines: list[str] = []
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and not any(after["id"] in l for l in lines):
            lines += _read_lines(proc, 1, timeout=1)
        assert proc.poll() is None, "still watching after the rewrite"
    finally:
        proc.kill()
    # Depending on where the polls fell: forget, [rewrite], remember.
    events = [json.loads(l) for l in lines if json.loads(l)["op"] != "rewrite"]
    assert [e["op"] for e in events] == ["forget", "remember"], lines
    assert events[0]["ids"] == [secret.id] and events[1]["ids"] == [after["id"]]
    assert "correct-horse" not in "".join(lines)


# ---- watch --remote and cursors over tracking refs ------------------------------------
def _bare(tmp_path, name: str = "remote.git") -> str:
    path = tmp_path / name
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(path)], check=True)
    return str(path)


def _home(tmp_path, name: str, url: str):
    import gitmem

    s = gitmem.init(tmp_path / name)
    s.remote_add("origin", url)
    return s


def _spawn_in(home, *args: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "gitmem", "watch", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=dict(os.environ, GITMEM_HOME=str(home)))


_STREAMS: dict[object, "queue.Queue[str]"] = {}  # keyed by the pipe (ids get reused)


def _lines_of(stream, n: int, timeout: float = 30, until=None) -> list[str]:
    """Lines of a pipe (a reader thread per pipe), until n lines, `until(line)` or timeout."""
    import threading

    q = _STREAMS.get(stream)
    if q is None:
        q = _STREAMS[stream] = queue.Queue()

        def pump() -> None:
            for line in stream:
                q.put(line)

        threading.Thread(target=pump, daemon=True).start()
    out: list[str] = []
    deadline = time.monotonic() + timeout
    while len(out) < n:
        try:
            line = q.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            break
        out.append(line)
        if until is not None and until(line):
            break
    return out


def test_watch_remote_reports_a_commit_synced_from_another_home(tmp_path):
    url = _bare(tmp_path)
    a, b = _home(tmp_path, "a", url), _home(tmp_path, "b", url)
    a.remember("an old memory, already on the remote")
    a.sync()
    env_out = tmp_path / "exec.txt"
    proc = _spawn_in(b.home, "--remote", "origin", "--interval", "0.2", "--json",
                     "--exec", f'echo "$GITMEM_EVENT_REMOTE $GITMEM_EVENT_REF" >> {env_out}')
    try:
        started = _lines_of(proc.stderr, 1)
        assert started and started[0].startswith("watching all scopes on remote origin"), started
        m = a.remember("The release train leaves on Thursdays", type="decision")
        a.sync()
        lines = _lines_of(proc.stdout, 50, until=lambda l: m.id in l)
        assert proc.poll() is None
        deadline = time.monotonic() + 20  # --exec runs after the line is printed
        while not env_out.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
    finally:
        proc.kill()
        proc.wait()
    events = [json.loads(l) for l in lines]
    # Only what arrived after the watcher started: the old memory is not news.
    assert [e["ids"] for e in events] == [[m.id]], lines
    ev = events[0]
    assert ev["remote"] == "origin" and ev["ref"] == "refs/remotes/origin/main" and ev["scope"] == "main"
    assert ev["op"] == "remember" and ev["summary"] == "remember: The release train leaves on Thursdays"
    assert ev["commit"] == ev["new"] == a.git.scopes()["main"]
    # The same event shape as a local one, plus "remote".
    local = {"ref", "scope", "old", "new", "commit", "op", "ids", "summary", "time", "author", "session", "agent"}
    assert set(ev) == local | {"remote"}
    # --exec ran for it, with the remote in its environment.
    assert env_out.read_text().splitlines() == ["origin refs/remotes/origin/main"]
    # Only tracking refs moved on B: its own scopes wait for `gitmem sync`.
    assert b.git.scopes().get("main") != a.git.scopes()["main"]


@pytest.mark.slow
def test_watch_remote_survives_an_unreachable_remote(tmp_path):
    missing = tmp_path / "not-yet.git"
    b = _home(tmp_path, "b", str(missing))
    proc = _spawn_in(b.home, "--remote", "origin", "--interval", "0.2", "--json")
    try:
        err = _lines_of(proc.stderr, 2)
        assert err[0].startswith("watching all scopes on remote origin"), err
        assert err[1].startswith("warning: remote origin") and "still watching" in err[1], err
        time.sleep(1.5)  # several failing polls
        assert proc.poll() is None, "the watcher is still alive"
        assert _lines_of(proc.stderr, 1, timeout=0.5) == [], "one warning per failure streak"
        # The remote appears: the watcher says so and reports what arrives.
        _bare(tmp_path, "not-yet.git")
        a = _home(tmp_path, "a", str(missing))
        m = a.remember("written once the remote existed")
        a.sync()
        back = _lines_of(proc.stderr, 1)
        assert back and "works again" in back[0], back
        lines = _lines_of(proc.stdout, 50, until=lambda l: m.id in l)
        assert any(json.loads(l)["ids"] == [m.id] for l in lines), lines
    finally:
        proc.kill()
        proc.wait()


def test_watch_remote_unknown_name_is_an_error(store):
    res = run_cli("watch", "--remote", "nowhere", "--interval", "0.2")
    assert res.returncode == 4 and "no remote 'nowhere'" in res.stderr, res.stderr


def test_changes_cursor_follows_tracking_refs(tmp_path):
    from click.testing import CliRunner

    from conftest import git
    from gitmem.frontends.cli import cli

    url = _bare(tmp_path)
    a, b = _home(tmp_path, "a", url), _home(tmp_path, "b", url)
    a.remember("history before the cursor")
    a.sync()
    git("--git-dir", str(b.git.path), "fetch", "-q", "origin")  # plain git fetch: the same refspecs
    assert b.changes("c", remote="origin") == []  # a new cursor starts at the tips
    m1 = a.remember("first after the cursor")
    a.sync()
    assert b.changes("c", remote="origin", peek=True) == [], "changes never fetches"
    git("--git-dir", str(b.git.path), "fetch", "-q", "origin")
    b.remember("a local one")
    evs = b.changes("c", remote="origin")
    assert [(e.remote, e.ids) for e in evs if e.remote] == [("origin", [m1.id])]
    assert [e.summary for e in evs if not e.remote] == ["remember: a local one"]
    # Without --remote the cursor keeps the remote's position for the next --remote call.
    m2 = a.remember("second after the cursor")
    a.sync()
    git("--git-dir", str(b.git.path), "fetch", "-q", "origin")
    assert b.changes("c") == []
    res = CliRunner().invoke(cli, ["--home", str(b.home), "changes", "--cursor", "c", "--remote", "origin",
                                   "--json"])
    assert res.exit_code == 0, res.output
    got = json.loads(res.output)
    assert [(e["remote"], e["ref"], e["ids"]) for e in got] == [("origin", "refs/remotes/origin/main", [m2.id])]
    # An existing cursor asked about the remote for the first time starts it at its tips.
    b.changes("late")
    assert b.changes("late", remote="origin") == []
    # An unknown remote is an error, not an empty answer.
    res = CliRunner().invoke(cli, ["--home", str(b.home), "changes", "--cursor", "c", "--remote", "nope"])
    assert res.exit_code == 4 and "no remote 'nope'" in res.output
