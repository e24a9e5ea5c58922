"""The verifier of observations: keeping's rule for markers, applied to notes.

Every address must name one entry the record returns (not erased, not quarantined); every quoted string
must stand word for word in the entry it cites, and a quote of the owner's words inside one stretch of his
own prose spans (so a paste, a quote block or a command never passes as his rule). A note is about what
it quotes (a word of it at least stands there, or a synonym). An observation that claims explicit
evidence must rest on at least one such quote of the owner's, and so must a rule or a preference whatever
evidence it claims, saying what his words say (half its words at least stand in them): the owner's rules
come from his own words only, so one the agent, a tool or a paste said, or one a model inferred (source
type inference, weak or uncertain), is refused. Any other note resting on an inference (or weaker) is
kept only at low priority. Fields must be in their vocabularies and the text a note, not a transcript.
"""

from __future__ import annotations

from dataclasses import dataclass

from total_recall.errors import AddressError
from total_recall.model import Address, Entry
from total_recall.observing.observation import (
    INJECTED,
    MAX_SOURCES,
    MAX_TEXT,
    PRIORITIES,
    SOURCE_TYPES,
    TYPES,
    Draft,
    ObservationRejected,
    normalized,
)
from total_recall.observing.phrasing import canonical, content_words
from total_recall.record import observations as table
from total_recall.record.database import Record
from total_recall.record.observations import Observation

OWN_TAGS = frozenset({"instruction", "statement", "question"})
CITABLE_AUTHORS = frozenset({"owner", "agent", "tool"})
# Notes that say what the owner wants: they stand only on his own words.
HIS_KINDS = frozenset({"rule", "preference"})
# Evidence that does not say the thing itself: a note resting on it may only be of low priority.
GUESSED = frozenset({"inference", "weak", "uncertain"})
# How much of a note's words must stand (as such or as a synonym) in what it quotes: half lets a model
# paraphrase ("avoid production changes on Fridays" for "don't touch prod on fridays"), not invent.
RELATED = 0.5


@dataclass(frozen=True, slots=True)
class Checked:
    """A source the verifier passed: the entry's id and time, and the words quoted."""

    entry: int
    quote: str
    ts: str | None
    owner_words: bool


class Verifier:
    """Checks drafts against one record, reading each cited entry once."""

    def __init__(self, record: Record) -> None:
        self.record = record
        self._entries: dict[tuple[int, int], Entry | None] = {}

    def check(self, draft: Draft) -> list[Checked]:
        """The draft's sources as stored, once the draft passes.

        Raises:
            ObservationRejected: naming what is wrong (the address and the words where one is at fault).
        """
        _check_fields(draft)
        out: list[Checked] = []
        for source in draft.sources:
            entry = self._entry(source.address)
            quote = source.quote.strip()
            owner_words = False
            if quote:
                if entry.author == "owner":
                    owner_words = own_words(entry, quote)
                    if not owner_words:
                        raise ObservationRejected(
                            f"{source.address}: {_clip(quote)!r} is not the owner's own words there (not in "
                            "that entry, or in a paste, a quote block or a command)")
                elif quote not in entry.text:
                    raise ObservationRejected(f"{source.address}: {_clip(quote)!r} is not in that entry")
                if INJECTED.search(entry.text) and any(
                        m.start() <= entry.text.find(quote) < m.end() for m in INJECTED.finditer(entry.text)):
                    raise ObservationRejected(f"{source.address}: {_clip(quote)!r} is inside observations "
                                              "Total Recall handed back, not the session's own words")
            facts = table.entry_facts(self.record, [(entry.session, entry.seq)])
            entry_id, ts = facts[(entry.session, entry.seq)]
            out.append(Checked(entry_id, quote, ts, owner_words))
        if draft.source_type == "explicit" and not any(c.owner_words for c in out):
            raise ObservationRejected(
                f"{_clip(draft.text)!r} claims explicit evidence but quotes none of the owner's own words")
        _check_said(draft, out)
        return out

    def recheck(self, obs: Observation) -> None:
        """Check a stored observation's sources again (an entry since erased or quarantined, a quote no
        longer held).

        Raises:
            ObservationRejected: naming the source at fault.
        """
        if not obs.sources:
            raise ObservationRejected(f"observation {obs.id} cites no entry")
        for c in obs.sources:
            entry = self._entry(c.address)
            held = own_words(entry, c.quote) if entry.author == "owner" else c.quote in entry.text
            if c.quote and not held:
                raise ObservationRejected(f"observation {obs.id}: {c.address} does not hold "
                                          f"{_clip(c.quote)!r}")

    def _entry(self, address: str) -> Entry:
        try:
            addr = Address.parse(address)
        except AddressError as exc:
            raise ObservationRejected(f"{address!r}: not an address (expected s3#12)") from exc
        if addr.first is None or addr.last != addr.first:
            raise ObservationRejected(f"{address}: a source must name one entry (s3#12)")
        key = (addr.session, addr.first)
        if key not in self._entries:
            try:
                found = self.record.entries(Address(addr.session, addr.first, addr.first))
            except AddressError:
                found = []
            self._entries[key] = found[0] if found else None
        entry = self._entries[key]
        if entry is None:
            raise ObservationRejected(f"{address}: the record holds no such entry")
        if entry.erased:
            raise ObservationRejected(f"{address}: erased ({entry.erased}); an observation may not cite it")
        if entry.quarantined:
            raise ObservationRejected(f"{address}: quarantined ({entry.quarantined})")
        if entry.author not in CITABLE_AUTHORS:
            raise ObservationRejected(f"{address}: {entry.author} text is neither the owner's nor the "
                                      "agent's")
        return entry


