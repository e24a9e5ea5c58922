"""Observing (issue 19): observations distilled from real sessions in native formats, each verified against
the record; the model observer against a loopback stub; the reflector; 30 nights of the cycle on an
injected clock; erase reaching every copy."""

from __future__ import annotations

import json
import shutil
import uuid
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from tests.llm_stub import Reply, Stub, completion, running_stub
from total_recall.erasure import erase
from total_recall.llm.provider import Provider
from total_recall.observing import (
    Draft,
    ObservationRejected,
    ObservingError,
    Source,
    approve,
    backups,
    export,
    for_session_start,
    nightly,
    observation_json,
    observations,
    observe,
    proposals,
    reflect,
    reject,
    restore,
    show,
)
from total_recall.observing.mechanical import shape
from total_recall.observing.verifier import Verifier
from total_recall.record import observations as table
from total_recall.record.database import Record
from total_recall.record.sync import sync

START = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)  # a Monday


class Claude:
    """One Claude Code session file (native JSONL) whose lines carry the times of a given day."""

    def __init__(self, root: Path, name: str, subagent_of: Claude | None = None) -> None:
        self.id = str(uuid.uuid5(uuid.NAMESPACE_URL, name))
        folder = root / "projects" / "-srv-app"
        if subagent_of is None:
            self.path = folder / f"{self.id}.jsonl"
        else:
            self.id = "agent-" + self.id[:12]
            self.path = folder / subagent_of.id / "subagents" / f"{self.id}.jsonl"
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.sidechain = subagent_of is not None
        self.parent: str | None = None
        self.n = 0

    def _line(self, kind: str, message: dict[str, Any], day: int) -> None:
        self.n += 1
        node = str(uuid.uuid5(uuid.NAMESPACE_URL, f"{self.id}/{self.n}"))
        ts = START + timedelta(days=day, minutes=self.n)
        line = {"parentUuid": self.parent, "isSidechain": self.sidechain, "type": kind, "message": message,
                "uuid": node, "timestamp": ts.strftime("%Y-%m-%dT%H:%M:%S.000Z"), "sessionId": self.id,
                "cwd": "/srv/app", "version": "2.1.0"}
        if self.sidechain:
            line["agentId"] = self.id
        with self.path.open("a", encoding="utf-8") as fh:
            fh.write(json.dumps(line) + "\n")
        self.parent = node

    def owner(self, text: str, day: int = 0) -> Claude:
        self._line("user", {"role": "user", "content": text}, day)
        return self

    def agent(self, text: str, day: int = 0) -> Claude:
        self._line("assistant", {"role": "assistant", "content": [{"type": "text", "text": text}]}, day)
        return self


def codex_exec(root: Path, text: str) -> None:
    """A `codex exec` rollout (what cron and scripts run): its owner line must not be observed."""
    sid = "0199aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee"
    folder = root / "sessions" / "2026" / "11" / "02"
    folder.mkdir(parents=True)
    ts = "2026-11-02T03:00:00.000Z"
    lines = [
        {"timestamp": ts, "type": "session_meta", "payload": {
            "id": sid, "timestamp": ts, "cwd": "/srv/app", "originator": "codex_exec", "source": "exec",
            "cli_version": "0.158.0"}},
        {"timestamp": ts, "type": "response_item", "payload": {
            "type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}},
        {"timestamp": ts, "type": "response_item", "payload": {
            "type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Done."}]}},
    ]
    (folder / f"rollout-2026-11-02T03-00-00-{sid}.jsonl").write_text(
        "\n".join(json.dumps(x) for x in lines) + "\n", encoding="utf-8")


RULES = {
    "Never push to main without a review.": "rule",
    "Deploys wait for the Friday freeze.": "rule",
    "Staging first, then prod.": "rule",
    "Use pnpm, not npm.": "rule",
    "I prefer short answers without tables.": "preference",
    "The staging database lives on db2.internal:5433.": "fact",
    "We deployed the billing service to production yesterday.": "event",
}
PASTED = ("Here is the mail from the vendor:\n\nFrom: ops@vendor.example\nSubject: policy\n\n"
          "Always CC legal on every release.\nNever rotate the keys before Monday.\n\n"
          "What do you make of it?")
