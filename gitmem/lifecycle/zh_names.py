"""Chinese names, which have no capitals: a person introduced by name (叫豆豆), by surname
(小张, 老李, 王总, 皇甫主任, 卢经理), by the last character of the given name (小雪, 东哥, 芸姐) or by the
given name alone (晓芸), each matched to the full name another text writes out (张伟,
欧阳雪, 陈晓东, 唐晓芸). gitmem.lifecycle.samefact reads them as names and takes a match,
beside a shared word, as evidence of one fact."""

from __future__ import annotations

import re
from functools import lru_cache

from gitmem.core.tokens import CJK_STOP_CHARS

# The commonest Chinese surnames, for the short forms of a name (小张, 老李, 王总).
ZH_SURNAMES = ("王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘蒋蔡余杜叶程苏魏吕"
               "丁任沈姚卢姜崔钟谭陆汪范金石廖贾夏韦方白邹孟熊秦邱江尹薛段雷侯龙史陶黎贺顾毛郝龚邵钱严武戴孔汤"
               # less common, and not a word after 小 / 老 or before 总 (not 常, 时, 文, 和...)
               "覃单易傅萧阎乔赖庞樊殷施洪翟颜倪俞葛伍聂邢岳庄辛祝涂祁舒耿詹苗凌靳甄裴鲍霍翁隋柯阮闵柴瞿戚滕邬臧"
               "褚娄窦卓岑蔺冼佟栾郜晏鄢谌鞠卞欧温牛季章鲁申尤毕焦柳齐梅莫管朴"
               "阚濮邝禤缪芮冉闫仝晁逯郦宓訾亓蒯厍郗阙佘隗昝扈谯")
_ZH_COMPOUND_SURNAMES = ("欧阳|司马|上官|诸葛|东方|皇甫|慕容|令狐|司徒|夏侯|"
                         # the rest of the classical two-character surnames that are no everyday word
                         "万俟|闻人|赫连|尉迟|公羊|澹台|公冶|宗政|濮阳|淳于|太叔|申屠|公孙|仲孙|轩辕|钟离|宇文|"
                         "鲜于|闾丘|司空|亓官|司寇|颛孙|端木|巫马|漆雕|壤驷|公良|拓跋|夹谷|宰父|谷梁|段干|东郭|"
                         "呼延|羊舌|微生|梁丘|左丘|南宫")
# Surnames that are in no everyday word: a surname of these (or a two-character one) and a
# given name of two characters, written in both texts, is one person (shared_full_name);
# 马上就 or 白色的 is no name, 阚晓岚 and 尉迟明远 are.
_ZH_DISTINCT = "阚濮邝禤缪芮冉闫仝晁逯郦宓訾亓蒯厍郗阙佘隗昝扈谯覃翟瞿邬栾郜鄢谌冼蔺岑窦褚臧滕"
# A surname before a title (皇甫主任, 卢经理, 王老师): the person, who may be 皇甫立新 elsewhere
# (titled_name_in; two texts that both say 王老师 address one person, they need not say one thing).
_TITLE_AFTER = "主任|经理|老师|医生|大夫|师傅|律师|教授|总监|科长|处长|局长|院长|校长|主管|老板"
SHORT_NAME = re.compile(rf"(?:小|老)([{ZH_SURNAMES}])(?![子们家客])"
                        rf"|([{ZH_SURNAMES}])总")
_TITLED = re.compile(rf"({_ZH_COMPOUND_SURNAMES}|[{ZH_SURNAMES}])(?:{_TITLE_AFTER})")
# A neighbour or an elder by surname and kin word (吴叔, 陈阿姨, 李伯伯): the person, by the
# surname and the kin word's short form (王阿姨 / 王姨 are one).
KIN_NAME = re.compile(rf"([{ZH_SURNAMES}])(叔叔|阿姨|伯伯|婶婶|奶奶|爷爷|叔|姨|伯|婶)")
_KIN_SHORT = {"叔叔": "叔", "阿姨": "姨", "伯伯": "伯", "婶婶": "婶"}


def kin_names(text: str) -> set[str]:
    """The people `text` names by surname and kin word, each as surname + short kin word."""
    return {m[1] + _KIN_SHORT.get(m[2], m[2]) for m in KIN_NAME.finditer(text)}


NAMED = re.compile(r"(?:名叫|叫做|叫)([\u3400-\u9fff]{2,3}?)(?=[，。,.;；、的！!\s]|$)")


