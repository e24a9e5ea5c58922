"""The CLI commands generated from the table of operations (`total_recall.ops.OPERATIONS`).

Each operation becomes one command: its parameters become options (`--max-bytes` for `max_bytes`, or the
flag the operation names: `--hours` for `hours_back`) or positional arguments, every command takes
`--json` (the reply, with stable keys), and without it prints the operation's human rendering. Values are
checked by the operation's own parameter model, so a bad value is refused as MCP refuses it, naming the
flag, with exit 2. An operation that takes no `harness` filter of its own takes `--harness` as the MCP
server's binding: only that harness's sessions.
"""

from __future__ import annotations

import io
import os
import re
import sys
import traceback
import types
from typing import Any, BinaryIO, Literal, TextIO, Union, get_args, get_origin

import click
import orjson
from pydantic import ValidationError
from pydantic.fields import FieldInfo

from total_recall.errors import TotalRecallError
from total_recall.model import ECHO_CHARS, HARNESSES, NUMBER_MAX, echoed
from total_recall.ops import OPERATIONS
from total_recall.ops.operation import Call, Operation, Reply
from total_recall.record.sync import processes_from
from total_recall.surfaces.cli_errors import Command, Number, Whole, fail
from total_recall.surfaces.human import human, progress_bar
from total_recall.surfaces.words import defect, explain, in_cli_words

# Older spellings a flag keeps for the scripts that use them: one filter, one word (`directory`).
OLDER_FLAGS = {"directory": ("--project",)}
# A session's own address alone (`s3`): as the one positional value, a session named with the rest missing.
_SESSION_ALONE = re.compile(r"[sS]\d+")
# Older command names kept (hidden) for the scripts that use them.
OLDER_COMMANDS = {"observations export": "observations-export"}


