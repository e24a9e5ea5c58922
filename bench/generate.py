#!/usr/bin/env python3
"""Deterministic generator of a large, realistic, mixed store of agent sessions in their native formats.

    python bench/generate.py OUT_DIR --size-mb 1000 [--seed 1]

Layout under OUT_DIR (each top folder can be handed to a reader as its root):
    claude/projects/<slug>/<uuid>.jsonl  (+ <uuid>/subagents/agent-<id>.jsonl + .meta.json)
    codex/sessions/YYYY/MM/DD/rollout-<ts>-<uuid>.jsonl  (~10% compressed to .jsonl.zst, plain removed)
    vibe/logs/session/session_<YYYYmmdd_HHMMSS>_<id8>/{meta.json,messages.jsonl}
    openclaw/agents/main/sessions/<uuid>.jsonl  (pi v3 tree) + sessions.json
    opencode/opencode.db  (opencode 1.18.33 schema; project/session/message/part rows)

All text is picked from pools or sliced at random offsets out of pre-built corpora, so a line costs a few
dict operations and one orjson call; sessions are written line by line (memory stays flat).
"""

from __future__ import annotations

import argparse
import operator
import os
import re
import sqlite3
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from random import Random
from typing import IO, Any

import orjson
import zstandard

SHARES = {"claude": 0.45, "codex": 0.30, "opencode": 0.10, "vibe": 0.08, "openclaw": 0.07}
OPENCODE_SCHEMA = Path(os.environ.get("TOTAL_RECALL_OPENCODE_SCHEMA") or Path(__file__).resolve().parents[1]
                       / "tests/fixtures/sessions/opencode/schema_opencode_1.18.33.sql")
YEAR_START = 1764547200  # 2025-12-01T00:00:00Z; sessions start anywhere in the following 365 days
JsonObj = dict[str, Any]

WORDS = """
cache index shard replica queue worker scheduler pipeline buffer socket handler router middleware session
token cookie header payload schema migration table column query cursor transaction lock mutex semaphore
channel stream batch chunk offset checksum digest hash signature certificate keystore secret vault config
manifest registry image container volume mount namespace cluster node pod service ingress gateway proxy
upstream backend frontend client server endpoint request response timeout retry backoff jitter throttle quota
limit budget metric counter gauge histogram trace span log logger sink appender formatter parser lexer
tokenizer compiler linker loader bundle module package crate dependency lockfile version release tag branch
commit merge rebase diff patch hunk blame bisect stash hook plugin extension adapter driver connector bridge
codec encoder decoder serializer snapshot checkpoint journal wal compaction eviction invalidation prefetch
warmup ttl lease heartbeat election quorum consensus raft gossip leader follower partition topic consumer
producer watermark window aggregate reducer mapper filter predicate iterator generator coroutine future
promise callback event listener emitter dispatcher reactor executor pool thread process fork signal pipe inode
block page frame heap stack arena allocator finalizer refcount pointer slice vector matrix tensor embedding
model weight gradient optimizer epoch loss sample dataset fixture mock stub spy assertion regression benchmark
profile flamegraph latency throughput percentile alert incident runbook deploy rollout canary rollback feature
flag toggle experiment cohort tenant account user role permission policy scope grant audit webhook cron job
task ticket backlog invoice order cart checkout payment refund coupon inventory warehouse shipment address
customer catalog product price currency tax discount subscription plan trial renewal notification email
template render layout component widget modal dropdown tooltip viewport breakpoint theme font asset sprite
shader texture mesh scene camera sensor firmware serial baud interrupt watchdog bootloader kernel syscall
sandbox seccomp cgroup capability selinux apparmor firewall nat dns resolver tls handshake cipher nonce
""".split()
DIRS = "src lib internal pkg app tests cmd api core services web scripts deploy config docs tools".split()
EXTS = ".py .py .py .ts .tsx .go .rs .js .yaml .toml .sql .md .sh .json".split()
EXC = """ValueError KeyError TypeError RuntimeError AttributeError IndexError TimeoutError PermissionError
ConnectionResetError FileNotFoundError IntegrityError OperationalError ValidationError JSONDecodeError
AssertionError NotImplementedError UnicodeDecodeError RecursionError OverflowError""".split()
MODELS = {"claude": ["claude-opus-4-7", "claude-sonnet-4-5", "claude-sonnet-4-6", "claude-haiku-4-5"],
          "codex": ["gpt-5.3-codex", "gpt-5.4", "gpt-5.2-codex"], "openclaw": ["claude-opus-4-7", "gpt-5.4"],
          "opencode": ["claude-sonnet-4-5", "gpt-5.4", "qwen3-coder-480b", "kimi-k2.5"]}