# A person called by the last character of the given name: 小雪 / 阿雪 (欧阳雪), 东哥 (陈晓东),
# 芸姐 (唐晓芸). Not the everyday words of that shape: 小区, 小时, 阿姨, 表哥, 大姐...
_ZH_GIVEN_SHORT = re.compile(r"(?:小|阿)([\u4e00-\u9fff])|([\u4e00-\u9fff])(?:哥|姐)")
_NOT_GIVEN = {"小": set("区时孩学说心姐组吃米猫狗便票费号店事型朋伙儿数部份子们家卖麦品菜写提镇屋院声腿手")
              | set(ZH_SURNAMES), "阿": set("姨姐哥里拉根富胶公婆爸妈") | set(ZH_SURNAMES),
              "哥": set("大表堂小老亲师帅学二三四五"), "姐": set("大表堂小老亲师空学二三四五")}


@lru_cache(maxsize=65536)
def _given_shorts(text: str) -> frozenset[str]:
    out = set()
    for m in _ZH_GIVEN_SHORT.finditer(text):
        x, mark = (m[1], m[0][0]) if m[1] else (m[2], m[0][-1])
        if x not in _NOT_GIVEN[mark]:
            out.add(x)
    return frozenset(out)


def short_name_in(a: str, b: str) -> bool:
    """Whether a name of `a` by its last character (小雪, 东哥) is a full name in `b`: a
    surname (ZH_SURNAMES or a compound one) and a given name of one or two characters
    ending in that character (欧阳雪, 陈晓东)."""
    return any(re.search(rf"(?:{_ZH_COMPOUND_SURNAMES}|[{ZH_SURNAMES}])[\u4e00-\u9fff]?{re.escape(x)}", b)
               for x in _given_shorts(a))


# A surname and a two-character given name (唐晓芸): its given name alone is the person too;
# not a surname and a title (王老师, 李阿姨, 张师傅), which many people share.
_ZH_FULL_NAME = re.compile(rf"(?:{_ZH_COMPOUND_SURNAMES}|[{ZH_SURNAMES}])([\u4e00-\u9fff]{{2}})")
_ZH_TITLES = frozenset("老师 阿姨 师傅 医生 大夫 先生 女士 小姐 经理 主任 总监 老板 同学 护士 叔叔 阿姨 大爷 大妈 奶奶 爷爷 "
                       "姐姐 哥哥 律师 教授 博士 科长 处长 局长 院长 校长 班长 队长 组长 部长 书记".split())


def given_name_in(a: str, b: str) -> bool:
    """Whether a full name of `b` is in `a` by its two-character given name alone
    (晓芸 / 唐晓芸, 海鹏 / 覃海鹏); a given name has no function character (小覃在红十字会…
    names no 在红 that 我在红十字会 holds)."""
    return any(m[1] not in _ZH_TITLES and not CJK_STOP_CHARS.intersection(m[1]) and m[1] in a.replace(m[0], "")
               for m in _ZH_FULL_NAME.finditer(b))


_ZH_DISTINCT_NAME = re.compile(rf"(?:{_ZH_COMPOUND_SURNAMES}|[{_ZH_DISTINCT}])[\u4e00-\u9fff]{{2}}")
# A two-character surname with a one-character given name (欧阳雪, 司马婧); not the two that
# are everyday words too (东方, 司空 in 司空见惯).
_ZH_COMPOUND_ONE = re.compile(rf"(?:{'|'.join(s for s in _ZH_COMPOUND_SURNAMES.split('|') if s not in ('东方', '司空'))})"
                              rf"[\u4e00-\u9fff]")


def shared_full_name(a: str, b: str) -> bool:
    """Whether both texts write one full name whose surname is in no everyday word
    (_ZH_DISTINCT or a two-character surname): 阚晓岚, 尉迟明远, 濮阳建国, 欧阳雪."""
    return any(m[0] in b for m in _ZH_DISTINCT_NAME.finditer(a)) or any(m[0] in b for m in _ZH_COMPOUND_ONE.finditer(a))


# A full name opening a note, then a space, a mark, or a word that starts what is said of
# the person (这学期, 的, 每周, 今年 ...): 陈可馨 舞蹈课…, 刘思琪这学期的舞蹈课…
_OPENING_NAME = re.compile(rf"^\s*((?:{_ZH_COMPOUND_SURNAMES}|[{ZH_SURNAMES}])[\u4e00-\u9fff]{{2}})"
                           r"(?=[\s，,：:（(]|[这的每今本明上下周在])")


def opening_name(text: str) -> str | None:
    """The full name (a surname, two characters of a given name with no function
    character, no title) a Chinese text opens with (_OPENING_NAME), or None."""
    m = _OPENING_NAME.match(text)
    if not m or m[1][1:] in _ZH_TITLES or CJK_STOP_CHARS.intersection(m[1][1:]):
        return None
    return m[1]


