"""The config schema: every section and key gitmem reads, checked when a Config is built
(config.toml, GITMEM_* environment, overrides), and the clean exit 2 the CLI gives for a
bad one."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from click.testing import CliRunner

from gitmem.core.config import Config, load_config, write_config_value
from gitmem.core.schema import DEFAULTS, ENV_VARS, SCHEMA
from gitmem.core.errors import UsageError

PKG = Path(__file__).resolve().parent.parent / "gitmem"


def write(home: Path, text: str) -> Path:
    home.mkdir(parents=True, exist_ok=True)
    path = home / "config.toml"
    path.write_text(text)
    return path


def load_error(home: Path, text: str, env: dict | None = None) -> UsageError:
    write(home, text)
    with pytest.raises(UsageError) as e:
        load_config(home, env=env or {})
    assert e.value.exit_code == 2
    assert "\n" not in e.value.message
    return e.value


# ---- the schema ---------------------------------------------------------------------

def test_unknown_section_names_file_and_suggests(tmp_path):
    err = load_error(tmp_path, "[recal]\nw_bm25 = 1.0\n")
    assert str(tmp_path / "config.toml") in err.message and "unknown section [recal]" in err.message
    assert "did you mean [recall]?" in err.hint and "store" in err.hint


def test_unknown_key_names_section_and_lists_keys(tmp_path):
    err = load_error(tmp_path, "[recall]\nw_bm52 = 1.0\n")
    assert "[recall] unknown key w_bm52" in err.message
    assert "did you mean w_bm25?" in err.hint and "fusion" in err.hint


def test_bad_type_says_what_is_expected(tmp_path):
    err = load_error(tmp_path, '[recall]\nw_bm25 = "heavy"\n')
    assert err.message == f'{tmp_path / "config.toml"}: [recall] w_bm25 = "heavy": expected a number >= 0'
    assert "default 1.0" in err.hint


@pytest.mark.parametrize("text,expected", [
    ('[recall]\nfusion = "max"\n', 'expected one of "linear", "rrf"'),
    ("[recall]\nmmr_lambda = 1.5\n", "expected a number from 0 to 1"),
    ("[recall]\ncandidates = 0\n", "expected an integer >= 1"),
    ("[recall]\ncandidates = 10.0\n", "expected an integer"),
    ("[recall]\nmmr = 1\n", "expected true or false"),
    ("[store]\nfsync = \"yes\"\n", "expected true or false"),
    ("[store]\ntypes = []\n", "expected a non-empty list of strings"),
    ("[store]\ntypes = [1, 2]\n", "expected a non-empty list of strings"),
    ('[store]\ndefault_scope = "bad scope"\n', "expected a scope"),
    ('[redact]\nallow = ["("]\n', "expected a list of regular expressions"),
    ("[hooks]\nbudget = 0\n", "expected a number > 0"),
    ("[hooks]\nbudget = nan\n", "not a finite number"),
    ("[embed]\nretry_after = -1\n", "expected a number >= 0"),
    ('[dream]\nnear_threshold = "high"\n', "expected a number or a table of model id = number"),
    ('[dream]\nnear_threshold = {"fake-64" = 2}\n', '"fake-64" = 2'),
    ("[recall]\nvector_floors = 0.2\n", "expected a table of model id = number"),
    ('[links]\n"/src/app" = 3\n', 'expected a scope'),
    ("fsync = true\n", "outside any section"),
    ("recall = 1\n", "expected a [recall] section"),
])
def test_bad_values_and_kinds(tmp_path, text, expected):
    err = load_error(tmp_path, text)
    assert expected in err.message, err.message
    assert err.hint


def test_bad_toml_is_a_usage_error(tmp_path):
    err = load_error(tmp_path, "[recall\n")
    assert "cannot read" in err.message and err.hint


@pytest.mark.parametrize("var,value,expected", [
    ("GITMEM_FSYNC", "maybe", "expected true or false"),
    ("GITMEM_MAX_TEXT_BYTES", "lots", "expected an integer"),
    ("GITMEM_MAX_TEXT_BYTES", "0", "expected an integer >= 1"),
    ("GITMEM_HOOK_BUDGET", "-1", "expected a number > 0"),
    ("GITMEM_DEFAULT_SCOPE", "no such scope", "expected a scope"),
])
def test_bad_environment_value_names_the_variable(tmp_path, var, value, expected):
    with pytest.raises(UsageError) as e:
        load_config(tmp_path, env={var: value})
    assert e.value.exit_code == 2 and e.value.message.startswith(f'{var}="{value}"')
    assert expected in e.value.message
    section, key = ENV_VARS[var]
    assert f"[{section}] {key}" in e.value.hint


@pytest.mark.parametrize("value,expected", [("1", True), ("off", False), ("No", False), ("TRUE", True)])
def test_environment_booleans(tmp_path, value, expected):
    assert load_config(tmp_path, env={"GITMEM_FSYNC": value}).fsync is expected


def test_precedence_overrides_env_file_defaults(tmp_path):
    write(tmp_path, "[store]\nmax_text_bytes = 100\ngc_every = 7\n")
    cfg = load_config(tmp_path, env={"GITMEM_MAX_TEXT_BYTES": "200"})
    assert cfg.max_text_bytes == 200 and cfg.get("store", "gc_every") == 7
    cfg = load_config(tmp_path, env={"GITMEM_MAX_TEXT_BYTES": "200"}, overrides={"store": {"max_text_bytes": 300}})
    assert cfg.max_text_bytes == 300
    assert load_config(tmp_path / "none", env={}).max_text_bytes == DEFAULTS["store"]["max_text_bytes"]


def test_overrides_are_checked_too(tmp_path):
    with pytest.raises(UsageError) as e:
        load_config(tmp_path, env={}, overrides={"recall": {"fusion": "max"}})
    assert e.value.message.startswith("overrides: [recall] fusion")


def test_a_valid_full_config_loads(tmp_path):
    full = """
