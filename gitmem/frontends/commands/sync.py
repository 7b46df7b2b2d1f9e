"""Commands for sync: `remote`, `sync`, `resolve`, `scopes private|public`."""

from __future__ import annotations

import sys

import click

from gitmem.frontends.cli import emit, emit_json, json_option, pass_store


@click.group()
def remote() -> None:
    """Git remotes this store syncs with (plain git remotes in repo.git/config).

    \b
    Examples:
      gitmem remote add origin git@github.com:me/memory.git
      gitmem remote add nas ssh://nas.local/srv/git/memory.git
      gitmem remote list --json
      gitmem remote remove nas
    """


@remote.command("add")
@click.argument("name")
@click.argument("url")
@json_option
@pass_store
def remote_add(store, name, url, as_json):
    """Add remote NAME at URL: a path, file://, git://, http(s)://, ssh:// or host:path.

    Credentials work as for git: credential helpers, ssh-agent, ~/.ssh/config. The
    remote should be an empty bare repository (`git init --bare -b main`) or another
    gitmem store.

    \b
    Example:
      gitmem remote add origin https://git.example.com/me/memory.git
    """
    out = store.remote_add(name, url)
    emit(out, as_json, f"added remote {name} -> {url}; `gitmem sync {name}` pulls and pushes")


@remote.command("list")
@json_option
@pass_store
def remote_list(store, as_json):
    """Remotes with their URL, last sync and per-scope ahead/behind (no network).

    \b
    Example:
      gitmem remote list --json
    """
    rows = store.remotes()
    if as_json:
        emit_json(rows)
        return
    if not rows:
        click.echo("(no remotes; `gitmem remote add NAME URL`)")
    for r in rows:
        click.echo(f"{r['remote']}\t{r['url']}\tlast sync: {r['last_sync'] or 'never'}")


@remote.command("remove")
@click.argument("name")
@json_option
@pass_store
def remote_remove(store, name, as_json):
    """Remove remote NAME (its tracking refs go with it; nothing on the server changes).

    \b
    Example:
      gitmem remote remove nas
    """
    out = store.remote_remove(name)
    emit(out, as_json, f"removed remote {name}")


@click.command()
@click.argument("name", required=False)
@click.option("--scope", "-s", "scopes", multiple=True, help="Only this scope (repeatable).")
@click.option("--dry-run", is_flag=True, help="Say what would move (one ls-remote; nothing fetched or pushed).")
@click.option("--quiet", "-q", is_flag=True, help="No progress lines on stderr.")
@json_option
@pass_store
def sync(store, name, scopes, dry_run, quiet, as_json):
    """Fetch, apply the redaction ledger, merge every scope, push (every remote, or NAME).

    Never stops to ask: an edit made on both sides keeps the later one and stores the
    other as a conflict copy (`gitmem list --conflicts`, `gitmem resolve`). A push
    carries the remote tip seen at fetch as its lease, so nothing someone else pushed
    meanwhile is overwritten; the round is retried instead.

    \b
    Examples:
      gitmem sync
      gitmem sync origin --scope main --json
      gitmem sync --dry-run
    """
    def progress(line: str) -> None:
        if not quiet and sys.stderr.isatty():
            click.echo(f"… {line}", err=True)

    out = store.sync(name, scopes=list(scopes) or None, dry_run=dry_run, progress=progress)
    if as_json:
        emit_json(out)
        return
    for r in out["remotes"]:
        if r.get("dry_run"):
            click.echo(f"{r['remote']} (dry run):")
            for s in r["scopes"]:
                what = [w for w, on in (("fetch", s["would_fetch"]), ("push", s["would_push"])) if on]
                click.echo(f"  {s['scope']:<30} {' + '.join(what) or 'in step'}")
            continue
        click.echo(f"{r['remote']}: {r['url']}")
        for s in r["scopes"]:
            bits = []
            if s["merged"] != "none":
                bits.append(f"{s['merged']} ({s['fetched']} new)")
            if s["pushed"]:
                bits.append("pushed")
            if s["conflicts"]:
                bits.append(f"{len(s['conflicts'])} conflict(s) kept as copies")
            if s["refused"]:
                bits.append(f"push refused: {s['refused']}")
            click.echo(f"  {s['scope']:<30} {', '.join(bits) or 'in step'}")
        led = r["ledger"]
        if led["applied"]:
            click.echo(f"  redactions applied here: {', '.join(led['ids']) or 'blobs only'}")
        if r.get("still_holding_text"):
            click.echo(f"  warning: {r['remote']} still holds forgotten text in "
                       f"{', '.join(r['still_holding_text'])}", err=True)
            click.echo(f"  hint: {r['hint']}", err=True)


@click.command()
@click.argument("ref")
@click.option("--keep", default="current", show_default=True,
              help="current (this version), other (the conflict copy), or the text to keep.")
@click.option("--scope", "-s", help="Only look in this scope.")
@json_option
@pass_store
def resolve(store, ref, keep, scope, as_json):
    """Settle a sync conflict of memory REF as one commit.

    \b
    Examples:
      gitmem list --conflicts
      gitmem resolve 0mhx2k3a9b1cd --keep other
      gitmem resolve deploy-day --keep "deploy on Thursday after 10:00"
    """
    out = store.resolve(ref, keep, scope=scope)
    emit(out, as_json, f"resolved {out['id']} in {out['scope']} (kept {out['kept']}) {(out['commit'] or '')[:10]}")
