"""Hostile input (issue 11): path traversal, links out of an import folder, bad scope and
ref names, oversized / binary / invalid UTF-8 text, malformed JSONL, silly recall
arguments; then Hypothesis fuzzing of the transcript readers, the tokenizer and the
command line.

Every refusal is one `error:` line plus a `hint:` line, a non-zero exit that is not 70
(the internal-error code), never a traceback, and the store's refs are unchanged. The
few inputs with a sensible empty answer (a recall that matches nothing, an empty JSONL
file) exit 0 and are marked so below."""

from __future__ import annotations

import json
import os
import subprocess

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from gitmem.frontends.cli import cli
from gitmem.core.tokens import count_tokens, term_counts, tokenize
from gitmem.agents.transcripts import Turn, read_turns

# Documented exit codes (gitmem/errors.py): 70 is a bug and never allowed here.
EXIT_CODES = {0, 1, 2, 3, 4, 5, 6, 7, 8}
LONE = "\udcff"  # what Python makes of an invalid UTF-8 byte in argv


def invoke(*args: str, input: str | bytes | None = None):
    return CliRunner().invoke(cli, list(args), input=input)


def refs(store) -> str:
    return subprocess.run(["git", "--git-dir", str(store.git.path), "for-each-ref"],
                          capture_output=True, text=True, check=True).stdout


