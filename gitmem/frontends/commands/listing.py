"""Commands that look at the store: list, log, show, diff, scopes, status."""

from __future__ import annotations

import click

from gitmem.frontends.cli import emit, emit_json, json_option, mem_line, pass_store


@click.command("list")
@click.option("--scope", "-s", "scopes", multiple=True, help="Scope (repeatable).")
@click.option("--all-scopes", is_flag=True, help="Every scope.")
@click.option("--type", "-t", "mem_type", help="Only this type.")
@click.option("--archived", is_flag=True, help="Include memories retired by dream.")
@click.option("--conflicts", is_flag=True, help="Conflict copies kept by sync (settle with `gitmem resolve`).")
@click.option("-n", "--limit", type=int, help="At most N memories (the newest).")
@json_option
@pass_store
def list_cmd(store, scopes, all_scopes, mem_type, archived, conflicts, limit, as_json):
    """List live memories, newest first.

    \b
    Examples:
      gitmem list --type decision
      gitmem list --json -n 50
      gitmem list --all-scopes --json | jq '.[].summary'
      gitmem list --conflicts
    """
    if conflicts:
        rows = [r for s in (scopes or [None]) for r in store.conflicts(scope=s)]
        if as_json:
            emit_json(rows)
        elif not rows:
            click.echo("(no conflicts)")
        for r in rows if not as_json else []:
            cur = r["current"]["summary"] if r["current"] else "(removed)"
            click.echo(f"{r['id']}  {r['scope']}  current: {cur}")
            for c in r["copies"]:
                click.echo(f"    copy {c['path']}  {c['updated']}  {c['summary']}")
        return
    mems = store.list(type=mem_type, archived=archived, scopes=scopes, all_scopes=all_scopes, limit=limit)
    if as_json:
        emit_json([store.memory_json(m) for m in mems])
    else:
        for m in mems:
            click.echo(mem_line(m))


@click.command()
@click.argument("ref", required=False)
@click.option("--scope", "-s", help="Only this scope.")
@click.option("-p", "--patch", is_flag=True, help="Show how the text changed.")
@click.option("-n", "--limit", type=int, help="At most N entries.")
@json_option
@pass_store
def log(store, ref, scope, patch, limit, as_json):
    """The audit log: every commit, or every version of memory REF.

    \b
    Examples:
      gitmem log -n 20
      gitmem log 0mhx2k3a9b1cd -p
    """
    entries = store.log(ref, scope=scope, patch=patch, limit=limit)
    if as_json:
        emit_json([e.to_dict() for e in entries])
        return
    for e in entries:
        ids = f" [{', '.join(e.ids[:3])}{'…' if len(e.ids) > 3 else ''}]" if e.ids else ""
        click.echo(f"{e.commit[:10]} {e.time} {e.scope:<12} {e.author}: {e.summary}{ids}")
        if e.patch:
            click.echo(e.patch)


@click.command()
@click.argument("rev")
@json_option
@pass_store
def show(store, rev, as_json):
    """Show commit REV: message, trailers and change.

    \b
    Example:
      gitmem show main~1
    """
    info = store.show(rev)
    if as_json:
        emit_json(info)
    else:
        click.echo(f"commit {info['commit']}\nAuthor: {info['author']}\nDate:   {info['time']}\n")
        click.echo(info["message"])
        click.echo(info["diff"], nl=False)


@click.command()
@click.argument("rev1")
@click.argument("rev2")
@json_option
@pass_store
def diff(store, rev1, rev2, as_json):
    """Unified diff of memory files between REV1 and REV2.

    \b
    Example:
      gitmem diff main~3 main
    """
    text = store.diff(rev1, rev2)
    if as_json:
        emit_json({"from": rev1, "to": rev2, "diff": text})
    else:
        click.echo(text, nl=False)


@click.group(invoke_without_command=True)
@json_option
@pass_store
def scopes(store, as_json):
    """List scopes (branches) with their memory counts; mark one private or public.

    \b
    Examples:
      gitmem scopes --json
      gitmem scopes private channel/therapy     # never leaves this machine
      gitmem scopes public channel/therapy
    """
    if click.get_current_context().invoked_subcommand:
        return
    rows = store.scopes()
    if as_json:
        emit_json(rows)
    else:
        for r in rows:
            where = f"  linked: {', '.join(r['linked'])}" if r.get("linked") else ""
            tip = (r["tip"] or "")[:10] or "(empty)"
            click.echo(f"{r['scope']:<30} {r['memories']:>6}  {tip:<10}  {r['updated'] or '-'}{where}")


@scopes.command("private")
@click.argument("scope")
@json_option
@pass_store
def scopes_private(store, scope, as_json):
    """Keep SCOPE on this machine: sync neither pushes nor merges it.

    \b
    Example:
      gitmem scopes private channel/therapy
    """
    _set_private(store, scope, True, as_json)


@scopes.command("public")
@click.argument("scope")
@json_option
@pass_store
def scopes_public(store, scope, as_json):
    """Let sync push and merge SCOPE again.

    \b
    Example:
      gitmem scopes public channel/therapy
    """
    _set_private(store, scope, False, as_json)


def _set_private(store, scope: str, private: bool, as_json: bool) -> None:
    out = store.set_private(scope, private)
    emit(out, as_json, f"{scope} is private: sync leaves it on this machine" if private
                       else f"{scope} is public: sync pushes and merges it")


@click.command()
@json_option
@pass_store
def status(store, as_json):
    """Store health: scopes, counts, index backend and lag.

    \b
    Example:
      gitmem status --json
    """
    st = store.status()
    if as_json:
        emit_json(st)
        return
    click.echo(f"home:     {st['home']}")
    click.echo(f"version:  gitmem {st['version']}, store format {st['format']}")
    click.echo(f"memories: {st['memories']} in {len(st['scopes'])} scope(s); writes go to {st['default_scope']}")
    for k in ("backend", "model", "languages", "indexed", "index_note"):
        if k in st and st[k] is not None:
            click.echo(f"{k + ':':<9} {st[k]}")
    if st.get("model"):
        pending = st.get("index_pending") or 0
        click.echo(f"vectors:  {st.get('index_vectors', 0)} of {st.get('index_chunks', 0)} chunks"
                   + (f"; {pending} pending (recall answers them by words until they are embedded: "
                      "gitmem serve does it in the background, else the next recall without --timeout)"
                      if pending else ""))
    enc = st.get("encryption") or {}
    if enc.get("encrypted"):
        click.echo(f"encrypted: yes, key {enc['fingerprint']} ({enc['key']}"
                   + (f", epoch {enc['epoch']}, {enc['keys']} data key(s)" if "epoch" in enc else "") + ")")
    else:
        click.echo("encrypted: no")
    for r in st.get("remotes", []):
        click.echo(f"remote:   {r['remote']} {r['url']} (last sync {r['last_sync'] or 'never'}, "
                   f"{r['pending_ledger_records']} ledger record(s) to push)")
        for s in r["scopes"]:
            if s.get("private"):
                click.echo(f"          {s['scope']:<28} private")
            elif s["ahead"] or s["behind"]:
                click.echo(f"          {s['scope']:<28} {s['ahead']} ahead, {s['behind']} behind")