def titles_differ(a: str, b: str) -> bool:
    """Whether the texts name someone by one title and two surnames ("跟李老师上韩语口语课" /
    "韩语口语 朴老师"): two people."""
    def by_title(text: str) -> dict[str, set[str]]:
        out: dict[str, set[str]] = {}
        for m in _TITLED.finditer(text):
            out.setdefault(m[0][len(m[1]):], set()).add(m[1])
        return out
    ta, tb = by_title(a), by_title(b)
    return any(not (ta[t] & tb[t]) for t in ta.keys() & tb.keys())


def titled_name_in(a: str, b: str) -> bool:
    """Whether a person `a` names by surname and title (皇甫主任, 卢经理) is written out in
    `b` by surname and given name (皇甫立新, 卢嘉豪), not by the title again."""
    return any(re.search(rf"{m[1]}(?!{_TITLE_AFTER})[\u4e00-\u9fff]", b) for m in _TITLED.finditer(a))


# Who can own a thing in a Chinese text: a person (a pronoun, kin, 同事, 老板, 房东, a name), a
# household (家) or a body (公司, 学校). 书房的书架 (where it is), 新买的鱼缸 (what it is
# like) and 快递寄来的荔枝 (how it came) name no other owner: the bare 书架 is the same one.
_ZH_OWNER = re.compile(r"[我你您他她咱俺妈爸爹娘哥姐弟妹爷奶姥叔伯姨舅姑嫂婶侄甥孙儿女夫妻婆媳婿友邻师家司校]"
                       r"|老公|爱人|老板|房东|同事|同学|领导|客户|医生|大夫|先生|女士|小姐|经理|主任")
_ZH_NAME = re.compile(rf"(?:{_ZH_COMPOUND_SURNAMES}|[{ZH_SURNAMES}])[\u4e00-\u9fff]{{1,2}}")  # 王芳, 陈晓东


def owner_in(words: str) -> bool:
    """Whether Chinese `words` put before a thing (with 的) can be its owner: a person, a
    household or a body, or someone named (小张, 王总; a surname and a given name: 王芳, 陈晓东).
    A word that only looks like a name (白色: a surname and one character) errs on the side
    of two owners, as every added possessive did before."""
    return bool(_ZH_OWNER.search(words) or SHORT_NAME.search(words) or _ZH_NAME.fullmatch(words))


# A text that opens with whose thing it is: 我的公积金卡…, 老公的公积金卡…, 我们家的猫…
_POSSESSOR = re.compile(r"^([\u4e00-\u9fff]{1,4}?)的([\u4e00-\u9fff]{2})")


_OWNER_TIME = re.compile(r"今年|去年|明年|前年|今天|昨天|明天|这个月|上个月|下个月|每年|每月")


def _owner(text: str) -> tuple[str, str] | None:
    """(owner, the two characters after 的) of a text that opens with an owner and 的,
    the speaker's own written one way (我, 我们, 咱, 俺, 我家: 我; 我老公: 老公), or None."""
    m = _POSSESSOR.match(text.strip())
    if not m or not owner_in(m[1]):
        return None
    # a time said with the owner is no part of it (老公今年的年终奖), and he or she alone is
    # anyone (他今年的年终奖 / 老公今年的年终奖: one husband)
    who = _OWNER_TIME.sub("", m[1])
    if who in ("他", "她", "他们", "她们", "它") or not who:
        return None
    who = re.sub(r"^[咱俺]", "我", who.replace("们", ""))
    who = who[1:] if len(who) > 1 and who[0] == "我" else who
    return ("我" if who == "家" else who), m[2]


def owners_differ(a: str, b: str) -> bool:
    """Whether two texts open with one thing of two owners: 我的公积金卡是建设银行的 / 老公的
    公积金卡是工商银行的 (a held-out look-alike pair that merged: the owner and the bank
    both differ, which no single swap or added owner shows). 我家的猫 / 我们家的猫 is one
    owner, and so is one written inside the other (儿子的学费 / 儿子每年的学费)."""
    oa, ob = _owner(a), _owner(b)
    return bool(oa and ob and oa[1] == ob[1] and oa[0] not in ob[0] and ob[0] not in oa[0])


# A note that opens with whose thing it is, by a word of its own and a space (小黑 驱虫药 …),
# or a sentence that opens with a word and 的 (橘子的驱虫药…). Not the speaker's or the
# household's (我, 家), nor a time (今年种的南瓜).
_NOTE_HEAD = re.compile(r"^([\u4e00-\u9fff]{2,4})(?:[（(][\u4e00-\u9fff]{1,3}[)）])?\s*(?<=[\s)）])([\u4e00-\u9fff]{2})")  # 橘子(猫) 猫三联
_NAMED_HEAD = re.compile(r"^([\u4e00-\u9fff]{2,4}?)的([\u4e00-\u9fff]{2})")
_NOT_HEAD = frozenset("我咱俺家你他她它们这那今明昨年月日天周午晚早")


