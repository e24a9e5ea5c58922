"""The line histogram: where the bytes of a large text are, by line range, and lines pulled out of it.

A 2 MB dump profiles to ten lines (the line ranges of its tenths and the bytes in each, like the awk
histogram of the Rust tool), plus its longest line, so a caller can see the shape of what overflowed and
then extract just the lines it needs. `line_histogram` is the tool over a file on disk — made for the
overflow files flood control writes, and it reads nothing else.
"""

from __future__ import annotations

import os
import stat
from array import array
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from total_recall.errors import ScopeError
from total_recall.mining.scope import REPORT_MAX_BYTES, check_max_bytes
from total_recall.model import echoed

BUCKETS = 10
MODES = ("histogram", "extract")
_BAR = "█"


@dataclass(frozen=True, slots=True)
class Histogram:
    """Bytes per line range; a line's bytes include its newline, so the buckets add up to the whole."""

    total_bytes: int
    total_lines: int
    buckets: tuple[tuple[int, int, int], ...]  # (first line, last line, bytes), 1-based
    longest_line: int
    longest_bytes: int

    def rows(self) -> list[dict[str, int | str]]:
        return [{"lines": f"{a}-{b}" if a != b else str(a), "bytes": n} for a, b, n in self.buckets]

    def render(self, bar_width: int = 40) -> str:
        """The table, one line per bucket, with a bar scaled to the largest bucket."""
        top = max((n for _, _, n in self.buckets), default=0)
        lines = [f"{'Line Range':<15} | {'Bytes':>12} | Distribution"]
        for a, b, n in self.buckets:
            span = f"{a}-{b}" if a != b else str(a)
            bar = _BAR * (int(n / top * bar_width) if top else 0)
            lines.append(f"{span:<15} | {n:>12} | {bar}")
        return "\n".join(lines)

    def summary(self) -> str:
        head = f"Total bytes: {self.total_bytes}\nTotal lines: {self.total_lines}"
        if self.total_lines:
            head += f"\nLongest line: {self.longest_line} ({self.longest_bytes} bytes)"
        return head


def of_sizes(sizes: Iterable[int]) -> Histogram:
    """The histogram of lines with these byte sizes, in order."""
    kept = array("Q", sizes)
    total_lines = len(kept)
    if total_lines == 0:
        return Histogram(0, 0, (), 0, 0)
    per = 1 if total_lines <= BUCKETS else total_lines // BUCKETS
    count = min(total_lines, BUCKETS)
    buckets = []
    for i in range(count):
        first = i * per
        last = total_lines if i == count - 1 else (i + 1) * per
        buckets.append((first + 1, last, sum(kept[first:last])))
    longest = max(range(total_lines), key=kept.__getitem__)
    return Histogram(sum(kept), total_lines, tuple(buckets), longest + 1, kept[longest])


def text_lines(text: str) -> list[str]:
    """`text` cut into lines at "\\n" only, each keeping its newline (the last may have none)."""
    parts = text.split("\n")
    lines = [p + "\n" for p in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


def of_text(text: str) -> Histogram:
    return of_sizes(len(line.encode()) for line in text_lines(text))


def overflow_file(path_text: str) -> Path:
    """The overflow file `path_text` names: a regular file directly in this record's overflow folder (a
    bare file name is looked up there). Anything else is refused by name — over MCP the caller may be an
    agent reading on someone's behalf, and this tool must not become a way to read any file the server
    can (keys in /proc/self/environ, the record's own bytes).

    Raises:
        ScopeError: no path, a path outside the overflow folder (after symlinks), a `..`, no such file.
    """
    # Imported here: flood imports this module for the histogram.
    from total_recall.mining.flood import overflow_folder

    tool = "line_histogram"
    if not isinstance(path_text, str) or not path_text.strip():
        raise ScopeError(f"{tool}: `file_path` is required (an overflow file a capped reply named)")
    folder = overflow_folder()
    refusal = ScopeError(f"{tool} reads only overflow files under {folder}: {echoed(path_text)} is not one")
    given = Path(path_text)
    if ".." in given.parts or "\0" in path_text:
        raise refusal
    path = given if given.is_absolute() else folder / given if len(given.parts) == 1 else Path.cwd() / given
    try:
        real = path.resolve(strict=False)
        home = folder.resolve(strict=False)
    except (OSError, RuntimeError):  # a symlink loop
        raise refusal from None
    if real.parent != home:
        raise refusal
    try:
        info = os.stat(real)
    except OSError as exc:
        raise ScopeError(f"{tool}: cannot open {real}: {exc.strerror or exc} (overflow files are removed "
                         "after 24 h, and when an entry they hold is erased)") from None
    if not stat.S_ISREG(info.st_mode):
        # A fifo or a device would block or never end; a directory has no lines.
        raise ScopeError(f"{tool}: {real} is not a regular file")
    return real


def of_file(path: Path) -> Histogram:
    """The histogram of a file, read once as a stream: memory is 8 bytes a line, not the file."""
    with open(path, "rb") as fh:
        return of_sizes(len(raw) for raw in fh)


def check_selectors(mode: str | None, line: int | None, start: int | None, end: int | None) -> str:
    """The mode, with the line selectors validated as a set: `extract` needs `line`, or `start` with
    `end`; a selector without `mode="extract"` is rejected rather than answered with a histogram."""
    tool = "line_histogram"
    chosen = mode or "histogram"
    if chosen not in MODES:
        raise ScopeError(f"{tool}: unknown mode {echoed(mode)} — pass mode='histogram' (the default) or "
                         "mode='extract' with line=N, or start=A and end=B")
    for name, value in (("line", line), ("start", start), ("end", end)):
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, int):
            raise ScopeError(f"{tool}: `{name}` must be a whole number, not {echoed(value)}")
        if value < 1:
            raise ScopeError(f"{tool}: `{name}` is {value}, but lines count from 1")
    given = [n for n, v in (("line", line), ("start", start), ("end", end)) if v is not None]
    if chosen == "histogram":
        if given:
            raise ScopeError(f"{tool}: {', '.join(given)} select lines to extract, but mode is 'histogram' — "
                             "pass mode='extract' with them, or drop them for the histogram")
        return chosen
    if line is not None and (start is not None or end is not None):
        raise ScopeError(f"{tool}: pass line=N, or start=A with end=B — not both")
    if line is None:
        if start is None or end is None:
            missing = "start" if start is None else "end"
            raise ScopeError(f"{tool}: mode='extract' needs line=N, or start=A with end=B — {missing} is "
                             "missing")
        if start > end:
            raise ScopeError(f"{tool}: start={start} is past end={end}")
    return chosen