# Templates: <key> becomes a random entry of pool `key`; one template per line, code blocks split on "---".
SENTENCES = """The <w> in `<path>` is only called from `<snake>()`, so changing it is safe.
I checked `<path>`: `<camel>` already handles the empty <w>.
Tests pass locally (<n> passed, <d> skipped in <n>.<d>s).
This looks like a race between the <w> and the <w>: both touch `<snake>` without a lock.
Commit `<h7>` introduced the regression when it changed `<pascal>`.
Next I'll run `<cmd>` and compare the <w> output.
The error `<err>` comes from `<path>` line <n>.
<pascal> is configured with a <w> of <n> and a <w> timeout of <d>s.
On <host> the <w> runs version <ver>, locally it is <ver>.
See <url> for the <w> details.
I'd rather not touch the <w> <w> until we know why `<camel>` returns null.
The user wants the <w> to keep the <w> order, so a stable sort on `<snake>` is enough.
Let me check whether `<snake>` is still referenced in `<path>`.
Moving `<camel>` into `<path>` removes the circular import with the <w> module.
The <w> <w> grew from <n> MB to <n> MB after the <w> change.
Renamed `<snake>` to `<snake>` and updated <n> call sites.
I should verify the <w> before I edit `<path>`; the last attempt failed with `<err>`.
The fix is to pass the <w> explicitly instead of reading it from `<snake>`.""".splitlines()
ERRORS = """<exc>: <w> '<snake>' is not valid for <w> <camel>
ModuleNotFoundError: No module named '<snake>'
error[E0<n>]: mismatched types: expected `<pascal>`, found `&<pascal>`
panic: runtime error: index out of range [<d>] with length <d>
TypeError: Cannot read properties of undefined (reading '<camel>')
psycopg.errors.UniqueViolation: duplicate key value violates unique constraint "<snake>_key"
curl: (7) Failed to connect to <host> port <n>: Connection refused
fatal: unable to access '<url>': The requested URL returned error: 403
<path>:<n>:<d>: error: '<camel>' is declared but never used
E   AssertionError: assert <n> == <n>""".splitlines()
COMMANDS = """pytest -q <test> -k <snake>
git log --stat -n <d>
rg -n '<camel>' <dir>/
git diff --stat <h7>..HEAD
journalctl -u <w>-<w> --since '<d> hours ago' --no-pager | tail -n <n>
go test ./<dir>/<w>/... -run Test<pascal>
npm run test -- <path>
cargo build --release -p <w>-<w>
kubectl -n <w> logs deploy/<w>-<w> --tail=<n>
python -m <snake>.cli --<w> <path>
curl -sS -o /dev/null -w '%{http_code} %{time_total}' <url>
git commit -am "fix(<w>): handle <w> in <snake>"
docker compose logs --tail <n> <w>""".splitlines()
PROMPTS = """can you fix the failing test in <test>? it broke after <h7>
why does `<snake>` return None when the <w> is empty? (<ctx>)
add a --<w>-<w> option to the <ctx> <w> command
<sent> Please check <url>.
refactor <path> so <pascal> doesn't depend on <pascal>
bump <w> to <ver> and make sure <ctx> still builds
commit this
ok, now run the tests
push it and open a PR against main
the <w> on <host> is slow again, look at `<snake>`""".splitlines()
LOGS = """<date> <clock> INFO [<snake>] <host> <sent>
<date> <clock> DEBUG [<snake>] <host> <w> <camel> took <n>ms (<h12>)
<date> <clock> INFO [<snake>] <host> GET /api/v<d>/<w>/<n> 200 <n>ms
<date> <clock> WARN [<snake>] <host> retrying <w> in <d>s (attempt <d>/5)
<date> <clock> ERROR [<snake>] <host> <err>""".splitlines()
TESTS = """<test>::test_<snake> PASSED [<pct>%]
<test>::test_<snake> PASSED [<pct>%]
<test>::test_<snake> SKIPPED (<w> not available) [<pct>%]
<test>::test_<snake> FAILED [<pct>%]
--- FAIL: Test<pascal> (0.<n>s)
ok  \tgit.example.com/<w>/<w>/<dir>\t0.<n>s
  ✓ renders the <w> <w> (<n> ms)
========== <d> failed, <n> passed, <d> skipped in <n>.<d>s ==========""".splitlines()
CODE = """def <snake>(<snake>: <pascal>, limit: int = <n>) -> <pascal> | None:
    \"\"\"<sent>\"\"\"
    found = <snake>.<snake>(limit)
    if not found:
        raise <exc>(f"<w> {limit} not found in <w>")
    for item in found.<snake>():
        cache[item.<snake>] = item
    return found.get(limit)
---
export async function <camel>(input: <pascal>): Promise<<pascal>> {
  const <camel> = await <camel>(input.<camel>);
  if (!input.<camel>) throw new Error(`<w> ${input.id} missing`);
  return { ...input, <camel>: Date.now(), retries: <n> };
}
---
func (s *<pascal>) <pascal>(ctx context.Context, id string) (*<pascal>, error) {
\tv, err := s.<camel>.Get(ctx, id)
\tif err != nil {
\t\treturn nil, fmt.Errorf("<w> %s: %w", id, err)
\t}
\treturn v, nil
}""".split("\n---\n")
TRACE_FRAME = '  File "/srv/<proj>/<path>", line <n>, in <snake>\n    <snake> = <snake>.<snake>(<snake>)'
GIT = """commit <hash>
Author: <user> <<user>@example.com>
Date:   <date> <hms> +0000

    fix(<w>): <sent>

 <path> | <n> ++++---"""
PH = re.compile(r"<(\w+)>")
B62 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
_MINUTES: dict[int, str] = {}
_SECONDS = [f"{s // 1000:02d}.{s % 1000:03d}Z" for s in range(60000)]
_NUMBERED = [f"{i:>6}\u2192" for i in range(1, 60001)]  # how Claude's Read tool numbers file lines


def iso(ms: int) -> str:
    """Epoch milliseconds as `YYYY-MM-DDTHH:MM:SS.mmmZ` (minute prefixes are cached)."""
    minute, rest = divmod(ms, 60000)
    pre = _MINUTES.get(minute)
    if pre is None:
        if len(_MINUTES) > 1 << 16:
            _MINUTES.clear()
        t = time.gmtime(minute * 60)
        pre = f"{t.tm_year:04d}-{t.tm_mon:02d}-{t.tm_mday:02d}T{t.tm_hour:02d}:{t.tm_min:02d}:"
        _MINUTES[minute] = pre
    return pre + _SECONDS[rest]