FENCED = "Look at this config:\n```\n# never use sudo in scripts\nalways_restart: true\n```"
QUOTED = "> Never deploy on Mondays, says the old wiki.\n\nIs that still true?"


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "record"


@pytest.fixture
def record(home: Path) -> Iterator[Record]:
    home.mkdir(parents=True, exist_ok=True)
    r = Record(home / "record.sqlite3")
    yield r
    r.close()


def synced(record: Record, root: Path, harness: str = "claude-code") -> None:
    assert sync(record, [harness], roots={harness: root}).errors == []


def planted(root: Path) -> Claude:
    s = Claude(root, "planted")
    s.owner("Please fix the flaky login test in tests/test_login.py.")
    s.agent("I'll use a fixed clock in the test instead of sleeping; let's go with freezegun.")
    for n, sentence in enumerate(RULES):
        s.owner(sentence, day=0)
        s.agent(f"Noted ({n}).")
    s.owner(PASTED).agent("The vendor asks for legal in CC.")
    s.owner(FENCED).agent("That config restarts always.")
    s.owner(QUOTED).agent("Not any more.")
    return s


def by_text(record: Record, archived: bool = False) -> dict[str, Any]:
    return {o.text: o for o in observations(record, archived=archived, limit=10_000)}


# -- the mechanical observer --

def test_the_mechanical_observer_turns_planted_owner_rules_into_verified_observations(
        tmp_path: Path, record: Record) -> None:
    planted(tmp_path / "claude")
    synced(record, tmp_path / "claude")
    report = observe(record, clock=lambda: START + timedelta(days=1))
    assert report.errors == [] and report.refused == []
    assert report.sessions == 1 and report.observer == "mechanical"
    held = by_text(record)
    for sentence, kind in RULES.items():
        assert sentence in held, sentence
        o = held[sentence]
        assert o.type == kind, sentence
        assert o.source_type == "explicit"
        assert o.sources[0].quote == sentence
        entry = record.entries(table_address(o.addresses[0]))[0]
        assert entry.author == "owner" and sentence in entry.text
        if kind == "rule":
            assert o.priority == "high" and o.confidence >= 0.7
    assert held["Please fix the flaky login test in tests/test_login.py."].type == "context"
    verifier = Verifier(record)
    for o in held.values():
        verifier.recheck(o)  # every one holds against the record
    out = report.to_json()
    assert set(out) >= {"observed", "added", "skipped", "tokens", "cost", "errors"}
    assert out["observed"]["sessions"] == 1 and out["tokens"] == 0 and out["added"] == len(held)


def test_pasted_imperatives_never_become_the_owners_rules(tmp_path: Path, record: Record) -> None:
    planted(tmp_path / "claude")
    synced(record, tmp_path / "claude")
    observe(record)
    texts = " ".join(o.text for o in observations(record, archived=True, limit=10_000)).lower()
    for pasted in ("cc legal", "rotate the keys", "sudo", "deploy on mondays", "always_restart"):
        assert pasted not in texts


# Rules as owners write them, one shape each: a long subject and its verb, "No X to Y", "Only X merges",
# "X is off limits", a quantified subject, a quota, a verbless "X before Y", a generic plural with a
# condition, the team's habit, "nobody … until", "nowhere near".
NATURAL_RULES = [
    "Deploys of billing wait for the Friday freeze to end.",
    "No force pushes to release/6.x.",
    "Only the gateway team merges into release/6.x.",
    "The auth database is off limits during business hours.",
    "Every schema change in ledger gets a second reviewer.",
    "Any new dependency needs my OK first.",
    "One feature flag per change.",
    "Review before merge.",
    "Schema changes ship behind a flag.",
    "Dumps are encrypted before they leave db2.internal.",
    "We squash commits on develop.",
    "If CI is red, nobody merges until it's green again.",
    "Secrets stay in the vault and nowhere near the repo.",
    "Branch names start with the ticket number.",
]
# Look-alikes that report, describe or happened once: none is a rule.
NOT_RULES = [
    "Requests to billing time out after 30 seconds.",
    "Only two tests fail now.",
    "Each worker handles about 200 jobs a minute.",
    "Sessions expire after an hour.",
    "Tests fail on main since the upgrade.",
    "Tickets are closed by the bot.",
    "Nobody knows why the cache is cold.",
    "The staging database lives on db2.internal:5433.",
    "We deployed the billing service to production yesterday.",
    "I prefer short answers without tables.",
]


