"""The model observer: new entries of a session sent to the configured model with a priority-based
compression prompt, the reply parsed strictly, every note verified before it is kept.

The prompt is a file the owner can edit: `observer-prompt.md` in the record home when it exists, else
the package's `prompts/observer.md`. The owner's entries are shown as his own words only: a paste or a
command is replaced by a bracketed stand-in, so the model is never shown someone else's imperative as
his. Entries go in batches that fit the provider's prompt budget, one call per batch; each batch's notes
and the cursor move commit together, so a model error (or a cap reached) keeps nothing of that batch and
leaves its entries for the next run. A reply that is not the JSON asked for is refused whole; a note
naming an entry not shown, or one the verifier refuses, is refused alone; all are reported.

The model is also shown the notes already held that one of the batch's owner messages says again in part
(three content words in common, or one beside a cue of taking something back, `TAKE_BACK`: every call pays
for what it is shown, against the day's cap; at most MAX_HELD, by id, current ones whose sources the
record still shows), and may take them back when the owner did:
`"withdraw": [{"id": 4, "address": "s3#1"}]` (the owner's entry of the batch that took it back) or a new
note's `"supersedes": [4]`. Only an id it was shown, only an owner's entry of the batch, and only a note
said before that entry are taken, and a supersession only by a note added or reinforced that is current
(counted as `superseded`, apart from `retired`); anything else is refused by name. The mechanical reading
of retractions (`retraction`) runs on the batch as well, and the retraction itself is never kept as an
event.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from importlib import resources
from pathlib import Path
from typing import Any

from total_recall.errors import LLMBudgetExceeded, LLMError
from total_recall.keeping.evicted import MinedEntry
from total_recall.llm.provider import Message, Provider
from total_recall.llm.redaction import redact
from total_recall.observing import retraction
from total_recall.observing.keep import Kept, keep_counted
from total_recall.observing.listing import observations
from total_recall.observing.observation import (
    INJECTED,
    Draft,
    ObserveReport,
    Source,
    iso,
    written,
)
from total_recall.observing.phrasing import content_words, stem
from total_recall.observing.verifier import Verifier
from total_recall.record import observations as table
from total_recall.record.database import Record
from total_recall.record.observations import Observation, Pending

PROMPT_FILE = "observer-prompt.md"
MAX_NOTES = 40  # notes one reply may hold; the rest are refused
MAX_HELD = 5  # held notes shown to the model, which it may withdraw or supersede
# The words an owner takes something back or changes course with.
TAKE_BACK = re.compile(
    r"\b(?:forget|scratch|ignore|disregard|never\s*mind|no\s+longer|any\s*more|revert|retract|withdraw|"
    r"fine\s+again|(?:is|are)\s+(?:gone|over|lifted|dead)|mov(?:e|ed|ing)\s+(?:past|on))\b", re.I)
MAX_WITHDRAW = 20
MAX_OUTPUT_TOKENS = 2_048
ENTRY_CHARS = 2_000  # characters of one agent message shown
_NOTE_KEYS = frozenset({"text", "type", "priority", "confidence", "source_type", "sources", "importance",
                        "supersedes"})
_HOW_TO_WITHDRAW = (
    "Notes held (do not repeat them):\n{held}\n"
    'If the owner takes one back here, add "withdraw": [{{"id": <id>, "address": "<his entry>"}}]; '
    'a new note replacing one says "supersedes": [<id>].')
_REQUIRED = frozenset({"text", "type", "priority", "confidence", "source_type", "sources"})
_FENCED = re.compile(r"```(?:json)?[ \t]*\n(.*)\n[ \t]*```", re.S)


class ReplyMalformed(ValueError):
    """The model's reply is not the JSON object the prompt asks for."""


def prompt(home: Path) -> str:
    """The observer's system prompt: the owner's copy in the record home, else the package's."""
    override = home / PROMPT_FILE
    if override.is_file():
        return override.read_text(encoding="utf-8")
    packaged = resources.files("total_recall.observing").joinpath("prompts/observer.md")
    return packaged.read_text(encoding="utf-8")


