"""The mechanical observer tells the owner's lasting rules from everything that only looks like one: a tool's
message he quotes inline, a one-off request for this turn (however it names the repo or orders its steps), a
list's header, a passing remark; it reads rules owners write without "always" or "never"; and a secret in a
rule never reaches a note, the export or the next session, though the rule does. Each case is written as a
Claude Code session, synced, observed and listed through the CLI."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from tests.keeping_sessions import ClaudeSession
from tests.stores import empty_roots
from total_recall.surfaces.cli import cli

TOKEN = "ghp_Q9vLr2XbT7nWk4YcZp8sHd3MfJa6Ue1Ro5Gi"


class Owner:
    """The owner's Claude Code sessions and the record the CLI keeps of them."""

    def __init__(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        self.root = empty_roots(tmp_path, monkeypatch)["claude-code"]
        self.home = tmp_path / "record"
        self.sessions = 0

    def says(self, *messages: str) -> None:
        """One session in which the owner says each message and the agent answers."""
        self.sessions += 1
        s = ClaudeSession(self.root, name=f"session-{self.sessions}")
        for text in messages:
            s.owner(text).agent("OK.")

    def run(self, *args: str) -> str:
        got = CliRunner().invoke(cli, ["--home", str(self.home), *args])
        assert got.exit_code == 0, got.output
        return got.stdout

    def observed(self) -> list[dict[str, Any]]:
        self.run("sync", "--harness", "claude-code")
        self.run("observe")
        notes: list[dict[str, Any]] = json.loads(self.run("observations", "--json"))["observations"]
        return notes

    def rules(self) -> list[str]:
        return [o["text"] for o in self.observed() if o["type"] == "rule"]


@pytest.fixture
def owner(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Owner:
    return Owner(tmp_path, monkeypatch)


def test_a_tool_message_the_owner_quotes_inline_never_becomes_his_rule(owner: Owner) -> None:
    owner.says(
        "Set up the dev env for me.",
        "npm ERR! Always run npm install with --legacy-peer-deps when peer deps conflict",
        "ruff says: never use a bare except in library code",
        "the linter keeps saying: every import must be sorted alphabetically",
        "[ERROR] Always call close() before the process exits",
        "pip WARNING: always use a virtualenv for installs",
        "TS7006: Parameter 'x' implicitly has an 'any' type, always annotate parameters",
        "Got 'Deprecation: new code must use the async client' from the SDK, ignore it for now",
        "As I said: always rebase on main before merging.",
    )
    assert owner.rules() == ["As I said: always rebase on main before merging."]


def test_a_one_off_request_is_no_rule_however_it_names_the_repo_or_orders_its_steps(owner: Owner) -> None:
    owner.says(
        "Let's get the release out today.",
        "Set up linting for the repo.",
        "Fix the type errors in this repo.",
        "Clean up the dead code across the codebase.",
        "Check all the FIXMEs in the codebase and list them.",
        "Build the docs first, then open the PR.",
        "Restart the worker first, then check the queue depth.",
        "Deploy to the sandbox first, then tell me how it went.",
        "If the tests pass, let me know.",
        "When the migration finishes, ping me.",
        "Draw a sequence diagram instead.",
        "Old line before new content.",
    )
    assert owner.rules() == []


def test_rules_said_without_always_or_never_become_rules(owner: Owner) -> None:
    rules = [
        "Hotfixes need two reviewers.",
        "Schema changes require 2 approvals.",
        "Version bumps are my job.",
        "Changelog entries are my call, not yours.",
        "I merge dependabot PRs myself.",
        "Handlers mirror the routes folder.",
        "Commit messages in the imperative please.",
        "Stop adding type: ignore comments, fix the types.",
        "Please don't rebuild the docker image locally, CI does that.",
        "Don't run the load tests on your laptop, they take an hour.",
        "Staging first, then prod.",
        "Whenever the nightly job fails, ping me.",
    ]
    owner.says("Have a look at the flaky checkout test.", *rules)
    assert sorted(owner.rules()) == sorted(rules)


def test_a_secret_in_a_rule_never_reaches_a_note_or_the_export_though_the_rule_does(owner: Owner,
                                                                                      tmp_path: Path) -> None:
    owner.says("Wire up the release workflow.", f"The deploy token is {TOKEN}, never paste it into a log.")
    [rule] = [o for o in owner.observed() if o["type"] == "rule"]
    assert rule["text"] == "The deploy token is [REDACTED:api-key], never paste it into a log."
    assert [s["quote"] for s in rule["quotes"]] == ["The deploy token is", "never paste it into a log."]
    owner.run("observations", "export", "--to", str(tmp_path / "workspace"))
    exported = (tmp_path / "workspace" / "observations.md").read_text(encoding="utf-8")
    assert "never paste it into a log" in exported and TOKEN not in exported
    assert TOKEN not in owner.run("observations", "--json")


def test_a_list_header_is_no_rule_and_a_bullet_keeps_no_dash(owner: Owner) -> None:
    owner.says("Review the payments module.",
               "A few house rules for this project:\n- Migrations go through review.\n"
               "- Tests mirror the src/ layout.")
    assert sorted(owner.rules()) == ["Migrations go through review.", "Tests mirror the src/ layout."]


def test_a_passing_remark_or_a_wish_for_this_turn_is_never_handed_on_above_low(owner: Owner) -> None:
    owner.says("Rebuild the search index.", "Hmm, that didn't work either.",
               "Don't merge yet, I want to read the diff first.", "Nope, it still fails.")
    assert [(o["type"], o["priority"], o["text"]) for o in owner.observed()
            if o["priority"] != "low"] == []
