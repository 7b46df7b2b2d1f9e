"""forget / redact with real git: after a purge the text is in no object, no reflog and
no file under $GITMEM_HOME; fsck is clean; other memories keep their blobs and history."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from conftest import git, invoke_cli, raw_forms
from gitmem.policy import access
from gitmem.memories import ledger
from gitmem.core.errors import ConflictError, NotFound, UsageError

SECRETS = ("vault combination", "very secret", "vault-combo", "please rotate")


def git_dir(store) -> str:
    return str(store.git.path)


def all_objects(store) -> bytes:
    res = subprocess.run(["git", f"--git-dir={git_dir(store)}", "cat-file", "--batch-all-objects", "--batch"],
                         capture_output=True, check=True)
    return res.stdout


def holds(data: bytes, text: str) -> bool:
    """Whether raw git output holds `text` in any form the active codec stores it in."""
    return any(form in data for form in raw_forms(text))


def files_holding(home: Path, text: str) -> list[str]:
    hits = []
    for p in home.rglob("*"):
        if p.is_file():
            try:
                if holds(p.read_bytes(), text):
                    hits.append(str(p.relative_to(home)))
            except OSError:
                pass
    return hits


def fsck(store) -> subprocess.CompletedProcess:
    with store.git.maintenance_paused():  # a background repack deletes packs mid-fsck
        return _fsck(store)


def _fsck(store) -> subprocess.CompletedProcess:
    return subprocess.run(["git", f"--git-dir={git_dir(store)}", "fsck", "--strict", "--no-progress"],
                          capture_output=True, text=True)


def reflogs(store) -> bytes:
    out = b""
    for p in (Path(git_dir(store)) / "logs").rglob("*"):
        if p.is_file():
            out += p.read_bytes()
    return out


@pytest.fixture
def secret_store(store):
    """D (older) is merged into A by dream; A has a key and two versions; B and C are
    innocent memories in two scopes; A was recalled (access log)."""
    d = store.remember("The vault combination is 12-34-56, keep it very secret", importance=6)
    a = store.remember("The vault combination is 12-34-56 keep it secret", key="vault-combo", importance=6)
    b = store.remember("Prefers tabs over spaces in Go files", tags=["style"])
    store.update(b.id, "Prefers tabs over spaces in Go and Makefiles")
    c = store.remember("Ship on fridays only when the on-call agrees", scope="channel/ops")
    store.update(a.id, "The vault combination is 12-34-56 keep it secret, please rotate")
    result = store.dream(scope="main", force=True)
    merges = result["scopes"]["main"]["merges"]
    assert merges and merges[0]["survivor"] == a.id and merges[0]["merged"] == [d.id], merges
    access.record(store.home, [a.id, b.id])
    return store, a, b, c, d


def test_forget_purges_text_everywhere(secret_store, gm_home):
    store, a, b, c, d = secret_store
    before = all_objects(store)
    assert all(holds(before, s) for s in SECRETS[:3])  # the check below can fail
    # gitmem's own ref moves write no reflog; git tooling (fetch, update-ref) does, with
    # the commit subject as its message. Make one so the reflog check below can fail.
    tip = git("--git-dir", git_dir(store), "rev-parse", "main").strip()
    git("--git-dir", git_dir(store), "update-ref", "--create-reflog", "-m",
        "remember: The vault combination", "refs/heads/main", tip)
    assert holds(reflogs(store), "vault")
    store.recall("vault combination")
    index_built = any(p.name.startswith("index.duckdb") for p in gm_home.iterdir())
    assert index_built and b"vault combination" in (gm_home / "index.duckdb").read_bytes()  # so the check bites
    b_tip_blob = store.git.blob_id(store.git.tip("main"), store.get(b.id).path)
    b_versions = [e.commit for e in store.log(b.id)]
    c_tip = store.git.scopes()["channel/ops"]

    out = store.forget([a.id], reason="user asked to forget it")
    assert out["ids"] == sorted([a.id, d.id]) and out["merged"] == [d.id]

    objs = all_objects(store)
    for s in SECRETS:
        assert not holds(objs, s), s
        assert not holds(reflogs(store), s), s
        assert files_holding(gm_home, s) == [], s
    # No dangling or broken objects, every ref readable.
    res = fsck(store)
    assert res.returncode == 0 and "dangling" not in res.stdout + res.stderr, res.stdout + res.stderr
    # The others: same blob, same versions (rewritten commit ids, same content), other scope untouched.
    assert store.git.blob_id(store.git.tip("main"), store.get(b.id).path) == b_tip_blob
    versions = store.log(b.id)
    assert len(versions) == len(b_versions)
    assert {store.get(b.id, at=e.commit).text for e in versions} == {
        "Prefers tabs over spaces in Go files", "Prefers tabs over spaces in Go and Makefiles"}
    assert store.git.scopes()["channel/ops"] == c_tip
    assert store.get(c.id).text.startswith("Ship on fridays")
    # Gone, but the audit trail names the id, who, why.
    with pytest.raises(NotFound):
        store.get(a.id)
    with pytest.raises(NotFound):
        store.get("vault-combo")
    entry = store.log(a.id)[0]
    assert entry.op == "forget" and a.id in entry.ids
    msg = store.show(entry.commit)["message"]
    assert "Gitmem-Reason: user asked to forget it" in msg and "vault" not in msg
    assert all("vault" not in e.summary for e in store.log())
    # The redaction record: ids and hashes, never the text.
    rec = subprocess.run(["git", f"--git-dir={git_dir(store)}", "show", f"refs/gitmem/redactions:{out['record']}"],
                         capture_output=True, check=True).stdout
    record = ledger.read(store.git, out["record"])
    assert record["ids"] == sorted([a.id, d.id]) and record["blobs"] and record["commits"]
    assert [r for _, r in ledger.records(store.git)] == [record]
    assert rec and not holds(rec, "vault")
    # The access log no longer names it; the pre-dream archive ref was rewritten too.
    assert a.id not in (gm_home / "state" / "access.log").read_text()
    assert b.id in (gm_home / "state" / "access.log").read_text()
    assert any(r.startswith("refs/gitmem/archive/main/") for r in store.git.refs("refs/gitmem/"))
    # Notes follow their rewritten commits (access counts flushed by the dream).
    dream_commit = next(e.commit for e in store.log(scope="main") if e.op == "dream")
    assert "access" in json.loads(store.git.note(dream_commit))
    if index_built:
        assert out["index"] in ("rebuilt", "deleted")
        # Rebuilt from the rewritten store, the index still holds none of it.
        store.git.reopen()
        store2 = __import__("gitmem").open(gm_home)
        assert store2.recall("tabs spaces")
        assert any(p.name.startswith("index.duckdb") for p in gm_home.iterdir())
        for s in SECRETS:
            assert files_holding(gm_home, s) == [], s


def test_forget_cli_log_shows_id_never_text(secret_store):
    store, a, *_ = secret_store
    res = invoke_cli("forget", a.id, "--reason", "outdated secret", "--json")
    assert res.returncode == 0, res.stderr
    data = json.loads(res.stdout)
    assert a.id in data["ids"] and data["purged"]
    log = invoke_cli("log", "--json")
    assert log.returncode == 0 and a.id in log.stdout and "vault" not in log.stdout
    assert not holds(all_objects(store), "vault")


def test_keep_history_is_soft(store):
    a = store.remember("The staging host is stg-7.internal.example")
    first = a.commit
    out = store.forget([a.id], keep_history=True, reason="moved hosts")
    assert out["keep_history"] and not out["purged"]
    with pytest.raises(NotFound):
        store.get(a.id)
    assert store.get(a.id, at=first).text == "The staging host is stg-7.internal.example"
    assert holds(all_objects(store), "stg-7.internal")
    assert store.log(a.id)[0].op == "forget"
    assert "refs/gitmem/redactions" not in store.git.refs("refs/gitmem/")
    # A later hard forget of the same id (now only in history) purges it.
    out = store.forget([a.id])
    assert out["purged"] and out["ids"] == [a.id]
    assert not holds(all_objects(store), "stg-7.internal")
    assert fsck(store).returncode == 0


def test_redact_text_purges_a_leaked_string(store, gm_home):
    leaked = "tok-9f8e7d6c5b4a-leak"
    m1 = store.remember(f"CI uses the deploy credential {leaked} for staging")
    m2 = store.remember(f"Rotate {leaked} every month", scope="channel/ci")
    clean = store.remember("Nothing to see here, just a preference for dark mode")
    clean_blob = store.git.blob_id(store.git.tip("main"), clean.path)
    assert holds(all_objects(store), leaked)
    res = invoke_cli("redact", "--text", leaked, "--reason", "leaked token", "--json")
    assert res.returncode == 0, res.stderr
    data = json.loads(res.stdout)
    assert set(data["commits"]) == {"main", "channel/ci"}
    assert not holds(all_objects(store), leaked)
    assert not holds(reflogs(store), leaked)
    assert files_holding(gm_home, leaked) == []
    assert fsck(store).returncode == 0
    store.git.reopen()
    assert store.get(m1.id).text == "CI uses the deploy credential [redacted] for staging"
    assert store.get(m2.id).text == "Rotate [redacted] every month"
    assert store.git.blob_id(store.git.tip("main"), clean.path) == clean_blob
    assert store.log(scope="main")[0].op == "redact"


def test_redact_refuses_short_and_absent_strings(store):
    store.remember("some memory text that is long enough")
    with pytest.raises(UsageError):
        store.redact_text("abc")
    with pytest.raises(NotFound):
        store.redact_text("definitely-not-in-the-store")


def test_forget_query_needs_yes(store):
    a = store.remember("The wifi password at the cabin is on the fridge")
    b = store.remember("Cabin check-out is at 11")
    res = invoke_cli("forget", "--query", "wifi cabin")
    assert res.returncode == 0 and a.id in res.stdout and b.id not in res.stdout
    assert store.get(a.id)  # nothing happened
    res = invoke_cli("forget", "--query", "wifi cabin", "--yes", "--json")
    assert res.returncode == 0, res.stderr
    store.git.reopen()
    with pytest.raises(NotFound):
        store.get(a.id)
    assert store.get(b.id).text == "Cabin check-out is at 11"


def test_forget_unknown_id_is_not_found(store):
    store.remember("anything at all")
    res = invoke_cli("forget", "0000000000000")
    assert res.returncode == 4 and "error:" in res.stderr


def test_ref_transaction_moves_nothing_on_a_stale_old_value(store):
    one = store.remember("first memory text").commit
    two = store.remember("second memory text").commit
    with pytest.raises(ConflictError):
        store.git.update_refs([("refs/gitmem/test", two, None), ("refs/heads/main", one, one)])
    assert "refs/gitmem/test" not in store.git.refs("refs/gitmem/")
    assert store.git.scopes()["main"] == two


WRITER = """
import sys, time, gitmem
s = gitmem.open(sys.argv[1])
for n in range(int(sys.argv[2])):
    m = s.remember(f"concurrent note {n} from the writer process")
    print(m.id, flush=True)
    time.sleep(0.02)  # flock is not fair: leave the forget a gap to take the lock
