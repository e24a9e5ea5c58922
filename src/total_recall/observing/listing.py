"""Finding observations: by words (their text and hooks, synonyms of the query's words included, so a
paraphrase finds them), by type and priority; current ones unless archived ones are asked for too; only
those whose sources the record still shows, as the export and the SessionStart block hand them out (one
citing a quarantined entry comes back when the entry is released)."""

from __future__ import annotations

from typing import Any

from total_recall.observing.observation import PRIORITIES, ObservationRejected
from total_recall.observing.phrasing import SYNONYMS, content_words
from total_recall.observing.verifier import Verifier
from total_recall.record import observations as table
from total_recall.record.database import Record
from total_recall.record.observations import Observation

SEARCH_LIMIT = 200


def observations(record: Record, query: str | None = None, type: str | None = None,
                 priority: str | None = None, archived: bool = False,
                 limit: int = SEARCH_LIMIT, shown: bool = True) -> list[Observation]:
    """Observations matching `query` (best first) or all of them (highest priority and importance
    first); `archived`: archived, superseded and retired ones too, not only current ones. Withdrawn ones
    never, nor, with `shown`, one citing an entry in quarantine (or a quote its entry no longer holds): a
    listing reaches a model's window, which quarantine keeps the entry's words out of. A caller checking only
    the few it keeps passes shown=False and checks those with `holds`."""
    if query and query.strip():
        words = content_words(query) or query.lower().split()
        expanded = list(dict.fromkeys([*words, *(s for w in words for s in SYNONYMS.get(w, ()))]))
        # A word such as db2.internal is searched by its parts: the index holds no whole (search drops it).
        expanded += [p for w in expanded for p in "".join(c if c.isalnum() else " " for c in w).split()]
        ids = table.search(record, expanded, max(limit * 4, limit))
        found = {o.id: o for o in table.read(record, ids)}
        rows = [found[i] for i in ids if i in found]
    else:
        rows = sorted(table.read(record), key=lambda o: (_rank(o.priority), -o.importance, -o.id))
    verifier = Verifier(record) if shown else None
    out: list[Observation] = []
    for o in rows:
        if len(out) >= limit:
            break
        if ((archived or o.current) and (type is None or o.type == type)
                and (priority is None or o.priority == priority)
                and (verifier is None or holds(verifier, o))):
            out.append(o)
    return out


def holds(verifier: Verifier, o: Observation) -> bool:
    """Whether what it cites is still shown by the record (a quarantined entry's words stay out)."""
    try:
        verifier.recheck(o)
    except ObservationRejected:
        return False
    return True


def observation_json(o: Observation) -> dict[str, Any]:
    """An observation as scripts read it (`--json`)."""
    return {"id": o.id, "text": o.text, "priority": o.priority, "type": o.type,
            "confidence": round(o.confidence, 3), "source_type": o.source_type,
            "importance": round(o.importance, 3), "addresses": o.addresses,
            "quotes": [{"address": c.address, "quote": c.quote} for c in o.sources if c.quote],
            "created": o.created, "updated": o.updated, "seen": o.seen, "archived": o.archived,
            "superseded_by": o.superseded_by, "hooks": list(o.hooks), "origin": o.origin,
            "retired": None if o.retired_at is None else {"at": o.retired_at, "reason": o.retired_reason,
                                                          "by": o.retired_by}}


def _rank(priority: str) -> int:
    return PRIORITIES.index(priority) if priority in PRIORITIES else len(PRIORITIES)
