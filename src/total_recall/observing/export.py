"""Observations handed out: `observations.md` for an OpenClaw workspace, and the block a harness's
SessionStart adds to a new session's context (`for_session_start`), within a stated token cap.

Both carry current observations only, each with the addresses it came from; the block is wrapped in
BLOCK_OPEN … BLOCK_CLOSE, which the observer never reads as a session's own words. An exported file lies
outside the record, so the record's home keeps a private list of where exports went
(`observations-exported.json`): after an erase withdraws observations, `refresh_exports` rewrites each file
there that is still an export (and the home's `observations.md`, which older versions wrote without the
list) from the current observations; a quarantine and its release refresh them alike, since an export
leaves out what cites an entry in quarantine. An export is private (0600) and written whole: a temp file
beside it, renamed over it.
"""

from __future__ import annotations

import glob
import json
import os
import stat
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path

from total_recall.config import PRIVATE_FILE
from total_recall.observing.listing import holds, observations
from total_recall.observing.observation import (
    BLOCK_CLOSE,
    BLOCK_OPEN,
    PRIORITIES,
    iso,
    utc_now,
)
from total_recall.observing.verifier import Verifier
from total_recall.record import observations as table
from total_recall.record.database import Record
from total_recall.record.locks import held
from total_recall.record.observations import Observation
from total_recall.tokens import estimate_tokens

EXPORT_NAME = "observations.md"
SESSION_START_TOKENS = 1_500
# In the record's home (named so `config.OWN_NAMES` counts them ours): every file an export wrote, and the
# lock an export and an erase's refresh take, so an export that read the observations before an erase
# never renames its file over the refreshed one.
EXPORTS_LIST = "observations-exported.json"
EXPORTS_LOCK = "observations-exported.lock"
# What every export starts with: a file at a listed path that no longer does is the owner's, left alone.
HEAD = b"# Observations"
TEMP_INFIX = ".total-recall-"


def export(record: Record, path: Path, *, clock: Callable[[], datetime] = utc_now) -> tuple[Path, int]:
    """Write the current observations as markdown to `path` (a folder, or a name without a suffix, gets
    `observations.md`), replacing the file whole, and note where it went; returns the file written and how
    many observations it holds."""
    target = path / EXPORT_NAME if path.is_dir() or not path.suffix else path
    with _exporting(record):
        # Listed before it is written: an export killed between the two leaves a path an erase checks,
        # never a file it does not know of.
        listed = _listed(record)
        where = Path(os.path.abspath(target))
        if where not in listed:
            _write_private(_home(record) / EXPORTS_LIST, json.dumps([*map(str, listed), str(where)],
                                                                    indent=1))
        count = _write_export(record, target, clock)
    return target, count


def refresh_exports(record: Record, *, clock: Callable[[], datetime] = utc_now) -> list[Path]:
    """Rewrite every export this record's home knows of from the current observations (after an erase:
    what it withdrew leaves every copy; after a quarantine or its release: what cites the entries leaves
    or comes back); returns the files rewritten, or removed when one cannot be.

    Only paths an export wrote are known (the list, and the home's `observations.md` of older versions):
    a copy the owner made or moved elsewhere is his. A listed path that is no longer an export (gone,
    a symlink, the owner's own file) is dropped from the list and left alone.
    """
    home = _home(record)
    done: list[Path] = []
    with _exporting(record):
        listed = _listed(record)
        kept: list[Path] = []
        for path in dict.fromkeys([*listed, Path(os.path.abspath(home / EXPORT_NAME))]):
            _remove_temps(path)
            if not _is_export(path):
                continue
            try:
                _write_export(record, path, clock)
            except OSError:
                # It cannot be rewritten (its folder turned read-only, a full disk): a copy is safer gone.
                try:
                    path.unlink()
                except OSError:
                    kept.append(path)  # the next erase or export tries again
                    continue
                done.append(path)
                continue
            kept.append(path)
            done.append(path)
        _remove_temps(home / EXPORTS_LIST)
        if kept != listed:
            _write_private(home / EXPORTS_LIST, json.dumps([str(p) for p in kept], indent=1))
    return done


def _write_export(record: Record, target: Path, clock: Callable[[], datetime]) -> int:
    rows = observations(record, limit=1_000_000)
    lines = [HEAD.decode(), "",
             f"_Distilled by Total Recall from its record at {iso(clock())}; each note names the entries it "
             "came from (`total-recall read s3#12`)._", ""]
    for priority in PRIORITIES:
        chosen = [o for o in rows if o.priority == priority]
        if not chosen:
            continue
        lines += [f"## {priority.capitalize()} priority", ""]
        for o in chosen:
            lines.append(f"- {o.text} ({', '.join(o.addresses[:6])})")
            lines.append(f"  <!-- id:{o.id} type:{o.type} confidence:{o.confidence:.2f} "
                         f"source:{o.source_type} importance:{o.importance:.2f} seen:{o.seen[:10]} -->")
        lines.append("")
    target.parent.mkdir(parents=True, exist_ok=True)
    _write_private(target, "\n".join(lines))
    return len(rows)