def test_a_rule_no_shape_reads_is_read_by_its_words_and_a_one_off_request_is_not(
        tmp_path: Path, record: Record) -> None:
    worded = ["Production access is granted per ticket and expires after a day.",
              "Public endpoints are rate limited per API key."]
    assert [shape(s, "statement") for s in worded] == [None, ("fact", "medium", 0.75, 5.0)]  # no rule shape
    s = Claude(tmp_path / "claude", "worded").owner("Please look at the slow checkout test.")
    for sentence in [*worded, "Fix the typo in the header please.", "Thanks, that worked great."]:
        s.owner(sentence).agent("Noted.")
    synced(record, tmp_path / "claude")
    observe(record)
    rules = {o.text: o.confidence for o in observations(record, type="rule")}
    assert rules == dict.fromkeys(worded, 0.65)  # their words make them rules, held less surely


def test_rules_written_without_always_or_never_become_rules_and_their_look_alikes_do_not(
        tmp_path: Path, record: Record) -> None:
    s = Claude(tmp_path / "claude", "natural").owner("Please look at the slow checkout test.")
    for sentence in [*NATURAL_RULES, *NOT_RULES]:
        s.owner(sentence).agent("Noted.")
    synced(record, tmp_path / "claude")
    observe(record)
    kinds = {o.text: o.type for o in observations(record, limit=10_000)}
    assert {s: kinds.get(s) for s in NATURAL_RULES} == dict.fromkeys(NATURAL_RULES, "rule")
    assert [sentence for sentence in NOT_RULES if kinds.get(sentence) == "rule"] == []


def test_a_pasted_readme_excerpt_never_becomes_the_owners_rules(tmp_path: Path, record: Record) -> None:
    Claude(tmp_path / "claude", "readme").owner(
        "From the billing README:\n\n## Contributing\n\n- Always run the linter before you commit.\n"
        "- Never push to main; open a pull request.\n\nIs that what we actually do here?").agent("Partly.")
    synced(record, tmp_path / "claude")
    observe(record)
    texts = " ".join(o.text for o in observations(record, archived=True, limit=10_000)).lower()
    assert "linter" not in texts and "push to main" not in texts


def test_subagent_and_automated_sessions_are_passed_over(tmp_path: Path, record: Record) -> None:
    main = Claude(tmp_path / "claude", "main").owner("Never commit secrets to the repository.")
    Claude(tmp_path / "claude", "helper", subagent_of=main).owner("Always use tabs for indentation.")
    codex_exec(tmp_path / "codex", "Never write tests for the parser.")
    synced(record, tmp_path / "claude")
    synced(record, tmp_path / "codex", "codex")
    assert {s.relation for s in record.sessions()} >= {"subagent"}
    report = observe(record)
    assert report.skipped == {"subagent sessions": 1, "automated sessions": 1}
    assert [o.text for o in observations(record)] == ["Never commit secrets to the repository."]
    again = observe(record)
    assert again.sessions == 0 and again.skipped == {}


def test_a_headless_claude_code_session_is_passed_over_as_automated(tmp_path: Path, record: Record) -> None:
    # Recorded from Claude Code 2.1.284 run as `claude -p` (tests/fixtures/README.md): its lines say
    # `"entrypoint": "sdk-cli"`, which the reader keeps in the session's meta.
    recorded = Path(__file__).parent / "fixtures/sessions/claude_code/recorded_2.1.284"
    root = tmp_path / "claude"
    shutil.copytree(recorded, root)
    synced(record, root / "projects")
    assert len(record.sessions()) == 1
    report = observe(record)
    assert report.skipped == {"automated sessions": 1} and observations(record, archived=True) == []


