"""Commands that move memories in and out: import, export."""

from __future__ import annotations

import json
import os
import sys

import click

from gitmem.core.errors import UsageError
from gitmem.frontends.cli import emit, emit_json, json_option, pass_store, redaction_note


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
        redaction_note(result.get("redacted", []))
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
    emit({"dir": directory, "files": written}, as_json, f"wrote {len(written)} files under {directory}")
