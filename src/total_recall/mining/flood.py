"""Flood control: a reply that would overflow its caller's context is never lost and never floods it.

The whole reply goes to a private file (mode 600, in a folder of mode 700) under the record's home,
`<home>/overflow/` — so `TOTAL_RECALL_HOME` (or the CLI's `--home`) decides where private replies go, and
nothing lands in a shared temp folder; the caller gets what fits `max_bytes` — text cut at a line boundary
and ended by an EOF marker naming the tool, the bytes and lines returned and in all, the file, and the
file's line histogram; a JSON reply is never torn: it shrinks to a valid, shorter JSON (fewer items,
`held_back`, an `overflow` block) instead. Every capped call first removes overflow files older than 24
hours, so nothing needs cleaning by hand; erasing an entry removes at once every overflow file that holds
its text (`erase`, `purge`). A call that runs without the record's erase lock (a sync, a model call) writes
its file only where no erase has landed since it began reading (`guarded`): else the whole reply is not kept,
and its marker says so.
"""

from __future__ import annotations

import itertools
import os
import re
import stat
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import AbstractContextManager, contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import Any, AnyStr, Literal

import orjson

from total_recall.config import record_home
from total_recall.errors import ScopeError
from total_recall.mining.bounds import dump, seal
from total_recall.mining.histogram import Histogram, of_text, text_lines

OVERFLOW_DIR = "overflow"
# Where overflow files went before they moved under the record's home: still purged on erase.
LEGACY_DIR = "total-recall"
PRUNE_AFTER_SECONDS = 24 * 3600
MARKER = "--- [EOF-TRUNCATED] ---"
PRUNE_POLICY = "overflow files older than 24 h are removed on every capped call"
# The histogram's bars in a marker: narrower than the tool's, the marker is spent from the budget.
_MARKER_BAR = 16
_sequence = itertools.count(1)
WITHHELD = ("not kept: an erase landed while this call ran, and the whole reply may hold what it erased; "
            "run the call again")
# Whether an overflow file may be written now (see `guarded`); unset, it always may.
_Clear = Callable[[], AbstractContextManager[bool]]
_guard: ContextVar[_Clear | None] = ContextVar("spill_guard", default=None)


@dataclass(frozen=True, slots=True)
class Overflow:
    """Where a reply too large to return went (None: not kept, `WITHHELD`), and its shape."""

    path: Path | None
    histogram: Histogram

    @property
    def where(self) -> str:
        return WITHHELD if self.path is None else str(self.path)

    def as_json(self, with_histogram: bool = True) -> dict[str, Any]:
        h = self.histogram
        out: dict[str, Any] = {
            "file": None if self.path is None else str(self.path),
            "total_bytes": h.total_bytes,
            "total_lines": h.total_lines,
            "prune": PRUNE_POLICY,
        }
        if self.path is None:
            out["withheld"] = WITHHELD
            return out
        if with_histogram:
            out["histogram"] = h.rows()
            out["longest_line"] = {"line": h.longest_line, "bytes": h.longest_bytes}
        out["read"] = "line_histogram(file_path=<file>, mode='extract', start=A, end=B)"
        return out


@contextmanager
def guarded(clear: _Clear) -> Iterator[None]:
    """Within the block, an overflow file is written only inside `clear()`, and only when it yields True
    (`erasure.adding`: no erase has landed since the call began reading)."""
    token = _guard.set(clear)
    try:
        yield
    finally:
        _guard.reset(token)


def overflow_folder() -> Path:
    """`<record home>/overflow`: where this record's overflow files are (it may not exist yet)."""
    return record_home() / OVERFLOW_DIR


def _private(folder: Path) -> bool:
    """Whether `folder` is a real folder (not a symlink) of this user; tightened to 700 if looser."""
    try:
        info = os.lstat(folder)
    except OSError:
        return False
    # Someone else's folder, or a symlink planted where ours should be, must not receive our text.
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid():
        return False
    if info.st_mode & 0o077:
        os.chmod(folder, 0o700)
    return True


