"""The exact strings a person later asks for verbatim: pulled out of entries at ingest, kept in `strings`.

Paths, commit hashes, URLs, hostnames, versions, error lines, commands and times are kept whole in
their own index, so a hash fragment or a path finds its entries even where word tokenization would
split it (`/etc/ssl/private/`, `3f9c2e1`, `v1.18.33`). Each is stored as lookup keys (the string, and
tails of paths, URLs and hosts), B-tree indexed by key (NOCASE) and entry. Markup is never a string
(`</div>` is no path) and the line numbers of a Read tool's output (`12→`) are no part of one.
"""

from __future__ import annotations

import functools
import os
import re
import sqlite3
from collections.abc import Iterator, Sequence

import orjson

from total_recall.indexes.entry_facts import Conditions, clause
from total_recall.model import SHELL_TOOLS

MAX_PER_ENTRY = 64
MAX_LEN = 300
# Only so much of an entry is scanned: the strings worth quoting sit near the start and end of a tool
# output, and scanning all of every output would cost more than the rest of the sync together. The
# word index still covers every byte (search turns an exact-looking token into a phrase or prefix query).
SCAN_HEAD = 8_192
SCAN_TAIL = 4_096
TOOL_HEAD = 4_096
TOOL_TAIL = 2_048

_VERSION = r"(?:\bv?\d+\.\d+(?:\.\d+)+(?:-[0-9A-Za-z.]+)?\b)"
_TIME = (
    r"(?:\b\d{4}-\d\d-\d\d(?:[T ]\d\d:\d\d(?::\d\d(?:\.\d+)?)?(?:Z|[+-]\d\d:?\d\d)?)?\b"
    r"|\b\d{1,2}:\d\d(?::\d\d)?(?:\s?[ap]\.?m\.?)?\b)"
)
# Found with str.find, then widened to the whole line: regexes over whole outputs are too slow.
_ERROR_WORDS = ("error", "failed", "failure", "exception", "fatal", "denied", "refused", "unauthorized",
                "forbidden", "not found", "traceback", "panic", "timed out", "cannot", "unable to")
# A candidate starts after white space, a quote or an opening bracket: that character is matched (the
# search skips ahead to one in C) rather than looked behind at every position; group 1 is that character
# (a `<` may open a tag, see `untagged`), group 2 the candidate.
_CANDIDATE = re.compile(r"([\s\"'`=(\[{<,])((?=[^\s\"'`]*?[/:.])[^\s\"'`]{3,})")
# Claude Code's Read tool numbers the lines it returns (`    12→text`): the tool's numbering, not the file's.
_LINE_NUMBER = re.compile(r"^ *\d+→", re.M)
# Markup a token runs into: `</div>`, `</pre` cut at the token's end, `<bash-stderr>` opening it. A tag name
# has no dot or colon, so `<shop.example.com>` and `<http://…>` stay strings.
_CLOSING_TAG = re.compile(r"</[A-Za-z][\w-]*(?:>|$)")
_OPENING_TAGS = re.compile(r"^(?:<[A-Za-z][\w-]*>)+")
_EDGE_TAGS = re.compile(r"^(?:</?[A-Za-z][\w-]*>\s*)+|(?:\s*</?[A-Za-z][\w-]*>)+$")
_TIME_RX = re.compile(_TIME, re.I)
_VERSION_RX = re.compile(_VERSION)
_HOST_RX = re.compile(r"(?:[a-z0-9-]+\.)+[a-z]{2,}")
_TLDS = frozenset(
    "com org net io dev app ai co uk de fr local internal lan example test cloud sh me us eu".split()
)
_HEX_RUN = re.compile(r"[^0-9A-Za-z_./:]([0-9a-fA-F]{7,64})(?![0-9A-Za-z_/:])")  # as _CANDIDATE: group 1
_EDGE = "\"'`()[]{}<>,;"
_COMMAND_LINE = re.compile(r"^\s*\$ (.+)$", re.M)
_ABBREVIATION = re.compile(r"(?=[a-f]*\d)[0-9a-f]{5}", re.I)


def extract(kind: str, text: str, tool: str | None = None) -> list[tuple[str, str]]:
    """The exact strings of one entry as (kind, value), in order of first appearance, deduplicated."""
    if kind == "meta" or not text:
        return []
    head, tail = (TOOL_HEAD, TOOL_TAIL) if kind == "tool_result" else (SCAN_HEAD, SCAN_TAIL)
    body = unnumbered(text if len(text) <= head + tail else text[:head] + "\n" + text[-tail:])
    seen: set[str] = set()
    out: list[tuple[str, str]] = []
    for found in _candidates(kind, body, tool):
        value = found[1].strip().rstrip(".,;:")
        if len(value) < 3 or value in seen:
            continue
        seen.add(value)
        out.append((found[0], value[:MAX_LEN]))
        if len(out) >= MAX_PER_ENTRY:
            break
    return out