[store]
max_text_bytes = 4096
fsync = false
gc_every = 0
default_scope = "channel/slack"
types = ["note", "decision"]

[identity]
name = "Ada"
email = "ada@example.com"

[redact]
allow = ["^sk-test-"]
entropy = false

[embed]
model = "none"
path = "/models/x"
threads = 2
retry_after = 0
download_timeout = 5

[recall]
fusion = "rrf"
rrf_k = 60
w_bm25 = 1
w_vector = 0.5
candidates = 50
bm25_k1 = 1.2
bm25_b = 0.75
bm25_confidence = 0.3
mmr = true
mmr_lambda = 0.5
recency_weight = 0
half_life_days = 7
importance_weight = 0.2
vector_floors = { "fake-64" = 0.1, "BAAI/bge-small-en-v1.5" = 0.4 }
prompt_min_score = 0.1
min_relevance = 0.2
prompt_min_relevance = 0.6
prefer_newer = false
norm = "std"
neighbour_weight = 0.35
neighbours = "next"
neighbour_lenders = 10
date_weight = 0.25
vector_weights = { "sentence-transformers/paraphrase-multilingual-MiniLM-L12-v2" = 0.8 }
cjk_vector_weights = { "sentence-transformers/all-MiniLM-L6-v2" = 0.5 }

[index]
chunk_lines = 10
chunk_chars = 800
lock_timeout = 30
open_retry = 1
catalog = true

[dream]
near_threshold = { "fake-64" = 0.95 }
fake_near_threshold = 0.7
anchored_margin = 0.2
cjk_margin = 0.4
update_margin = 0.3
strong_cue_margin = 0.05
min_hours = 0
min_sessions = 0
archive_below = -100.0
protect_importance = 9
access_cap = 3
access_weight = 1
idle_weight = 0.1
lock_stale_seconds = 60
memory_md_lines = 50
memory_md_bytes = 4096
memory_md_line_chars = 80

[capture]
context_hours = 48
context_budget = 2000
context_preferences = 3
context_top = 5
max_statement_chars = 300
max_bytes_per_run = 1048576
endpoint = "http://127.0.0.1:9/v1"
endpoint_model = "small"
endpoint_key_env = "MY_KEY"
endpoint_timeout = 2.5

[hooks]
budget = 1.5
recall_k = 3
max_results = 2
prompt_budget = 400
prompt_preferences = 2
prompt_changes = 4
read_assistant = true
warm_index = false
autostart_serve = false
serve_idle_exit = 0
sync = true

[serve]
autostart = true
idle_exit = 600

[mcp]
search_timeout_ms = 500

[sync]
private = ["channel/therapy"]
retries = 5
timeout = 30

