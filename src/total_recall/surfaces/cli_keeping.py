"""The keeping commands of `total-recall`: compact, markers, cue. Each opens the record, calls the core,
renders. Exit 2 with a message for a session or range that names nothing, a budget too small, bad input.
"""

from __future__ import annotations

import click

from total_recall.errors import TotalRecallError
from total_recall.keeping.compaction import compact as compact_range
from total_recall.keeping.cues import leave_cue
from total_recall.keeping.marker import markers_for
from total_recall.keeping.tail import DEFAULT_KEEP_EXCHANGES
from total_recall.model import Address
from total_recall.record.sessions import resolve_address, resolve_session
from total_recall.record.store import Store
from total_recall.surfaces.cli import Settings, _dump, _fail, _store, cli
from total_recall.surfaces.wire import compaction_json, cue_json, stored_marker_json


def _session_number(store: Store, text: str) -> int:
    """`s3` or `3` → 3, and the session's own id or a unique prefix of it (record/sessions.py) → its number;
    anything else is a usage error naming the expected forms."""
    raw = text.strip()
    if raw.isdigit() or (raw[:1] == "s" and raw[1:2].isdigit()):
        try:
            address = Address.parse(raw if raw.startswith("s") else f"s{raw}")
        except TotalRecallError:
            _fail(f"not a session: {text!r} (expected s3, or the session's own id)")
        if address.first is not None:
            _fail(f"not a session: {text!r} names entries; give the session (s{address.session}) and --range")
        return address.session
    return resolve_session(store, raw).number


@cli.command()
@click.argument("session")
@click.option("--range", "range_", metavar="ADDRESS",
              help="The range to compact (s3#10-200), inside SESSION. Default: everything before the "
                   "verbatim tail of the last --keep-exchanges exchanges.")
@click.option("--budget", type=click.IntRange(min=1), required=True, help="Tokens for the whole marker.")
@click.option("--bo", type=click.IntRange(min=0), default=None,
              help="Tokens for the owner's instructions (default: half the budget). When they overflow it, "
                   "the oldest become pointers, then one directory line; you are told.")
@click.option("--keep-exchanges", type=click.IntRange(min=0), default=DEFAULT_KEEP_EXCHANGES,
              show_default=True,
              help="Whole exchanges (an owner message and all that follows it) kept verbatim after the "
                   "range.")
@click.option("--json", "as_json", is_flag=True, help="Print the marker as JSON.")
@click.pass_obj
def compact(settings: Settings, session: str, range_: str | None, budget: int, bo: int | None,
            keep_exchanges: int, as_json: bool) -> None:
    """Compact a range of SESSION into a verified marker (built from the record), store it, write a receipt.

    The marker quotes the owner's instructions word for word, the exact strings (paths, hashes, error
    lines, commands, URLs) and one line per decision, failure or open item, each with its address.
    SESSION is s3, or the session's own id (a unique prefix of it will do); so is the session of --range.
    """
    with _store(settings) as store:
        number = _session_number(store, session)
        span = resolve_address(store, range_) if range_ is not None else None
        done = compact_range(store, number, budget=budget, span=span, bo=bo, keep_exchanges=keep_exchanges)
    marker = done.marker
    if as_json:
        _dump(compaction_json(done))
        return
    click.echo(marker.text)
    for notice in marker.notices:
        click.echo(f"note: {notice}", err=True)


@cli.command()
@click.argument("session")
@click.option("--json", "as_json", is_flag=True, help="Print the markers as JSON.")
@click.pass_obj
def markers(settings: Settings, session: str, as_json: bool) -> None:
    """List the markers stored for SESSION (s3, or its own id or a unique prefix of it), newest last (a
    withdrawn one says why, never its words)."""
    with _store(settings) as store:
        number = _session_number(store, session)
        store.session(number)
        stored = markers_for(store, number, include_withdrawn=True)
    if as_json:
        _dump([stored_marker_json(m) for m in stored])
        return
    if not stored:
        click.echo(f"no markers for s{number}", err=True)
    for m in stored:
        state = f" · withdrawn: {m.withdrawn}" if m.withdrawn else ""
        click.echo(f"── marker {m.id} · {m.marker.range} · {m.created} · {m.marker.tokens} tokens{state} ──")
        click.echo(m.marker.text)


@cli.command()
@click.argument("session")
@click.argument("text")
@click.option("--json", "as_json", is_flag=True, help="Print the cue as JSON.")
@click.pass_obj
def cue(settings: Settings, session: str, text: str, as_json: bool) -> None:
    """Leave a recall cue for SESSION: one present-tense line saying what this thread is and when to come
    back to it. Compaction keeps the newest cue in place of the mechanical items it covers."""
    with _store(settings) as store:
        number = _session_number(store, session)
        left = leave_cue(store, number, text)
    if as_json:
        _dump(cue_json(left))
    else:
        click.echo(f"cue {left.id} for {left.covers}: {left.text}")