class _WithSubcommands(Command):
    """A command that is also the parent of others: `observations export --to DIR` runs `export`, while
    `observations QUERY` stays a search. A first word naming a sub-command picks it; any other is the
    command's own argument (a search for the word "export" is `observations -- export`)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.subcommands: dict[str, click.Command] = {}

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if args and args[0] in self.subcommands:
            ctx.meta["total_recall.sub"] = (args[0], args[1:])
            return []
        return super().parse_args(ctx, args)

    def invoke(self, ctx: click.Context) -> Any:
        chosen = ctx.meta.pop("total_recall.sub", None)
        if chosen is None:
            return super().invoke(ctx)
        name, rest = chosen
        sub = self.subcommands[name]
        # Beside this command, not under it: the usage reads `observations export`, not `… [QUERY] export`.
        with sub.make_context(f"{ctx.info_name} {name}", rest, parent=ctx.parent) as inner:
            return sub.invoke(inner)

    def format_help(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        super().format_help(ctx, formatter)
        with formatter.section("Sub-commands"):
            formatter.write_dl([(name, sub.get_short_help_str(limit=formatter.width - 26))
                                for name, sub in self.subcommands.items()])


def register(group: click.Group, settings_of: Any) -> None:
    """Add one command per operation to `group` (`settings_of(ctx)` gives the record to call it on); an
    operation whose command is two words ("observations export") is a sub-command of the first."""
    parents = {op.command.split(" ", 1)[0] for op in OPERATIONS if " " in op.command}
    subs: list[Operation[Any]] = []
    for op in OPERATIONS:
        if " " in op.command:
            subs.append(op)
            continue
        group.add_command(command_for(op, settings_of, _WithSubcommands if op.command in parents else
                                      Command))
    for op in subs:
        parent_name, name = op.command.split(" ", 1)
        parent = group.commands[parent_name]
        if not isinstance(parent, _WithSubcommands):
            raise TypeError(f"{op.command}: {parent_name} is not an operation's command")
        parent.subcommands[name] = command_for(op, settings_of, Command, name)
        if op.command in OLDER_COMMANDS:
            older = command_for(op, settings_of, Command, OLDER_COMMANDS[op.command])
            older.hidden = True
            group.add_command(older)


def command_for(op: Operation[Any], settings_of: Any, kind: type[click.Command] = Command,
                name: str = "") -> click.Command:
    fields = op.params.model_fields
    params: list[click.Parameter] = [_parameter(op, name, info) for name, info in fields.items()]
    # Positional arguments first, in the operation's order, so `--help` shows them as typed.
    params.sort(key=lambda p: (not isinstance(p, click.Argument),
                               op.argument.index(p.name) if p.name in op.argument else 0))
    if "harness" not in fields and op.binds:
        params.append(click.Option(["--harness", "binding"], type=click.Choice(HARNESSES), default=None,
                                   help="Only this harness's sessions (as an MCP server bound to it)."))
    params.append(click.Option(["--json", "as_json"], is_flag=True, help="Print the reply as JSON."))

    if op.batch:
        # Bytes, decoded here whole: a file that is not UTF-8 is refused by name before any call runs.
        params.append(click.Option(["--batch"], type=click.File("rb"), default=None, help=(
            f"One call per line of this file (- for stdin), its line as {op.flag(op.batch)}; one JSON line "
            "each.")))

    def callback(**given: Any) -> None:
        settings = settings_of(click.get_current_context())
        as_json = given.pop("as_json")
        binding = given.pop("binding", None)
        batch: BinaryIO | None = given.pop("batch", None)
        if op.batch and (batch is None) == (given.get(op.batch) is None):
            fail(f"give {op.flag(op.batch)} or --batch FILE (not both)")
        values = _positional(op, {k: _value(v) for k, v in given.items() if v is not None and v != ()})
        fresh = not settings.record_path.exists()
        call = Call(settings.record_path, "cli", harness=binding, demo=settings.demo,
                    home=None if settings.demo else settings.home)
        if batch is not None:
            _batch(op, call, values, _batch_lines(batch))
            return
        reply = _run(op, call, values, progress=not as_json)
        if fresh and not op.creates and settings.record_path.exists():
            call.notes.insert(0, f"there was no record at {settings.record_path}: created a new, empty one "
                                 f"(`{settings.command('sync')}` fills it)")
        for note in call.notes:
            click.echo(f"total-recall: note: {note}", err=True)
        if as_json:
            click.echo(orjson.dumps(reply, option=orjson.OPT_INDENT_2).decode())
        else:
            text = human(op, reply, settings)
            if text:
                click.echo(text, nl=not text.endswith("\n"))
        if reply.get("errors"):
            sys.exit(2)

    return kind(name or op.command, params=params, callback=callback,
                help=f"{in_help_words(op, op.doc)}\n\n\b\nExample:\n  {op.example}")


def _positional(op: Operation[Any], values: dict[str, Any]) -> dict[str, Any]:
    """`values` with the positional ones given filling the required arguments first: `cue 'TEXT'` is the
    cue's text for the most recently active session, as the usage `cue [SESSION] TEXT` and the MCP tool (an
    omitted `session_id`) have it; `cue s3 'TEXT'` names the session."""
    given = [values.pop(name) for name in op.argument if name in values]
    fields = op.params.model_fields
    required = [name for name in op.argument if fields[name].is_required()]
    optional = len(given) - len(required)
    for name in op.argument:
        if given and (name in required or optional > 0):
            optional -= name not in required
            values[name] = given.pop(0)
    if "session_id" in op.argument and "session_id" not in values:
        # `cue s3` is a session named and its text forgotten, not a cue reading "s3" on another session.
        for name in required:
            if isinstance(values.get(name), str) and _SESSION_ALONE.fullmatch(values[name].strip()):
                fail(f"{op.command}: `{op.flag(name)}` is required ({values[name].strip()} names a session: "
                     f"give the {name} after it)", "BadParameter")
    return values


def in_help_words(op: Operation[Any], text: str) -> str:
    """`text`, an operation's doc or a parameter's description (written once, in the parameter names the
    MCP tool takes), with those names as the CLI spells them: `` `all` `` is `` `--all` ``, hours_back
    `--hours`, line=N `--line N`, and another operation's name its command's."""
    for param in sorted(op.params.model_fields, key=len, reverse=True):
        flag, name = op.flag(param), re.escape(param)
        text = re.sub(rf"`{name}`", f"`{flag}`", text)
        if param not in op.argument:
            text = re.sub(rf"(?<![\w`'.-]){name}=(?=\w)", f"{flag} ", text)
        if "_" in param:  # hours_back is a name wherever it stands; a bare "all" or "line" is a word
            text = re.sub(rf"(?<![\w`'.-]){name}(?![\w`'-])", flag, text)
    for other in OPERATIONS:
        if other is not op and other.command != other.name:
            text = re.sub(rf"(?<![\w'.-]){re.escape(other.name)}(?![\w'-])", other.command, text)
    return text


def _run(op: Operation[Any], call: Call, values: dict[str, Any], progress: bool) -> Reply:
    """`op` called with `values`; a refusal exits 2 with the message in the CLI's words."""
    try:
        checked = op.params.model_validate(values)
    except ValidationError as exc:
        fail(_explained(op, exc), "BadParameter")
    bar = progress_bar(enabled=(progress and op.creates) or (progress and op.name == "index"))
    call.progress = bar.update if bar else None
    try:
        # A CLI sync may read ahead in a second process (record/read_ahead.py); the server's never does.
        call.processes = processes_from(os.environ)
        return op.perform(call, checked)
    except TotalRecallError as exc:
        fail(in_cli_words(op, str(exc)), type(exc).__name__)
    finally:
        if bar:
            bar.stop()


