"""The per-prompt hook as Claude Code runs it: `total-recall hook claude-code` with a UserPromptSubmit on
stdin, timed from spawn to exit, the push inside it, on a record whose asset index holds `--assets` skills.

    python bench/prompt_hook.py [--assets 10000] [--runs 40] [--seed N] [--json PATH]

It writes its session with the tests' helpers, so it needs the `test` extra (`pip install -e '.[test]'`);
`--help` does not.

Builds (in a temporary folder) a Claude Code config root with `--assets` skills (SKILL.md with a name and a
description drawn from a word pool), a session in which the owner corrects the agent ("you have the … skill
for that"), syncs it, rebuilds the asset index, then times, each `--runs` times, interleaved so load hits
all alike:

- the floor: the interpreter alone (`python -c pass`), which no hook can beat;
- the hook on its short path (the installed `total-recall` script, which answers UserPromptSubmit importing
  only the record and the push), with a prompt that pushes a pointer and one that pushes nothing;
- the same hook through the full CLI (`surfaces.cli.main`: click, the table of operations, the MCP-free
  rest), the path every hook took before the short one.

Prints p50/p99 wall time of each and its ratio to the floor. Target (issue 18): p50 < 150 ms with the
push inside, interpreter start included.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

EXE = Path(sys.executable).parent / "total-recall"
SESSION = "0b3f6a2e-5d1c-4e7a-9b8f-2c4d6e8fa0b1"
WORDS = ("relay browser login portal invoice ledger camera printer sensor deploy staging backup archive "
         "render export import schedule calendar mailbox inbox digest report chart metric alert webhook "
         "queue worker cache index crawler parser linter formatter notebook dataset model trainer tuner "
         "scanner uploader downloader converter resizer compressor signer verifier notifier").split()
HIT = "Grab last quarter's statement from the bank website please"
MISS = "What is the capital of Australia?"
MEANT = "fetch my latest account summary from the online banking portal"  # no word of the skill's keys


def build(base: Path, assets: int, seed: int) -> dict[str, str]:
    # The tests' helpers import pytest: loaded here, so `--help` runs on a base install.
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    try:
        from tests.keeping_helpers import Transcript
    except ModuleNotFoundError as exc:
        raise SystemExit(f"bench/prompt_hook.py needs the test extra ({exc.name} is missing): "
                         "pip install -e '.[test]'") from None

    rng = random.Random(seed)
    config = base / "claude"
    for n in range(assets):
        a, b, c, d = rng.sample(WORDS, 4)
        folder = config / "skills" / f"{a}-{b}-{n}"
        folder.mkdir(parents=True)
        (folder / "SKILL.md").write_text(f"---\nname: {a}-{b}-{n}\ndescription: Works the {c} with the {d}. "
                                         f"Use when the {c} needs the {d}.\n---\n", encoding="utf-8")
    relay = config / "skills" / "portal-relay"
    relay.mkdir(parents=True)
    (relay / "SKILL.md").write_text("---\nname: portal-relay\ndescription: Relays commands to a logged-in "
                                    "browser session.\n---\n", encoding="utf-8")
    t = Transcript(config / "projects" / "-work-shop" / f"{SESSION}.jsonl", "/work/shop")
    t.owner("Grab the monthly statement from the bank website.")
    t.agent("I can't reach that site from here: it needs a login.")
    t.owner("You have the portal-relay skill for that, use it.")
    t.agent("Right, using portal-relay.")
    env = {**os.environ, "TOTAL_RECALL_SANDBOX": "1", "TOTAL_RECALL_VECTOR_BUDGET": "0",
           "TOTAL_RECALL_CLAUDE_ROOT": str(config / "projects"), "TOTAL_RECALL_HOME": str(base / "record")}
    for args in (("sync", "--harness", "claude-code"), ("assets", "--rebuild", "--json")):
        subprocess.run([str(EXE), *args], env=env, check=True, capture_output=True)
    return env


def served(env: dict[str, str], runs: int, payload: Callable[[str], str], out: dict[str, list[float]]
           ) -> str | None:
    """The same hook with a live MCP server (the bench's own child, `total-recall mcp --no-sync`) holding
    the model: its push socket answers, by meaning. Returns what the hook said to MEANT (None without
    the vectors extra: the server then pushes by words, and only its speed is measured)."""
    server = subprocess.Popen([str(EXE), "mcp", "--no-sync"], stdin=subprocess.PIPE,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env)
    try:
        assert server.stderr is not None
        while "push socket" not in (line := server.stderr.readline()) or "ready" not in line:
            if not line:
                raise SystemExit("the MCP server ended before its push socket was ready")
        said = None
        for key in ("served, pushes", "served, meaning", "served, nothing"):
            out[key] = []
        for _ in range(runs):
            took, _ = timed([str(EXE), "hook", "claude-code"], payload(HIT), env)
            out["served, pushes"].append(took)
            took, said = timed([str(EXE), "hook", "claude-code"], payload(MEANT), env)
            out["served, meaning"].append(took)
            out["served, nothing"].append(timed([str(EXE), "hook", "claude-code"], payload(MISS), env)[0])
        return said if _has_vectors() else None
    finally:
        server.kill()
        server.wait()


def _has_vectors() -> bool:
    from total_recall.indexes import vectors

    return bool(vectors.available())


def timed(command: list[str], stdin: str, env: dict[str, str]) -> tuple[float, str]:
    start = time.perf_counter()
    done = subprocess.run(command, input=stdin, capture_output=True, text=True, env=env)
    took = (time.perf_counter() - start) * 1000
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} exited {done.returncode}: {done.stderr[-500:]}")
    return took, done.stdout


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--assets", type=int, default=10_000)
    ap.add_argument("--runs", type=int, default=40)
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args()
    seed = args.seed if args.seed is not None else random.randrange(2**31)
    command = (f"python bench/prompt_hook.py --assets {args.assets} --runs {args.runs} --seed {seed}")
    with tempfile.TemporaryDirectory(prefix="prompt-hook-") as tmp:
        t0 = time.perf_counter()
        env = build(Path(tmp), args.assets, seed)
        built = time.perf_counter() - t0

        def payload(text: str) -> str:
            return json.dumps({"hook_event_name": "UserPromptSubmit", "session_id": SESSION,
                               "cwd": "/work/shop", "transcript_path": "/dev/null", "prompt": text})

        runs: dict[str, list[float]] = {k: [] for k in ("floor", "short, pushes", "short, nothing",
                                                         "full CLI, pushes")}
        pushed = pushed_full = ""
        for _ in range(args.runs):
            runs["floor"].append(timed([sys.executable, "-c", "pass"], "", env)[0])
            took, pushed = timed([str(EXE), "hook", "claude-code"], payload(HIT), env)
            runs["short, pushes"].append(took)
            runs["short, nothing"].append(timed([str(EXE), "hook", "claude-code"], payload(MISS), env)[0])
            full = [sys.executable, "-c", "from total_recall.surfaces.cli import main; main()", "hook",
                    "claude-code"]
            took, pushed_full = timed(full, payload(HIT), env)
            runs["full CLI, pushes"].append(took)
        meant = served(env, args.runs, payload, runs)
    if "portal-relay" not in pushed or "portal-relay" not in pushed_full:
        raise SystemExit(f"a hook pushed no pointer to the corrected skill: {pushed!r} / {pushed_full!r}")
    if meant is not None:
        print(f"   the served hook pushed by meaning (words alone push nothing): {'portal-relay' in meant}")
    floor = statistics.median(runs["floor"])
    print(f"== the per-prompt hook, {args.assets:,} assets (built in {built:.1f} s)\n   {command}")
    print(f"   {'':<18} {'p50 ms':>8} {'p99 ms':>8} {'p50 / floor':>12}")
    out = {}
    for name, values in runs.items():
        values.sort()
        p50, p99 = statistics.median(values), values[min(len(values) - 1, int(len(values) * 0.99))]
        out[name] = {"p50_ms": round(p50, 1), "p99_ms": round(p99, 1)}
        print(f"   {name:<18} {p50:>8.1f} {p99:>8.1f} {p50 / floor:>11.1f}×")
    for row, when in (("served, pushes", "with the MCP server running (the registered case)"),
                      ("short, pushes", "with no server (words, in the hook's own process)")):
        if row in out:
            verdict = "meets" if out[row]["p50_ms"] < 150 else "misses"
            print(f"   target p50 < 150 ms with the push inside, {when}: {verdict} it")
    if args.json:
        args.json.write_text(json.dumps({"command": command, "assets": args.assets, **out}, indent=2))


if __name__ == "__main__":
    main()
