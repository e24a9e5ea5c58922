"""Reliability benchmark: a sync killed with SIGKILL at many moments, then run again, equals one clean sync.

    python bench/reliability.py [--size-mb 100] [--kills 20] [--store DIR]

Generates (or reuses) a mixed store in the native formats (bench/generate.py), syncs it once into a clean
record with the real command (`total-recall sync`, two processes as a user's large sync runs), then, for
each of `--kills` moments spread evenly over that clean sync's wall time, syncs into a fresh record, sends
SIGKILL to the sync at that moment, runs the sync again to its end and compares the record with the clean
one: every session (number, harness, native id, generation, title, entries), every entry (address, author,
kind, key, text, time), the exact strings and the owner spans, as one digest each. It also watches the
second (read-ahead) process of each killed sync and reports how long it outlived its parent and whether it
printed a traceback.

Then the PreCompact hook as Claude Code runs it (`total-recall hook claude-code`, a child process, stdin
JSON), timed from start to exit: (a) while a real sync of the store into a fresh record is running (it
holds the sync lock; the hook's session is one that sync has already committed), and (b) while another
connection holds the clean record's write lock (BEGIN IMMEDIATE) for longer than the hook's bound.

Prints one line per kill, a summary and the two hook timings; exits 1 if any record differs from the clean
one or a hook outlives its bound. Targets (issue 15): ≥ 20 moments of a ≥ 80 MB store, the record equal to
a clean sync every time; a hook with the record locked returns within its bound (`hooks.WAIT_BOUND`).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import select
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from generate import generate
from ingest import ROOT_VARS
from total_recall.keeping.hooks import WAIT_BOUND

# What a record holds, each as rows in a stable order (ids are internal: addresses are compared).
DIGESTS = {
    "sessions": "SELECT id, harness, native_id, generation, title, cwd, entries FROM sessions ORDER BY id",
    "entries": "SELECT session, seq, author, kind, key, text, ts, tool, native_id FROM entries "
               "ORDER BY session, seq",
    "strings": "SELECT e.session, e.seq, s.kind, s.key FROM strings s JOIN entries e ON e.id = s.entry "
               "ORDER BY 1, 2, 3, 4",
    "spans": "SELECT e.session, e.seq, p.start, p.end, p.tag FROM spans p JOIN entries e ON e.id = p.entry "
             "ORDER BY 1, 2, 3, 4",
}


def sync_env(store: Path) -> dict[str, str]:
    env = {**os.environ, "TOTAL_RECALL_SANDBOX": "1", "TOTAL_RECALL_VECTOR_BUDGET": "0"}
    for sub, var in ROOT_VARS.items():
        if (store / sub).exists():
            env[var] = str(store / sub)
    return env


def sync_command(home: Path) -> list[str]:
    return [sys.executable, "-m", "total_recall", "--home", str(home), "sync", "--json"]


def digest(home: Path) -> dict[str, tuple[int, str]]:
    """Row count and sha256 of each of DIGESTS in the record at `home`."""
    db = sqlite3.connect(f"file:{home / 'record.sqlite3'}?mode=ro", uri=True)
    out = {}
    for name, sql in DIGESTS.items():
        h = hashlib.sha256()
        count = 0
        for row in db.execute(sql):
            h.update(repr(row).encode())
            count += 1
        out[name] = (count, h.hexdigest())
    db.close()
    return out


def children(pid: int) -> list[int]:
    """The processes whose parent is `pid` (the read-ahead worker of a sync)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        # The command name may hold spaces or parentheses: the fields start after the last ')'.
        if int(stat[stat.rindex(")") + 2:].split()[1]) == pid:
            found.append(int(entry.name))
    return found


def outlived(pid: int, bound: float) -> float | None:
    """Seconds until process `pid` ends (waited on through a pidfd, no polling), or None past `bound`."""
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        return 0.0
    t = time.perf_counter()
    try:
        ready, _, _ = select.select([fd], [], [], bound)
    finally:
        os.close(fd)
    return time.perf_counter() - t if ready else None


