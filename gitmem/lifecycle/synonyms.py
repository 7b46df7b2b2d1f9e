"""Words for one person, place, thing or act written several ways, read as one word before
dream compares two texts (gitmem.lifecycle.samefact.read).

Two paraphrases of one fact in two styles swap such words: "mum's cataract op" / "my mother's
operation", "the last train home leaves at 23:40" / "the final train home departs at 11.40
p.m.", 我妈 / 老妈 / 母亲, 这次 / 这回. Read as written, the swapped stretch looks like another
entity (gitmem.lifecycle.alignment: "my son / my daughter plays the violin"). Each table maps a
word to the one it stands for; a word that may name two things is left out (爱人: either
spouse, 太太: 王太太 is Mrs Wang, 媳妇: 儿媳妇, 哥哥: X哥 is a short name, "other half": a
husband or a wife, "coming": a guest or a date).

The closed kinds that tell two facts apart (whose, where, when) are gitmem.lifecycle.kinds'."""

from __future__ import annotations

import re

# A short form and its name (lower case): "Bob" and "Robert" are one person.
NICKNAMES = {"bob": "robert", "rob": "robert", "bobby": "robert", "bill": "william", "will": "william",
             "liz": "elizabeth", "beth": "elizabeth", "kate": "katherine", "katie": "katherine",
             "jim": "james", "jimmy": "james", "mike": "michael", "tom": "thomas", "tony": "anthony",
             "dave": "david", "dan": "daniel", "sam": "samuel", "alex": "alexander", "chris": "christopher",
             "matt": "matthew", "nick": "nicholas", "ben": "benjamin", "joe": "joseph", "jen": "jennifer",
             "jenny": "jennifer", "pat": "patricia", "sue": "susan", "steve": "steven", "rick": "richard",
             "dick": "richard", "ed": "edward", "ted": "edward", "andy": "andrew", "pete": "peter"}

# Chinese, replaced as they stand, the longest first (出生 / 生日: "born on <date>" and
# "birthday is <date>" state one fact)
ZH_SAME = {"父母": "爸妈", "地下车库": "车库", "地库": "车库", "洗手间": "卫生间", "厕所": "卫生间", "本学期": "这学期",
           "老妈": "妈", "妈妈": "妈", "母亲": "妈", "老爸": "爸", "爸爸": "爸", "父亲": "爸", "丈夫": "老公",
           "我先生": "我老公", "妻子": "老婆", "闺女": "女儿", "姥姥": "外婆", "姥爷": "外公", "这回": "这次",
           "上回": "上次", "下回": "下次", "那回": "那次", "本周": "这周", "本月": "这个月", "饭堂": "食堂",
           "开餐": "开饭", "会议": "会", "出生": "生日", "阿姨": "姨",
           "早上": "上午", "年底": "年终", "合计": "一共", "总共": "一共", "返程": "回程"}

# English, whole words of lower-case text: people, rooms and things
EN_SAME = {**dict.fromkeys(("mum", "mom", "mam", "mummy", "mommy"), "mother"), "dad": "father", "daddy": "father",
           "hubby": "husband", "missus": "wife", **dict.fromkeys(("gran", "nan", "grandma", "granny"), "grandmother"),
           **dict.fromkeys(("grandad", "granddad", "grandpa"), "grandfather"),
           **dict.fromkeys(("lounge", "sitting room", "sitting-room", "living-room", "front room"), "living room"),
           "session": "meeting", "xmas": "christmas", "telly": "tv", "television": "tv", "cab": "taxi",
           "spuds": "potatoes", "sparky": "electrician", "apt": "flat", "apartment": "flat",
           "family doctor": "gp", "tenancy agreement": "lease", "house insurance": "home insurance",
           "op": "operation", "jab": "vaccination", "vaccine": "vaccination", "injection": "vaccination",
           "loo": "toilet", "wc": "toilet", **dict.fromkeys(("fly", "flying", "flies"), "flight"),
           **dict.fromkeys(("annually", "annual", "yearly", "per year", "per annum"), "a year")}

# ... and acts and their time: the same predicate said another way (not its opposite:
# "opens" / "closes" at eight are two facts)
EN_ACTS = {**dict.fromkeys(("departs", "depart", "goes"), "leaves"), "final": "last",
           **dict.fromkeys(("runs out", "expires", "expiry", "finishes"), "ends"), "expired": "ended", "ran out": "ended",
           **dict.fromkeys(("begins", "kicks off", "commences"), "starts"),
           "shuts": "closes", "shut": "closed", "in charge of": "running", "is being run by": "is run by",
           **dict.fromkeys(("entered", "registered", "enrolled"), "signed up")}

_EN = {**EN_SAME, **EN_ACTS}
_EN_WORDS = re.compile(r"\b(?:" + "|".join(re.escape(w) for w in sorted(_EN, key=len, reverse=True)) + r")\b")


# After a value (blanked as \x00 by gitmem.lifecycle.values), one word for "from" and one for
# "before": 下午两点以后 / 14点起 / 14:00后 入场; 两点前 stays another time.
_ZH_FROM = re.compile("\x00\\s*(?:以后|之后|起|开始|后)")
_ZH_UNTIL = re.compile("\x00\\s*(?:以前|之前|前)")


def one_word(text: str, acronyms: frozenset[str] = frozenset()) -> str:
    """Lower-case `text` with each word of ZH_SAME, EN_SAME and EN_ACTS written as the one it
    stands for, but for `acronyms` (words the text wrote in capitals, lower-cased: "CAB
    training" is the Citizens Advice Bureau's, no taxi's)."""
    for x, y in ZH_SAME.items():
        text = text.replace(x, y)
    text = _ZH_FROM.sub("\x00后", _ZH_UNTIL.sub("\x00前", text))
    return _EN_WORDS.sub(lambda m: m[0] if m[0] in acronyms else _EN[m[0]], text)


def acronyms(text: str) -> frozenset[str]:
    """The words `text` writes in capitals (two letters or more), lower-cased."""
    return frozenset(w.lower() for w in _CAPITALS.findall(text))


_CAPITALS = re.compile(r"\b[A-Z]{2,}\b")

