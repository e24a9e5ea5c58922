"""The record itself: append-only in the database, erase and quarantine, reads, migrations."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.conftest import SESSIONS
from total_recall.errors import AddressError, RecordError
from total_recall.model import Address
from total_recall.record.database import Record
from total_recall.record.migrations import MIGRATIONS, migrate
from total_recall.record.reading import read
from total_recall.record.sync import sync
from total_recall.surfaces.cli import cli

VIBE = SESSIONS / "vibe" / "logs" / "session"
DAG = SESSIONS / "claude_code" / "synthetic_compact_after_rewind_dag.jsonl"


@pytest.fixture
def record(tmp_path: Path) -> Record:
    s = Record(tmp_path / "rec" / "record.sqlite3")
    report = sync(s, ["vibe"], roots={"vibe": VIBE})
    assert report.errors == [] and report.entries_added > 0
    return s


def test_a_blank_record_migrates_and_migrating_twice_is_a_noop(tmp_path: Path) -> None:
    db = sqlite3.connect(tmp_path / "r.sqlite3", isolation_level=None)
    assert migrate(db) == [name for name, _ in MIGRATIONS]
    assert migrate(db) == []
    tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert {"sources", "sessions", "entries", "raws", "spans", "erasures", "quarantine"} <= tables


def test_the_word_index_holds_16_mb_of_terms_before_writing_a_segment(record: Record) -> None:
    # Fewer segments written and merged during a large sync; the setting lives in the index itself.
    hashsize = record.db.execute("SELECT v FROM entries_fts_config WHERE k = 'hashsize'").fetchone()[0]
    assert hashsize == 16 << 20


def test_a_record_from_a_newer_version_is_refused_by_name(tmp_path: Path) -> None:
    db = sqlite3.connect(tmp_path / "r.sqlite3", isolation_level=None)
    migrate(db)
    db.execute("INSERT INTO _migrations VALUES ('m999_future', 'now')")
    db.close()
    with pytest.raises(RecordError, match="m999_future"):
        Record(tmp_path / "r.sqlite3")


def test_a_file_that_is_not_a_record_is_refused_with_its_path(tmp_path: Path) -> None:
    bad = tmp_path / "record.sqlite3"
    bad.write_bytes(b"garbage" * 1000)
    with pytest.raises(RecordError, match=str(bad)):
        Record(bad)


def test_the_database_refuses_to_update_or_delete_an_entry(record: Record) -> None:
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        record.execute("UPDATE entries SET text = 'rewritten' WHERE seq = 1")
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        record.execute("DELETE FROM entries WHERE seq = 1")
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        record.execute("UPDATE entries SET erased_at = 'x', erased_reason = 'y', text = '' WHERE seq = 1")
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        record.execute("DELETE FROM raws")
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        record.execute("DELETE FROM spans")
    with pytest.raises(sqlite3.IntegrityError, match="never deleted"):
        record.execute("DELETE FROM sessions")
    with pytest.raises(sqlite3.IntegrityError, match="identity"):
        record.execute("UPDATE sessions SET id = 99 WHERE id = 1")


def test_erase_leaves_a_tombstone_and_drops_the_raw_record_and_spans(record: Record) -> None:
    owner = next(e for e in read(record, "s1") if e.author == "owner")
    assert owner.spans and record.raw(owner.session, owner.seq) is not None
    erased = record.erase(Address.parse(owner.address), "contains a password")
    # The fixture's compaction child (s2) carries this message over word for word in its injected message
    # (s2#2); the marker cut from the same line (s2#1) keeps its own words and loses the line.
    assert erased == [owner.address, "s2#2"]
    assert record.raw(2, 1) is None and read(record, "s2#1")[0].erased is None
    again = read(record, owner.address)[0]
    assert again.text.startswith("[erased ") and "contains a password" in again.text
    assert owner.text not in again.text
    assert again.erased is not None and again.spans == ()
    assert record.raw(owner.session, owner.seq) is None
    assert (owner.address, owner.seq) == (again.address, again.seq)
    row = record.execute(
        "SELECT e.text, r.raw FROM entries e LEFT JOIN raws r ON r.id = e.raw_id "
        "WHERE e.session = ? AND e.seq = ?",
        (owner.session, owner.seq),
    ).fetchone()
    assert owner.text not in row[0] and row[1] is None
    with pytest.raises(sqlite3.IntegrityError, match="erasures are final"):
        record.execute("DELETE FROM erasures")


def test_erasing_twice_changes_nothing_more(record: Record) -> None:
    record.erase(Address.parse("s1#1"), "first")
    assert record.erase(Address.parse("s1#1"), "second") == []
    assert "first" in read(record, "s1#1")[0].text


def test_quarantine_hides_without_editing_and_undo_releases(record: Record) -> None:
    before = read(record, "s1#2")[0]
    assert record.quarantine(Address.parse("s1#2"), "injected text") == ["s1#2"]
    held = read(record, "s1#2")[0]
    assert held.quarantined == "injected text" and held.text == before.text
    record.quarantine(Address.parse("s1#2"), "checked", undo=True)
    assert read(record, "s1#2")[0].quarantined is None
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        record.execute("DELETE FROM quarantine")


def test_a_range_read_returns_exactly_the_range(record: Record) -> None:
    whole = read(record, "s1")
    part = read(record, "s1#2-3")
    assert [e.address for e in part] == ["s1#2", "s1#3"]
    assert part == whole[1:3]


@pytest.mark.parametrize("address", ["s99", "s1#999", "x1", "s0", "s1#5-2"])
def test_an_unknown_or_malformed_address_is_an_error(record: Record, address: str) -> None:
    with pytest.raises(AddressError):
        read(record, address)


def test_a_rewind_is_kept_as_a_side_branch_and_the_latest_leaf_is_active(tmp_path: Path) -> None:
    s = Record(tmp_path / "record.sqlite3")
    sync(s, ["claude-code"], roots={"claude-code": DAG})
    lines = [json.loads(line) for line in DAG.read_text(encoding="utf-8").splitlines() if line.strip()]
    children: dict[str, list[str]] = {}
    for rec in lines:
        if rec.get("parentUuid"):
            children.setdefault(rec["parentUuid"], []).append(rec["uuid"])
    forks = {p: c for p, c in children.items() if len(c) > 1}
    assert forks, "the fixture has a rewind"
    entries = read(s, "s1")
    branch_of = {e.native_id: e.branch for e in entries if e.native_id}
    for kids in forks.values():
        assert branch_of[kids[-1]] == "active"
        assert all(branch_of[k] == "side" for k in kids[:-1])
    compaction = [e for e in entries if e.kind == "compaction"]
    assert compaction and all(e.branch == "active" for e in compaction)


def test_the_cli_prints_the_read_contract_keys(tmp_path: Path) -> None:
    home = tmp_path / "rec"
    runner = CliRunner(env={"TOTAL_RECALL_VIBE_ROOT": str(VIBE)})
    assert runner.invoke(cli, ["--home", str(home), "sync", "--harness", "vibe"]).exit_code == 0
    out = runner.invoke(cli, ["--home", str(home), "read", "s1#1-2", "--json"])
    assert out.exit_code == 0
    page = json.loads(out.stdout)
    assert (page["address"], page["harness"]) == ("s1#1-2", "vibe")
    assert page["bounds"]["total_records"] == 2 and page["bounds"]["next_offset"] is None
    entries = page["entries"]
    assert [e["address"] for e in entries] == ["s1#1", "s1#2"]
    for key in ("address", "author", "kind", "text", "timestamp", "source", "spans"):
        assert all(key in e for e in entries)
    assert entries[0]["source"]["path"].endswith("messages.jsonl") and entries[0]["source"]["line"] == 1
    listed = json.loads(runner.invoke(cli, ["--home", str(home), "sessions", "--json"]).stdout)["sessions"]
    for key in ("session", "harness", "native_id", "title", "cwd", "parent", "entries", "started", "ended",
                "read_error", "last_active"):
        assert all(key in s for s in listed)
    by_address = {s["session"]: s for s in listed}  # listed most recently active first
    assert sorted(by_address) == ["s1", "s2"] and by_address["s2"]["parent"] == "s1"


def test_the_cli_answers_an_unknown_address_with_exit_2_and_a_message(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["--home", str(tmp_path), "read", "s42#7"])
    assert result.exit_code == 2
    # After the note that the record was created (the home held none).
    assert result.stderr.strip().splitlines()[-1] == "total-recall: read: s42: no such session"
    result = CliRunner().invoke(cli, ["--home", str(tmp_path), "read", "seven"])
    assert result.exit_code == 2 and "not an address" in result.stderr


def test_quarantining_or_releasing_twice_logs_and_reports_each_change_once(record: Record) -> None:
    assert record.quarantine(Address.parse("s1#2"), "checked") == ["s1#2"]
    assert record.quarantine(Address.parse("s1#2"), "checked again") == []
    assert record.quarantine(Address.parse("s1#2"), "done", undo=True) == ["s1#2"]
    assert record.quarantine(Address.parse("s1#2"), "done again", undo=True) == []
    log = record.execute("SELECT action FROM quarantine ORDER BY id").fetchall()
    assert [a for (a,) in log] == ["quarantine", "release"]


def test_an_erase_or_a_quarantine_without_a_reason_is_refused_and_changes_nothing(record: Record) -> None:
    with pytest.raises(RecordError, match="needs a reason"):
        record.erase(Address.parse("s1#2"), "  ")
    with pytest.raises(RecordError, match="needs a reason"):
        record.quarantine(Address.parse("s1#2"), "")
    assert record.execute("SELECT COUNT(*) FROM erasures").fetchone()[0] == 0
    assert record.execute("SELECT COUNT(*) FROM quarantine").fetchone()[0] == 0


SPOTTER = SESSIONS / "claude_code" / "real_v2.1.39_spotter" / "-home-USER-projects-spotter"


def _real_session(tmp_path: Path, name: str) -> list[tuple[str, str, str | None]]:
    """(author, kind, branch) of each entry of one real Claude Code session (tests/fixtures), synced alone."""
    root = tmp_path / "projects" / SPOTTER.name
    root.mkdir(parents=True)
    (root / name).write_bytes((SPOTTER / name).read_bytes())
    with Record(tmp_path / "rec" / "record.sqlite3") as record:
        assert sync(record, ["claude-code"], roots={"claude-code": tmp_path / "projects"}).errors == []
        return [(e.author, e.kind, e.branch) for e in read(record, "s1")]


def test_every_result_of_parallel_tool_calls_in_a_real_session_is_on_the_active_branch(tmp_path: Path
                                                                                       ) -> None:
    # Claude Code parents each tool_result on its own tool_use line: the first call's result ends a chain
    # of its own beside the second call, which is no rewind.
    entries = _real_session(tmp_path, "8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl")
    assert len([e for e in entries if e[1] == "tool_result"]) == 2
    assert {branch for _, _, branch in entries} - {None} == {"active"}  # None: a line with no uuid


def test_a_compaction_whose_logical_parent_was_never_written_leaves_the_history_before_it_active(
    tmp_path: Path,
) -> None:
    # The boundary's logicalParentUuid names no line of the file: the walk goes on from the line before.
    entries = _real_session(tmp_path, "4d5611e5-241a-462a-8d15-5122611a9569.jsonl")
    assert ("owner", "message", "active") in entries and ("harness", "compaction", "active") in entries
    assert {branch for _, _, branch in entries} - {None} == {"active"}  # None: a line with no uuid


def _tree(tmp_path: Path, lines: list[dict[str, object]]) -> dict[str, str | None]:
    """The branch the record reads for each line's uuid of one Claude Code session written as `lines`."""
    path = tmp_path / "projects" / "-p" / "tree.jsonl"
    path.parent.mkdir(parents=True)
    path.write_text("".join(json.dumps({"sessionId": "tree", "timestamp": "2026-01-01T00:00:00Z", **x}) + "\n"
                            for x in lines))
    with Record(tmp_path / "rec" / "record.sqlite3") as record:
        sync(record, ["claude-code"], roots={"claude-code": tmp_path / "projects"})
        return {e.native_id: e.branch for e in read(record, "s1") if e.native_id}