def _write_private(target: Path, text: str) -> None:
    """Replace `target` whole with `text`, mode 0600 whatever the umask: a temp file in the same folder
    (so the rename is atomic), never left behind."""
    # Named after the target, so one in the home is ours (`config.OWN_NAMES`) and `_remove_temps` finds it.
    fd, tmp = tempfile.mkstemp(prefix=f"{target.name}{TEMP_INFIX}", suffix=".tmp", dir=target.parent)
    try:
        os.fchmod(fd, PRIVATE_FILE)
        with os.fdopen(fd, "wb") as fh:
            fh.write(text.encode("utf-8"))
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _home(record: Record) -> Path:
    return Path(record.path).parent


@contextmanager
def _exporting(record: Record) -> Iterator[None]:
    with held(_home(record) / EXPORTS_LOCK, None, lambda: OSError("unreachable: waits for ever")):
        yield


def _listed(record: Record) -> list[Path]:
    """The files exports of this record wrote (absolute paths), in the order first written."""
    try:
        paths = json.loads((_home(record) / EXPORTS_LIST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []  # none yet; an unreadable list is rewritten by the next export
    return [Path(p) for p in paths if isinstance(p, str)] if isinstance(paths, list) else []


def _is_export(path: Path) -> bool:
    """A regular file (not a symlink) that starts as every export does."""
    try:
        if not stat.S_ISREG(os.lstat(path).st_mode):
            return False
        with path.open("rb") as fh:
            return fh.read(len(HEAD)) == HEAD
    except OSError:
        return False


def _remove_temps(path: Path) -> None:
    """Remove what a write to `path` killed before its rename left: our temp files beside it (under the
    export lock, so none is being written), and an older version's `<name>.tmp` when it is an export."""
    try:
        ours = [p for p in path.parent.glob(f"{glob.escape(path.name)}{TEMP_INFIX}*.tmp")
                if p.is_file() and not p.is_symlink()]
    except OSError:
        ours = []
    older = path.with_name(path.name + ".tmp")
    for tmp in [*ours, *([older] if _is_export(older) else [])]:
        try:
            tmp.unlink()
        except OSError:
            continue  # gone meanwhile, or not ours to remove


def for_session_start(record: Record, cwd: str | None, cap_tokens: int = SESSION_START_TOKENS) -> str:
    """The highest-priority current observations, rules first and those of the project at `cwd` before
    others, within `cap_tokens` (the block's own lines included); '' when there are none."""
    # Checked below only as far as the cap reaches: this block is built on every session's start.
    rows = observations(record, limit=1_000_000, shown=False)
    cwds = table.session_cwds(record, [o.id for o in rows])
    here = (cwd or "").rstrip("/")

    def order(o: Observation) -> tuple[int, int, int, float]:
        same = bool(here) and (cwds.get(o.id) or "").rstrip("/") == here
        rank = PRIORITIES.index(o.priority) if o.priority in PRIORITIES else len(PRIORITIES)
        return (0 if o.type == "rule" else 1, rank, 0 if same else 1, -o.importance)

    rows.sort(key=lambda o: o.seen, reverse=True)  # the newest first among equals (the sort is stable)
    rows.sort(key=order)
    head = (f"{BLOCK_OPEN}\nWhat Total Recall observed in earlier sessions, highest priority first (within "
            f"{cap_tokens:,} tokens); each names the entries it came from:")
    used = estimate_tokens(head) + estimate_tokens(BLOCK_CLOSE) + 2
    lines: list[str] = []
    verifier = Verifier(record)
    left = 0
    for o in rows:
        line = f"- {o.type} · {o.priority}: {o.text} [{', '.join(o.addresses[:3])}]"
        cost = estimate_tokens(line) + 1
        if used + cost > cap_tokens:
            left += 1
            continue
        if not holds(verifier, o):
            continue
        lines.append(line)
        used += cost
    if not lines:
        return ""
    tail = [f"({left} more not shown: `total-recall observations`)"] if left else []
    body = [head, *lines]
    if tail and used + estimate_tokens(tail[0]) + 1 <= cap_tokens:
        body += tail
    return "\n".join([*body, BLOCK_CLOSE])
