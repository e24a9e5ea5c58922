"""Exact strings first: is the entry holding an exact string ranked first when a person searches for it?

    python bench/exact.py [--sessions 120] [--families 20] [--seed N] [--baseline-src DIR] [--json PATH]

Generates coding sessions in the native Claude Code and Codex formats (background text from
bench/generate.py's pools: prompts, replies, logs, tracebacks, code, git output), plants families of exact
strings among them — each family one string and its look-alikes, every member in an entry of its own:
  error     full error lines differing only in a code, a port, a user or a line number
  path      paths sharing all components but one
  hash40/64 full git (40-hex) and sha256 (64-hex) hashes sharing a long prefix
  abbrK     the first K (5, 6, 7, 8, 12) characters of a hash whose look-alikes share the first K-1
            (lengthened as git lengthens an abbreviation when another hex run in the store starts so)
  url       URLs differing in one path segment
  command   shell commands differing in one flag
then syncs them with `total-recall sync` and asks for every member of every family, with
`total-recall search --batch FILE --json` (a third of the queries wrapped in a sentence: "where did we see
`…`?"). A query counts at rank 1 when the first hit's entry holds the string (for an abbreviation, the full
hash), case-blind, white space and JSON escapes aside.

Every string is drawn at random from the seed (a new seed each run unless --seed is given, printed so a run
can be repeated): nothing here is a list a ranker could be tuned on. Reported beside it, on the same queries:
the word index's bm25 alone (the words-only list, the first hit of the FTS5 ranking of the query's words), and
with --baseline-src (a `src` folder of another checkout, such as the commit before this ranking) that code's
`sync` of the same store into a record of its own and its `search --batch` over it.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from random import Random
from typing import Any

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent))
from generate import EXC, WORDS, Pools
from total_recall.find.search import words_query

KINDS = ("error", "path", "hash40", "hash64", "abbr5", "abbr6", "abbr7", "abbr8", "abbr12", "url", "command")
TARGET = 0.99
HEX = "0123456789abcdef"


@dataclass
class Event:
    """One entry to write: an owner prompt, an agent reply, or a shell call with its output."""

    kind: str  # owner | agent | tool
    text: str
    output: str = ""
    planted: bool = False


@dataclass
class Query:
    kind: str
    text: str
    holds: str  # what the first hit must hold
    sentence: bool
    lengthened: bool = False
    harness: str = ""
    ranks: dict[str, bool] = field(default_factory=dict)


def _hex(rng: Random, n: int) -> str:
    return "".join(rng.choice(HEX) for _ in range(n))


def _word(rng: Random) -> str:
    return rng.choice(WORDS)


def _error_family(rng: Random, size: int) -> list[str]:
    """Error lines alike but for one field."""
    w = [_word(rng) for _ in range(6)]
    shape = rng.randrange(4)
    if shape == 0:
        line = f"{w[0]}{rng.randrange(10, 999)}: {w[1]} {w[2]} by unknown {w[3]} (code {{}})"
        values = [_hex(rng, 6) for _ in range(size)]
    elif shape == 1:
        line = f"{rng.choice(EXC)}: {w[0]} '{w[1]}_{w[2]}' is not valid for {w[3]} (line {{}})"
        values = [str(rng.randrange(10, 2000)) for _ in range(size)]
    elif shape == 2:
        net, port = f"10.{rng.randrange(256)}.{rng.randrange(256)}", rng.randrange(1024, 65535)
        line = f"Error: connect ECONNREFUSED {net}.{{}}:{port}"
        values = [str(rng.randrange(1, 255)) for _ in range(size)]
    else:
        line = (f'psql: error: connection to server at "{w[0]}-{rng.randrange(10)}.{w[1]}.internal" failed: '
                f'FATAL: password authentication failed for user "{{}}"')
        values = [f"{_word(rng)}_{rng.randrange(100)}" for _ in range(size)]
    return [line.format(v) for v in dict.fromkeys(values)]


def _mutations(rng: Random, parts: list[str], size: int, vary: Any) -> list[list[str]]:
    """`parts` and look-alikes each differing from it in one part (vary(i) gives a new value for part i)."""
    out, seen = [parts], {tuple(parts)}
    while len(out) < size:
        i = rng.randrange(len(parts))
        other = [*parts]
        other[i] = vary(i)
        if tuple(other) not in seen:
            seen.add(tuple(other))
            out.append(other)
    return out


def _path_family(rng: Random, size: int) -> list[str]:
    exts = [".py", ".ts", ".go", ".yaml", ".toml", ".rs", ".json"]
    root = rng.choice(["/srv", "/home/dev/code", "/opt", "/var/lib"])
    parts = [_word(rng) + "-" + _word(rng), _word(rng), _word(rng), f"{_word(rng)}_{_word(rng)}",
             rng.choice(exts)]
    vary = [lambda: _word(rng) + "-" + _word(rng), lambda: _word(rng), lambda: _word(rng),
            lambda: f"{_word(rng)}_{_word(rng)}", lambda: rng.choice(exts)]
    return [f"{root}/{p[0]}/{p[1]}/{p[2]}/{p[3]}{p[4]}"
            for p in _mutations(rng, parts, size, lambda i: vary[i]())]


def _url_family(rng: Random, size: int) -> list[str]:
    host = f"{_word(rng)}-{rng.randrange(40):02d}.{rng.choice(['eu-west-1', 'internal', 'fra1'])}.example.com"
    parts = [_word(rng), f"v{rng.randrange(1, 4)}", _word(rng), str(rng.randrange(1000, 99999))]
    return [f"https://{host}/{'/'.join(p)}" for p in _mutations(rng, parts, size, lambda i: (
        f"v{rng.randrange(1, 9)}" if i == 1 else str(rng.randrange(1000, 99999)) if i == 3 else _word(rng)))]


def _command_family(rng: Random, size: int) -> list[str]:
    shape = rng.randrange(3)
    if shape == 0:
        flags = [f"-n {_word(rng)}", f"--context {_word(rng)}-{rng.randrange(9)}",
                 f"--timeout={rng.randrange(10, 300)}s"]
        head, tail = f"kubectl rollout restart deployment/{_word(rng)}-{_word(rng)}", ""
    elif shape == 1:
        flags = [f"-k {_word(rng)}_{_word(rng)}", f"--maxfail={rng.randrange(1, 9)}", f"-p no:{_word(rng)}"]
        head, tail = f"pytest -q tests/{_word(rng)}/test_{_word(rng)}_{_word(rng)}.py", ""
    else:
        flags = [f"-p {rng.randrange(1024, 9999)}:{rng.randrange(1024, 9999)}",
                 f"-e {_word(rng).upper()}_{_word(rng).upper()}={_word(rng)}",
                 f"--memory={rng.randrange(1, 16)}g"]
        image = f"registry.internal/{_word(rng)}:{rng.randrange(1, 30)}.{rng.randrange(10)}"
        head, tail = "docker run --rm", f" {image}"

    def vary(i: int) -> str:
        flag = flags[i].split("=")[0].split(" ")[0]
        if "=" in flags[i]:
            return f"{flag}={rng.randrange(1, 400)}"
        return f"{flag} {_word(rng)}{rng.randrange(100)}"

    return [head + " " + " ".join(f) + tail for f in _mutations(rng, flags, size, vary)]


def _hash_family(rng: Random, size: int, length: int, shared: int) -> list[str]:
    """Hashes of `length` hex characters sharing the first `shared`, each differing at the next one."""
    prefix = _hex(rng, shared)
    nexts = rng.sample(HEX, min(size, 16))
    return [prefix + c + _hex(rng, length - shared - 1) for c in nexts]


def families(rng: Random, kind: str, count: int) -> list[list[str]]:
    """`count` families of one kind: the look-alikes of each are its other members."""
    out = []
    for _ in range(count):
        size = rng.randint(6, 9)
        if kind == "error":
            out.append(_error_family(rng, size))
        elif kind == "path":
            out.append(_path_family(rng, size))
        elif kind == "url":
            out.append(_url_family(rng, size))
        elif kind == "command":
            out.append(_command_family(rng, size))
        elif kind in ("hash40", "hash64"):
            out.append(_hash_family(rng, size, int(kind[4:]), rng.randint(8, 30)))
        else:
            k = int(kind[4:])
            out.append(_hash_family(rng, size, rng.choice((40, 40, 64)), k - 1))
    return out


def background(rng: Random, pools: Pools, sessions: int) -> list[list[Event]]:
    """Sessions of prompts, tool calls and replies, text picked from the generator's pools."""
    out = []
    for _ in range(sessions):
        events: list[Event] = []
        for _ in range(rng.randint(4, 14)):
            events.append(Event("owner", pools.prompt(pools.pick(pools.projects))))
            for _ in range(rng.randint(0, 4)):
                _, command, _, output, _ = pools.step()
                events.append(Event("tool", command if " " in command else f"cat {command}", output or "ok"))
            events.append(Event("agent", pools.reply()))
        out.append(events)
    return out


