"""A core error in each surface's own words.

The core names what a caller gave by its parameter (`hours_back`, `session_id=...`) and another operation
as a tool (the `sessions` tool; the `observations` tool with `archived: true`); the CLI calls the same
things `--hours` or SESSION and `total-recall sessions`, `total-recall observations --archived`.
`in_cli_words` rewrites a message for one operation's flags, `in_mcp_words` a note an operation words for
the CLI alone, and `explain` turns a parameter model's rejection into one line per parameter — the same
sentence on both surfaces, only the names differ.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from pydantic import ValidationError

from total_recall.model import echoed
from total_recall.ops import OPERATIONS
from total_recall.ops.operation import Operation

_BOUND = {"less_than_equal": ("le", "at most"), "greater_than_equal": ("ge", "at least"),
          "less_than": ("lt", "less than"), "greater_than": ("gt", "more than")}


def explain(op: Operation[Any], error: ValidationError,
            name: Callable[[str], str] = lambda p: f"`{p}`", skip: str = "") -> str:
    """A parameter model's rejection in one line per parameter: its name (as `name` spells it), what it
    must be, what was given; the parameter `skip` left out (a `--batch` line's, checked per line)."""
    def given(value: object) -> str:
        # 24 and 24.0 are one value: the CLI parses a float flag, JSON may carry either.
        return echoed(int(value) if isinstance(value, float) and value.is_integer() else value)

    parts = []
    for e in error.errors():
        param = str(e["loc"][0]) if e["loc"] else "arguments"
        if e["type"] == "extra_forbidden" or (skip and param == skip):
            continue  # unknown names are refused before validation, naming what is accepted
        if e["type"] in _BOUND:
            key, words = _BOUND[e["type"]]
            bound = (e.get("ctx") or {}).get(key)
            if isinstance(bound, float) and bound.is_integer():
                bound = int(bound)
            parts.append(f"{name(param)} is out of range: {given(e['input'])} — it must be {words} {bound}")
        elif e["type"] == "missing":
            parts.append(f"{name(param)} is required")
        elif e["type"] == "too_long" and isinstance(ctx := e.get("ctx"), dict):
            # Never the list itself: ten thousand harnesses would fill the refusal.
            parts.append(f"{name(param)} holds {ctx.get('actual_length')} values — it takes at most "
                         f"{ctx.get('max_length')}")
        else:
            message = e["msg"][:1].lower() + e["msg"][1:]
            parts.append(f"{name(param)}: {message} (given {given(e.get('input'))})")
    return f"{op.name}: " + "; ".join(parts)


def defect(name: str, cause: BaseException, where: str) -> str:
    """What a surface says when `name` failed on a defect of ours, not on what it was given: the error, and
    `where` its traceback went."""
    return f"{name}: failed unexpectedly ({type(cause).__name__}: {cause}); a Total Recall defect, {where}"


def named(name: str, message: str) -> str:
    """`message` starting with the operation's name, as every refusal does on either surface."""
    return message if message.startswith((f"{name}: ", f"{name} ")) else f"{name}: {message}"


# Another operation as the core points to it: "the `sessions` tool", "the `observations` tool with
# `archived: true`" (one parameter given, in MCP's JSON form).
_TOOL = re.compile(r"the `(\w+)` tool(?: with `(\w+): ([^`]+)`)?")


def in_cli_words(op: Operation[Any], message: str) -> str:
    """`message` with `op`'s parameter names as the CLI spells them, and its name (and any other
    operation's it points to: "roll back with cache_delete_latest", "the `sessions` tool lists them") as
    the command's."""
    text = _TOOL.sub(_command, named(op.name, message))
    if text.startswith(f"{op.name}:") or text.startswith(f"{op.name} "):
        text = op.command + text[len(op.name):]
    for other in OPERATIONS:
        if other is not op and other.command != other.name:
            text = re.sub(rf"(?<![\w`'-]){re.escape(other.name)}(?![\w'-])", other.command, text)
    for param in sorted(op.params.model_fields, key=len, reverse=True):
        flag = op.flag(param)
        positional = param in op.argument
        # `hours_back=24` → `--hours 24`; `all=true` → `--all`; `session_id='s7'` → `s7` (positional).
        def spelled(m: re.Match[str], flag: str = flag, positional: bool = positional) -> str:
            value = m.group(1)
            if value.lower() == "true" and not positional:
                return flag
            return value.strip("'\"") if positional else f"{flag} {value}"

        text = re.sub(rf"(?<![\w-]){re.escape(param)}=('[^']*'|\"[^\"]*\"|[^\s,;)]+)", spelled, text)
        text = re.sub(rf"`{re.escape(param)}`", f"`{flag}`", text)
        # `since: 'x' is not a time` → `--since 'x' is not a time` (a refusal naming what it was given)
        text = re.sub(rf"(?<=: ){re.escape(param)}: (?=['\"])", f"`{flag}` ", text)
        # `session_id 'x' matches no session` → `SESSION 'x' matches no session`
        text = re.sub(rf"(?<![\w`-]){re.escape(param)}(?= ['\"])", flag, text)
    return text


def _command(m: re.Match[str]) -> str:
    """The tool a message points to as the command that does it on the CLI: `total-recall observations
    --archived`."""
    other = next((o for o in OPERATIONS if o.name == m.group(1)), None)
    if other is None:
        return m.group(0)
    words = f"total-recall {other.command}"
    if (param := m.group(2)) is not None:
        value = m.group(3).strip("'\"")
        words += f" {other.flag(param)}" + ("" if value == "true" else f" {value}")
    return f"`{words}`"


def in_mcp_words(op: Operation[Any], note: str) -> str:
    """A note `op` words for the CLI (`no session matches --directory zz`) as MCP spells it: each of
    `op`'s flags as its parameter given a value (`directory=zz`)."""
    for param in op.params.model_fields:
        if param not in op.argument:
            note = re.sub(rf"(?<![\w-]){re.escape(op.flag(param))} (?=\S)", f"{param}=", note)
    return note
