"""Command line: parse -> api -> format. Subcommands load lazily so `--help` and the
hook path stay fast (no duckdb, no fastembed until a command needs them)."""

from __future__ import annotations

import importlib
import json
import os
import sys
import traceback
from typing import Any, Callable

import click

from gitmem.core import paths
from gitmem.core.errors import EXIT_INTERNAL, GitmemError

# command name -> "module:attribute". Feature modules register their commands here.
COMMANDS: dict[str, str] = {
    "init": "gitmem.frontends.commands.core:init_cmd",
    "remember": "gitmem.frontends.commands.core:remember",
    "update": "gitmem.frontends.commands.core:update",
    "append": "gitmem.frontends.commands.core:append",
    "get": "gitmem.frontends.commands.core:get",
    "receipts": "gitmem.frontends.commands.receipts:receipts",
    "edit": "gitmem.frontends.commands.core:edit",
    "restore": "gitmem.frontends.commands.core:restore",
    "list": "gitmem.frontends.commands.listing:list_cmd",
    "log": "gitmem.frontends.commands.listing:log",
    "show": "gitmem.frontends.commands.listing:show",
    "diff": "gitmem.frontends.commands.listing:diff",
    "scopes": "gitmem.frontends.commands.listing:scopes",
    "status": "gitmem.frontends.commands.listing:status",
    "import": "gitmem.frontends.commands.transfer:import_cmd",
    "export": "gitmem.frontends.commands.transfer:export",
    # ---- recall (issue 3)
    "recall": "gitmem.frontends.commands.recall:recall",
    "reindex": "gitmem.frontends.commands.recall:reindex",
    # ---- lifecycle (issue 4)
    "forget": "gitmem.frontends.commands.lifecycle:forget",
    "redact": "gitmem.frontends.commands.lifecycle:redact",
    "dream": "gitmem.frontends.commands.lifecycle:dream",
    "undream": "gitmem.frontends.commands.lifecycle:undream",
    # ---- agents (issue 5)
    "watch": "gitmem.frontends.commands.agents_watch:watch",
    "changes": "gitmem.frontends.commands.agents_watch:changes",
    "link": "gitmem.frontends.commands.agents_watch:link",
    "unlink": "gitmem.frontends.commands.agents_watch:unlink",
    "why": "gitmem.frontends.commands.agents_watch:why",
    "mcp": "gitmem.frontends.commands.agents_watch:mcp",
    "context": "gitmem.frontends.commands.agents:context",
    "extract": "gitmem.frontends.commands.agents:extract",
    "flush": "gitmem.frontends.commands.agents:flush",
    "hooks": "gitmem.frontends.commands.agents:hooks",
    "hook": "gitmem.frontends.commands.agents:hook",
    # ---- serve
    "serve": "gitmem.frontends.commands.serve:serve",
    # ---- sync
    "remote": "gitmem.frontends.commands.sync:remote",
    "sync": "gitmem.frontends.commands.sync:sync",
    "resolve": "gitmem.frontends.commands.sync:resolve",
    "doctor": "gitmem.frontends.commands.doctor:doctor",
    # ---- encryption
    "encrypt": "gitmem.frontends.commands.keys:encrypt",
    "key": "gitmem.frontends.commands.keys:key",
}


class LazyGroup(click.Group):
    """The `gitmem` group: subcommands imported on first use, errors reported in one place."""

    def main(self, *args: Any, standalone_mode: bool = True, **kw: Any) -> Any:
        # Standalone (the console script, CliRunner): failures become `error:`/`hint:`
        # and an exit code here, so tests see exactly what a user sees. Not standalone
        # (embedding callers): click's plain behaviour, exceptions propagate.
        if not standalone_mode:
            return super().main(*args, standalone_mode=False, **kw)
        run_reporting_errors(lambda: super(LazyGroup, self).main(*args, standalone_mode=False, **kw))

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(COMMANDS) | set(super().list_commands(ctx)))

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name in COMMANDS:
            mod, _, attr = COMMANDS[name].partition(":")
            return getattr(importlib.import_module(mod), attr)
        return super().get_command(ctx, name)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        # Short help without importing every module: read the first docstring line.
        rows = []
        for name in self.list_commands(ctx):
            cmd = self.get_command(ctx, name)
            if cmd is not None and not cmd.hidden:
                rows.append((name, cmd.get_short_help_str(60)))
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


