"""import --from openclaw|qwen|claude|markdown on folders laid out like theirs; export --to openclaw."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import decode_message, git, invoke_cli, raw_forms

MEMORY_MD = """# Long-term memory

## Preferences
- Prefers concise answers
- Uses pnpm, never npm

## Decisions
- Chose SQLite for the cache (one file, no daemon)
"""


@pytest.fixture
def openclaw(tmp_path) -> Path:
    ws = tmp_path / "workspace"
    (ws / "memory").mkdir(parents=True)
    (ws / "MEMORY.md").write_text(MEMORY_MD)
    (ws / "USER.md").write_text("- Call me Ada\n- Timezone: Europe/Berlin\n")
    (ws / "AGENTS.md").write_text("You are a helpful agent.\n")  # instructions, not memory
    (ws / "memory" / "2024-05-01.md").write_text("# 2024-05-01\n\n- Set up the repo\n"
                                                  "- api_key = sk-abcdefghijklmnopqrstuvwx123456\n")
    (ws / "memory" / "2024-05-03.md").write_text("# 2024-05-03\n\n- Wrote the importer\n")
    (ws / "memory" / "2024-05-02-standup.md").write_text("Standup: blocked on review\n")
    (ws / "memory" / "projects").mkdir()
    (ws / "memory" / "projects" / "alpha.md").write_text("Alpha ships in June\n")
    # Links out of the workspace: never followed.
    secret = tmp_path / "outside.md"
    secret.write_text("OUTSIDE-SECRET\n")
    (ws / "memory" / "2024-05-04.md").symlink_to(secret)
    (ws / "memory" / "escape").symlink_to(tmp_path, target_is_directory=True)
    return ws


def _log(gm_home) -> list[tuple[str, str, str]]:
    """(author date, commit date, subject) of main's commits, newest first, as plain git
    reads them (subjects through the test codec)."""
    out = git(f"--git-dir={gm_home / 'repo.git'}", "log", "--format=%ad|%cd|%B%x00", "--date=short", "main")
    rows = []
    for rec in out.split("\x00"):
        if rec.strip():
            ad, cd, msg = rec.strip("\n").split("|", 2)
            rows.append((ad, cd, decode_message(msg).split("\n", 1)[0]))
    return rows


def _absent(text: str, raw: str) -> bool:
    """`text` appears in no form in raw git output."""
    return not any(f.decode() in raw for f in raw_forms(text))


def test_openclaw_import_keeps_history_and_skips_links_out(store, gm_home, openclaw):
    r = invoke_cli("import", "--from", "openclaw", str(openclaw), "--json")
    assert r.returncode == 0, r.stderr
    res = json.loads(r.stdout)
    assert res["created"] == 7  # 2 sections + USER.md + 3 dated + projects/alpha
    assert sorted(res["skipped"]) == ["memory/2024-05-04.md", "memory/escape"]
    assert res["redacted"] == [{"kind": "openai-key", "field": "text"}]
    log = _log(gm_home)
    dated = [(a, s) for a, c, s in log if "memory/20" in s]
    # One commit per dated file, dated that day, oldest first.
    assert dated == [("2024-05-03", "import: openclaw memory/2024-05-03.md"),
                     ("2024-05-02", "import: openclaw memory/2024-05-02-standup.md"),
                     ("2024-05-01", "import: openclaw memory/2024-05-01.md")]
    mems = {m.key: m for m in store.list()}
    assert mems["openclaw:MEMORY#preferences"].text.startswith("## Preferences")
    assert mems["openclaw:USER"].type == "preference"
    day = mems["openclaw:memory/2024-05-01"]
    assert day.created == "2024-05-01T00:00:00Z" and "daily" in day.tags
    assert "sk-abcdef" not in day.text and "[REDACTED:openai-key]" in day.text
    everything = git(f"--git-dir={gm_home / 'repo.git'}", "log", "-p", "--all")
    assert _absent("OUTSIDE-SECRET", everything) and _absent("helpful agent", everything)
    # `get --at` sees the scope as it was on that day.
    at = invoke_cli("get", "openclaw:memory/2024-05-01", "--at", "2024-05-02", "--json")
    assert at.returncode == 0 and "Set up the repo" in json.loads(at.stdout)["text"]

    # Again: nothing changes. Then edit one section: one update, nothing else.
    again = json.loads(invoke_cli("import", "--from", "openclaw", str(openclaw), "--json").stdout)
    assert (again["created"], again["updated"], again["unchanged"]) == (0, 0, 7)
    (openclaw / "MEMORY.md").write_text(MEMORY_MD.replace("pnpm", "bun"))
    third = json.loads(invoke_cli("import", "--from", "openclaw", str(openclaw), "--json").stdout)
    assert (third["created"], third["updated"]) == (0, 1)
    assert "bun" in store.get("openclaw:MEMORY#preferences").text


def test_export_openclaw_round_trip(store, gm_home, openclaw, tmp_path):
    assert invoke_cli("import", "--from", "openclaw", str(openclaw)).returncode == 0
    store.remember("Prefers dark mode", type="preference")
    store.append("journal line from gitmem")
    out = tmp_path / "exported"
    r = invoke_cli("export", "--to", "openclaw", str(out), "--json")
    assert r.returncode == 0, r.stderr
    files = set(json.loads(r.stdout)["files"])
    assert {"MEMORY.md", "USER.md", "memory/2024-05-01.md", "memory/2024-05-03.md",
            "memory/2024-05-02-standup.md", "memory/projects/alpha.md"} <= files
    text = (out / "MEMORY.md").read_text()
    assert text.index("## Preferences") < text.index("## Decisions") < text.index("Prefers dark mode")
    assert (out / "memory" / "2024-05-03.md").read_text() == (openclaw / "memory" / "2024-05-03.md").read_text()
    today = [f for f in files if f.startswith("memory/") and "journal" in (out / f).read_text()]
    assert today, "gitmem's own daily journal is exported as a daily note"
    # The export imports again as the same content into a fresh store.
    fresh = tmp_path / "fresh"
    r2 = invoke_cli("--home", str(fresh), "init")
    r3 = invoke_cli("--home", str(fresh), "import", "--from", "openclaw", str(out), "--json")
    assert r2.returncode == 0 and r3.returncode == 0, r3.stderr
    assert json.loads(r3.stdout)["created"] >= 7


@pytest.fixture
def auto_memory(tmp_path) -> Path:
    """A qwen-code / Claude Code auto-memory folder: topic files + MEMORY.md index."""
    d = tmp_path / "projects" / "-home-ada-app" / "memory"
    d.mkdir(parents=True)
    (d / "MEMORY.md").write_text(
        "# Memory index\n\n"
        "- [User role](user_role.md) — data scientist, new to React\n"
        "- [No DB mocks](feedback_testing.md) — integration tests hit a real DB\n"
        "- [Elsewhere](../../../outside.md) — outside this folder\n")
    (d / "user_role.md").write_text(
        "---\nname: user-role\ndescription: Data scientist focused on logging; new to React\n"
        "type: user\n---\nDeep Go expertise; explain frontend with backend analogies.\n")
    (d / "feedback_testing.md").write_text(
        "---\nname: no-db-mocks\ndescription: Integration tests must hit a real database\n"
        "type: feedback\n---\nIntegration tests must hit a real database.\n"
        "**Why:** mocked tests passed but the prod migration failed.\n")
    (d / "project_freeze.md").write_text(
        "---\nname: merge-freeze\ndescription: Merge freeze from 2026-03-05 for the mobile release\n"
        "type: project\n---\nNon-critical merges wait until the release branch is cut.\n")
    (d / "reference_dash.md").write_text(
        "---\nname: latency-dashboard\ndescription: grafana.internal/d/api-latency is the oncall dashboard\n"
        "type: reference\n---\ngrafana.internal/d/api-latency\n")
    (d / "misc.md").write_text("---\nname: misc\ntype: something-else\n---\nA loose note.\n")
    (tmp_path / "outside.md").write_text("---\nname: leak\ntype: user\n---\nOUTSIDE-SECRET\n")
    (d / "linked_topic.md").symlink_to(tmp_path / "outside.md")  # a symlink out: skipped
    return d


@pytest.mark.parametrize("kind", ["qwen", "claude"])
def test_auto_memory_import(store, gm_home, auto_memory, kind):
    r = invoke_cli("import", "--from", kind, str(auto_memory), "--json")
    assert r.returncode == 0, r.stderr
    res = json.loads(r.stdout)
    assert res["created"] == 6  # 5 topics + the index's one non-link line
    assert res["skipped"] == ["linked_topic.md"]
    mems = {m.key: m for m in store.list()}
    assert mems["user-role"].type == "preference"
    assert mems["no-db-mocks"].type == "lesson"
    assert mems["merge-freeze"].type == "fact"
    assert mems["latency-dashboard"].type == "reference"
    assert mems["misc"].type == "note"
    assert mems["no-db-mocks"].summary == "Integration tests must hit a real database"
    assert mems["no-db-mocks"].metadata["type"] == "feedback"
    assert "**Why:**" in mems["no-db-mocks"].text
    index = mems[f"{kind}:MEMORY"]
    assert "Elsewhere" in index.text and "User role" not in index.text  # links to topics dropped
    assert _absent("OUTSIDE-SECRET", git(f"--git-dir={gm_home / 'repo.git'}", "log", "-p", "main"))
    # Editing a topic file updates that memory (same id) on the next import.
    f = auto_memory / "feedback_testing.md"
    f.write_text(f.read_text().replace("real database.", "real database (staging)."))
    res2 = json.loads(invoke_cli("import", "--from", kind, str(auto_memory), "--json").stdout)
    assert (res2["created"], res2["updated"], res2["unchanged"]) == (0, 1, 5)
    assert store.get("no-db-mocks").id == mems["no-db-mocks"].id


def test_qwen_added_memories(store, tmp_path):
    d = tmp_path / "qwen"
    d.mkdir()
    (d / "QWEN.md").write_text("# Project\n\nrules...\n\n## Qwen Added Memories\n"
                               "- My preferred language is Python.\n- The project is called app.\n")
    res = store.import_dir("qwen", d)
    assert res["created"] == 2
    assert sorted(m.text.strip() for m in store.list()) == [
        "My preferred language is Python.", "The project is called app."]


def test_markdown_import(store, gm_home, tmp_path):
    d = tmp_path / "notes"
    (d / "sub").mkdir(parents=True)
    (d / "ideas.md").write_text("---\ntype: decision\ntags: [arch]\n---\n# Use git\nBecause history.\n")
    (d / "sub" / "2023-12-24 xmas.md").write_text("Dated note\n")
    (d / "readme.txt").write_text("not markdown")
    res = json.loads(invoke_cli("import", "--from", "markdown", str(d), "--json").stdout)
    assert res["created"] == 2
    mems = {m.key: m for m in store.list()}
    assert mems["markdown:ideas"].type == "decision" and "arch" in mems["markdown:ideas"].tags
    assert mems["markdown:sub/2023-12-24 xmas"].created == "2023-12-24T00:00:00Z"
    assert ("2023-12-24", "2023-12-24", "import: markdown sub/2023-12-24 xmas.md") in _log(gm_home)


def test_front_matter_that_is_not_yaml_is_kept_as_text(store, tmp_path):
    d = tmp_path / "notes"
    d.mkdir()
    (d / "bad.md").write_text("---\ntags: [unclosed\n---\nThe body.\n")
    (d / "spaced.md").write_text("---\ntype: decision\n---\n\n\nUse git.\n")
    assert store.import_dir("markdown", d)["created"] == 2
    mems = {m.key: m for m in store.list()}
    assert mems["markdown:bad"].text.startswith("---\ntags: [unclosed")  # nothing lost
    assert mems["markdown:spaced"].type == "decision" and mems["markdown:spaced"].text == "Use git.\n"

def test_import_errors(store, tmp_path):
    r = invoke_cli("import", "--from", "openclaw", str(tmp_path / "missing"))
    assert r.returncode == 2 and "not a directory" in r.stderr
    r = invoke_cli("import", "--from", "openclaw")
    assert r.returncode == 2 and "missing DIR" in r.stderr


def test_oversize_file_is_split_not_refused(store, tmp_path, monkeypatch):
    d = tmp_path / "ws"
    (d / "memory").mkdir(parents=True)
    lines = [f"- line {i}: " + "x" * 60 + "\n" for i in range(100)]  # ~7 KB
    (d / "memory" / "2024-06-01.md").write_text("".join(lines))
    monkeypatch.setenv("GITMEM_MAX_TEXT_BYTES", "2048")
    import gitmem

    small = gitmem.open(store.home)
    res = small.import_dir("openclaw", d)
    parts = sorted(small.list(), key=lambda m: m.metadata["part"])
    assert res["created"] == len(parts) >= 4
    assert all(len(m.text.encode()) <= 2048 for m in parts)
    assert "".join(m.text for m in parts) == "".join(lines)
    assert res["commits"] and len(res["commits"]) == 1  # still one commit for the dated file
    out = tmp_path / "out"
    from gitmem.agents.importers import export_openclaw

    export_openclaw(small.memories, out)
    assert (out / "memory" / "2024-06-01.md").read_text() == "".join(lines)

_line = st.one_of(st.just("## Heading\n"), st.just("## Heading\n"), st.just("```\n"),
                  st.text(alphabet="ab #-\n", max_size=12).map(lambda t: t.replace("\n", "") + "\n"))


@given(st.lists(_line, max_size=30))
@settings(max_examples=300, deadline=None)
def test_sections_keep_every_line_once(lines):
    """Splitting MEMORY.md at `## ` loses no content and keys stay unique."""
    from gitmem.agents.importers import _sections

    text = "".join(lines)
    secs = _sections(text)
    assert len({slug for slug, _ in secs}) == len(secs)
    kept = [l for body in (b for _, b in secs) for l in body.splitlines() if l.strip()]
    original = [l for l in text.splitlines() if l.strip()]
    # Content lines all survive, in order; only headings of empty sections are dropped.
    content = lambda ls: [l for l in ls if not l.lstrip().startswith("#")]  # noqa: E731
    assert content(kept) == content(original)
    it = iter(original)
    assert all(any(k == o for o in it) for k in kept), "kept lines are a subsequence"
