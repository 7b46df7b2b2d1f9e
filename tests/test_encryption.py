"""Encrypted stores (issue 10): the AES-SIV codec, the keyring, key export/import/rotate,
sync between homes that share a key, crypto-shredding at forget, and every bad input,
checked against what plain git sees in the repositories."""

from __future__ import annotations

import base64
import json
import os
import subprocess
from pathlib import Path

import pytest
from conftest import git, invoke_cli, raw_forms
from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESSIV
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import gitmem
from gitmem.core.errors import CorruptObject, RemoteError, UsageError
from gitmem.store import crypto, masterkey


def bare(tmp_path: Path, name: str = "remote.git") -> str:
    path = tmp_path / name
    git("init", "-q", "--bare", "-b", "main", str(path))
    return str(path)


def every_object(git_dir: str) -> bytes:
    """Every object in the repository, reachable or not, as `git cat-file` prints it."""
    return subprocess.run(["git", "--git-dir", git_dir, "cat-file", "--batch-all-objects", "--batch"],
                          capture_output=True, check=True).stdout


def raw_blobs(git_dir: str) -> list[bytes]:
    ids = subprocess.run(["git", "--git-dir", git_dir, "cat-file", "--batch-all-objects",
                          "--batch-check=%(objectname) %(objecttype)"], capture_output=True, check=True,
                         text=True).stdout.split("\n")
    out = []
    for line in ids:
        if line.endswith(" blob"):
            out.append(subprocess.run(["git", "--git-dir", git_dir, "cat-file", "blob", line.split()[0]],
                                      capture_output=True, check=True).stdout)
    return out


@pytest.fixture
def enc(tmp_path):
    return gitmem.init(tmp_path / "enc", encrypt=True)


# ---- the codec --------------------------------------------------------------------------
def _codec(store):
    return store.git.codec


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.binary(max_size=4096),
       path=st.sampled_from(["memories/note/2026-11/a/b/mwsh9roxagxjx.md", "daily/2026-11-22.md",
                             "keys/a2/ab19", "sessions/2026-11-22-s.md", "conflicts/mwsh9roxagxjx/x.md"]))
def test_codec_round_trips_any_bytes_and_is_deterministic(enc, data, path):
    c = _codec(enc)
    sealed = c.encode(path, data)
    assert sealed.startswith(crypto.MAGIC) and c.decode(path, sealed) == data
    assert c.encode(path, data) == sealed  # deterministic: unchanged content keeps its blob id
    if len(data) >= 8:
        assert data not in sealed


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(subject=st.text(min_size=1, max_size=200).filter(lambda s: s.strip() and "\n" not in s),
       body=st.text(max_size=300), one_id=st.booleans())
def test_codec_round_trips_any_message_and_keeps_only_op_and_ids_clear(enc, subject, body, one_id):
    c = _codec(enc)
    trailers = "Gitmem-Op: remember\n" + ("Gitmem-Id: mwsh9roxagxjx\n" if one_id else "") + \
        "Gitmem-Scope: main\nGitmem-Session: secret-session\n"
    body = body.strip()
    msg = f"{subject}\n\n{body}\n\n{trailers}" if body else f"{subject}\n\n{trailers}"
    sealed = c.encode_message(msg)
    assert c.decode_message(sealed) == msg
    assert sealed.startswith(crypto.MSG_MARK)
    assert "Gitmem-Op: remember" in sealed and ("Gitmem-Id: mwsh9roxagxjx" in sealed) == one_id
    assert "secret-session" not in sealed and "Gitmem-Scope" not in sealed


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.binary(min_size=0, max_size=512), where=st.integers(min_value=0), bit=st.integers(0, 7))
def test_any_flipped_bit_is_detected(enc, data, where, bit):
    c = _codec(enc)
    sealed = bytearray(c.encode("daily/2026-11-22.md", data))
    i = len(crypto.MAGIC) + where % (len(sealed) - len(crypto.MAGIC))
    sealed[i] ^= 1 << bit
    with pytest.raises(ValueError):
        c.decode("daily/2026-11-22.md", bytes(sealed))


def test_a_blob_written_around_gitmem_is_refused(enc):
    with pytest.raises(ValueError, match="not encrypted"):
        _codec(enc).decode("daily/x.md", b"plain text planted by plain git")


