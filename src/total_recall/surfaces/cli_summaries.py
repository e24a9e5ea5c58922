"""CLI commands over the LLM-backed tools: the summary cache, the prior-period summary, and `llm-status`.

Registered on the `cli` group by importing this module (surfaces/cli.py does, once). Each command opens
the record, resolves its scope the way the MCP tools do (`mining/scope.py`), calls one core function and
renders; errors exit 2 with the message. The LLM provider is built only when a command needs it, so
`summary-cache`, `cache-delete-latest` and `llm-status` work without a key.
"""

from __future__ import annotations

from typing import Any

import click

from total_recall.errors import TotalRecallError
from total_recall.mining.scope import HOURS_MAX
from total_recall.mining.summaries import PERIOD_HOURS_DEFAULT
from total_recall.model import HARNESSES
from total_recall.surfaces.cli import Settings, _dump, _fail, _store, cli, counted


def _session_and_from(store: Any, tool: str, target: str | None) -> tuple[int, int | None, int | None]:
    from total_recall.mining.summaries import resolve_target

    return resolve_target(store, tool, target)


@cli.command("summary-cache")
@click.argument("session", required=False)
@click.option("--text", "with_text", is_flag=True, help="Include each block's summary text.")
@click.option("--json", "as_json", is_flag=True, help="Print the cache status as JSON.")
@click.pass_obj
def summary_cache_command(settings: Settings, session: str | None, with_text: bool, as_json: bool) -> None:
    """Show the summary blocks cached for SESSION (s3, or a native id; default: the most recent session)
    and the tail no block covers yet. Calls no LLM and writes nothing."""
    from total_recall.mining.summaries import summary_cache

    with _store(settings) as store:
        number, _, _ = _session_and_from(store, "summary-cache", session)
        status = summary_cache(store, session=number, with_text=with_text)
    if as_json:
        _dump(status)
        return
    _render_status(status, with_text)


@cli.command("summarise-from")
@click.argument("target", metavar="SESSION|ADDRESS")
@click.option("--through", type=click.IntRange(min=1), default=None,
              help="Summarise only up to this entry number (a smaller block); default: the session's end.")
@click.option("--json", "as_json", is_flag=True, help="Print the reply as JSON.")
@click.pass_obj
def summarise_from_command(settings: Settings, target: str, through: int | None, as_json: bool) -> None:
    """Summarise a session from the first entry no cached block covers, with an LLM, and cache the result
    as the next block. SESSION (s3) starts where the cache ends; ADDRESS (s3#41) must be that entry, and
    a range (s3#41-80) summarises just that range."""
    from total_recall.mining.summaries import summarise_from

    with _store(settings) as store:
        number, first, last = _session_and_from(store, "summarise-from", target)
        if through is None and last is not None and last != first:
            through = last  # a range address: summarise exactly that range
        reply = summarise_from(store, session=number, from_seq=first, through=through)
    if as_json:
        _dump(reply)
        return
    click.echo(reply["text"], nl=False)
    for notice in reply["notices"]:
        click.echo(f"note: {notice}", err=True)


@cli.command("cache-delete-latest")
@click.argument("session")
@click.option("--reason", default="deleted on request", show_default=True,
              help="Why (kept in the deletion log).")
@click.option("--json", "as_json", is_flag=True, help="Print the new cache status as JSON.")
@click.pass_obj
def cache_delete_latest_command(settings: Settings, session: str, reason: str, as_json: bool) -> None:
    """Delete the newest summary block of SESSION (logged), so summarise-from can redo that period."""
    from total_recall.mining.summaries import cache_delete_latest

    with _store(settings) as store:
        number, _, _ = _session_and_from(store, "cache-delete-latest", session)
        status = cache_delete_latest(store, session=number, reason=reason)
    if as_json:
        _dump(status)
        return
    click.echo(f"deleted block {status['deleted']['range']} ({reason})")
    _render_status(status, with_text=False)


@cli.command("prior-period-summary")
@click.option("--hours", type=click.FloatRange(0, HOURS_MAX), default=None,
              help=f"The window: the last N hours, 0–{HOURS_MAX} (0 or omitted: {PERIOD_HOURS_DEFAULT}).")
