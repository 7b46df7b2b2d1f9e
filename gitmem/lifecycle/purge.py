"""What a forget purges from history: the needles a forgotten memory leaves in other files and messages, the placeholder its versions become, and the policy a history rewrite applies blob by blob and message by message."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from gitmem.agents import receipts
from gitmem.core import model, paths
from gitmem.core.trailers import parse_trailers
from gitmem.memories.service import Memories
from gitmem.policy import access
from gitmem.store import SCOPE_PREFIX, GitStore
from gitmem.store.rewrite import Rewrite

MIN_NEEDLE = 6
MIN_BLOB_NEEDLE = 12  # shorter texts are not hunted inside *other* memories' files
MIN_LINE_NEEDLE = 24
FORGOTTEN_MARK = "[forgotten]"
REDACTED_MARK = "[redacted]"


def placeholder(mem_id: str) -> bytes:
    """What every historical version of a forgotten memory's file becomes."""
    return model.front_matter({"id": mem_id, "summary": FORGOTTEN_MARK}, FORGOTTEN_MARK + "\n")


def needles_of(mem: model.Memory) -> set[str]:
    """Strings that identify a memory's text inside other blobs and messages."""
    out = {mem.text.strip(), " ".join(mem.text.split()), mem.summary.rstrip("…").strip()}
    if mem.key:
        out.add(mem.key)
    out.update(ln.strip() for ln in mem.text.splitlines() if len(ln.strip()) >= MIN_LINE_NEEDLE)
    return {n for n in out if len(n) >= MIN_NEEDLE}


@dataclass
class Purge:
    """What a rewrite removes: whole files of some ids, and needles everywhere."""

    ids: set[str] = field(default_factory=set)
    needles: set[str] = field(default_factory=set)  # from the memories' versions
    strings: set[str] = field(default_factory=set)  # given explicitly (redact --text)
    key_paths: set[str] = field(default_factory=set)
    blob_ids: set[str] = field(default_factory=set)  # replaced whole, unread (from a ledger record)
    mark: str = FORGOTTEN_MARK


class PurgePolicy:
    """The rewrite policy of a purge (see store.rewrite.Policy). Blobs arrive decoded;
    the rewriter caches its answer per (blob, file name), so it depends on nothing else
    (a key path's name is its hash, unique to it)."""

    def __init__(self, purge: Purge):
        self.purge = purge
        self.blob_ids = set(purge.blob_ids)
        self.files = {f"{i}.md" for i in purge.ids}
        self.bids = [i.encode() for i in purge.ids]
        inside = {n for n in purge.needles if len(n) >= MIN_BLOB_NEEDLE} | purge.strings
        self.bneedles = sorted({n.encode() for n in inside}, key=len, reverse=True)
        self.sneedles = sorted(purge.needles | purge.strings, key=len, reverse=True)
        self.mark = purge.mark.encode()

    def whole(self, path: str) -> bytes | None:
        """A blob another clone purged (named by id in a ledger record)."""
        name = path.rsplit("/", 1)[-1]
        if path in self.purge.key_paths:
            return None
        if name.endswith(".md") and model.is_id(name[:-3]):
            return placeholder(name[:-3])
        return f"{self.purge.mark}\n".encode()

    def blob(self, path: str, data: bytes) -> bytes | None:
        if path in self.purge.key_paths:
            return None
        name = path.rsplit("/", 1)[-1]
        if name in self.files:
            return placeholder(name[:-3])
        if name.endswith(".md") and model.is_id(name[:-3]) and any(n in data for n in self.bneedles):
            scrubbed = self._scrub_memory(data)
            if scrubbed is not None:
                return scrubbed
        out = data
        if name == "MEMORY.md" and self.bids:
            # The generated index names forgotten ids next to (possibly cut) summaries.
            out = b"".join(ln for ln in out.splitlines(True) if not any(i in ln for i in self.bids))
        for n in self.bneedles:
            if n in out:
                out = out.replace(n, self.mark)
        return out

    def _scrub_memory(self, data: bytes) -> bytes | None:
        """Another memory that quotes the forgotten text: scrubbed field by field and
        written again, so its front matter stays valid YAML (a bare `[forgotten]` inside
        a plain scalar would not parse). None: not a parseable memory (raw replace)."""
        try:
            mem = model.parse(data)
        except Exception:
            return None

        def scrub(v: str) -> str:
            for n in self.bneedles:
                t = n.decode("utf-8", "replace")
                if t in v:
                    v = v.replace(t, self.purge.mark)
            return v
        mem = mem.with_(text=scrub(mem.text), summary=scrub(mem.summary),
                        tags=tuple(scrub(t) for t in mem.tags),
                        key=scrub(mem.key) if mem.key else mem.key)
        return model.render(mem)

    def message(self, msg: str) -> str:
        for n in self.sneedles:
            if n in msg:
                msg = msg.replace(n, self.purge.mark)
        # A commit about exactly one forgotten memory has its summary as subject: scrub
        # it whatever its length (short summaries are not searched for as needles).
        trailers = parse_trailers(msg)
        ids = trailers.get("Gitmem-Id", [])
        if len(ids) == 1 and ids[0] in self.purge.ids and trailers.get("Gitmem-Op"):
            subject, sep, rest = msg.partition("\n")
            op = trailers["Gitmem-Op"][0]
            if op not in ("forget", "dream", "undream") and subject != f"{op}: {self.purge.mark}":
                msg = f"{op}: {self.purge.mark}" + sep + rest
        return msg