def own_words(entry: Entry, quoted: str) -> bool:
    """Whether `quoted` stands inside one stretch of the owner's own prose spans of the entry (spans
    joined by white space only count as one stretch)."""
    stretches: list[list[int]] = []
    for s in entry.spans:
        if s.tag not in OWN_TAGS:
            continue
        if stretches and not entry.text[stretches[-1][1]:s.start].strip():
            stretches[-1][1] = s.end
        else:
            stretches.append([s.start, s.end])
    at = entry.text.find(quoted)
    while at >= 0:
        if any(start <= at and at + len(quoted) <= stop for start, stop in stretches):
            return True
        at = entry.text.find(quoted, at + 1)
    return False


def _check_said(draft: Draft, checked: list[Checked]) -> None:
    """A rule or preference rests on the owner's own words and says what they say; any note says what
    it quotes; a guess is never a rule nor above low priority.

    Raises:
        ObservationRejected: naming what the note lacks.
    """
    text = _clip(draft.text)
    if draft.type in HIS_KINDS:
        if draft.source_type in GUESSED:
            raise ObservationRejected(f"{text!r}: a {draft.type} is the owner's own word, not "
                                      f"{draft.source_type} evidence")
        his = [c.quote for c in checked if c.owner_words]
        if not his:
            raise ObservationRejected(f"{text!r}: a {draft.type} must rest on the owner's own words, and it "
                                      "quotes none of the owner's (his prose, not a paste or a command)")
        if not related(draft.text, his):
            raise ObservationRejected(f"{text!r}: not what the owner's words it quotes say "
                                      f"({_clip(' … '.join(his))!r})")
    elif draft.source_type in GUESSED and draft.priority != "low":
        raise ObservationRejected(f"{text!r}: {draft.source_type} evidence is kept at low priority only, "
                                  f"not {draft.priority}")
    quotes = [c.quote for c in checked if c.quote]
    # Any other note may sum up what it quotes (an event from a tool's output) but not be about another
    # thing: one word of it at least stands there.
    if quotes and not related(draft.text, quotes, least=0.0):
        raise ObservationRejected(f"{text!r}: not what it quotes says ({_clip(' … '.join(quotes))!r})")


def related(text: str, quotes: list[str], least: float = RELATED) -> bool:
    """Whether the note's content words stand in its quotes, as such or as a synonym (a note may
    paraphrase: "release" for "deploy"): `least` of them (half, for what the owner wants), and one at
    least; a note of stop words only relates to nothing but a quote holding it."""
    words = {canonical(w) for w in content_words(text)}
    held = {canonical(w) for q in quotes for w in content_words(q)}
    if not words:
        return any(normalized(text) in normalized(q) for q in quotes)
    common = len(words & held)
    return common >= 1 and common >= least * len(words)


def _check_fields(draft: Draft) -> None:
    text = draft.text.strip()
    if not text:
        raise ObservationRejected("an observation with no text")
    if len(text) > MAX_TEXT:
        raise ObservationRejected(f"{_clip(text)!r}: {len(text)} characters, over the {MAX_TEXT} of a note")
    if INJECTED.search(text):
        raise ObservationRejected(f"{_clip(text)!r}: holds an observations block Total Recall handed back")
    for name, value, allowed in (("priority", draft.priority, PRIORITIES), ("type", draft.type, TYPES),
                                 ("source_type", draft.source_type, SOURCE_TYPES)):
        if value not in allowed:
            raise ObservationRejected(f"{_clip(text)!r}: {name} {value!r} is not one of {', '.join(allowed)}")
    if isinstance(draft.confidence, bool) or not 0.0 <= draft.confidence <= 1.0:
        raise ObservationRejected(f"{_clip(text)!r}: confidence {draft.confidence!r} is not within 0–1")
    if draft.importance is not None and not 0.0 <= draft.importance <= 10.0:
        raise ObservationRejected(f"{_clip(text)!r}: importance {draft.importance!r} is not within 0–10")
    if not draft.sources:
        raise ObservationRejected(f"{_clip(text)!r}: cites no entry")
    if len(draft.sources) > MAX_SOURCES:
        raise ObservationRejected(f"{_clip(text)!r}: cites {len(draft.sources)} entries, over {MAX_SOURCES}")


def _clip(text: str) -> str:
    return text if len(text) <= 60 else text[:57] + "…"
