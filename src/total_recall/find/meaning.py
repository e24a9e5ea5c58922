"""Closeness in meaning of a query to entries, read from the vectors `indexes/vectors.py` made.

Needs the optional extra `total-recall[vectors]`; without it (or without any vector in the record)
search ranks by words and exact strings alone.
"""

from __future__ import annotations

from collections.abc import Sequence

from total_recall.indexes import vectors
from total_recall.record import queries
from total_recall.record.database import Record


def ready(record: Record) -> bool:
    """Whether the record holds vectors and the model can embed a query."""
    # The model loads only when there is something to compare with.
    return queries.holds_vectors(record) and vectors.available()


def similarity(record: Record, query: str, ids: Sequence[int]) -> dict[int, float]:
    """Cosine similarity of the query to each of these entries that has a vector."""
    if not ids:
        return {}
    rows = queries.vectors_of(record, ids)
    if not rows:
        return {}
    scores = vectors.dequantize([vec for _, vec in rows]) @ vectors.embed([query])[0]
    return {int(entry): float(v) for (entry, _), v in zip(rows, scores, strict=True)}