def clean_error(r, code: int | None = None) -> None:
    """One `error:` line, a `hint:` line, a documented non-zero exit, no traceback."""
    assert r.exit_code != 0 and r.exit_code in EXIT_CODES, (r.exit_code, r.stderr)
    if code is not None:
        assert r.exit_code == code, (r.exit_code, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert lines[0].startswith("error: "), r.stderr
    assert len(lines) == 2 and lines[1].startswith("hint: "), r.stderr
    assert "Traceback" not in r.output + r.stderr and "internal error" not in r.stderr


@pytest.fixture
def seeded(store):
    store.remember("alpha beta gamma deploys on tuesdays", key="deploy-window")
    store.remember("prefers tabs over spaces", type="preference")
    store.append("a journal line")
    return store


# ---- one-line refusals, nothing written --------------------------------------------------
REFUSED = [
    # path traversal in get: ids, keys and paths cannot leave a scope's tree
    (["get", "../x"], None, 4),
    (["get", "../../etc/passwd.md"], None, 2),
    (["get", "daily/../../x.md"], None, 2),
    (["get", "memories/../keys/x.md"], None, 2),
    (["get", "/etc/passwd.md"], None, 2),
    (["get", "../x", "--receipts"], None, 4),
    (["get", "deploy-window", "--at", "main..x"], None, 4),
    (["get", "deploy-window", "--at", "-rf"], None, 4),
    (["get", "deploy-window", "--at", "../../x"], None, 4),
    (["forget", "../x"], None, 4),
    (["update", "../x", "new text"], None, 4),
    (["restore", "../x", "main"], None, 4),
    (["log", "../x"], None, 4),
    (["show", "../x"], None, 4),
    # scope and ref names
    (["remember", "--scope", "../x", "t"], None, 2),
    (["remember", "--scope", "refs/heads/main", "t"], None, 2),
    (["remember", "--scope", "main.lock", "t"], None, 2),
    (["remember", "--scope", "channel/a..b", "t"], None, 2),
    (["remember", "--scope", "channel/x.lock", "t"], None, 2),
    (["remember", "--scope", "channel/@{x}", "t"], None, 2),
    (["remember", "--scope", "channel//x", "t"], None, 2),
    (["remember", "--scope", "channel/-x", "t"], None, 2),
    (["list", "--scope", "main/../x"], None, 2),
    (["recall", "q", "--scope", ".."], None, 2),
    (["dream", "--scope", "../x"], None, 2),
    (["scopes", "private", "../x"], None, 2),
    (["remote", "add", "../x", "/tmp/nowhere"], None, 2),
    (["remote", "add", "x.lock", "/tmp/nowhere"], None, 2),
    (["sync", "../evil"], None, 4),
    # oversized, binary and invalid UTF-8 text
    (["remember", "-"], "x" * 70_000, 2),
    (["remember", "-"], "a\x00b", 2),
    (["remember", "-"], b"caf\xe9 \xff\xfe", 2),
    (["remember", f"bad {LONE} bytes"], None, 2),
    (["remember", "--tag", f"t{LONE}", "text"], None, 2),
    (["remember", "--key", f"k{LONE}", "text"], None, 2),
    (["append", f"x{LONE}"], None, 2),
    (["update", "deploy-window", f"new {LONE}"], None, 2),
    (["remember", ""], None, 2),
    (["remember", "   \n\t"], None, 2),
    # recall arguments
    (["recall", ""], None, 2),
    (["recall", "   "], None, 2),
    (["recall", "alpha", "-k", "0"], None, 2),
    (["recall", "alpha", "-k", "-5"], None, 2),
    (["recall", "alpha", "-k", str(10 ** 20)], None, 2),
    (["recall", "alpha", "-k", "ten"], None, 2),
    (["recall", "alpha", "--since", "yesterday-ish"], None, 2),
]


@pytest.mark.parametrize("args,stdin,code", REFUSED, ids=[" ".join(a)[:40] for a, _, _ in REFUSED])
def test_refused_with_one_line_and_nothing_written(seeded, args, stdin, code):
    before = refs(seeded)
    r = invoke(*args, input=stdin)
    clean_error(r, code)
    assert refs(seeded) == before


def test_sensible_empty_answers(seeded):
    """Not errors: a query that matches nothing, the largest -k, an unknown type."""
    r = invoke("recall", "zzzzqqq", "--json", "--mode", "bm25")
    assert r.exit_code == 0 and json.loads(r.stdout) == []
    r = invoke("recall", "alpha", "-k", "1000", "--json")
    assert r.exit_code == 0 and len(json.loads(r.stdout)) >= 1
    r = invoke("list", "--type", "nosuchtype", "--json")
    assert r.exit_code == 0 and json.loads(r.stdout) == []
    r = invoke("list", "--type", LONE, "--json")  # found by test_fuzz_cli_arguments: a DuckDB error before
    assert r.exit_code == 0 and json.loads(r.stdout) == []
    r = invoke("recall", f"no such {LONE} word", "--json", "--mode", "bm25")
    assert r.exit_code == 0 and json.loads(r.stdout) == []


def test_api_recall_arguments(seeded):
    from gitmem.core.errors import UsageError

    for k in (0, -1):
        with pytest.raises(UsageError):
            seeded.recall("alpha", k=k)
    for q in ("", "  ", None):
        with pytest.raises(UsageError):
            seeded.recall(q)
    assert len(seeded.recall("alpha", k=10 ** 9)) >= 1  # huge k: every hit, not an error


# ---- malformed JSONL: refused whole, the bad line named, nothing written ----------------
def _good(n: int) -> str:
    return "".join(json.dumps({"text": f"good line {i}"}) + "\n" for i in range(n))


BAD_LINES = [
    ("not json at all", "invalid JSON"),
    ('{"text": "unterminated', "invalid JSON"),
    ("[1, 2, 3]", "expected a JSON object"),
    ('"just a string"', "expected a JSON object"),
    ('{"nope": 1}', "text"),
    ('{"text": 5}', "text"),
    ('{"text": ""}', "empty text"),
    ('{"text": "a\\u0000b"}', "NUL"),
    ('{"text": "lone \\ud800 surrogate"}', "not valid Unicode"),
    ('{"text": "ok", "metadata": {"\\udc00": 1}}', "not valid Unicode"),
    ('{"text": "ok", "importance": 1e999}', "importance"),
    ('{"text": "ok", "importance": 11}', "importance"),
    ('{"text": "ok", "scope": 5}', "scope"),
    ('{"text": "ok", "scope": "../x"}', "scope"),
    ('{"text": "ok", "key": ["a"]}', "key"),
    ('{"text": "ok", "tags": [{"a": 2}]}', "tag"),
    ('{"text": "ok", "created": "yesterday"}', "date"),
    ('{"text": "' + "x" * 70_000 + '"}', "bytes"),
    ("[" * 100_000, "nested too deeply"),
]


@pytest.mark.parametrize("bad,what", BAD_LINES, ids=[w for _, w in BAD_LINES])
def test_malformed_jsonl_refused_whole_with_its_line(seeded, tmp_path, bad, what):
    f = tmp_path / "in.jsonl"
    f.write_text(_good(6) + bad + "\n" + _good(3))
    before = refs(seeded)
    r = invoke("import", "--jsonl", str(f))
    clean_error(r, 2)
    assert "line 7" in r.stderr and what in r.stderr
    assert refs(seeded) == before


def test_jsonl_invalid_utf8_and_long_file(seeded, tmp_path):
    f = tmp_path / "bad.jsonl"
    f.write_bytes(_good(2).encode() + b'{"text": "caf\xe9"}\n' + _good(1).encode())
    before = refs(seeded)
    r = invoke("import", "--jsonl", str(f))
    clean_error(r, 2)
    assert "line 3" in r.stderr and "UTF-8" in r.stderr
    lines = _good(1000).splitlines()
    lines[776] = '{"text": "ok", "importance": "high"}'
    f.write_text("\n".join(lines) + "\n")
    r = invoke("import", "--jsonl", str(f))
    clean_error(r, 2)
    assert "line 777" in r.stderr
    assert refs(seeded) == before


def test_empty_jsonl_imports_nothing(seeded, tmp_path):
    """A sensible empty answer: an empty file (or blank lines) imports 0, exit 0."""
    f = tmp_path / "empty.jsonl"
    f.write_text("\n\n")
    before = refs(seeded)
    r = invoke("import", "--jsonl", str(f), "--json")
    assert r.exit_code == 0 and json.loads(r.stdout)["created"] == 0
    assert refs(seeded) == before


# ---- links out of an import folder; export cannot be steered outside its folder ----------
def _all_text(store) -> str:
    return "\n".join(m.text for s in store.git.scopes() for m in store.list(scope=s, archived=True))


@pytest.mark.parametrize("kind", ["openclaw", "markdown", "claude", "qwen"])
def test_import_never_follows_links_out(seeded, tmp_path, kind):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("TOPSECRET-outside-the-folder\n")
    (outside / "MEMORY.md").write_text("# Memory\n\n- TOPSECRET-outside-too\n")
    ws = tmp_path / "ws"
    (ws / "memory").mkdir(parents=True)
    (ws / "MEMORY.md").symlink_to(outside / "MEMORY.md")                   # absolute, a known name
    (ws / "QWEN.md").symlink_to("../outside/secret.md")                    # relative
    (ws / "CLAUDE.md").symlink_to(ws / "memory" / "chain.md")              # a chain that leaves
    (ws / "memory" / "chain.md").symlink_to(outside / "secret.md")
    (ws / "memory" / "2024-05-01.md").symlink_to(outside / "secret.md")    # a daily log name
    (ws / "memory" / "dir").symlink_to(outside, target_is_directory=True)  # a folder
    (ws / "notes.md").write_text("an inside note, allowed\n")
    r = invoke("import", "--from", kind, str(ws), "--json")
    assert r.exit_code == 0, r.stderr
    out = json.loads(r.stdout)
    assert "TOPSECRET" not in _all_text(seeded)
    assert {"MEMORY.md", "QWEN.md", "memory/2024-05-01.md", "memory/dir"} <= set(out["skipped"])


def test_import_folder_with_binary_file_refused_whole(seeded, tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "a.md").write_text("a fine note\n")
    (ws / "img.md").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00binary")
    before = refs(seeded)
    r = invoke("import", "--from", "markdown", str(ws))
    clean_error(r, 2)
    assert "img.md" in r.stderr
    assert refs(seeded) == before


def test_export_refuses_links_out_of_its_folder(seeded, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    dest = tmp_path / "dest"
    dest.mkdir()
    (dest / "main").symlink_to(outside, target_is_directory=True)
    r = invoke("export", str(dest))
    clean_error(r, 2)
    assert list(outside.iterdir()) == []
    dest2 = tmp_path / "dest2"
    dest2.mkdir()
    (dest2 / "memory").symlink_to(outside, target_is_directory=True)
    r = invoke("export", "--to", "openclaw", str(dest2))
    clean_error(r, 2)
    assert list(outside.iterdir()) == []


def test_export_jsonl_replaces_a_link_instead_of_writing_through_it(seeded, tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_text("do not touch\n")
    link = tmp_path / "out.jsonl"
    link.symlink_to(victim)
    r = invoke("export", "--jsonl", str(link))
    assert r.exit_code == 0, r.stderr
    assert victim.read_text() == "do not touch\n"
    assert not link.is_symlink() and "deploys on tuesdays" in link.read_text()


# ---- fuzzing: transcript readers, tokenizer -----------------------------------------------
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=30),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
        st.sampled_from(["role", "type", "content", "message", "payload", "parts", "text", "isMeta", "x"]),
        inner, max_size=5),
    max_leaves=15)
