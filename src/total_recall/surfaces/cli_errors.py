"""How the CLI refuses: one line on stderr, exit 2, and under `--json` one JSON object on stdout as well.

Every refusal takes this one form, whoever makes it: the operation's parameter model, the core, or click
parsing a value (`--limit abc`, `--harness nope`). Under `--json` a script reads the refusal from stdout as
it reads a reply, `{"error": {"kind": ..., "message": ...}}`: the kind is the class of the error (the
core's `ScopeError`, `AddressError` …; click's `BadParameter` for a value refused, `UsageError` for a call
that cannot run as typed), the message the stderr line without its `total-recall: ` prefix (on one line
under `--batch`, whose answers are JSON lines). Usage errors click words itself (a missing argument, an
unknown option or command) keep its usage block on stderr.
"""

from __future__ import annotations

import math
import sys
from typing import Any, NoReturn

import click
import orjson

# The group's own options: given after a command, click would say only that the command has no such option.
GROUP_OPTIONS = {"--demo": "--demo", "--home": "--home DIR"}


def fail(message: str, kind: str = "UsageError", typed: list[str] | None = None) -> NoReturn:
    """Refuse: `message` on stderr and exit 2; under `--json` also `{"error": {"kind", "message"}}` on
    stdout, on one line under `--batch`. Both are read from the current command's parameters, or from
    `typed`, the command's arguments as typed, when they are not parsed: click refused one of them, or the
    group refused its own setting before the command parsed them."""
    click.echo(f"total-recall: {message}", err=True)
    if typed is not None:
        as_json, lines = _asks("--json", typed), _asks("--batch", typed)
    else:
        ctx = click.get_current_context(silent=True)
        given = ctx.params if ctx is not None else {}
        as_json, lines = bool(given.get("as_json")), given.get("batch") is not None
    if as_json:
        # A batch answers one JSON line a call: its refusal is one line too.
        _error_json(kind, message, lines)
    sys.exit(2)


def _error_json(kind: str, message: str, lines: bool = False) -> None:
    reply = {"error": {"kind": kind, "message": message}}
    click.echo(orjson.dumps(reply, option=0 if lines else orjson.OPT_INDENT_2).decode())


def _asks(option: str, args: list[str]) -> bool:
    """Whether `option` is among a command's arguments as typed (before a `--`; `--batch=FILE` too): asked
    for even when parsing failed."""
    given = args[:args.index("--")] if "--" in args else args
    return any(a == option or a.startswith(f"{option}=") for a in given)


def _spelled(param: click.Parameter | None) -> str:
    """A parameter as typed: its first flag, or an argument's metavar (`SESSION`)."""
    if param is None:
        return "a value"
    if isinstance(param, click.Option):
        return param.opts[0]
    return (param.metavar or (param.name or "").upper()).strip("[]")


class Command(click.Command):
    """A command whose refused values say so in one line, as the parameter model's refusals do (click's
    own would print its usage block), and whose usage errors keep click's block, under `--json` beside the
    JSON object."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        typed = list(args)  # click's parser consumes the list it is given
        try:
            return super().parse_args(ctx, args)
        except click.MissingParameter as exc:
            self._usage(ctx, exc, typed)
        except click.BadParameter as exc:
            message = exc.message.rstrip(".")
            fail(f"{ctx.command_path.split(' ', 1)[-1]}: `{_spelled(exc.param)}`: {message}", "BadParameter",
                 typed)
        except click.NoSuchOption as exc:
            if exc.option_name not in GROUP_OPTIONS:
                self._usage(ctx, exc, typed)
            words = ctx.command_path.split(" ", 1)[-1]
            self._usage(ctx, click.UsageError(
                f"{exc.message} {exc.option_name} is an option of total-recall itself: give it before the "
                f"command (total-recall {GROUP_OPTIONS[exc.option_name]} {words} …)", ctx), typed)
        except click.UsageError as exc:
            self._usage(ctx, exc, typed)

    @staticmethod
    def _usage(ctx: click.Context, exc: click.UsageError, args: list[str]) -> NoReturn:
        if _asks("--json", args):
            said = exc.format_message().rstrip(".")
            _error_json("UsageError", f"{ctx.command_path.split(' ', 1)[-1]}: {said[:1].lower()}{said[1:]}",
                        _asks("--batch", args))
        raise exc


class Whole(click.ParamType[int, Any]):
    """A whole number; its refusal says so in words (click's INT says "not a valid integer")."""

    name = "integer"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> int:
        if isinstance(value, int):
            return value
        try:
            return int(str(value).strip())
        except ValueError:
            self.fail(f"{value!r} is not a whole number", param, ctx)


class Number(click.ParamType[float, Any]):
    """A finite number: `nan` and `inf` are refused as no number, not as one out of range."""

    name = "number"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> float:
        try:
            number = float(value)
        except (TypeError, ValueError):
            self.fail(f"{value!r} is not a number", param, ctx)
        if math.isnan(number):
            self.fail(f"{value!r} is not a number", param, ctx)
        if math.isinf(number):
            self.fail(f"{value!r} is not a finite number", param, ctx)
        return number
