"""Flood control: a reply that would overflow its caller's context is never lost and never floods it.

The whole reply goes to a private file (mode 600, in a folder of mode 700) under `<tempdir>/total-recall/`;
the caller gets what fits `max_bytes` — text cut at a line boundary and ended by an EOF marker naming the
tool, the bytes and lines returned and in all, the file, and the file's line histogram; a JSON reply is
never torn: it shrinks to a valid, shorter JSON (fewer items, `held_back`, an `overflow` block) instead.
Every capped call first removes overflow files older than 24 hours, so nothing needs cleaning by hand.
"""

from __future__ import annotations

import itertools
import os
import re
import stat
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import orjson

from total_recall.errors import ScopeError
from total_recall.mining.bounds import dump, seal
from total_recall.mining.histogram import Histogram, of_text, text_lines

DIR_NAME = "total-recall"
PRUNE_AFTER_SECONDS = 24 * 3600
MARKER = "--- [EOF-TRUNCATED] ---"
PRUNE_POLICY = "overflow files older than 24 h are removed on every capped call"
# The histogram's bars in a marker: narrower than the tool's, the marker is spent from the budget.
_MARKER_BAR = 16
_sequence = itertools.count(1)


@dataclass(frozen=True, slots=True)
class Overflow:
    """Where a reply too large to return went, and its shape."""

    path: Path
    histogram: Histogram

    def as_json(self, with_histogram: bool = True) -> dict[str, Any]:
        h = self.histogram
        out: dict[str, Any] = {
            "file": str(self.path),
            "total_bytes": h.total_bytes,
            "total_lines": h.total_lines,
            "prune": PRUNE_POLICY,
        }
        if with_histogram:
            out["histogram"] = h.rows()
            out["longest_line"] = {"line": h.longest_line, "bytes": h.longest_bytes}
        out["read"] = "line_histogram(file_path=<file>, mode='extract', start=A, end=B)"
        return out


def overflow_dir() -> Path:
    """`<tempdir>/total-recall`, private to this user (created 700; tightened if looser).

    Raises:
        ScopeError: neither it nor `total-recall-<uid>` can be made a private folder of this user.
    """
    base = Path(tempfile.gettempdir())
    for name in (DIR_NAME, f"{DIR_NAME}-{os.getuid()}"):
        folder = base / name
        try:
            folder.mkdir(mode=0o700, exist_ok=True)
            info = os.lstat(folder)
        except OSError:
            continue
        # Someone else's folder (or a symlink planted in a shared /tmp) must not receive our text.
        if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid():
            continue
        if info.st_mode & 0o077:
            os.chmod(folder, 0o700)
        return folder
    raise ScopeError(f"cannot make a private overflow folder under {base} (tried {DIR_NAME} and "
                     f"{DIR_NAME}-{os.getuid()}); set TMPDIR to a folder of your own")


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
    """Write `text` whole to a new private file; prunes old ones first."""
    folder = overflow_dir()
    prune(folder)
    name = f"{_slug(tool)}_{_slug(scope)}_{int(time.time() * 1000)}_{os.getpid()}_{next(_sequence)}.md"
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
        f"full_report: {ov.path}",
        f"prune: {PRUNE_POLICY}",
    ]
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
                         f"bytes); raise max_bytes — the whole reply is in {ov.path}")
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
                  f"max_bytes={max_bytes}; it is in {ov.path} (profile it with line_histogram) — or raise "
                  f"max_bytes. Returned: the {which} {n}.")
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
                     f"({bare['bytes']} bytes); raise max_bytes — the whole reply is in {ov.path}")