records = st.dictionaries(
    st.sampled_from(["role", "type", "content", "message", "payload", "parts", "text", "isMeta", "isSidechain"]),
    json_values | st.sampled_from(["user", "assistant", "tool", "human", "model", "summary", "user_message"]),
    max_size=5)


def _check_turns(turns, new_offset, fmt, size, offset):
    assert fmt in ("jsonl", "text")
    assert 0 <= new_offset <= size
    for t in turns:
        assert isinstance(t, Turn) and t.role in ("user", "assistant", "tool", "system")
        assert isinstance(t.text, str) and t.line >= 1


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.binary(max_size=600), offset=st.integers(0, 700), max_bytes=st.none() | st.integers(1, 300))
def test_fuzz_transcript_bytes(tmp_path, data, offset, max_bytes):
    p = tmp_path / "t.jsonl"
    p.write_bytes(data)
    turns, new, fmt = read_turns(p, offset, max_bytes)
    _check_turns(turns, new, fmt, len(data), offset)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(lines=st.lists(records | json_values, max_size=8), torn=st.text(max_size=20),
       offset=st.integers(0, 50))
def test_fuzz_transcript_jsonl(tmp_path, lines, torn, offset):
    p = tmp_path / "t.jsonl"
    body = "".join(json.dumps(x) + "\n" for x in lines) + torn
    p.write_text(body, encoding="utf-8", errors="surrogatepass")
    size = p.stat().st_size
    turns, new, fmt = read_turns(p, offset)
    _check_turns(turns, new, fmt, size, offset)
    if fmt == "jsonl" and "\n" not in torn and offset == 0:
        assert new == size - len(torn.encode("utf-8", "surrogatepass"))  # a torn last line waits