def test_each_memory_has_its_own_key_and_journals_theirs(enc):
    c = _codec(enc)
    a = c.encode("memories/note/2026-11/a/b/mwsh9roxagxjx.md", b"x")
    b = c.encode("memories/note/2026-11/a/b/mwsh9roxagxjy.md", b"x")
    j = c.encode("daily/2026-11-22.md", b"x")
    kids = {c.sealed_kid(a), c.sealed_kid(b), c.sealed_kid(j)}
    assert len(kids) == 3
    # Conflict copies and archive moves use the memory's key.
    assert c.sealed_kid(c.encode("archive/note/2026-11/a/b/mwsh9roxagxjx.md", b"y")) == c.sealed_kid(a)
    assert c.sealed_kid(c.encode("conflicts/mwsh9roxagxjx/0a1b.md", b"y")) == c.sealed_kid(a)


# ---- a store -----------------------------------------------------------------------------
def test_plain_git_shows_ciphertext_and_gitmem_reads_everything(enc, tmp_path):
    m = enc.remember("My bank PIN hint is the cat's birthday", key="bank-hint", tags=["money"])
    enc.append("Met Dr. Alvarez about the knee")
    enc.update(m.id, "My bank PIN hint is the dog's birthday")
    gd = str(enc.git.path)
    git("--git-dir", gd, "fsck", "--strict")
    blob = every_object(gd)
    for s in (b"bank PIN", b"Alvarez", b"bank-hint", b"money", b"birthday"):
        assert s not in blob
    log = git("--git-dir", gd, "log", "--format=%B", "main")
    assert "gitmem-enc1 " in log and "Gitmem-Op: update" in log and "PIN" not in log
    assert enc.get(m.id).text == "My bank PIN hint is the dog's birthday"
    assert enc.log(limit=3)[0].summary.startswith("update: ")
    hits = enc.recall("bank PIN hint")
    assert hits and hits[0].id == m.id
    assert "Alvarez" in json.dumps(enc.context())
    exported = list(enc.export_jsonl())
    assert any("dog's birthday" in e["text"] for e in exported)
    st_ = enc.status()["encryption"]
    assert st_["encrypted"] and st_["key"] == "present" and st_["fingerprint"] == enc.encryption()["fingerprint"]
    # An encrypted home keeps its plaintext (index, state, keys) to its owner.
    home = Path(enc.home)
    assert (home.stat().st_mode & 0o077) == 0
    assert (home / "keys" / "master.json").stat().st_mode & 0o777 == 0o600
    for p in list(home.glob("index.duckdb*")) + [p for p in (home / "state").rglob("*") if p.is_file()]:
        assert p.stat().st_mode & 0o077 == 0, p


def test_dream_forget_changes_and_watch_work_encrypted(enc):
    a = enc.remember("Prefers tabs over spaces", type="preference")
    enc.remember("Prefers tabs over spaces in Python files", type="preference")
    events = enc.changes("c1", from_start=True)
    assert any(a.id in e.ids for e in events)
    enc.dream(force=True)
    out = enc.forget([a.id]) if any(m.id == a.id for m in enc.list()) else None
    if out:
        assert out["purged"]
    git("--git-dir", str(enc.git.path), "fsck", "--strict")
    assert all("tabs" not in m.text or m.id != a.id for m in enc.list(archived=True))


def test_status_and_cli_say_encrypted_with_fingerprint(tmp_path):
    res = invoke_cli("--home", str(tmp_path / "h"), "init", "--encrypt", "--json")
    assert res.returncode == 0, res.stderr
    fp = json.loads(res.stdout)["encryption"]["fingerprint"]
    res = invoke_cli("--home", str(tmp_path / "h"), "status")
    assert f"encrypted: yes, key {fp}" in res.stdout
    res = invoke_cli("--home", str(tmp_path / "h"), "encrypt", "status", "--json")
    assert json.loads(res.stdout)["fingerprint"] == fp


# ---- bad input ---------------------------------------------------------------------------
def test_missing_key_is_a_clean_error_and_nothing_is_written(enc, tmp_path):
    m = enc.remember("a sealed memory")
    home = Path(enc.home)
    os.rename(home / "keys" / "master.json", tmp_path / "away.json")
    before = git("--git-dir", str(enc.git.path), "for-each-ref")
    for args in (["get", m.id], ["list"], ["remember", "more"], ["recall", "sealed"]):
        res = invoke_cli("--home", str(home), *args)
        assert res.returncode == 2, (args, res.stdout, res.stderr)
        assert res.stderr.startswith("error: this store is encrypted and") and "hint: import its key" in res.stderr
        assert "Traceback" not in res.stderr
    assert git("--git-dir", str(enc.git.path), "for-each-ref") == before
    res = invoke_cli("--home", str(home), "status", "--json")
    assert res.returncode == 0 and json.loads(res.stdout)["encryption"]["key"] == "missing"
    # Importing the right key brings it back.
    res = invoke_cli("--home", str(home), "key", "import", str(tmp_path / "away.json"))
    assert res.returncode == 0, res.stderr
    assert invoke_cli("--home", str(home), "get", m.id).returncode == 0


