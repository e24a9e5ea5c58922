"""The observer: the owner's and the agent's entries new since its last run, per session, into
observations.

Each session has a cursor (the last entry read, `observation_cursors`); a run reads past it, observes,
and moves it in the same transaction as what it wrote, so a run killed or failed halfway keeps nothing
half-written and reads the same entries again next time. Passed over, with the cursor moved past them:
- sub-agent sessions (`relation = subagent`: Claude Code's subagents/ files, Codex's spawned threads,
  OpenClaw's child sessions) — their work reaches the owner through the main session;
- scheduled or automated ones, told by what the harness recorded of how the session was started: Codex's
  `originator` `codex_exec` or `source` `exec` (`codex exec`, what cron and scripts run), Claude Code's
  `entrypoint` `sdk-*` (headless `claude -p`), an OpenClaw session key naming `cron` or `heartbeat`;
- whatever the observer itself produced: the observations block `for_session_start` hands a harness is
  never read as the session's own words (the verifier refuses quotes from inside it too).
Without a model the mechanical observer runs; with one (`model`, a configured `Provider`) the model
observer does, within the provider's per-call and per-day caps.
With either, what the owner took back in the entries read retires the notes it names (`retraction`), and
a note resting only on words the owner rewound away from is retired; both in the run's transaction.
When the run kept new notes and the current ones pass the reflector's threshold (seed 002: 8,000 words),
the reflector runs after it (`reflected` in the report).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import datetime

from total_recall.errors import AddressError, MarkerError
from total_recall.keeping.evicted import MinedEntry, read_range
from total_recall.llm.provider import Provider
from total_recall.model import Address
from total_recall.observing import mechanical, model_observer, reflector, retraction
from total_recall.observing.keep import keep_counted
from total_recall.observing.observation import (
    ObserveReport,
    iso,
    utc_now,
    written,
)
from total_recall.observing.verifier import Verifier
from total_recall.record import observations as table
from total_recall.record.database import Record
from total_recall.record.observations import Pending

_AUTOMATED_ORIGINATORS = frozenset({"codex_exec"})
_AUTOMATED_SOURCES = frozenset({"exec"})
_AUTOMATED_KEYS = ("cron", "heartbeat")


def observe(record: Record, *, session: int | None = None, model: Provider | None = None,
            clock: Callable[[], datetime] = utc_now) -> ObserveReport:
    """Observe every session with entries new since the last run (or `session` alone).

    Refused notes and model errors are in the report, never raised: a run observes what it can.
    """
    started = time.perf_counter()
    report = ObserveReport(observer="mechanical" if model is None else "model")
    verifier = Verifier(record)
    for p in table.pending(record, session):
        now = clock()
        why = skipped_because(p)
        if why is not None:
            report.skip(why)
            _advance(record, p.number, p.entries, now)
            continue
        try:
            _, entries = read_range(record, Address(p.number, p.after + 1, p.entries))
        except (AddressError, MarkerError) as exc:
            report.errors.append(f"s{p.number}: {exc}")
            continue
        report.sessions += 1
        if model is None:
            _mechanical(record, verifier, p, entries, report, now)
        else:
            model_observer.observe_session(record, model, verifier, p, entries, report, now)
    if model is not None:
        report.cost = model_observer.spend(model, report)
    else:
        report.cost = {"calls": 0, "tokens": 0}
    if report.added and _reflection_due(record):
        reflected = reflector.reflect(record, threshold_words=reflector.THRESHOLD_WORDS, clock=clock)
        if reflected.backup is not None:
            report.reflected = reflected.to_json()
    report.seconds = time.perf_counter() - started
    return report


def _reflection_due(record: Record) -> bool:
    """Whether to run the reflector after a run that kept notes (it checks the size itself): not while the
    newest backup is a reflection taken when nearly as many notes were held (one that could not shorten
    them would only be tried again, pushing the other backups out)."""
    kept = table.backups(record)
    if not kept or kept[0][2] != "reflect":
        return True
    current = sum(1 for o in table.read(record) if o.current)
    return current > kept[0][3] * 1.1


def skipped_because(p: Pending) -> str | None:
    """Why the observer passes a session over (see the module's docstring), or None."""
    if p.relation == "subagent":
        return "subagent sessions"
    meta = p.meta
    if meta.get("originator") in _AUTOMATED_ORIGINATORS or meta.get("source") in _AUTOMATED_SOURCES:
        return "automated sessions"
    entrypoint = meta.get("entrypoint")
    if isinstance(entrypoint, str) and entrypoint.startswith("sdk"):
        return "automated sessions"
    key = meta.get("session_key")
    if isinstance(key, str) and any(k in key.lower() for k in _AUTOMATED_KEYS):
        return "automated sessions"
    return None


def _mechanical(record: Record, verifier: Verifier, p: Pending, entries: list[MinedEntry],
                report: ObserveReport, now: datetime) -> None:
    said = retraction.found(entries)
    drafts = retraction.without_retractions(mechanical.drafts(p.number, entries, from_start=p.after == 0),
                                            said, p.number)
    report.entries += len(entries)
    with written(record):
        for draft in drafts:
            keep_counted(record, verifier, draft, now, report)
        retraction.apply(record, p.number, said, now, report)
        retraction.rewound(record, p.number, now, report)
        table.advance(record, p.number, p.entries, iso(now))


def _advance(record: Record, session: int, last: int, now: datetime) -> None:
    with written(record):
        table.advance(record, session, last, iso(now))
