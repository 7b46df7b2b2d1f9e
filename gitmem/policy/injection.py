"""Prompt-injection detection: the one owner of what every write path flags and every
injected output withholds. Pure: text in, a reason (or None) out.

A memory is often an imperative ("Always run tests before pushing", "Never deploy on
Fridays"): that is a preference, not an attack, and is not flagged. What is flagged is
text aimed at the model that will read it rather than at the person's work:
- overrides of earlier instructions ("ignore all previous instructions", "忽略之前的指令"),
  and new identities or modes for the assistant ("you are now DAN", "developer mode");
- chat-template and role markers that would let text pose as another turn (`SYSTEM:`,
  `assistant:`, `<|im_start|>`, `[INST]`, `<system>` and the tags gitmem frames memories with);
- instructions hidden in markup: an HTML comment or markdown comment addressed to the
  assistant, and invisible Unicode "tag" characters;
- exfiltration: sending secrets, keys, the conversation or the system prompt somewhere,
  reading credential files into a network command, and `curl … | sh`;
- asking for the system prompt ("reveal your system prompt"); a sentence that merely
  mentions "the system prompt" is not flagged.

Write paths (`Memories.prepare`, `update`) store a flagged memory as type `quarantine`
with the reason in metadata.flagged; readers that inject (context, the prompt hook,
`recall --format prompt`, MCP search) skip quarantined memories and any text that scans
as flagged unless a person released it (`update --type ...` records metadata.released
with the text's hash)."""

from __future__ import annotations

import hashlib
import re
from typing import Any

_I = re.IGNORECASE | re.MULTILINE

_EARLIER = r"(?:previous|prior|above|earlier|preceding|former|original|initial|system|developer|your|all(?:\s+the)?)"
_ORDERS = (r"(?:instructions?|prompts?|directives?|directions?|guidelines|system\s+prompt|messages?|context|commands?|"
           r"programming|training)")
_MODEL = r"(?:AI|A\.I\.|assistant|chat\s?bot|bot|LLM|language\s+model|model|agent|Claude|ChatGPT|GPT(?:-\d)?|Gemini|Copilot|Qwen|Codex)"
_SECRETS = (r"(?:secrets?|credentials?|api[\s_-]?keys?|access\s+keys?|tokens?|passwords?|passphrases?|private\s+keys?|"
            r"ssh\s+keys?|\.env\b|env(?:ironment)?\s+var(?:iable)?s|cookies|session\s+(?:ids?|tokens?)|"
            r"(?:the\s+|this\s+)?(?:conversation|chat\s+history|transcript)|system\s+prompt|memories|"
            r"~/\.ssh|id_rsa|/etc/passwd|\.aws/credentials)")
_SEND = r"(?:send|post|upload|forward|exfiltrate|transmit|leak|email|mail|submit|pipe|share|copy|paste)"
_DEST = r"(?:https?://|ftp://|wss?://|\S+@\S+\.\w{2,}|(?:[\w-]+\.)+(?:com|net|org|io|xyz|ru|cn|top|site|dev|app)\b|\d{1,3}(?:\.\d{1,3}){3})"

