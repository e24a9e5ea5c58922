"""Observations handed out: `observations.md` for an OpenClaw workspace, and the block a harness's
SessionStart adds to a new session's context (`for_session_start`), within a stated token cap.

Both carry current observations only, each with the addresses it came from; the block is wrapped in
BLOCK_OPEN … BLOCK_CLOSE, which the observer never reads as a session's own words. The block is for a
session starting in one folder: the owner's lasting rules, preferences and habits said there (or in a
folder above it) or in two projects or more, that project's goals and facts, and its events and task
context of the last RECENT_HOURS only — never another project's tasks.

An export ends with a seal only an export writes: the SHA-256 of what it wrote. A file is replaced only
when it carries its seal unchanged (the owner's own file, or an export he edited since, is refused and
left as it is), or when it is an export of an older version (which wrote no seal) exactly as those were
written, listed in the ledger or at the home, or naming the record it came from. An exported file lies
outside the record, so the record's home keeps that private ledger of where exports went
(`observations-exported.json`), each path with the record that wrote it: the main record and the demo's
share a home, and each refreshes only its own exports. After an erase withdraws observations,
`refresh_exports` rewrites each file there that is still an export of this record (and the home's
`observations.md`, which older versions wrote without the list) from the current observations; a
quarantine and its release refresh them alike, since an export leaves out what cites an entry in
quarantine. A path an older version listed names no record: it is this record's when one of its notes is
one of this record's observations (`_of`), else left to the other record's refresh. An export is private
(0600) and written whole: a temp file beside it, renamed over it.
"""

from __future__ import annotations

import glob
import hashlib
import json
import os
import re
import stat
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta
from itertools import pairwise
from pathlib import Path

from total_recall.config import PRIVATE_FILE
from total_recall.observing.listing import holds, observations
from total_recall.observing.observation import (
    BLOCK_CLOSE,
    BLOCK_OPEN,
    PRIORITIES,
    ObservingError,
    iso,
    parse_time,
    utc_now,
)
from total_recall.observing.verifier import Verifier
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
# What every export starts with (an older version's temp file that does is ours to remove).
HEAD = b"# Observations"
TEMP_INFIX = ".total-recall-"
# The export's last line, its seal: the SHA-256 of what stands above it (`_replaceable` checks it).
SEAL = re.compile(r"\n<!-- total-recall export sha256:([0-9a-f]{64}) -->\s*\Z")
# How an older version's export is written, line by line (`_older_export`).
_OLDER_LINE = re.compile(
    r"# Observations|_Distilled by Total Recall from its record at .*_|## (?:High|Medium|Low) priority"
    r"|- .+ \(s\d+#\d+(?:, s\d+#\d+)*\)|  <!-- id:\d+ type:\w+ .*-->")
_OLDER_NAMED = "_Distilled by Total Recall from its record at "
# A note of an export and the line under it (`_write_export`), as `_of` reads them back.
_NOTE = re.compile(r"- (.*) \((s\d+#\d+(?:, s\d+#\d+)*)\)")
_NOTE_META = re.compile(r"  <!-- id:(\d+) type:(\w+) ")
# A past session's events and task context are handed to a new one in the same project this long only.
RECENT_HOURS = 24
# What the owner wants of every session (SessionStart hands them wherever they apply); goals and facts
# belong to their project; events and context to their moment.
LASTING = frozenset({"rule", "preference", "habit"})
PROJECT = frozenset({"goal", "fact"})


def export(record: Record, path: Path, *, clock: Callable[[], datetime] = utc_now) -> tuple[Path, int]:
    """Write the current observations as markdown to `path` (a folder, or a name without a suffix, gets
    `observations.md`), replacing the file whole, and note where it went; returns the file written and how
    many observations it holds."""
    target = path / EXPORT_NAME if path.is_dir() or not path.suffix else path
    with _exporting(record):
        # Listed before it is written: an export killed between the two leaves a path an erase checks,
        # never a file it does not know of.
        owners = dict(_ledger(record))
        where = Path(os.path.abspath(target))
        known = where in owners or _at_home(record, where)
        if os.path.lexists(target) and not _replaceable(where, known=known):
            raise ObservingError(f"export_observations: {target} exists and is not an earlier export (or was "
                                 "changed since it was written); it is left as it is (give another `to`)")
        if owners.get(where) != _name(record):
            owners[where] = _name(record)  # another record's export before: this record's from now on
            _write_ledger(record, owners)
        count = _write_export(record, target, clock)
    return target, count


