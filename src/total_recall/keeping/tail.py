"""The verbatim tail (seed 003): what stays in the window word for word when the rest is compacted.

The tail is counted in whole exchanges: an owner message and everything after it up to the next owner
message. Keeping a reply without the question it answered leaves an answer to something unseen, and the
agent's own last outbound is often what it promised to do next, so an exchange is kept with both sides.
"""

from __future__ import annotations

from total_recall.errors import MarkerError
from total_recall.model import Address
from total_recall.record import queries
from total_recall.record.database import Record

# Two exchanges: the one in progress and the one before it, so the latest answer keeps its question.
DEFAULT_KEEP_EXCHANGES = 2


def tail_start(record: Record, session: int, keep_exchanges: int = DEFAULT_KEEP_EXCHANGES) -> int | None:
    """The entry number where the verbatim tail of the last `keep_exchanges` exchanges begins.

    None when the session holds no more than that many exchanges (or none at all: a session with no owner
    message is one exchange, kept whole). With `keep_exchanges` 0 the tail is empty: the entry after the
    last one.

    Raises:
        AddressError: no such session.
        MarkerError: `keep_exchanges` is negative.
    """
    if keep_exchanges < 0:
        raise MarkerError(f"--keep-exchanges must be 0 or more (got {keep_exchanges})")
    info = record.session(session)
    if keep_exchanges == 0:
        return info.entries + 1
    starts = queries.newest_owner_messages(record, session, keep_exchanges)
    if len(starts) < keep_exchanges:
        return None
    return starts[-1]


def evictable_range(
    record: Record, session: int, keep_exchanges: int = DEFAULT_KEEP_EXCHANGES
) -> Address | None:
    """Everything before the verbatim tail of the last `keep_exchanges` whole exchanges, or None when
    nothing precedes it.

    Raises:
        AddressError: no such session.
        MarkerError: `keep_exchanges` is negative.
    """
    start = tail_start(record, session, keep_exchanges)
    if start is None or start <= 1:
        return None
    return Address(session, 1, start - 1)
