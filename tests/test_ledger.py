"""The redaction ledger: records are staged as commits without moving the ref, move
in the caller's transaction, and read back oldest first."""

from __future__ import annotations

import pytest

from gitmem.memories import ledger
from gitmem.core.errors import ConflictError


def _record(n: int, ids: list[str]) -> dict:
    return ledger.new_record("forget", ids, time=1_700_000_000 + n, who="T <t@example.com>",
                             reason=None, blobs={"b" * 40, "a" * 40}, commits={"c" * 40: "d" * 40},
                             refs=[("refs/heads/main", "d" * 40, "c" * 40)])


def test_new_record_has_the_documented_fields():
    rec = _record(0, ["0abc"])
    assert set(rec) == {"op", "ids", "time", "who", "reason", "blobs", "blob_map", "commits", "refs"}
    assert rec["blobs"] == ["a" * 40, "b" * 40]
    assert rec["refs"] == {"refs/heads/main": ["c" * 40, "d" * 40]}


def test_stage_moves_no_ref_until_the_transaction(store):
    git = store.git
    path, update = ledger.stage(git, _record(0, ["0abc"]), store.memories.author())
    ref, new, old = update
    assert ref == ledger.REDACTIONS_REF and old is None and path.startswith("records/")
    assert git.ref(ledger.REDACTIONS_REF) is None
    assert list(ledger.records(git)) == []
    git.update_refs([update])
    assert ledger.read(git, path) == _record(0, ["0abc"])
    # A second record chains onto the first; both read back, oldest first.
    path2, update2 = ledger.stage(git, _record(1, ["0def"]), store.memories.author())
    assert update2[2] == new
    git.update_refs([update2])
    assert [p for p, _ in ledger.records(git)] == [path, path2]
    assert [r["ids"] for _, r in ledger.records(git)] == [["0abc"], ["0def"]]
    assert git.info(update2[1]).trailers["Gitmem-Id"] == ["0def"]
    assert ledger.read(git, "records/none.json") is None


def test_a_stale_ledger_update_moves_nothing(store):
    git = store.git
    _, first = ledger.stage(git, _record(0, ["0abc"]), store.memories.author())
    _, second = ledger.stage(git, _record(1, ["0def"]), store.memories.author())
    git.update_refs([first])
    with pytest.raises(ConflictError):
        git.update_refs([second])  # staged against the old (absent) tip
    assert [r["ids"] for _, r in ledger.records(git)] == [["0abc"]]
