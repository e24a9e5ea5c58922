"""The source records (JSONL lines, rows as JSON) the record keeps beside its entries, zstd-compressed."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any


@functools.cache
def _zstd() -> tuple[Any, Any]:
    """The compressor and decompressor of source records, made on first use: opening the record for a
    read (the per-prompt hook) never needs them, and importing zstandard costs more than the read."""
    import zstandard

    return zstandard.ZstdCompressor(level=1), zstandard.ZstdDecompressor()


def pack(raws: Sequence[bytes]) -> list[bytes]:
    """Source records as the record stores them (zstd), compressed on every core at once."""
    if not raws:
        return []
    packed = _zstd()[0].multi_compress_to_buffer(list(raws), threads=-1)
    return [packed[n].tobytes() for n in range(len(raws))]


def unpack(blob: bytes) -> bytes:
    """A stored source record as it was read."""
    data: bytes = _zstd()[1].decompress(blob)
    return data


def unpack_raw(blob: bytes | None) -> bytes | None:
    return None if blob is None else unpack(blob)