def _explained(op: Operation[Any], exc: ValidationError, skip: str = "") -> str:
    """The parameter model's refusal in the CLI's words (the flags as typed)."""
    return in_cli_words(op, explain(op, exc, lambda p: f"`{op.flag(p)}`", skip=skip))


def _batch_lines(batch: BinaryIO) -> TextIO:
    """The lines of a `--batch` file (any line ending, as a text file reads); exits 2 naming the file and
    the line when it is not UTF-8 text."""
    data = batch.read()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        fail(f"--batch {getattr(batch, 'name', '-')} is not UTF-8 text (line {line})")
    return io.StringIO(text, newline=None)


def _batch(op: Operation[Any], call: Call, values: dict[str, Any], lines: TextIO) -> None:
    """One call per non-blank line, one JSON line each: `{"<param>": line, **reply}`, or `"error"` (the line
    cut short when it is long). What the lines share is refused once, before any line runs (exit 2); a
    defect on one line is said on its line and the batch goes on, ending with exit 1."""
    _check_shared(op, call, values)
    failed = False
    for line in lines:
        text = line.rstrip("\n")
        if not text.strip():
            continue
        given = text if len(text) <= ECHO_CHARS else echoed(text)
        try:
            reply = op.perform(call, op.params.model_validate({**values, op.batch: text}))
        except ValidationError as exc:
            reply = {op.batch: given, "error": _explained(op, exc)}
        except TotalRecallError as exc:
            reply = {op.batch: given, "error": in_cli_words(op, str(exc))}
        except Exception as exc:  # a defect of ours: said on its line, its traceback on stderr, never hidden
            traceback.print_exc()
            failed = True
            reply = {op.batch: given, "error": in_cli_words(op, defect(op.name, exc, "its traceback is on "
                                                                                "stderr"))}
        click.echo(orjson.dumps({op.batch: text, **reply}).decode())
    if failed:
        sys.exit(1)


def _check_shared(op: Operation[Any], call: Call, values: dict[str, Any]) -> None:
    """Exit 2 naming the flag when a value every line of a batch shares is refused (`--limit 0`, `--since
    garbage`, `--session s99999`): as a single call would be, not once per line."""
    try:
        op.params.model_validate(values)
    except ValidationError as exc:
        if any(e["loc"][:1] != (op.batch,) for e in exc.errors()):
            fail(_explained(op, exc, skip=op.batch), "BadParameter")
    if op.shared is not None:
        try:
            op.shared(call, op.params.model_construct(**values))
        except TotalRecallError as exc:
            fail(in_cli_words(op, str(exc)), type(exc).__name__)