def _version() -> str:
    from gitmem.core.model import FORMAT_VERSION
    from gitmem.core.version import __version__

    return f"gitmem {__version__} (store format {FORMAT_VERSION})"


def _show_version(ctx: click.Context, _param: Any, value: bool) -> None:
    # Not click.version_option: that computes the string (importing gitmem.model and
    # yaml) on every run, and the hook path cannot spare the 25 ms.
    if value and not ctx.resilient_parsing:
        click.echo(_version())
        ctx.exit()


@click.group("gitmem", cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--home", type=click.Path(file_okay=False), envvar="GITMEM_HOME",
              help="Store location (default $GITMEM_HOME or ~/.gitmem).")
@click.option("--session", envvar="GITMEM_SESSION", help="Session id recorded on commits.")
@click.option("--agent", envvar="GITMEM_AGENT", help="Agent name: recorded and used as author.")
@click.option("--version", is_flag=True, expose_value=False, is_eager=True, callback=_show_version,
              help="Show the version and exit.")
@click.pass_context
def cli(ctx: click.Context, home: str | None, session: str | None, agent: str | None) -> None:
    """gitmem: versioned memory for AI agents and people, stored in git.

    \b
    Quick start:
      gitmem init
      gitmem remember --type preference "I prefer tabs over spaces"
      gitmem recall "indentation"
      git --git-dir ~/.gitmem/repo.git log
    """
    ctx.ensure_object(dict)
    ctx.obj.update(home=home, session=session, agent=agent)


def store_from(ctx: click.Context, create: bool = False, encrypt: bool = False):
    """Open (or create) the store named by the global options."""
    from gitmem import api
    from gitmem.frontends import runtime

    root = ctx.find_root()
    o = root.obj or {}
    kw = dict(session=o.get("session"), agent=o.get("agent"))
    if create:
        return api.init(o.get("home"), encrypt=encrypt, **kw)
    return runtime.of(ctx).open(o.get("home"), **kw)


def pass_store(f: Callable[..., Any]) -> Callable[..., Any]:
    """Decorator: call the command with an opened Store as first argument."""

    @click.pass_context
    def wrapper(ctx: click.Context, *a: Any, **kw: Any) -> Any:
        store = store_from(ctx)
        try:
            return ctx.invoke(f, store, *a, **kw)
        finally:
            for w in store.warnings():
                click.echo(f"warning: {w}", err=True)
            skipped = store.skipped()
            if skipped:
                paths = ", ".join(s["path"] for s in skipped[:3]) + (" …" if len(skipped) > 3 else "")
                click.echo(f"warning: skipped {len(skipped)} malformed memory file(s): {paths} "
                           "(`gitmem doctor` shows why)", err=True)

    wrapper.__name__ = f.__name__
    wrapper.__doc__ = f.__doc__
    return wrapper


json_option = click.option("--json", "as_json", is_flag=True, help="Print JSON.")


def emit_json(data: Any) -> None:
    click.echo(json.dumps(data, ensure_ascii=False, indent=None, default=str))


def emit(data: Any, as_json: bool, text: str) -> None:
    """A command's result: `data` as JSON under --json, else the line `text` for people."""
    if as_json:
        emit_json(data)
    else:
        click.echo(text)


def read_text_arg(text: str | None) -> str:
    """TEXT or `-` for stdin."""
    if text is None or text == "-":
        if text is None and sys.stdin.isatty():
            raise click.UsageError("missing TEXT (or `-` to read stdin)")
        data = sys.stdin.buffer.read()
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as e:
            from gitmem.core.errors import UsageError

            raise UsageError("stdin is not valid UTF-8 text", hint="convert it first, e.g. iconv -t UTF-8") from e
    return text


def _fail(message: str, hint: str | None, code: int) -> None:
    # An error may quote the value it refused, a token say: never show one.
    from gitmem.api import scrub

    message, hint = scrub(message) or "", scrub(hint)
    click.echo(f"error: {message.splitlines()[0] if message else message}", err=True)
    if hint:
        click.echo(f"hint: {hint}", err=True)
    sys.exit(code)


