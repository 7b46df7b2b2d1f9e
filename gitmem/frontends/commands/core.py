"""Core store commands: init, remember, update, append, get, edit, restore, list, log,
show, diff, scopes, status, import, export."""

from __future__ import annotations

import json
import os
import sys

import click

from gitmem.core.errors import UsageError
from gitmem.frontends.cli import emit_json, json_option, pass_store, read_text_arg, store_from


def _redaction_note(findings: list[dict]) -> None:
    if findings:
        kinds = sorted({f["kind"] for f in findings})
        click.echo(f"note: redacted {len(findings)} secret(s): {', '.join(kinds)}", err=True)


def _mem_line(m) -> str:
    tags = f" [{', '.join(m.tags)}]" if m.tags else ""
    key = f" key={m.key}" if m.key else ""
    return f"{m.id}  {m.scope:<12} {m.type:<10} {m.importance:>2}  {m.summary}{tags}{key}"


@click.command("init")
@click.option("--name", help="Your name, used as commit author.")
@click.option("--email", help="Your email, used as commit author.")
@click.option("--encrypt", is_flag=True,
              help="Encrypt the store: every memory, journal, session and commit message is sealed "
                   "(AES-SIV) with a key kept in keys/ (see `gitmem key --help`).")
@json_option
@click.pass_context
def init_cmd(ctx, name, email, encrypt, as_json):
    """Create the store ($GITMEM_HOME, default ~/.gitmem). Safe to run twice.

    \b
    Examples:
      gitmem init --name "Ada" --email ada@example.com
      gitmem init --encrypt && gitmem key export ~/gitmem-key.json
    """
    from gitmem.core.config import write_config_value

    store = store_from(ctx, create=True, encrypt=encrypt)
    if name:
        write_config_value(store.home, "identity", "name", name)
    if email:
        write_config_value(store.home, "identity", "email", email)
    info = store.info()
    info["encryption"] = store.encryption()
    if as_json:
        emit_json(info)
    else:
        click.echo(f"gitmem store ready at {store.home}")
        if info["encryption"]["encrypted"]:
            click.echo(f"encrypted; key {info['encryption']['fingerprint']} in {store.home}/keys/ — "
                       "back it up: `gitmem key export FILE`")


@click.command()
@click.argument("text", required=False)
@click.option("--scope", "-s", help="Scope to write to (default: linked project, else main).")
@click.option("--type", "-t", "mem_type", default="note", show_default=True, help="Memory type.")
@click.option("--importance", "-i", type=int, default=5, show_default=True, help="1-10.")
@click.option("--tag", "tags", multiple=True, help="A tag (repeatable).")
@click.option("--key", "-k", help="Stable external name: remembering it again updates the memory.")
@click.option("--link", "link", help="Attach to a code commit: REV[:PATH] in the current repo.")
@json_option
@pass_store
def remember(store, text, scope, mem_type, importance, tags, key, link, as_json):
    """Remember TEXT (or `-` for stdin) as one commit.

    \b
    Examples:
      gitmem remember --type preference "Prefers pytest over unittest"
      gitmem remember --key deploy-window --importance 8 "Deploys only on Tuesdays"
      echo "long note" | gitmem remember -
    """
    text = read_text_arg(text)
    mem = store.remember(text, scope=scope, type=mem_type, importance=importance, tags=list(tags),
                         key=key, link=link)
    red = store.last_redactions
    if as_json:
        emit_json({"id": mem.id, "scope": mem.scope, "commit": mem.commit, "path": mem.path,
                   "key": mem.key, "redacted": red})
    else:
        _redaction_note(red)
        click.echo(f"remembered {mem.id} in {mem.scope} ({(mem.commit or 'unchanged')[:10]})")


@click.command()
@click.argument("ref")
@click.argument("text", required=False)
@click.option("--scope", "-s", help="Only look in this scope.")
@click.option("--type", "-t", "mem_type", help="New type.")
@click.option("--importance", "-i", type=int, help="New importance 1-10.")
@click.option("--tag", "tags", multiple=True, help="Replace the tags (repeatable).")
@json_option
@pass_store
def update(store, ref, text, scope, mem_type, importance, tags, as_json):
    """Change memory REF (id or key): new TEXT (or `-`), and/or fields.

    \b
    Examples:
      gitmem update 0mhx2k3a9b1cd "Deploys on Tuesdays and Thursdays"
      gitmem update deploy-window --importance 9
    """
    if text is None and mem_type is None and importance is None and not tags:
        raise UsageError("nothing to update", hint="give new TEXT, --type, --importance or --tag")
    if text is not None:
        text = read_text_arg(text)
    mem = store.update(ref, text, scope=scope, type=mem_type, importance=importance,
                       tags=list(tags) if tags else None)
    if as_json:
        emit_json({"id": mem.id, "scope": mem.scope, "commit": mem.commit, "path": mem.path,
                   "redacted": store.last_redactions})
    else:
        _redaction_note(store.last_redactions)
        click.echo(f"updated {mem.id} in {mem.scope} ({(mem.commit or '')[:10]})")