def _candidates(kind: str, body: str, tool: str | None) -> Iterator[tuple[str, str]]:
    if kind == "tool_call" and tool and tool.lower() in SHELL_TOOLS:
        command = _command_of(body)
        if command:
            yield "command", command
    if "$ " in body:
        for m in _COMMAND_LINE.finditer(body):
            yield "command", m.group(1)
    # Cheap regexes pick the tokens that could be strings worth quoting; the full patterns run on those
    # alone (running them over whole texts is several times slower).
    for before, token in _CANDIDATE.findall("\n" + body):
        for piece in untagged(before + token if before == "<" else token):
            found = classify(piece.strip(_EDGE))
            if found is not None:
                yield found
    for word in _HEX_RUN.findall("\n" + body):
        if not word.isdigit() and not word.isalpha():
            yield "hash", word
    if kind in ("tool_result", "message", "summary", "thinking"):
        yield from _error_lines(body)


def unnumbered(text: str) -> str:
    """`text` without the line numbers Claude Code's Read tool puts before each line of a file it returns,
    so no string or error line starts with `12→`; every string of it still stands in `text` word for word."""
    return _LINE_NUMBER.sub("", text) if "→" in text else text


def bare_line(line: str) -> str:
    """An error line without a Read output's line number before it nor the tags around it
    (`</bash-stdout><bash-stderr>WARN …`): what stays of it stands in its entry word for word."""
    line = _LINE_NUMBER.sub("", line, count=1) if "→" in line else line
    return (_EDGE_TAGS.sub("", line) if "<" in line else line).strip()


def untagged(token: str) -> list[str]:
    """The pieces of a candidate token (with the `<` before it, when one stood there) that are not markup:
    `</div>` alone is none, `<code>/etc/ssl/</code>` is `/etc/ssl/`; a `<` inside a piece stays
    (`agent-<id>/`, `2>/dev/null`)."""
    if "<" not in token:
        return [token]
    return [_OPENING_TAGS.sub("", piece) for piece in _CLOSING_TAG.split(token)]


# Five of six tokens an agent's sessions hold were seen before (the same paths, hosts and versions again
# and again): remembering the answers takes a tenth off a sync.
@functools.lru_cache(maxsize=1 << 16)
def classify(token: str) -> tuple[str, str] | None:
    """What kind of exact string a token is, by cheap tests first (a regex per token is slow)."""
    if len(token) < 3:
        return None
    low = token.lower()
    if low.startswith(("http://", "https://")):
        return "url", token
    if "/" in token:
        if token[0] in "/~." or token.count("/") >= 2:
            return "path", token
        return None
    first = token[0]
    if first.isdigit() or (first in "vV" and token[1:2].isdigit()):
        if ":" in token or "-" in token[:10]:
            m = _TIME_RX.match(token)
            if m:
                return "time", m.group(0)
        m = _VERSION_RX.match(token)
        return ("version", m.group(0)) if m else None
    if "." in token:
        tld = low.rsplit(".", 1)[1]
        if tld in _TLDS and _HOST_RX.fullmatch(low):
            return "host", token
    return None


def _error_lines(body: str) -> Iterator[tuple[str, str]]:
    lower = body.lower()
    starts: set[int] = set()
    for word in _ERROR_WORDS:
        at = lower.find(word)
        while at >= 0 and len(starts) < MAX_PER_ENTRY:
            starts.add(lower.rfind("\n", 0, at) + 1)
            nxt = lower.find("\n", at)
            if nxt < 0:
                break
            at = lower.find(word, nxt)
    for start in sorted(starts):
        end = body.find("\n", start)
        line = bare_line(body[start : len(body) if end < 0 else end].strip())
        if 8 <= len(line) <= MAX_LEN:
            yield "error", line


def _command_of(body: str) -> str | None:
    try:
        args = orjson.loads(body)
    except orjson.JSONDecodeError:
        return body if "\n" not in body.strip() else None
    if isinstance(args, dict):
        cmd = args.get("command") or args.get("cmd")
        if isinstance(cmd, list):
            return " ".join(str(c) for c in cmd)
        if isinstance(cmd, str):
            return cmd
    return None


@functools.lru_cache(maxsize=1 << 16)
def keys_of(kind: str, value: str) -> tuple[str, ...]:
    """The lookup keys of one exact string: itself, and for paths, URLs and hosts its tails at
    separators, so `ssl/private` or `example.com` finds `/etc/ssl/private/` and `shop.example.com`."""
    keys = [value]
    if kind in ("path", "url", "host"):
        sep = "." if kind == "host" else "/"
        body = value.split("://", 1)[-1]
        parts = [p for p in body.split(sep) if p]
        for i in range(1, min(len(parts), 6)):
            tail = sep.join(parts[i:])
            if len(tail) >= 3:
                keys.append(tail)
    return tuple(keys)


def looks_exact(token: str) -> bool:
    """Whether a query token is better looked up whole than as words (a hash, a path, a URL …)."""
    # Five hex characters with a digit are git's shortest abbreviation of a hash ("added" is a word).
    return len(token) >= 3 and bool(
        re.search(r"[/:@]|\.\w|^[0-9a-f]{6,}$|^\d+\.\d+", token, re.I) or _ABBREVIATION.fullmatch(token))


# -- the `strings` table --

