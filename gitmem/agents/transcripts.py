"""Agent transcripts as turns: JSONL (generic {role, content}, Claude Code, Codex
rollouts, Qwen Code) and plain `User:`/`Assistant:` text, read from a byte offset on.

Pure reading: no store, no printing."""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gitmem.core.errors import UsageError


@dataclass
class Turn:
    role: str  # user | assistant | tool
    text: str
    line: int  # 1-based line in the transcript where the turn starts


_PLAIN_ROLE = re.compile(
    r"^\s*(?:\*\*)?(user|human|me|you|assistant|ai|claude|qwen|codex|model|bot|system|tool|用户|我|助手|助理)"
    r"(?:\*\*)?\s*[:：>]\s?(.*)$", re.IGNORECASE)
_ROLE_NAMES = {"user": "user", "human": "user", "me": "user", "用户": "user", "我": "user",
               "assistant": "assistant", "ai": "assistant", "claude": "assistant", "qwen": "assistant",
               "codex": "assistant", "model": "assistant", "bot": "assistant", "助手": "assistant",
               "助理": "assistant", "you": "assistant", "system": "system", "tool": "tool"}


def _content_text(content: Any) -> tuple[str, bool]:
    """Text of a message content (string or list of parts); True if it is tool output."""
    if isinstance(content, str):
        return content, False
    if isinstance(content, dict):
        content = [content]
    if not isinstance(content, list):
        return "", False
    texts, tool = [], False
    for part in content:
        if isinstance(part, str):
            texts.append(part)
        elif isinstance(part, dict):
            kind = part.get("type")
            if kind in ("tool_result", "function_call_output", "tool_use", "function_call"):
                tool = True
                continue
            if isinstance(part.get("text"), str) and kind in (None, "text", "input_text", "output_text"):
                texts.append(part["text"])
    return "\n".join(texts), tool and not texts


def _jsonl_turn(obj: dict[str, Any]) -> tuple[str, str] | None:
    """(role, text) of one JSONL record: generic {"role","content"}, Claude Code
    ({"type":"user","message":{...}}), Codex rollouts ({"payload":{...}}), Qwen ({"parts"})."""
    if obj.get("isMeta") or obj.get("isSidechain") or obj.get("type") in ("summary", "system"):
        return None
    msg = obj
    for key in ("message", "payload"):
        if isinstance(obj.get(key), dict):
            msg = obj[key]
            break
    if msg.get("type") in ("user_message", "agent_message") and isinstance(msg.get("message"), str):
        return None  # Codex event copies of response items; read those instead
    role = msg.get("role") or obj.get("role") or obj.get("type")
    if not isinstance(role, str):
        return None
    role = role.lower()
    content = msg.get("content", msg.get("parts", msg.get("text")))
    text, tool_only = _content_text(content)
    if role in ("tool", "function") or tool_only:
        return ("tool", text)
    if role in ("human",):
        role = "user"
    if role in ("ai", "model", "gemini"):
        role = "assistant"
    if role not in ("user", "assistant"):
        return None
    if text.lstrip().startswith(_INJECTED_FILES):
        return None  # instruction files the CLI sends as a user message (AGENTS.md...)
    return role, text


# Project instruction files that agent CLIs put into the transcript as user messages.
_INJECTED_FILES = ("# AGENTS.md instructions", "<user_instructions>", "<environment_context>",
                   "<INSTRUCTIONS>", "Caveat: The messages below were generated")


def read_turns(path: str | os.PathLike[str], offset: int = 0,
               max_bytes: int | None = None) -> tuple[list[Turn], int, str]:
    """Turns of a transcript from byte `offset` on; returns (turns, new offset, format).

    Only whole lines are consumed, so a line an agent is still writing is read next time.
    At most `max_bytes` are read per call, so a huge transcript is taken in steps that
    each finish within a hook's budget; a single line longer than that is skipped."""
    p = Path(path)
    try:
        with open(p, "rb") as fh:
            head = fh.read(4096)
            size = os.fstat(fh.fileno()).st_size
            if offset > size:
                offset = 0  # the transcript was rewritten: start over
            fh.seek(offset)
            data = fh.read(max_bytes) if max_bytes else fh.read()
            if max_bytes and len(data) == max_bytes and b"\n" not in data:
                skip = len(data)  # one giant line (a pasted image...): no statement in it
                while True:
                    block = fh.read(1 << 20)
                    if not block:
                        return [], offset, "jsonl" if head.lstrip()[:1] == b"{" else "text"
                    nl = block.find(b"\n")
                    if nl != -1:
                        return [], offset + skip + nl + 1, "jsonl" if head.lstrip()[:1] == b"{" else "text"
                    skip += len(block)
    except OSError as e:
        raise UsageError(f"cannot read transcript {path}: {e.strerror or e}",
                         hint="pass the transcript path the agent CLI reports") from e
    end = data.rfind(b"\n") + 1  # 0 when no complete line has been written yet
    chunk = data[:end]
    offset_line = 0
    if offset:
        with open(p, "rb") as fh:
            offset_line = fh.read(offset).count(b"\n")
    fmt = "jsonl" if head.lstrip()[:1] == b"{" else "text"
    text = chunk.decode("utf-8", errors="replace")
    turns: list[Turn] = []
    if fmt == "jsonl":
        for n, line in enumerate(text.splitlines(), offset_line + 1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except (json.JSONDecodeError, RecursionError):
                continue  # a torn, foreign or absurdly nested line is skipped, not fatal
            if isinstance(obj, dict):
                t = _jsonl_turn(obj)
                if t and t[1].strip():
                    turns.append(Turn(t[0], t[1], n))
    else:
        cur: Turn | None = None
        for n, line in enumerate(text.splitlines(), offset_line + 1):
            m = _PLAIN_ROLE.match(line)
            if m:
                cur = Turn(_ROLE_NAMES.get(m.group(1).lower(), "user"), m.group(2), n)
                turns.append(cur)
            elif cur is not None:
                cur.text += "\n" + line
            elif line.strip():
                turns.append(Turn("user", line, n))  # unlabelled text: the person's notes
    return turns, offset + end, fmt