class Pools:
    """Word pools, generated identifiers and text corpora; everything later is picked or sliced from here."""

    def __init__(self, rng: Random) -> None:
        self.rng = rng
        r = self.r = rng.random
        pick = self.pick
        snake = [f"{pick(WORDS)}_{pick(WORDS)}" + (f"_{pick(WORDS)}" if r() < 0.3 else "")
                 for _ in range(3000)]
        p: dict[str, list[str]] = {"w": WORDS, "snake": snake, "dir": DIRS, "exc": EXC}
        p["camel"] = [s.split("_")[0] + "".join(x.title() for x in s.split("_")[1:]) for s in snake]
        p["pascal"] = [s.replace("_", " ").title().replace(" ", "") for s in snake]
        p["n"], p["d"] = [str(i) for i in range(1000)], [str(i) for i in range(10)]
        p["pct"] = [f"{i:3d}" for i in range(101)]
        p["hash"] = [f"{rng.getrandbits(160):040x}" for _ in range(6000)]
        p["h7"], p["h12"] = [h[:7] for h in p["hash"]], [h[:12] for h in p["hash"]]
        p["path"] = [f"{pick(DIRS)}/{pick(WORDS)}/{pick(snake)}{pick(EXTS)}" for _ in range(4000)]
        p["test"] = [f"tests/{pick(WORDS)}/test_{pick(snake)}.py" for _ in range(800)]
        zones = ["eu-west-1", "us-east-2", "fra1", "ams3", "internal"]
        p["host"] = [f"{pick(WORDS)}-{int(r() * 40):02d}.{pick(zones)}.example.com" for _ in range(500)]
        p["url"] = [f"https://{pick(p['host'])}/{pick(WORDS)}/{pick(p['camel'])}?id={int(r() * 1e6)}"
                    for _ in range(800)]
        p["ver"] = [f"{int(r() * 9)}.{int(r() * 30)}.{int(r() * 20)}" for _ in range(400)]
        p["proj"] = sorted({f"{pick(WORDS)}-{pick(WORDS)}" for _ in range(60)})
        p["user"] = ["dev", "alice", "bob", "mkowalski", "jdoe", "sam", "priya", "lucas"]
        p["date"] = [f"2026-{m:02d}-{d:02d}" for m in range(1, 13) for d in range(1, 29)]
        p["clock"] = [f"{int(r() * 24):02d}:{int(r() * 60):02d}:{int(r() * 60):02d},{int(r() * 1000):03d}"
                      for _ in range(5000)]
        p["hms"] = [c[:8] for c in p["clock"]]
        self.p = p
        p["err"] = [self.fill(pick(ERRORS)) for _ in range(3000)]
        p["cmd"] = [self.fill(pick(COMMANDS)) for _ in range(3000)]
        p["sent"] = [self.fill(pick(SENTENCES)) for _ in range(24000)]
        self.snake, self.camel, self.paths, self.hashes = snake, p["camel"], p["path"], p["hash"]
        self.sentences, self.commands, self.projects = p["sent"], p["cmd"], p["proj"]
        self.sizes = [int(60 * 800 ** (u * u)) for u in (r() for _ in range(8192))]  # median 320 B, max 48 KB
        self.code = self.corpus(lambda: self.fill(pick(CODE)) + "\n", 2_500_000)
        self.logs = self.corpus(lambda: self.fill(pick(LOGS)), 2_000_000)
        self.testout = self.corpus(lambda: self.fill(pick(TESTS)), 1_000_000)
        self.traces = self.corpus(lambda: "Traceback (most recent call last):\n" + "\n".join(
            self.fill(TRACE_FRAME) for _ in range(2 + int(r() * 6))) + "\n" + pick(p["err"]), 800_000)
        self.gitlog = self.corpus(lambda: self.fill(GIT), 600_000)
        self.noise = "".join(B62[int(r() * 62)] for _ in range(1 << 16))

    def pick(self, seq: list[str]) -> str:
        return seq[int(self.r() * len(seq))]

    def n(self, hi: int) -> int:
        return int(self.r() * hi)

    def fill(self, template: str) -> str:
        p, pick = self.p, self.pick
        return PH.sub(lambda m: pick(p[m[1]]) if m[1] in p else m[0], template)

    def corpus(self, block: Callable[[], str], size: int) -> str:
        out: list[str] = []
        total = 0
        while total < size:
            out.append(block())
            total += len(out[-1]) + 1
        return "\n".join(out) + "\n"

    def slice(self, corpus: str, size: int) -> str:
        """About `size` characters of whole lines from a random place in `corpus`."""
        size = min(size, len(corpus) // 2)
        start = corpus.find("\n", int(self.r() * (len(corpus) - size - 1))) + 1
        end = corpus.rfind("\n", start, start + size)
        return corpus[start : end if end > start else start + size]

    def b62(self, n: int) -> str:
        i = int(self.r() * (len(self.noise) - n))
        return self.noise[i : i + n]

    def size(self) -> int:
        return self.sizes[int(self.r() * 8192)]

    def prose(self, lo: int, hi: int) -> str:
        s, r, n = self.sentences, self.r, len(self.sentences)
        return " ".join([s[int(r() * n)] for _ in range(lo + int(r() * (hi - lo + 1)))])

    def prompt(self, ctx: str) -> str:
        k = self.r()
        if k < 0.08:
            return (f"I get this when running `{self.pick(self.commands)}`:\n\n```\n"
                    f"{self.slice(self.traces, self.size())}\n```\nany idea?")
        if k < 0.14:
            return f"here's the log, {ctx} misbehaves again:\n\n{self.slice(self.logs, self.size())}"
        return self.fill(self.pick(PROMPTS)).replace("<ctx>", ctx)

    def reply(self) -> str:
        parts = [self.prose(1, 4)]
        if self.r() < 0.4:
            parts.append("\n".join(f"- `{self.pick(self.paths)}`: {self.pick(self.sentences)}"
                                   for _ in range(1 + self.n(4))))
        if self.r() < 0.3:
            parts.append(f"```\n{self.slice(self.code, 200 + self.n(1500))}\n```")
        return "\n\n".join(parts)

    def step(self) -> tuple[str, str, str, str, bool]:
        """One tool use: (kind, arg, arg2, output, is_error), kind in bash/read/edit/grep/write."""
        r = self.r()
        if r < 0.5:
            cmd = self.pick(self.commands)
            src = self.testout if "test" in cmd else self.gitlog if cmd.startswith("git") else self.logs
            out = self.slice(src, self.size())
            if err := self.r() < 0.12:
                out = f"{out}\n{self.slice(self.traces, 300 + self.n(3000))}"
            return "bash", cmd, "", out, err
        if r < 0.75:
            return "read", self.pick(self.paths), "", self.slice(self.code, self.size()), False
        if r < 0.9:
            old, new = self.slice(self.code, 40 + self.n(400)), self.slice(self.code, 40 + self.n(600))
            return "edit", self.pick(self.paths), old, new, False
        if r < 0.96:
            hits = [f"{self.pick(self.paths)}:{self.n(400) + 1}:{self.slice(self.code, 80)}"
                    for _ in range(1 + self.n(12))]
            return "grep", self.pick(self.camel), self.pick(DIRS), "\n".join(hits), False
        return "write", self.pick(self.paths), self.slice(self.code, self.size()), "", False

    def session_lines(self, budget_lines: int) -> int:
        """10..2000 lines, most sessions short (median ~85), capped by what the budget still allows."""
        return max(10, min(int(10 * 200 ** (self.r() ** 1.3)), budget_lines))


@dataclass
class Stat:
    sessions: int = 0
    files: int = 0
    lines: int = 0
    bytes: int = 0


class Jsonl:
    """A buffered JSONL writer; counts land in the harness's Stat on close."""

    def __init__(self, path: Path, stat: Stat) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.f: IO[bytes] = path.open("wb", buffering=1 << 20)
        self.stat = stat
        self.n = 0

    def put(self, obj: JsonObj) -> None:
        self.f.write(orjson.dumps(obj, option=orjson.OPT_APPEND_NEWLINE))
        self.n += 1

    def close(self) -> None:
        self.stat.bytes += self.f.tell()
        self.stat.lines += self.n
        self.stat.files += 1
        self.f.close()


class Generator:
    def __init__(self, out: Path, size_mb: float, seed: int) -> None:
        self.out = out
        self.rng = Random(seed)
        self.r = self.rng.random
        self.pools = P = Pools(self.rng)
        self.user = user = P.pick(P.p["user"])
        roots = [f"/home/{user}/code", f"/home/{user}/work", "/srv"]
        self.cwd = {name: f"{roots[i % 3]}/{name}" for i, name in enumerate(P.projects)}
        self.budget = {h: int(size_mb * 1e6 * s) for h, s in SHARES.items()}
        self.stats = {h: Stat() for h in SHARES}

    def uuid4(self) -> str:
        h = f"{self.rng.getrandbits(128):032x}"
        return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{'89ab'[int(h[16], 16) & 3]}{h[17:20]}-{h[20:]}"

    def uuid7(self, ms: int) -> str:
        h = f"{ms:012x}{self.rng.getrandbits(80):020x}"
        return f"{h[:8]}-{h[8:12]}-7{h[13:16]}-{'89ab'[int(h[16], 16) & 3]}{h[17:20]}-{h[20:32]}"

    def b62(self, n: int) -> str:
        return self.pools.b62(n)

    def start(self) -> int:
        return (YEAR_START + int(self.r() * 365 * 86400)) * 1000

    def gap(self, lo: float, hi: float) -> int:
        """Milliseconds to the next event, skewed towards `lo`."""
        return int((lo + (hi - lo) * self.r() ** 3) * 1000)

    def session(self, h: str) -> tuple[str, str, int]:
        """(project name, cwd, line target) for a new session of harness `h`."""
        name = self.pools.pick(self.pools.projects)
        left = max(10, (self.budget[h] - self.stats[h].bytes) // 2500)
        return name, self.cwd[name], self.pools.session_lines(left)

    def steps(self, most: int) -> range:
        return range(int(self.r() * self.r() * most))

    # --- Claude Code ------------------------------------------------------------------------------
    def claude(self) -> None:
        P, r, st = self.pools, self.r, self.stats["claude"]
        name, cwd, target = self.session("claude")
        sid = self.uuid4()
        folder = self.out / "claude" / "projects" / cwd.replace("/", "-").replace(".", "-")
        w = Jsonl(folder / f"{sid}.jsonl", st)
        model = P.pick(MODELS["claude"])
        branch = P.pick(["main", "main", "dev", f"fix/{P.pick(P.snake)}"])
        tail = {"userType": "external", "entrypoint": "cli", "cwd": cwd, "sessionId": sid,
                "version": f"2.1.{int(r() * 300)}", "gitBranch": branch}
        now = self.start()
        last: str | None = None
        prompt_parent: str | None = None
        prompt = ""

        def put(kind: str, body: JsonObj, parent: str | None = "last") -> str:
            nonlocal last
            last_, last = last, self.uuid4()
            w.put({"parentUuid": last_ if parent == "last" else parent, "isSidechain": False, **body,
                   "type": kind, "uuid": last, "timestamp": iso(now), **tail})
            return last

        def assistant(blocks: list[JsonObj], stop: str) -> None:
            nonlocal now
            mid, rid = "msg_01" + self.b62(22), "req_011C" + self.b62(20)
            usage = {"input_tokens": int(r() * 50), "cache_creation_input_tokens": int(r() * 8000),
                     "cache_read_input_tokens": int(r() * 150000), "output_tokens": int(r() * 2000),
                     "service_tier": "standard"}
            for i, b in enumerate(blocks):  # one content block per line, all sharing message.id
                now += self.gap(0.2, 20)
                put("assistant", {"message": {
                    "model": model, "id": mid, "type": "message", "role": "assistant", "content": [b],
                    "stop_reason": stop if i == len(blocks) - 1 else None, "stop_sequence": None,
                    "usage": usage}, "requestId": rid})

        compacted = target < 400
        while w.n < target:
            now += self.gap(5, 900)
            if r() < 0.05 and prompt_parent is not None:
                last = prompt_parent  # a rewind: this prompt becomes a sibling of the previous one
            prompt_parent = last
            if r() < 0.5:
                m = self.uuid4()
                w.put({"type": "file-history-snapshot", "messageId": m, "isSnapshotUpdate": False,
                       "snapshot": {"messageId": m, "trackedFileBackups": {}, "timestamp": iso(now)}})
            prompt = P.prompt(name)
            put("user", {"message": {"role": "user", "content": prompt}, "permissionMode": "default"})
            if r() < 0.2:
                put("attachment", {"attachment": {"type": "hook_success", "hookName": "UserPromptSubmit",
                                                  "hookEvent": "UserPromptSubmit", "exitCode": 0}})
            for _ in self.steps(12):
                kind, a1, a2, out, err = P.step()
                tid, path = "toolu_01" + self.b62(22), f"{cwd}/{a1}"
                inp: JsonObj = {"file_path": path}
                res: Any
                if kind == "bash":
                    inp = {"command": a1, "description": P.prose(1, 1)[:60]}
                    res = {"stdout": out, "stderr": "", "interrupted": False, "isImage": False}
                    if err:
                        out = res = f"Error: Exit code 1\n{out}"
                elif kind == "read":
                    lines = out.split("\n")
                    res = {"type": "text", "file": {"filePath": path, "content": out, "numLines": len(lines),
                                                    "startLine": 1, "totalLines": len(lines)}}
                    out = "\n".join(map(operator.add, _NUMBERED, lines))
                elif kind == "edit":
                    inp |= {"old_string": a2, "new_string": out}
                    res = {"filePath": path, "oldString": a2, "newString": out, "userModified": False}
                    out = f"The file {path} has been updated successfully."
                elif kind == "grep":
                    inp, res = {"pattern": a1, "path": a2, "output_mode": "content"}, {"mode": "content"}
                else:
                    inp["content"], res = a2, {"type": "create", "filePath": path}
                    out = f"File created successfully at: {path}"
                blocks: list[JsonObj] = []
                if r() < 0.3:
                    blocks.append({"type": "thinking", "thinking": P.prose(1, 5), "signature": self.b62(120)})
                if r() < 0.5:
                    blocks.append({"type": "text", "text": P.prose(1, 2)})
                blocks.append({"type": "tool_use", "id": tid, "name": kind.title(), "input": inp})
                assistant(blocks, "tool_use")
                now += self.gap(0.1, 60)
                put("user", {"message": {"role": "user", "content": [
                    {"tool_use_id": tid, "type": "tool_result", "content": out, "is_error": err}]},
                    "toolUseResult": res, "sourceToolAssistantUUID": last})
            assistant([{"type": "text", "text": P.reply()}], "end_turn")
            if r() < 0.3:
                put("system", {"subtype": "turn_duration", "durationMs": int(r() * 300000), "isMeta": False})
            if not compacted and w.n > target * 0.6:
                compacted, prompt_parent = True, None
                now += self.gap(1, 30)
                cm = {"trigger": "auto", "preTokens": 150000 + int(r() * 30000)}
                put("system", {"subtype": "compact_boundary", "content": "Conversation compacted",
                               "logicalParentUuid": last, "compactMetadata": cm}, parent=None)
                put("user", {"message": {"role": "user", "content": "This session is being continued from a "
                             "previous conversation that ran out of context. Summary:\n" + P.prose(4, 12)},
                             "isCompactSummary": True, "isVisibleInTranscriptOnly": True})
        if r() < 0.7:
            w.put({"type": "ai-title", "sessionId": sid, "aiTitle": P.prose(1, 1)[:60]})
        w.put({"type": "last-prompt", "lastPrompt": prompt[:200], "leafUuid": last, "sessionId": sid})
        w.close()
        st.sessions += 1
        if r() < 0.08:
            self.claude_subagent(folder / sid / "subagents", tail, now)

    def claude_subagent(self, folder: Path, tail: JsonObj, now: int) -> None:
        P, st = self.pools, self.stats["claude"]
        aid = f"a{self.rng.getrandbits(64):016x}"
        w = Jsonl(folder / f"agent-{aid}.jsonl", st)
        desc = P.prose(1, 1)[:50]
        (folder / f"agent-{aid}.meta.json").write_bytes(orjson.dumps({"agentType": "general-purpose",
                                                                      "description": desc}))
        st.files += 1
        last, tid, steps = None, "", 5 + int(self.r() * 30)
        for i in range(2 * steps):
            now += self.gap(0.3, 20)
            u = self.uuid4()
            if i == 0:
                body: JsonObj = {"type": "user", "message": {"role": "user", "content": P.prompt(desc)}}
            elif i % 2 == 0:
                body = {"type": "user", "message": {"role": "user", "content": [
                    {"tool_use_id": tid, "type": "tool_result", "content": P.step()[3]}]}}
            else:
                tid = "toolu_01" + self.b62(22)
                block = {"type": "text", "text": P.reply()} if i == 2 * steps - 1 else {
                    "type": "tool_use", "id": tid, "name": "Bash", "input": {"command": P.pick(P.commands)}}
                body = {"type": "assistant", "message": {"id": "msg_01" + self.b62(22), "type": "message",
                                                         "role": "assistant", "model": "claude-haiku-4-5",
                                                         "content": [block]}}
            w.put({"parentUuid": last, "isSidechain": True, "agentId": aid, **body, "uuid": u,
                   "timestamp": iso(now), **tail})
            last = u
        w.close()

    # --- Codex CLI --------------------------------------------------------------------------------
    def codex(self) -> None:
        P, r, st = self.pools, self.r, self.stats["codex"]
        name, cwd, target = self.session("codex")
        now = self.start()
        sid = self.uuid7(now)
        t = time.gmtime(now // 1000)
        path = (self.out / "codex" / "sessions" / time.strftime("%Y/%m/%d", t)
                / f"rollout-{time.strftime('%Y-%m-%dT%H-%M-%S', t)}-{sid}.jsonl")
        w = Jsonl(path, st)
        model = P.pick(MODELS["codex"])

        def put(kind: str, payload: JsonObj) -> None:
            w.put({"timestamp": iso(now), "type": kind, "payload": payload})

        def message(role: str, text: str, kind: str = "input_text") -> None:
            put("response_item", {"type": "message", "role": role, "content": [{"type": kind, "text": text}]})

        def output(call: str, text: str, code: int, kind: str = "function_call_output") -> None:
            meta = {"exit_code": code, "duration_seconds": round(r() * 20, 1)}
            put("response_item", {"type": kind, "call_id": call,
                                  "output": orjson.dumps({"output": text, "metadata": meta}).decode()})

        put("session_meta", {"id": sid, "timestamp": iso(now), "cwd": cwd, "originator": "codex_cli_rs",
                             "cli_version": f"0.{100 + int(r() * 60)}.0", "source": "cli",
                             "model_provider": "openai",
                             "base_instructions": {"text": "You are Codex, a coding agent. " + P.prose(3, 6)},
                             "git": {"commit_hash": P.pick(P.hashes), "branch": "main",
                                     "repository_url": f"git@git.example.com:{name}.git"}})
        message("developer", "<permissions instructions>\nsandbox_mode is workspace-write; approval policy "
                "is on-request.\n</permissions instructions>")
        message("user", f"<environment_context>\n  <cwd>{cwd}</cwd>\n  <approval_policy>on-request"
                "</approval_policy>\n  <sandbox_mode>workspace-write</sandbox_mode>\n  <shell>bash</shell>\n"
                "</environment_context>")
        total = 0
        while w.n < target:
            now += self.gap(5, 900)
            turn = self.uuid7(now)
            put("event_msg", {"type": "task_started", "turn_id": turn, "model_context_window": 258400})
            prompt = P.prompt(name)
            message("user", prompt)
            put("event_msg", {"type": "user_message", "message": prompt, "images": []})
            put("turn_context", {"turn_id": turn, "cwd": cwd, "approval_policy": "on-request", "model": model,
                                 "sandbox_policy": {"type": "workspace-write", "network_access": False},
                                 "effort": "medium", "summary": "auto"})
            for _ in self.steps(12):
                now += self.gap(0.5, 30)
                if r() < 0.6:
                    summary = P.pick(P.sentences)
                    put("event_msg", {"type": "agent_reasoning", "text": summary})
                    put("response_item", {"type": "reasoning", "content": None,
                                          "summary": [{"type": "summary_text", "text": summary}],
                                          "encrypted_content": "gAAAAAB" + self.b62(400)})
                kind, a1, a2, out, err = P.step()
                call = "call_" + self.b62(24)
                if kind == "edit" and r() < 0.7:
                    old, new = a2.replace("\n", "\n-"), out.replace("\n", "\n+")
                    patch = f"*** Begin Patch\n*** Update File: {a1}\n@@\n-{old}\n+{new}\n*** End Patch"
                    put("response_item", {"type": "custom_tool_call", "status": "completed", "call_id": call,
                                          "name": "apply_patch", "input": patch})
                    now += self.gap(0.1, 5)
                    done = f"Success. Updated the following files:\nM {a1}\n"
                    output(call, done, 0, "custom_tool_call_output")
                    continue
                cmd = {"read": f"sed -n '1,400p' {a1}", "grep": f"rg -n '{a1}' {a2}",
                       "edit": f"git diff {a1}", "write": f"cat > {a1} <<'EOF'\n{a2}\nEOF"}.get(kind, a1)
                args = {"command": ["bash", "-lc", cmd], "workdir": cwd, "timeout_ms": 120000}
                put("response_item", {"type": "function_call", "name": "shell", "call_id": call,
                                      "arguments": orjson.dumps(args).decode()})
                now += self.gap(0.1, 60)
                output(call, out, int(err))
                total += 2000 + len(out) // 4
                put("event_msg", {"type": "token_count", "info": {"total_token_usage": {
                    "input_tokens": total, "cached_input_tokens": total // 2, "output_tokens": total // 20,
                    "reasoning_output_tokens": total // 40, "total_tokens": total + total // 20}}})
            now += self.gap(1, 40)
            reply = P.reply()
            put("event_msg", {"type": "agent_message", "message": reply})
            message("assistant", reply, "output_text")
            put("event_msg", {"type": "task_complete", "turn_id": turn, "last_agent_message": reply})
        w.close()
        st.sessions += 1
        if r() < 0.10:  # an idle rollout compressed by Codex's background worker
            with path.open("rb") as src, path.with_name(path.name + ".zst").open("wb") as dst:
                zstandard.ZstdCompressor(level=3).copy_stream(src, dst)
            path.unlink()

    # --- Mistral Vibe -----------------------------------------------------------------------------
    def vibe(self) -> None:
        P, r, st = self.pools, self.r, self.stats["vibe"]
        name, cwd, target = self.session("vibe")
        now = start = self.start()
        sid = self.uuid4()
        stamp = time.strftime("%Y%m%d_%H%M%S", time.gmtime(now // 1000))
        folder = self.out / "vibe" / "logs" / "session" / f"session_{stamp}_{sid[:8]}"
        w = Jsonl(folder / "messages.jsonl", st)
        title, calls = "", 0
        names = {"bash": "bash", "read": "read_file", "edit": "search_replace", "grep": "grep",
                 "write": "write_file"}
        while w.n < target:
            now += self.gap(5, 900)
            prompt = P.prompt(name)
            title = title or prompt
            w.put({"role": "user", "content": prompt, "injected": False, "message_id": self.uuid4()})
            for _ in self.steps(10):
                kind, a1, a2, out, err = P.step()
                call = "call_" + self.b62(8)
                args = {"bash": {"command": a1}, "read": {"path": a1}, "grep": {"pattern": a1, "path": a2},
                        "write": {"path": a1, "content": a2, "overwrite": True},
                        "edit": {"file_path": a1,
                                 "content": f"<<<<<<< SEARCH\n{a2}\n=======\n{out}\n>>>>>>> REPLACE"}}
                msg: JsonObj = {"role": "assistant", "content": P.prose(0, 1), "injected": False}
                if r() < 0.5:
                    msg["reasoning_content"] = P.prose(1, 4)
                msg["tool_calls"] = [{"id": call, "index": 0, "type": "function", "function": {
                    "name": names[kind], "arguments": orjson.dumps(args[kind]).decode()}}]
                msg["message_id"] = self.uuid4()
                w.put(msg)
                if kind == "bash":
                    out = f"command: {a1}\nreturncode: {int(err)}\nstdout: {out}\nstderr: "
                w.put({"role": "tool", "content": out, "injected": False, "name": names[kind],
                       "tool_call_id": call})
                calls += 1
                now += self.gap(0.5, 40)
            w.put({"role": "assistant", "content": P.reply(), "injected": False, "message_id": self.uuid4()})
        w.close()
        meta: JsonObj = {
                "session_id": sid, "parent_session_id": None, "start_time": iso(start).replace("Z", "+00:00"),
                "end_time": iso(now).replace("Z", "+00:00"), "git_commit": P.pick(P.hashes),
                "git_branch": "main", "environment": {"working_directory": cwd}, "username": self.user,
                "loops": [], "title": title[:50] + ("…" if len(title) > 50 else ""), "title_source": "auto",
                "stats": {"steps": w.n, "tool_calls_succeeded": calls, "session_cost": round(r() * 2, 4)},
                "total_messages": w.n, "agent_profile": {"name": "default", "overrides": {}}}
        (folder / "meta.json").write_bytes(orjson.dumps(meta, option=orjson.OPT_INDENT_2))
        st.files += 1
        st.sessions += 1

    # --- OpenClaw / pi v3 -------------------------------------------------------------------------
    def openclaw(self, index: dict[str, JsonObj]) -> None:
        P, r, st = self.pools, self.r, self.stats["openclaw"]
        name, cwd, target = self.session("openclaw")
        now = self.start()
        sid = self.uuid4()
        w = Jsonl(self.out / "openclaw" / "agents" / "main" / "sessions" / f"{sid}.jsonl", st)
        model = P.pick(MODELS["openclaw"])
        last: str | None = None

        def put(kind: str, body: JsonObj) -> None:
            nonlocal last
            last_, last = last, f"{self.rng.getrandbits(32):08x}"
            w.put({"type": kind, "id": last, "parentId": last_, "timestamp": iso(now), **body})

        def message(body: JsonObj) -> None:
            put("message", {"message": body | {"timestamp": now}})

        w.put({"type": "session", "version": 3, "id": sid, "timestamp": iso(now), "cwd": cwd})
        put("model_change", {"provider": "anthropic", "modelId": model})
        put("thinking_level_change", {"thinkingLevel": P.pick(["off", "low", "medium"])})
        names = {"bash": "bash", "read": "read", "edit": "edit", "grep": "bash", "write": "write"}
        asst = {"role": "assistant", "api": "anthropic-messages", "provider": "anthropic", "model": model}
        while w.n < target:
            now += self.gap(5, 900)
            message({"role": "user", "content": [{"type": "text", "text": P.prompt(name)}]})
            for _ in self.steps(10):
                kind, a1, a2, out, err = P.step()
                call = "toolu_" + self.b62(24)
                args = {"bash": {"command": a1}, "read": {"path": a1}, "write": {"path": a1, "content": a2},
                        "grep": {"command": f"grep -rn '{a1}' {a2}"},
                        "edit": {"path": a1, "oldText": a2, "newText": out}}
                content: list[JsonObj] = []
                if r() < 0.4:
                    content.append({"type": "thinking", "thinking": P.prose(1, 3)})
                content.append({"type": "toolCall", "id": call, "name": names[kind], "arguments": args[kind]})
                now += self.gap(0.5, 30)
                usage = {"input": int(r() * 5000), "output": int(r() * 800), "cacheRead": int(r() * 90000),
                         "cacheWrite": 0}
                message(asst | {"content": content, "stopReason": "toolUse", "usage": usage})
                now += self.gap(0.1, 40)
                message({"role": "toolResult", "toolCallId": call, "toolName": names[kind],
                         "content": [{"type": "text", "text": out or "ok"}], "isError": err})
            now += self.gap(1, 30)
            message(asst | {"content": [{"type": "text", "text": P.reply()}], "stopReason": "stop"})
            if r() < 0.02:
                put("compaction", {"summary": P.prose(4, 10), "firstKeptEntryId": last,
                                   "tokensBefore": 150000 + int(r() * 30000)})
        w.close()
        st.sessions += 1
        index[f"agent:main:{sid[:8]}"] = {"sessionId": sid, "updatedAt": now, "label": name}

    # --- OpenCode (SQLite) ------------------------------------------------------------------------
    def opencode_db(self) -> sqlite3.Connection:
        path = self.out / "opencode" / "opencode.db"
        path.parent.mkdir(parents=True, exist_ok=True)
        db = sqlite3.connect(path)
        db.executescript(OPENCODE_SCHEMA.read_text(encoding="utf-8"))
        db.execute("PRAGMA synchronous=OFF")
        db.execute("PRAGMA journal_mode=MEMORY")
        db.execute("INSERT INTO migration VALUES ('20260622202450_simplify_session_input', ?)",
                   (YEAR_START * 1000,))
        self.stats["opencode"].files += 1
        return db

    def oc_id(self, prefix: str, ms: int) -> str:
        """opencode ids: 12 hex of time (sessions count down so the newest sort first) + 14 base62."""
        v = ms * 4096 + int(self.r() * 4096)
        return f"{prefix}_{(~v if prefix == 'ses' else v) & 0xFFFFFFFFFFFF:012x}{self.b62(14)}"

    def opencode(self, db: sqlite3.Connection, projects: set[str], parent: str | None = None) -> None:
        P, r, st = self.pools, self.r, self.stats["opencode"]
        name, cwd, target = self.session("opencode")
        pid, now = P.hashes[P.projects.index(name)], self.start()
        if pid not in projects:
            projects.add(pid)
            db.execute("INSERT INTO project VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
                       (pid, cwd, "git", name, None, None, None, now, now, now, "[]", None))
        sid = self.oc_id("ses", now)
        model = P.pick(MODELS["opencode"])
        msgs: list[tuple[str, str, int, int, str]] = []
        parts: list[tuple[str, str, str, int, int, str]] = []
        nbytes = 0

        def part(mid: str, data: JsonObj) -> None:
            nonlocal now, nbytes
            now += self.gap(0.01, 3)
            d = orjson.dumps(data).decode()
            nbytes += len(d)
            parts.append((self.oc_id("prt", now), mid, sid, now, now, d))

        def message(data: JsonObj) -> str:
            nonlocal nbytes
            mid, d = self.oc_id("msg", now), orjson.dumps(data).decode()
            nbytes += len(d)
            msgs.append((mid, sid, now, now, d))
            return mid

        title, tin, tout = "", 0, 0
        while len(msgs) + len(parts) < target:
            now += self.gap(5, 900)
            prompt = P.prompt(name)
            title = title or prompt.split("\n")[0][:60]
            umid = message({"role": "user", "time": {"created": now}, "agent": "build",
                            "model": {"providerID": "openrouter", "modelID": model}})
            part(umid, {"type": "text", "text": prompt})
            for _ in range(1 + int(r() * r() * 6)):
                steps = int(r() * r() * 5)
                tin_, tout_ = int(r() * 30000), int(r() * 2000)
                tin, tout = tin + tin_, tout + tout_
                tokens = {"input": tin_, "output": tout_, "reasoning": 0,
                          "cache": {"read": int(r() * 90000), "write": 0}}
                finish = "tool-calls" if steps else "stop"
                amid = message({"parentID": umid, "role": "assistant", "mode": "build", "agent": "build",
                                "path": {"cwd": cwd, "root": cwd}, "cost": 0, "tokens": tokens,
                                "modelID": model, "providerID": "openrouter", "finish": finish,
                                "time": {"created": now, "completed": now + 9000}})
                part(amid, {"type": "step-start"})
                if r() < 0.4:
                    part(amid, {"type": "reasoning", "text": P.prose(1, 5),
                                "time": {"start": now, "end": now + 900}})
                for _ in range(steps):
                    kind, a1, a2, out, err = P.step()
                    fp = f"{cwd}/{a1}"
                    inp = {"bash": {"command": a1, "description": P.prose(1, 1)[:50]},
                           "read": {"filePath": fp}, "grep": {"pattern": a1, "path": a2},
                           "write": {"filePath": fp, "content": a2},
                           "edit": {"filePath": fp, "oldString": a2, "newString": out}}[kind]
                    span = {"start": now, "end": now + 500}
                    state = {"status": "error", "input": inp, "error": out, "time": span} if err else {
                        "status": "completed", "input": inp, "output": out, "title": a1[:80],
                        "metadata": {"exit": 0, "truncated": False}, "time": span}
                    call = "toolu_" + self.b62(24)
                    part(amid, {"type": "tool", "tool": kind, "callID": call, "state": state})
                if not steps:
                    part(amid, {"type": "text", "text": P.reply(), "time": {"start": now, "end": now + 2000}})
                part(amid, {"type": "step-finish", "reason": finish, "tokens": tokens, "cost": 0})
        db.execute("INSERT INTO session (id, project_id, parent_id, slug, directory, title, version, "
                   "tokens_input, tokens_output, agent, model, time_created, time_updated) "
                   "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
                   (sid, pid, parent, f"{P.pick(WORDS)}-{P.pick(WORDS)}", cwd, title, "1.18.33", tin, tout,
                    "build", orjson.dumps({"id": model, "providerID": "openrouter"}).decode(),
                    msgs[0][2], now))
        db.executemany("INSERT INTO message VALUES (?,?,?,?,?)", msgs)
        db.executemany("INSERT INTO part VALUES (?,?,?,?,?,?)", parts)
        st.bytes += nbytes
        st.lines += len(msgs) + len(parts)
        st.sessions += 1
        if parent is None and r() < 0.05:  # a subagent: a child session
            self.opencode(db, projects, parent=sid)

    # --- driver -----------------------------------------------------------------------------------
    def run(self) -> dict[str, Any]:
        t0 = time.perf_counter()
        for h, make in (("claude", self.claude), ("codex", self.codex), ("vibe", self.vibe)):
            while self.stats[h].bytes < self.budget[h]:
                make()
        index: dict[str, JsonObj] = {}
        while self.stats["openclaw"].bytes < self.budget["openclaw"]:
            self.openclaw(index)
        (self.out / "openclaw" / "agents" / "main" / "sessions" / "sessions.json").write_bytes(
            orjson.dumps(index, option=orjson.OPT_INDENT_2))
        db, projects = self.opencode_db(), set[str]()
        while self.stats["opencode"].bytes < self.budget["opencode"]:
            self.opencode(db, projects)
            if self.stats["opencode"].sessions % 50 == 0:
                db.commit()
        db.commit()
        db.close()
        secs = time.perf_counter() - t0
        written = sum(s.bytes for s in self.stats.values())
        return {"harnesses": {h: vars(s) for h, s in self.stats.items()}, "bytes": written,
                "disk_bytes": sum(p.stat().st_size for p in self.out.rglob("*") if p.is_file()),
                "seconds": round(secs, 2), "mb_per_s": round(written / 1e6 / secs, 1)}


def generate(out_dir: Path, size_mb: float, seed: int = 1) -> dict[str, Any]:
    """Write about `size_mb` MB of records under `out_dir` (new or empty); same seed, same content.

    Returns per harness sessions/files/lines (rows for opencode)/bytes, the totals and the timing."""
    if Path(out_dir).exists() and any(Path(out_dir).iterdir()):
        raise FileExistsError(f"{out_dir}: not empty; generate into a new folder")
    t0 = time.perf_counter()
    gen = Generator(Path(out_dir), size_mb, seed)
    setup = time.perf_counter() - t0
    return gen.run() | {"setup_seconds": round(setup, 2)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Generate a large mixed store of agent sessions.")
    ap.add_argument("out_dir", type=Path)
    ap.add_argument("--size-mb", type=float, default=1000.0)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args(argv)
    try:
        s = generate(a.out_dir, a.size_mb, a.seed)
    except FileExistsError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(f"{'harness':<10}{'sessions':>10}{'files':>8}{'lines/rows':>12}{'MB':>9}{'share':>8}")
    for h, v in s["harnesses"].items():
        print(f"{h:<10}{v['sessions']:>10}{v['files']:>8}{v['lines']:>12}{v['bytes'] / 1e6:>9.1f}"
              f"{v['bytes'] / max(1, s['bytes']):>8.1%}")
    print(f"total {s['bytes'] / 1e6:.1f} MB of records ({s['disk_bytes'] / 1e6:.1f} MB on disk) in "
          f"{s['seconds']}s (+{s['setup_seconds']}s building pools): {s['mb_per_s']} MB/s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