@dataclass
class Kill:
    moment: float
    killed: bool  # False: the sync had already finished at that moment
    entries_at_kill: int
    worker_after_s: float | None  # how long the read-ahead process outlived its parent (None: still alive)
    worker_seen: bool
    traceback: bool
    different: list[str]  # which of DIGESTS differ from the clean sync's

    @property
    def equal(self) -> bool:
        return not self.different


def killed_sync(store: Path, home: Path, moment: float, clean: dict[str, tuple[int, str]]) -> Kill:
    env = sync_env(store)
    proc = subprocess.Popen(sync_command(home), env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    killed = False
    workers: list[int] = []
    try:
        proc.wait(timeout=moment)
    except subprocess.TimeoutExpired:
        workers = children(proc.pid)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        killed = True
    # The worker inherits the sync's stderr: read it to its end once both are gone.
    worker_after = max((outlived(w, 10.0) or 10.0 for w in workers), default=0.0) if workers else 0.0
    stderr = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
    if proc.stderr:
        proc.stderr.close()
    entries_at_kill = 0
    if (home / "record.sqlite3").exists():
        db = sqlite3.connect(f"file:{home / 'record.sqlite3'}?mode=ro", uri=True)
        try:
            entries_at_kill = db.execute("SELECT COUNT(*) FROM entries").fetchone()[0]
        except sqlite3.DatabaseError:
            entries_at_kill = 0  # killed before the first migration committed
        db.close()
    done = subprocess.run(sync_command(home), env=env, capture_output=True)
    if done.returncode not in (0, 2):
        raise SystemExit(f"the sync after a kill failed ({done.returncode}): {done.stderr.decode()[-2000:]}")
    after = digest(home)
    return Kill(moment, killed, entries_at_kill, worker_after if workers else None, bool(workers),
                "Traceback" in stderr, [name for name in DIGESTS if after[name] != clean[name]])


def claude_session(home: Path) -> tuple[str, str, str] | None:
    """(native id, transcript path, cwd) of a Claude Code session the record at `home` has committed."""
    try:
        db = sqlite3.connect(f"file:{home / 'record.sqlite3'}?mode=ro", uri=True)
        try:
            row = db.execute("SELECT native_id, source, COALESCE(cwd, '/') FROM sessions "
                             "WHERE harness = 'claude-code' AND entries > 20 ORDER BY id LIMIT 1").fetchone()
        finally:
            db.close()
    except sqlite3.Error:
        return None  # not created, or not migrated yet
    return None if row is None else (row[0], row[1], row[2])


def run_hook(store: Path, home: Path, session: tuple[str, str, str]) -> tuple[float, str, int]:
    """The PreCompact hook for `session`, as Claude Code runs it: (seconds, stderr, exit code)."""
    payload = json.dumps({"session_id": session[0], "transcript_path": session[1], "cwd": session[2],
                          "permission_mode": "default", "hook_event_name": "PreCompact", "trigger": "auto"})
    t = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "total_recall", "--home", str(home), "hook", "claude-code"],
                          input=payload, env=sync_env(store), capture_output=True, text=True,
                          timeout=WAIT_BOUND * 6)
    return time.perf_counter() - t, done.stderr, done.returncode