def test_a_later_run_reads_only_new_entries_and_a_repeat_reinforces_the_same_observation(
        tmp_path: Path, record: Record) -> None:
    s = Claude(tmp_path / "claude", "s").owner("Deploys wait for the Friday freeze.")
    synced(record, tmp_path / "claude")
    assert observe(record).added == 1
    assert observe(record).sessions == 0
    s.agent("Understood.", day=2).owner("deploys wait for the Friday freeze!", day=2)
    synced(record, tmp_path / "claude")
    report = observe(record)
    assert report.added == 0 and report.reinforced == 1 and report.entries == 2
    [o] = observations(record)
    assert len(o.addresses) == 2 and o.seen.startswith("2026-11-04")


def test_the_verifier_refuses_what_the_record_cannot_back(tmp_path: Path, record: Record) -> None:
    s = Claude(tmp_path / "claude", "s").owner("Never push to main.").agent("Sure, never push to main.")
    s.owner(PASTED)
    synced(record, tmp_path / "claude")
    n = record.sessions()[0].number
    v = Verifier(record)

    def draft(*sources: Source, text: str = "Never push to main.", source_type: str = "explicit") -> Draft:
        return Draft(text, "high", "rule", 0.9, source_type, tuple(sources))

    assert v.check(draft(Source(f"s{n}#1", "Never push to main.")))[0].owner_words
    refusals = {
        "no such entry": draft(Source(f"s{n}#99", "x")),
        "not an address": draft(Source("main#1", "x")),
        "one entry": draft(Source(f"s{n}#1-2", "x")),
        "not the owner's own": draft(Source(f"s{n}#3", "Always CC legal on every release.")),
        "not in that entry": draft(Source(f"s{n}#2", "never push to prod")),
        "quotes none of the owner's": draft(Source(f"s{n}#2", "never push to main")),
        "characters": draft(Source(f"s{n}#1", "Never push to main."), text="x" * 401),
        "cites no entry": draft(),
    }
    for why, d in refusals.items():
        with pytest.raises(ObservationRejected, match=why):
            v.check(d)
    # A rule stands on the owner's words whatever evidence it claims; the agent's may back other notes.
    with pytest.raises(ObservationRejected, match="must rest on the owner's own words"):
        v.check(draft(Source(f"s{n}#2", "never push to main"), source_type="implicit"))
    assert v.check(Draft("The agent will never push to main.", "low", "fact", 0.6, "implicit",
                         (Source(f"s{n}#2", "never push to main"),)))
    erase(record, f"s{n}#1", "test")
    with pytest.raises(ObservationRejected, match="erased"):
        Verifier(record).check(draft(Source(f"s{n}#1", "")))


# -- erase --

def test_erase_withdraws_every_observation_copy_and_proposal_citing_the_entry(
        tmp_path: Path, home: Path, record: Record) -> None:
    s = Claude(tmp_path / "claude", "s")
    for day in range(3):
        s.owner("I prefer the zanzibarquux dashboard in dark mode.", day=day).agent("Noted.", day=day)
    s.owner("Keep the frobnitz cache warm at all times.", day=3)
    synced(record, tmp_path / "claude")
    observe(record)
    backup = reflect(record, force=True).backup  # a backup holding it
    night = nightly(record, apply=True, clock=lambda: START + timedelta(days=3, hours=12))
    assert night.metrics["proposals"] == 1
    n = record.sessions()[0].number
    erase(record, f"s{n}#1-6", "an owner's erase")  # every entry holding the word
    texts = [o.text for o in observations(record, archived=True)]
    assert texts == ["Keep the frobnitz cache warm at all times."]
    assert [p.status for p in proposals(record, None)] == ["withdrawn"]
    assert observations(record, "zanzibarquux", archived=True) == []
    assert restore(record, backup or 0)[0] == 1  # the backup's copy went with the erase too
    record.close()
    for path in home.glob("record.sqlite3*"):
        assert b"zanzibarquux" not in path.read_bytes(), path.name


# -- the model observer --

def note(address: str, quote: str, text: str | None = None, **extra: Any) -> dict[str, Any]:
    return {"text": text or quote, "type": "rule", "priority": "high", "confidence": 0.9,
            "source_type": "explicit", "sources": [{"address": address, "quote": quote}], **extra}