def refresh_exports(record: Record, *, clock: Callable[[], datetime] = utc_now,
                    left: list[Path] | None = None) -> list[Path]:
    """Rewrite every export of this record its home knows of from the current observations (after an erase:
    what it withdrew leaves every copy; after a quarantine or its release: what cites the entries leaves
    or comes back); returns the files rewritten, or removed when one cannot be.

    Only paths an export of this record wrote are known (the ledger, and the home's `observations.md` of
    older versions, when one of its notes is this record's): a copy the owner made or moved elsewhere is
    his, and the other record's exports in the same home are its own to refresh. A listed path that is no
    longer an export as it was written is left alone: dropped from the list when gone or a symlink; else
    (the owner's own file, an export he edited) kept on it and added to `left` each time, so every erase
    says which copies may still hold its words.
    """
    home, mine = _home(record), _name(record)
    done: list[Path] = []
    with _exporting(record):
        ledger = _ledger(record)
        owners = dict(ledger)
        for path in dict.fromkeys([*owners, Path(os.path.abspath(home / EXPORT_NAME))]):
            owner = owners.get(path)
            if owner not in (None, mine):
                continue  # the other record's (the demo's beside the main one): its own erases refresh it
            _remove_temps(path)
            if not _replaceable(path, known=True):
                # Gone, or the owner's now (his own file, or an export he changed): his to keep. One
                # still there stays listed, so every erase names it (it may hold what the erase took).
                if path in owners and os.path.isfile(path) and not os.path.islink(path):
                    if left is not None:
                        left.append(path)
                else:
                    owners.pop(path, None)
                continue
            if owner is None and not _of(record, path) and _beside(record):
                # An older version's export holding none of this record's notes, in a home holding another
                # record too: maybe the other's. Left alone, but named, as it may hold what the erase took.
                if left is not None:
                    left.append(path)
                continue
            try:
                _write_export(record, path, clock)
            except OSError:
                # It cannot be rewritten (its folder turned read-only, a full disk): a copy is safer gone.
                try:
                    path.unlink()
                except OSError:
                    owners[path] = mine  # the next erase or export tries again
                    continue
                owners.pop(path, None)
                done.append(path)
                continue
            owners[path] = mine
            done.append(path)
        _remove_temps(home / EXPORTS_LIST)
        if list(owners.items()) != ledger:
            _write_ledger(record, owners)
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
    body = "\n".join(lines)
    target.parent.mkdir(parents=True, exist_ok=True)
    _write_private(target, f"{body}\n<!-- total-recall export sha256:{_digest(body)} -->\n")
    return len(rows)


def _digest(body: str) -> str:
    """The seal's hash: of the text with each line's trailing white space and the end's blank lines
    aside (an editor that only trims them has not changed the export)."""
    flat = "\n".join(line.rstrip() for line in body.splitlines()).strip("\n")
    return hashlib.sha256(flat.encode("utf-8")).hexdigest()


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


def _beside(record: Record) -> bool:
    """Whether the home holds another record beside this one (the demo's beside the main one)."""
    from total_recall.config import DEMO_RECORD_FILE, RECORD_FILE

    return any(name != _name(record) and (_home(record) / name).exists()
               for name in (RECORD_FILE, DEMO_RECORD_FILE))


def _name(record: Record) -> str:
    """How the ledger names a record: its file in the home (`record.sqlite3`, `demo.sqlite3`)."""
    return Path(record.path).name


