"""The settings' schema: every section and key gitmem reads, each with its kind,
default, allowed values, environment variable and what it does (`SCHEMA`), and the
parsing of one value against its key. `gitmem.core.config` reads files and the
environment against it and builds the frozen Config."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any, Mapping

from gitmem.core.errors import UsageError

DEFAULT_TYPES = ("preference", "decision", "fact", "todo", "lesson", "reference", "note")
DEFAULT_MODEL = "sentence-transformers/all-MiniLM-L6-v2"

_TRUE = ("1", "true", "yes", "on")
_FALSE = ("0", "false", "no", "off")


class Invalid(Exception):
    """A value the schema does not allow; carries what is allowed."""

    def __init__(self, expected: str, detail: str | None = None):
        super().__init__(expected)
        self.expected, self.detail = expected, detail


_KINDS = {
    "int": "an integer", "number": "a number", "bool": "true or false", "str": "a string",
    "scope": "a scope (main, channel/<name> or project/<key>)",
    "str_list": "a list of strings", "regex_list": "a list of regular expressions",
    "number_table": "a table of model id = number",
    "number_or_table": "a number or a table of model id = number",
}


@dataclass(frozen=True)
class Key:
    """One setting: its kind (a key of _KINDS), default, allowed range or choices, and
    what it does."""

    kind: str
    default: Any
    doc: str
    lo: float | None = None  # lowest allowed value (inclusive unless lo_open)
    hi: float | None = None  # highest allowed value (inclusive)
    lo_open: bool = False
    choices: tuple[str, ...] = ()
    non_empty: bool = False  # lists: at least one item, none empty
    env: str | None = None  # the GITMEM_* variable that sets it

    def expected(self) -> str:
        """What the key accepts, in words (for error messages)."""
        if self.choices:
            return "one of " + ", ".join(f'"{c}"' for c in self.choices)
        text = _KINDS[self.kind]
        if self.non_empty:
            text = "a non-empty " + text[2:]
        if self.lo is not None and self.hi is not None:
            return f"{text} from {_num(self.lo)} to {_num(self.hi)}"
        if self.lo is not None:
            return f"{text} {'>' if self.lo_open else '>='} {_num(self.lo)}"
        return f"{text} <= {_num(self.hi)}" if self.hi is not None else text

    def check(self, value: Any) -> Any:
        """The value as Config keeps it, or Invalid."""
        k = self.kind
        if k == "number_or_table":
            return self._table(value) if isinstance(value, dict) else self._number(value)
        if k == "number_table":
            return self._table(value)
        if k in ("int", "number"):
            return self._number(value)
        if k == "bool" and isinstance(value, bool):
            return value
        if k in ("str", "scope") and isinstance(value, str):
            if self.choices and value not in self.choices:
                raise Invalid(self.expected())
            if k == "scope":
                _check_scope(value, self.expected())
            return value
        if k.endswith("_list") and isinstance(value, list) and all(isinstance(v, str) for v in value) \
                and not (self.non_empty and not all(value or [""])):
            for v in value if k == "regex_list" else ():
                try:
                    re.compile(v)
                except re.error as e:
                    raise Invalid(self.expected(), f"{show(v)}: {e}") from None
            return tuple(value)  # frozen: a Config is never mutated
        raise Invalid(self.expected())

    def _number(self, value: Any) -> float | int:
        """A number (an int for kind int) within the range."""
        if isinstance(value, bool) or not isinstance(value, int if self.kind == "int" else (int, float)):
            raise Invalid(self.expected())
        if isinstance(value, float) and not math.isfinite(value):
            raise Invalid(self.expected(), "not a finite number")
        low_ok = self.lo is None or (value > self.lo if self.lo_open else value >= self.lo)
        if not low_ok or (self.hi is not None and value > self.hi):
            raise Invalid(self.expected())
        return value

    def _table(self, value: Any) -> dict[str, float | int]:
        if not isinstance(value, dict):
            raise Invalid(self.expected())
        out = {}
        for name, v in value.items():
            try:
                out[name] = self._number(v)
            except Invalid as e:
                raise Invalid(self.expected(), f"{show(name)} = {show(v)}") from e
        return out  # a plain dict, not a proxy: readers test isinstance(value, dict)

    def parse_env(self, text: str) -> Any:
        """An environment variable's text as this key's type (checked afterwards)."""
        low = text.strip().lower()
        if self.kind == "bool":
            if low in _TRUE or low in _FALSE:
                return low in _TRUE
            raise Invalid("true or false (1/0, yes/no, on/off)")
        try:
            return {"int": int, "number": float}.get(self.kind, lambda _: text)(low)
        except ValueError:
            raise Invalid(self.expected()) from None


@dataclass(frozen=True)
class Section:
    """A [section]: its known keys, or (free-form) any key with values of one kind."""

    doc: str
    keys: Mapping[str, Key] = field(default_factory=dict)
    any_key: Key | None = None  # free-form tables such as [links]


# Every section and key gitmem reads. Defaults of None mean "decided by the code at
# use" (e.g. the embedding model's own threshold); Config.get then returns the
# caller's default.
SCHEMA: dict[str, Section] = {
    "store": Section("the store itself", {
        "max_text_bytes": Key("int", 64 * 1024, "largest memory text, in bytes", lo=1,
                              env="GITMEM_MAX_TEXT_BYTES"),
        "fsync": Key("bool", True, "fsync every write (packs, refs)", env="GITMEM_FSYNC"),
        "gc_every": Key("int", 200, "run `git gc --auto` about once per this many commits (0: never)", lo=0),
        "default_scope": Key("scope", "main", "where writes go outside a linked repo",  # = model.PERSON_SCOPE
                             env="GITMEM_DEFAULT_SCOPE"),
        "types": Key("str_list", DEFAULT_TYPES, "the memory types a write may use", non_empty=True),
    }),
    "identity": Section("the commit author", {
        "name": Key("str", "", "author name (default: git's user.name)", env="GITMEM_NAME"),
        "email": Key("str", "", "author email (default: git's user.email)", env="GITMEM_EMAIL"),
    }),
    "redact": Section("secret redaction at write time", {
        "allow": Key("regex_list", (), "regexes of strings never redacted (false positives)"),
        "entropy": Key("bool", True, "also redact long high-entropy strings"),
    }),
    "embed": Section("the embedding model", {
        "model": Key("str", DEFAULT_MODEL, 'fastembed model id ("none": BM25 only)', env="GITMEM_EMBED_MODEL"),
        "path": Key("str", None, "a local model folder", env="GITMEM_EMBED_PATH"),
        "threads": Key("int", None, "onnxruntime threads (default: fastembed's)", lo=1),
        "retry_after": Key("number", 6 * 3600, "seconds a failed model load is remembered", lo=0),
        "download_timeout": Key("number", 20.0, "seconds one model download may take", lo=0, lo_open=True),
    }),
    "recall": Section("ranking (BENCHMARKS.md, Recall settings)", {
        "fusion": Key("str", "linear", "how BM25 and vectors combine", choices=("linear", "rrf")),
        "norm": Key("str", "minmax", "linear fusion: scale each ranking by its range (minmax), its spread "
                    "(std: (s - lo) / sd) or its z-score (z)", choices=("minmax", "std", "z")),
        "bm25_confidence": Key("number", 0.25, "BM25's side is scaled down when its top hit scores less than "
                               "this share of the query's idf mass (0: off)", lo=0, hi=1),
        "rrf_k": Key("number", 60, "RRF constant: 1 / (rrf_k + rank)", lo=0),
        "w_bm25": Key("number", 1.0, "weight of the BM25 side in the fusion", lo=0),
        "w_vector": Key("number", 0.6, "weight of the vector side in the fusion", lo=0),
        "candidates": Key("int", 100, "depth taken from each ranking before fusion", lo=1),
        "bm25_k1": Key("number", 1.2, "BM25 term saturation", lo=0),
        "bm25_b": Key("number", 0.5, "BM25 length normalisation", lo=0, hi=1),
        "mmr": Key("bool", False, "re-rank for diversity (maximal marginal relevance)"),
        "mmr_lambda": Key("number", 0.7, "relevance vs diversity in MMR", lo=0, hi=1),
        "recency_weight": Key("number", 0.1, "share of the score subject to recency decay", lo=0, hi=1),
        "half_life_days": Key("number", 30.0, "age at which a memory keeps half that share", lo=0, lo_open=True),
        "importance_weight": Key("number", 0.1, "importance boost", lo=0),
        "neighbour_weight": Key("number", 0.5, "share of a hit's score given to the memory beside it "
                                "(same session or import batch, next chunk of a journal)", lo=0, hi=1),
        "neighbours": Key("str", "both", "which neighbours share: the next one or both",
                          choices=("next", "both")),
        "neighbour_lenders": Key("int", 0, "only the best this many candidates lend (0: every one)", lo=0),
        "date_weight": Key("number", 0.5, "boost (share of the top score) for memories created in a date "
                           "or period the query names", lo=0),
        "vector_weights": Key("number_table", None, "w_vector per model id (a model's own fusion weight)", lo=0),
        "cjk_vector_weights": Key("number_table", None, "per model id: share of w_vector kept for a query "
                                  "in a CJK script (default 0 for English-only models, 1 otherwise)", lo=0, hi=1),
        "vector_floors": Key("number_table", None, "cosine floor per model id for vector-only hits", lo=-1, hi=1),
        "prefer_newer": Key("bool", True, "a newer hit that probably updates an older hit above it (same "
                            "subject, a change cue; or no cue, a month or more later) moves just above it "
                            "(BENCHMARKS.md, Issue 22)"),
        "prompt_min_score": Key("number", 0.2, "prompt output (recall --format prompt, the prompt hook, MCP "
                                "search) carries only hits scoring at least this (BENCHMARKS.md, Prompt "
                                "relevance floor)", lo=0),
        "min_relevance": Key("number", 0.15, "hits less relevant than this (gitmem.recall.relevance: the "
                             "estimated probability that a hit is relevant) are left out everywhere; 0 keeps "
                             "every hit (BENCHMARKS.md, Issue 19)", lo=0, hi=1),
        "prompt_min_relevance": Key("number", 0.375, "prompt output (the prompt hook, recall --format prompt, "
                                    "MCP search) carries only hits at least this relevant (BENCHMARKS.md, "
                                    "Issue 19)", lo=0, hi=1),
    }),
    "index": Section("the derived DuckDB index", {
        "chunk_lines": Key("int", 20, "a chunk of a long file spans at most this many lines", lo=1),
        "chunk_chars": Key("int", 1500, "... and at most about this many characters", lo=1),
        "lock_timeout": Key("number", 120.0, "seconds to wait for another process building the index", lo=0),
        "open_retry": Key("number", 10.0, "seconds to retry a DuckDB open refused by a lock", lo=0),
        "catalog": Key("bool", True, "context, status, list and scopes read the catalog of memories in the "
                       "index file instead of parsing every memory from git", env="GITMEM_CATALOG"),
    }),
    "dream": Section("consolidation and the memory weight", {
        # No single default: 0.88 for real models, fake_near_threshold for the test
        # embedder; dream decides per model, so a set value must win over both.
        "near_threshold": Key("number_or_table", None,
                              "cosine above which two memories are near duplicates (default 0.88)", lo=-1, hi=1),
        "fake_near_threshold": Key("number", 0.8, "the same for the hashed test embedder", lo=-1, hi=1),
        "anchored_margin": Key("number", 0.25, "near duplicates sharing a date, number or name and "
                               "differing in none merge this much below near_threshold", lo=0, hi=1),
        "cjk_margin": Key("number", 0.45, "two Chinese near duplicates sharing a value and a word merge this "
                          "much below near_threshold (an English model scores Chinese text poorly)", lo=0, hi=1),
        "update_margin": Key("number", 0.33, "a later memory with a change cue this much below "
                             "near_threshold supersedes an earlier one", lo=0, hi=2),
        "strong_cue_margin": Key("number", 0.1, "... and this much further below when its cue says a change "
                                 "alone (moved, sold, 换成; not now, new) and the two share a word", lo=0, hi=2),
        "min_hours": Key("number", 24, "hours between dreams of a scope", lo=0),
        "min_sessions": Key("int", 5, "sessions between dreams of a scope", lo=0),
        "archive_below": Key("number", 2.0, "weight under which a memory is archived"),
        "protect_importance": Key("int", 8, "importance at which a memory is never archived"),
        "access_cap": Key("int", 10, "recalls beyond this many add no weight", lo=0),
        "access_weight": Key("number", 0.5, "weight per recall, up to the cap", lo=0),
        "idle_weight": Key("number", 0.3, "weight lost per idle day", lo=0),
        "lock_stale_seconds": Key("number", 3600, "age at which a dream lock is taken over", lo=0, lo_open=True),
        "memory_md_lines": Key("int", 200, "MEMORY.md: at most this many lines", lo=1),
        "memory_md_bytes": Key("int", 25 * 1024, "MEMORY.md: at most this many bytes", lo=1),
        "memory_md_line_chars": Key("int", 150, "MEMORY.md: characters per line", lo=1),
    }),
    "capture": Section("extract, flush and the context bundle", {
        "context_hours": Key("number", 24, "`context`: window for new memories and journal lines", lo=0),
        "context_budget": Key("int", 1500, "`context`: tokens", lo=1),
        "context_preferences": Key("int", 10, "`context`: top preferences always offered first", lo=0),
        "context_top": Key("int", 10, "`context`: top memories by weight", lo=0),
        "max_statement_chars": Key("int", 500, "`extract`: longest statement kept", lo=1),
        "max_bytes_per_run": Key("int", 4 << 20, "`extract`: transcript bytes read per run", lo=1),
        "endpoint": Key("str", "", "OpenAI-compatible chat endpoint for `extract` (optional)"),
        "endpoint_model": Key("str", "", "model asked at the endpoint (default gpt-4o-mini)"),
        "endpoint_key_env": Key("str", "OPENAI_API_KEY", "environment variable holding the endpoint's key"),
        "endpoint_timeout": Key("number", 8.0, "seconds an endpoint call may take", lo=0, lo_open=True),
    }),
    "hooks": Section("agent and git hooks", {
        "budget": Key("number", 2.0, "seconds a hook may hold up the agent", lo=0, lo_open=True,
                      env="GITMEM_HOOK_BUDGET"),
        "recall_k": Key("int", 5, "recalled memories offered before a prompt", lo=1),
        "max_results": Key("int", 3, "at most this many recalled memories go into a prompt (the prompt "
                           "hook, recall --format prompt, MCP search without k)", lo=1),
        "prompt_budget": Key("int", 800, "tokens offered before a prompt", lo=1),
        "prompt_preferences": Key("int", 5, "top preferences offered before every prompt", lo=0),
        "prompt_changes": Key("int", 8, "other sessions' writes shown before a prompt", lo=0),
        "read_assistant": Key("bool", False, "extract from assistant turns too"),
        "warm_index": Key("bool", True, "catch the index up in the background after a hook wrote"),
        "autostart_serve": Key("bool", True, "a prompt hook with no daemon starts `gitmem serve`"),
        "serve_idle_exit": Key("number", 1800.0, "seconds an autostarted daemon waits for requests", lo=0),
        "sync": Key("bool", False, "session start pulls and stop pushes every remote (`gitmem sync`)"),
    }),
    "serve": Section("`gitmem serve`, the warm daemon (README, serve)", {
        "autostart": Key("bool", False, "a command that finds no daemon starts one in the background "
                         "for the next call (the hooks have [hooks] autostart_serve)"),
        "idle_exit": Key("number", 1800.0, "seconds a daemon waits for a request before it exits (0: never; serve --idle-exit overrides)", lo=0),
    }),
    "mcp": Section("`gitmem mcp`, the MCP server", {
        "search_timeout_ms": Key("int", 2000, "memory_search spends at most about this long embedding new "
                                 "memories; beyond it, it answers by words (BM25) with a note while their "
                                 "vectors are embedded in the background", lo=0),
    }),
    "sync": Section("sync with git remotes", {
        "private": Key("str_list", (), "scopes that never leave this machine (`gitmem scopes private`)"),
        "retries": Key("int", 3, "fetch-merge-push rounds when someone pushed first", lo=1, hi=20),
        "timeout": Key("number", 120.0, "seconds one fetch or push may take", lo=0, lo_open=True),
    }),
    "links": Section("code repositories linked by `gitmem link`: root path = scope",
                     any_key=Key("scope", None, "the project scope of the repository at this path")),
}

# The defaults alone, section -> key -> value (None-defaulted keys left out).
DEFAULTS: dict[str, dict[str, Any]] = {
    name: {k: key.default for k, key in sec.keys.items() if key.default is not None}
    for name, sec in SCHEMA.items()
}

# GITMEM_* variable -> (section, key); the schema says how to parse it.
ENV_VARS: dict[str, tuple[str, str]] = {
    key.env: (name, k) for name, sec in SCHEMA.items() for k, key in sec.keys.items() if key.env
}


def _num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else str(x)


def show(value: Any, limit: int = 60) -> str:
    """A value as it would look in TOML, shortened for a one-line message."""
    import json

    try:
        text = json.dumps(value, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _check_scope(value: str, expected: str) -> None:
    from gitmem.core import model  # the one owner of scope syntax (loads yaml: only when set)

    try:
        model.check_scope(value)
    except UsageError:
        raise Invalid(expected) from None