SAYINGS = ("I see `{}` here, looking into it.", "The run stopped at:\n{}\nI will check why.",
           "Noted: {} (from the last run).", "Can you look at {} again? It changed since yesterday.")


def plant(rng: Random, sessions: list[list[Event]], kind: str, value: str) -> int:
    """Put `value` into one entry not yet planted: a line of a tool output, a reply, a prompt, or (a
    command) the call itself. Returns the session's number."""
    while True:
        number = rng.randrange(len(sessions))
        event = rng.choice(sessions[number])
        if event.planted:
            continue
        event.planted = True
        if event.kind == "tool":
            if kind == "command" and rng.random() < 0.5:
                event.text = value
                return number
            lines = event.output.split("\n")
            lines.insert(rng.randint(0, len(lines)), value)
            event.output = "\n".join(lines)
        else:
            event.text = event.text + "\n\n" + rng.choice(SAYINGS).format(value)
        return number


def harness(number: int) -> str:
    """Which harness's format session `number` is written in."""
    return "claude-code" if number % 5 < 3 else "codex"


def write_claude(root: Path, number: int, events: list[Event], rng: Random) -> None:
    sid = f"{rng.getrandbits(32):08x}-0000-4000-8000-{number:012d}"
    cwd = f"/home/dev/code/project-{number % 7}"
    path = root / "projects" / cwd.replace("/", "-") / f"{sid}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    parent, lines = None, []
    for i, e in enumerate(events):
        ts = f"2026-{1 + number % 12:02d}-{1 + number % 28:02d}T{i // 60 % 24:02d}:{i % 60:02d}:00.000Z"
        base = {"isSidechain": False, "sessionId": sid, "cwd": cwd, "version": "2.1.0", "timestamp": ts}

        def put(kind: str, message: dict[str, Any], base: dict[str, Any] = base) -> None:
            nonlocal parent
            uid = f"{number:08x}-0000-4000-8000-{len(lines):012d}"
            lines.append(orjson.dumps({"parentUuid": parent, "type": kind, "uuid": uid, "message": message,
                                       **base}))
            parent = uid

        if e.kind == "owner":
            put("user", {"role": "user", "content": e.text})
        elif e.kind == "agent":
            put("assistant", {"role": "assistant", "content": [{"type": "text", "text": e.text}]})
        else:
            call = f"toolu_{number:06d}{i:06d}"
            put("assistant", {"role": "assistant", "content": [
                {"type": "tool_use", "id": call, "name": "Bash", "input": {"command": e.text}}]})
            put("user", {"role": "user", "content": [
                {"tool_use_id": call, "type": "tool_result", "content": e.output, "is_error": False}]})
    path.write_bytes(b"\n".join(lines) + b"\n")