def observe_session(record: Record, provider: Provider, verifier: Verifier, p: Pending,
                    entries: Sequence[MinedEntry], report: ObserveReport, now: datetime) -> None:
    """Observe one session's new entries with the model, batch by batch (see the module's docstring)."""
    system = prompt(record.path.parent)
    pieces = [(e.seq, render(p.number, e)) for e in entries
              if e.kind == "message" and e.author in ("owner", "agent")]
    budget = max(provider.settings.prompt_bytes - len(system.encode("utf-8")) - 512, 2_000)
    batches = list(_batches(pieces, budget))
    if not batches:
        _commit_cursor(record, p.number, p.entries, now)
        return
    for n, batch in enumerate(batches):
        end = batches[n + 1][0][0] - 1 if n + 1 < len(batches) else p.entries
        where = f"s{p.number}#{batch[0][0]}-{batch[-1][0]}"
        shown = {f"s{p.number}#{seq}" for seq, _ in batch}
        seqs = {seq for seq, _ in batch}
        mined = [e for e in entries if e.seq in seqs]
        held = held_notes(record, mined)
        user = f"New entries of session s{p.number}:\n\n" + "\n\n".join(text for _, text in batch)
        if held:
            user += "\n\n" + _HOW_TO_WITHDRAW.format(held="\n".join(_held_line(o) for o in held))
        try:
            out = min(MAX_OUTPUT_TOKENS, provider.settings.max_output_tokens)
            answer = provider.complete([Message("system", system), Message("user", user)],
                                       max_output_tokens=out)
        except LLMBudgetExceeded as exc:
            report.errors.append(f"{where}: not sent: {exc}")
            return
        except LLMError as exc:
            report.errors.append(f"{where}: {exc}; nothing of it was written")
            return
        report.calls += 1
        report.tokens += answer.total_tokens
        report.entries += len(batch)
        try:
            notes = parse(answer.text)
            withdrawals = parse_withdrawals(answer.text)
        except ReplyMalformed as exc:
            report.refused.append(f"{where}: the model's reply was refused whole: {exc}")
            report.errors.append(f"{where}: the model's reply is not the JSON asked for; nothing of it was "
                                 "written, its entries are read again next run")
            return
        batch_ = _Batch(p.number, mined, shown, {o.id: o for o in held}, end, where)
        _keep_batch(record, verifier, batch_, notes, withdrawals, report, now)


@dataclass(frozen=True, slots=True)
class _Batch:
    """One batch as the model was shown it: its entries, their addresses, the held notes by id."""

    session: int
    entries: list[MinedEntry]
    shown: set[str]
    held: dict[int, Observation]
    end: int
    where: str


def held_notes(record: Record, entries: Sequence[MinedEntry]) -> list[Observation]:
    """The current notes (whose sources the record still shows) that an owner's message among `entries`
    says again in part: three content words in common (by stem), or one where the message holds a cue of
    taking back (`TAKE_BACK`); best first, at most MAX_HELD."""
    said = [INJECTED.sub(" ", e.text) for e in entries if e.author == "owner" and e.kind == "message"]
    words = [content_words(text) for text in said]
    query = " ".join(list(dict.fromkeys(w for ws in words for w in ws))[:60])
    if not query:
        return []
    asks = [({stem(w) for w in ws}, 1 if TAKE_BACK.search(text) else 3)
            for ws, text in zip(words, said, strict=True)]
    held = []
    for o in observations(record, query, limit=4 * MAX_HELD):
        mine = {stem(w) for w in content_words(o.text)}
        if any(len(mine & words) >= least for words, least in asks):
            held.append(o)
    return held[:MAX_HELD]


def _held_line(o: Observation) -> str:
    return f"#{o.id} {redact(o.text)}"