@click.option("--directory", default=None, help="Only sessions whose folder contains this.")
@click.option("--all", "everything", is_flag=True, help="The whole record, on purpose (not with --hours).")
@click.option("--harness", type=click.Choice(HARNESSES), default=None, help="Only this harness.")
@click.option("--json", "as_json", is_flag=True, help="Print the reply as JSON.")
@click.pass_obj
def prior_period_summary_command(settings: Settings, hours: float | None, directory: str | None,
                                 everything: bool, harness: str | None, as_json: bool) -> None:
    """Orient yourself in a past period across sessions: the sessions, the owner's instructions word for
    word and the commits from the record, then an LLM summary of the state and the goals, each cited."""
    from total_recall.mining.summaries import prior_period

    with _store(settings) as store:
        reply = prior_period(store, hours_back=hours, all=everything or None, directory=directory,
                             harness=harness)
    if as_json:
        _dump(reply)
        return
    click.echo(reply["text"])


@cli.command("llm-status")
@click.option("--json", "as_json", is_flag=True, help="Print the status as JSON.")
@click.pass_obj
def llm_status_command(settings: Settings, as_json: bool) -> None:
    """Which LLM endpoint, model and key variable the LLM tools use, and today's token usage. Never prints
    the key."""
    import time

    from total_recall.llm.settings import load_settings
    from total_recall.llm.usage import DailyUsage

    try:
        llm = load_settings(home=settings.home)
    except TotalRecallError as exc:
        _fail(str(exc))
    status = llm.describe()
    today = DailyUsage(llm.home, llm.max_day_tokens, time.time).today()
    status["today"] = {"day": today.day, "tokens": today.tokens, "calls": today.calls,
                       "estimated_calls": today.estimated_calls}
    if as_json:
        _dump(status)
        return
    ok = "yes" if status["configured"] else f"no — {status['problem']}"
    key = (f"set (from {status['key_source']})" if status["key_set"]
           else "not needed" if status["key_env"] is None else f"not set ({status['key_env']})")
    lines = [
        f"configured: {ok}",
        f"preset:     {status['preset']}",
        f"endpoint:   {status['endpoint']}",
        f"model:      {status['model']}",
        f"key:        {key}",
        f"config:     {status['config_file'] or f'{llm.home}/llm.toml (absent)'}",
        f"limits:     timeout {status['timeout_s']:g} s · prompt {status['prompt_bytes']:,} bytes · reply "
        f"{status['max_output_tokens']:,} tokens · per call {status['max_call_tokens']:,} · per day "
        f"{status['max_day_tokens']:,} tokens",
        f"today:      {today.tokens:,} tokens in {today.calls} calls ({today.day}, UTC)",
    ]
    click.echo("\n".join(lines))


def _render_status(status: dict[str, Any], with_text: bool) -> None:
    click.echo(f"{status['session']} · {status['harness']} · {status['title'] or 'untitled'} · "
               f"{counted(status['entries'], 'entry')}")
    if not status["blocks"]:
        click.echo("  no cached blocks")
    for b in status["blocks"]:
        counts = ", ".join(f"{k} {v}" for k, v in b["counts"].items() if v)
        flags = ""
        if b["unverified"]:
            flags += f"  ⚠ {len(b['unverified'])} unverified citations"
        if b["erased_since"]:
            flags += f"  ⚠ erased since: {', '.join(b['erased_since'])}"
        if b["dropped_entries"]:
            flags += f"  ({b['dropped_entries']} entries did not fit the prompt)"
        click.echo(f"  block {b['range']:<14} {(b['from_ts'] or '?')[:16]} → {(b['to_ts'] or '?')[:16]}  "
                   f"{b['count']} entries ({counts})  {b['model']}  "
                   f"{b['tokens']['prompt']:,}+{b['tokens']['completion']:,} tokens{flags}")
        if with_text and b.get("text"):
            click.echo("    " + b["text"].replace("\n", "\n    "))
    tail = status["tail"]
    if tail is None:
        click.echo("  tail: none — every entry is covered")
    else:
        click.echo(f"  tail  {tail['from']}-{tail['to'].split('#')[1]}: {tail['count']} entries, "
                   f"~{tail['tokens_est']:,} tokens — `total-recall summarise-from {status['session']}` "
                   "covers it")