def write_codex(root: Path, number: int, events: list[Event], rng: Random) -> None:
    day = f"2026/{1 + number % 12:02d}/{1 + number % 28:02d}"
    sid = f"0199{rng.getrandbits(32):08x}-0000-7000-8000-{number:012d}"
    path = root / "sessions" / day / f"rollout-{day.replace('/', '-')}T10-00-00-{sid}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    stamp = f"{day.replace('/', '-')}T10:00:00.000Z"
    lines = [{"timestamp": stamp, "type": "session_meta", "payload": {
        "id": sid, "timestamp": stamp, "cwd": f"/home/dev/code/project-{number % 7}",
        "originator": "codex_cli_rs",
        "cli_version": "0.120.0", "source": "cli", "model_provider": "openai"}}]
    for i, e in enumerate(events):
        if e.kind in ("owner", "agent"):
            role, kind = ("user", "input_text") if e.kind == "owner" else ("assistant", "output_text")
            lines.append({"timestamp": stamp, "type": "response_item", "payload": {
                "type": "message", "role": role, "content": [{"type": kind, "text": e.text}]}})
        else:
            call = f"call_{number:06d}{i:06d}"
            args = {"command": ["bash", "-lc", e.text], "workdir": "/tmp", "timeout_ms": 120000}
            lines.append({"timestamp": stamp, "type": "response_item", "payload": {
                "type": "function_call", "name": "shell", "call_id": call,
                "arguments": orjson.dumps(args).decode()}})
            envelope = {"output": e.output, "metadata": {"exit_code": 0, "duration_seconds": 0.4}}
            lines.append({"timestamp": stamp, "type": "response_item", "payload": {
                "type": "function_call_output", "call_id": call, "output": orjson.dumps(envelope).decode()}})
    path.write_bytes(b"".join(orjson.dumps(line, option=orjson.OPT_APPEND_NEWLINE) for line in lines))


