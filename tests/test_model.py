"""Front matter, ids and validation (pure functions)."""

import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gitmem.core import model
from gitmem.core.errors import UsageError

tag = st.text(alphabet=string.ascii_letters + string.digits + "-_:.éü中", min_size=1, max_size=20)
any_text = st.text(min_size=1).filter(lambda t: t.strip() and "\x00" not in t)


@settings(max_examples=300, deadline=None)
@given(text=any_text, tags=st.lists(tag, max_size=6, unique=True),
       key=st.one_of(st.none(), st.text(min_size=1, max_size=40)),
       importance=st.integers(1, 10),
       meta=st.dictionaries(st.text(min_size=1, max_size=10), st.one_of(st.text(), st.integers(), st.booleans()), max_size=4))
def test_front_matter_round_trip(text, tags, key, importance, meta):
    mem = model.Memory(id=model.new_id(), text=text, type="fact", summary=model.summarise(text),
                       importance=importance, tags=tuple(tags), created="2024-01-02T03:04:05Z",
                       updated="2024-01-02T03:04:05Z", key=key, metadata=meta)
    back = model.parse(model.render(mem))
    assert back.text == text
    assert back.tags == tuple(tags)
    assert back.key == key
    assert back.importance == importance
    assert back.metadata == meta
    assert back.summary == mem.summary
    assert back.id == mem.id


def test_ids_are_unique_sortable_and_short():
    ids = [model.new_id(now_ms=1_700_000_000_000 + i) for i in range(200)]
    assert ids == sorted(ids)
    assert len(set(model.new_id() for _ in range(5000))) == 5000
    assert all(len(i) == 13 and model.is_id(i) for i in ids)
    assert model.id_time(ids[0]).year == 2023


def test_memory_path_fans_out_by_type_month_and_bucket():
    mid = model.new_id(now_ms=1_717_000_000_000)
    assert model.memory_path(mid, "fact") == f"memories/fact/2024-05/{mid[-1]}/{mid[-2]}/{mid}.md"


@pytest.mark.parametrize("scope", ["main", "channel/slack", "project/github.com/me/app", "project/app-1a2b3c"])
def test_valid_scopes(scope):
    assert model.check_scope(scope) == scope


@pytest.mark.parametrize("scope", ["", "foo", "channel/", "channel/a/b", "project/../x", "main/x",
                                   "channel/a b", "channel/.hidden", "channel/x.lock", "project/a//b",
                                   "channel/a\x00", "Channel/x"])
def test_invalid_scopes(scope):
    with pytest.raises(UsageError):
        model.check_scope(scope)


@given(st.text(max_size=60))
def test_scope_validation_never_accepts_an_invalid_ref(name):
    import pygit2
    try:
        model.check_scope("channel/" + name)
    except UsageError:
        return
    assert pygit2.reference_is_valid_name("refs/heads/channel/" + name)


@pytest.mark.parametrize("text", ["", "   \n", "a\x00b", "x" * 70000])
def test_bad_text_rejected(text):
    with pytest.raises(UsageError):
        model.check_text(text, 64 * 1024)


def test_importance_and_tags_validated():
    with pytest.raises(UsageError):
        model.check_importance(0)
    with pytest.raises(UsageError):
        model.check_importance("high")
    assert model.check_tags(["a", "a", "b"]) == ("a", "b")
    with pytest.raises(UsageError):
        model.check_tags(["has space"])


def test_ids_one_process_makes_on_the_clock_never_collide_and_sort_in_order():
    """Thousands of ids in one millisecond drew from 36**5 random endings and a CI run saw
    two of 5000 meet: on the clock a process is one writer, its ids unique and ascending,
    also beside a writer that passes its own `after`."""
    ids = [model.new_id() for _ in range(50_000)]
    assert len(set(ids)) == len(ids) and ids == sorted(ids)
    other = model.new_id(after=ids[0])  # an older `after` still sorts after the process's last id
    assert other > ids[-1]
    dated = model.new_id(now_ms=1_700_000_000_000)  # a dated history keeps its own clock
    assert model.id_time(dated).year == 2023
