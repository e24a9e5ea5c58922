"""The facts of entries a searching process has already read: session, seq, author and kind.

They never change once an entry is recorded (the record is append-only; erase replaces only the text and
takes the entry out of every index, so search never asks for it again). A process that searches again and
again (the MCP server, `search --batch`) therefore reads an entry's facts once: on the benchmark's record,
63 % of the entries a query ranks were ranked by an earlier query. Only committed entries are remembered
(`search` inside a caller's transaction uses a fresh `Facts`): an id rolled back may be given again.
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence

from total_recall.indexes.entry_facts import Fact
from total_recall.record import queries
from total_recall.record.database import Record

# At most this many are kept (about 200 bytes each); when full, they are dropped and filling starts again.
CAPACITY = 100_000

_BY_STORE: weakref.WeakKeyDictionary[Record, Facts] = weakref.WeakKeyDictionary()


class Facts:
    """The facts read so far through one store."""

    def __init__(self) -> None:
        self._known: dict[int, Fact] = {}

    def of(self, record: Record, ids: Sequence[int]) -> list[Fact]:
        """The facts of `ids` that are in `entry_facts` (erased entries are not), in no particular
        order; only those not read before are looked up."""
        known = self._known
        found: list[Fact] = []
        missing: list[int] = []
        for entry_id in ids:
            fact = known.get(entry_id)
            if fact is None:
                missing.append(entry_id)
            else:
                found.append(fact)
        if not missing:
            return found
        if len(known) + len(missing) > CAPACITY:
            known.clear()
        room = CAPACITY - len(known)
        for fact in queries.facts_of(record, missing):  # tuples: lighter to keep than sqlite3.Row
            if room > 0:
                known[fact[0]] = fact
                room -= 1
            found.append(fact)
        return found


def of_store(record: Record) -> Facts:
    """The facts cache of `store`, made on first use; it goes with the store."""
    facts = _BY_STORE.get(record)
    if facts is None:
        facts = _BY_STORE[record] = Facts()
    return facts
