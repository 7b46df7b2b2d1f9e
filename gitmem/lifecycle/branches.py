"""Which branch of a shop, or which street: two look-alikes of one chain or one kind of
place, written in two shapes ("麦香坊人民路店…" / "麦香坊 解放路店…", "海底捞（龙湖天街店）…" /
"万象城那家海底捞…", "hetherington's wharf st branch" / "the Hetherington's Hardware on
Coopers Row"). gitmem.lifecycle.kinds asks `differ` after its closed kinds: a branch or a
street each text names, and none the two share."""

from __future__ import annotations

import re
from functools import lru_cache

from gitmem.core.tokens import CJK_STOP_CHARS

# A branch: the place before 店 / 分店 (人民路店, 龙湖天街店), before 那家 (万象城那家), or a
# bank's, a school's or a hospital's (城西支行, 滨江校区, 东院区).
_ZH_BRANCH = re.compile(r"([\u4e00-\u9fff]{2,4})(?:分店|店|那家|支行|分行|校区|院区|分院|营业厅)")
# ... or the place before a chain's name (西红门宜家 / 四元桥宜家: two IKEAs)
_ZH_CHAINS = ("宜家 星巴克 瑞幸 麦当劳 肯德基 盒马 山姆 沃尔玛 家乐福 永辉 海底捞 喜茶 奈雪 必胜客 优衣库 屈臣氏 万达 "
              "大润发 物美 华润万家 便利蜂 名创优品 迪卡侬 西西弗 库迪 蜜雪冰城 汉堡王 赛百味 全联 百佳 惠康 万宁 好市多 "
              "罗森 美宜佳").split()
_ZH_BEFORE_CHAIN = re.compile(r"([\u4e00-\u9fff]{2,3})(?=" + "|".join(_ZH_CHAINS) + ")")
_ZH_NOT_PLACE = frozenset("去到在逛买从往回经过近边旁家里外的了周末天午晚早今明昨")
# Where the speaker is, not which branch: 门口盒马 / 楼下那家盒马 are one shop
_ZH_NEARBY = frozenset("门口 家门口 楼下 附近 对面 隔壁 旁边 小区 街口 路口 公司 单位 学校".split())
# Words that end in 店 or come before 那家 and name no branch (书店, 酒店, 我们那家).
_ZH_NOT_BRANCH = frozenset("书酒饭商药花鞋网小本总新老这那哪一每各")
# A street: a word and its type ("wharf st", "Coopers Row", "Otley Road").
_EN_STREET = re.compile(r"\b([a-z][a-z']+)\s+(?:st|street|rd|road|ln|lane|ave|avenue|row|terrace|crescent|sq|square)\b")
_EN_NOT_STREET = frozenset("the a an our my this that in on at of to high main".split())


@lru_cache(maxsize=65536)
def names(text: str) -> frozenset[str]:
    """The branches (Chinese) and streets (English, lower case, no possessive) `text` names."""
    out = set()
    for m in _ZH_BRANCH.finditer(text):
        name = m[1]
        if name[-1] not in _ZH_NOT_BRANCH and name[0] not in CJK_STOP_CHARS and name not in _ZH_NEARBY:
            out.add(name)
    for m in _ZH_BEFORE_CHAIN.finditer(text):
        if not set(m[1]) & (_ZH_NOT_PLACE | CJK_STOP_CHARS) and not any(n in m[1] for n in _ZH_NEARBY):
            out.add(m[1])
    for m in _EN_STREET.finditer(text.lower().replace("’", "'")):
        word = re.sub(r"'s?$", "", m[1])
        if word not in _EN_NOT_STREET:
            out.add(word.rstrip("s"))
    return frozenset(out)


def _short_for(pair: str, name: str) -> bool:
    """Whether two characters are the short form of a longer name: its first character,
    then one of a later word (人广 for 人民广场, 五角 for 五角场)."""
    return len(name) > 2 and pair[0] == name[0] and pair[1] in name[2:]


def _meet(x: str, y: str) -> bool:
    """Whether two names share a word (English), or (Chinese) a pair of characters or
    one's pair is the other's short form (海底捞人广店 / 人民广场店)."""
    if x.isascii() or y.isascii():
        return x == y
    px, py = ({n[i:i + 2] for i in range(len(n) - 1)} for n in (x, y))
    return bool(px & py) or any(_short_for(p, y) for p in px) or any(_short_for(p, x) for p in py)


def differ(a: str, b: str) -> bool:
    """Whether each text names a branch or a street and no name of one meets one of the other."""
    na, nb = names(a), names(b)
    return bool(na and nb) and not any(_meet(x, y) for x in na for y in nb)