def _user(uuid: str, parent: str | None, text: str, **more: object) -> dict[str, object]:
    return {"type": "user", "uuid": uuid, "parentUuid": parent, "message": {"role": "user", "content": text},
            **more}


def _reply(uuid: str, parent: str, text: str, message: str) -> dict[str, object]:
    return {"type": "assistant", "uuid": uuid, "parentUuid": parent,
            "message": {"id": message, "role": "assistant", "content": [{"type": "text", "text": text}]}}


def test_a_reply_given_again_to_the_same_prompt_leaves_the_first_one_on_a_side_branch(tmp_path: Path) -> None:
    # A retry, or the fallback model's reply after a refusal: two replies to one prompt.
    branch = _tree(tmp_path, [
        _user("p1", None, "Summarise the incident report"),
        _reply("r1", "p1", "A partial reply", "m1"),
        {"type": "system", "subtype": "model_refusal_fallback", "uuid": "f1", "parentUuid": "r1",
         "content": "fallback"},
        _reply("r2", "p1", "The fallback model's reply", "m2"),
    ])
    assert branch == {"p1": "active", "r1": "side", "f1": "side", "r2": "active"}


def test_a_rewind_past_a_task_notification_leaves_it_and_its_answer_on_a_side_branch(tmp_path: Path) -> None:
    branch = _tree(tmp_path, [
        _user("p1", None, "Start the long build in the background"),
        _reply("a1", "p1", "Started.", "m1"),
        _user("n1", "a1", "<task-notification>build done</task-notification>",
              origin={"kind": "task-notification"}),
        _reply("a2", "n1", "The build finished, deploying now", "m2"),
        _user("p2", "a1", "Actually cancel that build"),
        _reply("a3", "p2", "Cancelled.", "m3"),
    ])
    assert {u for u, b in branch.items() if b == "side"} == {"n1", "a2"}


