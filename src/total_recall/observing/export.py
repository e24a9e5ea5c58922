"""Observations handed out: `observations.md` for an OpenClaw workspace, and the block a harness's
SessionStart adds to a new session's context (`for_session_start`), within a stated token cap.

Both carry current observations only, each with the addresses it came from; the block is wrapped in
BLOCK_OPEN … BLOCK_CLOSE, which the observer never reads as a session's own words. An exported file lies
outside the record: an erase withdraws the observation in the record, and the next export leaves it out.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from total_recall.observing.listing import observations
from total_recall.observing.observation import (
    BLOCK_CLOSE,
    BLOCK_OPEN,
    PRIORITIES,
    ObservationRejected,
    iso,
    utc_now,
)
from total_recall.observing.verifier import Verifier
from total_recall.record import observations as table
from total_recall.record.database import Record
from total_recall.record.observations import Observation
from total_recall.tokens import estimate_tokens

EXPORT_NAME = "observations.md"
SESSION_START_TOKENS = 1_500


def export(record: Record, path: Path, *, clock: Callable[[], datetime] = utc_now) -> tuple[Path, int]:
    """Write the current observations as markdown to `path` (a folder, or a name without a suffix, gets
    `observations.md`), replacing
    the file whole; returns the file written and how many observations it holds."""
    target = path / EXPORT_NAME if path.is_dir() or not path.suffix else path
    rows = _shown(record, observations(record, limit=1_000_000))
    lines = ["# Observations", "",
             f"_Distilled by Total Recall from its record at {iso(clock())}; each note names the entries it "
             "came from (`total-recall read s3#12`)._", ""]
    for priority in PRIORITIES:
        chosen = [o for o in rows if o.priority == priority]
        if not chosen:
            continue
        lines += [f"## {priority.capitalize()} priority", ""]
        for o in chosen:
            lines.append(f"- {o.text} ({', '.join(o.addresses[:6])})")
            lines.append(f"  <!-- id:{o.id} type:{o.type} confidence:{o.confidence:.2f} "
                         f"source:{o.source_type} importance:{o.importance:.2f} seen:{o.seen[:10]} -->")
        lines.append("")
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(target.name + ".tmp")
    tmp.write_text("\n".join(lines), encoding="utf-8")
    os.replace(tmp, target)
    return target, len(rows)


def for_session_start(record: Record, cwd: str | None, cap_tokens: int = SESSION_START_TOKENS) -> str:
    """The highest-priority current observations, rules first and those of the project at `cwd` before
    others, within `cap_tokens` (the block's own lines included); '' when there are none."""
    rows = observations(record, limit=1_000_000)
    cwds = table.session_cwds(record, [o.id for o in rows])
    here = (cwd or "").rstrip("/")

    def order(o: Observation) -> tuple[int, int, int, float]:
        same = bool(here) and (cwds.get(o.id) or "").rstrip("/") == here
        rank = PRIORITIES.index(o.priority) if o.priority in PRIORITIES else len(PRIORITIES)
        return (0 if o.type == "rule" else 1, rank, 0 if same else 1, -o.importance)

    rows.sort(key=lambda o: o.seen, reverse=True)  # the newest first among equals (the sort is stable)
    rows.sort(key=order)
    head = (f"{BLOCK_OPEN}\nWhat Total Recall observed in earlier sessions, highest priority first (within "
            f"{cap_tokens:,} tokens); each names the entries it came from:")
    used = estimate_tokens(head) + estimate_tokens(BLOCK_CLOSE) + 2
    lines: list[str] = []
    verifier = Verifier(record)
    left = 0
    for o in rows:
        line = f"- {o.type} · {o.priority}: {o.text} [{', '.join(o.addresses[:3])}]"
        cost = estimate_tokens(line) + 1
        if used + cost > cap_tokens:
            left += 1
            continue
        if not _holds(verifier, o):
            continue
        lines.append(line)
        used += cost
    if not lines:
        return ""
    tail = [f"({left} more not shown: `total-recall observations`)"] if left else []
    body = [head, *lines]
    if tail and used + estimate_tokens(tail[0]) + 1 <= cap_tokens:
        body += tail
    return "\n".join([*body, BLOCK_CLOSE])


def _shown(record: Record, rows: list[Observation]) -> list[Observation]:
    verifier = Verifier(record)
    return [o for o in rows if _holds(verifier, o)]


def _holds(verifier: Verifier, o: Observation) -> bool:
    """Whether what it cites is still shown by the record (a quarantined entry's words stay out)."""
    try:
        verifier.recheck(o)
    except ObservationRejected:
        return False
    return True

