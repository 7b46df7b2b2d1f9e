"""Recall commands: recall, reindex."""

from __future__ import annotations

import sys

import click

from gitmem.frontends.cli import emit, emit_json, json_option, pass_store


def progress_bars(show: bool | None = None):
    """Progress on stderr: a click.progressbar when stderr is a terminal; on a pipe,
    with `show` (--progress), one line per tenth done (for logs); with show=False, or
    on a pipe without --progress, nothing."""
    if show is False:
        return None
    if not sys.stderr.isatty():
        return _line_progress if show else None

    def bar(length: int, label: str):
        return click.progressbar(length=length, label=f"gitmem: {label}", file=sys.stderr)

    return bar


class _Lines:
    def __init__(self, length: int, label: str):
        self.length, self.label, self.done, self.shown = max(1, length), label, 0, -1

    def __enter__(self):
        return self

    def __exit__(self, *a):
        return False

    def update(self, n: int) -> None:
        self.done += n
        tenth = self.done * 10 // self.length
        if tenth > self.shown:
            self.shown = tenth
            click.echo(f"gitmem: {self.label} {self.done}/{self.length}", err=True)


def _line_progress(length: int, label: str) -> _Lines:
    return _Lines(length, label)


def _runtime():
    """How this command reaches the store and the daemon (frontends.runtime)."""
    from gitmem.frontends import runtime

    return runtime.of(click.get_current_context(silent=True))


def index_after_import(store, result: dict, as_json: bool, progress: bool | None = None) -> dict | None:
    """After a bulk write: when a `gitmem serve` runs for the store, hand the indexing
    to it (it embeds in the background with its warm model; recall --timeout answers by
    words meanwhile); else index and embed now, with progress, so the next recall does
    not. What was done, for --json."""

    if result.get("created", 0) + result.get("updated", 0) == 0:
        return None
    ans = _runtime().ask_refresh(store.home, now=True, timeout=2.0)
    if ans:
        if not as_json:
            click.echo(f"indexing: gitmem serve (pid {ans.get('pid')}) embeds them in the background; "
                       "`gitmem status` shows how many wait, and recall --timeout answers by words meanwhile",
                       err=True)
        return {"background": True, "pid": ans.get("pid")}
    info = store.index_catch_up(progress=progress_bars(progress))
    if not as_json:
        click.echo(f"indexed: {info['chunks']} chunks, {info['embedded']} embedded", err=True)
    return {"background": False, **info}


@click.command()
@click.argument("query")
@click.option("-k", "k", type=click.IntRange(1, 1000), default=10, show_default=True, help="Number of hits.")
@click.option("--scope", "-s", "scopes", multiple=True, help="Scope to search (repeatable).")
@click.option("--all-scopes", is_flag=True, help="Search every scope.")
@click.option("--type", "-t", "types", multiple=True, help="Only memories of this type (repeatable).")
@click.option("--since", help="Only memories created on or after this date (2024-05-01).")
@click.option("--archived", is_flag=True, help="Include memories retired to archive/.")
@click.option("--mode", type=click.Choice(["hybrid", "bm25", "vector"]), help="Ranking to use.")
@json_option
@click.option("--format", "fmt", type=click.Choice(["table", "json", "prompt"]), default=None,
              help="Output format; `prompt` renders templates/recall.j2 for an agent.")
@click.option("--budget", type=click.IntRange(50, 1_000_000), help="Token budget for --format prompt.")
@click.option("--explain", is_flag=True, help="Show ranks and factors behind each score.")
@click.option("--at", "at", metavar="REV|DATE",
              help="Search the memory as it stood at a commit or date (what the agent knew then).")
@click.option("--timeout", "timeout_ms", type=click.IntRange(0, 3_600_000), metavar="MS",
              help="Never wait on embedding new memories: BM25 only while their vectors are pending "
                   "(they are embedded in the background); --json then prints an object with `vectors`.")
@click.option("--min-relevance", "min_relevance", type=click.FloatRange(0, 1), metavar="P",
              help="Leave out hits less relevant than P (default [recall] min_relevance; 0 shows every hit).")
@click.option("--include-superseded", is_flag=True,
              help="Keep memories a newer one replaced (`remember --supersedes`), each below its successor.")