def _keep_batch(record: Record, verifier: Verifier, b: _Batch, notes: list[Draft | str],
                withdrawals: list[tuple[int, str] | str], report: ObserveReport, now: datetime) -> None:
    session, shown, end, where = b.session, b.shown, b.end, b.where
    said = retraction.found(b.entries)
    kept = set(retraction.without_retractions([n for n in notes if isinstance(n, Draft)], said, session))
    owners = {f"s{session}#{e.seq}": e for e in b.entries if e.author == "owner" and e.kind == "message"}
    with written(record):
        for n, note in enumerate(notes):
            if n >= MAX_NOTES:
                report.refused.append(f"{where}: {len(notes) - MAX_NOTES} notes over the {MAX_NOTES} a reply "
                                      "may hold")
                break
            if isinstance(note, str):
                report.refused.append(f"{where}: {note}")
                continue
            outside = [s.address for s in note.sources if s.address not in shown]
            if outside:
                report.refused.append(f"{where}: cites {', '.join(outside)}, not among the entries shown")
                continue
            if note not in kept:
                report.skip("retractions (not kept as notes)")
                continue
            stored = keep_counted(record, verifier, note, now, report)
            if stored is not None and note.supersedes:
                _supersede(record, b, stored, note, report, now)
        for w in withdrawals[:MAX_WITHDRAW]:
            if isinstance(w, str):
                report.refused.append(f"{where}: {w}")
                continue
            obs, address = w
            if obs not in b.held:
                why: str | None = f"withdraws #{obs}, not among the notes shown"
            elif address not in owners:
                why = f"withdraws #{obs} at {address}, not an owner's entry shown"
            else:
                why = retraction.withdraw_for_model(record, b.held[obs], owners[address], address, now,
                                                    report)
            if why is not None:
                report.refused.append(f"{where}: {why}")
        retraction.apply(record, session, said, now, report)
        table.advance(record, session, end, iso(now))


def _supersede(record: Record, b: _Batch, kept: tuple[Kept, int], note: Draft, report: ObserveReport,
               now: datetime) -> None:
    """The held notes a new note replaces name it (`superseded_by`): only ones shown, said before it, and
    only by a note added or reinforced that is current (one kept retired or a duplicate of a note out of
    the current set would leave neither current)."""
    how, obs = kept
    new = table.read(record, [obs])
    if how not in ("added", "reinforced") or not new or not new[0].current:
        report.refused.append(f"{b.where}: supersedes {', '.join(f'#{i}' for i in note.supersedes)} by "
                              f"#{obs}, which is not current ({how})")
        return
    newest = max((e for e in b.entries if f"s{b.session}#{e.seq}" in {s.address for s in note.sources}),
                 key=lambda e: e.seq, default=None)
    for old in note.supersedes:
        held = b.held.get(old)
        if held is None or old == obs:
            report.refused.append(f"{b.where}: supersedes #{old}, not among the notes shown")
            continue
        if newest is None or retraction.withdraw_check(record, held, newest) is not None:
            report.refused.append(f"{b.where}: supersedes #{old}, which cites words said after its note")
            continue
        table.update(record, old, superseded_by=obs, updated=iso(now))
        report.superseded += 1


def parse(text: str) -> list[Draft | str]:
    """The notes of a reply, each a draft or why it was refused.

    Raises:
        ReplyMalformed: the reply is not a JSON object with an `observations` list.
    """
    body = text.strip()
    if m := _FENCED.fullmatch(body):
        body = m.group(1)
    try:
        data = json.loads(body)
    except ValueError as exc:
        raise ReplyMalformed(f"not JSON ({exc.args[0] if exc.args else exc})") from None
    if not isinstance(data, dict) or not isinstance(data.get("observations"), list):
        raise ReplyMalformed('not an object with an "observations" list')
    return [_note(n, item) for n, item in enumerate(data["observations"], 1)]


def parse_withdrawals(text: str) -> list[tuple[int, str] | str]:
    """The reply's `withdraw` list: (id, address) each, or why one was refused.

    Raises:
        ReplyMalformed: `withdraw` is there and is not a list.
    """
    body = text.strip()
    if m := _FENCED.fullmatch(body):
        body = m.group(1)
    data = json.loads(body)  # parse() has read it already
    items = data.get("withdraw", []) if isinstance(data, dict) else []
    if not isinstance(items, list):
        raise ReplyMalformed('"withdraw" is not a list')
    out: list[tuple[int, str] | str] = []
    for n, item in enumerate(items, 1):
        if (isinstance(item, dict) and set(item) == {"id", "address"} and isinstance(item["id"], int)
                and not isinstance(item["id"], bool) and isinstance(item["address"], str)):
            out.append((item["id"], item["address"]))
        else:
            out.append(f'withdrawal {n} is not {{"id": <number>, "address": "s3#12"}}')
    return out