def overflow_dir() -> Path:
    """The overflow folder, created private to this user (700; tightened if looser).

    Raises:
        ScopeError: it cannot be made a private folder of this user.
    """
    folder = overflow_folder()
    try:
        folder.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        folder.mkdir(mode=0o700, exist_ok=True)
    except OSError as exc:
        raise ScopeError(f"cannot make the overflow folder {folder}: {exc.strerror or exc}") from None
    if not _private(folder):
        raise ScopeError(f"the overflow folder {folder} is not a private folder of this user (a symlink, "
                         "or owned by someone else); remove it, or set TOTAL_RECALL_HOME to a folder of your "
                         "own")
    return folder


def _legacy_folders() -> list[Path]:
    base = Path(tempfile.gettempdir())
    return [base / LEGACY_DIR, base / f"{LEGACY_DIR}-{os.getuid()}"]


def prune(folder: Path, now: float | None = None) -> int:
    """Remove the files in `folder` older than 24 hours; returns how many went."""
    cutoff = (time.time() if now is None else now) - PRUNE_AFTER_SECONDS
    removed = 0
    with os.scandir(folder) as entries:
        for entry in entries:
            try:
                if not entry.is_file(follow_symlinks=False):
                    continue
                if entry.stat(follow_symlinks=False).st_mtime < cutoff:
                    os.unlink(entry.path)
                    removed += 1
            except FileNotFoundError:
                continue  # another capped call pruned it first
    return removed


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-.")[:48] or "all"


def spill(tool: str, scope: str, text: str) -> Overflow:
    """Write `text` whole to a new private file; prunes old ones first. `scope` (a query, a session) stays
    out of the name: a query's words in a name would outlive the erase of the entry they came from. Under a
    guard (`guarded`) that does not clear it, nothing is written: the Overflow's path is None."""
    clear = _guard.get()
    if clear is None:
        return _spilled(tool, text)
    with clear() as safe:
        return _spilled(tool, text) if safe else Overflow(None, of_text(text))


def _spilled(tool: str, text: str) -> Overflow:
    folder = overflow_dir()
    prune(folder)
    name = f"{_slug(tool)}-{int(time.time() * 1000)}-{os.getpid()}-{next(_sequence)}.md"
    path = folder / name
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(path, flags, 0o600)
    try:
        os.fchmod(fd, 0o600)
        with os.fdopen(fd, "wb") as fh:
            fh.write(text.encode())
    except BaseException:
        path.unlink(missing_ok=True)
        raise
    return Overflow(path, of_text(text))


def _marker(tool: str, ov: Overflow, kept_lines: int, kept_bytes: int, with_histogram: bool) -> str:
    h = ov.histogram
    rest = kept_lines + 1
    lines = [
        MARKER,
        f"tool: {tool}",
        f"returned_bytes: {kept_bytes} (lines 1-{kept_lines}) of total_bytes: {h.total_bytes}",
        f"total_lines: {h.total_lines}",
        f"full_report: {ov.where}",
        f"prune: {PRUNE_POLICY}",
    ]
    if ov.path is None:
        return "\n".join(lines) + "\n"
    if with_histogram:
        lines += [f"longest line: {h.longest_line} ({h.longest_bytes} bytes)", h.render(_MARKER_BAR)]
    else:
        lines.append("histogram: left out to fit max_bytes; run line_histogram on the file")
    lines.append(f"the rest: line_histogram file_path={ov.path} mode=extract start={rest} "
                 f"end={min(h.total_lines, rest + 199)}")
    return "\n".join(lines) + "\n"


def cap_text(tool: str, scope: str, text: str, max_bytes: int) -> str:
    """`text` if it fits `max_bytes`; else its first lines that fit with the EOF marker, the whole in a file.

    Raises:
        ScopeError: max_bytes cannot hold even the marker.
    """
    if len(text.encode()) <= max_bytes:
        return text
    ov = spill(tool, scope, text)
    h = ov.histogram
    with_histogram = True
    # The marker for all lines kept has the most digits any smaller cut can have: an upper bound.
    reserve = len(_marker(tool, ov, h.total_lines, h.total_bytes, True).encode())
    if reserve > max_bytes:
        with_histogram = False
        reserve = len(_marker(tool, ov, h.total_lines, h.total_bytes, False).encode())
    if reserve > max_bytes:
        raise ScopeError(f"{tool}: max_bytes={max_bytes} cannot hold even the overflow marker ({reserve} "
                         f"bytes); raise max_bytes — the whole reply: {ov.where}")
    budget = max_bytes - reserve
    kept: list[str] = []
    used = 0
    for line in text_lines(text):
        size = len(line.encode())
        if used + size > budget:
            break
        kept.append(line)
        used += size
    reply = "".join(kept) + _marker(tool, ov, len(kept), used, with_histogram)
    assert len(reply.encode()) <= max_bytes
    return reply


