"""What a tool call uses: the skill, agent, command or MCP server it names (the push's overlay and mining
read it alike; kept apart from mining so the per-prompt path imports only this)."""

from __future__ import annotations

import re
from typing import Any

import orjson

from total_recall.assets.words import normal_name
from total_recall.model import SHELL_TOOLS
from total_recall.record.assets import MinedRow

_REMOTE = re.compile(r"\b(?:ssh|mosh|autossh|scp|rsync)\b")
_WORDS = re.compile(r"[\s'\"=;|&()<>]+")


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


def ran_names(row: MinedRow) -> tuple[list[str], list[str]]:
    """The normal names a shell call may run (each word's file name: `bash scripts/rotate_logs.sh`) and
    the hosts it may reach (`ssh pi@lab uptime`, only when it reaches out at all): the overlay's reading of
    a run, checked against the scripts and machines the index knows."""
    if row.kind != "tool_call" or (row.tool or "").lower() not in SHELL_TOOLS:
        return [], []
    args = args_of(row)
    command = args.get("command", args.get("cmd"))
    if isinstance(command, list):
        command = " ".join(str(w) for w in command)
    if not isinstance(command, str):
        return [], []
    words = [w for w in _WORDS.split(command) if w]
    files = [n for w in words if (n := normal_name(w.rsplit("/", 1)[-1])) and "." in w.rsplit("/", 1)[-1]]
    hosts = [n for w in words if (n := normal_name(w.rsplit("@", 1)[-1].split(":", 1)[0]))] \
        if _REMOTE.search(command) else []
    return list(dict.fromkeys(files)), list(dict.fromkeys(hosts))