def _parameter(op: Operation[Any], name: str, info: FieldInfo) -> click.Parameter:
    kind, choices, many = _shape(info.annotation)
    scalars: dict[type, click.ParamType[Any, Any]] = {int: Whole(), float: Number(), str: click.STRING,
                                                      bool: click.BOOL}
    click_type = click.Choice(choices) if choices and not many else scalars[kind]
    if name in op.argument:
        required = info.is_required() and name != op.batch  # --batch FILE may stand for it
        metavar = op.flag(name) if required else f"[{op.flag(name)}]"
        # After an optional argument click would fill that one first (`cue 'TEXT'` would miss TEXT): the
        # values are placed by `_positional`, and the parameter model says what is missing.
        fields = op.params.model_fields
        first = all(fields[b].is_required() for b in op.argument[:op.argument.index(name)])
        return click.Argument([name], type=click_type, required=required and first, nargs=-1 if many else 1,
                              metavar=metavar)
    flag = op.flag(name)
    description, least, most = _stated(info)
    help_text = in_help_words(op, description)
    default = None if info.is_required() else info.get_default()
    if kind is bool:
        flags = f"{flag}/--no-{flag[2:]}" if default else flag
        return click.Option([flags, name], is_flag=True, default=None, help=help_text)
    shown = []
    if default not in (None, "", (), []) and not many:
        shown.append(f"default: {default:g}" if isinstance(default, float) else f"default: {default}")
    if bounds := _bounds(least, most):
        shown += [] if _said(bounds, help_text) else [bounds]
    if shown:
        help_text += f"  [{'; '.join(shown)}]"
    metavar = name.upper().removesuffix("_ID")
    if many:
        # Checked by the parameter model after the commas are split (click's choice would see "a,b").
        help_text += " Repeatable, or comma-separated."
        metavar = f"[{'|'.join(choices)}]" if choices else metavar
    return click.Option([flag, *OLDER_FLAGS.get(name, ()), name], type=click_type, multiple=many,
                        default=None, required=False,
                        help=help_text, metavar=None if choices and not many else metavar)


def _stated(info: FieldInfo) -> tuple[str, float | None, float | None]:
    """A parameter's description and bounds, also where an optional parameter's type holds them
    (`Limit | None`: the description and bounds are the inner `Limit`'s)."""
    description = info.description
    least = most = None
    found = [info, *(m for a in get_args(info.annotation) for m in getattr(a, "__metadata__", ()))]
    for held in found:
        for m in [held, *getattr(held, "metadata", ())]:
            description = description or getattr(m, "description", None)
            ge, le = getattr(m, "ge", None), getattr(m, "le", None)
            least = ge if least is None and isinstance(ge, int | float) else least
            most = le if most is None and isinstance(le, int | float) else most
    return description or "", least, most


def _bounds(least: float | None, most: float | None) -> str:
    """A number's bounds as click states a range (`1<=x<=1000`); a bound no one reaches (2**63-1) is none."""
    def number(n: float) -> str:
        return str(int(n)) if float(n).is_integer() else f"{n:g}"

    most = None if most is not None and most >= NUMBER_MAX else most
    if most is None:
        return "" if least is None else f"x>={number(least)}"
    return f"{number(least)}<=x<={number(most)}" if least is not None else f"x<={number(most)}"


def _said(bounds: str, text: str) -> bool:
    """Whether `text` states the `bounds` already ("(1-1000)", "at most 876600"): it names the upper one,
    or the lower one when there is no upper."""
    edge = re.split(r"<=|>=", bounds)[-1]
    return re.search(rf"(?<![\d,.]){re.escape(edge)}(?!\d|[,.]\d)", text) is not None


def _shape(annotation: Any) -> tuple[type, tuple[str, ...], bool]:
    """(scalar type, choices, repeatable) of a parameter's annotation."""
    origin = get_origin(annotation)
    if origin in (Union, types.UnionType):
        inner = [a for a in get_args(annotation) if a is not type(None)]
        return _shape(inner[0])
    if origin in (tuple, list):
        scalar, choices, _ = _shape(get_args(annotation)[0])
        return scalar, choices, True
    if origin is Literal:
        return str, tuple(str(a) for a in get_args(annotation)), False
    if get_args(annotation) and hasattr(annotation, "__metadata__"):  # Annotated
        return _shape(get_args(annotation)[0])
    return annotation, (), False


def _value(value: Any) -> Any:
    """A repeatable option's values, each also split at commas (`--words git,branch`)."""
    if isinstance(value, tuple):
        return [part.strip() for v in value for part in str(v).split(",") if part.strip()]
    return value
