"""What every reader shares: sources, cursors, and the JSONL line loop.

A reader never writes to a store. It discovers `Source`s under a root and turns one source, from a
`Cursor` on, into a stream of items: `SessionDraft`s, `EntryDraft`s, `ReadWarning`s and `Checkpoint`s.
The sync commits everything before a checkpoint together with the checkpoint's cursor, so an
interrupted sync resumes exactly where the last commit left it.
"""

from __future__ import annotations

import fnmatch
import hashlib
import io
import json
import os
import re
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
# The longest JSONL line (bytes) a reader parses; a longer one is skipped with a warning as it streams
# past, so one runaway line costs neither quadratic time nor its size in memory. Documented in
# docs/READERS_CONTRACT.md and the README. OpenCode parts and messages share it. A line just under it
# takes a sync to ~290 MB of RSS (a 31 MB tool result: 282 MB; a 60 MB one: 486 MB, measured).
LINE_LIMIT = 32 << 20
ZSTD_MAGIC = 0xFD2FB528
UTF8_BOM = b"\xef\xbb\xbf"
_SURROGATE = re.compile("[\ud800-\udfff]")


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
    # How the reader labels the bookkeeping entries of the harness that carry a message of the session again
    # (`label: the message`), if it writes any: erase takes such an entry with the message it repeats.
    echo: ClassVar[re.Pattern[str] | None] = None

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


def iter_jsonl(
    path: Path, cursor: Cursor, *, limit: int = LINE_LIMIT
) -> Iterator[Line | ReadWarning | Checkpoint]:
    """The complete lines of a JSONL payload from `cursor` on, then a final Checkpoint.

    A malformed line is skipped with a warning naming file and line; text a strict parser refuses but
    that can be kept (a UTF-8 BOM, a lone surrogate escape, invalid UTF-8) is kept, with a warning. A
    line longer than `limit` bytes is skipped as it streams past (never held whole), with a warning
    naming its size, and the lines after it are read on. A last line with no newline is taken only
    when it parses as a whole JSON object; otherwise it is a write in progress and is left for the next
    sync (with a warning when it is already over the limit). Time is linear in the payload; memory is
    bounded by `limit` plus one read chunk.

    Raises:
        SourceError: the payload cannot be opened or decompressed.
    """
    name = str(path)
    offset = cursor.offset
    line_no = cursor.line
    parts: list[bytes] = []  # the line under way, joined once its newline comes (never re-joined)
    pending = 0  # bytes read past `offset`: the line under way
    skipping = False  # the line under way is over the limit: counted, not kept
    with open_payload(path) as fh:
        try:
            head, recent = _seek_to(fh, path, offset) if offset else (b"", b"")
            tail = recent  # the last bytes before `offset`; `recent`: before the next chunk
            # Resumed after a last line taken whole without its newline: the bytes up to the next newline end
            # that line (its newline, or a record appended to it), never a line of their own when blank.
            continuing = offset > 0 and not (recent or head).endswith(b"\n")
            since_checkpoint = 0
            while True:
                chunk = fh.read(READ_CHUNK)
                if not chunk:
                    break
                if len(head) < CHECK_BYTES:
                    head += chunk[: CHECK_BYTES - len(head)]
                end = chunk.rfind(b"\n") + 1  # through this chunk's last newline
                if end:
                    lines = chunk[: end - 1].split(b"\n")
                    bom = offset == 0 and not skipping  # the first of them is the payload's first
                    if skipping:
                        line_no += 1
                        yield _too_long(name, line_no, pending + len(lines[0]), limit)
                        del lines[0]
                    else:
                        if parts:
                            lines[0] = b"".join([*parts, lines[0]])
                        if continuing and not lines[0].strip():
                            del lines[0]
                    continuing = False
                    for raw in lines:
                        line_no += 1
                        if len(raw) > limit:
                            yield _too_long(name, line_no, len(raw), limit)
                        else:
                            items = _parse_line(name, line_no, raw, bom=bom)
                            line_no = _last_number(items, line_no)
                            yield from items
                        bom = False
                    parts, skipping = [], False
                    consumed = pending + end
                    offset += consumed
                    since_checkpoint += consumed
                    pending = 0
                    tail = (recent + chunk[:end])[-CHECK_BYTES:]
                rest = chunk[end:]
                if rest:
                    pending += len(rest)
                    if not skipping:
                        parts.append(rest)
                        if pending > limit:
                            parts, skipping = [], True
                recent = (recent[-CHECK_BYTES:] + chunk[-CHECK_BYTES:])[-CHECK_BYTES:]
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
    if skipping:
        why = f"a line of {pending} bytes so far with no newline yet is over the {limit}-byte line limit"
        yield ReadWarning(name, why + "; it will be skipped", line_no + 1)
    elif parts:
        items = _parse_line(name, line_no + 1, b"".join(parts), bom=offset == 0)
        # Taken only when all of it parses; else a write in progress (maybe after a record that lacked its
        # newline): left for later.
        if any(isinstance(item, Line) for item in items) and not any(
            isinstance(item, ReadWarning) and item.why.startswith(_NOT_JSON) for item in items
        ):
            line_no = _last_number(items, line_no + 1)
            offset += pending
            tail = recent
            yield from items
    yield Checkpoint(Cursor(offset, line_no, _window(head, tail, offset)))


