"""The daemon command: serve."""

from __future__ import annotations

import os
import signal
import sys
import time

import click

from gitmem.frontends.cli import emit, emit_json, json_option, store_from


@click.command()
@click.option("--idle-exit", "idle_exit", type=click.FloatRange(min=0), default=None,
              metavar="SECONDS", help="Exit after this long without a request (0: never)  "
              "[default: [serve] idle_exit, 1800].")
@click.option("--detach", is_flag=True, help="Run in the background; return once it answers.")
@click.option("--status", "show_status", is_flag=True, help="Show the running daemon, if any, and exit.")
@click.option("--stop", is_flag=True, help="Stop the running daemon (SIGTERM) and exit.")
@json_option
@click.pass_context
def serve(ctx, idle_exit, detach, show_status, stop, as_json):
    """Keep the model and index warm behind a local socket, so hooks, MCP search and
    the everyday commands answer in milliseconds. While it runs, `recall`, `remember`,
    `append`, `get`, `list`, `context`, `changes` and `status` are run by it, on your
    terminal, directory and environment, with the same output; when it is not running
    everything works in-process (GITMEM_NO_DAEMON=1 forces that). The before-prompt
    hook starts one by itself ([hooks] autostart_serve = false turns that off); any
    command does with [serve] autostart = true.

    The socket is $GITMEM_HOME/state/serve.sock (owner only); SIGTERM stops it.

    \b
    Examples:
      gitmem serve --detach
      gitmem serve --idle-exit 0        # in the foreground, until Ctrl-C
      gitmem serve --status --json
      gitmem serve --stop
    """
    from gitmem.frontends.daemon import client as serve_client

    store = store_from(ctx)  # no model or index yet: just where the store is
    home = store.home
    if show_status or stop:
        res = serve_client.request(home, {"op": "status"}, timeout=2.0)
        if not res or not res.get("ok"):
            if as_json:
                emit_json({"running": False})
            else:
                click.echo("gitmem serve is not running", err=True)
            return
        if stop:
            os.kill(int(res["pid"]), signal.SIGTERM)
            for _ in range(100):  # up to 5 s for it to close its socket
                if not serve_client.socket_path(home).exists():
                    break
                time.sleep(0.05)
            emit({"running": False, "stopped": res["pid"]}, as_json, f"stopped gitmem serve (pid {res['pid']})")
            return
        res.pop("ok", None)
        emit({"running": True, **res}, as_json,
             f"gitmem serve pid {res['pid']} on {res['socket']}: up {res['uptime']:.0f} s, "
             f"{res['requests']} requests, backend {res['backend']}"
             + (f" ({res['model']})" if res.get("model") else ""))
        return
    from gitmem.frontends.daemon import process as daemon

    if detach:
        out = daemon.start_detached(home, idle_exit)
        if as_json:
            emit_json(out)
        elif not out["ready"]:
            from gitmem.core.errors import GitmemError

            raise GitmemError("gitmem serve did not come up", hint=f"see {out.get('log')}")
        else:
            state = "already running" if out["already"] else "started"
            click.echo(f"gitmem serve {state}: pid {out['pid']} on {out['socket']}")
        return

    def ready(info):
        click.echo(f"gitmem serve: pid {info['pid']} listening on {info['socket']}", err=True)
        sys.stderr.flush()

    reason = daemon.serve(home, idle_exit, ready=ready)
    click.echo(f"gitmem serve: stopped ({reason})", err=True)
