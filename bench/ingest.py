"""Ingest benchmark: full sync MB/s against orjson parse-only MB/s of the same files, in one run.

    python bench/ingest.py --size-mb 1000

Generates (or reuses) a large mixed store in the native formats, then measures in this order:
  1. parse-only: every JSONL line through orjson.loads, every OpenCode row's JSON through orjson.loads —
     the floor no reader can beat, measured on the same bytes;
  2. full sync into a fresh record, as the real command in a child process (`total-recall sync`);
  3. re-sync of the unchanged store (the same command again);
  4. SQLite's floor: the writes every sync into this record must make — each entry's text into FTS5 with
     the record's tokenizer, and each entry's text and source record as plain rows — timed alone, in one
     connection, from rows already in memory (nothing read, parsed, cut or compressed);
and prints MB/s, the ratio sync/parse, the re-sync time, the sync's peak RSS, and the highest ratio
SQLite's floor leaves (one writer per database: a sync cannot finish before its writes do).
With `--with-erasure`, also 5. the same full sync into a fresh record that already holds one erased entry
in each harness (from a small store of other texts synced and erased first): once a harness holds an
erasure, every incoming entry and source line is hashed to find copies of erased text (`SyncRun.scan`),
and the run prints what that costs against step 2.
Targets (issue 2): ratio >= 0.5, unchanged re-sync < 1 s, peak RSS < 300 MB.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import resource
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent))
import total_recall.readers.base as base
from generate import generate
from total_recall.indexes.words import HASHSIZE, SHARD_ENTRIES, TOKENIZE

ROOT_VARS = {
    "claude": "TOTAL_RECALL_CLAUDE_ROOT",
    "codex": "TOTAL_RECALL_CODEX_ROOT",
    "opencode": "TOTAL_RECALL_OPENCODE_ROOT",
    "vibe": "TOTAL_RECALL_VIBE_ROOT",
    "openclaw": "TOTAL_RECALL_OPENCLAW_ROOT",
}


def payload_bytes_and_parse(store: Path) -> tuple[int, float]:
    """Total payload bytes and the seconds orjson takes to parse all of it (decompression excluded)."""
    total = 0
    seconds = 0.0
    loads = orjson.loads
    for path in sorted(store.rglob("*")):
        if path.name.endswith((".jsonl", ".jsonl.zst")):
            with base.open_payload(path) as fh:
                data = fh.read()
            lines = data.split(b"\n")
            total += len(data)
            t = time.perf_counter()
            for line in lines:
                if line:
                    loads(line)
            seconds += time.perf_counter() - t
        elif path.name == "meta.json":
            data = path.read_bytes()
            total += len(data)
            t = time.perf_counter()
            loads(data)
            seconds += time.perf_counter() - t
        elif path.name == "opencode.db":
            db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
            rows = [r[0] for t in ("message", "part") for r in db.execute(f"SELECT data FROM {t}")]
            db.close()
            total += sum(len(r) for r in rows)
            t0 = time.perf_counter()
            for r in rows:
                loads(r)
            seconds += time.perf_counter() - t0
    return total, seconds


def run_sync(store: Path, home: Path) -> tuple[float, int, dict[str, object]]:
    # The sync as a user without the vectors extra runs it: record, word index and exact strings.
    env = {**os.environ, "TOTAL_RECALL_SANDBOX": "1", "TOTAL_RECALL_VECTOR_BUDGET": "0"}
    for sub, var in ROOT_VARS.items():
        if (store / sub).exists():
            env[var] = str(store / sub)
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    t = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "total_recall", "--home", str(home), "sync", "--json"],
                          env=env, capture_output=True, check=False)
    seconds = time.perf_counter() - t
    peak_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    if done.returncode not in (0, 2):
        raise SystemExit(f"sync failed ({done.returncode}): {done.stderr.decode()[-2000:]}")
    report = json.loads(done.stdout)
    return seconds, max(peak_kb, before), report


FLOOR_CHUNK = 20_000  # entries read (untimed) before each timed batch of inserts


def erased_in_each_harness(home: Path, seed: int) -> int:
    """Sync a small store of other texts into `home` and erase one entry of each harness's first session;
    returns how many were erased (copies included)."""
    small = home.parent / "small-store"
    generate(small, 2.0, seed + 7919)
    run_sync(small, home)
    erased = 0
    listed = json.loads(subprocess.run(
        [sys.executable, "-m", "total_recall", "--home", str(home), "sessions", "--json"],
        capture_output=True, check=True).stdout)["sessions"]
    first: dict[str, str] = {}
    for s in listed:
        first.setdefault(s["harness"], s["session"])
    for session in first.values():
        command = [sys.executable, "-m", "total_recall", "--home", str(home), "erase", f"{session}#1",
                   "--reason", "bench", "--json"]
        done = subprocess.run(command, capture_output=True, check=True)
        erased += len(json.loads(done.stdout)["erased"])
    return erased


def sqlite_floor(record: Path, scratch: Path) -> tuple[float, float]:
    """Seconds SQLite takes to (1) index every entry's text in FTS5 with the record's tokenizer, in shards
    of SHARD_ENTRIES entries as the record's word index is, and (2) write every entry's text and every
    source record as plain rows, into a fresh database set up as the record is (32 KB pages, WAL,
    synchronous NORMAL, 64 MB cache, 16 MB FTS5 term table). Only the inserts and commits are timed; rows
    are read from `record` beforehand, chunk by chunk."""
    source = sqlite3.connect(f"file:{record}?mode=ro", uri=True)
    out = sqlite3.connect(scratch / "floor.sqlite3", isolation_level=None)
    for pragma in ("page_size=32768", "journal_mode=WAL", "synchronous=NORMAL", "cache_size=-65536"):
        out.execute(f"PRAGMA {pragma}")
    out.execute("CREATE TABLE texts(id INTEGER PRIMARY KEY, text TEXT NOT NULL)")
    out.execute("CREATE TABLE raws(id INTEGER PRIMARY KEY, raw BLOB NOT NULL)")

    def timed(sql: str, rows: list[tuple[object, ...]], opening: str = "") -> float:
        t = time.perf_counter()
        out.execute("BEGIN")
        if opening:
            out.execute(f"CREATE VIRTUAL TABLE {opening} USING fts5(text, tag, content='', "
                        f"tokenize=\"{TOKENIZE}\")")
            out.execute(f"INSERT INTO {opening}({opening}, rank) VALUES ('hashsize', {HASHSIZE})")
        out.executemany(sql, rows)
        out.execute("COMMIT")
        return time.perf_counter() - t

    words_s = rows_s = 0.0
    shards: list[int] = []
    entries = source.execute("SELECT id, text FROM entries ORDER BY id")
    while chunk := entries.fetchmany(FLOOR_CHUNK):
        for first, group in itertools.groupby(chunk, key=lambda row: row[0] // SHARD_ENTRIES):
            opening = "" if shards and shards[-1] == first else f"words_{first}"
            if opening:
                shards.append(first)
            words_s += timed(f"INSERT INTO words_{first}(rowid, text, tag) VALUES (?, ?, '')", list(group),
                             opening)
        rows_s += timed("INSERT INTO texts(id, text) VALUES (?, ?)", chunk)
    raws = source.execute("SELECT id, raw FROM raws ORDER BY id")
    while chunk := raws.fetchmany(FLOOR_CHUNK):
        rows_s += timed("INSERT INTO raws(id, raw) VALUES (?, ?)", chunk)
    t = time.perf_counter()
    out.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    rows_s += time.perf_counter() - t
    out.close()
    source.close()
    return words_s, rows_s


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size-mb", type=float, default=1000.0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--store", type=Path, default=None, help="reuse or create the generated store here")
    ap.add_argument("--with-erasure", action="store_true",
                    help="also time the sync into a record already holding an erasure in each harness")
    args = ap.parse_args()

    default = Path(__file__).resolve().parent / "out" / f"store-{int(args.size_mb)}mb-s{args.seed}"
    store = args.store or default
    if not (store / ".complete").exists():
        shutil.rmtree(store, ignore_errors=True)
        t = time.perf_counter()
        generate(store, args.size_mb, args.seed)
        (store / ".complete").write_text("ok", encoding="utf-8")
        print(f"generated {store} in {time.perf_counter() - t:.1f} s")

    total, parse_s = payload_bytes_and_parse(store)
    mb = total / 1e6
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        sync_s, peak_kb, report = run_sync(store, home)
        resync_s, _, again = run_sync(store, home)
        record_mb = (home / "record.sqlite3").stat().st_size / 1e6
        words_s, rows_s = sqlite_floor(home / "record.sqlite3", home)
    if args.with_erasure:
        with tempfile.TemporaryDirectory() as tmp:
            home = Path(tmp) / "home"
            erased = erased_in_each_harness(home, args.seed)
            erasure_s, _, _ = run_sync(store, home)
    parse_rate, sync_rate = mb / parse_s, mb / sync_s
    print(f"store: {mb:,.0f} MB of payload, {report['entries_added']:,} entries, "
          f"{sum(h.get('sessions', 0) for h in report['harnesses'].values()):,} sessions")
    print(f"orjson parse-only : {parse_rate:8.1f} MB/s  ({parse_s:.2f} s)")
    print(f"full sync         : {sync_rate:8.1f} MB/s  ({sync_s:.2f} s)   record {record_mb:,.0f} MB")
    print(f"ratio sync/parse  : {sync_rate / parse_rate:8.3f}   (target >= 0.5)")
    print(f"unchanged re-sync : {resync_s:8.3f} s     (target < 1 s; added {again['entries_added']})")
    print(f"peak RSS of sync  : {peak_kb / 1024:8.1f} MB    (target < 300 MB)")
    print(f"warnings {len(report['warnings'])}, errors {len(report['errors'])}")
    floor_s = words_s + rows_s
    print(f"SQLite's floor    : {mb / floor_s:8.1f} MB/s  ({floor_s:.2f} s: FTS5 word index {words_s:.2f} s, "
          f"entry texts and source records as rows {rows_s:.2f} s)")
    print(f"highest ratio it leaves: {mb / floor_s / parse_rate:8.3f}   (one writer; "
          f"{2 * mb / floor_s / parse_rate:.3f} if two processes could split the writes)")
    if args.with_erasure:
        print(f"full sync with an erasure in each harness ({erased} entries erased first): "
              f"{mb / erasure_s:8.1f} MB/s ({erasure_s:.2f} s), {erasure_s / sync_s:.3f}× the clean sync "
              f"(+{erasure_s - sync_s:.2f} s, {(erasure_s - sync_s) / (mb / 1000):.2f} s a GB)")


if __name__ == "__main__":
    main()
