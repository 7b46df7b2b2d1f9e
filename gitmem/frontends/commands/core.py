"""Commands that write one memory or read one: init, remember, update, append, get, edit, restore."""

from __future__ import annotations

import click

from gitmem.core.errors import UsageError
from gitmem.frontends.cli import emit, emit_json, json_option, pass_store, read_text_arg, redaction_note, store_from


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
@click.option("--importance", "-i", type=int, default=None, help="1-10 (default 5, model.DEFAULT_IMPORTANCE).")
@click.option("--tag", "tags", multiple=True, help="A tag (repeatable).")
@click.option("--key", "-k", help="Stable external name: remembering it again updates the memory.")
@click.option("--link", "link", help="Attach to a code commit: REV[:PATH] in the current repo.")
@click.option("--supersedes", "supersedes", multiple=True, metavar="ID|KEY",
              help="A live memory this one replaces (repeatable): recall then shows only the new one.")
@click.option("--no-detect", is_flag=True, help="Do not look for memories this one may update or repeat.")
@json_option
@pass_store
def remember(store, text, scope, mem_type, importance, tags, key, link, supersedes, no_detect, as_json):
    """Remember TEXT (or `-` for stdin) as one commit.

    Prints the live memories the new one probably updates ("may update ID: …") or
    repeats; `--supersedes ID` says so for sure.

    \b
    Examples:
      gitmem remember --type preference "Prefers pytest over unittest"
      gitmem remember --key deploy-window --importance 8 "Deploys only on Tuesdays"
      gitmem remember --supersedes 0mhx2k3a9b1cd "Moved to Porto in September"
      echo "long note" | gitmem remember -
    """
    text = read_text_arg(text)
    # No --importance: the store's default, not a copy of it here (the CLI loads no model).
    extra = {} if importance is None else {"importance": importance}
    mem = store.remember(text, scope=scope, type=mem_type, tags=list(tags), key=key, link=link,
                         supersedes=list(supersedes) or None, detect=not no_detect, **extra)
    red = store.last_redactions
    done = store.last_write
    if as_json:
        emit_json({"id": mem.id, "scope": mem.scope, "commit": mem.commit, "path": mem.path,
                   "key": mem.key, "status": done.get("status"), "supersedes": list(mem.supersedes),
                   "possible_updates": done.get("possible_updates", []),
                   "possible_duplicates": done.get("possible_duplicates", []), "redacted": red})
    else:
        redaction_note(red)
        verb = {"updated": "updated", "unchanged": "unchanged:"}.get(done.get("status"), "remembered")
        click.echo(f"{verb} {mem.id} in {mem.scope} ({(mem.commit or 'unchanged')[:10]})")
        for old in mem.supersedes:
            click.echo(f"supersedes {old}")
        for c in done.get("possible_updates", []):
            click.echo(f"may update {c['id']}: {c['summary']}  (`--supersedes {c['id']}` to say so)")
        for c in done.get("possible_duplicates", []):
            click.echo(f"may repeat {c['id']}: {c['summary']}")


@click.command()
@click.argument("ref")
@click.argument("text", required=False)
@click.option("--scope", "-s", help="Only look in this scope.")
@click.option("--type", "-t", "mem_type", help="New type.")
@click.option("--importance", "-i", type=int, help="New importance 1-10.")
@click.option("--tag", "tags", multiple=True, help="Replace the tags (repeatable).")
@click.option("--supersedes", "supersedes", multiple=True, metavar="ID|KEY",
              help="Another live memory this one now replaces (repeatable; added to its list).")
@json_option
@pass_store
def update(store, ref, text, scope, mem_type, importance, tags, supersedes, as_json):
    """Change memory REF (id or key): new TEXT (or `-`), and/or fields.

    An update keeps the memory's id; `--supersedes OLD` marks OLD as replaced by it.

    \b
    Examples:
      gitmem update 0mhx2k3a9b1cd "Deploys on Tuesdays and Thursdays"
      gitmem update deploy-window --importance 9
      gitmem update deploy-window --supersedes 0mhx2k3a9b1cd
    """
    if text is None and mem_type is None and importance is None and not tags and not supersedes:
        raise UsageError("nothing to update", hint="give new TEXT, --type, --importance, --tag or --supersedes")
    if text is not None:
        text = read_text_arg(text)
    mem = store.update(ref, text, scope=scope, type=mem_type, importance=importance,
                       tags=list(tags) if tags else None, supersedes=list(supersedes) or None)
    if as_json:
        emit_json({"id": mem.id, "scope": mem.scope, "commit": mem.commit, "path": mem.path,
                   "redacted": store.last_redactions})
    else:
        redaction_note(store.last_redactions)
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
        redaction_note(info["redacted"])
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
        if mem.supersedes:
            click.echo(f"# supersedes: {', '.join(mem.supersedes)}")
        if mem.superseded_by:
            click.echo(f"# superseded by: {', '.join(mem.superseded_by)} (recall shows that one instead)")
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
    emit({"id": mem.id, "scope": mem.scope, "commit": mem.commit, "path": mem.path}, as_json,
         f"restored {mem.id} from {rev} ({(mem.commit or 'unchanged')[:10]})")