def _usage_hint(e: click.UsageError) -> str:
    path = e.ctx.command_path if e.ctx else "gitmem"
    return f"see `{path} --help`"


def run_reporting_errors(run: Callable[[], Any]) -> None:
    """Run the command line and exit: the one place failures become exit codes.

    GitmemError -> its exit_code (2 usage/config, 3 no store, 4 not found, ...) with
    `error:`/`hint:` on stderr; click's usage errors -> 2; Ctrl-C -> 130; anything
    else is a bug -> EXIT_INTERNAL (70), the traceback in a crash log (on stderr
    instead with GITMEM_DEBUG=1)."""
    try:
        rv = run()
    except GitmemError as e:
        _fail(e.message, e.hint, e.exit_code)
    except click.UsageError as e:
        _fail(e.format_message(), _usage_hint(e), 2)
    except click.Abort as e:
        _fail("interrupted" if isinstance(e.__cause__, KeyboardInterrupt) else "aborted", None, 130)
    except click.exceptions.Exit as e:
        sys.exit(e.exit_code)
    except click.ClickException as e:
        _fail(e.format_message(), None, e.exit_code)
    except KeyboardInterrupt:
        _fail("interrupted", None, 130)
    except BrokenPipeError:
        sys.exit(0)
    except Exception as e:  # a bug: keep the traceback in a log, not on the screen
        _internal_error(e)
    # Not standalone, click hands back the code of a ctx.exit() (--help, --version: 0).
    sys.exit(rv if isinstance(rv, int) and not isinstance(rv, bool) else 0)


def _internal_error(e: Exception) -> None:
    text = traceback.format_exc()
    what = f"internal error, this is a bug: {type(e).__name__}: {e}"
    if os.environ.get("GITMEM_DEBUG"):
        sys.stderr.write(text)
        _fail(what, "the traceback is above; please report it", EXIT_INTERNAL)
    log = _crash_log(text)
    hint = (f"the traceback is in {log}; please report it" if log
            else "rerun with GITMEM_DEBUG=1 to see the traceback")
    _fail(what, hint, EXIT_INTERNAL)


def _crash_log(text: str) -> str | None:
    """Write the traceback to the user's cache dir (owner-only: a traceback can quote
    memory text); its path, or None when it cannot be written."""
    import datetime as dt
    import platform

    from gitmem.core.version import __version__

    base = str(paths.cache_dir().parent)
    path = os.path.join(base, "gitmem", "crash.log")
    # The command's name, never its arguments: they can hold the very secrets gitmem redacts.
    command = next((a for a in sys.argv[1:] if a in COMMANDS), "?")
    head = (f"time: {dt.datetime.now(dt.timezone.utc).isoformat()}\n"
            f"gitmem {__version__}, python {platform.python_version()}, {platform.platform()}\n"
            f"command: {command}\n\n")
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:  # the last crash only: it never grows
            fh.write(head + text)
        return path
    except OSError:
        return None


def main(argv: list[str] | None = None, rt: Any = None) -> None:
    """Run the command line in this process and exit. The console script's entry point
    is gitmem.frontends.launch.main, which first offers the command to a running `gitmem
    serve`; `rt` (a frontends.runtime.Runtime) says how this run reaches the store."""
    cli.main(args=argv, prog_name="gitmem", obj={} if rt is None else {"runtime": rt})


def redaction_note(findings: list[dict]) -> None:
    if findings:
        kinds = sorted({f["kind"] for f in findings})
        click.echo(f"note: redacted {len(findings)} secret(s): {', '.join(kinds)}", err=True)


def mem_line(m) -> str:
    tags = f" [{', '.join(m.tags)}]" if m.tags else ""
    key = f" key={m.key}" if m.key else ""
    by = getattr(m, "superseded_by", ())
    later = f"  (superseded by {', '.join(by)})" if by else ""
    return f"{m.id}  {m.scope:<12} {m.type:<10} {m.importance:>2}  {m.summary}{tags}{key}{later}"