@click.command()
@click.argument("text", required=False)
@click.option("--scope", "-s", help="Scope to write to.")
@json_option
@pass_store
def append(store, text, scope, as_json):
    """Append a journal line to today's daily/YYYY-MM-DD.md.

    \b
    Example:
      gitmem append "Shipped the importer; next: dream"
    """
    info = store.append(read_text_arg(text), scope=scope)
    if as_json:
        emit_json(info)
    else:
        _redaction_note(info["redacted"])
        click.echo(f"appended to {info['path']} in {info['scope']} ({info['commit'][:10]})")


@click.command()
@click.argument("ref")
@click.option("--at", help="A revision or date (2024-05-01) to read the memory as it was.")
@click.option("--scope", "-s", help="Only look in this scope.")
@click.option("--from", "from_line", type=int, help="First line of a slice (1-based).")
@click.option("--lines", type=int, help="Number of lines in the slice.")
@click.option("--receipts", "show_receipts", is_flag=True, help="Where the memory was put in front of a model.")
@json_option
@pass_store
def get(store, ref, at, scope, from_line, lines, show_receipts, as_json):
    """Show memory REF (an id, a key, or a file path such as daily/2024-05-01.md).

    \b
    Examples:
      gitmem get 0mhx2k3a9b1cd --json
      gitmem get deploy-window --at 2024-05-01
      gitmem get daily/2024-05-01.md --from 10 --lines 5
      gitmem get 0mhx2k3a9b1cd --receipts
    """
    if show_receipts:
        _, mem_id, _ = store.locate(ref, scope)
        from gitmem.frontends.commands.receipts import print_receipts

        print_receipts(store.receipts(id=mem_id), as_json, only=mem_id)
        return
    if "/" in ref and ref.endswith(".md"):
        info = store.read_path(ref, scope=scope, at=at, start=from_line, count=lines)
        if as_json:
            emit_json(info)
        else:
            click.echo(info["text"], nl=not info["text"].endswith("\n"))
        return
    mem = store.get(ref, at=at, scope=scope)
    text = mem.text
    if from_line or lines:
        all_lines = text.splitlines(True)
        start = max(1, from_line or 1)
        text = "".join(all_lines[start - 1 : (start - 1 + lines) if lines else None])
    if as_json:
        d = store.memory_json(mem)
        d["text"] = text
        emit_json(d)
    else:
        click.echo(f"# {mem.id}  ({mem.scope}, {mem.type}, importance {mem.importance})", err=False)
        if mem.key:
            click.echo(f"# key: {mem.key}")
        if mem.tags:
            click.echo(f"# tags: {', '.join(mem.tags)}")
        click.echo(text, nl=not text.endswith("\n"))


@click.command()
@click.argument("ref")
@click.option("--scope", "-s", help="Only look in this scope.")
@pass_store
def edit(store, ref, scope):
    """Open memory REF in $EDITOR and commit the result.

    \b
    Example:
      EDITOR=vim gitmem edit deploy-window
    """
    mem = store.get(ref, scope=scope)
    new = click.edit(mem.text, extension=".md", require_save=True)
    if new is None or new == mem.text:
        click.echo("no change", err=True)
        return
    out = store.update(mem.id, new, scope=mem.scope)
    click.echo(f"updated {out.id} in {out.scope} ({(out.commit or '')[:10]})")


@click.command()
@click.argument("ref")
@click.argument("rev")
@click.option("--scope", "-s", help="Only look in this scope.")
@json_option
@pass_store
def restore(store, ref, rev, scope, as_json):
    """Bring back the version of memory REF at revision REV as a new commit.

    \b
    Example:
      gitmem log 0mhx2k3a9b1cd          # find the version
      gitmem restore 0mhx2k3a9b1cd 4f2a1c9
    """
    mem = store.restore(ref, rev, scope=scope)
    if as_json:
        emit_json({"id": mem.id, "scope": mem.scope, "commit": mem.commit, "path": mem.path})
    else:
        click.echo(f"restored {mem.id} from {rev} ({(mem.commit or 'unchanged')[:10]})")


