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

from .errors import GitmemError

# command name -> "module:attribute". Feature modules register their commands here.
COMMANDS: dict[str, str] = {
    "init": "gitmem.commands.core:init_cmd",
    "remember": "gitmem.commands.core:remember",
    "update": "gitmem.commands.core:update",
    "append": "gitmem.commands.core:append",
    "get": "gitmem.commands.core:get",
    "edit": "gitmem.commands.core:edit",
    "restore": "gitmem.commands.core:restore",
    "list": "gitmem.commands.core:list_cmd",
    "log": "gitmem.commands.core:log",
    "show": "gitmem.commands.core:show",
    "diff": "gitmem.commands.core:diff",
    "scopes": "gitmem.commands.core:scopes",
    "status": "gitmem.commands.core:status",
    "import": "gitmem.commands.core:import_cmd",
    "export": "gitmem.commands.core:export",
    # ---- recall (issue 3)
    "recall": "gitmem.commands.recall:recall",
    "reindex": "gitmem.commands.recall:reindex",
    # ---- lifecycle (issue 4)
    "forget": "gitmem.commands.lifecycle:forget",
    "redact": "gitmem.commands.lifecycle:redact",
    "dream": "gitmem.commands.lifecycle:dream",
    "undream": "gitmem.commands.lifecycle:undream",
    # ---- agents (issue 5)
    "watch": "gitmem.commands.agents_watch:watch",
    "changes": "gitmem.commands.agents_watch:changes",
    "link": "gitmem.commands.agents_watch:link",
    "unlink": "gitmem.commands.agents_watch:unlink",
    "why": "gitmem.commands.agents_watch:why",
    "mcp": "gitmem.commands.agents_watch:mcp",
    "context": "gitmem.commands.agents:context",
    "extract": "gitmem.commands.agents:extract",
    "flush": "gitmem.commands.agents:flush",
    "hooks": "gitmem.commands.agents:hooks",
    "hook": "gitmem.commands.agents:hook",
    # ---- serve
    "serve": "gitmem.commands.serve:serve",
}


class LazyGroup(click.Group):
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
    from . import __version__
    from .model import FORMAT_VERSION

    return f"gitmem {__version__} (store format {FORMAT_VERSION})"


def _show_version(ctx: click.Context, _param: Any, value: bool) -> None:
    # Not click.version_option: that computes the string (importing gitmem.model and
    # yaml) on every run, and the hook path cannot spare the 25 ms.
    if value and not ctx.resilient_parsing:
        click.echo(_version())
        ctx.exit()


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
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


def store_from(ctx: click.Context, create: bool = False):
    """Open (or create) the store named by the global options."""
    from . import api

    root = ctx.find_root()
    o = root.obj or {}
    kw = dict(session=o.get("session"), agent=o.get("agent"))
    if create:
        return api.init(o.get("home"), **kw)
    return api.open(o.get("home"), **kw)


def pass_store(f: Callable[..., Any]) -> Callable[..., Any]:
    """Decorator: call the command with an opened Store as first argument."""

    @click.pass_context
    def wrapper(ctx: click.Context, *a: Any, **kw: Any) -> Any:
        return ctx.invoke(f, store_from(ctx), *a, **kw)

    wrapper.__name__ = f.__name__
    wrapper.__doc__ = f.__doc__
    return wrapper


json_option = click.option("--json", "as_json", is_flag=True, help="Print JSON.")


def emit_json(data: Any) -> None:
    click.echo(json.dumps(data, ensure_ascii=False, indent=None, default=str))


def read_text_arg(text: str | None) -> str:
    """TEXT or `-` for stdin."""
    if text is None or text == "-":
        if text is None and sys.stdin.isatty():
            raise click.UsageError("missing TEXT (or `-` to read stdin)")
        data = sys.stdin.buffer.read()
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as e:
            from .errors import UsageError

            raise UsageError("stdin is not valid UTF-8 text") from e
    return text


def _fail(message: str, hint: str | None, code: int) -> None:
    click.echo(f"error: {message}".splitlines()[0] if "\n" in message else f"error: {message}", err=True)
    if hint:
        click.echo(f"hint: {hint}", err=True)
    sys.exit(code)


def main(argv: list[str] | None = None) -> None:
    """Entry point: maps every failure to `error:` + `hint:` and an exit code."""
    try:
        cli.main(args=argv, prog_name="gitmem", standalone_mode=False)
    except GitmemError as e:
        _fail(e.message, e.hint, e.exit_code)
    except click.exceptions.NoSuchOption as e:
        _fail(e.format_message(), f"see `gitmem {e.ctx.command_path.split(' ', 1)[-1] if e.ctx else ''} --help`".replace("  ", " "), 2)
    except click.UsageError as e:
        cmd = e.ctx.command_path if e.ctx else "gitmem"
        _fail(e.format_message(), f"see `{cmd} --help`", 2)
    except click.Abort:
        _fail("aborted", None, 130)
    except click.exceptions.Exit as e:
        sys.exit(e.exit_code)
    except click.ClickException as e:
        _fail(e.format_message(), None, e.exit_code)
    except KeyboardInterrupt:
        _fail("interrupted", None, 130)
    except BrokenPipeError:
        sys.exit(0)
    except Exception as e:  # a bug: keep the traceback in a log, not on the screen
        log = _crash_log(traceback.format_exc())
        _fail(f"unexpected {type(e).__name__}: {e}",
              f"this is a bug; details in {log}" if log else "this is a bug; rerun with GITMEM_DEBUG=1", 3)


def _crash_log(text: str) -> str | None:
    if os.environ.get("GITMEM_DEBUG"):
        sys.stderr.write(text)
    try:
        import tempfile

        path = os.path.join(tempfile.gettempdir(), "gitmem-crash.log")
        with open(path, "a") as fh:
            fh.write(text + "\n")
        return path
    except OSError:
        return None