def lines_before(path: Path, cursor: Cursor) -> Iterator[Line]:
    """The lines a read has passed to reach `cursor`, from the start: for a reader rebuilding, once, what it
    now keeps in the cursor state from a cursor saved before it kept it.

    Raises:
        SourceError: the payload cannot be opened or decompressed.
    """
    for item in iter_jsonl(path, Cursor()):
        if isinstance(item, Line):
            if item.number > cursor.line:
                return
            yield item


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




def _parse_line(name: str, line_no: int, raw: bytes, *, bom: bool = False) -> list[Line | ReadWarning]:
    """One line's items: its Line (after a warning when it had to be repaired), or why it was skipped."""
    if raw.endswith(b"\r"):
        raw = raw[:-1]
    if bom and raw.startswith(UTF8_BOM):
        raw = raw[len(UTF8_BOM) :]  # an editor's encoding mark, not part of the record
    if not raw.strip():
        return []
    try:
        obj, repaired = loads_lenient(raw)
    except ValueError as exc:
        return _records(name, line_no, raw) or [ReadWarning(name, f"{_NOT_JSON} ({exc})", line_no)]
    if not isinstance(obj, dict):
        return [ReadWarning(name, f"not a JSON object (a {type(obj).__name__})", line_no)]
    line = Line(line_no, raw, obj)
    return [line] if repaired is None else [ReadWarning(name, repaired + "; line kept", line_no), line]


def _records(name: str, line_no: int, raw: bytes) -> list[Line | ReadWarning]:
    """A line holding several JSON objects one after another: a record appended to a file whose last record
    had no newline (a harness killed, then resumed). Each object is a Line of its own, numbered on from
    `line_no` as a read resumed between them numbers them (so keys agree however the file was read); what
    follows the last object that parses is warned about. [] when the line does not start with two objects.
    """
    # surrogateescape: each record's bytes are the line's own, as a read resumed between them would see.
    text = raw.decode("utf-8", "surrogateescape")
    decoder = json.JSONDecoder()
    spans: list[tuple[int, int]] = []
    at = 0
    while at < len(text):
        try:
            _, end = decoder.raw_decode(text, at)
        except (ValueError, RecursionError):
            break
        spans.append((at, end))
        at = end
        while at < len(text) and text[at] in " \t":
            at += 1
    if len(spans) < 2 or not all(text[a] == "{" for a, _ in spans):
        return []
    out: list[Line | ReadWarning] = [ReadWarning(
        name, f"{len(spans)} JSON records on one line (one had no newline); read as lines {line_no}–"
        f"{line_no + len(spans) - 1}, the lines after it numbered on from there", line_no)]
    for n, (a, b) in enumerate(spans):
        out += _parse_line(name, line_no + n, text[a:b].encode("utf-8", "surrogateescape"))
    if at < len(text):
        out.append(ReadWarning(name, f"{_NOT_JSON} after its {len(spans)} records (from character {at})",
                               line_no + len(spans) - 1))
    return out