@pass_store
def recall(store, query, k, scopes, all_scopes, types, since, archived, mode, as_json, fmt, budget, explain, at,
           timeout_ms, min_relevance, include_superseded):
    """Search memories for QUERY (BM25 + embeddings), with citations.

    --at DATE reads every searched scope at its last commit on or before DATE (a bare
    date is the end of that day, UTC); --at REV reads the scope that commit belongs
    to at exactly that commit (searched even if not asked for) and every other scope
    as of the commit's time. Hits cite those commits; forgotten memories stay
    forgotten.

    Each hit has a relevance: the estimated probability that it is relevant to the
    query. Hits below [recall] min_relevance are left out (`no matches`, JSON `[]`).

    \b
    Examples:
      gitmem recall "deploy window"
      gitmem recall "部署时间" --all-scopes -k 5 --json
      gitmem recall "code style" --format prompt --budget 800
      gitmem recall "deploy window" --at 2024-03-03
      gitmem recall "deploy window" --at 2024-03-03T09:30:00Z --all-scopes --json
      gitmem recall "deploy window" --at 3f2c1ab   # as of that commit
      gitmem recall "deploy window" --explain      # ranks, scores, relevance and why per hit
      gitmem recall "deploy window" --min-relevance 0   # every hit, however unlikely
      gitmem recall "deploy window" --timeout 200 --json   # right after a bulk import
      gitmem recall "where do I live" --include-superseded  # what was true before, too

    A memory another one replaced (`remember --supersedes`) is left out; among hits
    about one subject, a newer one that says the fact changed, or one written a month or
    more later, ranks above the older ([recall] prefer_newer).
    """

    fmt = "json" if as_json else (fmt or "table")
    filters = dict(all_scopes=all_scopes, type=list(types) or None, since=since, archived=archived,
                   mode=mode, explain=explain)
    if at is not None:
        filters["at"] = at
    if timeout_ms is not None:
        filters["timeout_ms"] = timeout_ms
    if min_relevance is not None:
        filters["min_relevance"] = min_relevance
    if include_superseded:
        filters["include_superseded"] = True
    # A running `gitmem serve` answers warm; without one (or if it fails) recall here.
    # The daemon is a transport, not a library: `serve` is a front end over the same
    # api, so one front end handing a request to another stays out of api.Store (which
    # would otherwise hold socket code and call itself over the socket from the daemon).
    rt = _runtime()
    served = rt.served_recall(store.home, query, k, list(scopes) or None, timeout=60.0, **filters)
    if served is not None and at is not None and not served[1].get("at"):
        served = None  # a daemon from before --at would have answered for now: ask here
    if served is not None:
        hits, info = served
    else:
        result = store.search(query, k=k, scopes=list(scopes) or None, progress=progress_bars(), **filters)
        hits, info = result.hits, result.info
    if info.get("backend") == "bm25" and info.get("reason") and mode != "bm25":
        click.echo(f"note: {info['reason']}; recall is BM25 only", err=True)
    if info.get("note"):
        click.echo(f"note: {info['note']}", err=True)
    if explain and info.get("language"):
        click.echo(f"note: {info['language']}", err=True)
    rel = (info.get("relevance") or {}) if explain else {}
    # What relevance read of the question's form (gitmem.recall.relevance.question_form).
    form = " and ".join(w for k, w in (("own", "speaks of the asker"), ("general", "asks in general")) if rel.get(k))
    if rel.get("side") == "cjk":
        cos = f", best cosine {rel.get('top_cos', 0):.2f}" if info.get("backend") != "bm25" else ""
        form_note = f"; the question {form}" if form and cos else ""
        click.echo(f"note: relevance judged by words: {rel['known']:.2f} of the query's content terms (by idf) "
                   f"occur in these scopes; longest shared stretch {rel.get('run', 0):.2f} of the cap{cos}{form_note}",
                   err=True)
    elif rel.get("side") == "hybrid":
        if form:
            click.echo(f"note: relevance read the question's form: it {form} (best coverage "
                       f"{rel.get('top_cov', 0):.2f}, best cosine {rel.get('top_cos', 0):.2f})", err=True)
        if rel.get("far"):  # gitmem.recall.relevance.far_in_meaning
            click.echo(f"note: no memory is near the question in meaning (best cosine {rel.get('top_cos', 0):.2f} "
                       "above the vector floor): relevance is held under the prompt's floor", err=True)
    pending = (info.get("vectors") or {}).get("pending")
    if pending and not rt.hand_off_indexing(store.home):  # a warm daemon embeds them itself
        _catch_up_in_background(store.home)
    replaced = info.get("superseded") or {}
    if fmt == "json":
        out = [h.to_dict(explain=explain) for h in hits]
        for d in out:
            if d["id"] in replaced:
                d["superseded_by"] = replaced[d["id"]]
        if timeout_ms is not None:
            emit_json({"hits": out, "backend": info.get("backend"),
                       "vectors": info.get("vectors") or {"ready": True, "pending": 0}, "note": info.get("note")})
        else:
            emit_json(out)
        return
    if fmt == "prompt":
        from gitmem.recall.render import render_prompt

        shown: list = []
        # Relevance floor, quarantine, injection phrasing; at most [hooks] max_results
        # unless -k was given.
        given = click.get_current_context().get_parameter_source("k") != click.core.ParameterSource.DEFAULT
        hits = store.prompt_hits(hits, k if given else None)
        if not hits:  # nothing relevant: nothing for the prompt, not an empty frame (issue 19)
            click.echo("no matches", err=True)
            return
        click.echo(render_prompt(hits, budget, query=query, shown=shown), nl=False)
        store.record_receipt("recall", query, shown)
        return
    if not hits:
        click.echo("no matches", err=True)
        return
    for old, by in replaced.items():
        click.echo(f"note: {old} is superseded by {', '.join(by)}", err=True)
    for h in hits:
        cite = f"{h.path}:{h.start_line}-{h.end_line}"
        click.echo(f"{h.score:8.4f}  {h.id}  {h.scope}  {h.type}  {cite}")
        click.echo(f"          {h.snippet}")
        if explain and h.explain:
            click.echo(_explain_line(h.explain))