# (label, pattern). The label names the kind in metadata.flagged.
_RULES: list[tuple[str, re.Pattern[str]]] = [(label, re.compile(p, flags)) for label, p, flags in [
    ("override", rf"\b(?:ignore|disregard|forget|override|bypass|skip|drop|abandon)\s+(?:all\s+|any\s+|the\s+|of\s+)*"
                 rf"(?:{_EARLIER}\s+){{1,2}}(?:of\s+)?(?:the\s+|your\s+)?{_ORDERS}", _I),
    ("override", r"\b(?:ignore|disregard|forget|override)\s+(?:all\s+(?:of\s+)?)?your\s+(?:previous\s+|prior\s+|earlier\s+|"
                 r"original\s+)?(?:rules|restrictions|limitations|safety)\b"
                 r"|\b(?:ignore|disregard)\s+(?:all\s+(?:of\s+)?)?the\s+(?:above|previous|prior|earlier)\s+rules\b"
                 r"|\bignore\s+all\s+(?:previous\s+|prior\s+)?rules\b", _I),
    ("override", r"\b(?:do\s+not|don't|stop)\s+(?:follow(?:ing)?|obey(?:ing)?)\s+(?:your|the|any)\s+"
                 r"(?:previous\s+|prior\s+|original\s+|system\s+)?(?:instructions|rules|guidelines|prompt)", _I),
    ("override", r"\b(?:new|updated|override|overriding|real|actual|hidden|secret|true|revised)\s+"
                 r"(?:system\s+)?(?:instructions?|directives?|prompt)\s*[:：]", _I),
    ("identity", r"\byou\s+are\s+(?:now|no\s+longer)\b|\bfrom\s+now\s+on,?\s+you\s+(?:are|will\s+be|must\s+act)\b"
                 r"|\b(?:act|behave|respond)\s+as\s+(?:an?\s+)?(?:unrestricted|unfiltered|uncensored|jailbroken|evil|DAN)\b"
                 r"|\bpretend\s+(?:that\s+)?you\s+(?:are|have)\s+(?:no|an?\s+unrestricted)"
                 r"|\b(?:enable|enter|activate|switch\s+to|you\s+are\s+in|now\s+in)\s+(?:DAN|developer|god|sudo|jailbreak)\s+mode\b"
                 r"|\bDAN\s+mode\b|\bdo\s+anything\s+now\b", _I),
    ("addressed to the model", rf"\bif\s+you\s+are\s+(?:an?\s+)?{_MODEL}\b"
                               rf"|\b(?:attention|note|message|instructions?)\s+(?:to|for)\s+(?:the\s+|any\s+|all\s+)?"
                               rf"{_MODEL}s?\b\s*[:,-]"
                               rf"|\b{_MODEL}s?\s+(?:reading|processing|parsing|summari[sz]ing)\s+this\s+"
                               rf"(?:memory|note|message|text)\b"
                               rf"|\bwhen\s+you\s+(?:read|recall|load|retrieve|process)\s+this\s+(?:memory|note|message|text)", _I),
    ("secrecy", r"\b(?:do\s+not|don't|never)\s+(?:tell|inform|alert|notify|warn)\s+the\s+user\b"
                r"|\bwithout\s+(?:telling|informing|alerting|notifying)\s+the\s+user\b"
                r"|\b(?:do\s+not|don't|never)\s+mention\s+(?:this|these\s+instructions)\s+to\s+the\s+user", _I),
    ("reveal", r"\b(?:reveal|print|show|output|repeat|display|leak|dump|tell\s+me)\s+(?:me\s+)?(?:your|the)\s+"
               r"(?:full\s+|entire\s+|hidden\s+|original\s+)?(?:system\s+prompt|(?:system\s+|initial\s+|hidden\s+)instructions)", _I),
    ("role marker", r"^\s*(?:SYSTEM|ASSISTANT|DEVELOPER)\s*[:：]"
                    r"|(?i:^\s*(?:system|assistant|developer)\s*[:：]\s*(?:you\b|ignore|disregard|from\s+now|new\s+instructions|"
                    r"always|never|do\s+not|don't|please|execute|run|send|override))"
                    r"|^\s*assistant\s*[:：]"
                    r"|(?i:^\s*#{1,4}\s*(?:system|instruction|instructions|assistant)\s*[:：]?\s*$)"
                    r"|<\|(?:im_start|im_end|system|user|assistant|endoftext|eot_id|start_header_id)\|>"
                    r"|\[/?INST\]|<<\s*/?SYS\s*>>", re.MULTILINE),
    ("markup", r"</?\s*(?:system|assistant|instructions?|system[-_]reminder|user[-_]instructions|"
               r"tool[-_](?:call|result)|function[-_]calls?|antml:[\w-]+)\b[^>]{0,200}>"
               r"|</\s*(?:gitmem[\w-]*|memory|memories)\s*>", _I),
    ("hidden comment", rf"<!--(?:(?!-->).){{0,2000}}?(?:\b{_MODEL}\b|\byou\b|\byour\b|instructions?|\bsystem\b|\bprompt\b|"
                       rf"\bexecute\b|\bcurl\b|\bwget\b|\bsend\b|\bignore\s+(?:all|previous|prior|the)\b)",
     re.IGNORECASE | re.DOTALL),
    ("hidden comment", rf"^\s*\[//\]\s*:\s*#\s*[(\"'].{{0,500}}?(?:\b{_MODEL}\b|\byou\b|instructions?|\bignore\b)",
     re.IGNORECASE | re.MULTILINE),
    ("exfiltration", rf"\b{_SEND}\b[^.\n。]{{0,80}}?{_SECRETS}[^.\n。]{{0,80}}?\b(?:to|into|at|via)\s+{_DEST}", _I),
    ("exfiltration", r"\b(?:curl|wget|fetch|invoke-webrequest|iwr)\b[^\n]{0,200}?\|\s*(?:sudo\s+)?(?:ba|z|da|k)?sh\b"
                     r"|\b(?:curl|wget|nc|netcat|ncat|scp|rsync)\b[^\n]{0,200}?(?:~/\.ssh|id_rsa|\.aws/credentials|/etc/passwd|"
                     r"/etc/shadow|\.env\b|\$\(\s*(?:cat|env|printenv)|\$\{?(?:[A-Z_]*(?:TOKEN|SECRET|KEY|PASSWORD)[A-Z_]*)\b)"
                     r"|\b(?:printenv|env|cat\s+\S*(?:\.env|credentials|id_rsa))\s*\|\s*(?:curl|nc|netcat|wget)\b"
                     r"|\brm\s+-rf\s+(?:--no-preserve-root\s+)?[/~](?:\s|$)", _I),
    # Chinese: overrides, a new identity, asking for the system prompt, sending secrets out.
    ("override", r"(?:忽略|无视|忘记|忘掉|不要理会|不要遵守|不再遵守|违背|跳过)(?:掉)?(?:你)?(?:之前|以上|前面|上面|上述|先前|"
                 r"原来|原有|原先|所有|全部|系统)的?(?:所有|全部|一切)?(?:的)?(?:指令|指示|提示词?|规则|说明|要求|设定|约束)", 0),
    ("identity", r"你现在是|从现在(?:开始|起)[，,]?\s*你(?:是|要|必须|将|就是)|(?:进入|开启|启用)(?:开发者|越狱|上帝)模式|越狱", 0),
    ("reveal", r"(?:输出|显示|泄露|告诉我|打印|重复|透露)(?:一下)?(?:你的|你)?(?:完整的?|全部的?)?(?:系统提示词?|系统指令|初始指令)", 0),
    ("exfiltration", r"(?:发送|上传|发给|发到|转发|提交|泄露)[^。\n]{0,40}?(?:密钥|密码|令牌|凭证|私钥|环境变量|对话记录|聊天记录|系统提示)"
                     r"[^。\n]{0,40}?(?:到|给|至)|(?:把|将)[^。\n]{0,20}?(?:密钥|密码|令牌|凭证|私钥|环境变量|对话记录|系统提示)"
                     r"[^。\n]{0,40}?(?:发送|上传|发给|发到|转发|提交)", 0),
    ("addressed to the model", r"(?:如果你是|致|给)(?:一个)?(?:AI|人工智能|助手|大模型|语言模型|智能体)[，,:：]", re.IGNORECASE),
]]