def reply(*notes: dict[str, Any], tokens: int = 300) -> Reply:
    return Reply(body=completion(json.dumps({"observations": list(notes)}),
                                 usage={"prompt_tokens": tokens - 50, "completion_tokens": 50}))


def provider(stub: Stub, home: Path, **env: str) -> Provider:
    return Provider.from_env(home=home, env=stub.env(**env), sleep=lambda s: None)


def test_the_model_observer_keeps_only_notes_the_record_backs(tmp_path: Path, home: Path,
                                                              record: Record) -> None:
    planted(tmp_path / "claude")
    synced(record, tmp_path / "claude")
    n = record.sessions()[0].number
    paste = next(e for e in record.entries(table_address(f"s{n}"))
                 if "vendor" in e.text and e.author == "owner")
    with running_stub() as stub:
        stub.script(reply(
            note(f"s{n}#3", "Never push to main without a review."),
            note(f"s{n}#999", "Never push to main without a review.", text="A note citing nothing real."),
            note(f"s{n}#3", "Never push to main without a review.", text="y" * 900),
            note(f"s{n}#{paste.seq}", "Always CC legal on every release."),
            note("s77#1", "anything", text="Another session entirely."),
            {"text": "no sources", "type": "fact"},
        ))
        report = observe(record, model=provider(stub, home))
    assert report.errors == []
    assert [o.text for o in observations(record)] == ["Never push to main without a review."]
    assert report.added == 1 and len(report.refused) == 5
    joined = "\n".join(report.refused)
    for why in (f"s{n}#999, not among the entries shown", "characters", "not the owner's own",
                "s77#1, not among the entries shown", "lacks"):
        assert why in joined
    assert report.calls == 1 and report.tokens == 300
    assert report.cost["day_tokens"] == 300 and report.cost["model"] == "stub-model"
    shown = stub.prompt(0)
    assert "CC legal" not in shown and "[pasted" in shown  # the owner's pastes are not shown as his words


def test_a_malformed_or_failed_reply_keeps_nothing_and_is_read_again(tmp_path: Path, home: Path,
                                                                     record: Record) -> None:
    Claude(tmp_path / "claude", "s").owner("Never push to main without a review.")
    synced(record, tmp_path / "claude")
    n = record.sessions()[0].number
    with running_stub() as stub:
        stub.script(Reply(body=completion("Sure! Here are the observations: - never push")),
                    Reply(status=400, body={"error": {"message": "bad request"}}),
                    reply(note(f"s{n}#1", "Never push to main without a review.")))
        first = observe(record, model=provider(stub, home))
        assert "refused whole" in first.refused[0] and first.errors and observations(record) == []
        second = observe(record, model=provider(stub, home))
        assert "400" in second.errors[0] and observations(record) == []
        third = observe(record, model=provider(stub, home))
    assert third.errors == [] and third.added == 1 and third.entries == 1
    assert len(stub.requests) == 3


def test_the_model_observer_never_spends_past_the_day_cap(tmp_path: Path, home: Path, record: Record) -> None:
    for k in range(3):
        Claude(tmp_path / "claude", f"s{k}").owner(f"Never touch the {k}th production shard.")
    synced(record, tmp_path / "claude")
    with running_stub() as stub:
        stub.script(*(reply(tokens=2_500) for _ in range(3)))
        model = provider(stub, home, TOTAL_RECALL_LLM_MAX_DAY_TOKENS="6000",
                         TOTAL_RECALL_LLM_MAX_OUTPUT_TOKENS="1000")
        report = observe(record, model=model)
    assert report.calls == 2 and len(stub.requests) == 2
    assert any("per-day cap" in e for e in report.errors)
    assert model.today().tokens <= 6000 and report.cost["day_cap"] == 6000
    assert len(table.pending(record)) == 1  # the session not sent waits for tomorrow


def test_the_observer_prompt_is_the_owners_file_when_he_keeps_one(tmp_path: Path, home: Path,
                                                                  record: Record) -> None:
    Claude(tmp_path / "claude", "s").owner("Never push to main.")
    synced(record, tmp_path / "claude")
    (home / "observer-prompt.md").write_text("MY OWN OBSERVER PROMPT", encoding="utf-8")
    with running_stub() as stub:
        stub.script(reply())
        observe(record, model=provider(stub, home))
    assert stub.requests[0]["json"]["messages"][0]["content"] == "MY OWN OBSERVER PROMPT"