def test_wrong_key_is_refused_and_changes_nothing(enc, tmp_path):
    other = gitmem.init(tmp_path / "other", encrypt=True)
    (tmp_path / "other.key").write_text(other.key_export())
    mine = (Path(enc.home) / "keys" / "master.json").read_bytes()
    res = invoke_cli("--home", str(enc.home), "key", "import", str(tmp_path / "other.key"))
    assert res.returncode == 2 and "encrypted with another key" in res.stderr and "hint:" in res.stderr
    assert (Path(enc.home) / "keys" / "master.json").read_bytes() == mine
    # A key file swapped in by hand: a clean error, not garbage.
    enc.remember("still here")
    (Path(enc.home) / "keys" / "master.json").write_text((tmp_path / "other.key").read_text())
    res = invoke_cli("--home", str(enc.home), "list")
    assert res.returncode == 2 and "belongs to another store" in res.stderr and "Traceback" not in res.stderr
    for bad in ("not json", json.dumps({"key": "x"})):
        (tmp_path / "bad.key").write_text(bad)
        res = invoke_cli("--home", str(tmp_path / "other"), "key", "import", str(tmp_path / "bad.key"))
        assert res.returncode == 2 and "not a gitmem key file" in res.stderr


def test_corrupted_ciphertext_blob_is_a_clean_error(enc, tmp_path):
    m = enc.remember("a memory that will be damaged")
    gd = str(enc.git.path)
    path = enc.get(m.id).path
    raw = subprocess.run(["git", "--git-dir", gd, "cat-file", "blob", f"main:{path}"], capture_output=True,
                         check=True).stdout
    bad = bytearray(raw)
    bad[-3] ^= 0x40
    (tmp_path / "bad.bin").write_bytes(bytes(bad))
    oid = git("--git-dir", gd, "hash-object", "-w", str(tmp_path / "bad.bin")).strip()
    # Plant it with plain git (a damaged object, or a hostile host).
    env = {**os.environ, "GIT_INDEX_FILE": str(tmp_path / "idx")}
    subprocess.run(["git", "--git-dir", gd, "read-tree", "main"], env=env, check=True)
    subprocess.run(["git", "--git-dir", gd, "update-index", "--cacheinfo", f"100644,{oid},{path}"], env=env, check=True)
    tree = subprocess.run(["git", "--git-dir", gd, "write-tree"], env=env, capture_output=True, text=True,
                          check=True).stdout.strip()
    commit = git("--git-dir", gd, "commit-tree", tree, "-p", "main", "-m", "tamper").strip()
    git("--git-dir", gd, "update-ref", "refs/heads/main", commit)
    res = invoke_cli("--home", str(enc.home), "get", m.id)
    assert res.returncode == 7, res.stderr
    assert "does not authenticate" in res.stderr and "Traceback" not in res.stderr
    with pytest.raises(CorruptObject):
        gitmem.open(enc.home).get(m.id)


def test_key_export_refuses_a_terminal_and_existing_files(enc, tmp_path):
    f = tmp_path / "k.json"
    res = invoke_cli("--home", str(enc.home), "key", "export", str(f))
    assert res.returncode == 0 and f.stat().st_mode & 0o777 == 0o600
    res = invoke_cli("--home", str(enc.home), "key", "export", str(f))
    assert res.returncode == 2 and "exists" in res.stderr
    # stdout that is a terminal: refused (a pty stands in for one).
    import pty
    pid, fd = pty.fork()
    if pid == 0:  # pragma: no cover - the child
        os.execvpe(os.sys.executable, [os.sys.executable, "-m", "gitmem", "--home", str(enc.home), "key", "export"],
                   os.environ)
    out = b""
    while True:
        try:
            chunk = os.read(fd, 4096)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 2 and b"refusing to print the key" in out
    assert b'"key"' not in out
    # Piped, it prints.
    res = invoke_cli("--home", str(enc.home), "key", "export")
    assert res.returncode == 0 and json.loads(res.stdout)["lineage"]