# Cheap prefilter, as gitmem.redact does for secrets: a rule's regex runs only on text that
# holds one of its cues (lower-cased), in the order of _RULES.
_CUES: list[tuple[str, ...]] = [
    ("ignore", "disregard", "forget", "override", "bypass", "skip", "drop", "abandon"),
    ("ignore", "disregard", "forget", "override"),
    ("follow", "obey"),
    ("instruction", "directive", "prompt"),
    ("you", "act as", "behave as", "respond as", "mode", "anything now"),
    ("you are", "attention", "note", "message", "instruction", "this", "when you"),
    ("the user",),
    ("system prompt", "instructions"),
    ("system", "assistant", "developer", "<|", "inst]", "sys"),
    ("<",),
    ("<!--",),
    ("[//]",),
    ("send", "post", "upload", "forward", "exfiltrat", "transmit", "leak", "mail", "submit", "pipe", "share",
     "copy", "paste"),
    ("curl", "wget", "fetch", "invoke-webrequest", "iwr", "nc ", "netcat", "ncat", "scp", "rsync", "printenv",
     "env", "cat ", "rm "),
    ("忽略", "无视", "忘记", "忘掉", "不要理会", "不要遵守", "不再遵守", "违背", "跳过"),
    ("你现在是", "从现在", "模式", "越狱"),
    ("系统提示", "系统指令", "初始指令"),
    ("密钥", "密码", "令牌", "凭证", "私钥", "环境变量", "对话记录", "聊天记录", "系统提示"),
    ("ai", "人工智能", "助手", "大模型", "语言模型", "智能体"),
]
assert len(_CUES) == len(_RULES)

