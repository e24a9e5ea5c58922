"""The push by meaning: the owner's message compared with each asset's key vectors (MiniLM, the vectors
extra, `indexes.vectors`).

A rebuild embeds every use key and every asset's name and description (`key_vectors`); the push asks
`nearest` for each asset's best cosine against the message. Loading the model costs ~0.8 s, so only a
process that keeps it (the MCP server, the CLI, an agent on the package) pushes by meaning; the per-prompt
hook asks the running server (`channel.py`) or pushes by words. The vectors are read once per process
and build (kept until the index changes), as an integer matrix: a push costs one embedding (~6 ms) and one
matrix product.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from total_recall.assets.eligibility import Reader
from total_recall.record import assets as table
from total_recall.record.database import Record

# The cosine a message must reach with an asset's key to push it by meaning: fitted on the bench's `fit`
# half (bench/fit_push.py --seed 3), the lowest bar keeping ≥ 85 % of the requests no asset serves empty
# (80 % is the floor; the margin is for phrasings the fit never saw). A served request's best cosine and
# an unserved one's overlap (medians 0.27 and 0.26 there): the bar, not the ranking, limits this push.
MEANING_BAR = 0.38
# Once an asset clears a bar, the others whose cosine reaches this one join the push (up to five in all):
# the bar above decides whether the owner's assets serve the message at all, this one which of them may.
# Fitted on the same half: the lowest cosine from which such a companion is the asset wanted at least one
# time in twenty (5 %); at the seed's prices a pointer (~170 base tokens over its life) pays for itself
# when it saves one search (~11,000) in 65.
COMPANION_BAR = 0.25
# A path says where, not what for; and the model would read the owner's home folder into every key.
_PATH = re.compile(r"\S*/\S*")
# How many of the nearest assets a push looks at (eligibility may drop some).
NEAREST = 20


@dataclass(frozen=True, slots=True)
class _Matrix:
    rows: tuple[table.VectorRow, ...]
    vectors: Any  # int32 (the stored int8), len(rows) × 384
    own: Any  # bool mask: the rows of an asset's own name and description


_matrices: dict[tuple[str, int, int], _Matrix] = {}


def usable(record: Record) -> bool:
    """Whether a push may go by meaning here: the index holds key vectors and the extra loads (the first
    call in a process loads the model)."""
    from total_recall.indexes import vectors

    return table.vector_count(record) > 0 and vectors.available()


def key_vectors(texts: Iterable[str], known: Mapping[str, bytes]) -> dict[str, bytes]:
    """int8 vectors for `texts`, reusing those `known` already holds; {} without the extra."""
    from total_recall.indexes import vectors

    if not vectors.available():
        return {}
    wanted = sorted({t for t in texts if t.strip()})
    out = {t: known[t] for t in wanted if t in known}
    fresh = [t for t in wanted if t not in out]
    for text in fresh:
        # One at a time: in a batch the padding its neighbours bring moves the last digits, and a key's
        # vector must not depend on which other keys the record holds (a sub-agent's push equals a twin's).
        out[text] = embedded(_PATH.sub(" ", text))
    return out


def embedded(words: str) -> bytes:
    """The int8 vector of a message, to compare with the keys (`nearest`, `cosines`)."""
    from total_recall.indexes import vectors

    return vectors.quantize(vectors.embed([words]))[0]


def nearest(record: Record, build: table.Build, words: str, reader: Reader, *, own_only: bool = False,
            query: bytes | None = None) -> dict[int, float]:
    """The best cosine of each of the nearest assets' keys with `words` (a reader sees only the keys of its
    scopes; a key whose entry or correction is erased or quarantined counts for nothing). `own_only`: only
    each asset's name and description (the bench's baseline). `query`: `words` already `embedded`."""
    matrix = _matrix(record, build)
    if not matrix.rows:
        return {}
    import numpy as np

    # In integers, as stored: exact, so an asset's cosine does not depend on which other rows the matrix
    # holds (a sub-agent's push must equal a twin record's to the last digit).
    asked = np.frombuffer(query if query is not None else embedded(words), np.int8).astype(np.int32)
    cosines = (matrix.vectors @ asked) / (127.0 * 127.0)
    visible = np.ones(len(matrix.rows), bool) if not own_only else matrix.own.copy()
    if reader.scopes is not None:
        # A row counts only where the reader may see both its key and its asset: an asset out of scope must
        # not even take one of the NEAREST places (a twin record that never held it would give it to another).
        scopes = reader.scopes
        visible &= np.array([all(s is None or s in scopes for s in (r.scope, r.asset_scope))
                             for r in matrix.rows], bool)
    cosines = np.where(visible, cosines, -1.0)
    out: dict[int, float] = {}
    held = _held(record, matrix.rows, cosines)
    for i in np.argsort(-cosines):
        if cosines[i] < 0 or len(out) >= NEAREST:
            break
        row = matrix.rows[int(i)]
        if row.asset in out or row.entry in held or row.via in held:
            continue
        out[row.asset] = float(cosines[i])
    return out


def cosines(query: bytes, texts: Sequence[str]) -> list[float]:
    """The cosine of an `embedded` message with each of `texts` (keys not in the index yet: the overlay's),
    each text embedded as a rebuild embeds a key, and kept for the process."""
    import numpy as np

    asked = np.frombuffer(query, np.int8).astype(np.int32)
    keys = [np.frombuffer(_key_vector(t), np.int8).astype(np.int32) for t in texts]
    return [float(key @ asked) / (127.0 * 127.0) for key in keys]


@lru_cache(maxsize=512)
def _key_vector(text: str) -> bytes:
    return embedded(_PATH.sub(" ", text))


def _held(record: Record, rows: Sequence[table.VectorRow], cosines: Any) -> set[int | None]:
    """The erased or quarantined entries among the keys that might be pushed (those near a bar)."""
    entries = {e for i, r in enumerate(rows) if cosines[i] >= min(COMPANION_BAR, MEANING_BAR) / 2
               for e in (r.entry, r.via) if e is not None}
    return set(table.held_back(record, entries)) if entries else set()


def _matrix(record: Record, build: table.Build) -> _Matrix:
    from total_recall.indexes import vectors

    cache = (str(record.path), build.id, table.vector_count(record))
    if (hit := _matrices.get(cache)) is not None:
        return hit
    rows = tuple(table.asset_vectors(record))
    import numpy as np

    ints = np.frombuffer(b"".join(r.vec for r in rows), np.int8).reshape(len(rows), vectors.DIM)
    found = _Matrix(rows, ints.astype(np.int32), np.array([r.key is None for r in rows], bool))
    _matrices.clear()  # one record's index at a time: a process rarely serves two
    _matrices[cache] = found
    return found
