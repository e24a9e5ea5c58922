"""Tool output as the tool wrote it: Codex's `{"output": …, "metadata": …}` envelope is unwrapped when read,
in every reader, and once for the entries a record holds from before (migration m014).

The rollout below is constructed in the shape Codex CLI 0.4x wrote for its `shell` and `apply_patch` tools
(the output string is the JSON envelope); bench/exact.py writes the same shape.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from tests.readers.helpers import read_all
from total_recall.find.search import search
from total_recall.model import Address
from total_recall.readers import codex as codex_reader
from total_recall.readers.openclaw import OpenClawReader
from total_recall.readers.vibe import VibeReader
from total_recall.record.database import Record
from total_recall.surfaces.cli import cli

SID = "0195a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b"
BRANCHES = '* main\n  feature/envelopes\nreleased "quoted" line\n---\n'


def envelope(output: str, code: int = 0) -> str:
    return json.dumps({"output": output, "metadata": {"exit_code": code, "duration_seconds": 0.4}})


def item(payload: dict[str, Any], second: int) -> dict[str, Any]:
    return {"timestamp": f"2026-03-01T10:00:{second:02d}.000Z", "type": "response_item", "payload": payload}


def rollout(root: Path) -> Path:
    lines = [
        {"timestamp": "2026-03-01T10:00:00.000Z", "type": "session_meta",
         "payload": {"id": SID, "timestamp": "2026-03-01T10:00:00.000Z", "cwd": "/work/proj"}},
        item({"type": "message", "role": "user",
              "content": [{"type": "input_text", "text": "list the branches please"}]}, 1),
        item({"type": "function_call", "name": "shell", "call_id": "call_1",
              "arguments": json.dumps({"command": ["bash", "-lc", 'git branch -a && echo "---"']})}, 2),
        item({"type": "function_call_output", "call_id": "call_1", "output": envelope(BRANCHES)}, 3),
        item({"type": "custom_tool_call", "name": "apply_patch", "call_id": "call_2",
              "input": "*** Begin Patch\n*** End Patch"}, 4),
        item({"type": "custom_tool_call_output", "call_id": "call_2",
              "output": envelope("Success. Updated the following files:\nM src/app.py\n")}, 5),
        item({"type": "function_call", "name": "shell", "call_id": "call_3",
              "arguments": json.dumps({"command": ["bash", "-lc", "pytest -q"]})}, 6),
        item({"type": "function_call_output", "call_id": "call_3",
              "output": envelope("1 failed, 2 passed in 0.12s\n", 1)}, 7),
        # Output that merely looks like JSON, or carries other keys, is the tool's own and stays whole.
        item({"type": "function_call", "name": "mcp__api__status", "call_id": "call_4",
              "arguments": "{}"}, 8),
        item({"type": "function_call_output", "call_id": "call_4",
              "output": json.dumps({"output": "ok", "metadata": {}, "status": 200})}, 9),
    ]
    path = root / "sessions" / "2026" / "03" / "01" / f"rollout-2026-03-01T10-00-00-{SID}.jsonl"
    path.parent.mkdir(parents=True)
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


@pytest.fixture
def synced(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> CliRunner:
    rollout(tmp_path / "codex")
    monkeypatch.setenv("TOTAL_RECALL_CODEX_ROOT", str(tmp_path / "codex"))
    runner = CliRunner()
    done = runner.invoke(cli, ["sync", "--harness", "codex"])
    assert done.exit_code == 0, done.output
    return runner


def entries(runner: CliRunner, address: str = "s1") -> list[dict[str, Any]]:
    """`read ADDRESS --json`'s entries: the whole address, in one page."""
    done: Result = runner.invoke(cli, ["read", address, "--json"])
    assert done.exit_code == 0, done.output
    page = json.loads(done.stdout)
    assert page["bounds"]["next_offset"] is None
    return list(page["entries"])


def results(runner: CliRunner) -> list[str]:
    return [e["text"] for e in entries(runner) if e["kind"] == "tool_result"]


