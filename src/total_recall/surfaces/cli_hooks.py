"""Commands about the window: the harness hooks and the receipts.

`total-recall hook claude-code` / `total-recall hook codex` read the hook JSON on stdin and answer on
stdout. They always exit 0: a hook must never break its harness (Claude Code blocks a compaction when a
PreCompact hook exits 2 and flags any other non-zero exit as a hook error), so problems — malformed stdin
included — are one line on stderr, which Claude Code keeps in its debug log.

`total-recall receipts` lists every receipt and the harness compactions without one; it never writes (the
receipts of Codex compactions the record holds are written at sync: `total_recall.syncing`).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from typing import Any

import click

from total_recall.errors import HookInputError, TotalRecallError
from total_recall.keeping.claude_code import claude_code_hook
from total_recall.keeping.codex import codex_hook
from total_recall.keeping.compaction import account
from total_recall.keeping.hooks import OPEN_WAIT, HookReply, parse_payload
from total_recall.model import Address
from total_recall.record.sessions import resolve_session
from total_recall.record.store import Store
from total_recall.surfaces.cli import Settings, _dump, _fail, _store, cli
from total_recall.surfaces.wire import account_json

Handler = Callable[[Store, Mapping[str, Any]], HookReply]


@cli.group()
def hook() -> None:
    """Answer a harness hook: the hook JSON on stdin, the answer on stdout; always exits 0."""


@hook.command("claude-code")
@click.pass_obj
def hook_claude_code(settings: Settings) -> None:
    """Claude Code's PreCompact (marker + receipt), SessionStart (markers back) and UserPromptSubmit."""
    _answer(settings, "claude-code", claude_code_hook)


@hook.command("codex")
@click.pass_obj
def hook_codex(settings: Settings) -> None:
    """Codex's PreCompact (marker + receipt), SessionStart (markers back) and UserPromptSubmit."""
    _answer(settings, "codex", codex_hook)


def _answer(settings: Settings, name: str, handler: Handler) -> None:
    prefix = f"total-recall hook {name}"
    try:
        payload = parse_payload(sys.stdin.read())
    except HookInputError as exc:
        click.echo(f"{prefix}: {exc}", err=True)
        return
    try:
        with Store(settings.record_path, timeout=OPEN_WAIT) as store:  # a hook waits little (hooks.py)
            reply = handler(store, payload)
    except Exception as exc:  # the top of a hook: whatever went wrong, the harness goes on
        click.echo(f"{prefix}: {payload['hook_event_name']} failed: {type(exc).__name__}: {exc}", err=True)
        return
    for line in reply.log:
        click.echo(f"{prefix}: {line}", err=True)
    if reply.stdout:
        click.echo(reply.stdout)


@cli.command()
@click.option("--session", help="Only this session (s3, its own id, or a unique prefix of it).")
@click.option("--json", "as_json", is_flag=True, help="Print receipts and unreceipted compactions as JSON.")
@click.pass_obj
def receipts(settings: Settings, session: str | None, as_json: bool) -> None:
    """List the receipts of every compaction and decision not to compact, and warn about harness
    compactions that have none (Codex compactions get theirs when a sync brings them in)."""
    if session is not None and session.strip()[:1] == "s" and session.strip()[1:2].isdigit():
        try:
            Address.parse(session)  # before the record is opened
        except TotalRecallError as exc:
            _fail(str(exc))
    with _store(settings) as store:
        number = None if session is None else resolve_session(store, session).number
        ledger = account(store, number)
    if as_json:
        _dump(account_json(ledger))
        return
    found, missing = ledger.receipts, ledger.unreceipted
    if not found:
        click.echo("no receipts")
    for r in found:
        where = r.range or (f"s{r.session}" if r.session else "no session")
        tokens = f"{r.tokens_before}→{r.tokens_after}" if r.tokens_before is not None else "?"
        marker = f" marker {r.marker_id}" if r.marker_id is not None else ""
        click.echo(f"#{r.id:<4} {(r.created or '')[:19]:<19} {r.controller:<12} {r.trigger:<8} "
                   f"{r.decision:<9} {where:<14} {tokens:<12} {r.knowledge}{marker}")
        if r.source or r.note:
            click.echo(f"      {'source ' + r.source + ' · ' if r.source else ''}{r.note or ''}")
    if missing:
        shown = ", ".join(c.address for c in missing[:10]) + (" …" if len(missing) > 10 else "")
        click.echo(f"warning: {len(missing)} harness compaction(s) have no receipt: {shown}", err=True)
