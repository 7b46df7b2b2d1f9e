"""transcripts: JSONL (generic, Claude Code, Codex, Qwen) and plain text as turns."""

from __future__ import annotations

import json

from gitmem.agents.transcripts import read_turns


def claude_line(role: str, content) -> str:
    return json.dumps({"type": role, "message": {"role": role, "content": content},
                       "sessionId": "s", "uuid": "u"}, ensure_ascii=False) + "\n"


def test_read_turns_formats(tmp_path):
    generic = tmp_path / "g.jsonl"
    generic.write_text('{"role": "user", "content": "I like Go"}\n{"role": "assistant", "content": "ok"}\n')
    turns, end, fmt = read_turns(generic)
    assert fmt == "jsonl" and [(t.role, t.text) for t in turns] == [("user", "I like Go"), ("assistant", "ok")]
    assert end == generic.stat().st_size

    cc = tmp_path / "c.jsonl"
    cc.write_text(claude_line("user", "I like Python")
                  + claude_line("assistant", [{"type": "text", "text": "Sure."}, {"type": "tool_use", "id": "1"}])
                  + claude_line("user", [{"type": "tool_result", "tool_use_id": "1", "content": "I like Rust"}])
                  + json.dumps({"type": "summary", "summary": "x"}) + "\n"
                  + json.dumps({"type": "user", "isMeta": True, "message": {"role": "user", "content": "meta"}}) + "\n")
    turns, _, _ = read_turns(cc)
    assert [(t.role, t.text) for t in turns] == [("user", "I like Python"), ("assistant", "Sure."),
                                                 ("tool", "")] or \
        [(t.role, t.text) for t in turns if t.role != "tool"] == [("user", "I like Python"), ("assistant", "Sure.")]
    assert all("Rust" not in t.text for t in turns if t.role == "user")

    codex = tmp_path / "x.jsonl"
    codex.write_text(json.dumps({"type": "response_item", "payload": {
        "type": "message", "role": "user", "content": [{"type": "input_text", "text": "I prefer uv"}]}}) + "\n")
    with open(codex, "a") as fh:
        fh.write(json.dumps({"type": "response_item", "payload": {
            "type": "message", "role": "user", "content": [{"type": "input_text",
                                                             "text": "# AGENTS.md instructions for /x\n\nAlways use tabs."}]}}) + "\n")
    turns, _, _ = read_turns(codex)
    assert [(t.role, t.text) for t in turns] == [("user", "I prefer uv")]

    plain = tmp_path / "p.txt"
    plain.write_text("User: I like Python\nand long walks\nAssistant: noted\n")
    turns, _, fmt = read_turns(plain)
    assert fmt == "text"
    assert [(t.role, t.text) for t in turns] == [("user", "I like Python\nand long walks"), ("assistant", "noted")]


def test_partial_last_line_is_left_for_next_time(tmp_path):
    t = tmp_path / "t.jsonl"
    whole = claude_line("user", "I like Python")
    t.write_text(whole + '{"type": "user", "message": {"role": "us')
    turns, end, _ = read_turns(t)
    assert len(turns) == 1 and end == len(whole.encode())


def test_giant_line_is_skipped_not_stuck(tmp_path):
    t = tmp_path / "t.jsonl"
    t.write_text(claude_line("user", "x" * 5000) + claude_line("user", "I like Python"))
    turns, end, _ = read_turns(t, 0, max_bytes=1000)
    assert turns == [] and end > 5000
    turns, end2, _ = read_turns(t, end, max_bytes=1000)
    assert [x.text for x in turns] == ["I like Python"]
