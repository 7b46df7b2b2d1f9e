"""The extraction rules: which sentences of a transcript are durable statements
(explicit requests to remember, preferences, decisions, facts about the project or the
person), their type and importance, and prompt-injection phrasing. Pure: no I/O.

English and Chinese; the patterns compile on first use."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import Any, Iterable

from gitmem.agents.transcripts import Turn
from gitmem.policy.injection import scan

# Types that belong to the person rather than to one code project: written to `main`
# (seen from every project) unless the caller names a scope.
PERSONAL = "person"
PROJECT = "project"


class _Rule:
    """A case-insensitive pattern compiled on first use: the prompt hook imports this
    module but never runs the rules, and compiling them all costs ~40 ms."""

    def __init__(self, pattern: str):
        self.pattern = pattern
        self._rx: re.Pattern[str] | None = None

    def __getattr__(self, name: str) -> Any:
        if self._rx is None:
            self._rx = re.compile(self.pattern, re.IGNORECASE)
        return getattr(self._rx, name)


def _rx(p: str) -> _Rule:
    return _Rule(p)


# An explicit request: "remember ..." at the start of the sentence (after fillers), or
# "please remember"/"记住" anywhere ("I can't remember the flag" and "我记得" are not requests).
_EXPLICIT_PREFIX = _rx(
    r"^(?:(?:ok(?:ay)?|so|also|and|hey|btw|oh|one more thing)[,\s]+)*(?:please\s+|pls\s+)?"
    r"(?:can you\s+|could you\s+)?"
    r"(?:remember|memori[sz]e|keep in mind|note|don'?t forget|do not forget|make a note)"
    r"(?:\s+(?:that|this|of this))?\s*[:,：，\-–—]?\s*"
    r"|^(?:请|你要|要|麻烦)?(?:记住|记得|记下|别忘了|不要忘记)(?:一下)?[：:，,。\s]*")
PLEASE_REMEMBER = _rx(r"\b(?:please|pls)\s+(?:remember|note|keep in mind)\b|\bfor future reference\b"
                      r"|(?<!我)(?:记住|记下|别忘了)")
# "Always/never <do something>" at the start: an order ("Never had a chance" is not).
_ORDER = (r"^\s*(?:please\s+)?(?:always|never)\s+(?!(?:had|have|has|been|was|were|here|there|mind|again|"
          r"ever|seen|heard|knew|thought|the|a|an|so|too|fails?)\b)\w")
# A standing instruction: holds from now on.
STANDING = _rx(r"\bfrom now on\b|\bgoing forward\b|^\s*in (?:the )?future\b|\bfrom here on\b|"
               r"\bremember to\b|" + _ORDER + r"|以后|今后|从现在开始|往后|"
               r"^(?:请)?(?:总是|永远不要|一律)")
PREFERENCE = _rx(
    r"\bI\s+(?:really\s+|do\s+|much\s+|strongly\s+|generally\s+|personally\s+)?"
    r"(?:like|love|prefer|enjoy|hate|dislike|don'?t like|do not like|can'?t stand|am a fan of)\b"
    # "I like this approach" reacts to the moment; it states no lasting taste.
    r"(?!\s+(?:this|that|it|these|those|them|your|yours|the (?:idea|approach|way|change|fix)|how|what)\b)"
    r"|\bI'?m a (?:big )?fan of\b|\bmy\s+favou?rite\b|\bI(?:'d| would)\s+rather\b"
    r"|\bI\s+(?:always|usually|never|tend to)\s+(?:use|write|prefer|want|work)\b"
    r"|" + _ORDER +
    r"|我(?:很|非常|比较|更|最|一直)?(?:喜欢|偏好|偏爱|爱用|习惯|讨厌|不喜欢)|我更倾向|我倾向于")
DECISION = _rx(
    r"\bwe(?:'ve|\s+have)?\s+(?:decided|chose|chosen|agreed|settled on|picked|opted)\b"
    r"|\b(?:we(?:'ll|\s+will)|let'?s)\s+(?:go with|stick with|switch to|adopt|standardi[sz]e on)\b"
    r"|\bthe decision is\b|\b(?:decided|decision) to\b|\barchitecture decision\b"
    r"|\bwe(?:'re|\s+are)\s+(?:going with|switching to|moving to|standardi[sz]ing on)\b"
    r"|我们?(?:已经)?决定|决定(?:用|采用|使用|改用)|选定了?|统一(?:用|使用|采用)|架构(?:上|决策)"
    r"|我们(?:就)?(?:定了|确定(?:了)?(?:用|采用|使用))|最终(?:方案|决定)")
PERSON_FACT = _rx(
    r"\bmy name is\b|\bI(?:'m| am)\s+(?:a|an)\s+(?!bit\b|little\b|lot\b|fan\b)\w+"
    r"|\bI\s+work\s+(?:at|for|as|in)\b|\bI\s+live\s+in\b|\bI(?:'m| am)\s+based in\b"
    r"|\bmy\s+(?:timezone|time zone|role|team|job|title|pronouns|birthday|native language)\b"
    r"|我叫|我的名字|我是(?!说|不是|想|在问|问)\S|我在\S{1,12}(?:工作|上班)|我住在|我的时区")
PROJECT_FACT = _rx(
    r"\b(?:this|the|our)\s+(?:project|repo|repository|codebase|app|application|service|api|backend|"
    r"frontend|stack|database|db|ci|build|deploy(?:ment)?s?|release|server|cluster)\s+"
    r"(?:is|are|uses?|runs?|lives?|needs?|requires?|has|targets?|depends on|must)\b"
    r"|\bwe\s+(?:use|deploy|run|host|target|ship|release|support|store|keep)\b|\bwe(?:'re| are)\s+using\b"
    r"|\bour\s+(?:\w+\s+)?(?:project|repo|app|service|api|stack|database|db|server|team|company|product|"
    r"codebase|ci|pipeline|cluster|deploy\w*|release\w*|backend|frontend|website|site|domain|customers?|"
    r"users?|tests?|docs|infra\w*)\s+(?:is|are|uses?|runs? on|lives? in)\b"
    r"|(?:这个|本|我们的?)项目(?:用|使用|采用|是|基于|需要|部署|要求)|我们(?:用|使用|部署|采用)"
    r"|我们的\S{1,12}(?:是|用的是|使用|跑在|部署在|放在)"
    r"|(?:项目|仓库|代码库|服务|后端|前端|数据库)(?:用的是|使用|采用|基于|部署在|跑在)")

GREETING = _rx(
    r"^(?:hi|hello|hey|thanks|thank you|thx|ty|ok|okay|cool|great|nice|awesome|perfect|good "
    r"(?:morning|afternoon|evening|night)|bye|goodbye|yes|no|sure|yep|nope|lgtm)\b[\s!.,~]*"
    r"(?:there|again|so much|a lot|all|everyone)?[\s!.,~:)]*$"
    r"|^(?:你好|您好|嗨|谢谢|多谢|感谢|好的|好|嗯|行|可以|再见|早上好|晚上好|辛苦了)[啊呀吧哈!！。.,，~\s]*$")
DEBUG = _rx(
    r"\b(?:error|errors|exception|traceback|stack ?trace|segfault|crash(?:es|ed|ing)?|fails?|failed|failing|"
    r"broken|bug|buggy|debug(?:ging)?|doesn'?t work|does not work|not working|won'?t (?:start|run|build)|"
    r"line \d+|\w+Error|undefined|null ?pointer|stderr|timed? ?out|warning|flaky)\b"
    r"|报错|错误|异常|失败|崩溃|调试|不工作|跑不通|出错|有问题")
QUESTION_START = _rx(
    r"^(?:what|why|how|when|where|which|who|whose|is|are|was|were|do|does|did|can|could|would|will|"
    r"should|shall|may|have|has|any idea)\b|^(?:为什么|怎么|如何|什么|哪|是不是|能不能|可不可以|有没有)")
COMMAND = _rx(
    r"^(?:please\s+|pls\s+|now\s+|ok(?:ay)?[,\s]+|then\s+|next[,\s]+)?"
    r"(?:run|rerun|fix|show|open|list|write|create|make|delete|remove|add|check|try|install|build|"
    r"deploy|commit|push|pull|merge|explain|refactor|rename|update|change|test|look at|give me|tell me|"
    r"help me|let me|print|read|find|search|grep|implement|generate|revert|undo|continue|go ahead|"
    r"do it|start|stop|restart|summari[sz]e|translate|review|edit|move|copy|paste|format|lint)\b"
    r"|^(?:请|麻烦)?(?:帮我|帮忙|运行|执行|修复|修一下|看看|看一下|打开|写一个|写个|生成|解释|给我|删除|继续|重试)")
TRANSIENT = _rx(
    r"\b(?:right now|for now|at the moment|currently|today|tonight|tomorrow|yesterday|this time|"
    r"this session|temporarily|for this (?:task|file|one|run|pr)|in this (?:file|function|pr|commit)|"
    r"just this once|for the moment|later)\b|暂时|这次|这一次|目前|今天|明天|昨天|现在先|先这样|临时|再说|回头")
HEDGED = _rx(r"\b(?:might|maybe|perhaps|probably|possibly|not sure|I think|I guess|wondering)\b"
              r"|可能|也许|或许|大概|不确定")
_CODE_FENCE = re.compile(r"```.*?(?:```|\Z)", re.DOTALL)
_INLINE_TAG = re.compile(r"<(system-reminder|command-[\w-]+|local-command-[\w-]+|environment_context|"
                         r"user_instructions|user-prompt-submit-hook|INSTRUCTIONS|"
                         r"qwen:user-prompt-submit-context|gitmem-[\w-]+)(?:\s[^>]*)?>.*?(?:</\1>|\Z)", re.DOTALL)
_LOGLIKE = re.compile(r"^\s*(?:Traceback|File \"|at [\w.$]+\(|\$ |>>> |[-+]{3} |@@ |\d{2}:\d{2}:\d{2}[ ,.])")
_SPLIT = re.compile(r"(?<=[.!?。！？；;])\s+|(?<=[。！？；])|\n+")
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")


@dataclass
class Statement:
    text: str
    type: str
    importance: int
    about: str  # PERSONAL or PROJECT
    reason: str  # which rule kept it
    role: str = "user"
    line: int = 0
    flagged: str | None = None  # why it was quarantined

    def to_dict(self) -> dict[str, Any]:
        d = {"text": self.text, "type": self.type, "importance": self.importance, "about": self.about,
             "reason": self.reason, "role": self.role, "line": self.line}
        if self.flagged:
            d["flagged"] = self.flagged
        return d


def sentences(text: str) -> list[str]:
    """Split a turn into candidate sentences, dropping code, logs and tool tags."""
    text = _INLINE_TAG.sub(" ", _CODE_FENCE.sub("\n", text))
    out = []
    for line in text.splitlines():
        if _LOGLIKE.match(line):
            continue
        for s in _SPLIT.split(line):
            s = s.strip().strip("*_`").strip()
            if s:
                out.append(s)
    return out


def _long_enough(s: str) -> bool:
    cjk = len(_CJK.findall(s))
    words = len(re.findall(r"[A-Za-z0-9]+", s))
    return cjk >= 4 or words >= 3 or (cjk >= 2 and words >= 1)


def classify(sentence: str, max_chars: int = 500) -> Statement | None:
    """Keep a durable statement (typed) or drop it (None). Pure."""
    s = " ".join(sentence.split())
    if not s or GREETING.match(s):
        return None
    imperative = bool(_EXPLICIT_PREFIX.match(s) or PLEASE_REMEMBER.search(s))
    standing = bool(STANDING.search(s))
    explicit = imperative or standing
    question = s.endswith(("?", "？")) or bool(QUESTION_START.match(s))
    if not imperative:
        if len(s) > max_chars or not _long_enough(s) or question or TRANSIENT.search(s) or HEDGED.search(s):
            return None
        if not standing and DEBUG.search(s):
            return None  # "from now on, log errors as JSON" is an instruction, not chatter
    elif question and QUESTION_START.match(s):
        return None  # "do you remember what we did?" asks; it does not tell
    body = _EXPLICIT_PREFIX.sub("", s).strip() if imperative else s
    body = body.strip(" :：,，-").strip()
    if body.lower().startswith("to ") or not body:
        body = s  # "remember to run the linter" reads best whole
    if not _long_enough(body) or len(body) > max(max_chars, 2000):
        return None
    if DECISION.search(body):
        st = Statement(body, "decision", 7, PROJECT, "decision")
    elif PREFERENCE.search(body):
        st = Statement(body, "preference", 6, PERSONAL, "preference")
    elif PERSON_FACT.search(body):
        st = Statement(body, "fact", 5, PERSONAL, "fact about the person")
    elif PROJECT_FACT.search(body):
        st = Statement(body, "fact", 5, PROJECT, "fact about the project")
    elif explicit and STANDING.search(s):
        st = Statement(body, "preference", 7, PERSONAL, "standing instruction")
    elif explicit:
        st = Statement(body, "fact", 6, PERSONAL, "asked to remember")
    else:
        return None
    if explicit:
        st.importance = max(st.importance, 7)
        st.reason = "asked to remember: " + st.reason if not st.reason.startswith("asked") else st.reason
        if st.about == PROJECT and st.type == "fact" and not PROJECT_FACT.search(body):
            st.about = PERSONAL
    flag = scan(s)
    if flag:
        st.flagged = flag
        st.type, st.importance = "quarantine", 1
    return st


def statements_from_turns(turns: Iterable[Turn], roles: Iterable[str] = ("user",),
                          max_chars: int = 500) -> list[Statement]:
    """Durable statements of the given roles' turns, in order, without repeats."""
    roles = set(roles)
    out: list[Statement] = []
    seen: set[str] = set()
    for t in turns:
        if t.role not in roles:
            continue
        for s in sentences(t.text):
            st = classify(s, max_chars)
            if st is None:
                continue
            k = normalise(st.text)
            if k in seen:
                continue
            seen.add(k)
            st.role, st.line = t.role, t.line
            out.append(st)
    return out


def normalise(text: str) -> str:
    """The dedup key: NFKC, case-folded, punctuation and spacing removed."""
    t = unicodedata.normalize("NFKC", text).casefold()
    t = "".join(" " if unicodedata.category(c)[0] in "PSZC" else c for c in t)
    return " ".join(t.split())
