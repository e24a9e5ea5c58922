"""What every reader shares: sources, cursors, and the JSONL line loop.

A reader never writes to a store. It discovers `Source`s under a root and turns one source, from a
`Cursor` on, into a stream of items: `SessionDraft`s, `EntryDraft`s, `ReadWarning`s and `Checkpoint`s.
The sync commits everything before a checkpoint together with the checkpoint's cursor, so an
interrupted sync resumes exactly where the last commit left it.
"""

from __future__ import annotations

import hashlib
import io
import os
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any, ClassVar, Literal

import orjson

from total_recall.errors import SourceError
from total_recall.model import EntryDraft, ReadWarning, SessionDraft

# How much consumed text the cursor fingerprints to notice a source rewritten under it.
CHECK_BYTES = 4096
# Commit about this often while reading one large file.
CHECKPOINT_BYTES = 8 << 20
READ_CHUNK = 1 << 20
ZSTD_MAGIC = 0xFD2FB528


@dataclass(frozen=True, slots=True)
class Source:
    """One thing a reader reads: a JSONL file, a SQLite database, or a folder tree.

    `key` is the source's stable identity in the record (a Codex rollout keeps its key when it is
    compressed to `.jsonl.zst`); `path` is what to open now.
    """

    harness: str
    key: str
    path: Path
    kind: Literal["jsonl", "sqlite", "tree"] = "jsonl"


@dataclass(slots=True)
class Cursor:
    """How far a source has been read. `offset` counts decompressed bytes through the last whole line."""

    offset: int = 0
    line: int = 0
    check: str = ""
    state: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Checkpoint:
    cursor: Cursor


Item = SessionDraft | EntryDraft | ReadWarning | Checkpoint


class Reader(ABC):
    """One harness's reader."""

    harness: ClassVar[str]

    @abstractmethod
    def sources(self, root: Path) -> Iterator[Source]:
        """Every source under `root`, in a stable order. A root may also be a single file."""

    @abstractmethod
    def read(self, source: Source, cursor: Cursor) -> Iterator[Item]:
        """Items from `cursor` on; ends with a Checkpoint holding the new cursor.

        Raises:
            SourceError: the payload cannot be read (names the path).
        """

    def fingerprint(self, source: Source) -> str:
        """A cheap value that changes whenever the source may have changed (size and mtime)."""
        return stat_fingerprint(source.path)

    def unchanged_prefix(self, source: Source, cursor: Cursor) -> bool:
        """Whether the bytes already read are still there, unchanged (else: a new generation)."""
        return True


def stat_fingerprint(*paths: Path) -> str:
    parts = []
    for p in paths:
        try:
            st = p.stat()
        except FileNotFoundError:
            parts.append("-")
            continue
        parts.append(f"{st.st_size}:{st.st_mtime_ns}")
    return "|".join(parts)


def open_payload(path: Path) -> IO[bytes]:
    """Open a file for reading bytes, decompressing `.zst` on the fly.

    Raises:
        SourceError: the file cannot be opened.
    """
    try:
        fh: IO[bytes] = open(path, "rb")  # noqa: SIM115 - handed to the caller
    except OSError as exc:
        raise SourceError(f"{path}: cannot open: {exc.strerror or exc}") from exc
    if path.name.endswith(".zst"):
        import zstandard

        reader = zstandard.ZstdDecompressor().stream_reader(fh, read_across_frames=True, closefd=True)
        return io.BufferedReader(reader, buffer_size=READ_CHUNK)
    return fh


def check_of(head: bytes, tail: bytes) -> str:
    return hashlib.blake2b(head + b"\0" + tail, digest_size=12).hexdigest()


def _window(head: bytes, tail: bytes, offset: int) -> str:
    """Fingerprint of a prefix of `offset` bytes from its first and last few KiB (never overlapping)."""
    head = head[: min(offset, CHECK_BYTES)]
    tail_len = min(CHECK_BYTES, offset - len(head))
    return check_of(head, tail[len(tail) - tail_len :] if tail_len > 0 else b"")


def _seek_to(fh: IO[bytes], path: Path, offset: int) -> tuple[bytes, bytes]:
    """Position `fh` at `offset`, returning the head and tail windows of the bytes before it.

    Raises:
        SourceError: the payload is shorter than `offset`.
    """
    head = fh.read(min(offset, CHECK_BYTES))
    tail_start = max(len(head), offset - CHECK_BYTES)
    if path.name.endswith(".zst"):
        _skip(fh, tail_start - len(head), path)
    else:
        fh.seek(tail_start)
    tail = fh.read(offset - tail_start)
    if len(head) < min(offset, CHECK_BYTES) or len(tail) < offset - tail_start:
        raise SourceError(f"{path}: payload is shorter than the {offset} bytes already read")
    return head, tail


