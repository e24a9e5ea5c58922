"""Window controllers: who holds the pen on a session's window, behind one contract.

Seed 000, "Who holds the pen": often the runtime does not control its own window. Three kinds of
controller share one contract, and every compaction — whoever ran it — writes one receipt that says
what the memory layer can know:

- `runtime` — an agent built on this package holds the window: it evicts by class and builds the markers
  itself (`runtime.py`). Knowledge: known input.
- `claude-code`, `codex` — the harness compacts and writes its own summary; through its hooks we leave a
  verified marker for the whole session up to the compaction and give it back at the next session start.
  Knowledge: sent, unconfirmed.
- `provider-api` — a provider's API compacts on its servers; a receipt only. Knowledge: sent, unconfirmed.

"known input" when the runtime built the call itself; "sent, unconfirmed" when a harness or provider
compacts and we cannot see what the model was given afterwards.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Protocol

from total_recall.errors import MarkerError, MarkerRejected
from total_recall.keeping.marker import OVERFLOW, Marker, build_marker, save_marker
from total_recall.keeping.receipts import Decision, Knowledge, Receipt, write_receipt
from total_recall.keeping.tail import evictable_range
from total_recall.model import Address
from total_recall.record.database import Record
from total_recall.tokens import estimate_tokens

# A harness's marker budget (tokens) and Bo when its hook prepares one: two markers fit the
# SessionStart context cap (`hooks.CONTEXT_CAP`) with room to spare.
HARNESS_MARKER_BUDGET = 2000


@dataclass(frozen=True, slots=True)
class CompactionEvent:
    """A compaction, or a decision not to compact, as a controller saw it.

    `range` is what left (or would have); `source` is the address of the harness's own compaction
    entry when the record holds one; tokens are the controller's best count (estimates for harnesses).
    """

    session: int | None
    trigger: str
    decision: Decision = "compacted"
    range: str | None = None
    tokens_before: int | None = None
    tokens_after: int | None = None
    marker_id: int | None = None
    source: str | None = None
    note: str | None = None


class WindowController(Protocol):
    """The contract every window controller implements."""

    @property
    def name(self) -> str:
        """The controller named on its receipts: runtime, claude-code, codex, provider-api."""
        ...

    @property
    def knowledge(self) -> Knowledge:
        """What the memory layer can know about a call after this controller compacts."""
        ...

    def on_compaction(self, record: Record, event: CompactionEvent) -> Receipt:
        """Do this controller's part of a compaction and write its receipt (returned with its id)."""
        ...


@dataclass(frozen=True, slots=True)
class ReceiptController:
    """A controller whose compaction needs nothing of ours but its receipt: the runtime (which holds the
    pen: `runtime.next_window` evicts and builds the markers itself) and a provider's API (which compacts
    on its servers, changing nothing of the window we keep)."""

    name: str
    knowledge: Knowledge

    def on_compaction(self, record: Record, event: CompactionEvent) -> Receipt:
        return receipt_of(record, self, event)


@dataclass(frozen=True, slots=True)
class HarnessController:
    """A harness that compacts and writes its own summary (Claude Code, Codex).

    Told of a compaction before it happens (a PreCompact hook: no `source`, no marker yet), it builds,
    verifies and saves a marker for the session up to that point, so the harness's next session start can
    be given the owner's words back. Told of one the record already holds (`source` set), it writes the
    receipt only: that range left the window long ago.
    """

    name: str
    knowledge: Knowledge = "sent, unconfirmed"
    marker_budget: int = HARNESS_MARKER_BUDGET
    bo: int | None = None
    # No verbatim tail: the harness, not we, decides what stays. Claude Code replaces the conversation with
    # its own summary (a newer version may keep a segment, `compactMetadata.preservedSegment`, which
    # PreCompact cannot know in advance) and Codex likewise, so a tail left out of the marker may be lost
    # whole: the owner's last instruction and, in an autonomous run, the whole session. A few tokens the
    # harness keeps twice cost less.
    keep_exchanges: int = 0

    def on_compaction(self, record: Record, event: CompactionEvent) -> Receipt:
        if event.session is None or event.source is not None or event.marker_id is not None:
            return receipt_of(record, self, event)
        span = Address.parse(event.range) if event.range else evictable_range(
            record, event.session, self.keep_exchanges)
        if span is None:
            note = _join(event.note, "nothing before the verbatim tail to mark" if self.keep_exchanges
                         else "the session holds no entry to mark")
            return receipt_of(record, self, replace(event, note=note))
        before = sum(estimate_tokens(e.text) for e in record.entries(span, with_spans=False))
        try:
            marker = build_marker(record, span, self.marker_budget, self.bo)
            marker_id = save_marker(record, marker)
        except (MarkerRejected, MarkerError) as exc:  # no marker; the harness compacts anyway
            return receipt_of(record, self, replace(event, range=str(span), tokens_before=before,
                                             note=_join(event.note, f"no marker: {exc}")))
        said = ("tokens are estimates for the range and its marker" if _holds_any(marker) else
                f"empty marker: {span} holds nothing of the owner's and no exact string to keep, so the "
                "marker saves no tokens")
        return receipt_of(record, self, replace(
            event, range=str(span), tokens_before=before, tokens_after=marker.tokens, marker_id=marker_id,
            note=_join(event.note, said)))


RUNTIME = ReceiptController("runtime", "known input")
CLAUDE_CODE = HarnessController("claude-code")
CODEX = HarnessController("codex")
PROVIDER_API = ReceiptController("provider-api", "sent, unconfirmed")


def provider_compacted(record: Record, session: int | None, *, tokens_before: int | None = None,
                       tokens_after: int | None = None, source: str | None = None,
                       note: str | None = None) -> Receipt:
    """Record that a provider's API compacted a session's context on its servers (a receipt only).

    A runtime calls this when a response says the provider compacted (e.g. a context-management
    edit was applied); `source` is the record address of that response when there is one.
    """
    return PROVIDER_API.on_compaction(record, CompactionEvent(
        session, "harness", tokens_before=tokens_before, tokens_after=tokens_after, source=source,
        note=note))


def receipt_of(record: Record, controller: WindowController, event: CompactionEvent) -> Receipt:
    """Write the receipt for `event` by `controller`; returns it with its id."""
    receipt = Receipt(
        controller=controller.name, trigger=event.trigger, decision=event.decision,
        knowledge=controller.knowledge, session=event.session, range=event.range,
        tokens_before=event.tokens_before, tokens_after=event.tokens_after, marker_id=event.marker_id,
        source=event.source, note=event.note)
    return replace(receipt, id=write_receipt(record, receipt))


def _holds_any(marker: Marker) -> bool:
    """Whether a marker keeps anything of the owner's or an exact string, in full or by a pointer (every
    pointer but the line saying where more items are)."""
    pointed = [(m.group("what") or m.group("unread")) if (m := OVERFLOW.match(p)) else "the owner's"
               for p in marker.pointers]
    return bool(marker.instructions or marker.strings) or any(what != "items" for what in pointed)


def _join(first: str | None, second: str) -> str:
    return f"{first}; {second}" if first else second