# A sync reading this much or more may build the indexes of the exact strings at its end (`bulk`);
# sessions hold about one key per BYTES_PER_KEY bytes (1.1 M keys in 200 MB of the benchmark's store).
BULK_BYTES = 64 << 20
BYTES_PER_KEY = 200
SORT_CACHE_KB = 8 << 10
INDEXES = {
    "strings_key": "CREATE INDEX strings_key ON strings(key, entry)",
    "strings_entry": "CREATE INDEX strings_entry ON strings(entry)",
}


def add(db: sqlite3.Connection, rows: list[tuple[int, str, str]], *, key_order: bool = True) -> None:
    """Write (entry, kind, key) rows; with `key_order`, sorted by key first so the key index is written a
    page at a time instead of at random across millions of keys (pointless while it is dropped: see
    `bulk`)."""
    if not rows:
        return
    if key_order:
        rows = sorted(rows, key=lambda r: (r[2].lower(), r[0]))
    db.executemany("INSERT INTO strings(entry, kind, key) VALUES (?, ?, ?)", rows)


def bulk(db: sqlite3.Connection, incoming_bytes: int, least: int = BULK_BYTES) -> bool:
    """Whether a sync about to read `incoming_bytes` (at least `least`) adds at least as many exact-string
    keys as the record holds: then the indexes of `strings` are dropped for it and built once at its end
    (`build_indexes`), sorting every key at once instead of placing each among millions (a 1 GB
    first sync: 170 s with them kept, 131 s built at the end)."""
    if incoming_bytes < least:
        return False
    held = db.execute("SELECT COALESCE(MAX(rowid), 0) FROM strings").fetchone()[0]
    return bool(incoming_bytes // BYTES_PER_KEY >= held)


def drop_indexes(db: sqlite3.Connection) -> None:
    for name in INDEXES:
        db.execute(f"DROP INDEX IF EXISTS {name}")


def build_indexes(db: sqlite3.Connection) -> None:
    """The indexes of `strings` (see migrations m002 and m011) that a sync dropped and did not live to
    build again."""
    missing = [sql for name, sql in INDEXES.items()
               if db.execute("SELECT 1 FROM sqlite_master WHERE name = ?", (name,)).fetchone() is None]
    if not missing:
        return
    # SQLite sorts with helper threads when allowed, each holding sorted runs of up to the cache's size:
    # 5.6 M keys took 16.1 s in one thread with a 64 MB cache (+65 MB of memory), 9.0 s in two with
    # 8 MB (+23 MB), 9.4 s with 16 MB (+46 MB), 9.9 s with 64 MB (+193 MB).
    cache = db.execute("PRAGMA cache_size").fetchone()[0]
    db.execute(f"PRAGMA threads={min(os.cpu_count() or 1, 2)}")
    db.execute(f"PRAGMA cache_size={-SORT_CACHE_KB}")
    try:
        for sql in missing:
            db.execute(sql)
    finally:
        db.execute(f"PRAGMA cache_size={cache}")
    db.execute("PRAGMA analysis_limit=1000")  # sampled statistics are enough for the planner
    db.execute("ANALYZE strings")


def forget(db: sqlite3.Connection, entry_id: int) -> None:
    db.execute("DELETE FROM strings WHERE entry = ?", (entry_id,))


def error_lines(db: sqlite3.Connection, ids: Sequence[int]) -> list[tuple[int, str]]:
    """(entry, line) of the error lines of those of `ids` that are tool results not erased."""
    return db.execute(
        f"""
        SELECT st.entry, st.key FROM strings st JOIN entry_facts e ON e.id = st.entry
        WHERE st.kind = 'error' AND e.kind = 'tool_result' AND st.entry IN ({','.join('?' * len(ids))})
        """,
        ids,
    ).fetchall()


def starting(db: sqlite3.Connection, key: str, most: int, conditions: Conditions | None = None,
             within: Sequence[tuple[int, int]] | None = None) -> list[int]:
    """The newest `most` entries holding an exact string that starts with `key` (case-blind), newest
    first; passing `conditions` and with ids in one of the ranges `within`, when given (a string
    outside them is passed over before it is joined with its entry)."""
    where, params = clause(conditions) if conditions is not None else ("", [])
    if within is not None:
        ranges = f"({' OR '.join(['st.entry BETWEEN ? AND ?'] * len(within)) or '0'})"
        where = f"{ranges} AND {where}" if where else ranges
        params = [*(v for r in within for v in r), *params]
    prefix = key.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
    if not where:
        sql = ("SELECT DISTINCT entry FROM strings WHERE key LIKE ? ESCAPE '\\' "
               "ORDER BY entry DESC LIMIT ?")
    else:
        sql = f"""
                SELECT DISTINCT e.id FROM strings st
                CROSS JOIN entry_facts e ON e.id = st.entry CROSS JOIN sessions s ON s.id = e.session
                WHERE st.key LIKE ? ESCAPE '\\' AND {where}
                ORDER BY e.id DESC LIMIT ?
                """
    return [r[0] for r in db.execute(sql, (prefix, *params, most))]