def ref_updates(roots: dict[str, str], tags: dict[str, tuple[str, str]], start: dict[str, str],
                 rw: Rewrite) -> tuple[list[tuple[str, str, str | None]], list[str]]:
    """(ref, new, old) for every ref that moves, and the annotated tags that go."""
    updates: list[tuple[str, str, str | None]] = []
    for ref, old in roots.items():
        new = rw.refs[ref][1] if ref in rw.refs else start.get(ref, old)
        if new != old:
            updates.append((ref, new, old))
    # An annotated tag would keep the old history reachable: it goes (reported).
    dropped = []
    for ref, (tag_obj, peeled) in tags.items():
        if rw.refs.get(f"{ref}^{{}}", (peeled, peeled))[1] != peeled:
            updates.append((ref, "", tag_obj))
            dropped.append(ref)
    return updates, dropped


def ids_with_replaced_blobs(git: GitStore, roots: dict[str, str], blobs: set[str]) -> set[str]:
    """Memories at the old scope tips whose file the rewrite changed (the index holds
    their old text)."""
    out: set[str] = set()
    for ref, old in roots.items():
        if ref.startswith(SCOPE_PREFIX):
            for path, blob in git.walk_files(git.commit_obj(old)):
                name = path.rsplit("/", 1)[-1]
                if blob in blobs and name.endswith(".md") and model.is_id(name[:-3]):
                    out.add(name[:-3])
    return out


def purge_index(svc: Memories, ids: Iterable[str]) -> str:
    """Remove the index's copy of forgotten text: drop the ids, then rebuild into a new
    file that is swapped in (compacting in place would leave old pages behind). If that
    fails, delete the index files: the index is derived and rebuilds itself."""
    ids = sorted(set(ids))
    home = Path(svc.home)
    try:
        from gitmem.index import Index, drop_ids, index_path
    except ImportError:
        return delete_index_of(home)
    if not index_path(home).exists():
        return "absent"
    try:
        from gitmem.index.embed import get_embedder

        drop_ids(home, ids, config=svc.config)
        Index(home, svc.git, svc.config, get_embedder(svc.config)[0]).rebuild()
        return "rebuilt"
    except Exception:  # any index trouble: the safe fallback is no index at all
        return delete_index_of(home)


def pending_path(home: Path) -> Path:
    """The marker of a purge whose refs moved but whose prune may not have run."""
    return paths.state_file(home, "purge-pending.json")


def finish_interrupted(svc: Memories) -> dict[str, Any] | None:
    """Finish a forget or redact killed after its refs moved: prune the unreachable
    objects that still hold the text, drop the forgotten ids' access counts and
    receipts, and delete the index (it rebuilds from the purged trees). None when no
    purge was interrupted."""
    pending = pending_path(svc.home)
    if not pending.exists():
        return None
    with svc.git.write_lock(timeout=120.0):
        if not pending.exists():
            return None  # another process finished it meanwhile
        try:
            rec = json.loads(pending.read_text())
            ids = [i for i in rec.get("ids", []) if isinstance(i, str)]
        except (OSError, ValueError, AttributeError):
            ids = []
        live = live_places(svc, ids)
        gone = [i for i in ids if i not in live]
        svc.git.prune()
        access.drop(svc.home, gone)
        receipts.purge(svc.home, gone)
        note = delete_index_of(Path(svc.home))
        pending.unlink(missing_ok=True)
    return {"ids": gone, "index": note}


def delete_index_of(home: Path) -> str:
    removed = 0
    for p in home.glob("index.duckdb*"):
        p.unlink(missing_ok=True)
        removed += 1
    for p in home.glob(".index.duckdb*"):
        p.unlink(missing_ok=True)
    return "deleted" if removed else "absent"


# ---- finding what to forget ------------------------------------------------------------
def live_places(svc: Memories, ids: Iterable[str]) -> dict[str, list[tuple[str, str]]]:
    """id -> [(scope, path)] where the id is live (memories/ or archive/) at a tip."""
    out: dict[str, list[tuple[str, str]]] = {}
    for scope in svc.git.scopes():
        tip = svc.git.tip(scope)
        for i in ids:
            path = svc.find_in(tip, i)
            if path:
                out.setdefault(i, []).append((scope, path))
    return out