def _last_number(items: list[Line | ReadWarning], line_no: int) -> int:
    """The line number the read has reached after `items` (one line may have held several records)."""
    return max([line_no, *(item.number for item in items if isinstance(item, Line))])


_NOT_JSON = "not JSON"


def _too_long(name: str, line_no: int, size: int, limit: int) -> ReadWarning:
    return ReadWarning(name, f"a line of {size} bytes is over the {limit}-byte line limit; skipped", line_no)


def loads_lenient(raw: bytes) -> tuple[Any, str | None]:
    """JSON from bytes: strictly (orjson) when it can, else keeping what a strict parser refuses.

    Returns the value and, when it had to be repaired, what was done (invalid UTF-8 or a lone surrogate
    escape replaced by U+FFFD, a non-standard constant such as NaN read). Integers past 64 bits become
    floats, as orjson reads them.

    Raises:
        ValueError: the bytes are not JSON at all (the strict parser's reason).
    """
    try:
        return orjson.loads(raw), None
    except orjson.JSONDecodeError as exc:
        strict = exc.msg
    notes = []
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        text = raw.decode("utf-8", "replace")
        notes.append("invalid UTF-8 replaced by U+FFFD")
    try:
        obj = json.loads(text)
    except (ValueError, RecursionError):
        raise ValueError(strict) from None
    fixed = [0]
    obj = _mend(obj, fixed)
    if fixed[0]:
        notes.append(f"{fixed[0]} lone surrogate escape(s) replaced by U+FFFD")
    if not notes:
        notes.append(f"not strict JSON ({strict}), read leniently")
    return obj, ", ".join(notes)


def _mend(value: Any, fixed: list[int]) -> Any:
    """`value` with lone surrogates replaced (counted in `fixed`) and over-wide integers as floats."""
    if isinstance(value, str):
        mended, n = _SURROGATE.subn("\ufffd", value)
        fixed[0] += n
        return mended
    if isinstance(value, dict):
        return {_mend(k, fixed): _mend(v, fixed) for k, v in value.items()}
    if isinstance(value, list):
        return [_mend(v, fixed) for v in value]
    if isinstance(value, int) and not isinstance(value, bool) and not -(2**63) <= value < 2**64:
        return float(value)
    return value


def first_lines(path: Path, count: int = 1, limit: int = LINE_LIMIT) -> list[bytes]:
    """Up to `count` leading lines of a payload, for a cheap peek at a header; stops before a line over
    `limit` (never reads past it) and at the end of the payload.

    Raises:
        SourceError: the payload cannot be opened.
    """
    out: list[bytes] = []
    with open_payload(path) as fh:
        while len(out) < count:
            raw = fh.readline(limit + 1)
            if not raw or (len(raw) > limit and not raw.endswith(b"\n")):
                break
            out.append(raw)
    if out and out[0].startswith(UTF8_BOM):
        out[0] = out[0][len(UTF8_BOM) :]
    return out


