"""Search benchmark: query latency over a record of >= 1 M entries, against `rg` over the raw store.

    python bench/search.py [--size-mb 1400] [--seed 1] [--queries 300] [--rg-queries 30] [--json PATH]

Generates (or reuses) the store exactly as bench/ingest.py does (bench/out/store-<size>mb-s<seed>), syncs
it once into bench/out/record-<size>mb-s<seed>/record.sqlite3 (reused when its `.complete` marker is
there), then builds a seeded mix of queries from the record itself — phrases from owner/agent messages,
exact strings (hash fragment, path, URL host, version, error line), rare words, common words; half of
them with a filter — and times `search(store, q, limit=10, ...)` in-process after a warm-up of 20.
Baseline: `rg -F -i -l -uu` over the store folder for a subset of the same queries (filters ignored; rg
reads the JSONL but not inside opencode.db (binary) or the .jsonl.zst rollouts).
Targets (issue 3): p50 < 20 ms, p99 < 100 ms, rg_p50 / p50 >= 50, peak RSS < 300 MB.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import re
import resource
import shutil
import sqlite3
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from random import Random
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from generate import generate
from ingest import run_sync
from total_recall.find.search import SearchError, search
from total_recall.record.store import Store

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
    rg_ms: float | None = None
    rg_files: int | None = None


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


def ensure_record(store: Path, home: Path) -> Path:
    if not (home / ".complete").exists():
        shutil.rmtree(home, ignore_errors=True)
        home.mkdir(parents=True)
        seconds, _, report = run_sync(store, home)
        print(f"synced {report['entries_added']:,} entries into {home} in {seconds:.1f} s "
              f"({len(report['warnings'])} warnings, {len(report['errors'])} errors)")
        (home / ".complete").write_text("ok", encoding="utf-8")
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

    def doc_count(self, word: str, cap: int) -> int:
        sql = "SELECT COUNT(*) FROM (SELECT 1 FROM entries_fts WHERE entries_fts MATCH ? LIMIT ?)"
        return int(self.db.execute(sql, (f'"{word}"', cap)).fetchone()[0])


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


def rare(s: Sampler, cap: int = 50) -> tuple[str, sqlite3.Row]:
    best: tuple[int, str, sqlite3.Row] | None = None
    for _ in range(40):
        row = s.entry()
        words = _RARE.findall(row[3][:20_000])
        if not words:
            continue
        word = s.rng.choice(words).lower()
        n = s.doc_count(word, cap + 1)
        if n and (best is None or n < best[0]):
            best = (n, word, row)
        if best and best[0] <= cap:
            break
    assert best, "no word found in 40 sampled entries"
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


def pct(xs: list[float], q: float) -> float:
    ys = sorted(xs)
    return ys[max(0, min(len(ys) - 1, math.ceil(q * len(ys)) - 1))] if ys else float("nan")


def stats(xs: list[float]) -> dict[str, float]:
    return {"n": len(xs), "p50": pct(xs, 0.5), "p90": pct(xs, 0.9), "p99": pct(xs, 0.99), "max": max(xs)}


def run_one(store: Store, q: Query) -> None:
    t = time.perf_counter()
    try:
        q.hits = len(search(store, q.text, limit=10, **q.filters))
    except SearchError:
        q.hits = -1
    q.ms = (time.perf_counter() - t) * 1000


def run_rg(store_dir: Path, q: Query) -> None:
    cmd = ["rg", "-F", "-i", "-l", "-uu", "--no-messages", "--", q.text, str(store_dir)]
    t = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, check=False)
    q.rg_ms = (time.perf_counter() - t) * 1000
    q.rg_files = len(done.stdout.splitlines())


def rg_subset(queries: list[Query], n: int) -> list[Query]:
    per = {k: [q for q in queries if q.kind == k] for k in TYPES}
    out: list[Query] = []
    for j, k in enumerate(TYPES):
        take = n // len(TYPES) + (1 if j < n % len(TYPES) else 0)
        pool = per[k]
        out += [pool[int(i * len(pool) / take)] for i in range(take)] if take and pool else []
    return out


def mark(ok: bool) -> str:
    return "ok" if ok else "MISSED"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size-mb", type=float, default=1400.0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--queries", type=int, default=300)
    ap.add_argument("--rg-queries", type=int, default=30)
    ap.add_argument("--store", type=Path, default=None, help="reuse or create the generated store here")
    ap.add_argument("--json", type=Path, default=None, help="write every figure here")
    args = ap.parse_args()
    out = Path(__file__).resolve().parent / "out"
    tag = f"{int(args.size_mb)}mb-s{args.seed}"
    store_dir = args.store or out / f"store-{tag}"
    ensure_store(store_dir, args.size_mb, args.seed)
    record = ensure_record(store_dir, out / f"record-{tag}")
    if not shutil.which("rg"):
        raise SystemExit("rg not found: apt-get update && apt-get install -y ripgrep")

    rss_start = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    store = Store(record)
    entries = store.db.execute("SELECT COUNT(*) FROM entries").fetchone()[0]
    sessions = store.db.execute("SELECT COUNT(*) FROM sessions").fetchone()[0]
    record_mb = record.stat().st_size / 1e6
    print(f"record: {entries:,} entries, {sessions:,} sessions, {record_mb:,.0f} MB ({record})")
    if args.size_mb >= 1400:
        assert entries >= 1_000_000, f"only {entries:,} entries: raise --size-mb"

    t = time.perf_counter()
    queries = make_queries(Sampler(store.db, Random(args.seed)), args.queries)
    print(f"built {len(queries)} queries in {time.perf_counter() - t:.1f} s "
          f"({sum(bool(q.filters) for q in queries)} with a filter)")
    for q in queries[:20]:
        run_one(store, q)
    for q in queries:
        run_one(store, q)
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    store.close()

    sub = rg_subset(queries, args.rg_queries)
    run_rg(store_dir, sub[0])  # warm the page cache for rg too
    for q in sub:
        run_rg(store_dir, q)

    groups: dict[str, list[Query]] = {"all": queries}
    for k in TYPES:
        groups[k] = [q for q in queries if q.kind == k]
    for s in EXACT_KINDS:
        groups[f"  exact:{s}"] = [q for q in queries if q.sub == s]
    groups["filtered"] = [q for q in queries if q.filters]
    groups["unfiltered"] = [q for q in queries if not q.filters]
    table = {name: stats([q.ms for q in qs]) for name, qs in groups.items() if qs}
    print(f"\n{'queries':<14}{'n':>5}{'p50 ms':>9}{'p90 ms':>9}{'p99 ms':>9}{'max ms':>9}")
    for name, st in table.items():
        print(f"{name:<14}{st['n']:>5}{st['p50']:>9.2f}{st['p90']:>9.2f}{st['p99']:>9.2f}{st['max']:>9.2f}")
    ours = table["all"]
    rg_ms = [q.rg_ms for q in sub if q.rg_ms is not None]
    rg_p50 = pct(rg_ms, 0.5)
    ours_sub_p50 = pct([q.ms for q in sub], 0.5)
    ratio = rg_p50 / ours["p50"]
    print(f"\nrg -F -i over the store ({len(sub)} queries, filters ignored, no .zst / opencode.db): "
          f"p50 {rg_p50:.0f} ms, max {max(rg_ms):.0f} ms; ours on the same queries p50 {ours_sub_p50:.2f} ms")
    print(f"p50        : {ours['p50']:8.2f} ms   (target < {TARGETS['p50_ms']:.0f} ms)  "
          f"{mark(ours['p50'] < TARGETS['p50_ms'])}")
    print(f"p99        : {ours['p99']:8.2f} ms   (target < {TARGETS['p99_ms']:.0f} ms) "
          f"{mark(ours['p99'] < TARGETS['p99_ms'])}")
    print(f"rg p50/p50 : {ratio:8.1f} x    (target >= {TARGETS['rg_ratio']:.0f} x)   "
          f"{mark(ratio >= TARGETS['rg_ratio'])}   same-subset ratio {rg_p50 / ours_sub_p50:.1f} x")
    print(f"peak RSS   : {rss_mb:8.1f} MB   (target < {TARGETS['rss_mb']:.0f} MB) "
          f"{mark(rss_mb < TARGETS['rss_mb'])}   (interpreter + imports alone: {rss_start:.1f} MB)")
    slow = sorted((q for q in queries if q.ms > 100), key=lambda q: -q.ms)
    print(f"\nqueries over 100 ms: {len(slow)}")
    for q in slow:
        print(f"  {q.ms:8.1f} ms  {q.kind}{':' + q.sub if q.sub else ''}  {q.text!r}  {q.filters or ''}")
    print("\nslowest 10:")
    for q in sorted(queries, key=lambda q: -q.ms)[:10]:
        print(f"  {q.ms:8.1f} ms  {q.kind}{':' + q.sub if q.sub else ''}  {q.text!r}  {q.filters or ''}"
              f"  hits {q.hits}")
    empty = [q for q in queries if q.hits <= 0]
    print(f"queries with no hit: {len(empty)}")
    for q in empty:
        print(f"  {q.kind} {q.text!r} {q.filters}")
    if args.json:
        figures = {
            "entries": entries, "sessions": sessions, "record_mb": record_mb,
            "size_mb": args.size_mb, "seed": args.seed, "latency_ms": table, "rg_p50_ms": rg_p50,
            "rg_ratio": ratio, "rg_ratio_same_subset": rg_p50 / ours_sub_p50, "rss_mb": rss_mb,
            "rss_start_mb": rss_start, "targets": TARGETS, "queries": [asdict(q) for q in queries],
        }
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(figures, indent=1, default=str), encoding="utf-8")
        print(f"wrote {args.json}")


if __name__ == "__main__":
    main()
