"""Observing on the surfaces: its commands (`observe`, `observations`, `observations-export`, `reflect`,
`nightly`, `proposals`, `proposal`, `approve`, `reject`) in JSON and in words, their refusals, and the
harness hooks — SessionStart hands observations back within the cap and recovers the project's previous
session, PreCompact observes what it compacts before the marker is written."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from click.testing import Result

from tests.keeping_helpers import hook_json
from tests.llm_stub import Reply, completion, running_stub
from tests.observing_owner import SHOP, Owner
from tests.stores import empty_roots
from total_recall.keeping.hooks import CONTEXT_CAP, OBSERVATIONS_CAP
from total_recall.keeping.receipts import list_receipts
from total_recall.observing import observations
from total_recall.observing.observation import BLOCK_CLOSE, BLOCK_OPEN, parse_time
from total_recall.tokens import estimate_tokens

PREFERENCE = "I prefer small commits with a one-line message, please."
RULE = "Run the linter before every push."
NEW_SESSION = "9f0c3e55-2b1d-4c8e-9f60-3d4e5f6a7b8c"


@pytest.fixture
def owner(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Owner:
    empty_roots(tmp_path, monkeypatch)
    return Owner(tmp_path / "claude-code", tmp_path / "record")


def three_days(owner: Owner) -> None:
    """The same preference and rule on three separate days, one session a day, synced (not observed)."""
    now = datetime.now(UTC)
    for day in (3, 2, 1):
        t = owner.session(f"0000000{day}-2b1d-4c8e-9f60-3d4e5f6a7b8c", start=now - timedelta(days=day))
        t.owner(PREFERENCE)
        t.agent("Noted.")
        t.owner(RULE)
        t.agent("Will do.")
    assert owner.run("sync", "--harness", "claude-code").exit_code == 0


@pytest.fixture
def observed(owner: Owner) -> Owner:
    three_days(owner)
    assert owner.run("observe").exit_code == 0
    return owner


# -- the commands --


def test_observe_reports_what_it_read_and_kept_in_words_and_in_json(owner: Owner) -> None:
    three_days(owner)
    first = owner.run("observe")
    assert first.exit_code == 0, first.stderr
    assert first.stdout == ("observed 3 sessions, 12 entries (mechanical observer): 2 added, 4 reinforced\n")
    assert "no model configured: the mechanical observer ran" in first.stderr
    again = owner.json("observe", "--mechanical")
    assert {"observer", "observed", "added", "reinforced", "skipped", "tokens", "calls", "cost", "errors",
            "refused", "max_bytes", "bytes"} <= set(again)
    assert (again["observer"], again["observed"], again["added"], again["tokens"], again["errors"]) == (
        "mechanical", {"sessions": 0, "entries": 0}, 0, 0, [])
    t = owner.session("00000001-2b1d-4c8e-9f60-3d4e5f6a7b8c")
    t.owner("Never deploy on a Friday afternoon.")
    owner.run("sync", "--harness", "claude-code")
    one = owner.json("observe", "--session", "s1")
    assert one["observed"] == {"sessions": 1, "entries": 1} and one["added"] == 1


def test_observations_are_listed_filtered_and_found_with_the_addresses_they_came_from(
        observed: Owner) -> None:
    reply = observed.json("observations")
    rows = reply["observations"]
    assert isinstance(rows, list) and len(rows) == 2
    assert {"id", "text", "priority", "type", "confidence", "source_type", "importance", "addresses",
            "created", "archived"} <= set(rows[0])
    rule = rows[0]
    assert (rule["text"], rule["type"], rule["priority"], rule["archived"]) == (RULE, "rule", "high", False)
    assert rule["addresses"] == ["s1#3", "s2#3", "s3#3"]
    assert [o["type"] for o in observed.json("observations", "--type", "rule")["observations"]] == ["rule"]
    [medium] = observed.json("observations", "--priority", "medium")["observations"]
    assert medium["text"] == PREFERENCE
    [found] = observed.json("observations", "linter")["observations"]
    assert found["text"] == RULE
    words = observed.run("observations", "--type", "rule")
    assert words.stdout == f"#{rule['id']:<5} rule       high   0.80  {RULE}  [s1#3, s2#3, s3#3]\n"
    assert observed.json("observations", "--archived")["observations"] == rows


def test_a_listing_over_its_byte_budget_holds_back_what_does_not_fit(observed: Owner) -> None:
    capped = observed.json("observations", "--max-bytes", "1024")
    held = capped["held_back"]
    assert isinstance(held, int) and held >= 1
    assert len(capped["observations"]) + held == 2
    assert capped["bytes"] <= 1024
    words = observed.run("observations", "--max-bytes", "1024")
    assert f"{held} of 2 observations held back" in words.stderr


def test_export_writes_observations_md_and_leaves_a_file_it_did_not_write_alone(observed: Owner,
                                                                                tmp_path: Path) -> None:
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    reply = observed.json("observations", "export", "--to", str(workspace))
    assert reply == {"path": str(workspace / "observations.md"), "exported": 2}
    text = (workspace / "observations.md").read_text(encoding="utf-8")
    assert text.startswith("# Observations") and f"- {RULE} (s1#3, s2#3, s3#3)" in text
    again = observed.run("observations", "export", "--to", str(workspace))
    assert again.stdout == f"wrote 2 observations to {workspace / 'observations.md'}\n"
    mine = workspace / "MEMORY.md"
    mine.write_text("my own notes\n", encoding="utf-8")
    refused = observed.run("observations", "export", "--to", str(mine))
    assert refused.exit_code == 2 and "is not an earlier export" in refused.stderr
    assert mine.read_text(encoding="utf-8") == "my own notes\n"
    home = observed.json("observations", "export")
    assert home["path"] == str(observed.home / "observations.md")
    # The name scripts used before `observations export` existed still works.
    assert observed.json("observations-export") == home


def test_observations_export_is_a_sub_command_and_the_word_export_can_still_be_searched(
        observed: Owner) -> None:
    usage = observed.run("observations", "export", "--help")
    assert usage.exit_code == 0
    assert " observations export [OPTIONS]\n" in usage.stdout.splitlines(keepends=True)[0]
    listed = observed.run("observations", "--help").stdout.split("Sub-commands:")[1].split()
    assert [w for w in listed if w in ("export", "backups", "restore")] == ["export", "backups", "restore"]
    searched = observed.run("observations", "--json", "--", "export")
    assert searched.exit_code == 0 and json.loads(searched.stdout)["query"] == "export"
    wrong = observed.run("observations", "export", "--bogus")
    assert wrong.exit_code == 2 and "No such option '--bogus'" in wrong.stderr


def test_observations_backups_lists_the_copies_and_restore_puts_one_back_undoably(observed: Owner) -> None:
    assert observed.run("observations", "backups").stdout.startswith("no backups yet")
    taken = observed.json("reflect", "--force")["backup"]
    [listed] = observed.json("observations", "backups")["backups"]
    assert listed["backup"] == taken and listed["count"] == 2 and listed["reason"]
    words = observed.run("observations", "restore", str(taken))
    assert words.exit_code == 0 and words.stdout.startswith(f"restored 2 observations from backup {taken}; ")
    undo = observed.json("observations", "backups")["backups"][0]
    assert undo["reason"] == f"before restoring backup {taken}" and undo["count"] == 2
    missing = observed.run("observations", "restore", "999")
    assert missing.exit_code == 2 and "no backup 999 (the last 10 are kept" in missing.stderr
    assert observed.run("observations", "restore", "0").exit_code == 2


def test_reflect_waits_for_its_threshold_and_says_so(observed: Owner) -> None:
    reply = observed.json("reflect")
    assert {"words_before", "words_after", "merged", "superseded", "dropped", "archived", "backup", "applied",
            "reason"} <= set(reply)
    assert reply["applied"] is False and reply["backup"] is None
    words = observed.run("reflect")
    assert words.stdout.startswith("not consolidated: ") and "under the threshold of 8,000" in words.stdout
    forced = observed.json("reflect", "--force")
    assert forced["backup"] is not None


def test_the_nightly_cycle_is_a_dry_run_until_applied_and_then_stages_the_theme(observed: Owner) -> None:
    dry = observed.json("nightly")
    assert {"at", "applied", "outcome", "metrics", "actions", "backup", "night"} <= set(dry)
    assert dry["applied"] is False and dry["metrics"]["proposals"] == 1
    assert observed.json("proposals")["proposals"] == []
    words = observed.run("nightly")
    assert words.stdout.splitlines()[0].endswith("dry run: nothing changed")
    assert "`total-recall nightly --apply` does it" in words.stdout
    applied = observed.json("nightly", "--apply")
    assert applied["applied"] is True and applied["backup"] is not None
    [proposal] = observed.json("proposals")["proposals"]
    assert {"id", "theme", "type", "text", "members", "occurrences", "days", "status"} <= set(proposal)
    assert (proposal["type"], proposal["text"], proposal["days"], proposal["status"]) == (
        "rule", PREFERENCE, 3, "proposed")


def test_a_staged_proposal_is_shown_then_approved_once(observed: Owner) -> None:
    observed.run("nightly", "--apply")
    shown = observed.json("proposal", "1")
    assert shown["proposal"]["id"] == 1
    assert [o["text"] for o in shown["observations"]] == [PREFERENCE]
    words = observed.run("proposal", "1")
    assert "(3 times on 3 days)" in words.stdout and "`total-recall approve 1`" in words.stdout
    approved = observed.run("approve", "1")
    assert approved.exit_code == 0
    assert approved.stdout.startswith("approved proposal 1: #") and f"standing rule (high): {PREFERENCE}" in (
        approved.stdout)
    [standing] = observed.json("observations", "--type", "rule", "--priority", "high", "small commits"
                               )["observations"]
    assert standing["text"] == PREFERENCE
    twice = observed.run("approve", "1")
    assert twice.exit_code == 2
    assert twice.stderr == "total-recall: approve: proposal 1 is approved, not proposed\n"


def test_a_rejected_proposal_promotes_nothing_and_is_listed_as_rejected(observed: Owner) -> None:
    observed.run("nightly", "--apply")
    rejected = observed.json("reject", "1")
    assert rejected["rejected"] == 1 and rejected["proposal"]["status"] == "rejected"
    assert observed.json("proposals")["proposals"] == []
    assert [p["id"] for p in observed.json("proposals", "--status", "rejected")["proposals"]
            ] == [1]
    [pref] = observed.json("observations", "--priority", "medium")["observations"]
    assert pref["type"] == "preference"
    assert observed.run("nightly", "--apply").exit_code == 0
    assert observed.json("proposals", "--status", "all")["proposals"] != []
    assert len(observed.json("proposals", "--status", "all")["proposals"]) == 1


@pytest.mark.parametrize(("args", "said"), [
    (["proposal", "99"], "total-recall: proposal: no proposal 99 (list them with their ids first)\n"),
    (["reject", "99"], "total-recall: reject: no proposal 99 (list them with their ids first)\n"),
    (["approve", "0"], "total-recall: approve: `PROPOSAL` is out of range: 0 — it must be at least 1\n"),
    (["observe", "--session", "s999"], "total-recall: observe: no session s999"),
    (["observations", "--type", "rumour"], "'rumour' is not one of"),
    (["observations", "export", "--to", "notes.txt"],
     "total-recall: observations export: `--to` must be a folder or a .md file, not notes.txt\n"),
])
def test_a_refusal_names_what_was_wrong_and_exits_2(observed: Owner, args: list[str], said: str) -> None:
    got = observed.run(*args)
    assert got.exit_code == 2 and got.stdout == ""
    assert said in got.stderr if not said.endswith("\n") else got.stderr == said


# -- the hooks --


def context_of(result: Result) -> str:
    assert result.exit_code == 0, result.stderr
    out = json.loads(result.stdout)
    assert out["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    text = out["hookSpecificOutput"]["additionalContext"]
    assert isinstance(text, str)
    return text


def startup(session_id: str = NEW_SESSION, cwd: str = SHOP, source: str = "startup") -> str:
    return json.dumps({"session_id": session_id, "transcript_path": f"/nowhere/{session_id}.jsonl",
                       "cwd": cwd, "hook_event_name": "SessionStart", "source": source})


def test_session_start_hands_back_the_highest_priority_observations_within_the_cap(owner: Owner) -> None:
    t = owner.session("11111111-2b1d-4c8e-9f60-3d4e5f6a7b8c", start=datetime.now(UTC) - timedelta(days=1))
    for n in range(300):
        t.owner(f"Always tag release {n} with the build number {n * 7} before shipping it.")
        t.agent("Done.")
    t.owner(f"Never restart the production database during the day, and {RULE.lower()}")
    owner.run("sync", "--harness", "claude-code")
    owner.run("observe")
    for harness in ("claude-code", "codex"):
        context = context_of(owner.hook(startup(), harness))
        assert context.startswith(BLOCK_OPEN) and context.endswith(BLOCK_CLOSE)
        assert estimate_tokens(context) <= OBSERVATIONS_CAP
        assert f"(within {OBSERVATIONS_CAP:,} tokens)" in context
        lines = context.splitlines()
        assert 10 < len(lines) - 3 < 301  # what fits of the 301 rules, not all of them
        first = lines[2]
        assert first.startswith("- rule · high: ") and "[s1#" in first


def test_a_start_with_no_observations_adds_nothing(owner: Owner) -> None:
    got = owner.hook(startup())
    assert (got.exit_code, got.stdout) == (0, "")


def test_after_a_compaction_the_markers_come_first_and_the_observations_fill_what_is_left(
        owner: Owner) -> None:
    t = owner.session(NEW_SESSION)
    t.owner(f"{RULE} The certs live in /etc/ssl/private/.")
    t.agent("Understood.")
    t.owner("Then try the DNS challenge.")
    t.agent("Switching to DNS-01.")
    t.owner("Write the ticket summary.")
    t.agent("Here is the summary.")
    assert owner.hook(hook_json("PreCompact", t, trigger="auto")).exit_code == 0
    context = context_of(owner.hook(hook_json("SessionStart", t, source="compact")))
    marker, observed_block = context.index("[total-recall marker"), context.index(BLOCK_OPEN)
    assert marker < observed_block and len(context) <= CONTEXT_CAP
    assert f"- rule · high: {RULE}" in context[observed_block:]


def test_session_start_recovers_the_previous_session_of_the_project_when_it_was_not_observed_to_its_end(
        owner: Owner) -> None:
    earlier = datetime.now(UTC) - timedelta(hours=2)
    previous = owner.session("22222222-2b1d-4c8e-9f60-3d4e5f6a7b8c", start=earlier)
    previous.owner(RULE)
    previous.agent("Will do.")
    elsewhere = owner.session("33333333-2b1d-4c8e-9f60-3d4e5f6a7b8c", cwd="/work/other", start=earlier)
    elsewhere.owner("Never touch the billing tables without a backup.")
    assert owner.run("sync", "--harness", "claude-code").exit_code == 0
    previous.owner("Never push straight to main.")  # after the last sync
    context = context_of(owner.hook(startup()))
    with owner.record() as record:
        found = {o.text: o.addresses for o in observations(record)}
        number = {s.native_id: s.number for s in record.sessions()}
    was = f"s{number[previous.session_id]}"
    assert found[RULE] == [f"{was}#1"]
    assert found["Never push straight to main."] == [f"{was}#3"]  # the hook synced it
    other = f"s{number[elsewhere.session_id]}#"
    assert all(not a.startswith(other) for addresses in found.values() for a in addresses)  # another project
    assert f"- rule · high: {RULE} [{was}#1]" in context


def test_a_previous_session_older_than_the_lookback_is_not_recovered(owner: Owner) -> None:
    old = owner.session("44444444-2b1d-4c8e-9f60-3d4e5f6a7b8c", start=datetime.now(UTC) - timedelta(hours=6))
    old.owner(RULE)
    owner.run("sync", "--harness", "claude-code")
    got = owner.hook(startup())
    assert (got.exit_code, got.stdout) == (0, "")
    with owner.record() as record:
        assert observations(record) == []


def test_recovery_falls_back_to_the_mechanical_observer_when_the_model_fails(
        owner: Owner, monkeypatch: pytest.MonkeyPatch) -> None:
    an_hour_ago = datetime.now(UTC) - timedelta(hours=1)
    previous = owner.session("55555555-2b1d-4c8e-9f60-3d4e5f6a7b8c", start=an_hour_ago)
    previous.owner(RULE)
    owner.run("sync", "--harness", "claude-code")
    with running_stub() as stub:
        stub.script(Reply(body=completion("Sure! Here are the observations: - run the linter")))
        for var, value in stub.env().items():
            monkeypatch.setenv(var, value)
        got = owner.hook(startup())
    assert len(stub.requests) == 1
    assert "session recovery: the model failed on s1" in got.stderr
    assert "the mechanical observer read the rest" in got.stderr
    with owner.record() as record:
        [rule] = observations(record)
    assert (rule.text, rule.origin, rule.addresses) == (RULE, "mechanical", ["s1#1"])
    assert f"- rule · high: {RULE} [s1#1]" in context_of(got)


def test_precompact_observes_the_range_it_compacts_before_the_marker_is_written(owner: Owner) -> None:
    t = owner.session(NEW_SESSION)
    t.owner(f"{RULE} The certs live in /etc/ssl/private/.")
    t.agent("Understood.")
    t.owner("Then try the DNS challenge.")
    t.agent("Switching to DNS-01.")
    t.owner("Write the ticket summary.")
    t.agent("Here is the summary.")
    pre = owner.hook(hook_json("PreCompact", t, trigger="auto"))
    assert (pre.exit_code, pre.stdout, pre.stderr) == (0, "", "")
    with owner.record() as record:
        [receipt] = list_receipts(record)
        found = observations(record)
    assert receipt.range is not None and receipt.range.startswith("s1#1-")
    [rule] = [o for o in found if o.type == "rule"]
    assert rule.text.startswith(RULE) and rule.addresses == ["s1#1"]  # inside the range compacted
    written_at = parse_time(receipt.created)
    assert written_at is not None
    assert all((made := parse_time(o.created)) is not None and made <= written_at for o in found)
