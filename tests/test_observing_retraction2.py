"""What the owner did not take back stays: an erase never brings back a rule he retired (m027); a
reminder ("don't forget my rule about pnpm"), a change of state that agrees with a rule ("we don't use npm
anymore" beside "never npm"), one naming another subject ("force pushes to main are fine again", "forget
what I said about force pushes to main" beside "never force push to develop"), a bare "ignore it" after a
message that is more than one rule, and a retraction said in another project (in words, or by retiring a
note of that project by its id) retire nothing, though a rule said in two projects is taken back from any;
a reminder is no note of its own; the model's supersession needs a current note."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from tests.keeping_helpers import Transcript
from tests.llm_stub import Reply, completion, running_stub
from tests.stores import empty_roots
from tests.test_observing_retraction import FREEZE, Owner, _with
from total_recall.record.database import Record

FRIDAYS = "Never deploy on Fridays."
LINTER = "Run the linter before every push."


@pytest.fixture
def owner(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Owner:
    empty_roots(tmp_path, monkeypatch)
    return Owner(tmp_path / "claude-code", tmp_path / "record")


def _elsewhere(owner: Owner, cwd: str, days_ago: float, *lines: str) -> None:
    """A session in folder `cwd` in which the owner says each line."""
    owner.sessions += 1
    name = f"{owner.sessions:08d}-2b1d-4c8e-9f60-3d4e5f6a7b8c"
    t = Transcript(owner.root / cwd.replace("/", "-") / f"{name}.jsonl", cwd,
                   datetime.now(UTC) - timedelta(days=days_ago))
    for line in lines:
        t.owner(line)
        t.agent("OK.")


def _rule(text: str, address: str, quote: str, supersedes: list[int] | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {"text": text, "type": "rule", "priority": "high", "confidence": 0.9,
                            "source_type": "explicit", "sources": [{"address": address, "quote": quote}]}
    return body if supersedes is None else {**body, "supersedes": supersedes}


# -- C1: an erase never brings back what the owner took back --


def test_a_rule_the_owner_retired_stays_retired_after_an_erase_of_one_source_and_a_reread(
        owner: Owner) -> None:
    owner.said(3, FRIDAYS)
    owner.said(2, "Staging first, then prod.", FRIDAYS)
    owner.observe()
    [rule] = _with(owner.current(), "fridays")
    assert rule["addresses"] == ["s1#1", "s2#3"]
    owner.json("observations", "retire", str(rule["id"]), "--reason", "we deploy any day now")
    assert owner.run("erase", "s1#1", "--reason", "typo session").exit_code == 0
    owner.observe()
    assert _with(owner.current(), "fridays") == []
    # s2 is read again from the rule (a quarantine released): the same words, said before he retired it.
    assert owner.run("quarantine", "s2#3", "--reason", "checking").exit_code == 0
    assert owner.run("quarantine", "s2#3", "--undo").exit_code == 0
    again = owner.observe()
    assert again["observed"]["entries"] > 0
    assert _with(owner.current(), "fridays") == []
    assert _with(owner.current(), "Staging first")
    [kept] = [o for o in _with(owner.every(), "fridays") if o["addresses"] == ["s2#3"]]
    assert kept["retired"] is not None
    owner.said(-0.001, FRIDAYS)  # said again after he retired it: it stands again
    owner.observe()
    [back] = _with(owner.current(), "fridays")
    assert "s3#1" in back["addresses"]


def test_a_rule_the_model_withdrew_stays_withdrawn_after_an_erase_of_one_source_and_a_reread(
        owner: Owner, monkeypatch: pytest.MonkeyPatch) -> None:
    owner.said(3, FRIDAYS)
    owner.said(2, "Staging first, then prod.", FRIDAYS)
    owner.observe()
    [rule] = _with(owner.current(), "fridays")
    assert rule["addresses"] == ["s1#1", "s2#3"]
    owner.said(1, "About Friday deploys: let's move past that, deploys go out whenever they are ready.")
    assert owner.run("sync", "--harness", "claude-code").exit_code == 0
    reply = {"observations": [], "withdraw": [{"id": rule["id"], "address": "s3#1"}]}
    with running_stub() as stub:
        stub.script(Reply(body=completion(json.dumps(reply))))
        for var, value in stub.env().items():
            monkeypatch.setenv(var, value)
        assert owner.json("observe", "--session", "s3")["retired"] == 1
    assert _with(owner.current(), "fridays") == []
    assert owner.run("erase", "s1#1", "--reason", "typo session").exit_code == 0
    owner.observe()
    assert _with(owner.current(), "fridays") == []
    assert owner.run("quarantine", "s2#3", "--reason", "checking").exit_code == 0
    assert owner.run("quarantine", "s2#3", "--undo").exit_code == 0
    assert owner.observe()["observed"]["entries"] > 0
    assert _with(owner.current(), "fridays") == []
    [kept] = [o for o in _with(owner.every(), "fridays") if o["addresses"] == ["s2#3"]]
    assert kept["retired"]["by"] == "s3#1"


# -- C2: what takes nothing back --


@pytest.mark.parametrize(("rule", "later"), [
    # a reminder: the verb negated
    ("Use pnpm for installs, never npm.", "Don't forget my rule about pnpm."),
    ("Always run the linter before every push.", "Please don't ignore my rule about the linter."),
    (FRIDAYS, "Never forget what I said about Friday deploys."),
    ("Always squash merges into main.", "Make sure you do not disregard the note on squash merges."),
    # a one-off about notes or advice, not a rule of his
    ("Always tag releases from main, never from a branch.", "Forget the release notes, just tag it."),
    ("Always describe the change in the PR title.", "Scratch the PR description notes."),
    # a change of state that agrees with a rule forbidding the same thing
    ("Use pnpm for installs, never npm.", "We don't use npm anymore."),
    ("Never force push to develop.", "We no longer force push to develop."),
    ("Don't use Jenkins for builds.", "We don't use Jenkins anymore."),
    # a change of state naming another subject
    ("Never force push to develop.", "Force pushes to main are fine again."),
    ("Always write tests for new endpoints.", "We no longer write the old endpoints in PHP."),
    ("Always squash merges into main.", "We no longer squash merges into release branches."),
    (FREEZE, "The Friday deploy window is gone."),
])
def test_a_reminder_an_agreeing_change_or_another_subject_retires_nothing(owner: Owner, rule: str,
                                                                          later: str) -> None:
    owner.said(2, rule, LINTER)
    owner.observe()
    assert rule in owner.texts()
    owner.said(1, later)
    report = owner.observe()
    assert rule in owner.texts() and LINTER in owner.texts()
    assert report["retired"] == 0


@pytest.mark.parametrize("lines", [
    ["Never deploy on Fridays. The CI shows a lint warning.", "Ignore it, it's harmless."],
    ["Always squash merges into main. The build log has a stale warning.", "Forget it, it goes away."],
    ["Never deploy on Fridays.", "Also where is the config file?", "Never mind, I found it."],
])
def test_a_bare_ignore_it_takes_back_only_a_message_of_one_rule(owner: Owner, lines: list[str]) -> None:
    owner.said(1, *lines)
    report = owner.observe()
    assert report["retired"] == 0
    assert not any(o["retired"] for o in owner.every())


def test_a_bare_scratch_that_still_takes_back_a_message_of_one_rule(owner: Owner) -> None:
    owner.said(1, LINTER, FRIDAYS, "Ignore it.")
    report = owner.observe()
    assert owner.texts() == [LINTER] and report["retired"] == 1


@pytest.mark.parametrize("later", ["We no longer squash merges in this repo.",
                                   "Forget what I said about squash merges."])
def test_a_retraction_said_in_another_project_leaves_this_projects_rule(owner: Owner, later: str) -> None:
    owner.said(2, "We always squash merges into main.")
    owner.observe()
    _elsewhere(owner, "/work/blog", 1, later)
    report = owner.observe()
    assert _with(owner.current(), "squash") and report["retired"] == 0


@pytest.mark.parametrize(("cwd", "later"), [
    ("/work/shop", "We no longer squash merges in this repo."),
    ("/work/shop/api", "We no longer squash merges."),
    ("/work/shop", "Forget what I said about squash merges."),
    ("/work/shop", "Actually scratch that about squash merges."),
])
def test_a_retraction_said_in_the_same_project_still_retires_the_rule(owner: Owner, cwd: str,
                                                                      later: str) -> None:
    owner.said(2, "We always squash merges into main.", LINTER)
    owner.observe()
    _elsewhere(owner, cwd, 1, later)
    report = owner.observe()
    assert owner.texts() == [LINTER] and report["retired"] == 1


@pytest.mark.parametrize(("rule", "later"), [
    ("Use pnpm for installs, never npm.", "We don't use pnpm anymore."),
    ("Never force push to develop.", "Don't worry and forget my rule about force pushes."),
    ("We always squash merges into main.", "The squash merge rule for this repo is gone."),
])
def test_what_a_rule_allows_or_names_whole_is_still_taken_back(owner: Owner, rule: str, later: str) -> None:
    owner.said(2, rule, LINTER)
    owner.observe()
    owner.said(1, later)
    report = owner.observe()
    assert owner.texts() == [LINTER] and report["retired"] == 1


def test_a_rule_said_with_no_folder_is_taken_back_from_any_project(owner: Owner) -> None:
    _elsewhere(owner, "", 2, "We always squash merges into main.")
    owner.observe()
    assert _with(owner.current(), "squash")
    _elsewhere(owner, "/work/blog", 1, "We no longer squash merges.")
    owner.observe()
    assert _with(owner.current(), "squash") == []


# -- C4: the model's supersession --


def test_a_model_note_kept_retired_supersedes_nothing_and_supersessions_count_on_their_own(
        owner: Owner, monkeypatch: pytest.MonkeyPatch) -> None:
    owner.said(3, FREEZE, LINTER)
    owner.observe()
    [linter] = _with(owner.current(), "linter")
    owner.json("observations", "retire", str(linter["id"]), "--reason", "the hook runs it")
    owner.said(2, f"{LINTER} Deploys wait for the Thursday freeze to lift.")
    owner.said(1, "About the Friday freeze: deploys wait for the Thursday freeze to lift from now on.")
    assert owner.run("sync", "--harness", "claude-code").exit_code == 0
    thursday = "Deploys wait for the Thursday freeze to lift."
    replies = [{"observations": [_rule(LINTER, "s2#1", LINTER.rstrip("."), [1])]},
               {"observations": [_rule(thursday, "s3#1", "deploys wait for the Thursday freeze to lift",
                                       [1])]}]
    with running_stub() as stub:
        stub.script(*[Reply(body=completion(json.dumps(r))) for r in replies])
        for var, value in stub.env().items():
            monkeypatch.setenv(var, value)
        first = owner.json("observe", "--session", "s2")
        assert FREEZE in owner.texts(), first  # the linter note was kept retired: it replaces nothing
        assert first["superseded"] == 0 and first["retired"] == 0
        assert any("not current (retired)" in why for why in first["refused"]), first["refused"]
        second = owner.json("observe", "--session", "s3")
    assert owner.texts() == [thursday], second
    assert second["superseded"] == 1 and second["retired"] == 0


# -- an explicit retraction names its subject whole --


@pytest.mark.parametrize(("rule", "near_miss", "taken_back"), [
    ("Never force push to develop.", "Forget what I said about force pushes to main.",
     "Forget what I said about force pushes to develop."),
    (FRIDAYS, "Disregard my rule about Friday deploys to staging.",
     "Disregard my rule about Friday deploys."),
    ("Always squash merges into main.", "Ignore what I told you about squash merges into release branches.",
     "Scratch the squash merge rule."),
    (LINTER, "Forget what I said about pushing to main.",
     "Ignore what I told you about running the linter before pushes in this repo."),
])
def test_an_explicit_retraction_retires_a_rule_only_when_it_names_every_word_of_its_subject(
        owner: Owner, rule: str, near_miss: str, taken_back: str) -> None:
    owner.said(3, rule, "Staging first, then prod.")
    owner.observe()
    assert rule in owner.texts()
    owner.said(2, near_miss)
    assert owner.observe()["retired"] == 0
    assert rule in owner.texts()
    owner.said(1, taken_back)
    assert owner.observe()["retired"] == 1
    assert owner.texts() == ["Staging first, then prod."]


# -- a retraction reaches its own project and the owner's notes everywhere only --


def test_retiring_a_rule_by_its_id_leaves_a_rule_of_the_same_words_said_only_in_another_project(
        owner: Owner) -> None:
    owner.said(4, "We always squash merges into main.")
    owner.observe()
    [rule] = owner.current()
    owner.json("observations", "retire", str(rule["id"]), "--reason", "we merge as we like now")
    _elsewhere(owner, "/work/blog", 3, "Always squash merges into main.")  # another project's own rule
    _elsewhere(owner, "/work/shop/api", 2, "Squash merges into main, always.")  # this project's
    _elsewhere(owner, "", 1, "Squash merges into main always.")  # the owner's everywhere
    owner.observe()
    assert owner.texts() == ["Always squash merges into main."]
    assert [o["addresses"] for o in owner.current()] == [["s2#1"]]


def test_a_rule_said_in_two_projects_is_taken_back_from_a_third_but_one_said_in_one_other_is_not(
        owner: Owner) -> None:
    owner.said(3, "We always squash merges into main.", LINTER)
    _elsewhere(owner, "/work/blog", 2, "We always squash merges into main.", "Squash merges wait for CI.")
    owner.observe()
    [rule] = _with(owner.current(), "always squash")
    assert rule["addresses"] == ["s1#1", "s2#1"]
    _elsewhere(owner, "/work/api", 1, "Forget what I said about squash merges.")
    report = owner.observe()
    assert sorted(owner.texts()) == [LINTER, "Squash merges wait for CI."] and report["retired"] == 1


# -- a sentence that only refers to a rule is no rule --


@pytest.mark.parametrize("reminder", [
    "Don't forget my rule about pnpm.",
    "Please don't ignore my rule about pnpm.",
    "Never forget what I said about pnpm.",
    "Make sure you do not disregard the note on pnpm.",
    "Don't forget my pnpm rule.",
    "Remember my rule about pnpm.",
])
def test_a_reminder_of_a_rule_is_neither_a_note_of_its_own_nor_a_retraction(owner: Owner,
                                                                           reminder: str) -> None:
    rule = "Use pnpm for installs, never npm."
    owner.said(2, rule, LINTER)
    owner.observe()
    owner.said(1, reminder)
    report = owner.observe()
    assert sorted(owner.texts()) == sorted([rule, LINTER])
    assert report["added"] == 0 and report["retired"] == 0


def test_a_rule_said_beside_a_reminder_is_kept_and_the_reminder_is_not(owner: Owner) -> None:
    owner.said(1, "Don't forget my rule about pnpm.", "As my rule about pnpm says.",
               "Don't forget: always use pnpm, never npm.", "Don't forget my rule about npm, never yarn.")
    owner.said(3, "Keep in mind my preference for tabs over spaces.")  # says the preference itself
    owner.observe()
    assert sorted(owner.texts()) == ["Don't forget my rule about npm, never yarn.",
                                     "Don't forget: always use pnpm, never npm.",
                                     "Keep in mind my preference for tabs over spaces."]


def test_a_take_back_logged_before_stems_lost_their_doubled_letter_still_retires_a_note_kept_later(
        owner: Owner) -> None:
    # Logged by the code before: "committing" cut to "committ", where a note is now cut to "commit".
    owner.said(2, "Forget what I said about committing to main.")
    owner.observe()
    with Record(owner.home / "record.sqlite3") as record:
        record.db.execute("UPDATE observation_retractions SET stems = ? WHERE stems LIKE '%commit%'",
                          (json.dumps(["committ", "main"]),))
        assert record.db.total_changes == 1
    owner.said(3, "Never be committing to main directly.")  # said before the take-back, observed after
    owner.observe()
    assert "Never be committing to main directly." not in owner.texts()
