"""Lifecycle commands: forget, redact, dream, undream."""

from __future__ import annotations

import click

from gitmem.core.errors import UsageError
from gitmem.frontends.cli import emit, emit_json, json_option, pass_store, read_text_arg


@click.command()
@click.argument("ids", nargs=-1)
@click.option("--query", "-q", help="Forget the live memories matching every word of Q (needs --yes).")
@click.option("--yes", is_flag=True, help="Act on the --query matches instead of listing them.")
@click.option("--reason", "-r", help="Why: recorded in the commit and the redaction record.")
@click.option("--keep-history", is_flag=True,
              help="Soft forget: one revert commit only; the text stays readable in history.")
@json_option
@pass_store
def forget(store, ids, query, yes, reason, keep_history, as_json):
    """Forget memories ID... (ids or keys): remove them and purge their text from history.

    One `Gitmem-Op: forget` commit records who forgot which ids, when and why; then every
    object, commit message, reflog and index entry holding the text is rewritten or
    pruned. Other memories keep their blob ids. This rewrites history.

    \b
    Examples:
      gitmem forget 0mhx2k3a9b1cd --reason "user asked"
      gitmem forget --query "old vpn password"          # shows matches
      gitmem forget --query "old vpn password" --yes    # forgets them
      gitmem forget deploy-window --keep-history        # outdated, not secret
    """
    if query and ids:
        raise UsageError("give ids or --query, not both")
    if query:
        matches = store.find(query)
        if not yes:
            if as_json:
                emit_json({"matches": [_brief(m) for m in matches], "forgotten": False})
            else:
                for m in matches:
                    click.echo(f"{m.id}  {m.scope:<12} {m.summary}")
                click.echo(f"{len(matches)} match(es); rerun with --yes to forget them", err=True)
            return
        if not matches:
            raise UsageError(f"no memory matches {query!r}", hint="`gitmem list` shows memories")
        ids = tuple(m.id for m in matches)
    if not ids:
        raise UsageError("give ids to forget or --query Q", hint="`gitmem list` shows ids")
    result = store.forget(list(ids), reason=reason, keep_history=keep_history)
    if as_json:
        emit_json(result)
        return
    how = "removed (history kept)" if keep_history else "forgotten and purged from history"
    click.echo(f"{', '.join(result['ids'])}: {how}")
    if result.get("merged"):
        click.echo(f"also forgotten (merged into them by dream): {', '.join(result['merged'])}")
    if result.get("purged"):
        click.echo(f"rewrote {result['rewritten_commits']} commit(s), replaced {result['replaced_blobs']} "
                   f"blob(s); record {result['record']} on refs/gitmem/redactions; index {result['index']}")


def _brief(m) -> dict:
    return {"id": m.id, "scope": m.scope, "summary": m.summary, "path": m.path}


@click.command()
@click.option("--text", "text", required=True, help="The leaked string to purge (>= 6 characters).")
@click.option("--reason", "-r", help="Why: recorded in the commit and the redaction record.")
@json_option
@pass_store
def redact(store, text, reason, as_json):
    """Purge a leaked STRING (say, a token) from every scope and all history.

    Every blob and commit message holding it is rewritten with `[redacted]`, reflogs are
    expired, old objects pruned and the index dropped. The string itself is never
    recorded.

    \b
    Example:
      gitmem redact --text "ghp_abc123..." --reason "token leaked in a note"
    """
    result = store.redact_text(text, reason=reason)
    emit(result, as_json, f"redacted: rewrote {result['rewritten_commits']} commit(s), {result['replaced_blobs']} "
                          f"blob(s) in {', '.join(result['commits']) or 'no scope tips'}; record {result['record']}")


@click.command()
@click.option("--scope", "-s", "scope", help="Only this scope (default: every scope).")
@click.option("--dry-run", is_flag=True, help="Print the plan; write nothing.")
@click.option("--force", is_flag=True, help="Skip the gates (24 h and 5 sessions since the last dream).")
@click.option("--plan", "agent_plan", is_flag=True,
              help="Print the candidate groups and instructions for an agent to decide; write nothing.")
@click.option("--apply", "apply_file", metavar="FILE|-",
              help="Apply an agent's decisions (JSON, from FILE or stdin) as one dream commit.")