@settings(max_examples=300, deadline=None)
@given(text=st.text(max_size=300) | st.text(alphabet=st.characters(codec="utf-8"), max_size=300))
def test_fuzz_tokenizer(text):
    toks = tokenize(text)
    assert all(isinstance(t, str) and t for t in toks)
    assert set(term_counts(text)) <= set(tokenize(text)) | set(tokenize(text, stopwords=False))
    assert count_tokens(text) >= 0
    assert tokenize(text) == toks  # deterministic


# ---- fuzzing: the command line --------------------------------------------------------------
words = st.text(st.characters(blacklist_categories=("Cs",)), max_size=12) | st.sampled_from(
    ["../x", "-", "--", "main", "channel/x", "0", "-1", "99999999999999999999", LONE, "a\x00b", "",
     "deploy-window", "daily/2024-01-01.md", "../../etc/passwd.md", "--json", "-k", "x" * 300])
OPTIONS = {
    "remember": ["--scope", "--type", "--importance", "--tag", "--key", "--json"],
    "get": ["--at", "--scope", "--from", "--lines", "--json"],
    "recall": ["-k", "--scope", "--type", "--since", "--mode", "--format", "--json", "--archived"],
    "list": ["--scope", "--type", "--archived", "--json"],
    "log": ["--scope", "-n", "--json", "-p"],
    "update": ["--scope", "--type", "--importance", "--tag", "--json"],
    "append": ["--scope", "--json"],
    "forget": ["--keep-history", "--reason", "--json"],
    "context": ["--budget", "--hours", "--at", "--json"],
    "show": ["--json"],
}


@st.composite
def argv(draw):
    cmd = draw(st.sampled_from(sorted(OPTIONS)))
    parts = [cmd]
    for _ in range(draw(st.integers(0, 4))):
        parts.append(draw(st.sampled_from(OPTIONS[cmd]) | words))
    return parts


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(args=argv())
def test_fuzz_cli_arguments(seeded, args):
    assume("forget" not in args[:1] or "--keep-history" in args)  # keep each example cheap
    r = invoke(*args, input="")
    assert r.exit_code in EXIT_CODES, (args, r.exit_code, r.stderr)
    assert "Traceback" not in r.output + r.stderr and "internal error" not in r.stderr, (args, r.stderr)
    if r.exit_code != 0:
        assert r.stderr.startswith("error: "), (args, r.stderr)
    assert os.path.isdir(seeded.git.path)
