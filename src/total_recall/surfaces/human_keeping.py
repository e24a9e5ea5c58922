"""How the CLI shows the keeping operations' replies without --json (see surfaces/human.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

from total_recall.ops.operation import Reply

UNRECEIPTED_LISTED = 10


def _held(reply: Reply) -> None:
    """On stderr: what a capped reply held back and where the whole of it is."""
    if reply.get("held_back"):
        click.echo(f"note: {reply['notice']}", err=True)


def _compact(reply: Reply, settings: Any) -> str:
    """The marker as the agent will read it; its notices (Bo full, what did not fit) on stderr."""
    for notice in reply["notices"]:
        click.echo(f"note: {notice}", err=True)
    return str(reply["text"])


def _markers(reply: Reply, settings: Any) -> str:
    found = reply["markers"]
    if not found and not reply.get("held_back"):
        click.echo(f"no markers for {reply['session']}", err=True)
    lines = []
    for m in found:
        state = f" · withdrawn: {m['withdrawn']}" if m["withdrawn"] else ""
        lines.append(f"── marker {m['id']} · {m['range']} · {m['created']} · {m['tokens']} tokens{state} ──")
        lines.append(m["text"])
    _held(reply)
    return "\n".join(lines)


def _cue(reply: Reply, settings: Any) -> str:
    return f"cue {reply['id']} for {reply['covers']}: {reply['text']}"


def _receipts(reply: Reply, settings: Any) -> str:
    """One line per receipt (a second for its source and note); the compactions without one warned of on
    stderr."""
    found, missing = reply["receipts"], reply["unreceipted"]
    lines = [] if found or reply.get("held_back") else ["no receipts"]
    for r in found:
        where = r["range"] or r["session"] or "no session"
        tokens = f"{r['tokens_before']}→{r['tokens_after']}" if r["tokens_before"] is not None else "?"
        marker = f" marker {r['marker']}" if r["marker"] is not None else ""
        lines.append(f"#{r['id']:<4} {(r['created'] or '')[:19]:<19} {r['controller']:<12} {r['trigger']:<8} "
                     f"{r['decision']:<9} {where:<14} {tokens:<12} {r['knowledge']}{marker}")
        if r["source"] or r["note"]:
            lines.append(f"      {'source ' + r['source'] + ' · ' if r['source'] else ''}{r['note'] or ''}")
    _held(reply)
    if missing:
        shown = ", ".join(c["address"] for c in missing[:UNRECEIPTED_LISTED])
        more = " …" if len(missing) > UNRECEIPTED_LISTED else ""
        click.echo(f"warning: {len(missing)} harness compaction(s) have no receipt: {shown}{more}", err=True)
    return "\n".join(lines)


RENDERINGS: dict[str, Callable[[Reply, Any], str]] = {
    "compact": _compact, "markers": _markers, "cue": _cue, "receipts": _receipts,
}