"""


@pytest.mark.slow
def test_forget_under_concurrent_writers(store, gm_home):
    """Writes that race a forget wait for its lock: none is lost, the purge still holds."""
    import sys

    a = store.remember("The alarm code for the side door is 4242-9999")
    for n in range(20):
        store.remember(f"filler memory number {n}")
    proc = subprocess.Popen([sys.executable, "-c", WRITER, str(gm_home), "60"],
                            stdout=subprocess.PIPE, text=True)
    first = proc.stdout.readline().strip()  # the writer is running: race it
    store.forget([a.id], reason="race test")
    out, _ = proc.communicate(timeout=120)
    assert proc.returncode == 0
    written = [first] + out.split()
    assert len(written) == 60
    store.git.reopen()
    live = {m.id for m in store.list()}
    assert set(written) <= live and a.id not in live
    assert not holds(all_objects(store), "alarm code for the side door")
    assert fsck(store).returncode == 0
    # They really raced: writer commits on both sides of the forget commit.
    line, c = [], store.git.tip("main")
    while c is not None:
        line.append(store.git.info(c).message)
        c = store.git.first_parent(c)
    where = next(n for n, msg in enumerate(line) if "Gitmem-Op: forget" in msg)
    mine = [n for n, msg in enumerate(line) if "concurrent note" in msg]
    assert min(mine) < where < max(mine), (where, mine[:3], mine[-3:])


# ---- hypothesis: forget removes exactly the forgotten texts -------------------------------
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

WORDS = ["alpha", "beta", "gamma", "delta", "deploy", "window", "cabin", "wifi", "token"]
mem_plan = st.lists(
    st.tuples(st.lists(st.sampled_from(WORDS), min_size=2, max_size=6),  # text words
              st.integers(0, 2),                                          # later versions
              st.sampled_from(["main", "channel/a"]),                     # scope
              st.booleans()),                                             # forget it?
    min_size=2, max_size=6)


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(plan=mem_plan)
def test_forget_removes_exactly_the_forgotten_texts(plan):
    import tempfile

    import gitmem

    with tempfile.TemporaryDirectory() as tmp:
        store = gitmem.init(tmp)
        texts: dict[str, list[str]] = {}
        for n, (words, versions, scope, _) in enumerate(plan):
            first = " ".join(words) + f" m{n}v0 unique"
            m = store.remember(first, scope=scope)
            texts[m.id] = [first]
            for v in range(1, versions + 1):
                t = " ".join(reversed(words)) + f" m{n}v{v} unique"
                store.update(m.id, t)
                texts[m.id].append(t)
        ids = list(texts)
        gone = [i for i, (_, _, _, f) in zip(ids, plan) if f]
        kept = [i for i in ids if i not in gone]
        blobs = {i: store.git.blob_id(store.git.tip(store.get(i).scope), store.get(i).path) for i in kept}
        if gone:
            store.forget(gone)
        objs = all_objects(store)
        for i in gone:
            for t in texts[i]:
                assert not holds(objs, t)
        for i in kept:
            m = store.get(i)
            assert m.text == texts[i][-1]
            assert store.git.blob_id(store.git.tip(m.scope), m.path) == blobs[i]
            for t in texts[i]:
                assert holds(objs, t)  # earlier versions of kept memories stay
        assert fsck(store).returncode == 0


def test_an_annotated_tag_on_old_history_is_dropped_not_left_holding_the_text(store):
    a = store.remember("The garage door code is 1357-2468-9999")
    store.remember("an unrelated memory about tea")
    env = {**os.environ, "GIT_COMMITTER_NAME": "T", "GIT_COMMITTER_EMAIL": "t@example.com"}
    subprocess.run(["git", f"--git-dir={git_dir(store)}", "tag", "-a", "v1", "-m", "snapshot", a.commit],
                   check=True, env=env)
    subprocess.run(["git", f"--git-dir={git_dir(store)}", "tag", "light", a.commit], check=True)
    out = store.forget([a.id])
    assert out["deleted_tags"] == ["refs/tags/v1"]
    assert "refs/tags/light" in out["refs"]  # a lightweight tag is just rewritten
    assert not holds(all_objects(store), "garage door code")
    assert fsck(store).returncode == 0


def test_a_short_memory_leaves_no_subject_behind(store):
    a = store.remember("pin 4711")  # too short to hunt for inside other memories
    b = store.remember("the pin 4711 story is unrelated and stays")
    store.forget([a.id])
    subjects = [e.summary for e in store.log()]
    assert not any(s.startswith("remember: pin 4711") for s in subjects), subjects
    assert store.get(b.id).text == "the pin 4711 story is unrelated and stays"


def test_the_placeholder_of_a_forgotten_memory_is_the_same_bytes_on_every_clone():
    # Clones rewrite history independently from the ledger: the placeholder must not change
    # between versions, or two clones' rewritten commits would differ.
    from gitmem.lifecycle.purge import placeholder

    assert placeholder("mwuwjh47y0bwn") == b"---\nid: mwuwjh47y0bwn\nsummary: '[forgotten]'\n---\n[forgotten]\n"