def flat(text: str) -> str:
    for escaped, char in (("\\n", " "), ("\\t", " "), ('\\"', '"'), ("\\\\", "\\")):
        text = text.replace(escaped, char)
    return " ".join(text.lower().split())


def holds(text: str, value: str) -> bool:
    """Whether `text` holds `value` whole, not as the start of a longer token (`-p x1` in `-p x12`)."""
    text, value = flat(text), flat(value)
    at = text.find(value)
    while at >= 0:
        end = at + len(value)
        if not (end < len(text) and (text[end].isalnum() or text[end] == "_")):
            return True
        at = text.find(value, at + 1)
    return False


def abbreviation(full: str, k: int, hex_runs: list[str]) -> str:
    """The shortest prefix of `full` of at least k characters no other hex run of the store starts with."""
    while k < len(full) and any(r.startswith(full[:k]) and r != full for r in hex_runs):
        k += 1
    return full[:k]


def build(out: Path, seed: int, sessions: int, count: int) -> list[Query]:
    rng = Random(seed)
    pools = Pools(Random(seed + 1))
    store = background(rng, pools, sessions)
    planted: list[tuple[str, list[str]]] = []
    where: dict[str, int] = {}
    for kind in KINDS:
        for family in families(rng, kind, count):
            planted.append((kind, family))
            for value in family:
                where[value] = plant(rng, store, kind, value)
    shutil.rmtree(out / "store", ignore_errors=True)
    for n, events in enumerate(store):
        if harness(n) == "claude-code":
            write_claude(out / "store" / "claude", n, events, rng)
        else:
            write_codex(out / "store" / "codex", n, events, rng)
    every = " ".join(e.text + " " + e.output for events in store for e in events).lower()
    hex_runs = sorted(set(re.findall(r"(?<![0-9a-z])[0-9a-f]{5,}", every)))
    queries = []
    for kind, family in planted:
        for value in family:
            text = abbreviation(value, int(kind[4:]), [r for r in hex_runs if r[:4] == value[:4]]) \
                if kind.startswith("abbr") else value
            longer = kind.startswith("abbr") and len(text) > int(kind[4:])
            sentence = rng.random() < 1 / 3
            if sentence:
                text = rng.choice(("where did we see `{}`?", "what was {} about", "{} again?")).format(text)
            queries.append(Query(kind, text, value, sentence, longer, harness(where[value])))
    return queries


def cli(src: Path | None, home: Path, *args: str,
        stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "TOTAL_RECALL_SANDBOX": "1", "TOTAL_RECALL_VECTOR_BUDGET": "0"}
    if src is not None:
        env["PYTHONPATH"] = str(src)
    return subprocess.run([sys.executable, "-m", "total_recall", "--home", str(home), *args], env=env,
                          capture_output=True, text=True, check=False, input=stdin)


def ranked_first(src: Path | None, home: Path, queries: list[Query], label: str) -> float:
    """Runs every query through `search --batch`; marks in each query whether its first hit holds it."""
    batch = "\n".join(q.text for q in queries) + "\n"
    t = time.perf_counter()
    done = cli(src, home, "search", "--batch", "-", "--json", "--limit", "10", stdin=batch)
    seconds = time.perf_counter() - t
    if done.returncode != 0:
        raise SystemExit(f"search --batch ({label}) failed: {done.stderr[-2000:]}")
    db = sqlite3.connect(f"file:{home / 'record.sqlite3'}?mode=ro", uri=True)
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(lines) == len(queries), (len(lines), len(queries))
    for q, line in zip(queries, lines, strict=True):
        hits = line["hits"]
        text = ""
        if hits:
            session, seq = hits[0]["address"][1:].split("#")
            text = db.execute("SELECT text FROM entries WHERE session = ? AND seq = ?",
                              (session, seq)).fetchone()[0]
        q.ranks[label] = holds(text, q.holds)
    db.close()
    return seconds


