"""Commands around agent sessions: context, extract, flush, hooks, hook."""

from __future__ import annotations

import os
import sys
import time

import click

from gitmem.frontends.cli import emit, emit_json, json_option, pass_store


def _started() -> float:
    """When the hook began, on the monotonic clock: the launcher's start (GITMEM_HOOK_T0,
    wall clock) when it says, else the import of this module."""
    now_mono, now_wall = time.monotonic(), time.time()
    try:
        t0 = float(os.environ.get("GITMEM_HOOK_T0") or "x")
    except ValueError:
        return _IMPORTED
    return now_mono - min(max(0.0, now_wall - t0), 5.0)


_IMPORTED = time.monotonic()


@click.command()
@click.option("--scope", "-s", "scopes", multiple=True,
              help="Scope (repeatable; default: the linked project, then main).")
@click.option("--hours", type=float, help="Window for new memories and journal lines [24].")
@click.option("--budget", type=int, help="Token budget of the bundle [1500].")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--at", "at", metavar="REV|DATE",
              help="The bundle as a session would have got it at a commit or date.")
@click.option("--query", "-q", metavar="TEXT",
              help="Also a section of what is relevant to TEXT (as the prompt hook injects it).")
@pass_store
def context(store, scopes, hours, budget, fmt, at, query):
    """The session-start bundle: preferences, MEMORY.md, the last hours' memories and
    journal lines, and the top memories by weight, fitted to a token budget.

    The text is framed as reference data, not instructions; a closing line says what
    was left out and how to fetch it. Quarantined memories are never included.
    With --at, each scope is read as it stood then (as `recall --at`: a DATE is the
    last commit on or before it, a REV its own scope at that commit) and the hours
    count back from that instant; forgotten memories stay forgotten.
    With --query, a first section holds what is relevant to it, chosen as the prompt
    hook chooses (at most [hooks] max_results memories above [recall]
    prompt_min_relevance, within the budget); when nothing is, there is no section.

    \b
    Examples:
      gitmem context --hours 48 --budget 2000
      gitmem context --scope main --format json | jq '.omitted'
      gitmem context --at 2024-03-03 --hours 72
      gitmem context --query "how do we deploy the site"
    """
    from gitmem.recall.render import render_context

    from gitmem.core.errors import UsageError

    if query is not None and not query.strip():
        raise UsageError("empty --query", hint="give some words, or leave --query out")
    bundle = store.context(scopes=scopes or None, hours=hours, budget=budget, cwd=os.getcwd(), at=at,
                           query=query)
    if bundle.get("note"):
        click.echo(f"note: {bundle['note']}", err=True)
    if fmt == "json":
        emit_json(bundle)
    else:
        click.echo(render_context(bundle), nl=False)


@click.command()
@click.option("--transcript", "-t", required=True, type=click.Path(dir_okay=False),
              help="Transcript: JSONL ({role, content}, Claude Code, Codex) or plain text.")
@click.option("--session", "session", help="Session id (the cursor's name; default: global --session).")
@click.option("--scope", "-s", help="Write everything here (default: personal statements to main, "
              "project ones to the linked project).")
@click.option("--include-assistant", is_flag=True,
              help="Also read the agent's turns (they can carry injected instructions).")