# -- the reflector --

def test_the_reflector_merges_related_observations_and_names_what_superseded_each(
        tmp_path: Path, record: Record) -> None:
    s = Claude(tmp_path / "claude", "s")
    s.owner("Never run the database migrations on production without a fresh backup first.", day=0)
    s.owner("Never run database migrations on production without a fresh backup and a dry run.", day=1)
    s.owner("Keep it short and skip the tables in answers please.", day=1)
    synced(record, tmp_path / "claude")
    observe(record)
    report = reflect(record, threshold_words=5, clock=lambda: START + timedelta(days=2))
    assert report.applied and report.words_after < report.words_before
    assert report.merged == 1 and len(report.superseded) == 1
    current = observations(record)
    kept = next(o for o in current if "dry run" in o.text)
    assert len(kept.addresses) == 2  # it cites what it replaced
    [old] = [o for o in observations(record, archived=True) if o.superseded_by is not None]
    assert old.superseded_by == kept.id and old.priority == "high"
    again = reflect(record, threshold_words=5)
    assert not again.applied and "not shorter" in again.reason  # rolled back: nothing changed
    assert {o.id for o in observations(record)} == {o.id for o in current}
    restored, before = restore(record, report.backup or 0)
    assert restored == 3 and len(observations(record)) == 3
    assert restore(record, before)[0] == 3  # a restore is undone by restoring what it backed up
    assert {o.id for o in observations(record)} == {o.id for o in current}


def test_the_reflector_archives_a_stale_low_priority_event_where_other_words_still_find_it(
        tmp_path: Path, record: Record) -> None:
    s = Claude(tmp_path / "claude", "s").owner("We deployed the billing service to production yesterday.")
    s.owner("Never push to main without a review.", day=1)
    synced(record, tmp_path / "claude")
    observe(record, clock=lambda: START + timedelta(days=1, hours=10))
    [event] = observations(record, type="event")
    report = reflect(record, force=True, clock=lambda: START + timedelta(days=20))
    assert report.applied and report.archived == [event.id] and report.dropped == []
    assert [o.id for o in observations(record, type="event")] == []  # out of the current set
    found = [o.id for o in observations(record, "release to live", archived=True)]
    assert event.id in found  # still found, by words it never used


def test_the_reflector_waits_for_the_threshold_and_keeps_ten_backups(tmp_path: Path, record: Record) -> None:
    Claude(tmp_path / "claude", "s").owner("Never push to main without a review.")
    synced(record, tmp_path / "claude")
    observe(record)
    assert "under the threshold" in reflect(record).reason
    for _ in range(12):
        reflect(record, force=True)
    assert len(table.backups(record)) == 10
    with pytest.raises(ObservingError, match="no backup 1 "):
        restore(record, 1)
    oldest = backups(record)[-1].backup
    restore(record, oldest)  # backing up before restoring spares the oldest it is restoring
    kept = backups(record)
    assert len(kept) == 11 and kept[0].reason == f"before restoring backup {oldest}"
    reflect(record, force=True)
    assert len(backups(record)) == 10


# -- the nightly cycle --

def month(root: Path) -> None:
    """Five days of sessions: rules, a preference, facts, one-off events, and pasted imperatives."""
    a = Claude(root, "day0")
    a.owner("Never push to main without a review.", 0).agent("Noted.", 0)
    a.owner("Deploys wait for the Friday freeze.", 0).agent("Noted.", 0)
    a.owner("We deployed the billing service to production yesterday.", 0).agent("Good.", 0)
    a.owner(PASTED, 0).agent("Legal in CC it is.", 0)
    b = Claude(root, "day1")
    b.owner("Staging first, then prod.", 1).agent("Right.", 1)
    b.owner("I prefer short answers without tables.", 1).agent("Sure.", 1)
    b.owner("The search cluster had an outage this morning.", 1).agent("Ouch.", 1)
    c = Claude(root, "day2")
    c.owner("The staging database lives on db2.internal:5433.", 2).agent("Ok.", 2)
    c.owner("The staging database runs Postgres 16.4 now.", 2).agent("Ok.", 2)
    c.owner("The staging database is backed up nightly to s3://backups/stg.", 2).agent("Ok.", 2)
    c.owner("I prefer short answers without tables.", 2).agent("Sure.", 2)
    d = Claude(root, "day4")
    d.owner("I prefer short answers without tables.", 4).agent("Sure.", 4)