def test_init_encrypt_refuses_a_plain_store_with_memories(store):
    store.remember("plain")
    with pytest.raises(UsageError, match="already holds plain memories"):
        gitmem.init(store.home, encrypt=True)


# ---- sync between homes ------------------------------------------------------------------
CANARY_KINDS = ("text", "key", "tag", "journal", "session", "reason", "update")


def _plant_canaries(s, tmp_path, prefix: str) -> list[str]:
    canaries = []
    for n in range(50):
        c = f"{prefix}{n:02d}Zq"
        kind = CANARY_KINDS[n % len(CANARY_KINDS)]
        canaries.append(c)
        if kind == "text":
            s.remember(f"memory text {c} about the project")
        elif kind == "key":
            s.remember("keyed memory", key=f"k-{c}")
        elif kind == "tag":
            s.remember("tagged memory", tags=[c])
        elif kind == "journal":
            s.append(f"journal line {c}")
        elif kind == "session":
            t = tmp_path / f"t{n}.jsonl"
            t.write_text(json.dumps({"type": "user", "message": {"role": "user", "content": "hello there"}}) + "\n")
            s.flush(t, session=f"sess-{n}", summary=f"session summary {c}")
        elif kind == "reason":
            m = s.remember(f"to be forgotten {n}")
            s.forget([m.id], reason=f"because {c}")
        else:
            m = s.remember(f"before update {n}")
            s.update(m.id, f"after update {c}")
    return canaries


def test_an_encrypted_remote_holds_none_of_50_canaries(tmp_path):
    url = bare(tmp_path)
    a = gitmem.init(tmp_path / "a", encrypt=True)
    a.remote_add("origin", url)
    canaries = _plant_canaries(a, tmp_path, "CNRY")
    a.sync()
    b = joined(tmp_path / "b", a.key_export(), url)
    b.remember("from b " + "CNRYB1Zq")
    b.sync()
    a.sync()
    texts = " ".join(m.text + " " + (m.key or "") + " " + " ".join(m.tags) for m in a.list())
    assert "CNRYB1Zq" in texts and "CNRY00Zq" in texts
    objects = every_object(url)
    found = [c for c in canaries + ["CNRYB1Zq"] if c.encode() in objects]
    assert found == []
    assert git("--git-dir", url, "fsck", "--strict") is not None
    # The memories really did travel (the remote is not empty ciphertext noise).
    assert len([m for m in b.list() if "CNRY" in m.text or (m.key or "").startswith("k-CNRY")]) >= 14


def joined(home: Path, key_file_text: str, url: str):
    """A new home that imports a key, adds the shared remote and syncs from it."""
    h = gitmem.init(home)
    h.key_import(key_file_text)
    h.remote_add("origin", url)
    h.sync()
    return h


def _keyring(git_dir: str) -> list[tuple[str, bytes]]:
    """(key id, wrapped data key) of every entry of a repository's keyring, read with git."""
    out = []
    files = subprocess.run(["git", "--git-dir", git_dir, "ls-tree", "-r", "refs/gitmem/keyring"],
                           capture_output=True, text=True, check=True).stdout.splitlines()
    for line in files:
        meta, path = line.split("\t")
        if path.startswith("k/"):
            wrapped = subprocess.run(["git", "--git-dir", git_dir, "cat-file", "blob", meta.split()[2]],
                                     capture_output=True, check=True).stdout
            out.append((path.rsplit("/", 1)[1], wrapped))
    return out


def _keys_a_home_holds(home: Path, git_dir: str) -> list[bytes]:
    """Every key a home holds: its epoch key and retiring ones, and every data key its
    keyring opens with them."""
    m = masterkey.load_master(home)
    epoch_keys = [m.key] + list(m.retiring.values())
    out = list(epoch_keys)
    for kid, wrapped in _keyring(git_dir):
        for k in epoch_keys:
            try:
                out.append(masterkey.unwrap(k, kid, wrapped))
            except InvalidTag:
                pass
    return out


def _opens(blob: bytes, keys: list[bytes]) -> list[bytes]:
    out = []
    if not blob.startswith(crypto.MAGIC):
        return out
    kid, ct = blob[len(crypto.MAGIC):len(crypto.MAGIC) + crypto.KID_LEN], blob[len(crypto.MAGIC) + crypto.KID_LEN:]
    for k in keys:
        try:
            out.append(AESSIV(k).decrypt(ct, [crypto.MAGIC, kid]))
        except InvalidTag:
            pass
    return out


