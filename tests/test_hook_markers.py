"""What a harness's PreCompact marker covers: the whole session up to the compaction, the owner's last
instruction included, since the harness (not we) decides what it keeps of the conversation."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.conftest import SESSIONS
from tests.stores import empty_roots
from total_recall.surfaces.cli import cli

SPOTTER = SESSIONS / "claude_code" / "real_v2.1.39_spotter" / "-home-USER-projects-spotter"
NATIVE = "4d5611e5-241a-462a-8d15-5122611a9569"
ROLLOUT = "rollout-2026-02-23T13-19-38-019c8a70-dda7-7f33-98ea-f30553347322.jsonl"


def run(*args: str, stdin: str | None = None) -> str:
    result = CliRunner().invoke(cli, list(args), input=stdin)
    assert result.exit_code == 0, result.output
    return result.stdout


def receipts() -> list[dict[str, object]]:
    return list(json.loads(run("receipts", "--json"))["receipts"])


def test_a_precompact_at_the_real_compaction_of_an_autonomous_run_keeps_the_owner_s_one_prompt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The real 2.1.39 session (an excerpt) as its file stood when Claude Code compacted it
    (preTokens=170251): one prompt of the owner's, then the agent's work. The marker holds that prompt word
    for word and runs to the last entry; the session start after the compaction hands it back."""
    roots = empty_roots(tmp_path / "stores", monkeypatch)
    lines = (SPOTTER / f"{NATIVE}.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    boundary = next(n for n, line in enumerate(lines) if '"compact_boundary"' in line)
    assert '"preTokens":170251' in lines[boundary].replace(" ", "")
    transcript = roots["claude-code"] / "-home-USER-projects-spotter" / f"{NATIVE}.jsonl"
    transcript.parent.mkdir(parents=True)
    transcript.write_text("".join(lines[:boundary]), encoding="utf-8")
    payload = {"session_id": NATIVE, "transcript_path": str(transcript), "cwd": "/home/USER/projects/spotter",
               "permission_mode": "default", "trigger": "auto"}
    run("hook", "claude-code", stdin=json.dumps({**payload, "hook_event_name": "PreCompact"}))
    [receipt] = receipts()
    entries = json.loads(run("read", str(receipt["session"]), "--json"))["entries"]
    [prompt] = [e for e in entries if e["author"] == "owner"]
    assert prompt["text"].startswith("Work on bead spotter-dov.")
    assert receipt["marker"] is not None and receipt["range"] == f"{receipt['session']}#1-{len(entries)}"
    [marker] = json.loads(run("markers", str(receipt["session"]), "--json"))["markers"]
    quoted = [q for q in marker["instructions"] if q["address"] == prompt["address"]]
    assert quoted and all(q["text"] in prompt["text"] for q in quoted)
    assert quoted[0]["text"] in marker["text"]
    start = run("hook", "claude-code", stdin=json.dumps({**payload, "hook_event_name": "SessionStart",
                                                         "source": "compact"}))
    context = json.loads(start)["hookSpecificOutput"]["additionalContext"]
    assert quoted[0]["text"] in context


def test_a_marker_with_nothing_of_the_owner_s_nor_an_exact_string_is_receipted_as_empty_not_as_saving(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The same real session before the owner's first prompt: the harness's bookkeeping only (snapshots,
    hook progress), so the marker is larger than what it stands for and the receipt says why."""
    roots = empty_roots(tmp_path / "stores", monkeypatch)
    lines = (SPOTTER / f"{NATIVE}.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    prompt = next(n for n, line in enumerate(lines) if '"type":"user"' in line.replace(" ", ""))
    transcript = roots["claude-code"] / "-home-USER-projects-spotter" / f"{NATIVE}.jsonl"
    transcript.parent.mkdir(parents=True)
    transcript.write_text("".join(lines[:prompt]), encoding="utf-8")
    run("hook", "claude-code", stdin=json.dumps({
        "session_id": NATIVE, "transcript_path": str(transcript), "cwd": "/home/USER/projects/spotter",
        "hook_event_name": "PreCompact", "trigger": "auto"}))
    [receipt] = receipts()
    assert receipt["decision"] == "compacted" and receipt["marker"] is not None
    assert int(str(receipt["tokens_after"])) > int(str(receipt["tokens_before"]))
    assert str(receipt["note"]).startswith(f"empty marker: {receipt['range']} holds nothing of the owner's "
                                           "and no exact string")
    assert "tokens are estimates" not in str(receipt["note"])


def test_a_codex_precompact_marker_runs_to_the_session_s_last_entry_with_its_last_owner_message(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    roots = empty_roots(tmp_path / "stores", monkeypatch)
    source = next((SESSIONS / "codex" / "sessions").rglob(ROLLOUT))
    rollout = roots["codex"] / source.relative_to(SESSIONS / "codex")
    rollout.parent.mkdir(parents=True)
    shutil.copy(source, rollout)
    native = "019c8a70-dda7-7f33-98ea-f30553347322"
    run("hook", "codex", stdin=json.dumps({
        "session_id": native, "turn_id": "turn-1", "transcript_path": str(rollout), "cwd": "/work/proj",
        "model": "gpt-5.6", "hook_event_name": "PreCompact", "trigger": "auto"}))
    [receipt] = [r for r in receipts() if r["trigger"] == "auto"]
    entries = json.loads(run("read", str(receipt["session"]), "--json"))["entries"]
    last_owner = [e for e in entries if e["author"] == "owner"][-1]
    assert receipt["range"] == f"{receipt['session']}#1-{len(entries)}"
    [marker] = json.loads(run("markers", str(receipt["session"]), "--json"))["markers"]
    assert last_owner["address"] in [q["address"] for q in marker["instructions"]]
