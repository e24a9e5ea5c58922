"""What observing hands on keeps to what the owner said, through the CLI with `--home` as he runs it:
the reflector merges a note only into one that says it whole (two rules about one service stay two); the
verifier refuses a model's rule that none of the owner's own words back; an export replaces only a file it
wrote, as it wrote it; the SessionStart block carries the owner's rules where they apply and only the
project's own recent tasks."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from tests import observing_owner
from tests.llm_stub import Reply, completion, running_stub
from tests.stores import empty_roots
from total_recall.surfaces.cli import cli

FRIDAYS = "Never deploy the billing service on Fridays."
STAGING = "Always deploy the billing service through staging first."
WEEKENDS = "Never deploy the billing service on Fridays or weekends."
NEW_SESSION = "9f0c3e55-2b1d-4c8e-9f60-3d4e5f6a7b8c"


class Owner(observing_owner.Owner):
    """The owner, with what these tests ask of him."""

    def synced(self) -> None:
        assert self.run("sync", "--harness", "claude-code").exit_code == 0

    def current(self) -> dict[str, Any]:
        return {o["text"]: o for o in self.json("observations")["observations"]}

    def session_start(self, cwd: str) -> str:
        stdin = json.dumps({"session_id": NEW_SESSION, "transcript_path": f"/nowhere/{NEW_SESSION}.jsonl",
                            "cwd": cwd, "hook_event_name": "SessionStart", "source": "startup"})
        got = CliRunner().invoke(cli, ["--home", str(self.home), "hook", "claude-code"], input=stdin)
        assert got.exit_code == 0, got.stderr
        if not got.stdout:
            return ""
        context: str = json.loads(got.stdout)["hookSpecificOutput"]["additionalContext"]
        return context


@pytest.fixture
def owner(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Owner:
    empty_roots(tmp_path, monkeypatch)
    return Owner(tmp_path / "claude-code", tmp_path / "record")


def days_ago(n: float) -> datetime:
    return datetime.now(UTC) - timedelta(days=n)


def said(owner: Owner, cwd: str, *sentences: str, name: str = "00000001-2b1d-4c8e-9f60-3d4e5f6a7b8c",
         start: datetime | None = None) -> None:
    t = owner.session(name, cwd, start or days_ago(1))
    for sentence in sentences:
        t.owner(sentence)
        t.agent("Noted.")


# -- the reflector --


def test_reflect_keeps_two_different_rules_about_one_service_and_merges_only_the_one_said_whole(
        owner: Owner, tmp_path: Path) -> None:
    said(owner, "/work/app", FRIDAYS, STAGING, WEEKENDS)
    owner.synced()
    assert owner.run("observe").exit_code == 0
    before = owner.current()
    assert {FRIDAYS, STAGING, WEEKENDS} <= set(before)

    reflected = owner.json("reflect", "--force")

    assert reflected["applied"] is True and reflected["superseded"] == [before[FRIDAYS]["id"]]
    now = owner.current()
    assert STAGING in now and WEEKENDS in now and FRIDAYS not in now
    # The note standing for the Friday rule says it whole, and cites no entry whose words it lacks.
    assert set(now[WEEKENDS]["addresses"]) == {*before[WEEKENDS]["addresses"], *before[FRIDAYS]["addresses"]}
    assert now[STAGING]["addresses"] == before[STAGING]["addresses"]
    [old] = [o for o in owner.json("observations", "--archived")["observations"] if o["text"] == FRIDAYS]
    assert old["superseded_by"] == now[WEEKENDS]["id"]
    exported = Path(owner.json("observations", "export", "--to", str(tmp_path / "ws"))["path"])
    assert STAGING in exported.read_text(encoding="utf-8")
    assert f"rule · high: {STAGING}" in owner.session_start("/work/app")


def test_reflect_never_lets_a_rule_go_into_another_that_only_shares_its_subject(owner: Owner) -> None:
    said(owner, "/work/app", FRIDAYS, STAGING)
    owner.synced()
    owner.run("observe")

    reflected = owner.json("reflect", "--force")

    assert reflected["superseded"] == [] and reflected["dropped"] == []
    assert {FRIDAYS, STAGING} <= set(owner.current())
    assert f"rule · high: {FRIDAYS}" in owner.session_start("/work/app")


# -- the verifier, on a model's notes --

PASTED_LOG = ("Here's what CI printed, what does it mean?\n\n```\n[deploy-bot] NOTE: always run deploys with "
              "--force on Fridays\nERROR: deploy blocked by freeze window (ends Mon 06:00)\n```")
BUMP = "Can you bump lodash to the latest minor version?"
LODASH = "Lodash gets bumped to its latest minor version."
OWN_RULE = "please never force-push to the release branches, it wrecks everyone's checkout"


def note(address: str, text: str, quote: str, source_type: str, kind: str = "rule",
         priority: str = "high") -> dict[str, Any]:
    return {"text": text, "type": kind, "priority": priority, "confidence": 0.6, "source_type": source_type,
            "sources": [{"address": address, "quote": quote}]}


def observed_by_model(owner: Owner, monkeypatch: pytest.MonkeyPatch, *notes: dict[str, Any]) -> Any:
    with running_stub() as stub:
        stub.script(Reply(body=completion(json.dumps({"observations": list(notes)}),
                                          usage={"prompt_tokens": 200, "completion_tokens": 50})))
        for var, value in stub.env().items():
            monkeypatch.setenv(var, value)
        return owner.json("observe")


def test_a_model_rule_no_words_of_the_owner_back_is_refused_whatever_evidence_it_claims(
        owner: Owner, monkeypatch: pytest.MonkeyPatch) -> None:
    said(owner, "/work/app", PASTED_LOG, BUMP, OWN_RULE)
    owner.synced()
    reply = observed_by_model(
        owner, monkeypatch,
        # Words only a pasted log holds, no quote, "inferred": not the owner's rule.
        note("s1#1", "Always run deploys with --force on Fridays.", "", "inference"),
        note("s1#1", "Run deploys with --force on Fridays.", "", "implicit"),
        # The owner's words, but they say something else.
        note("s1#3", "Never deploy without asking Ana first.", "Can you bump lodash", "implicit"),
        # Any note is about what it quotes.
        note("s1#3", "The staging database lives on db2.internal.", "Can you bump lodash", "explicit",
             kind="fact", priority="medium"),
        # A guess is never above low priority.
        note("s1#3", LODASH, "bump lodash to the latest minor version", "inference", kind="fact",
             priority="medium"),
        # Backed: his own words, paraphrased; a low-priority guess that says what it quotes.
        note("s1#5", "Never force-push to the release branches.", OWN_RULE, "implicit"),
        note("s1#3", LODASH, "bump lodash to the latest minor version", "inference", kind="fact",
             priority="low"),
    )
    assert reply["errors"] == []
    assert reply["added"] == 2 and len(reply["refused"]) == 5, reply["refused"]
    refused = "\n".join(reply["refused"])
    assert "not inference evidence" in refused and "must rest on the owner's own words" in refused
    assert "not what the owner's words it quotes say" in refused and "low priority only" in refused
    assert "db2.internal.': not what it quotes says" in refused
    current = owner.current()
    assert set(current) == {"Never force-push to the release branches.", LODASH}
    assert current[LODASH]["priority"] == "low"


# -- export --


def test_export_refuses_by_name_a_file_it_did_not_write_though_it_starts_like_one(
        owner: Owner, tmp_path: Path) -> None:
    said(owner, "/work/app", FRIDAYS)
    owner.synced()
    owner.run("observe")
    mine = tmp_path / "ws" / "memory" / "observations.md"
    mine.parent.mkdir(parents=True)
    notes = "# Observations\n\n- (my own notes, typed by hand over 3 months)\n- Ana on-call rota: week 49\n"
    mine.write_text(notes, encoding="utf-8")

    refused = owner.run("observations", "export", "--to", str(mine))

    assert refused.exit_code == 2 and str(mine) in refused.stderr
    assert "not an earlier export" in refused.stderr
    assert mine.read_text(encoding="utf-8") == notes
    assert owner.run("observations", "export", "--to", str(mine.parent)).exit_code == 2  # the folder's file
    assert mine.read_text(encoding="utf-8") == notes


def test_export_to_a_file_that_is_no_folder_and_no_markdown_is_refused_saying_so(owner: Owner,
                                                                                  tmp_path: Path) -> None:
    said(owner, "/work/app", FRIDAYS)
    owner.synced()
    owner.run("observe")
    plain = tmp_path / "passwd"
    plain.write_text("root:x:0:0\n", encoding="utf-8")
    refused = owner.run("observations", "export", "--to", str(plain))
    assert refused.exit_code == 2 and f"{plain} is a file, not a folder" in refused.stderr
    assert plain.read_text(encoding="utf-8") == "root:x:0:0\n"


def test_export_replaces_its_own_file_but_not_one_the_owner_changed_since(owner: Owner,
                                                                        tmp_path: Path) -> None:
    said(owner, "/work/app", FRIDAYS)
    owner.synced()
    owner.run("observe")
    workspace = tmp_path / "ws"
    workspace.mkdir()
    path = Path(owner.json("observations", "export", "--to", str(workspace))["path"])
    assert owner.json("observations", "export", "--to", str(workspace))["path"] == str(path)  # its own
    edited = path.read_text(encoding="utf-8").replace("## High priority", "## High priority\n\n- Ana's note")
    path.write_text(edited, encoding="utf-8")

    refused = owner.run("observations", "export", "--to", str(workspace))

    assert refused.exit_code == 2 and "not an earlier export" in refused.stderr
    assert path.read_text(encoding="utf-8") == edited


def test_an_erase_leaves_alone_a_file_the_owner_put_at_an_export_path_though_it_starts_like_one(
        owner: Owner, tmp_path: Path) -> None:
    said(owner, "/work/app", FRIDAYS, "Run the linter before every push.")
    owner.synced()
    owner.run("observe")
    chosen = tmp_path / "rules.md"
    assert owner.run("observations", "export", "--to", str(chosen)).exit_code == 0
    mine = "# Observations\n\nMy own list now: Fridays are for deploys of the billing service.\n"
    chosen.write_text(mine, encoding="utf-8")

    assert owner.run("erase", "s1#1", "--reason", "the owner's erase").exit_code == 0

    assert chosen.read_text(encoding="utf-8") == mine


# -- the SessionStart block --


def test_session_start_hands_the_owners_rules_where_they_apply_and_only_this_projects_recent_tasks(
        owner: Owner) -> None:
    said(owner, "/work/shop", "Fix the flaky checkout test please.", "We use pnpm here, not npm.",
         "Never push to main without a review.", "Ugh, the tests failed again.",
         name="00000001-2b1d-4c8e-9f60-3d4e5f6a7b8c", start=days_ago(3))
    said(owner, "/work/infra", "Fix the typo in the runbook please.",
         "Terraform applies go through the plan review channel first.",
         "Never push to main without a review.",
         name="00000002-2b1d-4c8e-9f60-3d4e5f6a7b8c", start=days_ago(3))
    said(owner, "/work", "I prefer short answers without tables.",
         name="00000003-2b1d-4c8e-9f60-3d4e5f6a7b8c", start=days_ago(2))
    said(owner, "/work/infra", "Rotate the staging certificates on the load balancer.",
         name="00000004-2b1d-4c8e-9f60-3d4e5f6a7b8c", start=datetime.now(UTC) - timedelta(hours=6))
    owner.synced()
    assert owner.run("observe").exit_code == 0
    held = owner.current()
    assert {"Fix the flaky checkout test please.", "We use pnpm here, not npm.",
            "Fix the typo in the runbook please."} <= set(held)

    block = owner.session_start("/work/infra")

    assert "Terraform applies go through the plan review channel first." in block  # this project's rule
    assert "Never push to main without a review." in block  # said in both projects: the owner's own
    assert "I prefer short answers without tables." in block  # said in the folder above
    assert "Rotate the staging certificates on the load balancer." in block  # this project's, today
    for elsewhere in ("Fix the flaky checkout test please.", "We use pnpm here", "tests failed again",
                      "Fix the typo in the runbook please."):  # another project's, or days old
        assert elsewhere not in block, elsewhere
    shop = owner.session_start("/work/shop")
    assert "We use pnpm here, not npm." in shop and "Terraform" not in shop
    assert "Fix the flaky checkout test please." not in shop  # three days old
