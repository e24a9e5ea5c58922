"""The model observer: new entries of a session sent to the configured model with a priority-based
compression prompt, the reply parsed strictly, every note verified before it is kept.

The prompt is a file the owner can edit: `observer-prompt.md` in the record home when it exists, else
the package's `prompts/observer.md`. The owner's entries are shown as his own words only: a paste or a
command is replaced by a bracketed stand-in, so the model is never shown someone else's imperative as
his. Entries go in batches that fit the provider's prompt budget, one call per batch; each batch's notes
and the cursor move commit together, so a model error (or a cap reached) keeps nothing of that batch and
leaves its entries for the next run. A reply that is not the JSON asked for is refused whole; a note
naming an entry not shown, or one the verifier refuses, is refused alone; all are reported.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from datetime import datetime
from importlib import resources
from pathlib import Path
from typing import Any

from total_recall.errors import LLMBudgetExceeded, LLMError
from total_recall.keeping.evicted import MinedEntry
from total_recall.llm.provider import Message, Provider
from total_recall.llm.redaction import redact
from total_recall.observing.keep import keep_counted
from total_recall.observing.observation import (
    INJECTED,
    Draft,
    ObserveReport,
    Source,
    iso,
    written,
)
from total_recall.observing.verifier import Verifier
from total_recall.record import observations as table
from total_recall.record.database import Record
from total_recall.record.observations import Pending

PROMPT_FILE = "observer-prompt.md"
MAX_NOTES = 40  # notes one reply may hold; the rest are refused
MAX_OUTPUT_TOKENS = 2_048
ENTRY_CHARS = 2_000  # characters of one agent message shown
_NOTE_KEYS = frozenset({"text", "type", "priority", "confidence", "source_type", "sources", "importance"})
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
        user = f"New entries of session s{p.number}:\n\n" + "\n\n".join(text for _, text in batch)
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
        except ReplyMalformed as exc:
            report.refused.append(f"{where}: the model's reply was refused whole: {exc}")
            report.errors.append(f"{where}: the model's reply is not the JSON asked for; nothing of it was "
                                 "written, its entries are read again next run")
            return
        _keep_batch(record, verifier, p.number, notes, shown, end, report, now, where)


def _keep_batch(record: Record, verifier: Verifier, session: int, notes: list[Draft | str], shown: set[str],
                end: int, report: ObserveReport, now: datetime, where: str) -> None:
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
            keep_counted(record, verifier, note, now, report)
        table.advance(record, session, end, iso(now))


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
    sources = item["sources"]
    if not isinstance(sources, list) or not all(
            isinstance(s, dict) and isinstance(s.get("address"), str) and isinstance(s.get("quote", ""), str)
            and set(s) <= {"address", "quote"} for s in sources):
        return f'note {n}: sources is not a list of {{"address", "quote"}}'
    return Draft(text=item["text"], priority=item["priority"], type=item["type"],
                 confidence=float(confidence), source_type=item["source_type"],
                 sources=tuple(Source(s["address"], s.get("quote", "")) for s in sources),
                 importance=None if importance is None else float(importance), origin="model")


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
