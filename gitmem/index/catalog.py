"""The catalog: one row per memory file of every scope tip (id, scope, path, blob id,
type, importance, key, tags, created, updated, summary, supersedes, archived), in the
index file beside the chunks. What `context`, `status`, `list` and `scopes` read instead
of parsing every memory from git; they then fetch only the bodies they show.

Derived and disposable like the rest of the file: it has its own cursor per scope
(`catalog_cursors`) and catches up from the diff between the commit it last saw and
the tip, through the same object layer and under the same index lock as the chunks, so
a commit made by plain git is picked up by the next read. A scope whose old cursor is
gone (a forget rewrote its history) is reconciled by comparing the tip's blob ids with
the rows, parsing only what differs. A missing or unreadable catalog is rebuilt from git,
with one warning when one had been built before (`state/catalog.built` says so).

Rows carry values the caller derives (`classify(memory) -> dict` of DERIVED: whether it
may go into a prompt, the measure of its quoted line, its times as unix seconds): the
memories layer owns those rules, this module only stores them; the classifier's version
is part of the catalog's version, so changing it rebuilds."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

from gitmem.core import model as mdl
from gitmem.core import paths
from gitmem.core.errors import ConflictError, IndexError_
from gitmem.core.fsutil import atomic_write, file_lock
from gitmem.index import catalog_view, db

CATALOG_VERSION = "2"
MARKER = "catalog.built"
COLUMNS = ("scope", "id", "path", "blob", "type", "importance", "key", "tags", "created", "updated",
           "summary", "supersedes", "archived", "flag", "qlen", "qcjk", "updated_ts", "when_ts", "entered_ts",
           "error")
PICKED = catalog_view.PICKED  # the columns `picks` returns (then the weight)
# What the caller's classify(memory) returns per row, beside the front matter.
DERIVED = ("flag", "qlen", "qcjk", "updated_ts", "when_ts", "entered_ts")
_NO_DERIVED = {"flag": False, "qlen": 0, "qcjk": 0, "updated_ts": 0.0, "when_ts": 0.0, "entered_ts": 0.0}
SCHEMA = [
    "CREATE TABLE IF NOT EXISTS catalog_meta (k VARCHAR, v VARCHAR)",
    "CREATE TABLE IF NOT EXISTS catalog_cursors (scope VARCHAR, commit_id VARCHAR)",
    """CREATE TABLE IF NOT EXISTS catalog (scope VARCHAR, id VARCHAR, path VARCHAR, blob VARCHAR,
        type VARCHAR, importance INTEGER, key VARCHAR, tags VARCHAR[], created VARCHAR, updated VARCHAR,
        summary VARCHAR, supersedes VARCHAR[], archived BOOLEAN, flag BOOLEAN, qlen INTEGER, qcjk INTEGER,
        updated_ts DOUBLE, when_ts DOUBLE, entered_ts DOUBLE, error VARCHAR)""",
]
TABLES = ("catalog_meta", "catalog_cursors", "catalog")
ROOTS = ("memories/", "archive/")


BUSY_WAIT = 3.0  # seconds a catalog read waits for the file before its caller walks the trees


class CatalogUnavailable(IndexError_):
    """The index file is held by a writer or another handle of this process: the
    caller reads the trees instead (the catalog only makes reads faster)."""


@dataclass(frozen=True)
class Entry:
    """One memory file as the catalog knows it (no body). `error`: why the file does
    not parse (then only scope, path and blob are set)."""

    scope: str
    id: str
    path: str
    blob: str
    type: str
    importance: int
    key: str | None
    tags: tuple[str, ...]
    created: str
    updated: str
    summary: str
    supersedes: tuple[str, ...]
    archived: bool
    flag: bool
    qlen: int
    qcjk: int
    updated_ts: float
    when_ts: float
    entered_ts: float
    error: str | None

    @classmethod
    def of(cls, row: Sequence[Any]) -> "Entry":
        d = dict(zip(COLUMNS, row))
        d["tags"] = tuple(d["tags"] or ())
        d["supersedes"] = tuple(d["supersedes"] or ())
        return cls(**d)

    def stub(self) -> mdl.Memory:
        """A Memory with the catalog's fields and no text (weights, sorting, filters)."""
        return mdl.Memory(id=self.id, text="", type=self.type, summary=self.summary, importance=self.importance,
                          tags=self.tags, created=self.created, updated=self.updated, key=self.key,
                          supersedes=self.supersedes, scope=self.scope, path=self.path)


