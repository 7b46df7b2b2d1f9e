"""The `gitmem` entry point: hand the command to a warm `gitmem serve`, else run it here.

When a daemon for the store runs, `recall`, `remember`, `append`, `get`, `list`,
`context`, `changes` and `status` are run *by the daemon*, on its warm Store (model
and index loaded), with this process's argv, working directory, environment, umask
and its very stdin/stdout/stderr file descriptors (passed over the Unix socket with
SCM_RIGHTS). The daemon runs the same click command as this process would, writing
straight to our terminal or pipes, so the output is the in-process output byte for
byte: terminal detection, encodings and exit codes included. This module imports the
standard library only (no click, no gitmem.frontends.cli): the whole client costs a Python
start-up and a socket round trip.

No daemon, a daemon started with another GITMEM_* configuration or another copy of
gitmem, `--help`, any other command, or any failure before the daemon accepted the
command: gitmem.frontends.cli runs it in this process as before. `[serve] autostart = true`
makes a command that found no daemon start one in the background for the next call.
GITMEM_NO_DAEMON=1 keeps every command in-process.

Protocol (JSON lines, see daemon.server.Daemon.run): the client sends {"op": "run", ...} with
its three descriptors; the daemon answers {"ok": true, "accepted": true} or declines
({"ok": false}); the client says {"op": "go"}; the daemon runs the command and answers
{"ok": true, "exit": N}. The extra "go" means a client that gave up waiting (and runs
the command itself) never has it run twice."""

from __future__ import annotations

import os
import sys

from gitmem.core import paths

# The commands a warm daemon runs for the CLI.
WARM_COMMANDS = frozenset({"recall", "remember", "append", "get", "list", "context", "changes", "status"})
# Commands that never start a daemon by themselves (`hook` has [hooks] autostart_serve).
NO_AUTOSTART = frozenset({"serve", "hook", "init"})
_VALUE_OPTIONS = ("--home", "--session", "--agent")
EXIT_INTERNAL = 70  # errors.EXIT_INTERNAL, without importing gitmem.errors


def split_globals(argv: list[str]) -> tuple[dict[str, str], str | None]:
    """The global options before the command and the command's name (None when there is
    none or something this parser does not know, such as --help or --version: the
    caller then leaves the command line to click)."""
    opts: dict[str, str] = {}
    i = 0
    while i < len(argv):
        a = argv[i]
        if a in _VALUE_OPTIONS:
            if i + 1 >= len(argv):
                return opts, None
            opts[a[2:]] = argv[i + 1]
            i += 2
            continue
        name, eq, value = a.partition("=")
        if eq and name in _VALUE_OPTIONS:
            opts[name[2:]] = value
            i += 1
            continue
        if a.startswith("-"):
            return opts, None
        return opts, a
    return opts, None


def warm_command(argv: list[str]) -> str | None:
    """The command's name if the daemon may run this command line, else None."""
    _, cmd = split_globals(argv)
    if cmd not in WARM_COMMANDS or "--help" in argv or "-h" in argv:
        return None
    return cmd


def resolve_home(argv: list[str], env: dict[str, str] | None = None) -> str:
    """The store the command line names, as an absolute path (config.load_config's rule:
    --home, else $GITMEM_HOME, else ~/.gitmem)."""
    env = os.environ if env is None else env  # type: ignore[assignment]
    opts, _ = split_globals(argv)
    home = paths.home_str(opts.get("home"), env)
    return os.path.abspath(os.path.expanduser(home))


def code_id() -> str:
    """Which gitmem this is: a daemon only runs commands for the same copy and version.
    The package folder's mtime changes when an upgrade replaces its files."""
    from gitmem.core.version import __version__

    pkg = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # gitmem/
    try:
        stamp = os.stat(pkg).st_mtime_ns
    except OSError:
        stamp = 0
    return f"{__version__} {pkg} {stamp}"


# run_in_daemon's and try_warm's answer when the daemon declined this client (another
# configuration or copy of gitmem): the in-process command must not ask it either.
DECLINED = -1


class Lost(Exception):
    """The daemon accepted the command and then went away before saying how it ended."""


def _streams() -> list[list[str | None]] | None:
    out = []
    for s in (sys.stdin, sys.stdout, sys.stderr):
        if s is None or not hasattr(s, "encoding"):
            return None
        out.append([s.encoding, s.errors])
    return out


