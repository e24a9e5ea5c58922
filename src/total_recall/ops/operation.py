"""What an operation is: one user-facing thing Total Recall does, defined once for every surface.

An `Operation` names itself (its canonical name is the MCP tool's; the CLI command defaults to the same
name with dashes), says what it does to the record (`Effect`), takes one parameter model (`Params`: a
pydantic model whose fields carry every default, bound and description) and returns one reply (a JSON
object). The CLI and the MCP
server are generated from the table of them (`ops/__init__.py`): the same parameters, limits, defaults and
errors on both. A surface only translates: flags or arguments in, the reply rendered out, and a core
error worded in its own terms (`--hours` on the CLI where MCP says `hours_back`).

`Call` is what a surface hands an operation besides its parameters: the record, the harness a server is
bound to, whether it is the demo's record, and how to report progress.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from types import UnionType
from typing import Annotated, Any, Generic, Literal, TypeVar, Union, get_args, get_origin

from annotated_types import MaxLen
from pydantic import BaseModel, ConfigDict, ValidationInfo, field_validator
from pydantic_core import PydanticKnownError

from total_recall.errors import AddressError, OutsideBinding, ScopeError
from total_recall.model import Address, Session, echoed
from total_recall.record.database import Record

Group = Literal["record", "finding", "keeping", "observing", "mining", "serving", "setup"]
GROUPS: tuple[str, ...] = get_args(Group)
Surface = Literal["cli", "mcp"]
Reply = dict[str, Any]
Progress = Callable[[int, int, str], None]


class Effect(Enum):
    """What calling an operation does, as MCP clients are told (tool annotations)."""

    READS = "reads"  # reads the record only
    # Adds derived rows (markers, receipts, cues, summary blocks) or syncs; never changes an entry.
    ADDS = "adds"
    CALLS_OUT = "calls out"  # adds, and calls the configured LLM endpoint
    DROPS = "drops"  # erases or hides what the record holds, or drops a cached block


class Params(BaseModel):
    """An operation's parameters: an unknown name is refused (a typo is a call run on the wrong scope), and
    so is a value of another JSON type than the parameter's (see `exact_type`). A list of choices (harnesses,
    authors, entry types) holds each at most once, so it is bounded by how many there are: stated as the
    schema's `maxItems`, and a longer one is refused before any of it is echoed back."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        bounded = False
        for info in cls.model_fields.values():
            if (most := choices(info.annotation)) and not any(isinstance(m, MaxLen) for m in info.metadata):
                info.metadata.append(MaxLen(most))
                bounded = True
        if bounded:
            cls.model_rebuild(force=True)

    @field_validator("*", mode="before")
    @classmethod
    def _exact_type(cls, value: Any, info: ValidationInfo) -> Any:
        return exact_type(cls.model_fields[str(info.field_name)].annotation, value)


def exact_type(annotation: Any, value: Any) -> Any:
    """`value`, unless it is of another JSON type than a flag's or a number's `annotation` asks for.

    Pydantic would coerce it: `"yes"` would be `true` (releasing a quarantine, applying a nightly run),
    `true` would be 1 and `"5"` 5 — a call the client did not make. The CLI hands over values click has
    already typed, so only a server's caller can send these. The MCP server checks its arguments with this
    too, before its SDK's own model coerces them.

    Raises:
        PydanticKnownError: a non-boolean for a flag, a boolean or a string for a number.
    """
    kind = _scalar(annotation)
    if kind is bool and value is not None and not isinstance(value, bool):
        raise PydanticKnownError("bool_type")
    if kind in (int, float) and isinstance(value, bool | str):
        raise PydanticKnownError("int_type" if kind is int else "float_type")
    return value


def _scalar(annotation: Any) -> Any:
    """bool, int or float when that is the one scalar `annotation` takes (optional or annotated), else
    None."""
    origin = get_origin(annotation)
    if origin in (Union, UnionType):
        inner = [a for a in get_args(annotation) if a is not type(None)]
        return _scalar(inner[0]) if len(inner) == 1 else None
    if origin is Annotated:
        return _scalar(get_args(annotation)[0])
    return annotation if annotation in (bool, int, float) else None


def choices(annotation: Any) -> int:
    """How many values a list or tuple of `Literal` choices can hold without repeating one; 0 for any other
    annotation."""
    if get_origin(annotation) in (list, tuple) and (args := get_args(annotation)):
        item = args[0]
        while get_origin(item) is Annotated:
            item = get_args(item)[0]
        if get_origin(item) is Literal:
            return len(set(get_args(item)))
    return 0


P = TypeVar("P", bound=Params)