@json_option
@pass_store
def dream(store, scope, dry_run, force, agent_plan, apply_file, as_json):
    """Consolidate memories: merge duplicates, supersede outdated ones, archive faded ones,
    rebuild MEMORY.md.

    Each scope gets at most ONE `Gitmem-Op: dream` commit on top of its history; the
    previous tip stays at refs/gitmem/archive/<scope>/<time> and `gitmem undream` reverts
    it. Without an agent, dream's own rules decide: texts stating one fact merge (dates,
    numbers, case and short names normalised); near duplicates that differ in a value,
    name or entity are reported, never merged; a later memory with a change cue
    ("moved", "now", "现在") supersedes a similar earlier one, which is archived.

    An agent can lead instead: `--plan --json` prints the candidate groups (duplicates,
    possible updates, pairs held apart, faded memories: ids, texts, dates, similarity,
    the rules' suggestion) and instructions; the agent answers with decisions, applied
    by `--apply FILE|-` as one commit, or refused whole (nothing written) if any id is
    unknown, forgotten, archived or in another scope, or a decision is malformed:

    \b
      {"scope": "main", "decisions": [
        {"merge": ["ID1", "ID2"], "text": "merged text", "into": "ID2"},
        {"supersede": "OLD_ID", "by": "NEW_ID"},
        {"keep": ["ID3", "ID4"]},
        {"archive": ["ID5"]}]}

    Gates (skipped by --force; not applied to --apply): 24 h and 5 sessions since the
    scope's last dream, where sessions are distinct Gitmem-Session trailers and commits
    without one count as one session per UTC day. Every number (near_threshold,
    anchored_margin, update_margin, archive_below, protect_importance, min_hours,
    min_sessions, ...) can be set under [dream] in config.toml.

    \b
    Examples:
      gitmem dream --dry-run
      gitmem dream --scope main --force --json
      gitmem dream --plan --json --scope main > plan.json
      echo '{"decisions": [{"supersede": "OLD", "by": "NEW"}]}' | gitmem dream --apply -
    """
    if agent_plan and apply_file:
        raise UsageError("give --plan or --apply, not both", hint="plan first, then apply the decisions")
    if (agent_plan or apply_file) and (dry_run or force):
        raise UsageError("--plan and --apply do not take --dry-run or --force",
                         hint="--plan writes nothing; --apply is the agent's explicit request")
    if agent_plan:
        plan = store.dream_plan(scope=scope)
        if as_json:
            emit_json(plan)
            return
        click.echo(_plan_text(plan))
        return
    if apply_file:
        raw = read_text_arg("-") if apply_file == "-" else _read_file(apply_file)
        result = store.dream_apply(raw, scope=scope)
        emit(result, as_json, f"{result['scope']}: " + (
            f"dreamt by decision ({result['commit'][:10]}): merged "
            f"{sum(len(m['merged']) for m in result['merged'])}, superseded {len(result['superseded'])}, "
            f"archived {len(result['archived'])}, kept {len(result['kept'])}" if result["commit"] else "nothing to do"))
        return
    result = store.dream(scope=scope, dry_run=dry_run, force=force)
    if as_json:
        emit_json(result)
        return
    for s, r in result["scopes"].items():
        click.echo(_dream_summary(s, r, dry_run))


def _read_file(path: str) -> str:
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except (OSError, UnicodeDecodeError) as e:
        raise UsageError(f"cannot read {path}: {e}", hint="give a JSON file of decisions, or - for stdin") from e


def _plan_text(plan: dict) -> str:
    lines = []
    for s, p in plan["scopes"].items():
        lines.append(f"{s}: {len(p['groups'])} group(s)")
        for g in p["groups"]:
            sim = f" ({g['similarity']:.2f})" if "similarity" in g else ""
            lines.append(f"  {g['kind']}{sim}: rules would {_rules_text(g['rules'])}")
            for m in g["memories"]:
                lines.append(f"    {m['id']}  {(m['created'] or '')[:10]}  {m['summary']}")
            for h in g.get("held_apart", []):
                lines.append(f"    held apart: {h['a']} / {h['b']} ({h['why']})")
    lines.append("(--json gives the texts, the instructions and the decision schema)")
    return "\n".join(lines)


def _rules_text(rules: dict) -> str:
    """What dream's rules would do with a plan's group, in words ("merge 3 into mx…")."""
    if "merge" in rules:
        return f"merge {len(rules['merge']) - 1} into {rules['into']}"
    if "supersede" in rules:
        return f"supersede {rules['supersede']} by {rules['by']}"
    if "archive" in rules:
        return "archive " + ", ".join(rules["archive"])
    return "keep " + (", ".join(rules.get("keep", [])) or "all")


def _dream_summary(scope: str, r: dict, dry_run: bool) -> str:
    lines = []
    if r.get("skipped"):
        return f"{scope}: skipped ({r['skipped']})"
    head = "plan" if dry_run else ("dreamt" if r.get("commit") else "nothing to do")
    lines.append(f"{scope}: {head}" + (f" ({r['commit'][:10]})" if r.get("commit") else ""))
    for g in r["merges"]:
        lines.append(f"  merge {', '.join(g['merged'])} into {g['survivor']} ({g['kind']})")
    for a in r["archive"]:
        lines.append(f"  archive {a['id']} (weight {a['weight']:.1f}) {a['summary']}")
    for p in r.get("supersessions", []):
        lines.append(f"  supersede {p['old']} by {p['by']} (cosine {p['cosine']:.2f}, \"{p['cue']}\")")
    for p in r["possible_updates"]:
        lines.append(f"  held apart ({p['why']}): {p['a']} vs {p['b']} (cosine {p['cosine']:.2f})")
    if r.get("memory_md_changed"):
        lines.append(f"  MEMORY.md: {r['memory_md_lines']} line(s)")
    return "\n".join(lines)


@click.command()
@click.option("--scope", "-s", "scope", help="Scope whose last dream to revert (default scope if absent).")
@json_option
@pass_store
def undream(store, scope, as_json):
    """Revert the last dream of a scope with a new commit, keeping later writes.

    \b
    Example:
      gitmem undream --scope main
    """
    result = store.undream(scope=scope)
    emit(result, as_json, f"{result['scope']}: reverted dream {result['reverted'][:10]} ({result['commit'][:10]}); "
                          f"restored {len(result['restored'])} path(s), kept {len(result['kept'])} later change(s)")