def bm25_first(home: Path, queries: list[Query]) -> None:
    """The words-only list: the first entry of the FTS5 bm25 ranking of the query's words, every shard."""
    db = sqlite3.connect(f"file:{home / 'record.sqlite3'}?mode=ro", uri=True)
    shards = [r[0] for r in db.execute("SELECT name FROM fts_shards")]
    for q in queries:
        fts = words_query(q.text)
        best: tuple[float, int] | None = None
        for shard in shards if fts else ():
            row = db.execute(f"SELECT bm25({shard}, 1.0, 0.0) AS s, rowid FROM {shard} WHERE {shard} MATCH ? "
                             "ORDER BY s LIMIT 1", (f"text : ({fts})",)).fetchone()
            if row and (best is None or row[0] < best[0]):
                best = (row[0], row[1])
        text = db.execute("SELECT text FROM entries WHERE id = ?", (best[1],)).fetchone()[0] if best else ""
        q.ranks["bm25 alone"] = holds(text, q.holds)
    db.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sessions", type=int, default=120)
    ap.add_argument("--families", type=int, default=20, help="families per kind (6-9 members each)")
    ap.add_argument("--seed", type=int, default=None, help="default: a new one each run (printed)")
    ap.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "out" / "exact")
    ap.add_argument("--src", type=Path, default=None,
                    help="the src folder to sync and search with (default: the installed package)")
    ap.add_argument("--baseline-src", type=Path, default=None,
                    help="the src folder of another checkout: it syncs the same store into a record of "
                         "its own and answers the same queries")
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args()
    seed = args.seed if args.seed is not None else int.from_bytes(os.urandom(4), "big")
    print(f"seed {seed}")
    t = time.perf_counter()
    queries = build(args.out, seed, args.sessions, args.families)
    print(f"generated {args.sessions} sessions and {len(queries)} planted strings "
          f"in {time.perf_counter() - t:.1f} s")
    home = args.out / "record"
    shutil.rmtree(home, ignore_errors=True)
    home.mkdir(parents=True)
    roots = {"TOTAL_RECALL_CLAUDE_ROOT": args.out / "store" / "claude",
             "TOTAL_RECALL_CODEX_ROOT": args.out / "store" / "codex"}
    os.environ.update({k: str(v) for k, v in roots.items()})
    done = cli(args.src, home, "sync", "--json")
    if done.returncode != 0:
        raise SystemExit(f"sync failed: {done.stderr[-2000:]}")
    print(f"synced {json.loads(done.stdout)['entries_added']:,} entries")
    labels = ["this code"]
    seconds = {"this code": ranked_first(args.src, home, queries, "this code")}
    if args.baseline_src:
        # The baseline syncs a record of its own: an older checkout cannot open a record newer code wrote
        # (and it is its reading of the store, envelopes and all, that it is measured with).
        base_home = args.out / "record-baseline"
        shutil.rmtree(base_home, ignore_errors=True)
        base_home.mkdir(parents=True)
        done = cli(args.baseline_src, base_home, "sync", "--json")
        if done.returncode != 0:
            raise SystemExit(f"baseline sync failed: {done.stderr[-2000:]}")
        labels.append("baseline")
        seconds["baseline"] = ranked_first(args.baseline_src, base_home, queries, "baseline")
    bm25_first(home, queries)
    labels.append("bm25 alone")
    by: dict[str, list[Query]] = defaultdict(list)
    for q in queries:
        by[q.kind].append(q)
        by["bare" if not q.sentence else "in a sentence"].append(q)
        by[f"in {q.harness}"].append(q)
        by["all"].append(q)
    print(f"\nrank-1 rate (the first hit holds the string; target >= {TARGET:.0%})")
    print(f"{'kind':<15}{'n':>5}" + "".join(f"{label:>13}" for label in labels))
    table: dict[str, dict[str, float]] = {}
    for kind in (*KINDS, "bare", "in a sentence", "in claude-code", "in codex", "all"):
        qs = by[kind]
        table[kind] = {"n": len(qs), **{label: sum(q.ranks[label] for q in qs) / len(qs) for label in labels}}
        print(f"{kind:<15}{len(qs):>5}" + "".join(f"{table[kind][label]:>13.1%}" for label in labels))
    lengthened = sum(q.lengthened for q in queries)
    print(f"\nabbreviations lengthened as git would (another hex run starts the same way): {lengthened}")
    print("seconds for the whole batch: " + ", ".join(f"{k} {v:.1f}" for k, v in seconds.items()))
    missed = sorted((q for q in queries if not q.ranks["this code"]), key=lambda q: q.harness)
    print(f"missed by this code: {len(missed)} (the first 40 here)"
          + "".join(f"\n  {q.harness:<12}{q.kind:<8} {q.text!r}" for q in missed[:40]))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"seed": seed, "table": table, "seconds": seconds,
                                         "missed": [(q.kind, q.text) for q in missed]}, indent=1))


if __name__ == "__main__":
    main()
