"""The asset index's domain values: what the owner owns, its keys, and the pointers a push hands back.

Pure dataclasses: discovery and mining produce `Draft`s, the index stores them, `assets()` returns
`Asset`s and `push()` returns a `Push`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Literal, get_args

AssetKind = Literal["skill", "command", "agent", "tool", "machine", "decision", "approach", "document",
                    "mcp_server"]
ASSET_KINDS: tuple[str, ...] = get_args(AssetKind)
KeyField = Literal["name", "topic", "use"]
Why = Literal["named", "use", "topic", "name", "co-access", "overlay", "meaning"]


@dataclass(frozen=True, slots=True)
class Key:
    """One key of an asset and where it came from: an entry address (`s7#12`) or a file path."""

    text: str
    address: str | None = None
    path: str | None = None
    origin: str = "store"  # store (its own file), description, correction, helped, owner (an alias he used)

    @property
    def source(self) -> str:
        return self.address or self.path or ""


@dataclass(frozen=True, slots=True)
class Keys:
    names: tuple[Key, ...] = ()
    topics: tuple[Key, ...] = ()
    uses: tuple[Key, ...] = ()


@dataclass(frozen=True, slots=True)
class Asset:
    """One thing the owner owns, as the index holds it; `source` is an address or a path."""

    asset: str  # a12
    kind: AssetKind
    name: str
    description: str
    keys: Keys
    source: str
    updated: str | None
    scope: str | None = None  # the project (cwd) it belongs to; None: everywhere
    current: bool = True  # False: a decision a later one on the same subject superseded


class Setup(Enum):
    """The bench's setups, each adding one piece to the one before (BASELINE stands apart: every asset's
    name and description as one document, the same search and the same token budget)."""

    TOPIC = "topic"
    NAMES = "names"
    USES = "uses"
    CO_ACCESS = "co-access"
    OVERLAY = "overlay"
    NAMED_SLOT = "named-slot"
    FULL = "full"
    BASELINE = "baseline"

    def has(self, piece: Setup) -> bool:
        """Whether this setup includes `piece` (the ladder is cumulative; BASELINE includes none)."""
        if self is Setup.BASELINE or piece is Setup.BASELINE:
            return self is piece
        return _LADDER.index(self) >= _LADDER.index(piece)


_LADDER = [Setup.TOPIC, Setup.NAMES, Setup.USES, Setup.CO_ACCESS, Setup.OVERLAY, Setup.NAMED_SLOT, Setup.FULL]


@dataclass(frozen=True, slots=True)
class Pointer:
    """One line of a push: `name — what it is for — address or path` (about 40 tokens)."""

    asset: str
    kind: AssetKind
    name: str
    line: str
    source: str
    score: float
    why: Why


@dataclass(frozen=True, slots=True)
class Push:
    """Up to five pointers, best first; empty when nothing clears the bar (a correct answer). It says
    nothing of what eligibility held back, not even how much."""

    pointers: list[Pointer]
    tokens: int
    off: bool = False  # the owner turned the push off (`mute --all`)


@dataclass(slots=True)
class AssetReport:
    """What a rebuild did: assets per kind, keys per field, warnings (a malformed SKILL.md, with its path)."""

    assets: dict[str, int] = field(default_factory=dict)
    keys: dict[str, int] = field(default_factory=dict)
    links: int = 0
    mutes: int = 0
    warnings: list[str] = field(default_factory=list)
    seconds: float = 0.0


@dataclass(frozen=True, slots=True)
class KeyDraft:
    """A key before it is stored: `entry` is the record entry its words come from, `via` the correction
    that made it a key (a key counts only while both are neither erased nor quarantined)."""

    field: KeyField
    text: str
    address: str | None = None
    path: str | None = None
    entry: int | None = None
    via: int | None = None
    origin: str = "store"


@dataclass(slots=True)
class Draft:
    """An asset found by discovery or mining, before it gets its number. `identity` names it across
    rebuilds (its kind and path, host or address), so it keeps its number when found again."""

    kind: AssetKind
    name: str
    description: str
    source: str
    identity: str
    entry: int | None = None  # the entry `source` names (None for a file)
    scope: str | None = None
    updated: str | None = None
    current: bool = True
    keys: list[KeyDraft] = field(default_factory=list)
    sources: set[int] = field(default_factory=set)  # every entry its words were mined from

    def key(self, field_: KeyField, text: str, *, address: str | None = None, path: str | None = None,
            entry: int | None = None, via: int | None = None, origin: str = "store") -> None:
        """Add a key unless the asset holds the same one already."""
        text = " ".join(text.split())
        if text and all(k.field != field_ or k.text != text for k in self.keys):
            self.keys.append(KeyDraft(field_, text, address, path, entry, via, origin))