def _unwrapped_from(copy: str, keys: list[bytes]) -> list[bytes]:
    """Data keys that any of `keys` unwraps from any keyring object in `copy`."""
    out = []
    for blob in raw_blobs(copy):
        if len(blob) == masterkey.KEY_LEN + 16:
            for k in keys:
                for kid_guess in _kid_candidates(copy):
                    try:
                        out.append(masterkey.unwrap(k, kid_guess, blob))
                    except InvalidTag:
                        pass
    return out


def _kid_candidates(copy: str) -> list[str]:
    trees = subprocess.run(["git", "--git-dir", copy, "cat-file", "--batch-all-objects",
                            "--batch-check=%(objectname) %(objecttype)"], capture_output=True, text=True,
                           check=True).stdout.split("\n")
    kids = set()
    for line in trees:
        if line.endswith(" tree"):
            for entry in subprocess.run(["git", "--git-dir", copy, "ls-tree", line.split()[0]],
                                        capture_output=True, text=True, check=True).stdout.splitlines():
                name = entry.split("\t")[1]
                if len(name) == 2 * crypto.KID_LEN and all(ch in "0123456789abcdef" for ch in name):
                    kids.add(name)
    return sorted(kids)


def test_forget_shreds_the_key_for_every_copy(tmp_path):
    url = bare(tmp_path)
    a = gitmem.init(tmp_path / "a", encrypt=True)
    a.remote_add("origin", url)
    secret = a.remember("the door code is 4471-SHRED-ME, tell nobody")
    a.append("journal: the door code is 4471-SHRED-ME, tell nobody")
    keep = a.remember("an ordinary memory that stays")
    a.sync()
    b = joined(tmp_path / "b", a.key_export(), url)
    assert b.get(secret.id).text.startswith("the door code")
    # Copy the remote's whole object database before the forget (a host's backup).
    copy = str(tmp_path / "copy.git")
    subprocess.run(["cp", "-r", url, copy], check=True)
    # Before the forget, the homes' keys do open the secret from the copy: the check bites.
    before = _keys_a_home_holds(Path(a.home), str(a.git.path))
    assert any(b"4471-SHRED-ME" in p for blob in raw_blobs(copy) for p in _opens(blob, before))
    a.forget([secret.id], reason="door code")
    a.sync()
    b.sync()
    a.sync()
    assert b.get(keep.id).text == "an ordinary memory that stays"
    assert secret.id not in {m.id for m in b.list(archived=True)}
    for h in (a, b):
        m = masterkey.load_master(Path(h.home))
        assert m.epoch == 1 and m.retiring == {}, h.home
        keys = _keys_a_home_holds(Path(h.home), str(h.git.path))
        keys += _unwrapped_from(copy, keys)
        opened = [p for blob in raw_blobs(copy) for p in _opens(blob, keys)]
        assert opened, "the homes' keys open nothing at all: the check would be vacuous"
        assert not any(b"4471-SHRED-ME" in p for p in opened), h.home
        git("--git-dir", str(h.git.path), "fsck", "--strict")
    # The remote's own objects (after the rewrite) hold the text in no readable form either.
    assert b"4471-SHRED-ME" not in every_object(url)


def synced_encrypted_home(tmp_path, text: str):
    """(url of a bare remote, an encrypted home "a" that pushed one memory there)."""
    url = bare(tmp_path)
    a = gitmem.init(tmp_path / "a", encrypt=True)
    a.remote_add("origin", url)
    a.remember(text)
    a.sync()
    return url, a