def file_sources(harness: str, root: Path, patterns: tuple[str, ...]) -> Iterator[Source]:
    """JSONL sources under a root (or the root itself when it is a file), sorted by path.

    A `.jsonl.zst` is skipped when the plain `.jsonl` beside it exists; both share the plain key.

    Raises:
        OSError: some folder under `root` could not be listed (named in the message); raised once every
            source found elsewhere has been handed over.
    """
    failed: list[OSError] = []
    # By string, so a transcript `<id>.jsonl` comes before its `<id>/subagents/` children.
    candidates = [root] if root.is_file() else sorted(walk_files(root, patterns, failed), key=str)
    plain = {str(p) for p in candidates if not p.name.endswith(".zst")}
    for p in candidates:
        key = str(p)
        if p.name.endswith(".zst"):
            key = key[: -len(".zst")]
            if key in plain:
                continue
        yield Source(harness, key, p, "jsonl")
    if failed:
        raise unlisted(failed)


def walk_files(root: Path, patterns: tuple[str, ...], failed: list[OSError]) -> Iterator[Path]:
    """The files under `root` whose names match one of `patterns` (symlinked folders not followed); each
    folder that cannot be listed is added to `failed` instead of passing unseen, as a glob lets it."""

    def unreadable(exc: OSError) -> None:
        if not isinstance(exc, FileNotFoundError):  # removed while walking: nothing left to read
            failed.append(exc)

    for folder, _, names in os.walk(root, onerror=unreadable):
        for name in names:
            if any(fnmatch.fnmatchcase(name, pattern) for pattern in patterns):
                path = Path(folder, name)
                if path.is_file():
                    yield path


def unlisted(failed: list[OSError]) -> OSError:
    """One error naming every folder a walk could not list (the sync reports a reader's listing error)."""
    why = "; ".join(f"folder {exc.filename} is unreadable ({exc.strerror or exc})" for exc in failed)
    where = "it" if len(failed) == 1 else "them"
    return OSError(failed[0].errno, f"{why}; the sessions in {where} are not read")


def json_text(value: Any) -> str:
    """A compact, readable JSON rendering of a value, for entries whose content is structured."""
    if isinstance(value, str):
        return value
    try:
        return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()
    except TypeError:
        return str(value)


def tool_output(text: str) -> str:
    """A tool's output as the tool wrote it. Codex's shell and patch tools serialise their result into the
    output string as a JSON envelope, `{"output": "…", "metadata": {"exit_code": 0, "duration_seconds": …}}`;
    recorded as it is, every newline and quote of the output would read `\\n` and `\\"` in snippets, exact
    strings and markers. The envelope (exactly those two keys) is unwrapped here, the source record keeps
    it. A non-zero exit code stays, as a first line `Exit code: N` the way later Codex versions write it
    themselves: it is what says the call failed (`indexes.failures.failed` reads a head's exit line), and the
    duration is left to the source record. Migration m014 holds a frozen copy of this rule for entries
    recorded before it."""
    if text[:1] != "{" or '"metadata"' not in text or not text.rstrip().endswith("}"):
        return text
    try:
        obj = orjson.loads(text)
    except orjson.JSONDecodeError:  # not JSON after all, or a lone surrogate escape: kept as written
        return text
    if not isinstance(obj, dict) or set(obj) != {"output", "metadata"}:
        return text
    output, metadata = obj["output"], obj["metadata"]
    if not isinstance(output, str) or not isinstance(metadata, dict):
        return text
    code = metadata.get("exit_code")
    if isinstance(code, int) and not isinstance(code, bool) and code != 0:
        return f"Exit code: {code}\n{output}"
    return output


# A tool result its harness flagged failed (Claude Code's `is_error`, pi's `isError`) opens with this line
# when its text does not already say so, as a Codex result with a non-zero exit opens with `Exit code: N`:
# `indexes.failures.failed`, which reads only the text (the record keeps no flag), counts a result opening
# with an error. A line of its own, so the output's own error lines still tell what failed.
FLAGGED_FAILED = "Error"
_SAYS_FAILED = re.compile(
    r"(?:Error(?:\n|: )|<tool_use_error>|Exit code:? [1-9]|"
    r"The user doesn't want to proceed with this tool use)")