def extract_lines(path: Path, first: int, last: int) -> list[dict[str, int | str]]:
    """Lines `first`..`last` (1-based, inclusive) of a file, each `{line, text}` with its newline (invalid
    UTF-8 replaced).

    Raises:
        ScopeError: the range runs past the file's last line.
    """
    out: list[dict[str, int | str]] = []
    count = 0
    with open(path, "rb") as fh:
        for count, raw in enumerate(fh, start=1):  # count is read after the loop
            if count > last:
                break
            if count >= first:
                out.append({"line": count, "text": raw.decode("utf-8", errors="replace")})
    if count < last:
        wanted = f"line {first}" if first == last else f"lines {first}-{last}"
        raise ScopeError(f"line_histogram: {wanted} of {path} asked for, but it has {count} lines")
    return out


def line_histogram(
    file_path: str,
    *,
    mode: str | None = None,
    line: int | None = None,
    start: int | None = None,
    end: int | None = None,
    max_bytes: int = REPORT_MAX_BYTES,
) -> dict[str, Any]:
    """Profile an overflow file by where its bytes are (mode='histogram', the default: its size, lines,
    longest line and ten `buckets`), or some of its `lines` (mode='extract' with line=N, or start=A and
    end=B; 1-based, inclusive). Only the regular files of this record's overflow folder are read
    (`overflow_file`). `histogram_text` writes the reply as text.

    Raises:
        ScopeError: a path outside the overflow folder or not a regular file, selectors that do not form a
            set, a range past the end.
    """
    tool = "line_histogram"
    budget = check_max_bytes(tool, max_bytes, REPORT_MAX_BYTES)
    chosen = check_selectors(mode, line, start, end)
    path = overflow_file(file_path)
    if chosen == "histogram":
        h = of_file(path)
        longest = {"line": h.longest_line, "bytes": h.longest_bytes}
        return {"file": str(path), "mode": chosen, "total_bytes": h.total_bytes,
                "total_lines": h.total_lines, "longest_line": longest,
                "buckets": [{"first": a, "last": b, "bytes": n} for a, b, n in h.buckets],
                "max_bytes": budget}
    first, last = (line, line) if line is not None else (start, end)
    assert first is not None and last is not None
    return {"file": str(path), "mode": chosen, "first": first, "last": last,
            "lines": extract_lines(path, first, last), "max_bytes": budget}


def histogram_text(reply: dict[str, Any]) -> str:
    """A `line_histogram` reply as text: the histogram table, or the lines extracted as they are in the
    file; flood-capped at its max_bytes like every report."""
    # flood imports this module for the histogram.
    from total_recall.mining.flood import cap_text

    path = Path(reply["file"])
    if reply["mode"] == "extract":
        text = "".join(str(n["text"]) for n in reply["lines"])
        return cap_text("line_histogram", f"{path.name}-{reply['first']}-{reply['last']}", text,
                        reply["max_bytes"])
    longest = reply["longest_line"]
    h = Histogram(reply["total_bytes"], reply["total_lines"],
                  tuple((b["first"], b["last"], b["bytes"]) for b in reply["buckets"]), longest["line"],
                  longest["bytes"])
    body = f"File: {path}\n{h.summary()}\n"
    body += "\nEmpty file\n" if not h.total_lines else f"\nBytes by line range:\n\n{h.render()}\n"
    return cap_text("line_histogram", path.name, body, reply["max_bytes"])