@click.command("list")
@click.option("--scope", "-s", "scopes", multiple=True, help="Scope (repeatable).")
@click.option("--all-scopes", is_flag=True, help="Every scope.")
@click.option("--type", "-t", "mem_type", help="Only this type.")
@click.option("--archived", is_flag=True, help="Include memories retired by dream.")
@click.option("--conflicts", is_flag=True, help="Conflict copies kept by sync (settle with `gitmem resolve`).")
@json_option
@pass_store
def list_cmd(store, scopes, all_scopes, mem_type, archived, conflicts, as_json):
    """List live memories, newest first.

    \b
    Examples:
      gitmem list --type decision
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
    mems = store.list(type=mem_type, archived=archived, scopes=scopes, all_scopes=all_scopes)
    if as_json:
        emit_json([store.memory_json(m) for m in mems])
    else:
        for m in mems:
            click.echo(_mem_line(m))


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
    if as_json:
        emit_json(out)
    else:
        click.echo(f"{scope} is private: sync leaves it on this machine" if private
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


@click.command("import")
@click.option("--jsonl", "jsonl", type=click.Path(dir_okay=False, allow_dash=True),
              help="JSONL file, one {\"text\": ...} object per line (- for stdin).")
@click.option("--from", "source", type=click.Choice(["openclaw", "qwen", "claude", "markdown"]),
              help="Import an agent's memory folder DIR.")
@click.argument("directory", required=False, type=click.Path(file_okay=False))
@click.option("--scope", "-s", help="Scope for items that name none.")
@click.option("--no-index", is_flag=True, help="Do not index now (the next recall does, or recall --timeout "
              "answers by words until it has).")
@click.option("--progress/--no-progress", "progress", default=None,
              help="Progress on stderr while checking, writing and embedding (default: a bar when stderr "
                   "is a terminal, nothing on a pipe; --progress on a pipe: a line per tenth done).")
@json_option
@pass_store
def import_cmd(store, jsonl, source, directory, scope, no_index, progress, as_json):
    """Import memories: JSONL (one commit) or an agent memory folder. Then indexes
    and embeds them, so the first recall does not wait: here, with progress on
    stderr, or, when `gitmem serve` runs, in the daemon in the background (recall
    --timeout answers by words until the vectors are in; `gitmem status` says how
    many wait).

    \b
    Examples:
      gitmem import --jsonl memories.jsonl --scope channel/slack
      gitmem import --from openclaw ~/openclaw-workspace
      gitmem import --jsonl big.jsonl --no-index   # index later
      gitmem import --jsonl big.jsonl --progress 2>import.log
    """
    from gitmem.api import read_jsonl
    from gitmem.frontends.commands.recall import progress_bars

    if bool(jsonl) == bool(source):
        raise UsageError("give exactly one of --jsonl FILE or --from KIND DIR",
                         hint="e.g. gitmem import --jsonl memories.jsonl")
    bars = progress_bars(progress)
    if jsonl:
        result = store.import_items(read_jsonl(jsonl), scope=scope, progress=bars).to_dict()
    else:
        if not directory:
            raise UsageError("missing DIR", hint=f"gitmem import --from {source} DIR")
        result = store.import_dir(source, directory, scope=scope, progress=bars)
    if not no_index:
        from gitmem.frontends.commands.recall import index_after_import

        indexed = index_after_import(store, result, as_json, progress)
        if indexed is not None:
            result["index"] = indexed
    if as_json:
        emit_json(result)
    else:
        _redaction_note(result.get("redacted", []))
        click.echo(f"imported: {result['created']} new, {result['updated']} updated, "
                   f"{result['unchanged']} unchanged")


@click.command()
@click.argument("directory", required=False, type=click.Path(file_okay=False))
@click.option("--jsonl", "jsonl", type=click.Path(dir_okay=False, allow_dash=True),
              help="Write the import format to FILE (- for stdout).")
@click.option("--to", "target", type=click.Choice(["openclaw"]), help="Write an agent layout.")
@click.option("--scope", "-s", help="Only this scope (default: all).")
@json_option
@pass_store
def export(store, directory, jsonl, target, scope, as_json):
    """Export memories as markdown files under DIR, or as JSONL.

    \b
    Examples:
      gitmem export ./backup
      gitmem export --jsonl all.jsonl && gitmem --home /tmp/copy import --jsonl all.jsonl
    """
    if jsonl:
        lines = [json.dumps(d, ensure_ascii=False) for d in store.export_jsonl(scope=scope)]
        data = "".join(l + "\n" for l in lines)
        if jsonl == "-":
            sys.stdout.write(data)
        else:
            from gitmem.core.fsutil import atomic_write
            atomic_write(os.path.abspath(jsonl), data.encode())
            click.echo(f"wrote {len(lines)} memories to {jsonl}", err=True)
        return
    if not directory:
        raise UsageError("missing DIR", hint="gitmem export DIR, or gitmem export --jsonl FILE")
    if target:
        written = store.export_dir(target, directory, scope=scope)
    else:
        written = store.export_markdown(directory, scope=scope)
    if as_json:
        emit_json({"dir": directory, "files": written})
    else:
        click.echo(f"wrote {len(written)} files under {directory}")
