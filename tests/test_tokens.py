from gitmem.tokens import count_tokens, tokenize


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


def test_cjk_becomes_character_bigrams():
    assert tokenize("部署窗口") == ["部署", "署窗", "窗口"]
    assert tokenize("我") == ["我"]


def test_mixed_scripts_split_at_script_boundary():
    toks = tokenize("用pytest测试")
    assert "pytest" in toks and "测试" in toks


def test_query_and_document_share_bigrams():
    doc = set(tokenize("我们的部署窗口是每周二下午"))
    assert set(tokenize("部署窗口")) <= doc


def test_count_tokens_rough():
    assert count_tokens("abcd" * 10) == 10
    assert count_tokens("部署窗口") == 4
