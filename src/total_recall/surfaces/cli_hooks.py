"""The harness hooks: `total-recall hook claude-code` / `total-recall hook codex`.

Each reads the hook JSON on stdin, lets the core decide (`keeping/hooks.py`: a marker and a receipt, or
the markers to hand back) and answers on stdout in the harness's JSON. It always exits 0: a hook must never
break its harness (Claude Code blocks a compaction when a PreCompact hook exits 2 and flags any other
non-zero exit as a hook error), so problems — malformed stdin included — are one line on stderr, which
Claude Code keeps in its debug log.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from typing import Any

import click
import orjson

from total_recall.errors import HookInputError
from total_recall.keeping.claude_code import claude_code_hook
from total_recall.keeping.codex import codex_hook
from total_recall.keeping.hook_input import parse_payload
from total_recall.keeping.hooks import HookReply
from total_recall.keeping.prompt import OPEN_WAIT
from total_recall.record.database import Record
from total_recall.surfaces.cli import Settings, cli

Handler = Callable[[Record, Mapping[str, Any]], HookReply]


@cli.group()
def hook() -> None:
    """Answer a harness hook: the hook JSON on stdin, the answer on stdout; always exits 0."""


@hook.command("claude-code")
@click.pass_obj
def hook_claude_code(settings: Settings) -> None:
    """Claude Code's PreCompact (marker + receipt), SessionStart (markers back), UserPromptSubmit (the
    push) and Stop (a sync in the background)."""
    _answer(settings, "claude-code", claude_code_hook)


@hook.command("codex")
@click.pass_obj
def hook_codex(settings: Settings) -> None:
    """Codex's PreCompact (marker + receipt), SessionStart (markers back), UserPromptSubmit (the push)
    and Stop (a sync)."""
    _answer(settings, "codex", codex_hook)


def _answer(settings: Settings, name: str, handler: Handler) -> None:
    prefix = f"total-recall hook {name}"
    try:
        payload = parse_payload(sys.stdin.read())
    except HookInputError as exc:
        click.echo(f"{prefix}: {exc}", err=True)
        return
    try:
        with Record(settings.record_path, timeout=OPEN_WAIT) as record:  # a hook waits little (hooks.py)
            reply = handler(record, payload)
    except Exception as exc:  # the top of a hook: whatever went wrong, the harness goes on
        click.echo(f"{prefix}: {payload['hook_event_name']} failed: {type(exc).__name__}: {exc}", err=True)
        return
    for line in reply.log:
        click.echo(f"{prefix}: {line}", err=True)
    if (out := harness_json(payload["hook_event_name"], reply)) is not None:
        click.echo(out)


def harness_json(event: str, reply: HookReply) -> str | None:
    """What the harness reads on stdout: the context handed back as `hookSpecificOutput.additionalContext`
    (both Claude Code and Codex take this shape); None prints nothing, which both take as "no decision, no
    context" (Codex fails a PreCompact hook whose stdout looks like JSON but is not its schema)."""
    if reply.context is None:
        return None
    return orjson.dumps({"hookSpecificOutput": {"hookEventName": event, "additionalContext": reply.context}}
                        ).decode()

