"""The `total-recall` command line. Each command opens the record, calls one core function, renders.

Exit codes: 0 done (`total-recall` alone prints the help); 2 a source could not be read, an address names
nothing, a value is refused or a setting is wrong — one line on stderr saying which, and under `--json` one
JSON object on stdout as well (`cli_errors.py`); click's own usage errors (a missing argument, an unknown
option or command) keep its usage block, and exit 2 as well.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

import click
import orjson

from total_recall import __version__
from total_recall.config import (
    DEMO_RECORD_FILE,
    RECORD_FILE,
    chosen_home,
    home_at,
)
from total_recall.errors import TotalRecallError
from total_recall.record.database import Record
from total_recall.surfaces.cli_errors import Command, fail


@dataclass
class Settings:
    home: Path
    demo: bool
    named_home: bool = False  # --home was given: the commands we suggest name it too

    @property
    def record_path(self) -> Path:
        return self.home / (DEMO_RECORD_FILE if self.demo else RECORD_FILE)

    def command(self, *words: str) -> str:
        """A command to suggest, on this record: `total-recall [--home H] [--demo] WORDS`."""
        home = f" --home {self.home}" if self.named_home else ""
        return f"total-recall{home}{' --demo' if self.demo else ''} {' '.join(words)}"


def _fail(message: str, kind: str = "UsageError") -> NoReturn:
    fail(message, kind)


def _note(message: str) -> None:
    click.echo(f"total-recall: note: {message}", err=True)


@contextmanager
def _store(settings: Settings, creates: bool = False) -> Iterator[Record]:
    """The record, opened; a record this opening creates is announced unless the command `creates` one
    (sync): a mistyped --home would otherwise answer from an empty record without a word."""
    fresh = not settings.record_path.exists()
    try:
        record = Record(settings.record_path)
    except TotalRecallError as exc:
        _fail(str(exc), type(exc).__name__)
    if fresh and not creates:
        _note(f"there was no record at {settings.record_path}: created a new, empty one "
              f"(`{settings.command('sync')}` fills it)")
    try:
        yield record
    except TotalRecallError as exc:
        _fail(str(exc), type(exc).__name__)
    finally:
        record.close()


def _dump(value: Any) -> None:
    click.echo(orjson.dumps(value, option=orjson.OPT_INDENT_2).decode())


# The commands that are not operations on the record: they serve it, or set it up.
_SURFACE_COMMANDS = {"mcp": "serving", "hook": "serving", "watch": "serving", "install": "setup"}
_PURPOSES = {
    "record": ("The record", "total-recall sync && total-recall sessions --limit 5"),
    "finding": ("Finding", "total-recall search 'connection refused' --since 'last week'"),
    "keeping": ("Keeping (markers, receipts, cues)", "total-recall compact s3 --budget 2000"),
    "observing": ("Observing (notes distilled from the record)", "total-recall observations --type rule"),
    "mining": ("Mining the logs (seed 004's tools)", "total-recall qa-pairs --hours 48"),
    "serving": ("Serving an agent", "total-recall mcp --harness claude-code"),
    "setup": ("Setting up", "total-recall install claude-code --write"),
}


# Where the group keeps the command's arguments as typed, in `ctx.meta`.
_COMMAND_ARGS = "total_recall.command_args"


class _Grouped(click.Group):
    """`--help` lists the commands by purpose, each purpose with an example; so does `total-recall` alone
    (exit 0: asking what there is is no error). Its commands refuse a bad value in one line (`Command`)."""

    command_class = Command

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if not args and not ctx.resilient_parsing:
            click.echo(ctx.get_help())
            ctx.exit(0)
        rest = super().parse_args(ctx, args)
        # What follows the command's name: the group refuses its own settings before the command parses
        # these, and that refusal answers the command's --json and --batch all the same.
        ctx.meta[_COMMAND_ARGS] = list(rest)
        return rest

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        from total_recall.ops import OPERATIONS

        purpose = {**{op.command: op.group for op in OPERATIONS}, **_SURFACE_COMMANDS}
        names = self.list_commands(ctx)
        for group, (title, example) in _PURPOSES.items():
            rows = []
            for name in names:
                command = self.get_command(ctx, name)
                if command is not None and not command.hidden and purpose.get(name, "setup") == group:
                    rows.append((name, command.get_short_help_str(limit=formatter.width - 26)))
            if rows:
                with formatter.section(title):
                    formatter.write_dl(rows)
                    formatter.write_text(f"e.g. {example}")


@click.group(cls=_Grouped, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="total-recall")
@click.option("--home", type=click.Path(), default=None,
              help="Folder of the record (default: $TOTAL_RECALL_HOME, else ~/.local/share/total-recall).")
@click.option("--demo", is_flag=True, help="Use the bundled demo store and its own record.")
@click.pass_context
def cli(ctx: click.Context, home: str | None, demo: bool) -> None:
    """Total Recall: a memory for coding agents that keeps the exact words."""
    try:
        where = chosen_home(home)
    except TotalRecallError as exc:  # TOTAL_RECALL_HOME that names no usable folder ("~nouser/x")
        if ctx.invoked_subcommand == "hook":  # a hook never breaks its harness: said, and nothing done
            click.echo(f"total-recall hook: {exc}", err=True)
            sys.exit(0)
        fail(str(exc), type(exc).__name__, ctx.meta.get(_COMMAND_ARGS, []))
    ctx.obj = Settings(where, demo, named_home=home is not None)
    # Copies we make (overflow files, store snapshots) go under the record's home, the one --home names.
    ctx.with_resource(home_at(ctx.obj.home))


from total_recall.surfaces import cli_ops  # noqa: E402

cli_ops.register(cli, lambda ctx: ctx.find_object(Settings))

from total_recall.surfaces import cli_mcp  # noqa: E402, F401, I001  (registers its commands)
from total_recall.surfaces import cli_hooks  # noqa: E402, F401  (registers its commands)
from total_recall.surfaces import cli_watch  # noqa: E402, F401  (registers its commands)


def main() -> None:
    cli(prog_name="total-recall")