def _catch_up_in_background(home) -> None:
    """A detached `gitmem reindex` embeds what a --timeout recall left pending (vectors
    already computed are reused from the index's cache, so only the new ones cost)."""
    import os
    import subprocess

    env = dict(os.environ, GITMEM_HOME=str(home))
    try:
        subprocess.Popen([sys.executable, "-m", "gitmem", "reindex"], env=env, stdin=subprocess.DEVNULL,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    except OSError:
        pass  # the next recall without --timeout embeds them instead


def _explain_line(ex: dict) -> str:
    """`recall --explain`: each side's rank and score, the fused score, the factors, why."""
    b, v = ex.get("bm25"), ex.get("vector")
    conf = ex.get("bm25_confidence")
    scaled = f", side x{conf:.2f}: its top hit covers little of the query" if conf is not None and conf < 1 else ""
    side_b = f"bm25 #{b['rank']} {b['score']:.3f} (part {b['part']:.3f}{scaled})" if b else "bm25 -"
    side_v = f"vector #{v['rank']} cos {v['similarity']:.3f} (part {v['part']:.3f})" if v else "vector -"
    out = (f"          {side_b}  {side_v}  fused {ex['fused']:.3f} x recency {ex['recency_factor']:.3f}"
           f" x importance {ex['importance_factor']:.3f} = {ex['final']:.3f}\n          why: {ex['why']}")
    rel = ex.get("relevance")
    if rel:
        out += (f"\n          relevance {rel['p']:.3f} (probability the hit is relevant; covers "
                f"{rel['coverage']:.2f} of the query's idf mass, cosine {rel['cosine']:.2f} of the way above "
                "the vector floor)")
    return out


@click.command()
@json_option
@pass_store
def reindex(store, as_json):
    """Rebuild the recall index (index.duckdb) from git, and retry the model.

    \b
    Example:
      gitmem reindex
    """
    info = store.reindex(progress=progress_bars())
    st = store.index_status()
    info.update(backend=st["backend"], model=st["model"], indexed=st["indexed"])
    emit(info, as_json, f"indexed {info['indexed']} memories ({info['chunks']} chunks, {info['embedded']} embedded) "
                        f"in {info['seconds']} s; backend {info['backend']}")
