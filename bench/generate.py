#!/usr/bin/env python3
"""Deterministic generator of a large, realistic mixed store of agent sessions in their native formats.

    python bench/generate.py OUT_DIR --size-mb 1000 [--seed 1]

Layout under OUT_DIR (each folder can be given to a reader as its root):
    claude/projects/<slug>/<uuid>.jsonl (+ <uuid>/subagents/agent-<id>.jsonl + .meta.json)
    codex/sessions/YYYY/MM/DD/rollout-<ts>-<uuid>.jsonl (~10% as .jsonl.zst)
    vibe/logs/session/session_<ts>_<id8>/{meta.json,messages.jsonl}
    openclaw/agents/main/sessions/<uuid>.jsonl (pi v3) + sessions.json
    opencode/opencode.db (opencode 1.18.33 schema: project/session/message/part rows)

All text comes from pre-built pools and corpora (sliced at random offsets), so generation is cheap per line
and memory stays constant; sessions are written line by line.
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
import time
from collections.abc import Callable
from pathlib import Path
from random import Random
from typing import IO, Any

import orjson
import zstandard

SHARES = {"claude": 0.45, "codex": 0.30, "opencode": 0.10, "vibe": 0.08, "openclaw": 0.07}
REPO = Path(__file__).resolve().parents[1]
OPENCODE_SCHEMA = REPO.parent / "shared" / "fixtures" / "sessions" / "opencode" / "schema_opencode_1.18.33.sql"
# The tables we fill, column for column as in the 1.18.33 dump; used only when the dump is not next to the repo.
FALLBACK_SCHEMA = """
CREATE TABLE `project` (`id` text PRIMARY KEY, `worktree` text NOT NULL, `vcs` text, `name` text, `icon_url` text,
 `icon_url_override` text, `icon_color` text, `time_created` integer NOT NULL, `time_updated` integer NOT NULL,
 `time_initialized` integer, `sandboxes` text NOT NULL, `commands` text);
CREATE TABLE `session` (`id` text PRIMARY KEY, `project_id` text NOT NULL, `workspace_id` text, `parent_id` text,
 `slug` text NOT NULL, `directory` text NOT NULL, `path` text, `title` text NOT NULL, `version` text NOT NULL,
 `share_url` text, `summary_additions` integer, `summary_deletions` integer, `summary_files` integer,
 `summary_diffs` text, `metadata` text, `cost` real DEFAULT 0 NOT NULL, `tokens_input` integer DEFAULT 0 NOT NULL,
 `tokens_output` integer DEFAULT 0 NOT NULL, `tokens_reasoning` integer DEFAULT 0 NOT NULL,
 `tokens_cache_read` integer DEFAULT 0 NOT NULL, `tokens_cache_write` integer DEFAULT 0 NOT NULL, `revert` text,
 `permission` text, `agent` text, `model` text, `time_created` integer NOT NULL, `time_updated` integer NOT NULL,
 `time_compacting` integer, `time_archived` integer);
CREATE TABLE `message` (`id` text PRIMARY KEY, `session_id` text NOT NULL, `time_created` integer NOT NULL,
 `time_updated` integer NOT NULL, `data` text NOT NULL);
CREATE TABLE `part` (`id` text PRIMARY KEY, `message_id` text NOT NULL, `session_id` text NOT NULL,
 `time_created` integer NOT NULL, `time_updated` integer NOT NULL, `data` text NOT NULL);