def test_thirty_nights_keep_rules_archive_expired_events_and_find_them_by_other_words(
        tmp_path: Path, record: Record) -> None:
    month(tmp_path / "claude")
    synced(record, tmp_path / "claude")
    observe(record, clock=lambda: START + timedelta(days=4, hours=10))
    rules = {o.id for o in observations(record, type="rule")}
    assert len(rules) == 3
    def evening(n: int) -> Callable[[], datetime]:
        return lambda: START + timedelta(days=n, hours=18)

    reports = [nightly(record, apply=True, clock=evening(n)) for n in range(1, 31)]
    assert all(not r.outcome.startswith("rolled back") for r in reports), [r.outcome for r in reports]
    assert {o.id for o in observations(record, type="rule")} >= rules  # every rule still current
    archived = [o for o in observations(record, archived=True) if o.archived]
    events = [o for o in archived if o.type == "event"]
    assert {o.text for o in events} == {"We deployed the billing service to production yesterday.",
                                        "The search cluster had an outage this morning."}
    assert all(4 <= len(o.hooks) <= 5 for o in archived)
    assert not any(o.type == "event" for o in observations(record))  # none current
    billing = next(o for o in events if "billing" in o.text)
    for paraphrase in ("what happened in November", "release to live", "shipped invoices app"):
        found = [o.id for o in observations(record, paraphrase, archived=True)]
        assert billing.id in found, paraphrase
        assert billing.id not in [o.id for o in observations(record, paraphrase)]  # archived: asked for
    chunk = next(o for o in observations(record, type="fact") if o.origin == "chunk")
    assert len(chunk.addresses) == 3 and "staging" in chunk.text
    members = [o for o in archived if o.superseded_by == chunk.id]
    assert len(members) == 3
    metrics = table.nights(record, 40)
    assert len(metrics) == 30 and metrics[0].metrics["current"] >= 5
    assert all(isinstance(n.log, list) for n in metrics)
    verifier = Verifier(record)
    for o in observations(record, archived=True, limit=10_000):
        verifier.recheck(o)  # nothing the cycle made fails verification


def test_the_nightly_cycle_is_a_dry_run_until_the_owner_switches_it_on(tmp_path: Path,
                                                                      record: Record) -> None:
    month(tmp_path / "claude")
    synced(record, tmp_path / "claude")
    observe(record)
    before = [observation_json(o) for o in observations(record, archived=True)]
    report = nightly(record, clock=lambda: START + timedelta(days=25))
    assert not report.applied and report.outcome.startswith("dry run")
    assert any(a["action"] == "archive" for a in report.actions)
    assert report.metrics["by_impact"]["critical"] >= 3
    assert [observation_json(o) for o in observations(record, archived=True)] == before
    assert table.backups(record) == [] and proposals(record) == []


def test_a_night_rolls_back_when_what_it_touches_no_longer_verifies(tmp_path: Path, record: Record) -> None:
    Claude(tmp_path / "claude", "s").owner("We deployed the billing service to production yesterday.")
    synced(record, tmp_path / "claude")
    observe(record)
    [event] = observations(record)
    record.quarantine(table_address(event.addresses[0]), "not for windows")
    report = nightly(record, apply=True, clock=lambda: START + timedelta(days=20))
    assert report.outcome.startswith("rolled back") and "quarantined" in report.outcome
    assert report.backup is not None
    # Kept as it was, though the listing hides it while its source is quarantined.
    assert observations(record) == []
    [still] = observations(record, shown=False)
    assert still.id == event.id and not still.archived
    assert table.nights(record)[0].outcome == report.outcome