def _skip(fh: IO[bytes], n: int, path: Path) -> None:
    while n > 0:
        got = fh.read(min(n, READ_CHUNK))
        if not got:
            raise SourceError(f"{path}: payload is shorter than the bytes already read")
        n -= len(got)


def read_check(path: Path, offset: int) -> str:
    """The fingerprint of the first `offset` bytes of a payload.

    Raises:
        SourceError: the payload is unreadable or shorter than `offset`.
    """
    with open_payload(path) as fh:
        head, tail = _seek_to(fh, path, offset)
    return _window(head, tail, offset)


@dataclass(frozen=True, slots=True)
class Line:
    """One complete JSONL line: its 1-based number, its bytes (no newline) and the parsed object."""

    number: int
    raw: bytes
    obj: dict[str, Any]


class JsonlReader(Reader):
    """A reader whose sources are JSONL files; subclasses turn one parsed line into items."""

    def read(self, source: Source, cursor: Cursor) -> Iterator[Item]:
        yield from self.begin(source, cursor)
        for item in iter_jsonl(source.path, cursor):
            if isinstance(item, Line):
                yield from self.parse(source, item)
            else:
                yield item

    def begin(self, source: Source, cursor: Cursor) -> Iterator[Item]:
        """Items that come before the lines (a session header from a sidecar file, say)."""
        return iter(())

    @abstractmethod
    def parse(self, source: Source, line: Line) -> Iterator[Item]:
        """The items of one line."""

    def unchanged_prefix(self, source: Source, cursor: Cursor) -> bool:
        if cursor.offset == 0:
            return True
        try:
            return read_check(source.path, cursor.offset) == cursor.check
        except SourceError:
            return False  # shorter than what was read: a rewrite; the read reports real damage
        except Exception:  # a broken compressed payload: the same
            return False


def iter_jsonl(path: Path, cursor: Cursor) -> Iterator[Line | ReadWarning | Checkpoint]:
    """The complete lines of a JSONL payload from `cursor` on, then a final Checkpoint.

    A malformed line is skipped with a warning naming file and line. A last line with no newline is
    taken only when it parses as a whole JSON object; otherwise it is a write in progress and is
    left for the next sync.

    Raises:
        SourceError: the payload cannot be opened or decompressed.
    """
    name = str(path)
    offset = cursor.offset
    line_no = cursor.line
    with open_payload(path) as fh:
        try:
            head, tail = _seek_to(fh, path, offset) if offset else (b"", b"")
            pending = b""
            since_checkpoint = 0
            while True:
                chunk = fh.read(READ_CHUNK)
                if not chunk:
                    break
                data = pending + chunk if pending else chunk
                lines = data.split(b"\n")
                pending = lines.pop()
                for raw in lines:
                    line_no += 1
                    item = _parse_line(name, line_no, raw)
                    if item is not None:
                        yield item
                consumed = len(data) - len(pending)
                offset += consumed
                since_checkpoint += consumed
                if len(head) < CHECK_BYTES:
                    head = (head + data[: min(consumed, CHECK_BYTES)])[:CHECK_BYTES]
                tail = (tail + data[max(0, consumed - CHECK_BYTES) : consumed])[-CHECK_BYTES:]
                if since_checkpoint >= CHECKPOINT_BYTES:
                    since_checkpoint = 0
                    yield Checkpoint(Cursor(offset, line_no, _window(head, tail, offset)))
        except SourceError:
            raise
        except Exception as exc:  # zstd and OS errors surface here
            raise SourceError(f"{path}: cannot read past byte {offset}: {exc}") from exc
    if path.name.endswith(".zst"):
        # zstandard's stream reader ends quietly at a cut frame; a truncated payload must not pass for
        # a finished one, so the final cursor is only handed over once the frames are whole.
        check_zstd_complete(path)
    if pending.strip():
        try:
            obj = orjson.loads(pending)
        except orjson.JSONDecodeError:
            obj = None  # a write in progress: leave it for the next sync
        if isinstance(obj, dict):
            line_no += 1
            offset += len(pending)
            if len(head) < CHECK_BYTES:
                head = (head + pending[:CHECK_BYTES])[:CHECK_BYTES]
            tail = (tail + pending[-CHECK_BYTES:])[-CHECK_BYTES:]
            yield Line(line_no, pending.rstrip(b"\r"), obj)
    yield Checkpoint(Cursor(offset, line_no, _window(head, tail, offset)))


