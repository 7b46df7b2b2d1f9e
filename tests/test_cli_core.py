"""The CLI as a user runs it: real subprocesses, exit codes, one-line errors, JSON."""

import json
import os
import subprocess
import sys

import pytest

from conftest import git, run_cli


def ok(*args, **kw):
    r = run_cli(*args, **kw)
    assert r.returncode == 0, r.stderr
    return r


@pytest.mark.slow
def test_quick_start_flow(gm_home):
    ok("init")
    r = ok("remember", "--type", "preference", "--tag", "editor", "--json", "I prefer vim keybindings")
    out = json.loads(r.stdout)
    assert set(out) >= {"id", "scope", "commit", "path"} and out["scope"] == "main"
    got = json.loads(ok("get", out["id"], "--json").stdout)
    assert got["text"] == "I prefer vim keybindings" and got["tags"] == ["editor"]
    assert set(got) >= {"id", "key", "scope", "type", "importance", "tags", "created", "updated", "text", "path", "commit"}
    lst = json.loads(ok("list", "--json").stdout)
    assert [m["id"] for m in lst] == [out["id"]]
    log = json.loads(ok("log", "--json").stdout)
    assert log[0]["op"] == "remember" and log[0]["ids"] == [out["id"]]
    assert set(log[0]) >= {"commit", "op", "ids", "summary", "author", "time"}
    st = json.loads(ok("status", "--json").stdout)
    assert st["memories"] == 1
    assert json.loads(ok("scopes", "--json").stdout)[0]["scope"] == "main"


def test_stdin_text_and_update(gm_home):
    ok("init")
    mid = json.loads(ok("remember", "--json", "-", input="from stdin\nsecond line").stdout)["id"]
    ok("update", mid, "-", input="changed")
    r = ok("log", mid, "-p")
    assert "-from stdin" in r.stdout and "+changed" in r.stdout
    show = ok("show", "main").stdout
    assert "Gitmem-Op: update" in show


def test_import_export_cli_round_trip(gm_home, tmp_path):
    ok("init")
    src = tmp_path / "in.jsonl"
    src.write_text("\n".join(json.dumps({"text": f"t{i}", "key": f"k{i}", "importance": 3, "extra": i}) for i in range(5)))
    res = json.loads(ok("import", "--jsonl", str(src), "--json").stdout)
    assert res["created"] == 5
    out = tmp_path / "out.jsonl"
    ok("export", "--jsonl", str(out))
    rows = [json.loads(l) for l in out.read_text().splitlines()]
    assert sorted(r["key"] for r in rows) == [f"k{i}" for i in range(5)] and rows[0]["extra"] in range(5)
    again = json.loads(ok("import", "--jsonl", str(out), "--json").stdout)
    assert again["unchanged"] == 5 and again["created"] == 0
    md = tmp_path / "md"
    ok("export", str(md))
    assert len(list(md.rglob("*.md"))) == 5


@pytest.mark.parametrize("args,stdin", [
    (["remember", ""], None),
    (["remember", "-"], "a\x00b"),
    (["remember", "-"], "x" * 70000),
    (["remember", "--scope", "bad scope", "x"], None),
    (["remember", "--importance", "11", "x"], None),
    (["get", "nosuchid"], None),
    (["import", "--jsonl", "/nonexistent/file.jsonl"], None),
    (["remember", "--no-such-flag", "x"], None),
])
def test_bad_input_one_line_error_nothing_written(gm_home, args, stdin):
    ok("init")
    before = git("--git-dir", str(gm_home / "repo.git"), "for-each-ref")
    r = run_cli(*args, input=stdin)
    assert r.returncode != 0
    lines = r.stderr.strip().splitlines()
    assert lines[0].startswith("error: ") and "Traceback" not in r.stderr
    assert any(l.startswith("hint: ") for l in lines[1:])
    assert git("--git-dir", str(gm_home / "repo.git"), "for-each-ref") == before


def test_malformed_import_names_line(gm_home, tmp_path):
    ok("init")
    f = tmp_path / "bad.jsonl"
    f.write_text('{"text": "fine"}\n{"text": "fine too"}\n{"nope": 1}\n')
    r = run_cli("import", "--jsonl", str(f))
    assert r.returncode != 0 and "line 3" in r.stderr
    assert git("--git-dir", str(gm_home / "repo.git"), "for-each-ref") == ""


