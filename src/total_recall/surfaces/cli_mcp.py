"""CLI commands `mcp` (serve the record over stdio) and `install` (register that server with a client).

Registered on the `cli` group by importing this module (surfaces/cli.py does, once). The MCP SDK is
imported only when `mcp` runs, so every other command starts as fast as before.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from total_recall.errors import TotalRecallError
from total_recall.install import (
    CLIENTS,
    SERVER_KEY,
    WATCHER,
    apply,
    claude_add_command,
    executable,
    registration,
)
from total_recall.model import HARNESSES
from total_recall.surfaces.cli import Settings, _dump, _fail, cli


@cli.command("mcp")
@click.option("--harness", default=None, metavar="NAME",
              help=f"Bind the server to one harness ({'|'.join(HARNESSES)}); also $HARNESS, the flag wins. "
                   "Default: every harness in the record.")
@click.option("--sync/--no-sync", default=True, show_default=True,
              help="Sync the served harnesses into the record in the background on start.")
@click.pass_obj
def mcp_command(settings: Settings, harness: str | None, sync: bool) -> None:
    """Serve the record to an MCP client over stdio (stdout is the protocol; logs go to stderr).

    Exits 2 before serving when the harness named by --harness or $HARNESS is unknown."""
    from total_recall.surfaces.mcp import Binding, resolve_binding, serve

    try:
        binding = Binding(settings.record_path, resolve_binding(harness), settings.demo)
        serve(binding, sync=sync)
    except TotalRecallError as exc:
        _fail(str(exc), type(exc).__name__)


@cli.command()
@click.argument("client", type=click.Choice((*CLIENTS, WATCHER)))
@click.option("--write", is_flag=True,
              help="Merge the registration into the client's config, keeping a dated backup beside it.")
@click.option("--config", "config", type=click.Path(path_type=Path, dir_okay=False), default=None,
              help="The client's MCP config file to use instead of its user-level default.")
@click.option("--harness", type=click.Choice(HARNESSES), default=None,
              help="Bind the registered server to one harness (HARNESS in its environment).")
@click.option("--json", "as_json", is_flag=True, help="Print what was planned or done as JSON.")
def install(client: str, write: bool, config: Path | None, harness: str | None, as_json: bool) -> None:
    """Print the snippet that registers `total-recall mcp` with CLIENT; --write merges it into the
    client's own config, keeping everything else in the file.

    The command in the snippet is the absolute path of this total-recall, so the client finds it without
    the virtualenv on PATH. For claude-code the hooks (PreCompact, SessionStart, UserPromptSubmit, and
    Stop in the background) go to its settings.json as well; for codex all but Stop go to its
    hooks.json. `install watcher` writes the systemd user unit of `total-recall watch`."""
    if client == WATCHER:
        from total_recall.surfaces.cli_watch import install_watcher

        install_watcher(write, config, harness, as_json)
        return
    try:
        command = executable()
        changes = registration(client, command, config=config, harness=harness)
        written = apply(changes) if write else []
    except TotalRecallError as exc:
        _fail(str(exc), type(exc).__name__)
    alternative = claude_add_command(command, harness) if client == "claude-code" else None
    if as_json:
        files: list[dict[str, Any]] = []
        for i, change in enumerate(changes):
            done = written[i] if written else None
            files.append({"path": str(change.path), "what": change.what, "format": change.format,
                          "snippet": change.snippet, "written": done is not None,
                          "changed": bool(done and done.changed),
                          "backup": str(done.backup) if done and done.backup else None})
        out: dict[str, Any] = {"client": client, "command": command, "files": files}
        if alternative:
            out["claude_mcp_add"] = alternative
        _dump(out)
        return
    if written:
        for done, change in zip(written, changes, strict=True):
            if not done.changed:
                click.echo(f"{change.what}: already registered in {done.path}; nothing changed")
            else:
                kept = f"backup: {done.backup}" if done.backup else "new file"
                click.echo(f"{change.what}: merged into {done.path} ({kept})")
        if any(done.changed for done in written):
            click.echo(f"Restart {client} to load the server (key {SERVER_KEY}).")
        return
    for change in changes:
        click.echo(f"# {change.what}: merge into {change.path}")
        click.echo(change.snippet.rstrip("\n"))
        click.echo()
    if alternative:
        click.echo(f"# or register the MCP server with Claude Code's own command:\n{alternative}\n")
    click.echo(f"# total-recall install {client} --write merges this for you (with a backup).")
