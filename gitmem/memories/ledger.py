"""The redaction ledger: what every forget and redact did, for sync and audit.

One JSON file per operation, `records/<time>-<n>.json` on `refs/gitmem/redactions` (a
plain commit chain, never rewritten):

    {"op": "forget"|"redact", "ids": [...], "time": unix, "who": "Name <email>",
     "reason": str|null, "blobs": [old blob ids replaced or dropped],
     "blob_map": {old blob id: new blob id, or "" when dropped},
     "commits": {old commit id: new commit id}, "refs": {ref: [old tip, new tip]}}

It holds no text. A clone that fetches it can map its refs through `commits`, refuse
to push any commit in its keys or any blob in `blobs`, and re-run the same purge for
`ids` locally (its own copies of these memories may differ).
"""

from __future__ import annotations

import datetime as dt
import json
from typing import Any, Iterable, Iterator

from gitmem.core import model
from gitmem.core.trailers import format_message
from gitmem.store import GitStore, Signature

REDACTIONS_REF = "refs/gitmem/redactions"
RECORDS = "records"


def ledger_refs(git: GitStore) -> list[str]:
    """This store's ledger and the copies fetched from remotes (they hold no text)."""
    return [r for r in git.refs("refs/gitmem/") if r == REDACTIONS_REF or
            (r.startswith("refs/gitmem/remotes/") and r.endswith("/gitmem/redactions"))]


def shared_ref(ref: str, config) -> bool:
    """Whether a ref may be named in a record that sync pushes: not a private scope's."""
    private = set(config.get("sync", "private") or ())
    return not (ref.startswith("refs/heads/") and ref[len("refs/heads/"):] in private)


def new_record(op: str, ids: Iterable[str], *, time: int, who: str, reason: str | None,
               blobs: Iterable[str], commits: dict[str, str],
               refs: Iterable[tuple[str, str, str | None]],
               blob_map: dict[str, str] | None = None) -> dict[str, Any]:
    """A record in the ledger's format; `refs` holds (ref, new, old) as moved."""
    return {
        "op": op, "ids": list(ids), "time": int(time), "who": who, "reason": reason,
        "blobs": sorted(blobs), "commits": dict(commits), "blob_map": dict(blob_map or {}),
        "refs": {r: [o, n] for r, n, o in refs},
    }


def stage(git: GitStore, record: dict[str, Any], author: Signature) -> tuple[str, tuple[str, str, str | None]]:
    """Write `record` as a new commit on the ledger without moving the ref; returns
    the record's path and the (ref, new, old) update for the caller's ref transaction,
    so the ledger moves together with the histories it describes."""
    tip = git.ref_tip(REDACTIONS_REF)
    when = dt.datetime.fromtimestamp(record["time"], dt.timezone.utc)
    path = f"{RECORDS}/{when:%Y%m%dT%H%M%SZ}-{model.new_id()}.json"
    data = (json.dumps(record, indent=1, sort_keys=True) + "\n").encode()
    trailers = [("Gitmem-Op", record["op"])] + [("Gitmem-Id", i) for i in record["ids"]]
    msg = format_message(f"{record['op']}: redaction record {path.rsplit('/', 1)[-1]}", None, trailers)
    new = git.write_commit(tip, {path: data}, msg, author, parents=[tip.id] if tip else [])
    return path, (REDACTIONS_REF, new, tip.id if tip else None)


def read(git: GitStore, path: str) -> dict[str, Any] | None:
    """One record by its path on the ledger, or None."""
    data = git.read(git.ref_tip(REDACTIONS_REF), path)
    return json.loads(data) if data is not None else None


def records(git: GitStore, ref: str = REDACTIONS_REF) -> Iterator[tuple[str, dict[str, Any]]]:
    """(path, record) of every record on a ledger (this store's, or a remote's copy),
    oldest first."""
    tip = git.ref_tip(ref)
    for path, _ in sorted(git.walk_files(tip, RECORDS)):
        data = git.read(tip, path)
        if data is not None and path.endswith(".json"):
            yield path, json.loads(data)


def forgotten_ids(git: GitStore) -> set[str]:
    """Every id a forget purged, by this clone or (records fetched from remotes)
    another: such an id never comes back, not even in a look at an old commit."""
    out: set[str] = set()
    for ref in ledger_refs(git):
        for _, rec in records(git, ref):
            if rec.get("op") == "forget":
                out.update(i for i in rec.get("ids") or () if isinstance(i, str))
    return out