@dataclass
class Call:
    """One call of an operation: the record it works on and what the calling surface adds to it."""

    record_path: Path
    surface: Surface
    # A server bound to one harness serves only its sessions (MCP `--harness`/`HARNESS`; the CLI's
    # `--harness` on operations that take no harness filter of their own). None: every harness.
    harness: str | None = None
    demo: bool = False
    progress: Progress | None = None
    # The record's home when the surface lets an operation fall back to the bundled demo's record there
    # (the CLI); None: the call works on `record` whatever it holds (a server serves one record).
    home: Path | None = None
    # What a server says of itself in `status` (name, version, its start-up sync); None on the CLI.
    serving: Mapping[str, Any] | None = None
    processes: int = 1  # a sync may read ahead in a second process (the CLI's `sync` only)
    # What the reply alone would leave unsaid (why a listing is empty, which observer ran): the CLI prints
    # them on stderr, MCP hands them back in the reply's `notes`.
    notes: list[str] = field(default_factory=list)

    @contextmanager
    def record(self) -> Iterator[Record]:
        # Opened per call: another process (or the server's own start-up sync) may append meanwhile.
        with Record(self.record_path) as record:
            yield record

    @property
    def roots(self) -> dict[str, Path] | None:
        """The store roots a sync of this call reads: the bundled demo store's for the demo's record, else
        None (every harness's own roots)."""
        from total_recall.config import demo_roots

        return demo_roots() if self.demo else None

    def check(self, record: Record, address: Address) -> Address:
        """`address`, once its session is known to be within the binding.

        Raises:
            AddressError: no such session. OutsideBinding: another harness's session.
        """
        session = record.session(address.session)
        if self.harness and session.harness != self.harness:
            raise OutsideBinding(f"s{session.number} is a {session.harness} session; this server is bound to "
                                 f"{self.harness}")
        return address

    def harnesses(self, asked: Sequence[str]) -> tuple[str, ...]:
        """The harness filter a call may use: what it asked for, within the binding.

        Raises:
            OutsideBinding: it asked for another harness than the one bound.
        """
        if self.harness is None:
            return tuple(asked)
        if outside := [h for h in asked if h != self.harness]:
            raise OutsideBinding(f"harness {', '.join(outside)} is outside this server, which is bound to "
                                 f"{self.harness}")
        return (self.harness,)

    def session(self, record: Record, op: str, name: str, param: str = "session_id") -> Session:
        """The session `name` names, within the binding: `s7`, the session's own id, a unique prefix or
        piece of it (`record/sessions.py` decides, through the scope contract's wording); empty: the most
        recently active session. An entry address (`s7#12`) names entries, not a session: refused.

        Raises:
            ScopeError: nothing or several sessions match, or it names entries.
            OutsideBinding: the session belongs to another harness than the bound one.
        """
        from total_recall.mining.scope import resolve_session

        text = name.strip()
        if text[:1] in ("s", "S") and text[1:2].isdigit():
            try:
                address = Address.parse(text)
            except AddressError as exc:
                raise ScopeError(f"{op}: `{param}` {exc}") from exc
            if address.first is not None:
                raise ScopeError(f"{op}: `{param}` must name a session (s{address.session}), not entries "
                                 f"({echoed(text)})")
        try:
            found = resolve_session(record, op, text, self.harness, param=param)
        except ScopeError as exc:
            self._refuse_outside(record, op, text, exc)
            raise
        return found.session

    def _refuse_outside(self, record: Record, op: str, text: str, exc: ScopeError) -> None:
        """Raise OutsideBinding when the session refused within the binding is another harness's: the
        core, asked within the harness, can only say it found no such session."""
        from total_recall.mining.scope import resolve_session

        if self.harness is None or not text:
            return
        try:
            found = resolve_session(record, op, text)
        except ScopeError:
            return
        if found.session.harness != self.harness:
            raise OutsideBinding(f"{op}: {found.address} is a {found.session.harness} session; this server "
                                 f"is bound to {self.harness}") from exc


@dataclass(frozen=True)
class Operation(Generic[P]):
    """One user-facing operation, defined once; the CLI and the MCP server register from it."""

    name: str  # canonical: the MCP tool's name (seed 004's names are part of the contract)
    group: Group
    effect: Effect
    params: type[P]
    run: Callable[[Call, P], Reply]
    doc: str  # what it does; the first sentence is the short help
    example: str  # one CLI example, shown under the command's --help and in the grouped listing
    cli: str = ""  # the CLI command (default: the name with dashes)
    argument: tuple[str, ...] = ()  # parameters the CLI takes positionally, in order
    flags: Mapping[str, str] = field(default_factory=dict)  # parameter → CLI flag where the name differs
    # When set, MCP answers this text (seed 004's line and markdown formats) instead of the JSON reply.
    text: Callable[[Reply], str] | None = None
    # The parameter the CLI's `--batch FILE` fills from each line of FILE, one call (and one JSON line) each.
    batch: str = ""
    # What every line of a batch shares (a session, a time), refused once before any line runs: it is given
    # the other parameters, already checked by the model, and never reads the batch parameter.
    shared: Callable[[Call, P], None] | None = None
    aliases: tuple[str, ...] = ()  # other MCP tool names for the same operation
    creates: bool = False  # opening a record that is not there yet is what it is for (sync)
    # Whether a harness binding means anything to it (the CLI offers `--harness` as the binding then).
    binds: bool = True

    @property
    def command(self) -> str:
        return self.cli or self.name.replace("_", "-")

    def flag(self, param: str) -> str:
        """The CLI's spelling of a parameter: `--hours` for `hours_back`, `SESSION` for a positional one."""
        if param in self.argument:
            return param.upper().removesuffix("_ID")
        return "--" + self.flags.get(param, param).replace("_", "-")

    def __call__(self, call: Call, **given: Any) -> Reply:
        """Validate `given` against the parameter model, then run (pydantic's ValidationError on bad
        input)."""
        return self.perform(call, self.params.model_validate(given))

    def perform(self, call: Call, params: P) -> Reply:
        """Run with `params`, as every surface does: an erase a killed process left half done is finished
        first, and a reply read from the record holds its erase lock shared while it is made (an overflow
        file of words an erase took out must not be written after it); a call that adds or calls out writes
        one only if no erase ran since it began (`erasure.adding`)."""
        from total_recall import erasure  # not at import: it brings the readers and the observing layer

        erasure.finish_interrupted(call.record_path)
        if self.effect is Effect.DROPS:
            return self.run(call, params)
        during = erasure.replying if self.effect is Effect.READS else erasure.adding
        with during(call.record_path):
            return self.run(call, params)
