"""The observer's bookkeeping when the owner takes a rule back, rewinds, quarantines or erases: a rule he
retracted (in words, by `observations retire`, or by rewinding the message) stops being current and
never comes back unless he says it again later; an entry released from quarantine, or the other sessions
still saying what an erase withdrew, are read again; the reflector runs on its own past its size; backups
count what a restore puts back; a dry night takes no number."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from tests.keeping_helpers import Transcript
from tests.llm_stub import Reply, completion, running_stub
from tests.stores import empty_roots
from total_recall.observing import reflector
from total_recall.surfaces.cli import cli

SHOP = "/work/shop"
FREEZE = "Deploys wait for the Friday freeze to lift."
PNPM = "We use pnpm here, not npm."


@dataclass
class Owner:
    """A Claude Code store of the owner's sessions and the record home the CLI uses."""

    root: Path
    home: Path
    sessions: int = 0

    def run(self, *args: str) -> Result:
        return CliRunner().invoke(cli, ["--home", str(self.home), *args])

    def json(self, *args: str) -> dict[str, Any]:
        got = self.run(*args, "--json")
        assert got.exit_code == 0, (got.stdout, got.stderr)
        reply: dict[str, Any] = json.loads(got.stdout)
        return reply

    def session(self, days_ago: float) -> Transcript:
        """A new session that started `days_ago` days ago."""
        self.sessions += 1
        name = f"{self.sessions:08d}-2b1d-4c8e-9f60-3d4e5f6a7b8c"
        start = datetime.now(UTC) - timedelta(days=days_ago)
        return Transcript(self.root / SHOP.replace("/", "-") / f"{name}.jsonl", SHOP, start)

    def said(self, days_ago: float, *lines: str) -> Transcript:
        """A session in which the owner says each line and the agent answers."""
        t = self.session(days_ago)
        for line in lines:
            t.owner(line)
            t.agent("OK.")
        return t

    def observe(self) -> dict[str, Any]:
        assert self.run("sync", "--harness", "claude-code").exit_code == 0
        return self.json("observe", "--mechanical")

    def current(self) -> list[dict[str, Any]]:
        rows: list[dict[str, Any]] = self.json("observations")["observations"]
        return rows

    def texts(self) -> list[str]:
        return [o["text"] for o in self.current()]

    def every(self) -> list[dict[str, Any]]:
        rows: list[dict[str, Any]] = self.json("observations", "--archived")["observations"]
        return rows