def test_themes_seen_on_three_days_are_staged_for_the_owner_to_approve(tmp_path: Path,
                                                                       record: Record) -> None:
    month(tmp_path / "claude")
    s = Claude(tmp_path / "claude", "ctx")
    for day in (0, 2, 4):
        s.owner("Work on the checkout refactor in the payments repository.", day).agent("On it.", day)
    synced(record, tmp_path / "claude")
    observe(record)
    assert proposals(record) == []
    nightly(record, apply=True, clock=lambda: START + timedelta(days=4, hours=20))
    [p] = proposals(record)
    assert p.text == "I prefer short answers without tables." and p.type == "rule"
    assert p.occurrences == 3 and p.days == 3
    assert all(o.type != "context" for o in show(record, p.id).observations)
    promoted = approve(record, p.id)
    assert promoted.type == "rule" and promoted.priority == "high"
    assert proposals(record) == [] and proposals(record, "approved")[0].result == promoted.id
    with pytest.raises(ObservingError, match="approved"):
        reject(record, p.id)
    with pytest.raises(ObservingError, match="no proposal"):
        show(record, 999)


# -- loading and export --

def test_export_and_session_start_hand_out_current_observations_within_the_cap(
        tmp_path: Path, record: Record) -> None:
    month(tmp_path / "claude")
    synced(record, tmp_path / "claude")
    observe(record)
    path, count = export(record, tmp_path / "workspace")
    text = path.read_text(encoding="utf-8")
    assert path.name == "observations.md" and count == len(observations(record))
    assert "## High priority" in text and "<!-- id:" in text
    assert "Never push to main without a review." in text
    block = for_session_start(record, "/srv/app", cap_tokens=120)
    lines = block.splitlines()
    assert lines[0] == "[total-recall observations]" and lines[-1] == "[end total-recall observations]"
    assert "rule · high: Never push to main without a review." in block
    from total_recall.tokens import estimate_tokens
    assert estimate_tokens(block) <= 120
    assert for_session_start(record, "/srv/app", cap_tokens=10) == ""


def test_the_observer_never_reads_the_observations_it_handed_back(tmp_path: Path, record: Record) -> None:
    Claude(tmp_path / "claude", "s").owner("Never push to main without a review.")
    synced(record, tmp_path / "claude")
    observe(record)
    block = for_session_start(record, "/srv/app")
    other = Claude(tmp_path / "claude", "next")
    other.owner(block.replace("Never push", "Never ever push") + "\n\nNow fix the build.")
    synced(record, tmp_path / "claude")
    report = observe(record)
    assert report.added == 1  # the task only
    assert [o.type for o in observations(record)] == ["rule", "context"]


# -- cost --

def test_the_mechanical_observer_reads_a_heavy_day_whole(tmp_path: Path, record: Record) -> None:
    s = Claude(tmp_path / "claude", "heavy")
    for k in range(1_000):
        s.owner(f"Step {k}: check the handler in src/app/h{k}.py and never log tokens {k}.")
        s.agent(f"I'll use the cache for handler {k}; decided to keep the retry at {k % 5}.")
    synced(record, tmp_path / "claude")
    report = observe(record)  # its cost is measured by bench/observing.py ("one heavy day")
    assert report.entries == 2_000 and report.added >= 1_000


def table_address(text: str) -> Any:
    from total_recall.model import Address

    return Address.parse(text)


def test_an_observation_id_is_never_given_again_after_its_observation_goes(
        tmp_path: Path, record: Record) -> None:
    """Night logs and proposals keep ids: a dropped observation's id must never name another note."""
    from total_recall.record import observations as table

    Claude(tmp_path / "claude", "s").owner("Never push to main without a review.")
    synced(record, tmp_path / "claude")
    observe(record)
    newest = max(o.id for o in observations(record, archived=True))
    record.begin()
    table.delete(record, [newest])
    record.commit()
    Claude(tmp_path / "claude", "t").owner("Always tag a release before deploying it.")
    synced(record, tmp_path / "claude")
    observe(record)
    assert min(o.id for o in observations(record, archived=True) if o.id != newest) > 0
    assert all(o.id > newest for o in observations(record) if "tag a release" in o.text)