def is_memory_file(path: str) -> bool:
    return path.endswith(".md") and path.startswith(ROOTS)


Classify = Callable[[mdl.Memory], dict[str, Any]]


def row_of(scope: str, path: str, blob: str, data: bytes, classify: Classify) -> tuple:
    """The catalog row of one memory file (pure but for `classify`, which gives the
    DERIVED values)."""
    archived = path.startswith("archive/")
    try:
        m = mdl.parse(data, path=path)
    except mdl.MalformedMemory as e:
        return (scope, "", path, blob, "", 0, None, [], "", "", "", [], archived,
                *(_NO_DERIVED[k] for k in DERIVED), e.message)
    d = {**_NO_DERIVED, **classify(m)}
    return (scope, m.id, path, blob, m.type, int(m.importance), m.key, list(m.tags), m.created or "",
            m.updated or "", m.summary or "", list(m.supersedes), archived, *(d[k] for k in DERIVED), None)


class Catalog:
    """The catalog of one store. Cheap to construct; every read opens the file briefly."""

    def __init__(self, home: Path, git, config, classify: Classify, classifier_version: str = ""):
        self.home = Path(home)
        self.git = git
        self.config = config
        self.classify = classify
        self.version = f"{CATALOG_VERSION}/{classifier_version}"
        self.path = db.index_path(self.home)
        self.warnings: list[str] = []
        self.last_catch_up: dict[str, Any] = {}
        self._memo_tips: tuple = ()
        self._memo_vals: dict[tuple, Any] = {}
        # A long-lived process (the daemon) sets this: picks() then answers from the live
        # rows kept in memory per tips (catalog_view.View) instead of a query per call.
        self.keep_view = False
        self._catalog_view: catalog_view.View | None = None

    @property
    def _retry(self) -> float:
        return float(self.config.get("index", "open_retry"))

    @property
    def _timeout(self) -> float:
        return float(self.config.get("index", "lock_timeout"))

    # ---- freshness ------------------------------------------------------------------
    def _state(self, con) -> dict[str, str] | None:
        """The cursors when the catalog in `con` is usable, else None."""
        try:
            meta = dict(con.execute("SELECT k, v FROM catalog_meta").fetchall())
            if meta.get("version") != self.version:
                return None
            return dict(con.execute("SELECT scope, commit_id FROM catalog_cursors").fetchall())
        except Exception:
            return None

    def _connect(self, read_only: bool):
        """db.connect, also waiting out this process's own other handle on the file (a
        snapshot being copied in another thread); CatalogUnavailable if it stays busy."""
        deadline = time.monotonic() + min(self._retry, BUSY_WAIT)
        while True:
            try:
                return db.connect(self.path, read_only=read_only, retry=min(self._retry, BUSY_WAIT))
            except Exception as e:
                if not db.is_busy(e):
                    raise
                if time.monotonic() > deadline:
                    raise CatalogUnavailable(f"the index file is busy: {e}") from e
                time.sleep(0.02)

    def _open_fresh(self):
        """A read-only connection to a catalog in step with every scope tip."""
        tips = dict(self.git.scopes())
        for attempt in range(3):
            con = None
            if self.path.exists():
                try:
                    con = self._connect(read_only=True)
                except CatalogUnavailable:
                    raise
                except Exception:
                    con = None
            if con is not None:
                if self._state(con) == tips:
                    return con
                con.close()
            self.catch_up()
            tips = dict(self.git.scopes())
        raise IndexError_("the catalog does not keep up with the scope tips",
                          hint="retry; `gitmem reindex` rebuilds it")

    def catch_up(self) -> dict[str, Any]:
        """Bring the catalog up to every scope tip: the changed files are read and parsed
        first, with no lock and no handle on the file; the index lock is held only to
        write them (a recall catching the index up meanwhile is not kept waiting)."""
        tips = dict(self.git.scopes())
        cursors, plan = self._prepare(tips)
        try:
            lock = file_lock(db.lock_path(self.home), timeout=min(self._timeout, BUSY_WAIT))
            lock.__enter__()
        except ConflictError as e:
            raise CatalogUnavailable("the index is busy: another process is building it",
                                     hint="retry, or run `gitmem reindex` once it finishes") from e
        try:
            return self._catch_up_locked(tips, cursors, plan)
        finally:
            lock.__exit__(None, None, None)

    def _prepare(self, tips: dict[str, str]) -> tuple[dict[str, str] | None, tuple]:
        """(cursors, plan) from a short read-only look (None: no usable catalog)."""
        con = None
        if self.path.exists():
            try:
                con = self._connect(read_only=True)
            except Exception:
                con = None
        try:
            cursors = self._state(con) if con is not None else None
            return cursors, self._plan(con, cursors or {}, tips)
        finally:
            if con is not None:
                con.close()

    def _catch_up_locked(self, tips: dict[str, str], planned: dict[str, str] | None, plan: tuple) -> dict[str, Any]:
        con = None
        if self.path.exists():
            try:
                con = self._connect(read_only=False)
            except CatalogUnavailable:
                raise
            except Exception as e:
                if not db.is_damaged(e):  # anything else: leave the file alone, read the trees
                    raise CatalogUnavailable(f"the index file does not open: {e}") from e
                con = None
                for p in (self.path, Path(str(self.path) + ".wal")):
                    p.unlink(missing_ok=True)   # damaged: the index rebuilds too
        if con is None:
            con = self._connect(read_only=False)
        try:
            cursors = self._state(con)
            rebuilt = cursors is None
            if rebuilt:
                for t in TABLES:
                    con.execute(f"DROP TABLE IF EXISTS {t}")
                cursors = {}
            for stmt in SCHEMA:
                con.execute(stmt)
            if cursors != (planned or {}):  # another process moved it meanwhile: plan again
                plan = self._plan(con, cursors, tips)
            con.execute("BEGIN")
            stats = self._write(con, plan)
            con.execute("DELETE FROM catalog_cursors")
            con.execute("INSERT INTO catalog_cursors SELECT unnest(?::VARCHAR[]), unnest(?::VARCHAR[])",
                        [list(tips), list(tips.values())])
            con.execute("DELETE FROM catalog_meta")
            con.execute("INSERT INTO catalog_meta VALUES ('version', ?)", [self.version])
            con.execute("COMMIT")
        except BaseException:
            try:
                con.execute("ROLLBACK")
            except Exception:
                pass
            raise
        finally:
            con.close()
        marker = paths.state_file(self.home, MARKER)
        if rebuilt:
            if marker.exists() and tips:
                self.warnings.append("the memory catalog was missing or unreadable: rebuilt from git")
            try:  # (only what the warning says; a state/ that cannot be written is doctor's)
                atomic_write(marker, b"")
            except OSError:
                pass
        self.last_catch_up = {**stats, "rebuilt": rebuilt}
        return self.last_catch_up

    def _plan(self, con, cursors: dict[str, str], tips: dict[str, str]) -> tuple:
        """(scopes gone, paths to drop, rows to add) between the cursors and the tips."""
        gone_scopes = [s for s in cursors if s not in tips]
        drops: list[tuple[str, str]] = []
        rows: list[tuple] = []
        for scope, tip in tips.items():
            old = cursors.get(scope)
            if old == tip:
                continue
            if old is not None and not self.git.has_commit(old):
                d, r = self._reconcile(con, scope, tip)   # history rewritten (forget)
                drops += d
                rows += r
                continue
            for status, path, oid in self.git.diff_files(old, tip):
                if not is_memory_file(path):
                    continue
                if old is not None:
                    drops.append((scope, path))
                if status != "D" and oid:
                    rows.append(row_of(scope, path, oid, self.git.blob(oid, path), self.classify))
        return gone_scopes, drops, rows

    def _write(self, con, plan: tuple) -> dict[str, int]:
        """Write a plan (inside the caller's transaction)."""
        gone_scopes, drops, rows = plan
        if gone_scopes:
            con.execute("DELETE FROM catalog WHERE scope IN (SELECT unnest(?::VARCHAR[]))", [gone_scopes])
        if drops:
            con.execute("CREATE TEMP TABLE gone AS SELECT unnest(?::VARCHAR[]) AS scope, "
                        "unnest(?::VARCHAR[]) AS path", [[s for s, _ in drops], [p for _, p in drops]])
            con.execute("DELETE FROM catalog WHERE (scope, path) IN (SELECT (scope, path) FROM gone)")
            con.execute("DROP TABLE gone")
        if rows:
            cols = list(zip(*rows))
            con.execute(
                "INSERT INTO catalog SELECT unnest(?::VARCHAR[]), unnest(?::VARCHAR[]), unnest(?::VARCHAR[]), "
                "unnest(?::VARCHAR[]), unnest(?::VARCHAR[]), unnest(?::INTEGER[]), unnest(?::VARCHAR[]), "
                "unnest(?::VARCHAR[][]), unnest(?::VARCHAR[]), unnest(?::VARCHAR[]), unnest(?::VARCHAR[]), "
                "unnest(?::VARCHAR[][]), unnest(?::BOOLEAN[]), unnest(?::BOOLEAN[]), unnest(?::INTEGER[]), "
                "unnest(?::INTEGER[]), unnest(?::DOUBLE[]), unnest(?::DOUBLE[]), unnest(?::DOUBLE[]), "
                "unnest(?::VARCHAR[])",
                [list(c) for c in cols])
        return {"rows": len(rows), "dropped": len(drops)}

    def _reconcile(self, con, scope: str, tip: str) -> tuple[list[tuple[str, str]], list[tuple]]:
        """(drops, rows) that make the scope's rows match the tip's tree, parsing only
        the files whose blob id differs from the row's."""
        have = dict(con.execute("SELECT path, blob FROM catalog WHERE scope = ?", [scope]).fetchall())
        rev = self.git.commit_obj(tip)
        now: dict[str, str] = {}
        for root in ROOTS:
            for path, oid in self.git.walk_files(rev, root.rstrip("/")):
                if is_memory_file(path):
                    now[path] = oid
        drops = [(scope, p) for p, b in have.items() if now.get(p) != b]
        rows = [row_of(scope, p, b, self.git.blob(b, p), self.classify)
                for p, b in now.items() if have.get(p) != b]
        return drops, rows

    # ---- queries ----------------------------------------------------------------------
    def _memo(self, key: tuple, compute: Callable[[], Any]) -> Any:
        """An answer is a function of the scope tips alone: a long-lived process (the
        daemon) keeps the last few, keyed by the tips, and asks the file again only
        after a tip moved."""
        tips = tuple(sorted(self.git.scopes().items()))
        if tips != self._memo_tips:
            self._memo_tips, self._memo_vals = tips, {}
        if key not in self._memo_vals:
            if len(self._memo_vals) >= 16:
                self._memo_vals.clear()
            self._memo_vals[key] = compute()
        return self._memo_vals[key]

    @property
    def built(self) -> bool:
        """Whether this store's catalog was built before (a read then costs a catch-up
        by the diff, not a parse of every memory)."""
        return paths.state_file(self.home, MARKER).exists()

    def supersessions(self, scope: str) -> list[tuple[str, list[str]]]:
        """(path, ids it names in `supersedes`) of the scope's live memory files naming any."""
        return self._query("SELECT path, supersedes FROM catalog WHERE scope = ? AND error IS NULL AND "
                           "starts_with(path, 'memories/') AND len(supersedes) > 0 ORDER BY path", [scope])

    def _query(self, sql: str, params: list[Any]) -> list[tuple]:
        con = self._open_fresh()
        try:
            return con.execute(sql, params).fetchall()
        finally:
            con.close()

    def listing(self, scopes: Sequence[str], *, archived: bool = False, type: str | None = None,  # noqa: A002
                limit: int | None = None) -> tuple[list[Entry], list[Entry]]:
        """(entries, unparsable) of the scopes' memory files: entries newest id first
        (then scope order, then path), at most `limit`; unparsable, every file that
        does not parse (id ''). `type` filters by the folder a file lives in, as a tree
        walk under memories/<type> would."""
        scopes = list(scopes)
        if not scopes or (type is not None and type.encode("utf-8", "replace") != type.encode("utf-8", "surrogatepass")):
            return [], []  # no folder the catalog holds has a name that is not Unicode (DuckDB refuses it)
        good, bad = self._memo(("listing", tuple(scopes), archived, type, limit),
                               lambda: self._listing(scopes, archived, type, limit))
        return list(good), list(bad)

    def _listing(self, scopes: list[str], archived: bool, type: str | None,  # noqa: A002
                 limit: int | None) -> tuple[list[Entry], list[Entry]]:
        where = ["scope IN (SELECT unnest(?::VARCHAR[]))"]
        params: list[Any] = [scopes]
        if not archived:
            where.append("NOT archived")
        if type is not None:
            where.append("(starts_with(path, ?) OR starts_with(path, ?))")
            params += [f"memories/{type}/", f"archive/{type}/" if archived else f"memories/{type}/"]
        cond = " AND ".join(where)
        sql = (f"SELECT {', '.join(COLUMNS)} FROM catalog WHERE {cond} AND error IS NULL "
               "ORDER BY id DESC, list_position(?::VARCHAR[], scope), path")
        if limit is not None:
            sql += f" LIMIT {max(0, int(limit))}"
        con = self._open_fresh()
        try:
            good = con.execute(sql, params + [scopes]).fetchall()
            bad = con.execute(f"SELECT {', '.join(COLUMNS)} FROM catalog WHERE {cond} AND error IS NOT NULL "
                              "ORDER BY list_position(?::VARCHAR[], scope), path", params + [scopes]).fetchall()
        finally:
            con.close()
        return [Entry.of(r) for r in good], [Entry.of(r) for r in bad]

    def picks(self, scopes: Sequence[str], *, weight: tuple[str, list[Any]], counts: dict[str, tuple[int, int]],
              since: float, n_prefs: int, n_top: int, recent_limit: int | None = None,
              exclude: Sequence[str] = ()) -> dict[str, Any]:
        """What `context` chooses from, in one short read: among the live rows whose flag
        is set, the `n_prefs` heaviest preferences, every row whose when_ts >= since
        (newest first) and the `n_top` heaviest, each a tuple of PICKED + (weight,)
        (plain tuples: "since" may hold every memory of a fresh import); and how many
        rows are flagged off ("withheld") and on ("total"). `weight`: a SQL expression
        over importance, updated_ts, entered_ts, n and last_access (the access `counts`,
        id -> (n, last)) and its parameters. Ties go to the newest id, then scope order.
        Rows whose id is in `exclude` (memories a live one replaced) count as absent.

        `recent_limit`: only the first that many recent rows; then "tail" is (how many
        rows were left out, the least any of them can cost in `context`'s budget: its
        line's measure, counting no CJK outside the quote) and "ids" the number of
        distinct ids of every pick, recent ones left out included."""
        scopes = list(scopes)
        if not scopes:
            return {"prefs": [], "recent": [], "top": [], "withheld": 0, "total": 0}
        view = self._view() if weight[0] == catalog_view.WEIGHT_EXPR else None
        got = None if view is None else view.picks(scopes, weight[1], counts, since, n_prefs, n_top,
                                                    recent_limit, exclude)
        if got is not None:
            return got
        con = self._open_fresh()
        try:
            return catalog_view.picks_sql(con, scopes, PICKED, weight=weight, counts=counts, since=since,
                                          n_prefs=n_prefs, n_top=n_top, recent_limit=recent_limit, exclude=exclude)
        finally:
            con.close()

    def _view(self) -> catalog_view.View | None:
        """The live rows in memory at the current tips (`keep_view`: a long-lived process
        asks for them), caught up from the last ones by the files that differ."""
        if not self.keep_view:
            return None
        tips = dict(self.git.scopes())
        view = self._catalog_view
        if view is not None and view.tips == tips:
            return view
        con = self._open_fresh()
        try:
            state = self._state(con) or {}
            changed = None if view is None else catalog_view.changed_files(self.git, view.tips, state,
                                                                           is_memory_file)
            if changed is None:
                view = catalog_view.View.load(con, state)
            else:
                view.update(con, changed, state)
        except BaseException:
            self._catalog_view = None   # half updated: load whole next time
            raise
        finally:
            con.close()
        self._catalog_view = view
        return view if view.tips == tips else None

    def counts(self, scopes: Iterable[str]) -> dict[str, int]:
        """scope -> memory files under memories/ (what `scopes` and `status` count)."""
        scopes = list(scopes)
        if not scopes:
            return {}
        rows = self._memo(("counts", tuple(scopes)), lambda: self._query(
            "SELECT scope, count(*) FROM catalog WHERE NOT archived AND scope IN "
            "(SELECT unnest(?::VARCHAR[])) GROUP BY scope", [scopes]))
        out = {s: 0 for s in scopes}
        out.update({s: int(n) for s, n in rows})
        return out


def copy_from(con, source: Path) -> None:
    """Carry the catalog of an old index file into a rebuilt one (`con`, inside no
    transaction); skipped when the old file has none or does not open."""
    for stmt in SCHEMA:
        con.execute(stmt)
    try:
        con.execute(f"ATTACH '{db.sql_str(str(source))}' AS oldcat (READ_ONLY)")
    except Exception:
        return
    try:
        con.execute("BEGIN")
        for t in TABLES:
            con.execute(f"INSERT INTO {t} SELECT * FROM oldcat.{t}")
        con.execute("COMMIT")
    except Exception:
        con.execute("ROLLBACK")
    finally:
        con.execute("DETACH oldcat")
