"""What a tool call uses: the skill, agent, command or MCP server it names (the push's overlay and mining
read it alike; kept apart from mining so the per-prompt path imports only this)."""

from __future__ import annotations

from typing import Any

import orjson

from total_recall.assets.words import normal_name
from total_recall.record.assets import MinedRow


def args_of(row: MinedRow) -> dict[str, Any]:
    try:
        value = orjson.loads(row.text)
    except orjson.JSONDecodeError:
        return {}
    return value if isinstance(value, dict) else {}


def used_name(row: MinedRow) -> str | None:
    """The normal name of the skill, agent, command or MCP server a tool call uses, if it uses one."""
    tool = row.tool or ""
    if row.kind != "tool_call":
        return None
    if tool.startswith("mcp__"):
        return normal_name(tool.split("__")[1]) or None
    args = args_of(row)
    value = {"Skill": args.get("skill") or args.get("command") or args.get("name"),
             "Task": args.get("subagent_type"), "Agent": args.get("subagent_type"),
             "SlashCommand": args.get("command")}.get(tool)
    if isinstance(value, str) and value.split():
        return normal_name(value.split()[0]) or None
    return None