def _kept_at(ov: Overflow) -> str:
    return WITHHELD if ov.path is None else f"it is in {ov.path} (profile it with line_histogram)"


def largest_fit(build: Callable[[int], dict[str, Any]], upper: int, max_bytes: int
                ) -> tuple[int, dict[str, Any]]:
    """The largest n in 0..upper whose `build(n)` serializes within max_bytes, and that reply; (-1, build(0))
    when even n=0 does not fit. Sizes grow with n, so a binary search finds it."""
    first = build(0)
    if len(dump(first)) > max_bytes:
        return -1, first
    lo, best = 0, first
    hi = upper
    while lo < hi:
        mid = (lo + hi + 1) // 2
        reply = build(mid)
        if len(dump(reply)) <= max_bytes:
            lo, best = mid, reply
        else:
            hi = mid - 1
    return lo, best


def fit_json(tool: str, scope: str, reply: dict[str, Any], key: str, max_bytes: int,
             keep: Literal["head", "tail"] = "head") -> dict[str, Any]:
    """`reply` with `max_bytes` and its own size (`bytes`) stated; when it would not fit, the whole goes
    to an overflow file and the reply keeps as many items of `reply[key]` as fit (the first, or the last
    with keep="tail"), with `held_back` and an `overflow` block — valid JSON, never torn.

    Raises:
        ScopeError: max_bytes cannot hold even the reply with no items.
    """

    def sealed(body: dict[str, Any]) -> dict[str, Any]:
        return seal(lambda: body, body, lambda r: len(dump(r)))

    whole = sealed({**reply, "max_bytes": max_bytes, "bytes": 0})
    if whole["bytes"] <= max_bytes:
        return whole
    items = list(reply[key])
    ov = spill(tool, scope, orjson.dumps(whole, option=orjson.OPT_INDENT_2).decode() + "\n")

    def build(n: int, with_histogram: bool = True) -> dict[str, Any]:
        kept = items[:n] if keep == "head" else items[len(items) - n:]
        held = len(items) - n
        which = "first" if keep == "head" else "last"
        notice = (f"{held} of {len(items)} {key} held back: the whole reply is {whole['bytes']} bytes, over "
                  f"max_bytes={max_bytes}; {_kept_at(ov)} — or raise max_bytes. Returned: the {which} {n}.")
        body = {**reply, key: kept, "held_back": held, "max_bytes": max_bytes, "bytes": 0, "notice": notice,
                "overflow": ov.as_json(with_histogram)}
        return sealed(body)

    n, best = largest_fit(build, len(items), max_bytes)
    if n >= 0:
        return best
    bare = build(0, with_histogram=False)
    if bare["bytes"] <= max_bytes:
        return bare
    raise ScopeError(f"{tool}: max_bytes={max_bytes} cannot hold even the reply's fixed fields "
                     f"({bare['bytes']} bytes); raise max_bytes — the whole reply: {ov.where}")


# -- erase: no overflow file keeps an erased entry's text --

