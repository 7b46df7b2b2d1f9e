"""Encryption commands: `encrypt enable|status`, `key export|import|rotate`."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from gitmem.core.errors import UsageError
from gitmem.frontends.cli import emit, emit_json, json_option, pass_store


@click.group()
def encrypt() -> None:
    """Encrypt the store for remotes you do not trust.

    Every memory, journal and session file and every commit message is sealed with
    AES-SIV (deterministic, so unchanged memories keep their ids and merges work); each
    memory has its own data key, and `forget` destroys it. Plain git shows ciphertext;
    gitmem's own commands work as before. The key lives in keys/master.json (0600).

    \b
    Examples:
      gitmem encrypt enable            # rewrite this store's history sealed
      gitmem key export ~/key.json     # then `gitmem key import` on your other machines
      gitmem encrypt status --json
    """


@encrypt.command("enable")
@json_option
@pass_store
def encrypt_enable(store, as_json):
    """Encrypt this store: a new key, and its whole history rewritten sealed (once).

    Other clones must import the key (`gitmem key import FILE`) before they sync again.

    \b
    Example:
      gitmem encrypt enable && gitmem key export ~/gitmem-key.json
    """
    out = store.encrypt_enable(progress=lambda line: click.echo(line, err=True))
    if as_json:
        emit_json(out)
        return
    click.echo(f"encrypted: key {out['fingerprint']}; {out['rewritten_commits']} commit(s) rewritten, "
               f"{out['sealed_blobs']} blob(s) sealed")
    if out["dropped_tags"]:
        click.echo(f"deleted annotated tags (they kept plaintext reachable): {', '.join(out['dropped_tags'])}")
    click.echo("back the key up now: `gitmem key export FILE` (without it the store cannot be read)")


@encrypt.command("status")
@json_option
@pass_store
def encrypt_status(store, as_json):
    """Whether the store is encrypted, and its key's fingerprint and state.

    \b
    Example:
      gitmem encrypt status --json
    """
    st = store.encryption()
    if as_json:
        emit_json(st)
    elif not st["encrypted"]:
        click.echo("not encrypted (`gitmem encrypt enable` turns it on)")
    else:
        extra = f", epoch {st['epoch']}, {st['keys']} data key(s)" if "epoch" in st else ""
        click.echo(f"encrypted, key {st['fingerprint']} ({st['key']}{extra})")


@click.group()
def key() -> None:
    """The master key of an encrypted store: export, import, rotate.

    \b
    Examples:
      gitmem key export ~/gitmem-key.json      # on the machine that has it
      gitmem key import ~/gitmem-key.json      # on another machine, then `gitmem sync`
      gitmem key rotate                        # new key; other machines import it again
    """


@key.command("export")
@click.argument("file", required=False, type=click.Path(dir_okay=False, allow_dash=True))
@click.option("--force", is_flag=True, help="Print to a terminal, or overwrite FILE.")
@json_option
@pass_store
def key_export(store, file, force, as_json):
    """Write the master key to FILE (mode 0600), or to stdout when FILE is - or omitted.

    Whoever has this file can read every memory: keep it like a password. Printing it
    to a terminal is refused unless --force.

    \b
    Examples:
      gitmem key export ~/gitmem-key.json
      gitmem key export | ssh other-host gitmem key import -
    """
    text = store.key_export()
    if file in (None, "-"):
        if sys.stdout.isatty() and not force:
            raise UsageError("refusing to print the key to a terminal",
                             hint="give a FILE (`gitmem key export ~/gitmem-key.json`), pipe it, or add --force")
        click.echo(text, nl=False)
        return
    if os.path.exists(file) and not force:
        raise UsageError(f"{file} exists", hint="choose another FILE, or --force to overwrite it")
    from gitmem.core.fsutil import atomic_write

    atomic_write(Path(file), text.encode("utf-8"), mode=0o600)
    st = store.encryption()
    emit({"file": file, "fingerprint": st["fingerprint"]}, as_json,
         f"wrote key {st['fingerprint']} to {file} (mode 0600)")


@key.command("import")
@click.argument("file", type=click.Path(dir_okay=False, allow_dash=True))
@json_option
@pass_store
def key_import(store, file, as_json):
    """Install the key in FILE (from `gitmem key export`; - reads stdin).

    For a new home that will sync with an encrypted remote (`gitmem init`, `gitmem key
    import FILE`, `gitmem remote add …`, `gitmem sync`), for a home that lost its key
    file, or after `gitmem key rotate` on another machine. A key of another store is
    refused and nothing changes.

    \b
    Example:
      gitmem key import ~/gitmem-key.json && gitmem sync
    """
    if file == "-":
        text = sys.stdin.read()
    else:
        try:
            with open(file, encoding="utf-8") as f:
                text = f.read()
        except OSError as e:
            raise UsageError(f"cannot read {file}: {e.strerror}", hint="the file from `gitmem key export`") from e
        except UnicodeDecodeError as e:
            raise UsageError(f"{file} is not a gitmem key file", hint="the file from `gitmem key export`") from e
    out = store.key_import(text, source=file if file != "-" else "stdin")
    emit(out, as_json, f"imported key {out['fingerprint']}")


@key.command("rotate")
@json_option
@pass_store
def key_rotate(store, as_json):
    """Replace the master key: the keyring is re-wrapped under a new one and the old
    one opens nothing any more. Export the new key; other machines import it.

    \b
    Example:
      gitmem key rotate && gitmem key export ~/gitmem-key.json --force
    """
    out = store.key_rotate()
    emit(out, as_json, f"new key {out['fingerprint']} (was {out['old_fingerprint']}); export it with "
                       "`gitmem key export FILE` and import it on your other machines")
