"""Erase benchmark: erasing whole generated sessions with every copy the store holds of their words.

    python bench/erase.py --size-mb 100 --seed 7 [--sessions 3] [--against REV]

Generates a mixed store in the native formats (`generate.py`), syncs it once into a record, then for each
of the `--sessions` largest sessions of the record, on a fresh copy of that record, runs the real command
(`total-recall erase sN` in a child process) and times it. Beside each erase it measures its floor in the
same run: one read of every entry and source line (decompressed) of the sessions the erase touched, the
least any erase that looks for copies of the words in those lines must read. With `--against REV`, the
same sessions are erased by the code of git revision REV (`git archive` on PYTHONPATH) on copies of a record
that code synced from the same store (an older version refuses a record a newer one has migrated); the
count it erased is shown where it differs.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from generate import generate
from ingest import ROOT_VARS
from total_recall.record.lines import unpack

REPO = Path(__file__).resolve().parent.parent


def environment(store: Path, src: Path | None = None) -> dict[str, str]:
    env = {**os.environ, "TOTAL_RECALL_SANDBOX": "1", "TOTAL_RECALL_VECTOR_BUDGET": "0"}
    for sub, var in ROOT_VARS.items():
        if (store / sub).exists():
            env[var] = str(store / sub)
    if src is not None:
        env["PYTHONPATH"] = str(src)
    return env


def command(home: Path, env: dict[str, str], *args: str) -> tuple[float, dict[str, object]]:
    t = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "total_recall", "--home", str(home), *args, "--json"],
                          env=env, capture_output=True, check=False)
    seconds = time.perf_counter() - t
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(args)} failed ({done.returncode}): {done.stderr.decode()[-2000:]}")
    reply: dict[str, object] = json.loads(done.stdout)
    return seconds, reply


def largest(home: Path, n: int) -> list[tuple[int, str, int]]:
    db = sqlite3.connect(f"file:{home / 'record.sqlite3'}?mode=ro", uri=True)
    rows = db.execute("SELECT s.id, s.harness, COUNT(*) AS c FROM entries e "
                      "JOIN sessions s ON s.id = e.session GROUP BY s.id ORDER BY c DESC, s.id LIMIT ?",
                      (n,)).fetchall()
    db.close()
    return [(int(r[0]), str(r[1]), int(r[2])) for r in rows]


def native_of(home: Path, session: int) -> tuple[str, str]:
    db = sqlite3.connect(f"file:{home / 'record.sqlite3'}?mode=ro", uri=True)
    harness, native = db.execute("SELECT harness, native_id FROM sessions WHERE id = ?",
                                 (session,)).fetchone()
    db.close()
    return str(harness), str(native)


def number_of(home: Path, harness: str, native: str) -> int:
    """The same session's number in another record (synced by other code from the same store)."""
    db = sqlite3.connect(f"file:{home / 'record.sqlite3'}?mode=ro", uri=True)
    row = db.execute("SELECT id FROM sessions WHERE harness = ? AND native_id = ? ORDER BY id LIMIT 1",
                     (harness, native)).fetchone()
    db.close()
    return int(row[0])


def floor(home: Path, sessions: list[int]) -> float:
    """Seconds to read every entry and source line of `sessions` once, as a read-only connection."""
    db = sqlite3.connect(f"file:{home / 'record.sqlite3'}?mode=ro", uri=True)
    t = time.perf_counter()
    seen: set[int] = set()
    for _text, raw_id, raw in db.execute(
        "SELECT e.text, e.raw_id, r.raw FROM entries e LEFT JOIN raws r ON r.id = e.raw_id "
        "WHERE e.session IN (SELECT value FROM json_each(?))", (json.dumps(sessions),)
    ):
        if raw_id is not None and raw_id not in seen:
            seen.add(raw_id)
            unpack(raw)
    seconds = time.perf_counter() - t
    db.close()
    return seconds


def erase_on_copy(base: Path, scratch: Path, env: dict[str, str], session: int) -> tuple[float, list[str]]:
    home = scratch / f"home-{session}"
    shutil.rmtree(home, ignore_errors=True)
    shutil.copytree(base, home)
    seconds, reply = command(home, env, "erase", f"s{session}", "--reason", "bench")
    shutil.rmtree(home)
    erased = reply["erased"]
    assert isinstance(erased, list)
    return seconds, [str(a) for a in erased]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size-mb", type=float, default=100.0)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--sessions", type=int, default=3, help="how many of the largest sessions to erase")
    ap.add_argument("--against", default=None, help="a git revision whose code erases the same sessions")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="tr-erase-") as tmp:
        scratch = Path(tmp)
        store = scratch / "store"
        generate(store, args.size_mb, args.seed)
        env = environment(store)
        base = scratch / "base"
        synced, _ = command(base, env, "sync")
        print(f"store {args.size_mb:g} MB (seed {args.seed}) synced in {synced:.1f} s")
        old_env = None
        if args.against:
            old = scratch / "old"
            old.mkdir()
            archive = subprocess.run(["git", "-C", str(REPO), "archive", args.against, "src"],
                                     capture_output=True, check=True).stdout
            subprocess.run(["tar", "-x", "-C", str(old)], input=archive, check=True)
            old_env = environment(store, old / "src")
            # Its own record: an older version refuses one a newer version has migrated.
            old_base = scratch / "base-old"
            command(old_base, old_env, "sync")
        print("| session | entries | erased (copies) | erase s | floor s | erase / floor |"
              + (f" {args.against} s | ratio |" if old_env else ""))
        print("|---|---|---|---|---|---|" + ("---|---|" if old_env else ""))
        for session, harness, count in largest(base, args.sessions):
            seconds, erased = erase_on_copy(base, scratch, env, session)
            touched = sorted({int(a[1:].split("#")[0]) for a in erased})
            least = floor(base, touched)
            row = (f"| s{session} ({harness}) | {count:,} | {len(erased):,} ({len(erased) - count:,}) "
                   f"| {seconds:.1f} | {least:.2f} | {seconds / least:.1f}× |")
            if old_env:
                twin = number_of(old_base, *native_of(base, session))
                before, old_erased = erase_on_copy(old_base, scratch, old_env, twin)
                same = "" if len(old_erased) == len(erased) else f" ({len(old_erased):,} erased)"
                row += f" {before:.1f}{same} | {seconds / before:.2f} |"
            print(row, flush=True)


if __name__ == "__main__":
    main()