def _note(n: int, item: Any) -> Draft | str:
    if not isinstance(item, dict):
        return f"note {n} is not an object"
    if missing := _REQUIRED - set(item):
        return f"note {n} lacks {', '.join(sorted(missing))}"
    if unknown := set(item) - _NOTE_KEYS:
        return f"note {n} has unknown fields {', '.join(sorted(unknown))}"
    for name in ("text", "type", "priority", "source_type"):
        if not isinstance(item[name], str):
            return f"note {n}: {name} is not a string"
    confidence = item["confidence"]
    if isinstance(confidence, bool) or not isinstance(confidence, int | float):
        return f"note {n}: confidence is not a number"
    importance = item.get("importance")
    if importance is not None and (isinstance(importance, bool) or not isinstance(importance, int | float)):
        return f"note {n}: importance is not a number"
    supersedes = item.get("supersedes", [])
    if not isinstance(supersedes, list) or not all(
            isinstance(i, int) and not isinstance(i, bool) for i in supersedes):
        return f"note {n}: supersedes is not a list of ids"
    sources = item["sources"]
    if not isinstance(sources, list) or not all(
            isinstance(s, dict) and isinstance(s.get("address"), str) and isinstance(s.get("quote", ""), str)
            and set(s) <= {"address", "quote"} for s in sources):
        return f'note {n}: sources is not a list of {{"address", "quote"}}'
    return Draft(text=item["text"], priority=item["priority"], type=item["type"],
                 confidence=float(confidence), source_type=item["source_type"],
                 sources=tuple(Source(s["address"], s.get("quote", "")) for s in sources),
                 importance=None if importance is None else float(importance), origin="model",
                 supersedes=tuple(supersedes))


def render(session: int, e: MinedEntry) -> str:
    """One entry as the model is shown it: its address, its author, and its words (the owner's own
    only; his pastes and commands as stand-ins), secrets redacted."""
    if e.author == "owner":
        parts: list[str] = []
        for s in e.spans:
            words = e.text[s.start:s.end]
            if s.tag == "paste":
                parts.append(f"[pasted {len(words)} characters: not the owner's words]")
            elif s.tag == "command":
                parts.append(f"[command {words[:80]!r}]")
            elif not INJECTED.search(words):
                parts.append(words)
        body = "\n".join(parts)
    else:
        body = e.text if len(e.text) <= ENTRY_CHARS else e.text[:ENTRY_CHARS] + " […]"
    return f"s{session}#{e.seq} {e.author}: {redact(body)}"


def spend(provider: Provider, report: ObserveReport) -> dict[str, Any]:
    """What a run spent, and where the day stands against the caps."""
    day = provider.today()
    s = provider.settings
    return {"calls": report.calls, "tokens": report.tokens, "model": provider.model,
            "day_tokens": day.tokens, "day_cap": s.max_day_tokens, "call_cap": s.max_call_tokens}


def _batches(pieces: Sequence[tuple[int, str]], budget: int) -> Iterator[list[tuple[int, str]]]:
    """Consecutive pieces, as many as fit `budget` bytes (a piece larger than it goes alone, cut)."""
    batch: list[tuple[int, str]] = []
    size = 0
    for seq, text in pieces:
        n = len(text.encode("utf-8")) + 2
        if n > budget:
            text = text.encode("utf-8")[: budget - 16].decode("utf-8", "ignore") + " […]"
            n = budget
        if batch and size + n > budget:
            yield batch
            batch, size = [], 0
        batch.append((seq, text))
        size += n
    if batch:
        yield batch


def _commit_cursor(record: Record, session: int, last: int, now: datetime) -> None:
    with written(record):
        table.advance(record, session, last, iso(now))