def test_no_store_is_a_clean_error(tmp_path):
    r = run_cli("--home", str(tmp_path / "none"), "list")
    assert r.returncode == 3 and r.stderr.startswith("error: ") and "gitmem init" in r.stderr


def test_bad_config_is_exit_2_naming_file_and_key(gm_home):
    ok("init")
    (gm_home / "config.toml").write_text('[recall]\nw_bm25 = "heavy"\n')
    r = run_cli("status")
    assert r.returncode == 2 and "Traceback" not in r.stderr
    first, hint = r.stderr.splitlines()
    assert first == f'error: {gm_home / "config.toml"}: [recall] w_bm25 = "heavy": expected a number >= 0'
    assert hint.startswith("hint: ")


# ---- the error handler: one place maps failures to exit codes -------------------------

def invoke_raising(monkeypatch, exc: BaseException, env: dict | None = None):
    """Run `gitmem boom`, a command that raises `exc`, as the console script would."""
    import click
    from click.testing import CliRunner

    from gitmem.frontends.cli import cli

    @click.command("boom")
    def boom():
        """Raise."""
        raise exc

    monkeypatch.setitem(cli.commands, "boom", boom)
    return CliRunner().invoke(cli, ["boom"], env=env)


def test_an_unexpected_exception_is_exit_70_with_a_crash_log(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    res = invoke_raising(monkeypatch, ValueError("boom"))
    assert res.exit_code == 70
    first, hint = res.stderr.splitlines()
    assert first == "error: internal error, this is a bug: ValueError: boom"
    log = tmp_path / "cache" / "gitmem" / "crash.log"
    assert str(log) in hint and "Traceback" not in res.stderr
    text = log.read_text()
    assert "Traceback" in text and "ValueError: boom" in text and "gitmem 0." in text


def test_gitmem_debug_puts_the_traceback_on_stderr(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    res = invoke_raising(monkeypatch, RuntimeError("boom"), env={"GITMEM_DEBUG": "1"})
    assert res.exit_code == 70
    assert "Traceback" in res.stderr and "error: internal error, this is a bug: RuntimeError: boom" in res.stderr
    assert not (tmp_path / "cache" / "gitmem" / "crash.log").exists()


def test_ctrl_c_is_exit_130(monkeypatch):
    res = invoke_raising(monkeypatch, KeyboardInterrupt())
    assert res.exit_code == 130 and "error: interrupted" in res.stderr


@pytest.mark.parametrize("exc,code", [
    ("UsageError", 2), ("StoreMissing", 3), ("NotFound", 4), ("ConflictError", 5),
    ("IndexError_", 6), ("CorruptObject", 7), ("GitmemError", 1),
])
def test_gitmem_errors_keep_their_exit_codes(monkeypatch, exc, code):
    from gitmem.core import errors

    res = invoke_raising(monkeypatch, getattr(errors, exc)("it broke\nsecond line", hint="do this"))
    assert res.exit_code == code
    assert res.stderr.splitlines() == ["error: it broke", "hint: do this"]
    assert res.stdout == ""


def test_version_prints_both_versions():
    r = ok("--version")
    assert "gitmem 0." in r.stdout and "store format 1" in r.stdout


def test_every_command_has_help_with_example_and_is_in_readme():
    from click.testing import CliRunner

    from gitmem.frontends.cli import COMMANDS, cli

    readme = (os.path.dirname(__file__) + "/../README.md")
    text = open(readme, encoding="utf-8").read()
    for name in COMMANDS:
        res = CliRunner().invoke(cli, [name, "--help"])
        assert res.exit_code == 0, name
        assert "Example" in res.output, f"{name} --help has no example"
        assert f"gitmem {name}" in text, f"{name} missing from README"


def test_cli_import_stays_light():
    code = ("import sys, gitmem.frontends.cli; bad = [m for m in ('pygit2', 'duckdb', 'numpy', 'yaml', 'fastembed', "
            "'onnxruntime', 'mcp', 'jinja2') if m in sys.modules]; print(bad)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).stdout.strip()
    assert out == "[]"
