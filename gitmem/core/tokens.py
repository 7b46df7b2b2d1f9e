"""Tokenisation shared by the index and the query side of recall.

Words are maximal runs of Unicode letters and digits, lowercased (casefolded); English
words are stemmed with the Snowball English (Porter2) stemmer, so "painted", "painting"
and "paints" meet (BENCHMARKS.md, issue 13: BM25 R_any@10 on LoCoMo dev 0.640 -> 0.697,
gaining on every conversation). Text in CJK scripts has no
spaces, so each run of CJK characters becomes overlapping character bigrams (a single
character stays a unigram): "北京大学" -> 北京 京大 大学. A query tokenised the same
way then matches any document that shares a two-character word. Each Han character of
a longer run is also indexed alone, except a few function characters (CJK_STOP_CHARS):
unigrams plus bigrams is the classic non-segmenting scheme for Chinese retrieval, and a
paraphrase that shares no two-character word (闺女/女儿, 汽车/车) still meets on one
character (BENCHMARKS.md "6. Languages": chosen by measurement, jieba was no better).
Traditional characters are read as their Simplified forms (OpenCC, `simplified`): a
question typed in one script finds a memory written in the other (飼料 / 饲料)."""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from functools import lru_cache

# Han ideographs, then every CJK script (Han, Hiragana, Katakana, Hangul syllables).
_HAN = (
    "\u3400-\u4dbf"  # CJK Extension A
    "\u4e00-\u9fff"  # CJK Unified Ideographs
    "\uf900-\ufaff"  # CJK Compatibility Ideographs
    "\U00020000-\U0002ebef"  # Extensions B-F
    "\U00030000-\U000323af"  # Extensions G-H (OpenCC's t2s writes some: 繐 -> 𰬸)
)
_CJK = "\u3040-\u30ff" + _HAN + "\uac00-\ud7af"  # + Hiragana, Katakana; Hangul syllables
_TOKEN_RE = re.compile(rf"[{_CJK}]+|[^\W_{_CJK}]+(?:['’][^\W_{_CJK}]+)*")
CJK_CHAR = re.compile(rf"[{_CJK}]")  # one character of a CJK script
_HAN_RE = re.compile(rf"[{_HAN}]")

# Han characters not indexed alone (they still count inside bigrams): pronouns,
# particles, the copula and the question words. Nearly every dialogue turn has 我/你/的,
# and 什/么/哪/谁 turn up in the assistant's own questions, so as unigrams they only add
# noise (measured: dialogue set R_any@5 0.872 -> 0.923 on its tuning part).
CJK_STOP_CHARS = frozenset("的了我你他她它是在吗呢吧啊呀么什哪谁和就都也着过之一个有这那")

# Words too common to carry meaning in either documents or questions. BM25's idf
# already shrinks them; dropping them also keeps the postings table smaller.
STOPWORDS = frozenset("""
a an and are as at be been but by did do does for from had has have he her him his how i
if in into is it its me my of on or our she so than that the their them then there these
they this to us was we were what when where which who whom why will with would you your
""".split())

MAX_TOKEN_LEN = 64

# Changing what tokenize() returns for any text means bumping this: every index built
# with another version is rebuilt from git (its cached vectors are kept).
TOKENIZER_VERSION = "4"


@lru_cache(maxsize=1)
def _stemmer():
    # snowballstemmer is the Snowball project's own package (pure Python; it uses the
    # C PyStemmer when that is installed). Imported on first use: the CLI's light
    # paths never tokenize.
    import snowballstemmer

    return snowballstemmer.stemmer("english").stemWord


@lru_cache(maxsize=200_000)
def _fold(word: str) -> str:
    """The stem of an English word ("'s" dropped); other scripts pass unchanged."""
    if not word.isascii():
        return word
    if word.endswith("'s"):
        word = word[:-2]
    if len(word) <= 2 or not word.isalpha():
        return word
    return _stemmer()(word)


@lru_cache(maxsize=1)
def _t2s():
    # OpenCC's own package (the project's C++ library with its dictionaries): Traditional
    # to Simplified by phrase and character. Imported on first use.
    import opencc

    return opencc.OpenCC("t2s")


def simplified(text: str) -> str:
    """`text` with its Traditional Chinese in Simplified characters (婦幼 / 妇幼, 飼料 / 饲料:
    one word in two scripts); text with no Han character is returned as it is."""
    if text.isascii() or not _HAN_RE.search(text):
        return text
    return _t2s().convert(text)


def tokenize(text: str, stopwords: bool = True) -> list[str]:
    """Index/query tokens of `text`, in order (duplicates kept)."""
    text = unicodedata.normalize("NFKC", text).casefold()
    out: list[str] = []
    for m in _TOKEN_RE.finditer(text):
        tok = m.group(0)
        if CJK_CHAR.match(tok):
            out.extend(cjk_tokens(simplified(tok)))
            continue
        tok = tok.replace("’", "'")
        if stopwords and tok in STOPWORDS:
            continue
        tok = _fold(tok)
        if stopwords and tok in STOPWORDS:  # "it's" -> "it"
            continue
        if len(tok) > MAX_TOKEN_LEN:
            tok = tok[:MAX_TOKEN_LEN]
        out.append(tok)
    return out


def cjk_tokens(run: str) -> list[str]:
    """Tokens of one run of CJK characters: overlapping bigrams, then each Han character
    alone (not the CJK_STOP_CHARS); a single character stays a unigram."""
    if len(run) == 1:
        return [run]
    out = [run[i : i + 2] for i in range(len(run) - 1)]
    out.extend(c for c in run if c not in CJK_STOP_CHARS and _HAN_RE.match(c))
    return out


def term_counts(text: str) -> Counter[str]:
    """Term frequencies for the postings table."""
    return Counter(tokenize(text))


def count_tokens(text: str) -> int:
    """A rough LLM token estimate for budgets: ~4 chars per token, CJK ~1 per char."""
    cjk = len(CJK_CHAR.findall(text))
    return cjk + (len(text) - cjk + 3) // 4