@pytest.fixture
def owner(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Owner:
    empty_roots(tmp_path, monkeypatch)
    return Owner(tmp_path / "claude-code", tmp_path / "record")


def _with(rows: list[dict[str, Any]], words: str) -> list[dict[str, Any]]:
    return [o for o in rows if words.lower() in o["text"].lower()]


# -- taken back in words --


def test_a_rule_the_owner_takes_back_in_a_later_session_is_retired_everywhere_with_where_he_said_it(
        owner: Owner, tmp_path: Path) -> None:
    owner.said(2, FREEZE, "Staging first, then prod.")
    owner.said(1, "Forget what I said about the Friday freeze — that's gone, we deploy any day now.")
    report = owner.observe()
    assert _with(owner.current(), "freeze") == []
    assert _with(owner.current(), "Staging first")  # the other rule of the same message stays
    assert report["retired"] == 1
    [retired] = _with(owner.every(), "freeze")
    assert retired["text"] == FREEZE
    assert retired["retired"]["by"] == "s2#1" and "s2#1" in retired["retired"]["reason"]
    assert not any(o["addresses"] == ["s2#1"] for o in owner.every())  # the retraction is no note itself
    exported = owner.json("observations", "export", "--to", str(tmp_path / "out"))
    assert "freeze" not in Path(exported["path"]).read_text(encoding="utf-8").lower()
    assert "(retired: taken back by the owner at s2#1)" in owner.run("observations", "--archived").stdout


def test_scratch_that_about_a_rule_withdraws_it_in_the_same_session_and_is_not_kept_as_an_event(
        owner: Owner) -> None:
    owner.said(1, PNPM, "Actually scratch that about pnpm, we moved back to npm after the migration.")
    owner.observe()
    assert _with(owner.current(), "pnpm") == []
    assert [o["retired"]["by"] for o in _with(owner.every(), "pnpm")] == ["s1#3"]
    assert not any(o["type"] == "event" for o in owner.every())


@pytest.mark.parametrize(("rule", "taken_back"), [
    ("We always squash merges into main.", "We no longer squash merges."),
    ("Never force push to develop.", "Actually, force pushes to develop are fine again."),
    ("Always run the VPN check before touching staging.", "Ignore my earlier rule about the VPN check."),
    (FREEZE, "The Friday freeze is over."),
    ("Use pnpm for installs, never npm.", "Actually, npm is fine again."),
    ("Always run the VPN check before touching staging.", "The VPN check rule no longer applies."),
])
def test_each_way_of_taking_a_rule_back_retires_the_rule_it_names(owner: Owner, rule: str,
                                                                   taken_back: str) -> None:
    owner.said(2, rule, "Run the linter before every push.")
    owner.observe()
    assert rule in owner.texts()
    owner.said(1, taken_back)
    report = owner.observe()
    assert owner.texts() == ["Run the linter before every push."]
    assert report["retired"] == 1


def test_scratch_that_at_the_head_of_a_message_takes_back_the_message_before_it(owner: Owner) -> None:
    owner.said(1, "Run the linter before every push.", "Never deploy on Fridays.", "Scratch that.")
    owner.observe()
    assert owner.texts() == ["Run the linter before every push."]


@pytest.mark.parametrize("said", ["Once the Friday freeze is over, deploy to staging first.",
                                  "Is the Friday freeze over yet?",
                                  "Ignore the warnings about deprecated APIs."])
def test_a_condition_a_question_or_an_instruction_takes_nothing_back(owner: Owner, said: str) -> None:
    owner.said(2, FREEZE)
    owner.said(1, said)
    report = owner.observe()
    assert FREEZE in owner.texts()
    assert report["retired"] == 0


def test_a_retraction_never_retires_a_rule_said_after_it(owner: Owner) -> None:
    owner.said(3, "Forget what I said about the Friday freeze.")
    owner.said(1, FREEZE)
    owner.observe()
    assert FREEZE in owner.texts()


def test_a_rule_observed_after_the_session_that_retracted_it_is_kept_retired(owner: Owner) -> None:
    owner.said(2, FREEZE)
    owner.said(1, "Forget what I said about the Friday freeze.")
    assert owner.run("sync", "--harness", "claude-code").exit_code == 0
    owner.json("observe", "--session", "s2", "--mechanical")  # the retraction is read first
    owner.json("observe", "--mechanical")
    assert FREEZE not in owner.texts()
    assert _with(owner.every(), "freeze")[0]["retired"]["by"] == "s2#1"


def test_a_retracted_rule_read_again_stays_retired_and_returns_when_said_again_later(owner: Owner) -> None:
    owner.said(3, FREEZE, "Run the linter before every push.")
    owner.said(2, "Forget what I said about the Friday freeze.")
    owner.observe()
    # The session is read again from its first entry (a quarantine released): the same words, same place.
    assert owner.run("quarantine", "s1#1", "--reason", "checking").exit_code == 0
    assert owner.run("quarantine", "s1#1", "--undo").exit_code == 0
    again = owner.observe()
    assert again["observed"]["sessions"] == 1 and again["added"] == 0
    assert FREEZE not in owner.texts()
    owner.said(1, FREEZE)  # he says it again, after taking it back
    owner.observe()
    [back] = _with(owner.current(), "freeze")
    assert back["retired"] is None and back["addresses"] == ["s1#1", "s3#1"]


# -- the model observer --


def test_the_model_is_shown_the_notes_it_may_withdraw_and_only_those_are_withdrawn(
        owner: Owner, monkeypatch: pytest.MonkeyPatch) -> None:
    owner.said(2, FREEZE)
    owner.said(1, "About the Friday freeze: let's move past it, deploys go out whenever they are ready.")
    assert owner.run("sync", "--harness", "claude-code").exit_code == 0
    first = {"observations": [{"text": FREEZE, "type": "rule", "priority": "high", "confidence": 0.9,
                               "source_type": "explicit", "sources": [{"address": "s1#1", "quote": FREEZE}]}]}
    second = {"observations": [{"text": "Deploys go out whenever they are ready.", "type": "rule",
                                "priority": "high", "confidence": 0.9, "source_type": "explicit",
                                "sources": [{"address": "s2#1",
                                             "quote": "deploys go out whenever they are ready"}]}],
              "withdraw": [{"id": 1, "address": "s2#1"}, {"id": 99, "address": "s2#1"},
                           {"id": 1, "address": "s2#2"}]}
    with running_stub() as stub:
        stub.script(Reply(body=completion(json.dumps(first))), Reply(body=completion(json.dumps(second))))
        for var, value in stub.env().items():
            monkeypatch.setenv(var, value)
        assert owner.json("observe", "--session", "s1")["added"] == 1
        got = owner.run("observe", "--session", "s2", "--json")
        shown = stub.prompt(1)
    assert f"#1 {FREEZE}\n" in shown
    reply = json.loads(got.stdout)
    assert owner.texts() == ["Deploys go out whenever they are ready."]
    assert reply["retired"] == 1 and reply["added"] == 1
    assert any("#99, not among the notes shown" in why for why in reply["refused"])
    assert any("s2#2, not an owner's entry shown" in why for why in reply["refused"])
    [retired] = _with(owner.every(), "freeze")
    assert retired["retired"]["by"] == "s2#1"


def test_a_new_model_note_may_supersede_a_held_one_it_was_shown_said_before_it(
        owner: Owner, monkeypatch: pytest.MonkeyPatch) -> None:
    owner.said(2, FREEZE)
    owner.said(1, "About the Friday freeze: deploys wait for the Thursday freeze to lift from now on.")
    assert owner.run("sync", "--harness", "claude-code").exit_code == 0

    def note(text: str, address: str, quote: str, supersedes: list[int] | None = None) -> dict[str, Any]:
        body: dict[str, Any] = {"text": text, "type": "rule", "priority": "high", "confidence": 0.9,
                                "source_type": "explicit", "sources": [{"address": address, "quote": quote}]}
        return body if supersedes is None else {**body, "supersedes": supersedes}

    thursday = "Deploys wait for the Thursday freeze to lift."
    replies = [{"observations": [note(FREEZE, "s1#1", FREEZE)]},
               {"observations": [note(thursday, "s2#1", "deploys wait for the Thursday freeze to lift",
                                      [1, 7])]}]
    with running_stub() as stub:
        stub.script(*[Reply(body=completion(json.dumps(r))) for r in replies])
        for var, value in stub.env().items():
            monkeypatch.setenv(var, value)
        owner.json("observe", "--session", "s1")
        reply = owner.json("observe", "--session", "s2")
    assert owner.texts() == [thursday], (reply["refused"], reply["skipped"], reply["errors"])
    [old] = _with(owner.every(), "Friday")
    assert old["superseded_by"] == 2
    assert any("supersedes #7, not among the notes shown" in why for why in reply["refused"])


# -- retired by the owner --


def test_observations_retire_takes_one_out_with_its_reason_and_reading_it_again_never_brings_it_back(
        owner: Owner) -> None:
    owner.said(2, FREEZE, "Run the linter before every push.")
    owner.observe()
    [freeze] = _with(owner.current(), "freeze")
    reply = owner.json("observations", "retire", str(freeze["id"]), "--reason", "the freeze was dropped")
    assert reply["retired"] == freeze["id"] and reply["observation"]["retired"]["by"] is None
    assert reply["observation"]["retired"]["reason"] == "retired by the owner: the freeze was dropped"
    assert owner.texts() == ["Run the linter before every push."]
    assert owner.run("quarantine", "s1#1", "--reason", "checking").exit_code == 0
    assert owner.run("quarantine", "s1#1", "--undo").exit_code == 0
    owner.observe()
    assert owner.texts() == ["Run the linter before every push."]
    words = owner.run("observations", "retire", str(freeze["id"]), "--reason", "again")
    assert words.exit_code == 2 and f"observation {freeze['id']} is retired already" in words.stderr


@pytest.mark.parametrize(("args", "said"), [
    (["observations", "retire", "999", "--reason", "x"], "no observation 999"),
    (["observations", "retire", "1", "--reason", "   "], "`--reason` is blank"),
    (["observations", "retire", "1"], "--reason"),
    (["observations", "retire", "zero", "--reason", "x"], "zero"),
])
def test_observations_retire_refuses_bad_input_by_name(owner: Owner, args: list[str], said: str) -> None:
    owner.said(1, FREEZE)
    owner.observe()
    got = owner.run(*args)
    assert got.exit_code == 2 and said in got.stderr, got.stderr
    assert owner.texts() == [FREEZE]


def test_the_mcp_server_serves_retire_observation_and_refuses_by_name(owner: Owner) -> None:
    import anyio
    from mcp.server.mcpserver.exceptions import ToolError

    from total_recall.surfaces.mcp import Binding, build_server

    owner.said(1, FREEZE)
    owner.observe()
    server = build_server(Binding(owner.home / "record.sqlite3"))
    for arguments, said in (({"observation": 999, "reason": "x"}, "retire_observation: no observation 999"),
                            ({"observation": 1, "reason": "x", "why": 1}, "`why`"),
                            ({"observation": 1}, "`reason`")):
        with pytest.raises(ToolError) as refused:
            anyio.run(server.call_tool, "retire_observation", arguments)
        assert said in str(refused.value), str(refused.value)
    done = anyio.run(server.call_tool, "retire_observation", {"observation": 1, "reason": "gone"})
    assert "retired by the owner: gone" in str(done)
    assert owner.texts() == []


# -- rewound, released, erased --


def test_a_rule_whose_message_the_owner_rewound_and_replaced_is_no_longer_current(owner: Owner) -> None:
    t = owner.session(1)
    t.owner("Set up CI for the repo.")
    t.agent("Done.")
    fork = t.parent
    t.owner(FREEZE)
    t.agent("Noted.")
    owner.observe()
    assert FREEZE in owner.texts()
    t.parent = fork  # Esc-Esc: the next message continues from the agent's reply before the rule
    t.owner("Deploys can go out any day of the week.")
    t.agent("OK.")
    report = owner.observe()
    assert FREEZE not in owner.texts()
    assert report["retired"] == 1
    [rewound] = _with(owner.every(), "Friday freeze")
    assert rewound["retired"]["reason"].startswith("rewound: s1#3")


def test_a_rewound_message_said_again_on_the_new_branch_keeps_its_rule(owner: Owner) -> None:
    t = owner.session(1)
    t.owner("Set up CI for the repo.")
    t.agent("Done.")
    fork = t.parent
    t.owner(f"{FREEZE} Tell me when CI is green.")
    t.agent("Noted.")
    owner.observe()
    t.parent = fork
    t.owner(f"{FREEZE} Tell me when the build is green.")
    owner.observe()
    [rule] = _with(owner.current(), "freeze")
    assert rule["addresses"] == ["s1#3", "s1#5"]


def test_an_entry_released_from_quarantine_is_observed_after_all(owner: Owner) -> None:
    owner.said(1, FREEZE, "Run the linter before every push.")
    assert owner.run("sync", "--harness", "claude-code").exit_code == 0
    assert owner.run("quarantine", "s1#1", "--reason", "checking with legal").exit_code == 0
    owner.observe()
    assert owner.texts() == ["Run the linter before every push."]
    assert owner.run("quarantine", "s1#1", "--undo").exit_code == 0
    again = owner.observe()
    assert again["added"] == 1 and again["reinforced"] == 0
    assert sorted(owner.texts()) == [FREEZE, "Run the linter before every push."]


def test_erasing_one_copy_of_a_rule_keeps_it_from_the_other_session_and_the_erased_words_stay_gone(
        owner: Owner, tmp_path: Path) -> None:
    owner.said(2, "No force pushes to develop. The ACME-4711 customer broke it last week.")
    owner.said(1, "No force pushes to develop.")
    owner.observe()
    [rule] = _with(owner.current(), "force pushes")
    assert rule["addresses"] == ["s1#1", "s2#1"]
    owner.json("observations", "export", "--to", str(tmp_path / "out"))
    assert owner.run("erase", "s1#1", "--reason", "a customer's name").exit_code == 0
    owner.observe()
    [kept] = _with(owner.current(), "force pushes")
    assert kept["text"] == "No force pushes to develop." and kept["addresses"] == ["s2#1"]
    listed = owner.run("observations", "--archived", "--json").stdout
    assert "ACME" not in listed
    assert "ACME" not in (tmp_path / "out" / "observations.md").read_text(encoding="utf-8")


def test_erasing_one_source_of_an_approved_rule_leaves_no_supersession_pointing_at_nothing(
        owner: Owner) -> None:
    for days, line in ((3, "I prefer small PRs, under 300 lines."),
                       (2, "I'd rather review small PRs, keep them under 300 lines."),
                       (1, "I prefer small PRs please, 300 lines max.")):
        owner.said(days, line)
    owner.observe()
    owner.json("nightly", "--apply")
    approved = owner.json("approve", "1")["observation"]
    assert len(approved["addresses"]) == 3
    assert owner.run("erase", "s1#1", "--reason", "typo").exit_code == 0
    rows = owner.every()
    assert all(o["superseded_by"] is None for o in rows)
    assert _with(owner.current(), "small PRs")
    owner.observe()  # the other two sessions are read again: their words still say it
    assert {a for o in _with(owner.current(), "small PRs") for a in o["addresses"]} == {"s2#1", "s3#1"}


def test_a_listing_left_empty_by_an_erase_says_so_rather_than_no_observations_yet(owner: Owner) -> None:
    owner.said(1, "Run the linter before every push.")
    owner.observe()
    assert owner.run("erase", "s1#1", "--reason", "gone").exit_code == 0
    words = owner.run("observations")
    assert "yet" not in words.stderr and "1 observation withdrawn" in words.stderr
    assert owner.json("observations")["withdrawn"] == 1


# -- the reflector, backups and nights --


def test_observe_runs_the_reflector_once_the_notes_pass_its_threshold(owner: Owner,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(reflector, "THRESHOLD_WORDS", 20)
    owner.said(1, "I prefer small pull requests with short descriptions.",
               "I prefer small pull requests with short titles.", "Run the linter before every push.",
               "Never deploy on Fridays.")
    report = owner.observe()
    assert report["reflected"] is not None and report["reflected"]["backup"] == 1
    assert [b["reason"] for b in owner.json("observations", "backups")["backups"]] == ["reflect"]
    words = owner.run("observe", "--mechanical")
    assert "reflected" not in words.stdout  # nothing new: not run again


def test_a_backup_counts_what_a_restore_would_put_back_after_an_erase(owner: Owner) -> None:
    owner.said(1, "Run the linter before every push.", "Never deploy on Fridays.")
    owner.observe()
    owner.json("reflect", "--force")
    assert owner.run("erase", "s1#1", "--reason", "gone").exit_code == 0
    [backup] = owner.json("observations", "backups")["backups"]
    restored = owner.json("observations", "restore", str(backup["backup"]))
    assert backup["count"] == restored["restored"] == 1


def test_a_dry_run_night_takes_no_night_number(owner: Owner) -> None:
    owner.said(1, "Run the linter before every push.")
    owner.observe()
    assert owner.json("nightly")["night"] is None
    assert owner.json("nightly")["night"] is None
    assert owner.json("nightly", "--apply")["night"] == 1


def test_erasing_the_words_that_took_a_rule_back_leaves_no_trace_of_them_in_the_record(owner: Owner) -> None:
    owner.said(2, FREEZE)
    owner.said(1, "Forget what I said about the Friday freeze, Qwertyco dropped it.")
    owner.observe()
    assert FREEZE not in owner.texts()
    assert owner.run("erase", "s2#1", "--reason", "a client's name").exit_code == 0
    assert FREEZE not in owner.texts()  # still taken back: erasing the words is no saying it again
    for path in owner.home.iterdir():
        if path.is_file():
            assert b"qwertyco" not in path.read_bytes().lower(), path.name