[links]
"/home/ada/src/app" = "project/github.com/ada/app"
"""
    write(tmp_path, full)
    cfg = load_config(tmp_path, env={})
    # Every key of the schema is set above (one valid full config, kept complete).
    assert {s: set(v) for s, v in cfg.data.items() if s != "links"} == \
        {s: set(sec.keys) for s, sec in SCHEMA.items() if sec.keys}
    assert cfg.get("recall", "fusion") == "rrf" and cfg.get("dream", "archive_below") == -100.0
    assert cfg.types == ("note", "decision") and cfg.fsync is False
    assert cfg.get("dream", "near_threshold") == {"fake-64": 0.95}
    assert isinstance(cfg.get("dream", "near_threshold"), dict)  # dream tests isinstance(…, dict)
    assert cfg.section("links") == {"/home/ada/src/app": "project/github.com/ada/app"}


def test_defaults_and_caller_defaults(tmp_path):
    cfg = load_config(tmp_path, env={})
    assert cfg.get("recall", "w_bm25") == 1.0
    assert cfg.get("dream", "near_threshold") is None  # decided per model by dream
    assert cfg.get("embed", "path", "x") == "x" and cfg.get("recall", "vector_floors", {}) == {}
    assert cfg.section("hooks")["budget"] == 2.0 and cfg.section("links") == {}
    assert cfg.types == tuple(DEFAULTS["store"]["types"])


def test_config_is_frozen(tmp_path):
    write(tmp_path, '[redact]\nallow = ["a"]\n')
    cfg = load_config(tmp_path, env={})
    with pytest.raises(TypeError):
        cfg.data["redact"]["allow"] = ["b"]  # type: ignore[index]
    with pytest.raises(AttributeError):
        cfg.get("redact", "allow").append("b")
    assert isinstance(cfg, Config)


def test_write_config_value_refuses_what_would_not_load(tmp_path):
    path = write(tmp_path, '[identity]\nname = "Ada"\n')
    with pytest.raises(UsageError):
        write_config_value(tmp_path, "recall", "fusion", "max")
    with pytest.raises(UsageError):
        write_config_value(tmp_path, "recal", "fusion", "rrf")
    assert path.read_text() == '[identity]\nname = "Ada"\n'
    write_config_value(tmp_path, "links", "/src/app", "project/example.com/app")
    assert load_config(tmp_path, env={}).section("links") == {"/src/app": "project/example.com/app"}


# ---- the schema covers what the code reads ------------------------------------------

def _literal_config_reads() -> set[tuple[str, str | None]]:
    """("section", "key") of every `<x>.config.get("s", "k")`, `config.get(...)` and
    `.section("s")` call with literal arguments in the package."""
    out: set[tuple[str, str | None]] = set()
    for path in PKG.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
                continue
            owner = ast.unparse(node.func.value)
            if not (owner == "config" or owner.endswith(".config") or owner in ("cfg", "self.config")):
                continue
            args = [a.value for a in node.args if isinstance(a, ast.Constant)]
            if node.func.attr == "get" and len(args) >= 2 and all(isinstance(a, str) for a in args[:2]):
                out.add((args[0], args[1]))
            elif node.func.attr == "section" and args and isinstance(args[0], str):
                out.add((args[0], None))
    return out


def test_every_setting_the_code_reads_is_in_the_schema():
    reads = _literal_config_reads()
    assert ("store", "default_scope") in reads  # the scan finds them
    missing = [r for r in reads if r[0] not in SCHEMA or (r[1] is not None and r[1] not in SCHEMA[r[0]].keys)]
    assert missing == []


def test_no_feature_module_keeps_a_second_copy_of_the_defaults():
    """The schema is the only copy: no module-level *DEFAULTS dict outside core/schema.py."""
    import ast

    pkg = Path(__file__).resolve().parent.parent / "gitmem"
    copies = []
    for path in pkg.rglob("*.py"):
        if path.relative_to(pkg).as_posix() == "core/schema.py":
            continue
        for node in ast.parse(path.read_text()).body:
            targets = node.targets if isinstance(node, ast.Assign) else \
                [node.target] if isinstance(node, ast.AnnAssign) else []
            copies += [f"{path.name}:{t.id}" for t in targets
                       if isinstance(t, ast.Name) and t.id.endswith("DEFAULTS")]
    assert copies == []



def test_status_with_an_unknown_section_exits_2(store):
    from gitmem.frontends.cli import cli

    write(store.home, "[recal]\nw_bm25 = 1\n")
    res = CliRunner().invoke(cli, ["status", "--json"])
    assert res.exit_code == 2
    assert "unknown section [recal]" in res.stderr and "did you mean [recall]?" in res.stderr


def test_bad_environment_value_exits_2(store):
    from gitmem.frontends.cli import cli

    res = CliRunner().invoke(cli, ["list"], env={"GITMEM_FSYNC": "maybe"})
    assert res.exit_code == 2 and res.stderr.startswith('error: GITMEM_FSYNC="maybe"')


def test_a_bad_config_stops_a_write_before_it_happens(store):
    from gitmem.frontends.cli import cli

    write(store.home, "[store]\nmax_text_bytes = -1\n")
    res = CliRunner().invoke(cli, ["remember", "x"])
    assert res.exit_code == 2 and "[store] max_text_bytes = -1" in res.stderr
    assert store.git.scopes() == {}


def test_a_setting_from_the_environment_alone_goes_through_the_schema(monkeypatch):
    from gitmem.core.config import env_setting
    from gitmem.frontends.hook_support import hook_setting

    assert env_setting("hooks", "budget", {}) == 2.0
    assert env_setting("hooks", "budget", {"GITMEM_HOOK_BUDGET": "3.5"}) == 3.5
    with pytest.raises(UsageError):
        env_setting("hooks", "budget", {"GITMEM_HOOK_BUDGET": "soon"})
    monkeypatch.setenv("GITMEM_HOOK_BUDGET", "soon")
    assert hook_setting(None, "budget") == 2.0  # a hook fails open: the default
    monkeypatch.setenv("GITMEM_HOOK_BUDGET", "1.25")
    assert hook_setting(None, "budget") == 1.25