def run_in_daemon(home: str, argv: list[str], connect_timeout: float = 5.0) -> int | None:
    """Have the daemon of `home` run `gitmem ARGV` on our descriptors: its exit code,
    None when no daemon answered, DECLINED when one answered and would not run it (the
    caller runs it in-process either way). Raises Lost when the daemon took it and died."""
    # _socket, not socket: the module around it costs 5 ms (enum, selectors) of a
    # command that should cost about a Python start-up.
    import _socket as socket
    from array import array

    from gitmem.frontends.daemon import wire

    path = paths.serve_socket(home)
    if not os.path.exists(path):
        return None
    streams = _streams()
    if streams is None:
        return None
    try:
        req = {"op": "run", "argv": list(argv), "cwd": os.getcwd(), "env": dict(os.environ),
               "umask": _umask(), "argv0": sys.argv[0] if sys.argv else "gitmem", "code": code_id(),
               "streams": streams}
        data = wire.encode(req)
    except (OSError, ValueError):  # a deleted cwd, undecodable argv or environment
        return None
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    buf = bytearray()
    try:
        s.settimeout(connect_timeout)
        try:
            s.connect(path)
            sent = s.sendmsg([data], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array("i", [0, 1, 2]))])
            if sent < len(data):
                s.sendall(data[sent:])
            ans = wire.read_dict(lambda: s.recv(65536), buf)
        except (OSError, ValueError):
            return None
        if not ans or not ans.get("accepted"):
            return DECLINED if ans else None
        try:
            s.sendall(b'{"op": "go"}\n')
        except OSError:
            return None  # it never heard "go": it does not run the command
        s.settimeout(None)  # the command may take as long as it takes in-process
        try:
            ans = wire.read_dict(lambda: s.recv(65536), buf)
        except (OSError, ValueError) as e:
            raise Lost(str(e)) from e
        if not ans or not isinstance(ans.get("exit"), int):
            raise Lost(str((ans or {}).get("error") or "it stopped"))
        return int(ans["exit"])
    finally:
        s.close()


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def autostart(home: str, cmd: str | None) -> None:
    """`[serve] autostart = true`: start a daemon in the background for the next call
    (never waits; does nothing when one runs or is starting)."""
    if cmd is None or cmd in NO_AUTOSTART or not os.path.isdir(os.path.join(home, "repo.git")):
        return
    try:
        # The schema reads config.toml and the environment (a cold path: no daemon answered).
        from gitmem.core.config import load_config

        config = load_config(home)
    except Exception:  # noqa: BLE001 - no config, or a broken one: the command itself reports that
        return
    if config.get("serve", "autostart") is not True:
        return
    from gitmem.frontends.daemon import client as serve_client

    serve_client.spawn(home, idle_exit=float(config.get("serve", "idle_exit")))


def try_warm(argv: list[str]) -> int | None:
    """Run the command line in a warm daemon if one takes it: the exit code; DECLINED
    when the daemon would not (the command then must not ask it either); else None.
    Starts a daemon for the next call when `[serve] autostart` says so and none runs."""
    if os.environ.get("GITMEM_NO_DAEMON") == "1":
        return None
    opts, cmd = split_globals(argv)
    if cmd is None:
        return None
    home = resolve_home(argv)
    if warm_command(argv) is not None:
        try:
            code = run_in_daemon(home, argv)
        except Lost as e:
            sys.stderr.write(f"error: gitmem serve did not finish the command: {e}\n"
                             f"hint: see {os.path.join(home, 'state', 'serve.log')}; "
                             "GITMEM_NO_DAEMON=1 runs commands without it\n")
            return EXIT_INTERNAL
        except KeyboardInterrupt:
            sys.stderr.write("error: interrupted\n")
            return 130
        if code is not None:
            return code
    try:
        autostart(home, cmd)
    except Exception:  # noqa: BLE001 - an optimisation for the next call must not fail this one
        pass
    return None


def main(argv: list[str] | None = None) -> None:
    """Entry point (the `gitmem` console script and `python -m gitmem`)."""
    argv = sys.argv[1:] if argv is None else list(argv)
    code = try_warm(argv)
    if code is not None and code != DECLINED:
        sys.exit(code)
    from gitmem.frontends.cli import main as cli_main

    rt = None
    if code == DECLINED:
        from gitmem.frontends.runtime import Runtime

        rt = Runtime(ask_daemon=False)
    cli_main(argv, rt)
