"""The owner's words in markers of real sessions, against labels made by reading the raw files.

    python bench/real_markers.py --transcripts DIR [--budget 3000]

DIR is marot/spotter's `test/fixtures/transcripts/` at commit 8cc42b0 (MIT; real Claude Code 2.1.39
sessions, not copied here for their size: `git clone https://github.com/marot/spotter && git -C spotter
checkout 8cc42b0`). The six sessions labelled in `bench/data/spotter_owner_words.json` are laid out as a
Claude Code projects folder (their sub-agents beside them), synced into a fresh record, and each is
compacted whole (`compact sN --range sN#1-<end> --keep-exchanges 0`). Printed: the owner's labelled words
the marker quotes (as a line of his, or inside its text), lines quoted as his that are not (harness text
taken for him), and exact strings still in a tool call's JSON escapes. Nothing was fitted on these sessions.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

LABELS = Path(__file__).resolve().parent / "data" / "spotter_owner_words.json"
OTHER_ROOTS = ("TOTAL_RECALL_CODEX_ROOT", "TOTAL_RECALL_OPENCODE_ROOT", "TOTAL_RECALL_VIBE_ROOT",
               "TOTAL_RECALL_OPENCLAW_ROOT")


def tool(env: dict[str, str], *args: str) -> dict[str, object]:
    done = subprocess.run([sys.executable, "-m", "total_recall", *args, "--json"], env=env,
                          capture_output=True, text=True, check=False)
    if done.returncode:
        raise SystemExit(f"total-recall {' '.join(args)}: {done.stderr.strip()}")
    reply: dict[str, object] = json.loads(done.stdout)
    return reply


def _same(label: str, line: str) -> bool:
    """Whether a marker's line quotes the labelled words (whole, or their start cut with …)."""
    return label.startswith(line.removesuffix("…")) or line.startswith(label)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--transcripts", type=Path, required=True)
    ap.add_argument("--budget", type=int, default=3000)
    args = ap.parse_args()
    labels: dict[str, list[str]] = json.loads(LABELS.read_text(encoding="utf-8"))["sessions"]
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        project = base / "projects" / "-spotter"
        project.mkdir(parents=True)
        for name in labels:
            shutil.copy2(args.transcripts / name, project / name)
            beside = args.transcripts / name.removesuffix(".jsonl")
            if beside.is_dir():
                shutil.copytree(beside, project / beside.name)
        (base / "empty").mkdir()
        env = {**os.environ, "TOTAL_RECALL_HOME": str(base / "home"), "TOTAL_RECALL_SANDBOX": "1",
               "TOTAL_RECALL_VECTOR_BUDGET": "0", "HOME": str(base),
               "TOTAL_RECALL_CLAUDE_ROOT": str(base / "projects"),
               **{v: str(base / "empty") for v in OTHER_ROOTS}}
        tool(env, "sync")
        sessions = tool(env, "sessions")["sessions"]
        assert isinstance(sessions, list)
        quoted = expected = false = strings = escaped = inside = 0
        for name, words in labels.items():
            [s] = [s for s in sessions if s["source"].endswith("/" + name)]
            end = f"{s['session']}#1-{s['entries']}"
            marker = tool(env, "compact", s["session"], "--budget", str(args.budget), "--range", end,
                          "--keep-exchanges", "0")
            lines = [str(i["text"]) for i in marker["instructions"]]  # type: ignore[union-attr]
            text = str(marker["text"])
            found = [w for w in words if any(_same(w, x) for x in lines) or w in text]
            wrong = [x for x in lines if not any(_same(w, x) for w in words)]
            esc = [str(x["text"]) for x in marker["strings"]  # type: ignore[union-attr]
                   if '\\"' in str(x["text"]) or "\\n" in str(x["text"]) or str(x["text"]).endswith("\\")]
            # A line standing inside another of the same entry says nothing the other does not.
            listed = [(str(x["address"]), str(x["text"])) for x in marker["strings"]]  # type: ignore[union-attr]
            within = [t for a, t in listed if any(b == a and t != u and t in u for b, u in listed)]
            quoted, expected, false = quoted + len(found), expected + len(words), false + len(wrong)
            strings, escaped = strings + len(marker["strings"]), escaped + len(esc)  # type: ignore[arg-type]
            inside += len(within)
            print(f"{s['session']:>4} {name[:24]:24} owner's words quoted {len(found)}/{len(words)}"
                  f"   not his {len(wrong)}   escaped strings {len(esc)}/{len(marker['strings'])}")  # type: ignore[arg-type]
            for x in wrong:
                print(f"       not his: {x[:70]!r}")
            for x in esc:
                print(f"       escaped: {x[:70]!r}")
        print(f"all: the owner's words quoted {quoted}/{expected}; lines quoted as his that are not: "
              f"{false}; exact strings in JSON escapes: {escaped}/{strings}; standing inside another of "
              f"their entry: {inside} (budget {args.budget})")


if __name__ == "__main__":
    main()