@click.option("--dry-run", is_flag=True, help="Show what would be kept; write nothing, keep the cursor.")
@json_option
@pass_store
def extract(store, transcript, session, scope, include_assistant, dry_run, as_json):
    """Keep the durable statements of a transcript, from this session's cursor on.

    Keeps explicit requests to remember ("remember", "记住", "from now on", "以后"),
    preferences, decisions and facts about the project or the person, in English and
    Chinese; drops greetings, debugging chatter, one-off commands and anything
    transient. Each statement is typed, redacted, checked for prompt-injection phrasing
    (flagged ones are stored as `quarantine`, never injected), deduplicated against
    existing memories and written in one commit per scope.

    \b
    Examples:
      gitmem extract --transcript ~/.claude/projects/x/abc.jsonl --session abc
      gitmem extract -t notes.txt --dry-run --json
    """
    roles = ("user", "assistant") if include_assistant else ("user",)
    out = store.extract(transcript, session=session, scope=scope, roles=roles, cwd=os.getcwd(),
                        dry_run=dry_run)
    if as_json:
        emit_json(out)
        return
    for k in out["kept"]:
        mark = "  [quarantined: " + k["flagged"] + "]" if k.get("flagged") else ""
        click.echo(f"{'would keep' if dry_run else 'kept'} {k['type']:<10} {k['scope']:<12} {k['text']}{mark}")
    if out["duplicates"]:
        click.echo(f"{len(out['duplicates'])} already remembered", err=True)
    click.echo(f"{len(out['kept'])} statement(s) from {out['turns']} turn(s) "
               f"({out['format']}, bytes {out['from']}-{out['to']}, via {out['via']})", err=True)


@click.command()
@click.option("--transcript", "-t", required=True, type=click.Path(dir_okay=False),
              help="The session's transcript (what a pre-compaction hook has at hand).")
@click.option("--summary", type=click.Path(dir_okay=False, allow_dash=True),
              help="A summary file to store (- for stdin); default: summarise the transcript by rule.")
@click.option("--session", "session", help="Session id (default: global --session).")
@click.option("--scope", "-s", help="Scope of the session file (default: linked project, else main).")
@json_option
@pass_store
def flush(store, transcript, summary, session, scope, as_json):
    """Store a session summary as sessions/<date>-<session>.md (Gitmem-Op: flush),
    after extracting what is left of the transcript.

    \b
    Examples:
      gitmem flush --transcript ~/.claude/projects/x/abc.jsonl --session abc
      gitmem flush -t t.jsonl --summary summary.md
    """
    text = None
    if summary:
        from gitmem.core.errors import UsageError
        from gitmem.frontends.cli import read_text_arg

        if summary == "-":
            text = read_text_arg("-")
        else:
            try:
                with open(summary, encoding="utf-8") as fh:
                    text = fh.read()
            except (OSError, UnicodeDecodeError) as e:
                raise UsageError(f"cannot read {summary}: {e}") from e
    out = store.flush(transcript, summary=text, session=session, scope=scope, cwd=os.getcwd())
    emit(out, as_json, f"stored {out['path']} in {out['scope']} ({(out['commit'] or 'unchanged')[:10]}); "
                       f"{out['extracted']} statement(s) extracted")


@click.group()
def hooks():
    """Install or remove gitmem's hooks in agent CLIs and code repositories.

    \b
    Examples:
      gitmem hooks install --agent claude
      gitmem hooks install --agent codex --budget 1.5
      gitmem hooks install --git          # in a code repository
      gitmem hooks uninstall --agent claude
    """


def _target(agent, use_git):
    from gitmem.core.errors import UsageError

    if bool(agent) == bool(use_git):
        raise UsageError("give exactly one of --agent NAME or --git",
                         hint="e.g. gitmem hooks install --agent claude")


@hooks.command("install")
@click.option("--agent", type=click.Choice(["claude", "qwen", "codex"]), help="Agent CLI to hook into.")
@click.option("--settings", type=click.Path(dir_okay=False),
              help="Settings file (default ~/.claude/settings.json, ~/.qwen/settings.json, ~/.codex/hooks.json).")