def _ledger(record: Record) -> list[tuple[Path, str | None]]:
    """The files exports wrote (absolute paths), in the order first written, each with the record that
    wrote it; None for a path an older version listed (a bare string: it named no record)."""
    try:
        items = json.loads((_home(record) / EXPORTS_LIST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []  # none yet; an unreadable list is rewritten by the next export
    ledger: list[tuple[Path, str | None]] = []
    for item in items if isinstance(items, list) else []:
        if isinstance(item, str):
            ledger.append((Path(item), None))
        elif isinstance(item, dict) and all(isinstance(item.get(k), str) for k in ("path", "record")):
            ledger.append((Path(item["path"]), item["record"]))
    return list(dict(ledger).items())


def _write_ledger(record: Record, owners: dict[Path, str | None]) -> None:
    items = [str(p) if who is None else {"path": str(p), "record": who} for p, who in owners.items()]
    _write_private(_home(record) / EXPORTS_LIST, json.dumps(items, indent=1))


def _of(record: Record, path: Path) -> bool:
    """Whether an export that names no record (an older version's) holds a note of `record`: one of its
    observations by id and text, or, for one an erase withdrew (its text is gone), by id, type and the
    addresses it cites — the oldest exports wrote no id: by its text, or the addresses alone. The main
    record and the demo's number their observations alike, so an id alone says nothing."""
    from total_recall.record.observations import read

    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return False
    notes: list[tuple[int | None, str, str | None, set[str]]] = []
    for line, tail in pairwise([*lines, ""]):
        if note := _NOTE.fullmatch(line):
            cited = set(note.group(2).split(", "))
            if meta := _NOTE_META.match(tail):
                notes.append((int(meta.group(1)), note.group(1), meta.group(2), cited))
            else:
                notes.append((None, note.group(1), None, cited))
    if not notes:
        return False
    ids = None if any(n[0] is None for n in notes) else [n[0] for n in notes if n[0] is not None]
    held = read(record, ids, withdrawn=True)
    for ident, text, kind, cited in notes:
        for o in held:
            if ident is not None and o.id != ident:
                continue
            if o.withdrawn_at is None and o.text == text:
                return True
            if o.withdrawn_at is not None and kind in (None, o.type) and cited <= set(o.addresses):
                return True
    return False


def _replaceable(path: Path, *, known: bool) -> bool:
    """Whether an export may replace the file at `path`: a regular file (not a symlink) that is an export
    as it was written — sealed, its seal matching what stands above it — or an older version's export
    (no seal) exactly as those were written, `known` (in the ledger, or the home's own) or naming the
    record it came from. Anything else is the owner's: never touched."""
    try:
        if not stat.S_ISREG(os.lstat(path).st_mode):
            return False
        raw = path.read_bytes()
    except OSError:
        return False
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return False
    if (m := SEAL.search(text)) is not None:
        return m.group(1) == _digest(text[: m.start()])
    return _older_export(text) and (known or _OLDER_NAMED in text)


def _older_export(text: str) -> bool:
    """Every line is one an older version's export writes, its first `# Observations`."""
    lines = [line for line in text.splitlines() if line.strip()]
    return bool(lines) and lines[0] == "# Observations" and all(_OLDER_LINE.fullmatch(x) for x in lines)


def _at_home(record: Record, path: Path) -> bool:
    return path == Path(os.path.abspath(_home(record) / EXPORT_NAME))


def _is_export(path: Path) -> bool:
    """A regular file (not a symlink) that starts as every export does: only for an older version's
    `<name>.tmp`, a temp file a killed write left beside an export path (cut short, it may end anywhere)."""
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


def for_session_start(record: Record, cwd: str | None, cap_tokens: int = SESSION_START_TOKENS, *,
                      now: datetime | None = None) -> str:
    """The highest-priority current observations for a session starting in `cwd` (`applies`), rules first
    and those of this project before others, within `cap_tokens` (the block's own lines included); ''
    when there are none."""
    # Checked below only as far as the cap reaches: this block is built on every session's start.
    rows = observations(record, limit=1_000_000, shown=False)
    folders = {s.number: _folder(s.cwd) for s in record.sessions()}
    here = _folder(cwd)
    when = now or utc_now()
    chosen: list[tuple[Observation, bool]] = []
    for o in rows:
        found = [folders.get(_session_of(a)) for a in o.addresses]
        if (verdict := applies(o, found, here, when)) is not None:
            chosen.append((o, verdict))

    def order(pair: tuple[Observation, bool]) -> tuple[int, int, int, float]:
        o, same = pair
        rank = PRIORITIES.index(o.priority) if o.priority in PRIORITIES else len(PRIORITIES)
        return (0 if o.type == "rule" else 1, rank, 0 if same else 1, -o.importance)

    chosen.sort(key=lambda pair: pair[0].seen, reverse=True)  # the newest first among equals (stable sort)
    chosen.sort(key=order)
    head = (f"{BLOCK_OPEN}\nWhat Total Recall observed in earlier sessions, highest priority first (within "
            f"{cap_tokens:,} tokens); each names the entries it came from:")
    used = estimate_tokens(head) + estimate_tokens(BLOCK_CLOSE) + 2
    lines: list[str] = []
    verifier = Verifier(record)
    left = 0
    for o, _ in chosen:
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


def applies(o: Observation, folders: list[str | None], here: str | None, now: datetime) -> bool | None:
    """Whether a session starting in folder `here` is handed `o`, said in sessions of `folders` (one per
    address; None: a session with no folder): None when not, else whether it is this project's.

    - rules, preferences, habits: said in this project (`here`, a folder inside it, or one above it: what
      the owner said in ~/work holds in ~/work/shop), or the owner's across projects (said in two
      projects or more, or where no folder was recorded);
    - goals and facts: this project's only, a low-priority one (a passing remark, the agent's own
      words) only when recent;
    - events and task context: this project's, of the last RECENT_HOURS only (a past session's one-off
      task is not the next session's memory)."""
    mine = here is not None and any(f is not None and (_inside(f, here) or
                                                       (o.type in LASTING and _inside(here, f)))
                                    for f in folders)
    if o.type in LASTING:
        if mine:
            return True
        roots = {f for f in folders if f is not None}
        roots = {f for f in roots if not any(g != f and _inside(f, g) for g in roots)}
        return False if None in folders or len(roots) >= 2 else None
    if not mine:
        return None
    seen = parse_time(o.seen)
    recent = seen is not None and now - seen <= timedelta(hours=RECENT_HOURS)
    if o.type in PROJECT and o.priority != "low":
        return True
    return True if recent else None


def _folder(cwd: str | None) -> str | None:
    folder = (cwd or "").strip().rstrip("/")
    return folder or None


def _inside(folder: str, project: str) -> bool:
    return folder == project or folder.startswith(project + "/")


def _session_of(address: str) -> int:
    head = address.split("#", 1)[0]
    return int(head[1:]) if head[1:].isdigit() else 0