def hook_during_sync(store: Path, home: Path) -> str:
    """The hook while a full sync into `home` runs."""
    proc = subprocess.Popen(sync_command(home), env=sync_env(store), stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        session = None
        while proc.poll() is None and session is None:
            time.sleep(0.05)  # a benchmark's poll for the sync's first commit
            session = claude_session(home)
        if session is None or proc.poll() is not None:
            return "the sync ended before it committed a Claude Code session: nothing measured"
        seconds, stderr, code = run_hook(store, home, session)
        running = proc.poll() is None
    finally:
        proc.wait()
    db = sqlite3.connect(f"file:{home / 'record.sqlite3'}?mode=ro", uri=True)
    note = db.execute("SELECT note FROM receipts ORDER BY id DESC LIMIT 1").fetchone()
    db.close()
    return (f"{seconds:.2f} s (bound {WAIT_BOUND:g} s), exit {code}, the sync still running at its end: "
            f"{running}; receipt note: {note[0] if note else None!r}"
            + ("" if seconds <= WAIT_BOUND else " — OVER THE BOUND") + (" TRACEBACK" if "Traceback" in stderr
                                                                        else ""))


def hook_under_write_lock(store: Path, home: Path) -> str:
    """The hook while another connection holds the record's write lock past the hook's bound."""
    session = claude_session(home)
    if session is None:
        return "no Claude Code session in the record: nothing measured"
    holder = sqlite3.connect(home / "record.sqlite3", isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        seconds, stderr, code = run_hook(store, home, session)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    said = stderr.strip().splitlines()[-1] if stderr.strip() else ""
    return (f"{seconds:.2f} s (bound {WAIT_BOUND:g} s), exit {code}: {said!r}"
            + ("" if seconds <= WAIT_BOUND else " — OVER THE BOUND") + (" TRACEBACK" if "Traceback" in stderr
                                                                        else ""))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size-mb", type=float, default=100.0)
    ap.add_argument("--kills", type=int, default=20)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--store", type=Path, default=None, help="reuse or create the generated store here")
    args = ap.parse_args()

    scratch = Path(tempfile.mkdtemp(prefix="tr-reliability-"))
    store = args.store or scratch / "store"
    try:
        if not (store / "claude").exists():
            print(f"generating {args.size_mb:.0f} MB into {store} …", flush=True)
            generate(store, args.size_mb, args.seed)
        size = sum(p.stat().st_size for p in store.rglob("*") if p.is_file())
        t = time.perf_counter()
        clean_home = scratch / "clean"
        done = subprocess.run(sync_command(clean_home), env=sync_env(store), capture_output=True)
        clean_s = time.perf_counter() - t
        if done.returncode not in (0, 2):
            raise SystemExit(f"clean sync failed ({done.returncode}): {done.stderr.decode()[-2000:]}")
        clean = digest(clean_home)
        print(f"store {size / 1e6:.1f} MB; clean sync {clean_s:.1f} s, {clean['entries'][0]:,} entries, "
              f"{clean['sessions'][0]:,} sessions, {clean['strings'][0]:,} exact strings", flush=True)

        kills = []
        for n in range(1, args.kills + 1):
            moment = clean_s * n / (args.kills + 1)
            home = scratch / f"killed-{n}"
            kill = killed_sync(store, home, moment, clean)
            kills.append(kill)
            worker = ("no worker" if not kill.worker_seen else
                      "worker still alive after 10 s" if kill.worker_after_s is None else
                      f"worker gone {kill.worker_after_s * 1000:.0f} ms after")
            print(f"kill {n:2d} at {moment:5.2f} s: {'killed' if kill.killed else 'finished first'}, "
                  f"{kill.entries_at_kill:,} entries committed, {worker}"
                  f"{', TRACEBACK' if kill.traceback else ''} → record "
                  f"{'equal' if kill.equal else 'DIFFERENT: ' + ', '.join(kill.different)}", flush=True)
            shutil.rmtree(home)

        really = [k for k in kills if k.killed]
        equal = sum(k.equal for k in kills)
        waits = [k.worker_after_s for k in really if k.worker_seen and k.worker_after_s is not None]
        print(f"\n{len(really)} of {len(kills)} moments killed a running sync; record equal to the clean "
              f"sync after {equal} of {len(kills)}")
        print(f"read-ahead worker seen at {sum(k.worker_seen for k in really)} kills; outlived its parent "
              f"by at most {max(waits, default=0.0) * 1000:.0f} ms"
              f"{'' if len(waits) == sum(k.worker_seen for k in really) else ' (some still alive at 10 s)'}; "
              f"tracebacks {sum(k.traceback for k in really)}")
        during = hook_during_sync(store, scratch / "hooked")
        print(f"\nPreCompact hook during a running sync: {during}")
        locked = hook_under_write_lock(store, clean_home)
        print(f"PreCompact hook with the write lock held: {locked}")
        if equal != len(kills) or "OVER THE BOUND" in during + locked:
            raise SystemExit(1)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