@click.option("--git", "use_git", is_flag=True, help="Install git hooks in the code repo here.")
@click.option("--repo", type=click.Path(file_okay=False), help="Code repo for --git (default: cwd).")
@click.option("--budget", type=float, help="Seconds a hook may take [2].")
@json_option
@pass_store
def hooks_install(store, agent, settings, use_git, repo, budget, as_json):
    """Write hook entries: session start -> context, before each prompt -> recall and
    other sessions' changes, after each reply -> extract, before compaction -> flush.
    With --git, install git hooks that journal each commit (an existing hook is kept
    and called first).

    \b
    Examples:
      gitmem hooks install --agent claude --settings .claude/settings.json
      gitmem link && gitmem hooks install --git
    """
    from gitmem.frontends import hooks_install

    _target(agent, use_git)
    if use_git:
        out = hooks_install.install_git(store.config, store.code_hooks_dir(repo),
                                          store.linked_scope(str(repo or os.getcwd())))
        if as_json:
            emit_json(out)
            return
        for h in out["installed"]:
            chained = f" (chains {h['chained']})" if h["chained"] else ""
            click.echo(f"installed {h['hook']}{chained}")
        if not out["linked_scope"]:
            click.echo("note: this repository is not linked; run `gitmem link` so commits are journalled",
                       err=True)
        return
    out = hooks_install.install_agent(store.config, agent, settings, budget)
    if as_json:
        emit_json(out)
        return
    click.echo(f"installed {', '.join(out['events'])} hooks for {agent} in {out['settings']}")
    for n in out["notes"]:
        click.echo(f"note: {n}", err=True)


@hooks.command("uninstall")
@click.option("--agent", type=click.Choice(["claude", "qwen", "codex"]))
@click.option("--settings", type=click.Path(dir_okay=False))
@click.option("--git", "use_git", is_flag=True)
@click.option("--repo", type=click.Path(file_okay=False))
@json_option
@pass_store
def hooks_uninstall(store, agent, settings, use_git, repo, as_json):
    """Remove gitmem's hooks and restore what was there (chained git hooks move back).

    \b
    Example:
      gitmem hooks uninstall --agent claude
    """
    from gitmem.frontends import hooks_install

    _target(agent, use_git)
    out = (hooks_install.uninstall_git(store.config, store.code_hooks_dir(repo)) if use_git
           else hooks_install.uninstall_agent(store.config, agent, settings))
    if as_json:
        emit_json(out)
    elif use_git:
        for h in out["uninstalled"]:
            state = "restored the previous hook" if h["restored"] else ("removed" if h["removed"] else "not ours, left")
            click.echo(f"{h['hook']}: {state}")
    else:
        click.echo(f"removed {out['removed']} gitmem hook(s) from {out['settings']}"
                   + (" (file deleted: gitmem had created it)" if out["deleted"] else ""))


@click.command(hidden=True)
@click.argument("event")
@click.option("--budget", type=float, help="Seconds, all included [2 or $GITMEM_HOOK_BUDGET].")
@click.option("--timings", is_flag=True, help="Print timings on stderr.")
@click.pass_context
def hook(ctx, event, budget, timings):
    """Run hook EVENT (session-start, prompt, stop, pre-compact, git-post-commit) with
    the agent's JSON payload on stdin. Always exits 0: failures go to stderr.

    \b
    Example:
      echo '{"session_id":"s1","prompt":"write a script","cwd":"."}' | gitmem hook prompt
    """
    from gitmem.frontends import hookrun

    root = ctx.find_root().obj or {}
    abandoned = False
    try:
        raw = sys.stdin.buffer.read() if not sys.stdin.isatty() else b""
        payload = hookrun.parse_payload(raw)
        res = hookrun.run(event, payload, home=root.get("home"), agent=root.get("agent"),
                          budget=budget, started=_started())
        abandoned = res.abandoned
        if res.stdout:
            sys.stdout.write(hookrun.agent_output(event, res.stdout, root.get("agent")))
        for n in res.notes:
            sys.stderr.write(n + "\n")
        if timings:
            sys.stderr.write("gitmem: timings " + " ".join(f"{k}={v:.3f}s" for k, v in res.timings.items()) + "\n")
    except Exception as e:  # noqa: BLE001 - a hook fails open, whatever went wrong
        msg = getattr(e, "message", None) or f"{type(e).__name__}: {e}"
        sys.stderr.write(f"gitmem: {event} hook failed open: {msg}\n")
        hint = getattr(e, "hint", None)
        if hint:
            sys.stderr.write(f"hint: {hint}\n")
    sys.stdout.flush()
    sys.stderr.flush()
    if abandoned:
        os._exit(0)  # a worker thread is still busy; do not wait for it