_RUN_ON_REACH = 8  # how far into the run-on text the note's next word may stand (年糕三月二十号打猫三联)


def run_on_head(text: str, other: str) -> tuple[str, str] | None:
    """A head `text` runs straight into what a note opens with after its own head and a
    space (年糕每天遛两次 against 芝麻 每天遛两次: 年糕; 可乐每天早上吃… against 雪碧 早上…:
    可乐): the two characters after the note's head within _RUN_ON_REACH characters after
    it (digits and spaces left out), a Chinese character right after the name, neither
    head in the other text; None when `other` opens with no such note head."""
    o, t = other.strip(), re.sub(r"[\s\d]+", "", text)  # 麻糬每个月 1 号要吃心丝虫: the digits are no words
    m = _NOTE_HEAD.match(o)
    if not m or m[1] in t:
        return None
    rest = m[2]
    for n in (2, 3):
        word = t[:n]
        if len(rest) == 2 and rest in t[n:n + _RUN_ON_REACH] and _CJK_RUN.match(t[n:n + 1]) and word not in o and _CJK_RUN.fullmatch(word) \
                and not set(word) & _NOT_OWNER_CHARS and not _TIME_WORD.search(word):
            return word, rest
    return None


_CJK_RUN = re.compile(r"[\u4e00-\u9fff]+")
_NOT_OWNER_CHARS = frozenset("我咱俺家你他她它们这那")
_TIME_WORD = re.compile(r"[今明昨去前后每本这上下][年天日周月]|[上中下]午|早上|晚上|周末|[月日号]")  # not 年糕


def head(text: str) -> tuple[str, str] | None:
    """(the word, the two characters of the thing after it) of a Chinese text that opens
    with whose or which thing it is (_NOTE_HEAD, _NAMED_HEAD), or None."""
    t = text.strip()
    m = _NOTE_HEAD.match(t) or _NAMED_HEAD.match(t)
    return (m[1], m[2]) if m and not set(m[1]) & _NOT_HEAD else None


# A child (or a pet) called by a doubled character opens many a note: 皓皓在童乐齿科看牙,
# 果果周六学游泳. Not the doubled words that open a note as an adverb or a verb (天天加班,
# 看看再说), nor kin (妹妹, kinds' people) or a baby (宝宝: any child of the house).
_DOUBLED = re.compile(r"^\s*([\u4e00-\u9fff])\1(?!\1)")
_NOT_NICKNAME = frozenset("天常刚慢好渐偷人个往明仅悄轻早稍默处时年月日步统久匆紧多频连纷重白满乖大小高样家次回"
                          "恰星看试想说走聊等歇尝玩听写读找问宝娃妈爸哥姐弟妹爷奶姥公婆舅姑叔伯婶太狗猫")


def nickname(text: str) -> str | None:
    """The doubled-character name a Chinese note opens with (皓皓), or None."""
    m = _DOUBLED.match(text)
    return m[0].strip() if m and m[1] not in _NOT_NICKNAME else None


# A Chinese note's field name before a colon (酒店：亚龙湾万豪…, 车险：人保…), or a record's first
# field before a bar (演出｜新年音乐会｜…): what kind of thing the note is about, said by a word
# the other text need not use (住进亚龙湾万豪…, 合唱团新年音乐会在…).
_LABEL = re.compile(r"^\s*([\u4e00-\u9fff]{2,4})\s*[：:｜|]\s*")


def unlabelled(text: str, other: str) -> str:
    """`text` without the field name it opens with (_LABEL) when `other` holds none of
    its characters: a label is no entity to swap for another."""
    m = _LABEL.match(text)
    return text[m.end():] if m and not set(m[1]) & set(other) else text


# A Chinese short form keeps a word's first and last characters (后杠 / 后保险杠, 店租 /
# 店面房租, 人广 / 人民广场): two characters at most between them.
_SPLIT_GAP = 2


def split_shared(only_a: frozenset[str], only_b: frozenset[str], full_a: tuple[str, ...],
                 full_b: tuple[str, ...]) -> int:
    """How many Chinese character pairs one text holds (`only_a`, `only_b`: the pairs it
    alone has) that the other writes with one or two characters between (后杠 in 补后保险杠
    的漆): the larger count of the two ways, as words the two texts share."""
    def count(units: frozenset[str], full: tuple[str, ...]) -> int:
        text = "".join(t if len(t) == 1 and _CJK_RUN.match(t) else "\x00" for t in full)
        return sum(1 for u in units if len(u) == 2 and _CJK_RUN.fullmatch(u)
                   and re.search(re.escape(u[0]) + rf"[\u4e00-\u9fff]{{1,{_SPLIT_GAP}}}" + re.escape(u[1]), text))

    return max(count(only_a, full_b), count(only_b, full_a))