def check_zstd_complete(path: Path) -> None:
    """Walk the zstd frame and block headers; raise unless the payload ends exactly at a frame end.

    Raises:
        SourceError: the payload is cut inside a frame or is not zstd.
    """
    try:
        with open(path, "rb") as fh:
            size = os.fstat(fh.fileno()).st_size
            pos = 0
            while pos < size:
                fh.seek(pos)
                head = fh.read(18)
                magic = int.from_bytes(head[:4], "little")
                if len(head) >= 8 and 0x184D2A50 <= magic <= 0x184D2A5F:  # a skippable frame
                    pos += 8 + int.from_bytes(head[4:8], "little")
                    continue
                if len(head) < 5 or magic != ZSTD_MAGIC:
                    raise SourceError(f"{path}: truncated or not zstd at byte {pos}")
                fhd = head[4]
                single = (fhd >> 5) & 1
                pos += 5 + (0 if single else 1) + (0, 1, 2, 4)[fhd & 3] + (single, 2, 4, 8)[fhd >> 6]
                while True:
                    fh.seek(pos)
                    block = fh.read(3)
                    if len(block) < 3:
                        raise SourceError(f"{path}: truncated zstd payload (cut inside a frame)")
                    value = int.from_bytes(block, "little")
                    pos += 3 + (1 if (value >> 1) & 3 == 1 else value >> 3)
                    if value & 1:
                        break
                pos += 4 if (fhd >> 2) & 1 else 0
            if pos > size:
                raise SourceError(f"{path}: truncated zstd payload (cut inside a frame)")
    except OSError as exc:
        raise SourceError(f"{path}: cannot open: {exc.strerror or exc}") from exc




def _parse_line(name: str, line_no: int, raw: bytes) -> Line | ReadWarning | None:
    if not raw.strip():
        return None
    if raw.endswith(b"\r"):
        raw = raw[:-1]
    try:
        obj = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        return ReadWarning(name, f"not JSON ({exc.msg})", line_no)
    if not isinstance(obj, dict):
        return ReadWarning(name, f"not a JSON object (a {type(obj).__name__})", line_no)
    return Line(line_no, raw, obj)


def file_sources(harness: str, root: Path, patterns: tuple[str, ...]) -> Iterator[Source]:
    """JSONL sources under a root (or the root itself when it is a file), sorted by path.

    A `.jsonl.zst` is skipped when the plain `.jsonl` beside it exists; both share the plain key.
    """
    if root.is_file():
        candidates = [root]
    else:
        # By string, so a transcript `<id>.jsonl` comes before its `<id>/subagents/` children.
        candidates = sorted({p for pat in patterns for p in root.rglob(pat) if p.is_file()}, key=str)
    plain = {str(p) for p in candidates if not p.name.endswith(".zst")}
    for p in candidates:
        key = str(p)
        if p.name.endswith(".zst"):
            key = key[: -len(".zst")]
            if key in plain:
                continue
        yield Source(harness, key, p, "jsonl")


def json_text(value: Any) -> str:
    """A compact, readable JSON rendering of a value, for entries whose content is structured."""
    if isinstance(value, str):
        return value
    try:
        return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()
    except TypeError:
        return str(value)


def content_key(*parts: object) -> str:
    """A short stable hash for entries that have no native id of their own."""
    h = hashlib.blake2b(digest_size=10)
    for part in parts:
        h.update(part if isinstance(part, bytes) else str(part).encode())
        h.update(b"\0")
    return h.hexdigest()


def base64_size(data: str) -> int:
    """Decoded size of base64 text (a `data:` URL's payload included), without decoding it."""
    data = (data.split(",", 1)[1] if data.startswith("data:") else data).strip()
    return len(data) * 3 // 4 - (len(data) - len(data.rstrip("=")))


def join_blocks(content: Any, render: Callable[[dict[str, Any]], str]) -> str:
    """Message content as text: a string verbatim, a block list rendered block by block and joined
    with newlines (string blocks as they are), anything else as JSON."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return json_text(content)
    return "\n".join(
        block if isinstance(block, str) else render(block) if isinstance(block, dict) else json_text(block)
        for block in content
    )


def epoch_iso(value: Any, unit: Literal["auto", "ms"] = "auto") -> str | None:
    """An epoch time as `YYYY-MM-DDTHH:MM:SS.mmmZ`; with "auto", values past 1e11 are milliseconds."""
    if not isinstance(value, int | float) or isinstance(value, bool) or value <= 0:
        return None
    seconds = value / 1000 if unit == "ms" or value > 1e11 else value
    try:
        moment = datetime.fromtimestamp(seconds, UTC)
    except (OverflowError, OSError, ValueError):
        return None
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def is_readable_dir(path: Path) -> bool:
    return path.is_dir() and os.access(path, os.R_OK | os.X_OK)
