import unicodedata

from hypothesis import given
from hypothesis import strategies as st

from gitmem.core.tokens import CJK_STOP_CHARS, MAX_TOKEN_LEN, count_tokens, simplified, tokenize

HAN = st.characters(min_codepoint=0x4E00, max_codepoint=0x9FFF)


def test_english_words_lowercased_and_folded():
    assert tokenize("Deploy WINDOWS on Tuesdays!") == ["deploy", "window", "tuesday"]


def test_stopwords_dropped_but_optional():
    assert "the" not in tokenize("the database")
    assert tokenize("the database", stopwords=False) == ["the"] + tokenize("database")


def test_english_inflections_meet():
    # Snowball English: what a question and the turn that answers it say differently.
    for forms in (("paint", "painted", "painting", "paints"), ("adopt", "adopted", "adopting", "adoption"),
                  ("meeting", "meetings"), ("research", "researched", "researching"), ("run", "running")):
        assert len({tuple(tokenize(f)) for f in forms}) == 1, forms
    assert tokenize("Caroline's") == tokenize("Caroline")
    assert tokenize("it's") == []  # a stopword once the 's is gone


def test_unicode_letters_kept_whole():
    assert tokenize("Café naïve") == ["café", "naïve"]  # the English stemmer leaves them be
    assert len(tokenize("Straße")) == 1
    assert tokenize("STRASSE") == tokenize("straße")  # casefold, not lower


def test_cjk_becomes_character_bigrams_and_unigrams():
    assert tokenize("部署窗口") == ["部署", "署窗", "窗口", "部", "署", "窗", "口"]
    assert tokenize("我") == ["我"]


def test_cjk_function_characters_are_not_unigrams():
    toks = tokenize("我的女儿")
    assert toks == ["我的", "的女", "女儿", "女", "儿"]
    assert tokenize("你") == ["你"]          # a lone character is still searchable


def test_a_paraphrase_without_a_shared_bigram_meets_on_a_character():
    # 闺女 / 女儿 share no two-character word, only 女.
    assert set(tokenize("我闺女学什么乐器")) & set(tokenize("女儿报了小提琴班")) == {"女"}


def test_kana_and_hangul_stay_bigrams_only():
    assert tokenize("カタカナ") == ["カタ", "タカ", "カナ"]
    assert tokenize("한국어") == ["한국", "국어"]


@given(st.text(max_size=60))
def test_any_text_tokenizes(text):
    toks = tokenize(text)
    assert all(t and len(t) <= MAX_TOKEN_LEN and not t.isspace() for t in toks)
    assert tokenize(text) == toks                      # deterministic
    assert tokenize(unicodedata.normalize("NFKC", text)) == toks


@given(st.text(HAN, min_size=2, max_size=30))
def test_a_han_run_gives_its_bigrams_then_its_content_characters(run):
    toks = tokenize(run)
    run = simplified(run)  # read in Simplified characters
    bigrams = [run[i : i + 2] for i in range(len(run) - 1)]
    assert toks[: len(bigrams)] == bigrams
    assert toks[len(bigrams):] == [c for c in run if c not in CJK_STOP_CHARS]


@given(st.text(HAN, min_size=1, max_size=12), st.text(HAN, min_size=1, max_size=12))
def test_a_document_holds_every_token_of_a_run_it_contains(a, b):
    # Any query that is a contiguous CJK run of a document matches all its terms there
    # (tokens from a whole run, so the document must be one CJK run too).
    assert set(tokenize(a)) <= set(tokenize(a + b)) or len(a) == 1


def test_mixed_scripts_split_at_script_boundary():
    toks = tokenize("用pytest测试")
    assert "pytest" in toks and "测试" in toks


def test_query_and_document_share_bigrams():
    doc = set(tokenize("我们的部署窗口是每周二下午"))
    assert set(tokenize("部署窗口")) <= doc


def test_count_tokens_rough():
    assert count_tokens("abcd" * 10) == 10
    assert count_tokens("部署窗口") == 4


def test_traditional_characters_are_read_as_simplified():
    """婦幼 and 妇幼 are one word in two scripts; text with no Han character is untouched."""
    assert tokenize("市婦幼保健院") == tokenize("市妇幼保健院")
    assert tokenize("每天早晚各吃一百克飼料") == tokenize("每天早晚各吃一百克饲料")
    assert simplified("Room 4, café") == "Room 4, café"
    assert simplified("布丁打疫苗") == "布丁打疫苗"  # Simplified stays as it is


@given(st.text(alphabet="市婦幼保健院檢查點號飼料湯圓們這個 abc123，。", max_size=40))
def test_simplifying_twice_changes_nothing_more(text):
    once = simplified(text)
    assert simplified(once) == once and len(once) == len(text)