def flagged_failed(text: str) -> str:
    """The text of a tool result its harness flagged failed: as it is when it opens saying so, else after a
    first line `Error`."""
    return text if _SAYS_FAILED.match(text) else f"{FLAGGED_FAILED}\n{text}"


def content_key(*parts: object) -> str:
    """A short stable hash for entries that have no native id of their own."""
    h = hashlib.blake2b(digest_size=10)
    for part in parts:
        h.update(part if isinstance(part, bytes) else str(part).encode())
        h.update(b"\0")
    return h.hexdigest()


def distinct_key(seen: dict[str, str], key: str, raw: bytes) -> str:
    """`key`, or `key~<hash of raw>` when this read already gave `key` to a line with other bytes: a
    reused native id keeps its own entry instead of being merged away by the record as a replay.
    `seen` is the read's own memory of keys and line hashes."""
    digest = content_key(raw)[:12]
    return key if seen.setdefault(key, digest) == digest else f"{key}~{digest}"


@dataclass(slots=True)
class Ending:
    """A session's end so far in a read: the time of the last line read that has one (`saw`), handed over as
    the session's `ended` at a checkpoint only when it moved since it was last given (`news`)."""

    at: str | None = None
    given: str | None = None

    def saw(self, stamp: str | None) -> None:
        self.at = stamp or self.at

    def news(self, native: str) -> list[SessionDraft]:
        if self.at is None or self.at == self.given:
            return []
        self.given = self.at
        return [SessionDraft(native, ended=self.at)]


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


# A title taken from a prompt's words is cut to about this many characters.
TITLE_CHARS = 80
# Codex's IDE extension and Desktop app write the owner's words after context of their own (`# Context from my
# IDE setup:`, `# Files mentioned by the user:`, open tabs, selections), below the last of these headings.
_IDE_REQUEST = re.compile(r"^## My request for Codex:", re.M)
# Lines that only place something the prompt carries: quotes, image and document placeholders (ours), and the
# image tags Codex writes around a pasted image.
_NOT_WORDS = (">", "[image:", "[document:", "<image name=", "</image>")
# OpenClaw's gateway envelope before the words of a message from a channel (record/spans.py cuts the same
# from the owner's words): metadata blocks, a label and a JSON fence each, then a stamp
# `[… 2026-03-08 22:03 GMT+9] `.
_ENVELOPE = re.compile(
    r"^[^\n]*\(untrusted(?: metadata|, for context)\):[ \t]*\n\s*```[^\n]*\n.*?^[ \t]*```[ \t]*$",
    re.M | re.S)
_STAMP = re.compile(r"\[[^\]\d\s][^\]\n]{0,80}? \d{4}-\d\d-\d\d[ T]\d\d:\d\d(?::\d\d)?"
                    r"(?:Z| ?[A-Za-z][\w/+:-]{0,30})?\][ \t]*")


def title_line(text: str, skip: Callable[[str], bool] | None = None) -> str | None:
    """A session's title from a prompt: its first line of words (after the last `## My request for Codex:`
    heading when there is one; quoted lines, placeholders and lines `skip` names passed over), cut to about
    TITLE_CHARS characters at a word boundary; OpenClaw's gateway envelope passed over too."""
    if "(untrusted" in text:
        text = _ENVELOPE.sub("", text)
    for raw in _IDE_REQUEST.split(text)[-1].splitlines():
        line = raw.strip()  # not re-spaced: erase finds a title taken from the words it erases by substring
        if line.startswith("[") and (stamp := _STAMP.match(line)):
            line = line[stamp.end():]
        if not line or line.startswith(_NOT_WORDS) or (skip is not None and skip(line)):
            continue
        if len(line) <= TITLE_CHARS:
            return line
        cut = line[: TITLE_CHARS - 1]
        space = cut.rfind(" ")
        return (cut[:space] if space >= TITLE_CHARS // 2 else cut).rstrip(" ,;:-") + "…"
    return None


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
