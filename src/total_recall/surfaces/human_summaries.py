"""How the CLI shows the summaries operations' replies without --json (see surfaces/human.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

from total_recall.ops.operation import Reply


def _cache(reply: Reply, settings: Any) -> str:
    """A session's cached blocks, one line each (with its text under it when asked for), then the tail."""
    from total_recall.surfaces.human import counted  # human.py imports this module as it loads

    lines = [f"{reply['session']} · {reply['harness']} · {reply['title'] or 'untitled'} · "
             f"{counted(reply['entries'], 'entry')}"]
    if not reply["blocks"]:
        lines.append("  no cached blocks")
    for b in reply["blocks"]:
        counts = ", ".join(f"{k} {v}" for k, v in b["counts"].items() if v)
        flags = ""
        if b["unverified"]:
            flags += f"  ⚠ {len(b['unverified'])} unverified citations"
        if b["erased_since"]:
            flags += f"  ⚠ erased since: {', '.join(b['erased_since'])}"
        if b.get("quarantined_since"):
            flags += f"  ⚠ withheld while in quarantine: {', '.join(b['quarantined_since'])}"
        if b["dropped_entries"]:
            flags += f"  ({b['dropped_entries']} entries did not fit the prompt)"
        lines.append(f"  block {b['range']:<14} {(b['from_ts'] or '?')[:16]} → {(b['to_ts'] or '?')[:16]}  "
                     f"{b['count']} entries ({counts})  {b['model']}  "
                     f"{b['tokens']['prompt']:,}+{b['tokens']['completion']:,} tokens{flags}")
        if b.get("text"):
            lines.append("    " + b["text"].replace("\n", "\n    "))
    tail = reply["tail"]
    if tail is None:
        lines.append("  tail: none — every entry is covered")
    else:
        lines.append(f"  tail  {tail['from']}-{tail['to'].split('#')[1]}: {tail['count']} entries, "
                     f"~{tail['tokens_est']:,} tokens — `total-recall summarise-from {reply['session']}` "
                     "covers it")
    return "\n".join(lines)


def _summarised(reply: Reply, settings: Any) -> str:
    for notice in reply["notices"]:
        click.echo(f"note: {notice}", err=True)
    return str(reply["text"])


def _deleted(reply: Reply, settings: Any) -> str:
    return f"deleted block {reply['deleted']['range']} ({reply['reason']})\n" + _cache(reply, settings)


def _period(reply: Reply, settings: Any) -> str:
    return str(reply["text"])


def _llm(reply: Reply, settings: Any) -> str:
    from total_recall.llm.settings import CONFIG_FILE

    ok = "yes" if reply["configured"] else f"no — {reply['problem']}"
    key = (f"set (from {reply['key_source']})" if reply["key_set"]
           else "not needed" if reply["key_env"] is None else f"not set ({reply['key_env']})")
    today = reply["today"]
    return "\n".join([
        f"configured: {ok}",
        f"preset:     {reply['preset']}",
        f"endpoint:   {reply['endpoint']}",
        f"model:      {reply['model']}",
        f"key:        {key}",
        f"config:     {reply['config_file'] or f'{settings.home / CONFIG_FILE} (absent)'}",
        f"limits:     timeout {reply['timeout_s']:g} s · prompt {reply['prompt_bytes']:,} bytes · reply "
        f"{reply['max_output_tokens']:,} tokens · per call {reply['max_call_tokens']:,} · per day "
        f"{reply['max_day_tokens']:,} tokens",
        f"today:      {today['tokens']:,} tokens in {today['calls']} calls ({today['day']}, UTC)",
    ])


RENDERINGS: dict[str, Callable[[Reply, Any], str]] = {
    "summary_cache": _cache, "summarise_from": _summarised, "cache_delete_latest": _deleted,
    "prior_period_summary": _period, "llm_status": _llm,
}
