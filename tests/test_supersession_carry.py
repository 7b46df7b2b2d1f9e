"""A superseded memory's match stands for its successor (issue 22, item 1).

The older statement usually holds the question's words ("live"), the newer one says
"moved" and shares none of them: in live recall the successor at the end of the chain
scores at least what its predecessor scored, whether the predecessor is still under
memories/ (remember --supersedes) or archived (dream, dream --apply); its relevance
carries too; with include_superseded both show, the successor first; a filter that
leaves the successor out is not undone by the carry; an archived predecessor ranked to
lend is never shown and changes no other memory's BM25 score."""

from __future__ import annotations

import pytest

from gitmem.core.tokens import tokenize

FILLERS = [
    "My brother lives in Toronto",
    "My sister lives in Berlin",
    "The cat likes to live on the sofa",
    "Our neighbours live upstairs",
    "The plants live on the balcony",
]
QUESTION = "where does the user live in Lisbon river"


def ids_of(hits) -> list[str]:
    return [h.id for h in hits]


@pytest.fixture
def stale(store):
    for i, t in enumerate(FILLERS):
        store.remember(t, created=f"2023-0{i + 1}-01")
    old = store.remember("I live in Lisbon near the river", created="2024-01-01")
    return store, old


def test_a_successor_with_none_of_the_query_words_ranks_where_its_predecessor_did(stale):
    store, old = stale
    before = ids_of(store.recall(QUESTION, k=3, record=False))
    assert before[0] == old.id
    new = store.remember("Moved to Porto last week, a flat by the station", created="2024-06-01",
                         supersedes=[old.id])
    alone = ids_of(store.search("Moved to Porto last week", k=1, record=False).hits)
    assert alone == [new.id]
    hits = store.recall(QUESTION, k=3, record=False)
    assert ids_of(hits)[0] == new.id and old.id not in ids_of(hits)
    both = store.search(QUESTION, k=3, include_superseded=True, record=False)
    got = ids_of(both.hits)
    assert got[:2] == [new.id, old.id] and both.info["superseded"] == {old.id: [new.id]}
    rel = {h.id: h.relevance for h in both.hits}
    assert rel[new.id] >= rel[old.id]


def test_an_archived_predecessor_lends_its_match_and_is_never_shown(stale):
    store, old = stale
    new = store.remember("Moved to Porto last week, a flat by the station", created="2024-06-01")
    store.dream_apply({"scope": "main", "decisions": [{"supersede": old.id, "by": new.id}]})
    every = {m.id: m for m in store.list(archived=True)}
    assert every[old.id].path.startswith("archive/")
    for res in (store.search(QUESTION, k=3, record=False),
                store.search(QUESTION, k=3, include_superseded=True, record=False)):
        assert ids_of(res.hits)[0] == new.id and old.id not in ids_of(res.hits)
    explained = store.search(QUESTION, k=1, explain=True, record=False).hits[0]
    assert f"carries the match of {old.id}" in explained.explain["why"]
    # The chain's end inherits: a third statement replacing the second.
    third = store.remember("Now in Braga for the new job", created="2024-09-01", supersedes=[new.id])
    assert ids_of(store.recall(QUESTION, k=3, record=False))[0] == third.id


def test_a_filter_that_leaves_the_successor_out_still_does(stale):
    store, old = stale
    new = store.remember("Moved to Porto last week, a flat by the station", type="decision",
                         created="2024-06-01", supersedes=[old.id])
    hits = ids_of(store.search(QUESTION, k=5, type=["note"], record=False).hits)
    assert new.id not in hits and old.id not in hits


def test_an_archived_lender_changes_no_other_score(stale):
    store, old = stale
    new = store.remember("Moved to Porto last week", created="2024-06-01")
    store.dream_apply({"scope": "main", "decisions": [{"supersede": old.id, "by": new.id}]})
    snap = store.recaller.index.snapshot()
    ci = snap.columns.index("mem_id")
    lender = [int(snap.docs[i]) for i, r in enumerate(snap.table) if r[ci] == old.id]
    assert lender and all(snap.archived[snap.row_of[d]] for d in lender)
    terms = tokenize(QUESTION)
    plain, mass = snap.bm25_mass(terms, ["main"], None, None, False, 1.2, 0.75, 50)
    more, mass2 = snap.bm25_mass(terms, ["main"], None, None, False, 1.2, 0.75, 50, also=lender)
    assert lender[0] not in dict(plain) and lender[0] in dict(more)
    assert mass2 == mass and {d: s for d, s in more if d not in lender} == dict(plain)
    assert dict(more)[lender[0]] == max(s for _, s in more)  # "lisbon", "river": words only it holds


def test_a_look_back_carries_as_of_its_time(stale):
    store, old = stale
    before = store.log(scope="main")[0].commit  # the tip before the successor
    new = store.remember("Moved to Porto last week, a flat by the station", created="2024-06-01",
                         supersedes=[old.id])
    after = store.log(scope="main")[0].commit
    assert before != after
    assert ids_of(store.recall(QUESTION, k=3, at=before))[0] == old.id
    then = ids_of(store.recall(QUESTION, k=3, at=after))
    assert then[0] == new.id and old.id not in then