def test_three_homes_two_with_the_key(tmp_path):
    url, a = synced_encrypted_home(tmp_path, "shared between a and b")
    key_file = tmp_path / "k.json"
    assert invoke_cli("--home", str(a.home), "key", "export", str(key_file)).returncode == 0
    for args in (["init"], ["key", "import", str(key_file)], ["remote", "add", "origin", url], ["sync"]):
        res = invoke_cli("--home", str(tmp_path / "b"), *args)
        assert res.returncode == 0, (args, res.stderr)
    res = invoke_cli("--home", str(tmp_path / "b"), "recall", "shared", "--json")
    assert "shared between a and b" in res.stdout
    # The third home has no key: a clean error, nothing merged.
    c = gitmem.init(tmp_path / "c")
    c.remember("c's own plain memory")
    c.remote_add("origin", url)
    before = git("--git-dir", str(c.git.path), "for-each-ref", "refs/heads")
    with pytest.raises(RemoteError, match="encrypted gitmem store and this one is not"):
        c.sync()
    res = invoke_cli("--home", str(c.home), "sync")
    assert res.returncode == 8 and "hint: nothing was merged; import its key first" in res.stderr
    assert git("--git-dir", str(c.git.path), "for-each-ref", "refs/heads") == before
    # And the other way round: an encrypted home and a plain remote with memories.
    plain_url = bare(tmp_path, "plain.git")
    c.remote_add("plain", plain_url)
    c.sync("plain")
    a.remote_add("plain", plain_url)
    res = invoke_cli("--home", str(a.home), "sync", "plain")
    assert res.returncode == 8 and "holds a plain (unencrypted) gitmem store" in res.stderr
    # A key of another store cannot join.
    other = gitmem.init(tmp_path / "d", encrypt=True)
    other.remote_add("origin", url)
    with pytest.raises(RemoteError, match="encrypted with another key"):
        other.sync()


def test_concurrent_writes_on_two_homes_merge(tmp_path):
    url = bare(tmp_path)
    a = gitmem.init(tmp_path / "a", encrypt=True)
    a.remote_add("origin", url)
    a.remember("base memory")
    a.append("a's journal line")
    a.sync()
    b = joined(tmp_path / "b", a.key_export(), url)
    a.remember("only on a")
    a.append("a again, same journal day")
    b.remember("only on b")
    b.append("b's line, same journal day")
    a.sync()
    b.sync()
    a.sync()
    for h in (a, b):
        assert {m.text for m in h.list()} == {"base memory", "only on a", "only on b"}
        day = json.dumps(h.context())
        assert "b's line" in day and "a again" in day
    assert git("--git-dir", url, "rev-parse", "refs/heads/main").strip() == a.git.ref("refs/heads/main")


# ---- encrypt enable, key rotate -----------------------------------------------------------
def test_encrypt_enable_rewrites_history_and_leaves_no_plaintext(store, tmp_path):
    m = store.remember("plain secret ENABLE-ME-42")
    store.append("journal ENABLE-ME-42")
    store.update(m.id, "plain secret ENABLE-ME-42 updated")
    gd = str(store.git.path)
    assert any(f in every_object(gd) for f in raw_forms("ENABLE-ME-42"))
    res = invoke_cli("--home", str(store.home), "encrypt", "enable", "--json")
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert out["rewritten_commits"] >= 3 and out["encrypted"]
    assert b"ENABLE-ME-42" not in every_object(gd)
    git("--git-dir", gd, "fsck", "--strict")
    s = gitmem.open(store.home)
    assert s.get(m.id).text == "plain secret ENABLE-ME-42 updated"
    assert sorted(e.op for e in s.log(limit=10)) == ["append", "remember", "update"]  # commit for commit
    res = invoke_cli("--home", str(store.home), "encrypt", "enable")
    assert res.returncode == 2 and "already encrypted" in res.stderr


def test_key_rotate_makes_the_old_key_useless_and_others_import_the_new(tmp_path):
    url, a = synced_encrypted_home(tmp_path, "before rotation")
    old_key = a.key_export()
    b = joined(tmp_path / "b", old_key, url)
    out = a.key_rotate()
    assert out["fingerprint"] != out["old_fingerprint"]
    a.remember("after rotation")
    a.sync()
    # The old key opens nothing in a's keyring any more.
    old = masterkey.Master.from_json(json.loads(old_key))
    ring = _keyring(str(a.git.path))
    opened = 0
    for kid, wrapped in ring:
        try:
            masterkey.unwrap(old.key, kid, wrapped)
            opened += 1
        except InvalidTag:
            pass
    assert opened == 0 and len(ring) >= 2  # two memories' keys and the store key were there to try
    with pytest.raises(RemoteError, match="encrypted with another key"):
        b.sync()
    b.key_import(a.key_export())  # the successor of b's key: accepted
    b.sync()
    assert {m.text for m in b.list()} == {"before rotation", "after rotation"}


