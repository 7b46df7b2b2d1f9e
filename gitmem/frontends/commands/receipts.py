"""`gitmem receipts`: what an agent was shown, and from which version."""

from __future__ import annotations

import click

from gitmem.frontends.cli import emit_json, json_option, pass_store


def print_receipts(rows, as_json: bool, only: str | None = None) -> None:
    if as_json:
        emit_json(rows)
        return
    if not rows:
        click.echo("(no receipts)")
    for r in rows:
        who = " ".join(x for x in (r.get("session") and f"session {r['session']}",
                                   r.get("agent") and f"agent {r['agent']}") if x)
        q = f'  query: "{r["query"]}"' if r.get("query") else ""
        click.echo(f"{r['time']}  {r['kind']}  {who}{q}")
        for i in r["items"]:
            if only is None or i["id"] == only:
                click.echo(f"    {i['id']}  {i['scope']}  commit {(i['commit'] or '')[:10]}  blob {(i['blob'] or '')[:10]}")


@click.command()
@click.option("--session", help="Only this session's receipts.")
@click.option("--id", "mem_id", help="Only receipts that include this memory id.")
@click.option("--since", help="Only since this date or time (2024-05-01, 2024-05-01T10:00).")
@json_option
@pass_store
def receipts(store, session, mem_id, since, as_json):
    """What the agent saw, and from which version: one receipt per time memories were
    put in front of a model (prompt hook, context, recall --format prompt, MCP search).

    \b
    Examples:
      gitmem receipts --session 2f9c --json
      gitmem receipts --since 2024-05-01
    """
    print_receipts(store.receipts(session=session, id=mem_id, since=since), as_json)