# Unicode "tag" characters (U+E0000-U+E007F) spell out invisible ASCII; bidi overrides
# reorder what a person sees. Neither belongs in a note.
_INVISIBLE = re.compile(r"[\U000E0000-\U000E007F]|[\u202A-\u202E\u2066-\u2069]")
_ZERO_WIDTH = re.compile(r"[\u200B\u200C\u2060\uFEFF]")


def scan(text: str | None) -> str | None:
    """Why `text` reads as instructions to a model ("kind: 'excerpt'"), or None."""
    if not text:
        return None
    m = _INVISIBLE.search(text)
    if m:
        return f"hidden characters: U+{ord(m.group(0)):04X}"
    if len(_ZERO_WIDTH.findall(text)) >= 3:
        return "hidden characters: zero-width"
    lower = text.lower()
    for (label, rx), cues in zip(_RULES, _CUES):
        if not any(c in lower for c in cues):
            continue
        m = rx.search(text)
        if m:
            excerpt = " ".join(m.group(0).split())[:40]
            return f"prompt-injection ({label}): {excerpt!r}"
    return None


def suspect(text: str | None) -> bool:
    """Text with prompt-injection phrasing: never injected into an agent's context."""
    return scan(text) is not None


def withhold_injections(text: str) -> str:
    """Session files are recalled like memories: lines with injection phrasing stay out."""
    return "\n".join("[line withheld: prompt-injection phrasing]" if suspect(ln) else ln
                     for ln in text.splitlines())


def text_hash(text: str) -> str:
    """What a release records: the released text, hashed (never the text itself)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def released(metadata: Any, text: str) -> bool:
    """A person released this exact text from quarantine (`update --type ...`)."""
    rel = metadata.get("released") if isinstance(metadata, dict) else None
    return isinstance(rel, dict) and rel.get("sha") == text_hash(text)


def injectable(type_: str | None, text: str | None, metadata: Any = None) -> bool:
    """May this memory be put in an agent's prompt? Not quarantined, and its text scans
    clean or a person released exactly this text."""
    if type_ == "quarantine":
        return False
    return not suspect(text) or released(metadata, text or "")


def _with_flag_tag(tags: Any, on: bool) -> tuple[str, ...]:
    tags = tuple(t for t in (tags or ()) if t != "flagged")
    return tags + ("flagged",) if on else tags


def quarantine_item(item: dict[str, Any]) -> dict[str, Any]:
    """A prepared write (remember, import, MCP, extract) whose text or summary scans as
    flagged is stored as type `quarantine`, with the reason and the type it asked for
    in metadata (flagged, flagged_type) and the tag `flagged`. An incoming `released`
    marker is dropped: only `update --type` by a person releases."""
    if item.get("type") == "quarantine":
        return item
    flag = scan(item.get("text")) or scan(item.get("summary"))
    if not flag:
        return item
    meta = {k: v for k, v in (item.get("metadata") or {}).items() if k != "released"}
    meta.update(flagged=flag, flagged_type=item.get("type"))
    return {**item, "type": "quarantine", "metadata": meta, "tags": _with_flag_tag(item.get("tags"), True)}


def on_update(old_type: str, old_meta: dict[str, Any], tags: Any, text: str, type_given: str | None, *,
              op: str, who: str, when: str) -> tuple[str, dict[str, Any], tuple[str, ...]]:
    """(type, metadata, tags) after `update`. Giving a type other than quarantine to a
    quarantined memory, or to flagged text, is a person's release: the flag goes and
    metadata.released records who, when and the text's hash (the readers inject that
    exact text again). Otherwise flagged text that was not released is quarantined."""
    meta = dict(old_meta or {})
    if type_given and type_given != "quarantine" and op == "update" and (old_type == "quarantine" or suspect(text)):
        meta.pop("flagged", None)
        meta.pop("flagged_type", None)
        meta.pop("released", None)
        if suspect(text):
            meta["released"] = {"by": who, "at": when, "sha": text_hash(text)}
        return type_given, meta, _with_flag_tag(tags, False)
    new_type = type_given or old_type
    flag = scan(text)
    if flag and new_type != "quarantine" and not released(meta, text):
        meta.update(flagged=flag, flagged_type=new_type)
        return "quarantine", meta, _with_flag_tag(tags, True)
    return new_type, meta, tuple(tags or ())