def test_message_sealing_uses_base64_of_the_kid(enc):
    msg = "remember: x\n\nGitmem-Op: remember\nGitmem-Id: mwsh9roxagxjx\n"
    sealed = _codec(enc).encode_message(msg)
    raw = base64.b64decode(sealed.split("\n", 1)[0][len(crypto.MSG_MARK):])
    assert raw[:crypto.KID_LEN].hex() == _codec(enc).name_kid("m:mwsh9roxagxjx")


def test_encrypt_enable_with_a_remote_converts_it_and_plain_clones_follow(tmp_path):
    url = bare(tmp_path)
    a = gitmem.init(tmp_path / "a")
    a.remote_add("origin", url)
    shared = a.remember("shared before encryption CONVERT-1")
    a.append("journal before encryption CONVERT-2")
    a.sync()
    b = gitmem.init(tmp_path / "b")
    b.remote_add("origin", url)
    b.sync()
    b.remember("b wrote this while a encrypted CONVERT-3")  # not synced yet
    assert any(f in every_object(url) for f in raw_forms("CONVERT-1"))
    a.encrypt_enable()
    a.remember("after encryption CONVERT-4")
    out = a.sync()
    assert out["remotes"][0]["refused"] == []
    # The remote now holds the sealed history only (plain objects are unreachable there:
    # a host drops them at its gc; here the reachable ones are checked).
    reach = subprocess.run(["git", "--git-dir", url, "rev-list", "--objects", "--all"], capture_output=True,
                           text=True, check=True).stdout.split()
    reach_ids = "\n".join(x for x in reach if len(x) == 40) + "\n"
    data = subprocess.run(["git", "--git-dir", url, "cat-file", "--batch"], input=reach_ids.encode(),
                          capture_output=True, check=True).stdout
    assert b"CONVERT-" not in data
    assert not a.git.plain_history()
    # The plain clone: a clean error, then it imports the key and syncs.
    with pytest.raises(RemoteError, match="encrypted gitmem store and this one is not"):
        b.sync()
    b.key_import(a.key_export())
    assert b.git.plain_history()
    b.sync()
    a.sync()
    assert not b.git.plain_history()
    for h in (a, b):
        texts = {m.text for m in h.list()}
        assert texts == {"shared before encryption CONVERT-1", "b wrote this while a encrypted CONVERT-3",
                         "after encryption CONVERT-4"}, h.home
        assert h.get(shared.id).text == "shared before encryption CONVERT-1"
        assert b"CONVERT-" not in every_object(str(h.git.path)), h.home
        git("--git-dir", str(h.git.path), "fsck", "--strict")
    # Shared history sealed on both sides came out commit for commit the same: b's sync
    # fast-forwarded or merged on top of a's commits, not a parallel copy of them.
    assert a.git.is_ancestor(a.git.ref("refs/heads/main"), b.git.ref("refs/heads/main")) or \
        b.git.is_ancestor(b.git.ref("refs/heads/main"), a.git.ref("refs/heads/main"))
    assert len(list(a.git.walk([a.git.ref("refs/heads/main")]))) <= 6


def test_a_lost_keyring_ref_update_is_recovered_from_the_pack(enc):
    """The keyring ref is not fsynced (one ref fsync per write, as in a plain store): a
    crash can leave it at the previous keyring commit. The key is then found in the
    unreferenced keyring commit, and the next write puts it back."""
    first = enc.remember("first memory")
    before = enc.git.ref("refs/gitmem/keyring")
    second = enc.remember("second memory, its key only in the newer keyring commit")
    after = enc.git.ref("refs/gitmem/keyring")
    assert after != before
    git("--git-dir", str(enc.git.path), "update-ref", "refs/gitmem/keyring", before)  # the lost update
    s = gitmem.open(enc.home)
    assert s.get(second.id).text.startswith("second memory")
    s.remember("third memory")  # the next write persists the recovered key
    ring = git("--git-dir", str(enc.git.path), "ls-tree", "-r", "--name-only", "refs/gitmem/keyring")
    kid = s.git.codec.sealed_kid(subprocess.run(
        ["git", "--git-dir", str(enc.git.path), "cat-file", "blob", f"main:{s.get(second.id).path}"],
        capture_output=True, check=True).stdout)
    assert f"k/{kid[:2]}/{kid}" in ring
    git("--git-dir", str(enc.git.path), "gc", "--prune=now", "-q")
    assert gitmem.open(enc.home).get(second.id).text.startswith("second memory")
    assert gitmem.open(enc.home).get(first.id).text == "first memory"
