"""Closeness in meaning of a query to entries, read from the vectors `indexes/vectors.py` made.

Needs the optional extra `total-recall[vectors]`; without it (or without any vector in the record)
search ranks by words and exact strings alone.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from total_recall.indexes import vectors


def ready(db: sqlite3.Connection) -> bool:
    """Whether the record holds vectors and the model can embed a query."""
    return vectors.any_stored(db) and vectors.available()  # the model loads only when there is something


def similarity(db: sqlite3.Connection, query: str, ids: Sequence[int]) -> dict[int, float]:
    """Cosine similarity of the query to each of these entries that has a vector."""
    if not ids:
        return {}
    rows = vectors.stored(db, ids)
    if not rows:
        return {}
    scores = vectors.dequantize([vec for _, vec in rows]) @ vectors.embed([query])[0]
    return {int(entry): float(v) for (entry, _), v in zip(rows, scores, strict=True)}