def test_a_codex_shell_output_reads_as_the_tool_wrote_it_without_its_json_envelope(synced: CliRunner) -> None:
    shell, patch, failed, other = results(synced)
    assert shell == BRANCHES
    assert patch == "Success. Updated the following files:\nM src/app.py\n"
    assert failed == "Exit code: 1\n1 failed, 2 passed in 0.12s\n"  # the exit code says it failed
    assert other == json.dumps({"output": "ok", "metadata": {}, "status": 200})
    assert not any("\\n" in text or '\\"' in text for text in (shell, patch, failed))
    with _record() as record:
        raw = record.raw(1, 4)  # the source record keeps the envelope
        failures = [r[0] for r in record.db.execute(
            "SELECT e.seq FROM tool_failures f JOIN entries e ON e.id = f.entry ORDER BY e.seq")]
    assert raw is not None and b'\\"metadata\\"' in raw and b"exit_code" in raw
    assert failures == [8]  # and a failed call unwrapped still counts as failed


def test_words_and_exact_strings_of_an_unwrapped_output_are_found_as_a_person_typed_them(
    synced: CliRunner,
) -> None:
    with _record() as record:
        # Escaped, "\nreleased" is the word "nreleased": unwrapped, "released" is a word of it.
        assert words(record, "released") == 1 and words(record, "nreleased") == 0
        assert search(record, "feature/envelopes", limit=1, meaning=False)[0].address == "s1#4"
        assert search(record, 'released "quoted" line', limit=1, meaning=False)[0].address == "s1#4"
        assert search(record, "src/app.py", limit=1, meaning=False)[0].address == "s1#6"


def words(record: Record, word: str) -> int:
    """Entries whose text the word index lists under `word`."""
    return int(record.db.execute("SELECT count(*) FROM entries_fts WHERE entries_fts MATCH ?",
                                (f"text : {word}",)).fetchone()[0])


def _record() -> Record:
    from total_recall.config import record_home

    return Record(record_home() / "record.sqlite3")


@pytest.mark.parametrize("harness", ["vibe", "openclaw"])
def test_other_readers_unwrap_the_same_envelope_in_a_tool_result(tmp_path: Path, harness: str) -> None:
    wrapped = envelope("line one\nline \"two\"\n")
    if harness == "vibe":
        folder = tmp_path / "session_20260301_100000_0a1b2c3d"
        folder.mkdir()
        (folder / "meta.json").write_text(json.dumps({"session_id": "0a1b2c3d-0000", "title": "t"}))
        (folder / "messages.jsonl").write_text(json.dumps(
            {"role": "tool", "content": wrapped, "name": "bash", "tool_call_id": "c1"}) + "\n")
        [source] = VibeReader().sources(tmp_path)
        read = read_all(VibeReader(), source)
    else:
        path = tmp_path / "s.jsonl"
        lines = [{"type": "session", "version": 3, "id": "oc-1", "timestamp": "2026-03-01T10:00:00.000Z"},
                 {"type": "message", "id": "m1", "parentId": None, "timestamp": "2026-03-01T10:00:01.000Z",
                  "message": {"role": "toolResult", "toolCallId": "c1", "toolName": "bash",
                              "content": [{"type": "text", "text": wrapped}]}}]
        path.write_text("".join(json.dumps(line) + "\n" for line in lines))
        [source] = OpenClawReader().sources(tmp_path)
        read = read_all(OpenClawReader(), source)
    [result] = [e for e in read.entries if e.kind == "tool_result"]
    assert result.text == 'line one\nline "two"\n'