def test_compaction_passes_over_the_first_prompt_a_rewind_to_the_start_replaced(tmp_path: Path) -> None:
    # Two roots: the marker's builder must see the fork that `read` sees.
    branch = _tree(tmp_path, [
        _user("p1", None, "Write the deploy script for staging"),
        _reply("a1", "p1", "Here is the staging deploy script.", "m1"),
        _user("p2", None, "Write the deploy script for production instead"),
        _reply("a2", "p2", "Here is the production deploy script.", "m2"),
    ])
    assert branch == {"p1": "side", "a1": "side", "p2": "active", "a2": "active"}
    result = CliRunner().invoke(cli, ["--home", str(tmp_path / "rec"), "compact", "s1", "--range", "s1#1-4",
                                      "--budget", "800", "--keep-exchanges", "0", "--json"])
    assert result.exit_code == 0, result.output
    said = json.loads(result.stdout)["text"]
    assert "production instead" in said and "for staging" not in said


def test_the_owner_s_answer_to_the_agent_s_question_is_his_words_and_a_marker_quotes_it(tmp_path: Path
                                                                                       ) -> None:
    # The real session (tests/fixtures) asks whether to skip the pre-commit hook; the owner typed his own
    # answer, which Claude Code keeps only inside the question tool's result.
    entries = _real_session(tmp_path, "4d5611e5-241a-462a-8d15-5122611a9569.jsonl")
    with Record(tmp_path / "rec" / "record.sqlite3") as record:
        said = [e for e in read(record, "s1") if e.author == "owner"]
        [answer] = [e for e in said if e.text == "main was clean; fix the issues"]
        [result] = [e for e in read(record, "s1") if e.kind == "tool_result" and e.group == answer.group]
    assert answer.kind == "message" and answer.spans and answer.text in result.text
    assert ("owner", "message", "active") in entries
    done = CliRunner().invoke(cli, ["--home", str(tmp_path / "rec"), "compact", "s1", "--range",
                                    f"s1#1-{answer.seq + 2}", "--budget", "1500", "--keep-exchanges", "0",
                                    "--json"])
    assert done.exit_code == 0, done.output
    marker = json.loads(done.stdout)
    assert {"address": answer.address, "text": "main was clean; fix the issues"}.items() <= next(
        i for i in marker["instructions"] if i["address"] == answer.address).items()