CREATE TABLE "migration" (id TEXT PRIMARY KEY, time_completed INTEGER NOT NULL);
CREATE INDEX `message_session_time_created_id_idx` ON `message` (`session_id`,`time_created`,`id`);
CREATE INDEX `part_message_id_id_idx` ON `part` (`message_id`,`id`);
CREATE INDEX `part_session_idx` ON `part` (`session_id`);
CREATE INDEX `session_project_idx` ON `session` (`project_id`);
CREATE INDEX `session_parent_idx` ON `session` (`parent_id`);
"""

WORDS = """
cache index shard replica queue worker scheduler pipeline buffer socket handler router middleware session token
cookie header payload schema migration table column query cursor transaction lock mutex semaphore channel stream
batch chunk offset checksum digest hash signature certificate keystore secret vault config manifest registry image
container volume mount namespace cluster node pod service ingress gateway proxy upstream backend frontend client
server endpoint request response timeout retry backoff jitter throttle quota limit budget metric counter gauge
histogram trace span log logger sink appender formatter parser lexer tokenizer compiler linker loader bundle module
package crate dependency lockfile version release tag branch commit merge rebase diff patch hunk blame bisect stash
hook plugin extension adapter driver connector bridge codec encoder decoder serializer snapshot checkpoint journal
wal compaction eviction invalidation prefetch warmup ttl lease heartbeat election quorum consensus raft gossip
leader follower partition topic consumer producer offset watermark window aggregate reducer mapper filter predicate
iterator generator coroutine future promise callback event listener emitter dispatcher reactor executor pool thread
process fork signal pipe fd inode block page frame heap stack arena allocator gc finalizer refcount pointer slice
vector matrix tensor embedding model weight gradient optimizer epoch loss metric sample dataset fixture mock stub spy
assertion regression benchmark profile flamegraph latency throughput p99 percentile sla alert incident runbook
deploy rollout canary rollback feature flag toggle experiment cohort tenant account user role permission policy
scope grant audit webhook cron job task ticket backlog invoice order cart checkout payment refund coupon inventory
warehouse shipment address customer catalog product price currency tax discount subscription plan trial renewal
notification email template render layout component widget modal dropdown tooltip viewport breakpoint theme font
asset sprite shader texture mesh scene camera sensor firmware serial baud gpio interrupt watchdog bootloader kernel
syscall sandbox seccomp cgroup capability selinux apparmor firewall nat dns resolver tls handshake cipher nonce
""".split()
DIRS = "src lib internal pkg app tests cmd api core services web scripts deploy config docs tools migrations".split()
EXTS = ".py .py .py .ts .tsx .go .rs .js .yaml .toml .sql .md .sh .json".split()
EXC = (
    "ValueError KeyError TypeError RuntimeError AttributeError IndexError TimeoutError ConnectionResetError "
    "PermissionError FileNotFoundError IntegrityError OperationalError ValidationError JSONDecodeError "
    "AssertionError NotImplementedError UnicodeDecodeError RecursionError OverflowError ZeroDivisionError"
).split()
LEVELS = ["INFO"] * 6 + ["DEBUG"] * 3 + ["WARN", "WARN", "ERROR"]
MODELS = {
    "claude": ["claude-opus-4-7", "claude-sonnet-4-5", "claude-sonnet-4-6", "claude-haiku-4-5"],
    "codex": ["gpt-5.3-codex", "gpt-5.4", "gpt-5.2-codex"],
    "opencode": ["claude-sonnet-4-5", "gpt-5.4", "qwen3-coder-480b", "kimi-k2.5"],
    "vibe": ["devstral-2", "mistral-medium-3.2", "devstral-small-2"],
    "openclaw": ["claude-opus-4-7", "gpt-5.4", "qwen3.5:9b"],
}
B62 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
YEAR_START = 1764547200  # 2025-12-01T00:00:00Z; sessions start within the following year
YEAR_SECONDS = 365 * 86400
JsonObj = dict[str, Any]


def iso(ms: int) -> str:
    t = time.gmtime(ms // 1000)
    return (
        f"{t.tm_year:04d}-{t.tm_mon:02d}-{t.tm_mday:02d}T{t.tm_hour:02d}:{t.tm_min:02d}:{t.tm_sec:02d}"
        f".{ms % 1000:03d}Z"
    )


class Pools:
    """Word pools, generated identifiers and large text corpora; everything later is picked or sliced from here."""

    def __init__(self, rng: Random) -> None:
        self.rng = rng
        r = rng.random
        self.r = r
        w = WORDS
        pick = self.pick
        self.snake = [f"{pick(w)}_{pick(w)}" + (f"_{pick(w)}" if r() < 0.3 else "") for _ in range(3000)]
        self.camel = [s.split("_")[0] + "".join(p.title() for p in s.split("_")[1:]) for s in self.snake]
        self.pascal = [s.replace("_", " ").title().replace(" ", "") for s in self.snake]
        self.paths = [
            f"{pick(DIRS)}/{pick(w)}/{pick(self.snake)}{pick(EXTS)}" if r() < 0.7 else f"{pick(DIRS)}/{pick(self.snake)}{pick(EXTS)}"
            for _ in range(4000)
        ]
        self.tests = [f"tests/{pick(w)}/test_{pick(self.snake)}.py" for _ in range(800)]
        self.hosts = [
            f"{pick(w)}-{int(r() * 40):02d}.{pick(['eu-west-1', 'us-east-2', 'fra1', 'ams3', 'internal'])}."
            f"example.{pick(['com', 'net', 'org'])}"
            for _ in range(500)
        ]
        self.urls = [f"https://{pick(self.hosts)}/{pick(w)}/{pick(self.camel)}?id={int(r() * 1e6)}" for _ in range(800)]
        self.versions = [f"{int(r() * 9)}.{int(r() * 30)}.{int(r() * 20)}" for _ in range(400)]
        self.hashes = [f"{rng.getrandbits(160):040x}" for _ in range(6000)]
        self.projects = sorted({f"{pick(w)}-{pick(w)}" for _ in range(60)})
        self.users = ["dev", "alice", "bob", "mkowalski", "jdoe", "sam", "priya", "lucas"]
        self.errors = [self.error_line() for _ in range(3000)]
        self.commands = [self.command() for _ in range(3000)]
        self.sentences = [self.sentence() for _ in range(24000)]
        self.sizes = [int(60 * 800 ** (u * u)) for u in (r() for _ in range(8192))]
        self.code = self.corpus(self.code_block, 2_500_000)
        self.logs = self.corpus(self.log_block, 2_000_000)
        self.testout = self.corpus(self.test_block, 1_000_000)
        self.traces = self.corpus(self.trace_block, 800_000)
        self.gitlog = self.corpus(self.git_block, 600_000)

    def pick(self, seq: list[str]) -> str:
        return seq[int(self.r() * len(seq))]

    def n(self, hi: int) -> int:
        return int(self.r() * hi)

    def corpus(self, block: Callable[[], list[str]], size: int) -> str:
        out: list[str] = []
        total = 0
        while total < size:
            lines = block()
            out += lines
            total += sum(len(x) + 1 for x in lines)
        return "\n".join(out) + "\n"

    def slice(self, corpus: str, size: int) -> str:
        size = min(size, len(corpus) // 2)
        start = corpus.find("\n", int(self.r() * (len(corpus) - size - 1))) + 1
        end = corpus.rfind("\n", start, start + size)
        return corpus[start : end if end > start else start + size]

    def error_line(self) -> str:
        p, n = self.pick, self.n
        k = n(10)
        if k == 0:
            return f"{p(EXC)}: {p(WORDS)} '{p(self.snake)}' is not valid for {p(WORDS)} {p(self.camel)}"
        if k == 1:
            return f"ModuleNotFoundError: No module named '{p(self.snake)}'"
        if k == 2:
            return f"error[E0{n(700):03d}]: mismatched types: expected `{p(self.pascal)}`, found `&{p(self.pascal)}`"
        if k == 3:
            return f"panic: runtime error: index out of range [{n(9)}] with length {n(9)}"
        if k == 4:
            return f"TypeError: Cannot read properties of undefined (reading '{p(self.camel)}')"
        if k == 5:
            return f"psycopg.errors.UniqueViolation: duplicate key value violates unique constraint \"{p(self.snake)}_key\""
        if k == 6:
            return f"curl: (7) Failed to connect to {p(self.hosts)} port {n(9000) + 1000}: Connection refused"
        if k == 7:
            return f"fatal: unable to access '{p(self.urls)}': The requested URL returned error: {p(['403', '404', '502'])}"
        if k == 8:
            return f"{p(self.paths)}:{n(400) + 1}:{n(80) + 1}: error: '{p(self.camel)}' is declared but never used"
        return f"E   AssertionError: assert {n(100)} == {n(100)}"

    def command(self) -> str:
        p, n = self.pick, self.n
        k = n(12)
        opts = [
            f"pytest -q {p(self.tests)} -k {p(self.snake)}",
            f"git log --oneline -n {n(30) + 5}",
            f"rg -n '{p(self.camel)}' {p(DIRS)}/",
            f"git diff --stat {p(self.hashes)[:7]}..HEAD",
            f"journalctl -u {p(WORDS)}-{p(WORDS)} --since '{n(5) + 1} hours ago' --no-pager | tail -n {n(200) + 20}",
            f"go test ./{p(DIRS)}/{p(WORDS)}/... -run Test{p(self.pascal)}",
            f"npm run test -- {p(self.paths)}",
            f"cargo build --release -p {p(WORDS)}-{p(WORDS)}",
            f"kubectl -n {p(WORDS)} logs deploy/{p(WORDS)}-{p(WORDS)} --tail={n(300) + 50}",
            f"python -m {p(self.snake)}.cli --{p(WORDS)} {p(self.paths)}",
            f"curl -sS -o /dev/null -w '%{{http_code}} %{{time_total}}' {p(self.urls)}",
            f"docker compose logs --tail {n(200) + 20} {p(WORDS)}",
        ]
        return opts[k]

    def sentence(self) -> str:
        p, n = self.pick, self.n
        k = n(16)
        t = [
            f"The {p(WORDS)} in `{p(self.paths)}` is only called from `{p(self.snake)}()`, so changing it is safe.",
            f"I checked `{p(self.paths)}`: `{p(self.camel)}` already handles the empty {p(WORDS)}.",
            f"Tests pass locally ({n(400)} passed, {n(9)} skipped in {n(90)}.{n(99):02d}s).",
            f"This looks like a race between the {p(WORDS)} and the {p(WORDS)}: both touch `{p(self.snake)}`.",
            f"Commit `{p(self.hashes)[:7]}` introduced the regression when it changed `{p(self.pascal)}`.",
            f"Next I'll run `{p(self.commands)}` and compare the {p(WORDS)} output.",
            f"The error `{p(self.errors)}` comes from `{p(self.paths)}` line {n(500) + 1}.",
            f"{p(self.pascal)} is configured with a {p(WORDS)} of {n(512) + 1} and a {p(WORDS)} timeout of {n(60)}s.",
            f"On {p(self.hosts)} the {p(WORDS)} runs version {p(self.versions)}, locally it is {p(self.versions)}.",
            f"See {p(self.urls)} for the {p(WORDS)} details.",
            f"I'd rather not touch the {p(WORDS)} {p(WORDS)} until we know why `{p(self.camel)}` returns null.",
            f"The user wants the {p(WORDS)} to keep the {p(WORDS)} order, so a stable sort on `{p(self.snake)}` works.",
            f"Let me check whether `{p(self.snake)}` is still referenced in `{p(self.paths)}`.",
            f"Moving `{p(self.camel)}` into `{p(self.paths)}` removes the circular import with {p(WORDS)}.",
            f"The {p(WORDS)} {p(WORDS)} grew from {n(900)} MB to {n(4000)} MB after the {p(WORDS)} change.",
            f"Renamed `{p(self.snake)}` to `{p(self.snake)}` and updated {n(30) + 2} call sites.",
        ]
        return t[k]

    def code_block(self) -> list[str]:
        p, n = self.pick, self.n
        k = n(3)
        a, b, c = p(self.snake), p(self.snake), p(self.snake)
        if k == 0:
            return [
                f"def {a}({b}: {p(self.pascal)}, {c}: int = {n(100)}) -> {p(self.pascal)} | None:",
                f'    """{p(self.sentences)}"""',
                f"    {a}_map = {b}.{p(self.snake)}({c})",
                f"    if not {a}_map:",
                f'        raise {p(EXC)}(f"{p(WORDS)} {{{c}}} not found in {p(WORDS)}")',
                f"    for item in {a}_map.{p(self.snake)}():",
                f"        {b}.{p(self.snake)}[item.{p(self.snake)}] = item",
                f"    return {a}_map.get({c})",
                "",
            ]
        if k == 1:
            fa, fb = p(self.camel), p(self.camel)
            return [
                f"export async function {fa}({fb}: {p(self.pascal)}): Promise<{p(self.pascal)}> {{",
                f"  const {p(self.camel)} = await {p(self.camel)}({fb}.{p(self.camel)});",
                f"  if (!{fb}.{p(self.camel)}) throw new Error(`{p(WORDS)} ${{{fb}.id}} missing`);",
                f"  return {{ ...{fb}, {p(self.camel)}: Date.now(), {p(self.camel)}: {n(1000)} }};",
                "}",
                "",
            ]
        ty = p(self.pascal)
        return [
            f"func (s *{ty}) {p(self.pascal)}(ctx context.Context, {p(WORDS)}ID string) (*{p(self.pascal)}, error) {{",
            f"\tv, err := s.{p(self.camel)}.Get(ctx, {p(WORDS)}ID)",
            "\tif err != nil {",
            f'\t\treturn nil, fmt.Errorf("{p(WORDS)} %s: %w", {p(WORDS)}ID, err)',
            "\t}",
            "\treturn v, nil",
            "}",
            "",
        ]

    def log_block(self) -> list[str]:
        p, n = self.pick, self.n
        day = f"2026-{n(12) + 1:02d}-{n(28) + 1:02d}"
        out = []
        for _ in range(8):
            lvl = p(LEVELS)
            if lvl == "ERROR":
                msg = p(self.errors)
            elif n(3) == 0:
                msg = f"{p(['GET', 'POST', 'PUT', 'DELETE'])} /api/v{n(3) + 1}/{p(WORDS)}/{n(99999)} {p(['200', '200', '201', '404', '500'])} {n(900)}ms"
            else:
                msg = f"{p(self.sentences)[:-1].lower()} ({p(self.hashes)[:12]})"
            out.append(
                f"{day} {n(24):02d}:{n(60):02d}:{n(60):02d},{n(1000):03d} {lvl} [{p(self.snake)}] {p(self.hosts)} {msg}"
            )
        return out

    def test_block(self) -> list[str]:
        p, n = self.pick, self.n
        t = p(self.tests)
        lines = [f"{t}::test_{p(self.snake)} {p(['PASSED'] * 8 + ['FAILED', 'SKIPPED'])} [{n(100):3d}%]" for _ in range(6)]
        if n(3) == 0:
            fn = p(self.snake)
            lines += [
                f"_________________________________ test_{fn} _________________________________",
                f"    def test_{fn}({p(self.snake)}):",
                f"        result = {p(self.snake)}({p(self.snake)}, {n(50)})",
                f">       assert result.{p(self.snake)} == {n(100)}",
                p(self.errors),
                f"{t}:{n(300) + 1}: AssertionError",
                f"FAILED {t}::test_{fn} - AssertionError",
                f"========== {n(5) + 1} failed, {n(400)} passed, {n(9)} skipped in {n(60)}.{n(99):02d}s ==========",
            ]
        return lines

    def trace_block(self) -> list[str]:
        p, n = self.pick, self.n
        proj = p(self.projects)
        lines = ["Traceback (most recent call last):"]
        for _ in range(n(6) + 2):
            lines += [f'  File "/srv/{proj}/{p(self.paths)}", line {n(600) + 1}, in {p(self.snake)}',
                      f"    {p(self.snake)} = {p(self.snake)}.{p(self.snake)}({p(self.snake)})"]
        lines.append(f"{p(EXC)}: {p(self.sentences)}")
        return lines

    def git_block(self) -> list[str]:
        p, n = self.pick, self.n
        h = p(self.hashes)
        return [
            f"commit {h}",
            f"Author: {p(self.users)} <{p(self.users)}@example.com>",
            f"Date:   {p(['Mon', 'Tue', 'Wed', 'Thu', 'Fri'])} {p(['Jan', 'Mar', 'Jun', 'Sep', 'Nov'])} {n(28) + 1} "
            f"{n(24):02d}:{n(60):02d}:{n(60):02d} 2026 +0000",
            "",
            f"    {p(['fix', 'feat', 'chore', 'refactor', 'test'])}({p(WORDS)}): {p(self.sentences)[:70]}",
            "",
            f" {p(self.paths)} | {n(80) + 1} {'+' * (n(12) + 1)}{'-' * n(8)}",
        ]

    # --- per-use helpers ------------------------------------------------------------------------------
    def size(self) -> int:
        return self.sizes[int(self.r() * 8192)]

    def prose(self, lo: int, hi: int) -> str:
        return " ".join(self.pick(self.sentences) for _ in range(lo + self.n(hi - lo + 1)))

    def prompt(self, ctx: str) -> str:
        p, n = self.pick, self.n
        k = n(10)
        if k == 0:
            return f"I get this when running `{p(self.commands)}`:\n\n```\n{self.slice(self.traces, self.size())}\n```\nany idea?"
        if k == 1:
            return f"here's the log from {p(self.hosts)}, {ctx} misbehaves since {p(self.hashes)[:7]}:\n\n{self.slice(self.logs, self.size())}"
        opts = [
            f"can you fix the failing test in {p(self.tests)}? it broke after {p(self.hashes)[:7]}",
            f"why does `{p(self.snake)}` return None when the {p(WORDS)} is empty? ({ctx})",
            f"add a --{p(WORDS)}-{p(WORDS)} option to the {ctx} {p(WORDS)} command",
            f"{p(self.sentences)} Please check {p(self.urls)}.",
            f"refactor {p(self.paths)} so {p(self.pascal)} doesn't depend on {p(self.pascal)}",
            f"bump {p(WORDS)} to {p(self.versions)} and make sure {ctx} still builds",
            "commit this",
            f"ok, now {p(['run the tests', 'push it', 'open a PR', 'clean up the logging', 'update the docs'])}",
        ]
        return opts[k - 2]

    def reply(self) -> str:
        parts = [self.prose(1, 4)]
        if self.r() < 0.4:
            parts.append("\n".join(f"- `{self.pick(self.paths)}`: {self.pick(self.sentences)}" for _ in range(1 + self.n(4))))
        if self.r() < 0.3:
            parts.append(f"```\n{self.slice(self.code, 200 + self.n(1500))}\n```")
        return "\n\n".join(parts)

    def step(self) -> tuple[str, str, str, str, bool]:
        """(kind, arg, arg2, output, is_error) with kind in bash/read/edit/grep/write."""
        r = self.r()
        if r < 0.5:
            cmd = self.pick(self.commands)
            src = self.testout if "test" in cmd else self.gitlog if cmd.startswith("git") else self.logs
            err = self.r() < 0.12
            out = self.slice(src, self.size())
            if err:
                out = out + "\n" + self.slice(self.traces, 300 + self.n(3000)) + "\n" + self.pick(self.errors)
            return "bash", cmd, "", out, err
        if r < 0.75:
            return "read", self.pick(self.paths), "", self.slice(self.code, self.size()), False
        if r < 0.9:
            old = self.slice(self.code, 40 + self.n(400))
            return "edit", self.pick(self.paths), old, self.slice(self.code, 40 + self.n(600)), False
        if r < 0.96:
            hits = [f"{self.pick(self.paths)}:{self.n(400) + 1}:{self.slice(self.code, 80)}" for _ in range(1 + self.n(12))]
            return "grep", self.pick(self.camel), self.pick(DIRS), "\n".join(hits), False
        return "write", self.pick(self.paths), self.slice(self.code, self.size()), "", False

    def session_lines(self, budget_lines: int) -> int:
        return max(10, min(int(10 * 200 ** (self.r() ** 1.3)), budget_lines))


class Stat:
    def __init__(self) -> None:
        self.files = 0
        self.bytes = 0
        self.lines = 0
        self.sessions = 0


class Jsonl:
    """A line-by-line JSONL writer that counts what it wrote."""

    def __init__(self, path: Path, stat: Stat) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self.f: IO[bytes] = path.open("wb", buffering=1 << 20)
        self.stat = stat
        self.n = 0
        stat.files += 1

    def put(self, obj: JsonObj) -> None:
        b = orjson.dumps(obj, option=orjson.OPT_APPEND_NEWLINE)
        self.f.write(b)
        self.stat.bytes += len(b)
        self.stat.lines += 1
        self.n += 1

    def close(self) -> None:
        self.f.close()


class Generator:
    def __init__(self, out: Path, size_mb: float, seed: int) -> None:
        self.out = out
        self.rng = Random(seed)
        self.r = self.rng.random
        self.pools = Pools(self.rng)
        self.budget = {h: int(size_mb * 1e6 * s) for h, s in SHARES.items()}
        self.stats = {h: Stat() for h in SHARES}

    # --- small id/time helpers ----------------------------------------------------------------------
    def uuid4(self) -> str:
        h = f"{self.rng.getrandbits(128):032x}"
        return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{'89ab'[int(h[16], 16) & 3]}{h[17:20]}-{h[20:]}"

    def uuid7(self, ms: int) -> str:
        h = f"{ms:012x}{self.rng.getrandbits(80):020x}"
        return f"{h[:8]}-{h[8:12]}-7{h[13:16]}-{'89ab'[int(h[16], 16) & 3]}{h[17:20]}-{h[20:32]}"

    def b62(self, n: int) -> str:
        return "".join(B62[int(self.r() * 62)] for _ in range(n))

    def start_ms(self) -> int:
        return (YEAR_START + int(self.r() * YEAR_SECONDS)) * 1000

    def gap(self, lo: float, hi: float) -> int:
        return int((lo + (hi - lo) * self.r() ** 3) * 1000)

    def project(self) -> tuple[str, str]:
        name = self.pools.pick(self.pools.projects)
        return name, f"/home/{self.pools.pick(self.pools.users)}/code/{name}"

    def remaining_lines(self, h: str) -> int:
        return max(10, (self.budget[h] - self.stats[h].bytes) // 2500)

    # --- Claude Code ----------------------------------------------------------------------------------
    def claude(self) -> None:
        P, r, st = self.pools, self.r, self.stats["claude"]
        name, cwd = self.project()
        sid = self.uuid4()
        slug = cwd.replace("/", "-").replace(".", "-")
        folder = self.out / "claude" / "projects" / slug
        target = P.session_lines(self.remaining_lines("claude"))
        w = Jsonl(folder / f"{sid}.jsonl", st)
        model = P.pick(MODELS["claude"])
        tail = {"userType": "external", "entrypoint": "cli", "cwd": cwd, "sessionId": sid,
                "version": f"2.1.{int(r() * 300)}", "gitBranch": P.pick(["main", "main", "dev", f"fix/{P.pick(P.snake)}"])}
        now = self.start_ms()
        last: str | None = None
        prompt_parent: str | None = None
        last_prompt = ""

        def put(kind: str, body: JsonObj, parent: str | None = "last") -> str:
            nonlocal last
            u = self.uuid4()
            w.put({"parentUuid": last if parent == "last" else parent, "isSidechain": False, **body,
                   "type": kind, "uuid": u, "timestamp": iso(now), **tail})
            last = u
            return u

        def assistant(blocks: list[JsonObj], stop: str) -> None:
            nonlocal now
            mid, rid = "msg_01" + self.b62(22), "req_011C" + self.b62(20)
            usage = {"input_tokens": int(r() * 50), "cache_creation_input_tokens": int(r() * 8000),
                     "cache_read_input_tokens": int(r() * 150000), "output_tokens": int(r() * 2000),
                     "service_tier": "standard"}
            for i, b in enumerate(blocks):
                now += self.gap(0.2, 20)
                msg = {"model": model, "id": mid, "type": "message", "role": "assistant", "content": [b],
                       "stop_reason": stop if i == len(blocks) - 1 else None, "stop_sequence": None, "usage": usage}
                put("assistant", {"message": msg, "requestId": rid})

        compacted = target < 400
        while w.n < target:
            now += self.gap(5, 900)
            if r() < 0.05 and prompt_parent is not None:
                last = prompt_parent  # a rewind: the new prompt becomes a sibling of an earlier one
            prompt_parent = last
            if r() < 0.5:
                w.put({"type": "file-history-snapshot", "messageId": self.uuid4(),
                       "snapshot": {"messageId": self.uuid4(), "trackedFileBackups": {}, "timestamp": iso(now)},
                       "isSnapshotUpdate": False})
            last_prompt = P.prompt(name)
            put("user", {"message": {"role": "user", "content": last_prompt}, "permissionMode": "default"},
                parent=last)
            if r() < 0.2:
                put("attachment", {"attachment": {"type": "hook_success", "hookName": "UserPromptSubmit",
                                                  "hookEvent": "UserPromptSubmit", "content": "", "exitCode": 0}})
            for _ in range(int(r() * r() * 12)):
                kind, a1, a2, out, err = P.step()
                tid = "toolu_01" + self.b62(22)
                inp: JsonObj
                res: Any
                if kind == "bash":
                    inp, res = {"command": a1, "description": P.prose(1, 1)[:60]}, {
                        "stdout": out, "stderr": "", "interrupted": False, "isImage": False}
                    if err:
                        out = res = f"Error: Exit code 1\n{out}"
                elif kind == "read":
                    inp = {"file_path": f"{cwd}/{a1}"}
                    lines = out.split("\n")
                    res = {"type": "text", "file": {"filePath": f"{cwd}/{a1}", "content": out,
                                                    "numLines": len(lines), "startLine": 1, "totalLines": len(lines)}}
                    out = "\n".join(f"{i:>6}\u2192{x}" for i, x in enumerate(lines, 1))
                elif kind == "edit":
                    inp = {"file_path": f"{cwd}/{a1}", "old_string": a2, "new_string": out}
                    res = {"filePath": f"{cwd}/{a1}", "oldString": a2, "newString": out, "userModified": False}
                    out = f"The file {cwd}/{a1} has been updated successfully."
                elif kind == "grep":
                    inp, res = {"pattern": a1, "path": a2, "output_mode": "content"}, {"mode": "content"}
                else:
                    inp, res = {"file_path": f"{cwd}/{a1}", "content": a2}, {"type": "create", "filePath": f"{cwd}/{a1}"}
                    out = f"File created successfully at: {cwd}/{a1}"
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
                compacted = True
                now += self.gap(1, 30)
                put("system", {"subtype": "compact_boundary", "content": "Conversation compacted", "level": "info",
                               "logicalParentUuid": last, "compactMetadata": {"trigger": "auto",
                               "preTokens": 150000 + int(r() * 30000)}}, parent=None)
                put("user", {"message": {"role": "user", "content": "This session is being continued from a previous "
                             "conversation that ran out of context. Summary:\n" + P.prose(4, 12)},
                             "isCompactSummary": True, "isVisibleInTranscriptOnly": True})
                prompt_parent = None
        if r() < 0.7:
            w.put({"type": "ai-title", "sessionId": sid, "aiTitle": P.prose(1, 1)[:60]})
        w.put({"type": "last-prompt", "lastPrompt": last_prompt[:200], "leafUuid": last, "sessionId": sid})
        w.close()
        st.sessions += 1
        if r() < 0.08:
            self.claude_subagent(folder / sid / "subagents", sid, tail, now)

    def claude_subagent(self, folder: Path, sid: str, tail: JsonObj, now: int) -> None:
        P, st = self.pools, self.stats["claude"]
        aid = f"a{self.rng.getrandbits(64):016x}"
        w = Jsonl(folder / f"agent-{aid}.jsonl", st)
        desc = P.prose(1, 1)[:50]
        (folder / f"agent-{aid}.meta.json").write_bytes(orjson.dumps({"agentType": "general-purpose", "description": desc}))
        st.files += 1
        last, tid = None, ""
        steps = 5 + int(self.r() * 30)
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
                        "role": "assistant", "model": "claude-haiku-4-5", "content": [block]}}
            w.put({"parentUuid": last, "isSidechain": True, "agentId": aid, **body, "uuid": u,
                   "timestamp": iso(now), **tail})
            last = u
        w.close()

    # --- Codex ---------------------------------------------------------------------------------------------
    def codex(self) -> None:
        P, r, st = self.pools, self.r, self.stats["codex"]
        name, cwd = self.project()
        now = self.start_ms()
        sid = self.uuid7(now)
        t = time.gmtime(now // 1000)
        day = self.out / "codex" / "sessions" / f"{t.tm_year:04d}/{t.tm_mon:02d}/{t.tm_mday:02d}"
        path = day / f"rollout-{time.strftime('%Y-%m-%dT%H-%M-%S', t)}-{sid}.jsonl"
        w = Jsonl(path, st)
        model = P.pick(MODELS["codex"])
        target = P.session_lines(self.remaining_lines("codex"))

        def put(kind: str, payload: JsonObj) -> None:
            w.put({"timestamp": iso(now), "type": kind, "payload": payload})

        def message(role: str, text: str, out: bool = False) -> None:
            put("response_item", {"type": "message", "role": role,
                                  "content": [{"type": "output_text" if out else "input_text", "text": text}]})

        put("session_meta", {"id": sid, "timestamp": iso(now), "cwd": cwd, "originator": "codex_cli_rs",
                             "cli_version": f"0.{100 + int(r() * 60)}.0", "source": "cli", "model_provider": "openai",
                             "base_instructions": {"text": "You are Codex, a coding agent. " + P.prose(3, 6)},
                             "git": {"commit_hash": P.pick(P.hashes), "branch": "main",
                                     "repository_url": f"git@git.example.com:{name}.git"}})
        message("developer", "<permissions instructions>\nsandbox_mode is workspace-write; approval policy is "
                "on-request.\n</permissions instructions>")
        message("user", f"<environment_context>\n  <cwd>{cwd}</cwd>\n  <approval_policy>on-request</approval_policy>\n"
                "  <sandbox_mode>workspace-write</sandbox_mode>\n  <shell>bash</shell>\n</environment_context>")
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
            for _ in range(int(r() * r() * 12)):
                now += self.gap(0.5, 30)
                if r() < 0.6:
                    summary = P.pick(P.sentences)
                    put("event_msg", {"type": "agent_reasoning", "text": summary})
                    put("response_item", {"type": "reasoning", "summary": [{"type": "summary_text", "text": summary}],
                                          "content": None, "encrypted_content": "gAAAAAB" + self.b62(400)})
                kind, a1, a2, out, err = P.step()
                call = "call_" + self.b62(24)
                if kind == "edit" and r() < 0.7:
                    patch = f"*** Begin Patch\n*** Update File: {a1}\n@@\n-" + a2.replace("\n", "\n-") + "\n+" + \
                        out.replace("\n", "\n+") + "\n*** End Patch"
                    put("response_item", {"type": "custom_tool_call", "status": "completed", "call_id": call,
                                          "name": "apply_patch", "input": patch})
                    now += self.gap(0.1, 5)
                    put("response_item", {"type": "custom_tool_call_output", "call_id": call, "output": orjson.dumps(
                        {"output": f"Success. Updated the following files:\nM {a1}\n",
                         "metadata": {"exit_code": 0, "duration_seconds": 0.0}}).decode()})
                    continue
                cmd = {"read": f"sed -n '1,400p' {a1}", "grep": f"rg -n '{a1}' {a2}",
                       "write": f"cat > {a1} <<'EOF'\n{a2}\nEOF", "edit": f"sed -n '1,80p' {a1}"}.get(kind, a1)
                put("response_item", {"type": "function_call", "name": "shell", "call_id": call, "arguments":
                                      orjson.dumps({"command": ["bash", "-lc", cmd], "workdir": cwd,
                                                    "timeout_ms": 120000}).decode()})
                now += self.gap(0.1, 60)
                put("response_item", {"type": "function_call_output", "call_id": call, "output": orjson.dumps(
                    {"output": out, "metadata": {"exit_code": 1 if err else 0,
                                                 "duration_seconds": round(r() * 20, 1)}}).decode()})
                total += 2000 + len(out) // 4
                put("event_msg", {"type": "token_count", "info": {"total_token_usage": {
                    "input_tokens": total, "cached_input_tokens": total // 2, "output_tokens": total // 20,
                    "reasoning_output_tokens": total // 40, "total_tokens": total + total // 20}}})
            now += self.gap(1, 40)
            reply = P.reply()
            put("event_msg", {"type": "agent_message", "message": reply})
            message("assistant", reply, out=True)
            put("event_msg", {"type": "task_complete", "turn_id": turn, "last_agent_message": reply})
        w.close()
        st.sessions += 1
        if r() < 0.10:
            zpath = path.with_name(path.name + ".zst")
            with path.open("rb") as src, zpath.open("wb") as dst:
                zstandard.ZstdCompressor(level=3).copy_stream(src, dst)
            path.unlink()

    # --- Mistral Vibe ----------------------------------------------------------------------------------------
    def vibe(self) -> None:
        P, r, st = self.pools, self.r, self.stats["vibe"]
        name, cwd = self.project()
        now = self.start_ms()
        sid = self.uuid4()
        folder = self.out / "vibe" / "logs" / "session" / f"session_{time.strftime('%Y%m%d_%H%M%S', time.gmtime(now // 1000))}_{sid[:8]}"
        w = Jsonl(folder / "messages.jsonl", st)
        target = P.session_lines(self.remaining_lines("vibe"))
        start, title, calls = now, "", 0
        names = {"bash": "bash", "read": "read_file", "edit": "search_replace", "grep": "grep", "write": "write_file"}
        while w.n < target:
            now += self.gap(5, 900)
            prompt = P.prompt(name)
            title = title or prompt
            w.put({"role": "user", "content": prompt, "injected": False, "message_id": self.uuid4()})
            for _ in range(int(r() * r() * 10)):
                kind, a1, a2, out, err = P.step()
                call = "call_" + self.b62(8)
                args = {"bash": {"command": a1}, "read": {"path": a1}, "grep": {"pattern": a1, "path": a2},
                        "write": {"path": a1, "content": a2, "overwrite": True},
                        "edit": {"file_path": a1, "content": f"<<<<<<< SEARCH\n{a2}\n=======\n{out}\n>>>>>>> REPLACE"},
                        }[kind]
                msg: JsonObj = {"role": "assistant", "content": P.prose(0, 1), "injected": False}
                if r() < 0.5:
                    msg["reasoning_content"] = P.prose(1, 4)
                msg["tool_calls"] = [{"id": call, "index": 0, "function": {"name": names[kind], "arguments":
                                      orjson.dumps(args).decode()}, "type": "function"}]
                msg["message_id"] = self.uuid4()
                w.put(msg)
                body = f"command: {a1}\nreturncode: {1 if err else 0}\nstdout: {out}\nstderr: " if kind == "bash" else out
                w.put({"role": "tool", "content": body, "injected": False, "name": names[kind], "tool_call_id": call})
                calls += 1
                now += self.gap(0.5, 40)
            w.put({"role": "assistant", "content": P.reply(), "injected": False, "message_id": self.uuid4()})
        w.close()
        meta = {"session_id": sid, "parent_session_id": None, "start_time": iso(start).replace("Z", "+00:00"),
                "end_time": iso(now).replace("Z", "+00:00"), "git_commit": P.pick(P.hashes), "git_branch": "main",
                "environment": {"working_directory": cwd}, "username": cwd.split("/")[2], "loops": [],
                "title": title[:50] + ("…" if len(title) > 50 else ""), "title_source": "auto", "experiments": None,
                "stats": {"steps": w.n, "tool_calls_succeeded": calls, "session_cost": round(r() * 2, 4)},
                "total_messages": w.n, "agent_profile": {"name": "default", "overrides": {}}}
        (folder / "meta.json").write_bytes(orjson.dumps(meta, option=orjson.OPT_INDENT_2))
        st.files += 1
        st.sessions += 1

    # --- OpenClaw (pi v3) --------------------------------------------------------------------------------------
    def openclaw(self, index: list[JsonObj]) -> None:
        P, r, st = self.pools, self.r, self.stats["openclaw"]
        name, cwd = self.project()
        now = self.start_ms()
        sid = self.uuid4()
        w = Jsonl(self.out / "openclaw" / "agents" / "main" / "sessions" / f"{sid}.jsonl", st)
        target = P.session_lines(self.remaining_lines("openclaw"))
        model = P.pick(MODELS["openclaw"])
        last: str | None = None

        def put(kind: str, body: JsonObj) -> str:
            nonlocal last
            i = f"{self.rng.getrandbits(32):08x}"
            w.put({"type": kind, "id": i, "parentId": last, "timestamp": iso(now), **body})
            last = i
            return i

        w.put({"type": "session", "version": 3, "id": sid, "timestamp": iso(now), "cwd": cwd})
        put("model_change", {"provider": "anthropic", "modelId": model})
        put("thinking_level_change", {"thinkingLevel": P.pick(["off", "low", "medium"])})
        names = {"bash": "bash", "read": "read", "edit": "edit", "grep": "bash", "write": "write"}
        while w.n < target:
            now += self.gap(5, 900)
            put("message", {"message": {"role": "user", "content": [{"type": "text", "text": P.prompt(name)}],
                                        "timestamp": now}})
            for _ in range(int(r() * r() * 10)):
                kind, a1, a2, out, err = P.step()
                call = "toolu_" + self.b62(24)
                args = {"bash": {"command": a1}, "read": {"path": a1}, "grep": {"command": f"grep -rn '{a1}' {a2}"},
                        "write": {"path": a1, "content": a2}, "edit": {"path": a1, "oldText": a2, "newText": out}}[kind]
                content: list[JsonObj] = [{"type": "thinking", "thinking": P.prose(1, 3)}] if r() < 0.4 else []
                content.append({"type": "toolCall", "id": call, "name": names[kind], "arguments": args})
                now += self.gap(0.5, 30)
                put("message", {"message": {"role": "assistant", "content": content, "api": "anthropic-messages",
                                            "provider": "anthropic", "model": model, "stopReason": "toolUse",
                                            "usage": {"input": int(r() * 5000), "output": int(r() * 800),
                                                      "cacheRead": int(r() * 90000), "cacheWrite": 0},
                                            "timestamp": now}})
                now += self.gap(0.1, 40)
                put("message", {"message": {"role": "toolResult", "toolCallId": call, "toolName": names[kind],
                                            "content": [{"type": "text", "text": out or "ok"}], "isError": err,
                                            "timestamp": now}})
            now += self.gap(1, 30)
            put("message", {"message": {"role": "assistant", "content": [{"type": "text", "text": P.reply()}],
                                        "api": "anthropic-messages", "provider": "anthropic", "model": model,
                                        "stopReason": "stop", "timestamp": now}})
            if r() < 0.02 and last:
                put("compaction", {"summary": P.prose(4, 10), "firstKeptEntryId": last, "tokensBefore": 180000})
        w.close()
        st.sessions += 1
        index.append({"key": f"agent:main:{sid[:8]}", "sessionId": sid, "updatedAt": now, "label": name})

    # --- OpenCode (SQLite) ---------------------------------------------------------------------------------------
    def opencode_db(self) -> sqlite3.Connection:
        path = self.out / "opencode" / "opencode.db"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.unlink(missing_ok=True)
        db = sqlite3.connect(path)
        db.executescript(OPENCODE_SCHEMA.read_text() if OPENCODE_SCHEMA.exists() else FALLBACK_SCHEMA)
        db.execute("PRAGMA synchronous=OFF")
        db.execute("PRAGMA journal_mode=MEMORY")
        db.execute("INSERT INTO migration VALUES ('20260622202450_simplify_session_input', ?)", (YEAR_START * 1000,))
        self.stats["opencode"].files += 1
        return db

    def oc_id(self, prefix: str, ms: int) -> str:
        return f"{prefix}_{(ms * 4096 + int(self.r() * 4096)) & 0xFFFFFFFFFFFF:012x}{self.b62(14)}"

    def opencode(self, db: sqlite3.Connection, projects: set[str], parent: str | None = None) -> None:
        P, r, st = self.pools, self.r, self.stats["opencode"]
        name, cwd = self.project()
        pid = P.hashes[P.projects.index(name)]
        now = self.start_ms()
        if pid not in projects:
            projects.add(pid)
            db.execute("INSERT INTO project VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
                       (pid, cwd, "git", name, None, None, None, now, now, now, "[]", None))
        sid = self.oc_id("ses", now)
        target = P.session_lines(self.remaining_lines("opencode"))
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
            mid = self.oc_id("msg", now)
            d = orjson.dumps(data).decode()
            nbytes += len(d)
            msgs.append((mid, sid, now, now, d))
            return mid

        title, tin, tout = "", 0, 0
        while len(msgs) + len(parts) < target:
            now += self.gap(5, 900)
            prompt = P.prompt(name)
            title = title or prompt[:60]
            umid = message({"role": "user", "time": {"created": now}, "agent": "build",
                            "model": {"providerID": "openrouter", "modelID": model}})
            part(umid, {"type": "text", "text": prompt})
            for _ in range(1 + int(r() * r() * 6)):
                steps = int(r() * r() * 5)
                tokens = {"input": int(r() * 30000), "output": int(r() * 2000), "reasoning": 0,
                          "cache": {"read": int(r() * 90000), "write": 0}}
                tin, tout = tin + tokens["input"], tout + tokens["output"]
                amid = message({"parentID": umid, "role": "assistant", "mode": "build", "agent": "build",
                                "path": {"cwd": cwd, "root": cwd}, "cost": 0, "tokens": tokens, "modelID": model,
                                "providerID": "openrouter", "time": {"created": now, "completed": now + 9000},
                                "finish": "tool-calls" if steps else "stop"})
                part(amid, {"type": "step-start"})
                if r() < 0.4:
                    part(amid, {"type": "reasoning", "text": P.prose(1, 5), "time": {"start": now, "end": now + 800}})
                for _ in range(steps):
                    kind, a1, a2, out, err = P.step()
                    inp = {"bash": {"command": a1, "description": P.prose(1, 1)[:50]}, "read": {"filePath": f"{cwd}/{a1}"},
                           "grep": {"pattern": a1, "path": a2}, "write": {"filePath": f"{cwd}/{a1}", "content": a2},
                           "edit": {"filePath": f"{cwd}/{a1}", "oldString": a2, "newString": out}}[kind]
                    state = {"status": "error", "input": inp, "error": out, "time": {"start": now, "end": now + 500}} \
                        if err else {"status": "completed", "input": inp, "output": out, "title": a1[:80],
                                     "metadata": {"exit": 0, "truncated": False}, "time": {"start": now, "end": now + 500}}
                    part(amid, {"type": "tool", "tool": kind, "callID": "toolu_" + self.b62(24), "state": state})
                if not steps:
                    part(amid, {"type": "text", "text": P.reply(), "time": {"start": now, "end": now + 2000}})
                part(amid, {"type": "step-finish", "reason": "tool-calls" if steps else "stop", "tokens": tokens,
                            "cost": 0})
        db.execute("INSERT INTO session (id, project_id, parent_id, slug, directory, title, version, tokens_input, "
                   "tokens_output, agent, model, time_created, time_updated) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
                   (sid, pid, parent, f"{P.pick(WORDS)}-{P.pick(WORDS)}", cwd, title or "New session", "1.18.33",
                    tin, tout, "build", orjson.dumps({"id": model, "providerID": "openrouter"}).decode(),
                    msgs[0][2] if msgs else now, now))
        db.executemany("INSERT INTO message VALUES (?,?,?,?,?)", msgs)
        db.executemany("INSERT INTO part VALUES (?,?,?,?,?,?)", parts)
        st.bytes += nbytes
        st.lines += len(msgs) + len(parts)
        st.sessions += 1
        if parent is None and r() < 0.05:
            self.opencode(db, projects, parent=sid)

    # --- driver ------------------------------------------------------------------------------------------------
    def run(self) -> dict[str, Any]:
        t0 = time.perf_counter()
        for h in ("claude", "codex", "vibe"):
            make = getattr(self, h)
            while self.stats[h].bytes < self.budget[h]:
                make()
        index: list[JsonObj] = []
        while self.stats["openclaw"].bytes < self.budget["openclaw"]:
            self.openclaw(index)
        store = {e.pop("key"): e for e in index}
        (self.out / "openclaw" / "agents" / "main" / "sessions" / "sessions.json").write_bytes(
            orjson.dumps(store, option=orjson.OPT_INDENT_2))
        db, projects = self.opencode_db(), set()
        n = 0
        while self.stats["opencode"].bytes < self.budget["opencode"]:
            self.opencode(db, projects)
            n += 1
            if n % 50 == 0:
                db.commit()
        db.commit()
        db.close()
        secs = time.perf_counter() - t0
        disk = sum(p.stat().st_size for p in self.out.rglob("*") if p.is_file())
        per = {h: vars(s) for h, s in self.stats.items()}
        written = sum(s.bytes for s in self.stats.values())
        return {"harnesses": per, "bytes": written, "disk_bytes": disk, "seconds": round(secs, 2),
                "mb_per_s": round(written / 1e6 / secs, 1)}


def generate(out_dir: Path, size_mb: float, seed: int = 1) -> dict[str, Any]:
    """Write a store of about `size_mb` MB under `out_dir`; the same seed gives the same content."""
    t0 = time.perf_counter()
    gen = Generator(Path(out_dir), size_mb, seed)
    setup = time.perf_counter() - t0
    summary = gen.run()
    summary["setup_seconds"] = round(setup, 2)
    return summary


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    ap.add_argument("out_dir", type=Path)
    ap.add_argument("--size-mb", type=float, default=1000.0)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args(argv)
    s = generate(a.out_dir, a.size_mb, a.seed)
    print(f"{'harness':<10}{'sessions':>10}{'files':>9}{'lines/rows':>12}{'MB':>10}{'share':>8}")
    for h, v in s["harnesses"].items():
        print(f"{h:<10}{v['sessions']:>10}{v['files']:>9}{v['lines']:>12}{v['bytes'] / 1e6:>10.1f}"
              f"{v['bytes'] / max(1, s['bytes']):>8.1%}")
    print(f"total {s['bytes'] / 1e6:.1f} MB of records ({s['disk_bytes'] / 1e6:.1f} MB on disk) in {s['seconds']}s "
          f"+ {s['setup_seconds']}s setup = {s['mb_per_s']} MB/s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