def test_a_record_from_before_the_unwrapping_is_unwrapped_once_when_opened_and_logged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The record as the readers before m014 left it: the envelope recorded as the output's text.
    rollout(tmp_path / "codex")
    monkeypatch.setenv("TOTAL_RECALL_CODEX_ROOT", str(tmp_path / "codex"))
    runner = CliRunner()
    with monkeypatch.context() as old_reader:
        old_reader.setattr(codex_reader, "tool_output", lambda text: text)
        assert runner.invoke(cli, ["sync", "--harness", "codex"]).exit_code == 0
    with _record() as record:
        assert record.db.execute("SELECT text FROM entries WHERE seq = 4").fetchone()[0] == envelope(BRANCHES)
        record.db.executescript("BEGIN; DROP TABLE rereads; "
                               "DELETE FROM _migrations WHERE name = 'm014_tool_output_unwrapped'; COMMIT;")
        assert words(record, "released") == 0 and words(record, "nreleased") == 1
        raw_before = record.raw(1, 4)
        strings_before = record.db.execute("SELECT count(*) FROM strings").fetchone()[0]

    shell, patch, failed, other = results(runner)  # opening the record runs the migration
    assert (shell, failed) == (BRANCHES, "Exit code: 1\n1 failed, 2 passed in 0.12s\n")
    assert patch.startswith("Success.") and other.startswith('{"output": "ok"')
    with _record() as record:
        logged = [(r[0], r[1]) for r in record.db.execute(
            "SELECT e.seq, r.reason FROM rereads r JOIN entries e ON e.id = r.entry ORDER BY e.seq")]
        assert [seq for seq, _ in logged] == [4, 6, 8] and all(why.startswith("m014") for _, why in logged)
        assert record.raw(1, 4) == raw_before  # the source record is untouched
        assert words(record, "released") == 1 and words(record, "nreleased") == 0
        for shard in [r[0] for r in record.db.execute("SELECT name FROM fts_shards")]:
            record.db.execute(f"INSERT INTO {shard}({shard}, rank) VALUES ('integrity-check', 1)")
        assert record.db.execute("SELECT count(*) FROM strings").fetchone()[0] == strings_before
        # Nothing else may change the text: the append-only trigger is back.
        with pytest.raises(Exception, match="append-only"):
            record.db.execute("UPDATE entries SET text = 'x' WHERE seq = 4")
        with pytest.raises(Exception, match="append-only"):
            record.db.execute("DELETE FROM rereads")
        record.erase(Address(1, 4), "test")  # erase still works on a re-read entry
    with _record() as record:  # and opening again re-reads nothing
        assert record.db.execute("SELECT count(*) FROM rereads").fetchone()[0] == 3


def test_an_output_erased_before_the_unwrapping_stays_erased_when_its_file_is_read_anew(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Erased while readers recorded the envelope: its text hash is the envelope's. When the harness
    # rewrites the file and today's reader reads it again, the text it cuts differs, and only the source
    # record (the line) still names what was erased.
    path = rollout(tmp_path / "codex")
    monkeypatch.setenv("TOTAL_RECALL_CODEX_ROOT", str(tmp_path / "codex"))
    runner = CliRunner()
    with monkeypatch.context() as old_reader:
        old_reader.setattr(codex_reader, "tool_output", lambda text: text)
        assert runner.invoke(cli, ["sync", "--harness", "codex"]).exit_code == 0
    erased = runner.invoke(cli, ["erase", "s1#4", "--reason", "a private branch name"])
    assert erased.exit_code == 0, erased.output
    lines = path.read_text().splitlines(keepends=True)
    path.write_text(lines[0].replace("/work/proj", "/work/prj2") + "".join(lines[1:]))  # same size
    assert runner.invoke(cli, ["sync", "--harness", "codex"]).exit_code == 0

    texts = [e["text"] for e in entries(runner, "s2")]
    assert not any("feature/envelopes" in t for t in texts)
    assert sum(t.startswith("[erased ") and "a private branch name" in t for t in texts) == 1


def test_an_erased_output_keeps_no_key_that_hashes_its_words(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A Codex entry's key is a hash of what it holds: kept after erase, it would answer guesses of the text.
    path = rollout(tmp_path / "codex")
    monkeypatch.setenv("TOTAL_RECALL_CODEX_ROOT", str(tmp_path / "codex"))
    runner = CliRunner()
    assert runner.invoke(cli, ["sync", "--harness", "codex"]).exit_code == 0
    with _record() as record:
        [(old,)] = record.db.execute("SELECT key FROM entries WHERE session = 1 AND seq = 4").fetchall()
    assert runner.invoke(cli, ["erase", "s1#4", "--reason", "a private branch name"]).exit_code == 0
    home = Path(os.environ["TOTAL_RECALL_HOME"])
    held = {str(p): p.read_bytes().count(old.encode()) for p in home.rglob("*") if p.is_file()}
    assert not any(held.values()), held
    with _record() as record:
        [(now,)] = record.db.execute("SELECT key FROM entries WHERE session = 1 AND seq = 4").fetchall()
    assert now.startswith("erased:") and now != old
    # Appended to, the file is read on from where it was: nothing comes back, nothing is doubled.
    with path.open("a") as fh:
        fh.write(json.dumps(item({"type": "message", "role": "user",
                                  "content": [{"type": "input_text", "text": "thanks"}]}, 10)) + "\n")
    assert runner.invoke(cli, ["sync", "--harness", "codex"]).exit_code == 0
    texts = [e["text"] for e in entries(runner)]
    assert texts.count("thanks") == 1 and not any("feature/envelopes" in t for t in texts)
