"""merge.py: the memory-aware three-way merge, on trees written through the store."""

from __future__ import annotations

from hypothesis import given, settings, strategies as st

from gitmem.core import model
from gitmem.sync.merge import conflict_path, merge_scope, union_lines

LINES = st.lists(st.text(alphabet="abcdef ", min_size=1, max_size=6).map(lambda s: "- " + s), max_size=8)


@settings(max_examples=300, deadline=None)
@given(LINES, LINES, LINES)
def test_union_keeps_every_line_either_side_added_and_drops_removed_ones(base, ours, theirs):
    out = union_lines("\n".join(base), "\n".join(ours), "\n".join(theirs)).splitlines()
    removed = (set(base) - set(ours)) | (set(base) - set(theirs))
    for ln in set(ours) | set(theirs):
        assert (ln in out) == (ln not in removed)
    assert not (set(out) & removed)
    assert set(out) <= set(ours) | set(theirs)  # nothing invented
    # merging a side with itself gives that side
    assert union_lines("\n".join(base), "\n".join(ours), "\n".join(ours)).splitlines() == ours


def test_journal_lines_are_ordered_by_time():
    base = "# 2024-05-01\n\n- 09:00 first\n"
    ours = base + "- 11:00 ours late\n"
    theirs = base + "- 10:00 theirs middle\n"
    assert union_lines(base, ours, theirs, journal=True) == \
        "# 2024-05-01\n\n- 09:00 first\n- 10:00 theirs middle\n- 11:00 ours late\n"


def _side(store, base, files):
    return store.git.commit_obj(store.git.write_commit(base, files, "side\n", store.memories.author()))


def test_edits_on_both_sides_keep_the_later_and_a_conflict_copy(store):
    m = store.remember("original text", key="k")
    base = store.git.tip("main")
    svc = store.memories
    older = m.with_(text="edited there", updated="2030-01-01T00:00:00Z")
    newer = m.with_(text="edited here", updated="2030-01-02T00:00:00Z")
    ours = _side(store, base, {m.path: model.render(newer)})
    theirs = _side(store, base, {m.path: model.render(older)})
    res = merge_scope(svc, "main", base, ours, theirs)
    assert [c["kind"] for c in res.conflicts] == ["edited-both"]
    copy = conflict_path(m.id, store.git.blob_id(theirs, m.path))
    assert copy in res.changes and m.path not in res.changes  # ours stays, theirs is the copy
    # the other way round the newer side (theirs) wins
    res2 = merge_scope(svc, "main", base, theirs, ours)
    assert res2.changes[m.path].blob == store.git.blob_id(ours, m.path)


def test_one_side_changes_win_and_forgotten_ids_are_dropped(store):
    a = store.remember("alpha")
    b = store.remember("beta")
    base = store.git.tip("main")
    ours = _side(store, base, {})
    theirs = _side(store, base, {a.path: model.render(a.with_(text="alpha two")), b.path: None})
    res = merge_scope(store.memories, "main", base, ours, theirs)
    assert res.changes[a.path].blob == store.git.blob_id(theirs, a.path) and res.changes[b.path] is None
    assert res.conflicts == []
    res = merge_scope(store.memories, "main", base, ours, theirs, forgotten={a.id})
    assert res.changes[a.path] is None and res.dropped == [a.id]
    assert [c["kind"] for c in res.conflicts] == ["forgotten"]


def test_removed_here_edited_there_keeps_the_edit(store):
    a = store.remember("alpha")
    base = store.git.tip("main")
    ours = _side(store, base, {a.path: None})
    theirs = _side(store, base, {a.path: model.render(a.with_(text="alpha edited"))})
    res = merge_scope(store.memories, "main", base, ours, theirs)
    assert res.changes[a.path].blob == store.git.blob_id(theirs, a.path)
    assert [c["kind"] for c in res.conflicts] == ["removed-here"]