# A line of an erased text this long is distinctive enough to purge a file that holds it: replies are cut
# at line boundaries, and reports join an entry's lines with ⏎, so a reply may hold some lines alone.
DISTINCTIVE_LINE = 16
# Any run of an erased text at least _GRAM + _STRIDE - 1 bytes long is found wherever it stands (a
# snippet cut from the middle of a long line, a record clamped to max_record_bytes): every _GRAM-byte
# piece of the text is hashed, and a file is probed at every _STRIDE-th byte.
_GRAM = 32
_STRIDE = 16
_REACH = _GRAM + _STRIDE - 1
# Hashing every piece costs memory per byte erased; past this many the rest is found by lines and whole.
_GRAM_CAP = 2_000_000
# Shorter texts and lines are searched for one by one (a scan of every file each) up to this many; all of
# them are also looked up as the lines of a file, which costs one pass whatever their number.
_LITERAL_CAP = 64
# Where a file's lines part: a newline, a JSON-escaped one, or the ⏎ reports join an entry's lines with.
_SEGMENTS = re.compile(rb"\n|\\n| \xe2\x8f\x8e ")
_SEGMENT_TRIM = b' \t\r",'
# A JSON string escape, undone the way a reader of the reply would: `\uXXXX` or one of JSON's letters.
_ESCAPE = re.compile(r'\\(?:u([0-9a-fA-F]{4})|(["\\/bfnrt]))')
_ESCAPED = {"b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
# Where the pieces of a file's line part: a JSON string's quotes, a table's columns, a cut's "…".
_FLAT_SEGMENTS = re.compile(r'"|…| \| ')
_FLAT_TRIM = " ,:"


def unescaped(text: str) -> str:
    """`text` with its JSON string escapes undone, one level deep: `\\n` a line break, `\\"` a quote,
    `\\u00e9` "é"; a backslash that starts no escape stays."""
    return _ESCAPE.sub(_stands_for, text)


def _stands_for(match: re.Match[str]) -> str:
    code, letter = match.groups()
    return chr(int(code, 16)) if code else _ESCAPED.get(letter, letter)


def _undone(text: str) -> str:
    """`text` with JSON escapes undone to any depth: a snippet undoes the escapes of an envelope's text, and
    a JSON reply escapes the result again, so the depths differ between a text and what a file holds."""
    while True:
        undone = unescaped(text)
        if undone == text:  # each round shortens what it changes, so this ends
            return text
        text = undone


def _flat(text: str) -> str:
    """`text` in the one form every surface's rewriting of it shares: escapes undone, the ⏎ a report joins
    lines with and every run of white space a single space (a search snippet, `find/hits.py`, flattens a
    window of the text so; a report's `one_line` joins the lines with ⏎)."""
    return " ".join(_undone(text).replace("⏎", " ").split())


class _Needles:
    """What of some erased texts a file must not hold: each text whole, its distinctive lines, and its
    32-byte pieces — as written and as JSON escapes them (overflow files of JSON replies) — and, for a text
    a surface rewrites (several lines, runs of white space, escapes), the same of its flattened form, looked
    for in the file flattened alike: a snippet or a report's line of it, whole or cut, at any JSON depth."""

    def __init__(self, texts: Iterable[str]) -> None:
        self.literal: set[bytes] = set()
        self.lines: set[bytes] = set()
        self.grams: set[int] = set()
        self.flat_literal: set[str] = set()
        self.flat_lines: set[str] = set()
        self.flat_grams: set[int] = set()
        for text in texts:
            for form in {text, orjson.dumps(text).decode()[1:-1]}:
                self._add(form)
            flat = _flat(text)
            self._add_flat(flat, rewritten=flat != text.strip())

    def _add_flat(self, flat: str, rewritten: bool) -> None:
        """`rewritten`: flattening changed the text; else the forms as written find every copy of it but a
        short one standing as a JSON string past the literals' cap, which `flat_lines` finds."""
        if not flat:
            return
        pieces = rewritten and len(self.grams) + len(self.flat_grams) + len(flat) <= _GRAM_CAP
        if pieces:
            self.flat_grams.update(hash(flat[i:i + _GRAM]) for i in range(len(flat) - _GRAM + 1))
        if (len(flat) < _REACH or (rewritten and not pieces)) and flat.strip(_FLAT_TRIM):
            # Shorter than a snippet's window: a snippet of it holds it whole.
            self.flat_lines.add(flat.strip(_FLAT_TRIM))
            if rewritten and len(self.flat_literal) < _LITERAL_CAP:
                self.flat_literal.add(flat)

    def _short(self, piece: bytes) -> None:
        self.lines.add(piece.strip(_SEGMENT_TRIM))
        if len(self.literal) < _LITERAL_CAP:
            self.literal.add(piece)

    def _add(self, form: str) -> None:
        whole = form.strip().encode()
        if not whole:
            return
        data = form.encode()
        pieces = len(self.grams) + len(data) <= _GRAM_CAP
        if pieces:
            self.grams.update(hash(data[i:i + _GRAM]) for i in range(len(data) - _GRAM + 1))
        if len(whole) < _REACH or not pieces:
            self._short(whole)
        for raw in _SEGMENTS.split(data):
            line = raw.strip()
            if len(line.decode(errors="ignore")) >= DISTINCTIVE_LINE and (len(line) < _REACH or not pieces):
                self._short(line)

    def __bool__(self) -> bool:
        return bool(self.literal or self.grams or self.flat_literal or self.flat_grams or self.flat_lines)

    def found_in(self, data: bytes) -> bool:
        if _holds(data, self.literal, self.grams):
            return True
        lines = self.lines
        if lines and any(raw.strip(_SEGMENT_TRIM) in lines for raw in _SEGMENTS.split(data)):
            return True
        flat = self.flat_literal or self.flat_grams or self.flat_lines
        return bool(flat) and self._found_flat(data.decode(errors="replace"))

    def _found_flat(self, text: str) -> bool:
        if _holds(_flat(text), self.flat_literal, self.flat_grams):
            return True
        wanted = self.flat_lines
        return bool(wanted) and any(
            " ".join(piece.replace("⏎", " ").split()).strip(_FLAT_TRIM) in wanted
            for line in text.splitlines() for piece in _FLAT_SEGMENTS.split(_undone(line)))


def _holds(data: AnyStr, literal: set[AnyStr], grams: set[int]) -> bool:
    """Whether `data` holds one of the texts whole, or one of their pieces (sampled every _STRIDE)."""
    if any(needle in data for needle in literal):
        return True
    return any(hash(data[i:i + _GRAM]) in grams for i in range(0, len(data) - _GRAM + 1, _STRIDE))


# A name `spill` gives (the tool's, then time, process and sequence): it holds no words of a reply.
_PLAIN_NAME = re.compile(r"[A-Za-z0-9._-]+?-\d+-\d+-\d+\.md")
_NAME_WORD = re.compile(r"[^\W_]{3,}")


def _words(text: str) -> set[str]:
    return {w.casefold() for w in _NAME_WORD.findall(text) if not w.isdigit()}


def purge(texts: Iterable[str]) -> list[Path]:
    """Delete every overflow file holding any of `texts` (whole, a distinctive line, or a run of 47 bytes
    or more) from this record's overflow folder and the temp-folder ones of earlier versions, and every
    file whose name earlier versions took from a query sharing a word with them; returns the files
    deleted. An overflow file is a copy of a reply, never the record: deleting one that merely shares a
    line (or a word of its name) with an erased text loses nothing that cannot be asked for again."""
    texts = list(texts)
    return _purge(texts, every=False) if texts else []


def purge_all() -> list[Path]:
    """Delete every overflow file there (`purge`'s folders): what an erase killed half way took out is no
    longer known, and a copy of a reply can always be asked for again."""
    return _purge([], every=True)


def _purge(texts: list[str], every: bool) -> list[Path]:
    # Built at the first file to look into: most erases find no overflow file, and the pieces of a whole
    # session's texts take seconds to hash.
    needles: _Needles | None = None
    words = set().union(*map(_words, texts))
    removed: list[Path] = []
    for folder in (overflow_folder(), *_legacy_folders()):
        if not _private(folder):
            continue
        with os.scandir(folder) as entries:
            files = [Path(e.path) for e in entries if e.is_file(follow_symlinks=False)]
        for path in files:
            named = every or (not _PLAIN_NAME.fullmatch(path.name) and bool(_words(path.stem) & words))
            try:
                if named:
                    found = True
                else:
                    data = path.read_bytes()
                    if needles is None:
                        needles = _Needles(texts)
                    found = needles.found_in(data)
            except FileNotFoundError:
                continue  # pruned meanwhile
            except OSError:
                found = True  # unreadable, so it cannot be cleared: a copy of a reply is safer gone
            if found:
                try:
                    path.unlink()
                except FileNotFoundError:
                    continue
                removed.append(path)
    return removed
