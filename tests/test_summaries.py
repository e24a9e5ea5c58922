"""The summary cache and the prior-period summary over the demo record, against a loopback LLM stub."""

from __future__ import annotations

import json
import re
import shlex
import shutil
import sqlite3
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from tests.llm_stub import KEY, Reply, Stub, completion, running_stub
from tests.mining_stores import RECENT, mined_record
from total_recall.config import demo_roots
from total_recall.errors import ConfigError, LLMNotConfigured, ScopeError, SummaryCacheError
from total_recall.llm.provider import Provider
from total_recall.mining import summaries
from total_recall.mining.summaries import (
    cache_delete_latest,
    prior_period_summary,
    summarise_from,
    summary_cache,
)
from total_recall.model import Address
from total_recall.ops import by_name
from total_recall.record import summary_blocks as ledger
from total_recall.record.database import Record
from total_recall.record.sync import sync
from total_recall.surfaces.cli import cli

CLAUDE_SESSION = "a2ac77fd-36c6-4c2a-b238-f89b35daa570"


@pytest.fixture
def roots(tmp_path: Path) -> dict[str, Path]:
    """A scratch copy of the demo store (so a test can grow a session), as sync roots."""
    out = {}
    for harness, path in demo_roots().items():
        copy = tmp_path / "store" / harness
        shutil.copytree(path, copy)
        out[harness] = copy
    return out


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "home"


@pytest.fixture
def record(home: Path, roots: dict[str, Path]) -> Iterator[Record]:
    s = Record(home / "record.sqlite3")
    assert sync(s, list(roots), roots=roots).errors == []
    yield s
    s.close()


@pytest.fixture
def stub() -> Iterator[Stub]:
    with running_stub() as s:
        yield s


@pytest.fixture
def llm(stub: Stub, home: Path) -> Callable[..., Provider]:
    def make(**env: str) -> Provider:
        return Provider.from_env(home=home, env=stub.env(**env), sleep=lambda _: None)

    return make


def said(text: str) -> Reply:
    return Reply(body=completion(text, {"prompt_tokens": 900, "completion_tokens": 120}))


# -- summary_cache --

def test_an_uncached_session_has_no_blocks_and_its_whole_length_as_tail(record: Record) -> None:
    status = summary_cache(record, session=1)
    assert status["blocks"] == [] and status["through"] is None
    tail = status["tail"]
    assert (tail["from"], tail["to"], tail["count"]) == ("s1#1", "s1#90", 90)
    assert sum(tail["counts"].values()) == 90
    assert tail["tokens_est"] == (tail["chars"] + 3) // 4
    assert status["next"] == "s1#1"


# -- summarise_from --

def test_summarise_from_caches_a_block_over_the_tail_and_returns_every_part_composed(
        record: Record, stub: Stub, llm: Callable[..., Provider]) -> None:
    stub.script(said("- Instructions: “Never restart the production database during the day.” (s1#4)\n"
                     "- Done: renewed the cert (s1#47-50); committed 7b1e0c4 (s1#57)"))
    reply = summarise_from(record, session=1, provider=llm())
    assert reply["block"]["range"] == "s1#1-90"
    assert reply["block"]["tokens"] == {"prompt": 900, "completion": 120, "reported": True}
    assert reply["block"]["unverified"] == []
    text = reply["text"]
    assert "### part 1: 2026-11-16T14:02:11.318Z → 2026-11-16T18:49:46.549Z (s1#1-90)" in text
    assert "committed 7b1e0c4 (s1#57)" in text
    assert text.rstrip().endswith("summary cache: 1 block covers s1#1-90; every entry is covered")
    assert reply["cache"]["tail"] is None and reply["cache"]["through"] == "s1#90"
    prompt = stub.prompt()
    assert "[s1#4 · owner · message · 2026-11-16T14:02:55]" in prompt
    assert "permission-mode" not in prompt  # metadata is counted in the block, not shown to the model
    assert summary_cache(record, session=1)["blocks"][0]["range"] == "s1#1-90"
    # what a listing row carries: where the cache ends, so a caller knows where summarise_from starts
    assert ledger.markers(record, [1, 2]) == {
        1: {"through": "s1#90", "through_ts": "2026-11-16T18:49:46.549Z", "blocks": 1}}


def test_the_next_summarise_starts_where_the_last_block_ended_and_builds_on_it(
        record: Record, stub: Stub, llm: Callable[..., Provider]) -> None:
    stub.script(said("- Done: found the ACME location was lost in a8d41b7 (s1#23)"),
                said("- Done: committed the fix (s1#57), building on the cause found earlier (s1#23)"))
    first = summarise_from(record, session=1, through=40, provider=llm())
    assert first["cache"]["tail"]["from"] == "s1#41"
    second = summarise_from(record, session=1, provider=llm())
    assert second["block"]["range"] == "s1#41-90"
    assert second["block"]["unverified"] == []  # s1#23 was shown as part of the earlier block
    prompt = stub.prompt(1)
    assert "Earlier blocks of this summary" in prompt
    assert "found the ACME location was lost in a8d41b7 (s1#23)" in prompt
    assert "Summarise entries s1#41-90" in prompt
    assert "[s1#41 · " in prompt and "[s1#40 · " not in prompt
    text = second["text"]
    assert text.index("### part 1:") < text.index("### part 2:")
    assert "(s1#1-40)" in text and "(s1#41-90)" in text


def test_entries_synced_after_the_last_block_become_the_tail_the_next_summarise_covers(
        record: Record, stub: Stub, llm: Callable[..., Provider], roots: dict[str, Path]) -> None:
    summarise_from(record, session=1, provider=llm())
    source = roots["claude-code"] / "-srv-webshop" / f"{CLAUDE_SESSION}.jsonl"
    line = {"parentUuid": "a69948fb-aff8-474b-b1b9-397963c347f9", "isSidechain": False, "type": "user",
            "message": {"role": "user", "content": "Next morning: rotate staging-01 today, please."},
            "uuid": "0b0b0b0b-0000-4000-8000-000000000001", "timestamp": "2026-11-17T09:00:00.000Z",
            "cwd": "/srv/webshop", "sessionId": CLAUDE_SESSION, "userType": "external"}
    with source.open("a", encoding="utf-8") as f:
        f.write(json.dumps(line) + "\n")
    assert sync(record, ["claude-code"], roots=roots).errors == []
    tail = summary_cache(record, session=1)["tail"]
    assert tail["from"] == "s1#91" and tail["count"] == 1 and tail["counts"]["owner"] == 1
    stub.script(said("- Instructions: “rotate staging-01 today, please.” (s1#91)"))
    reply = summarise_from(record, session=1, provider=llm())
    assert reply["block"]["range"] == "s1#91-91"
    assert reply["cache"]["tail"] is None


def test_a_from_address_off_the_chain_is_refused_naming_the_one_expected(
        record: Record, stub: Stub, llm: Callable[..., Provider]) -> None:
    with pytest.raises(SummaryCacheError, match=r"s1 has no cached blocks, so the next block starts at s1#1"):
        summarise_from(record, session=1, from_seq=5, provider=llm())
    summarise_from(record, session=1, through=40, provider=llm())
    with pytest.raises(SummaryCacheError, match=r"ends at s1#40, so the next block starts at s1#41"):
        summarise_from(record, session=1, from_seq=30, provider=llm())
    with pytest.raises(SummaryCacheError, match=r"through=95 is outside s1#41-90"):
        summarise_from(record, session=1, through=95, provider=llm())
    assert len(stub.requests) == 1


def test_a_tail_of_only_harness_metadata_is_not_sent_to_the_model(
        record: Record, stub: Stub, llm: Callable[..., Provider]) -> None:
    summarise_from(record, session=1, through=87, provider=llm())
    with pytest.raises(SummaryCacheError, match=r"s1#88-90 holds only harness metadata"):
        summarise_from(record, session=1, provider=llm())
    assert len(stub.requests) == 1


def test_a_session_already_covered_has_nothing_to_summarise(
        record: Record, stub: Stub, llm: Callable[..., Provider]) -> None:
    summarise_from(record, session=2, provider=llm())
    with pytest.raises(SummaryCacheError, match=r"nothing to summarise .* covered through s2#6"):
        summarise_from(record, session=2, provider=llm())


def test_cited_addresses_the_record_lacks_or_the_model_never_saw_are_flagged(
        record: Record, stub: Stub, llm: Callable[..., Provider]) -> None:
    stub.script(said("- Done: renewed (s1#47), audited (s2#3), invented (s1#999), elsewhere (s7#1), "
                     "peeked ahead (s1#60), backwards (s1#9-5)"))
    block = summarise_from(record, session=1, through=50, provider=llm())["block"]
    flagged = {u["address"]: u["why"] for u in block["unverified"]}
    assert flagged == {
        "s2#3": "not among the entries the model was shown",
        "s1#999": "no such entry (s1 has 90 entries)",
        "s7#1": "no session s7 in the record",
        "s1#60": "not among the entries the model was shown",
        "s1#9-5": "no such entry (s1 has 90 entries)",
    }
    status = summary_cache(record, session=1)
    assert status["blocks"][0]["unverified"] == block["unverified"]


def test_secrets_in_the_session_are_redacted_before_the_prompt_leaves(
        record: Record, stub: Stub, llm: Callable[..., Provider], roots: dict[str, Path]) -> None:
    source = roots["claude-code"] / "-srv-webshop" / f"{CLAUDE_SESSION}.jsonl"
    secret = "sk-proj-AbCdEfGhIjKlMnOpQrStUvWx0123"
    line = {"parentUuid": "a69948fb-aff8-474b-b1b9-397963c347f9", "type": "user",
            "message": {"role": "user", "content": f"use OPENAI_API_KEY={secret} for the test"},
            "uuid": "0b0b0b0b-0000-4000-8000-000000000002", "timestamp": "2026-11-17T09:00:00.000Z",
            "sessionId": CLAUDE_SESSION}
    with source.open("a", encoding="utf-8") as f:
        f.write(json.dumps(line) + "\n")
    sync(record, ["claude-code"], roots=roots)
    summarise_from(record, session=1, provider=llm())
    assert secret not in stub.prompt()
    assert "OPENAI_API_KEY=[REDACTED:api-key]" in stub.prompt()


def test_a_prompt_over_the_budget_drops_the_middle_with_a_marker_and_the_block_says_so(
        record: Record, stub: Stub, llm: Callable[..., Provider]) -> None:
    reply = summarise_from(record, session=1, provider=llm(TOTAL_RECALL_LLM_PROMPT_BYTES="9000"))
    prompt = stub.prompt()
    assert len(prompt.encode()) <= 9000
    assert reply["prompt"]["dropped"] > 0 and reply["block"]["dropped_entries"] == reply["prompt"]["dropped"]
    ranges = reply["prompt"]["dropped_ranges"]
    assert f"entries ({reply['prompt']['dropped_bytes']:,} bytes: {ranges[0]}) dropped to fit" in prompt
    assert "[s1#4 · owner" in prompt  # the opening (the task) is kept
    assert "[s1#87 · agent · message" in prompt  # and the newest (s1#88-90 are metadata)
    assert any("did not fit" in n for n in reply["notices"])
    assert "written without" in reply["text"]


def test_a_prompt_budget_too_small_for_one_entry_is_refused_naming_the_variable(
        record: Record, stub: Stub, llm: Callable[..., Provider]) -> None:
    with pytest.raises(ConfigError, match="cannot hold even one of them: raise TOTAL_RECALL_LLM_PROMPT"):
        summarise_from(record, session=1, provider=llm(TOTAL_RECALL_LLM_PROMPT_BYTES="1500"))
    assert stub.requests == [] and summary_cache(record, session=1)["blocks"] == []


# -- cache_delete_latest --

def test_cache_delete_latest_drops_only_the_newest_block_and_logs_each_deletion(
        record: Record, stub: Stub, llm: Callable[..., Provider]) -> None:
    summarise_from(record, session=1, through=40, provider=llm())
    summarise_from(record, session=1, provider=llm())
    status = cache_delete_latest(record, session=1, reason="the model missed the rollback")
    assert status["deleted"]["range"] == "s1#41-90"
    assert [b["range"] for b in status["blocks"]] == ["s1#1-40"]
    assert status["tail"]["from"] == "s1#41" and status["deletions"] == 1
    assert cache_delete_latest(record, session=1)["blocks"] == []
    with pytest.raises(SummaryCacheError, match="s1 has no cached summary blocks: nothing to delete"):
        cache_delete_latest(record, session=1)
    log = ledger.deletions(record, 1)
    assert [(d["range"], d["reason"]) for d in log] == [
        ("s1#41-90", "the model missed the rollback"), ("s1#1-40", "deleted on request")]


def test_the_record_itself_refuses_a_gap_in_the_chain_an_edit_or_deleting_an_older_block(
        record: Record, stub: Stub, llm: Callable[..., Provider]) -> None:
    summarise_from(record, session=1, through=40, provider=llm())
    summarise_from(record, session=1, provider=llm())
    older = ledger.blocks(record, 1)[0]
    with pytest.raises(sqlite3.IntegrityError, match="only the newest summary block may be deleted"):
        record.execute("DELETE FROM summary_blocks WHERE id = ?", (older.id,))
    with pytest.raises(sqlite3.IntegrityError, match="never edited"):
        record.execute("UPDATE summary_blocks SET text = 'better' WHERE id = ?", (older.id,))
    with pytest.raises(sqlite3.IntegrityError, match="starts where the last one ended"):
        record.execute(
            "INSERT INTO summary_blocks(session, first_seq, last_seq, owner, agent, tool, thinking, harness, "
            "chars, tokens_est, provider, model, prompt_tokens, completion_tokens, usage_reported, "
            "prompt_bytes, dropped_entries, dropped_bytes, text, created) "
            "VALUES (2, 3, 6, 0, 0, 0, 0, 0, 0, 0, 'p', 'm', 0, 0, 0, 0, 0, 0, 't', 'now')")
    cache_delete_latest(record, session=1)
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        record.execute("DELETE FROM summary_deletions")
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        record.execute("UPDATE summary_deletions SET reason = 'nothing happened'")


def test_a_part_whose_entries_were_erased_after_it_was_written_is_withheld(
        record: Record, stub: Stub, llm: Callable[..., Provider]) -> None:
    quoted = "- Instructions: “one rule: Never restart the production database during the day.” (s1#4)"
    stub.script(said(quoted), said("- later (s1#57)"))
    summarise_from(record, session=1, through=40, provider=llm())
    record.erase(Address(1, 4, 4), "pasted a customer's phone number")
    status = summary_cache(record, session=1, with_text=True)
    assert status["blocks"][0]["erased_since"] == ["s1#4"] and status["blocks"][0]["text"] is None
    reply = summarise_from(record, session=1, provider=llm())
    assert quoted not in stub.prompt(1)
    assert "[summary withheld: s1#4 was erased after this part was written" in reply["text"]
    assert quoted not in reply["text"]


# -- no key --

def test_with_no_key_the_llm_tools_name_what_to_set_and_the_cache_tools_keep_working(record: Record) -> None:
    with pytest.raises(LLMNotConfigured, match=r"set INCEPTION_API_KEY .*TOTAL_RECALL_LLM_PRESET"):
        summarise_from(record, session=1)
    with pytest.raises(LLMNotConfigured, match="INCEPTION_API_KEY"):
        prior_period_summary(record, since=None)
    assert summary_cache(record, session=1)["tail"]["count"] == 90
    with pytest.raises(SummaryCacheError, match="nothing to delete"):
        cache_delete_latest(record, session=1)


# -- prior_period_summary --

def test_prior_period_summary_puts_ground_truth_first_the_summary_in_the_middle_and_the_warning_last(
        record: Record, stub: Stub, llm: Callable[..., Provider]) -> None:
    stub.script(said("## State\nThe cert is renewed (s1#51).\n## Goals, tasks and steers\n"
                     "Rotate staging (s3#6); cites a ghost (s3#400)."))
    reply = prior_period_summary(record, since=datetime(2026, 11, 16, tzinfo=UTC),
                                 until=datetime(2026, 11, 21, tzinfo=UTC), provider=llm())
    text = reply["text"]
    order = ["<!-- prior_period_summary", "## Sessions in the period", "## The owner's instructions",
             "## Commits, pushes and tags", "## Summary (written by stub-model", "## Compaction points",
             "## Before you act"]
    positions = [text.index(h) for h in order]
    assert positions == sorted(positions)
    assert "- s1#45 (2026-11-16T14:28): “Yes, renew for real, but without --force-renewal" in text
    assert "s1#57 (2026-11-16T14:36) git commit:" in text
    assert "- s1#67 (" in text  # the compaction boundary
    assert "| s3#" in text and "| s1#" in text and "| s2#" in text
    assert reply["sessions"] == ["s3", "s1", "s2"]  # most recently active first
    assert reply["unverified"] == [{"address": "s3#400", "why": "no such entry (s3 has 52 entries)"}]
    assert "⚠ unverified citations: s3#400" in text


def test_prior_period_summary_holds_its_prompt_to_the_byte_budget_and_names_what_it_dropped(
        record: Record, stub: Stub, llm: Callable[..., Provider]) -> None:
    reply = prior_period_summary(record, since=None, provider=llm(TOTAL_RECALL_LLM_PROMPT_BYTES="12000"))
    prompt = stub.prompt()
    assert len(prompt.encode()) <= 12000
    assert reply["prompt"]["bytes"] <= 12000 and reply["prompt"]["dropped"] > 0
    assert "dropped to fit the" in prompt and "did not fit the prompt" in reply["text"]
    assert "[s3#50 · agent · message" in prompt  # the newest work is kept (s3#51-52 are metadata)


def test_prior_period_summary_replays_the_todo_edits_of_the_period_in_every_harness_s_spelling(
        tmp_path: Path, stub: Stub) -> None:
    with mined_record(tmp_path / "mined") as mined:
        provider = Provider.from_env(home=tmp_path / "mined", env=stub.env(), sleep=lambda _: None)
        reply = prior_period_summary(mined.record, since=mined.started - timedelta(minutes=5),
                                     provider=provider)
        text = reply["text"]
        todo = text[text.index("## Todo log of the period"):text.index("## Summary")]
        claude = mined.session("claude-code", RECENT["claude-code"])
        assert f"- {claude}#" in todo and "added: “write the changelog”" in todo
        assert "completed: “write the changelog”" in todo and "completed: “tag v1.2”" in todo
        assert "Opened " in todo and "closed " in todo
        assert "git tag" in text and "git commit" in text  # GIT_COMMAND is in the commits section
        vibe = mined.session("vibe", RECENT["vibe"])  # Vibe entries carry no time: placed by the session's
        assert f"| {vibe}#1-" in text and f"- {vibe}#" in todo
        assert mined.stores.digest() == mined.digest  # the stores are never written


def test_a_window_larger_than_the_read_bound_reads_the_newest_sessions_and_says_what_it_held_back(
        record: Record, stub: Stub, llm: Callable[..., Provider], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(summaries, "MAX_WINDOW_ENTRIES", 100)
    reply = prior_period_summary(record, since=None, provider=llm())
    assert reply["entries"] <= 100 and reply["held_back"] > 0
    assert f"{reply['held_back']:,} older entries of the period were not read" in reply["text"]
    assert "[s3#50 · agent · message" in stub.prompt()  # the most recent session is read first


def test_a_window_with_no_entries_or_backwards_is_refused_naming_the_cheap_forms(
        record: Record, llm: Callable[..., Provider]) -> None:
    with pytest.raises(ScopeError, match=r"no entries between .* widen `hours_back`"):
        prior_period_summary(record, since=datetime(2030, 1, 1, tzinfo=UTC),
                             until=datetime(2030, 1, 2, tzinfo=UTC), provider=llm())
    with pytest.raises(ScopeError, match=r"ends .* before it starts"):
        prior_period_summary(record, since=datetime(2026, 11, 17, tzinfo=UTC),
                             until=datetime(2026, 11, 16, tzinfo=UTC), provider=llm())
    with pytest.raises(ScopeError, match="no entries"):
        prior_period_summary(record, since=None, directory="/nowhere", provider=llm())


# -- the CLI --

def test_the_cli_summarises_shows_and_rolls_back_the_cache_and_exits_2_on_refusals(
        record: Record, stub: Stub, home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in stub.env().items():
        monkeypatch.setenv(name, value)
    runner = CliRunner()

    def run(*args: str) -> tuple[int, str, str]:
        result = runner.invoke(cli, ["--home", str(home), *args])
        return result.exit_code, result.stdout, result.stderr

    code, out, _ = run("summarise-from", "s1", "--json")
    assert code == 0 and json.loads(out)["block"]["range"] == "s1#1-90"
    code, out, _ = run("summary-cache", CLAUDE_SESSION[:8], "--json")
    assert code == 0 and [b["range"] for b in json.loads(out)["blocks"]] == ["s1#1-90"]
    code, out, _ = run("summary-cache", "s1")
    assert code == 0 and "block s1#1-90" in out and "tail: none" in out
    code, _, err = run("summarise-from", "s1#5")
    assert code == 2 and "next block starts at s1#91" in err
    code, out, _ = run("cache-delete-latest", "s1", "--reason", "redo")
    assert code == 0 and "deleted block s1#1-90 (redo)" in out
    code, _, err = run("cache-delete-latest", "s1")
    assert code == 2 and "nothing to delete" in err
    code, out, _ = run("summarise-from", "s1#1-40")
    assert code == 0 and "### part 1:" in out and "(s1#1-40)" in out
    code, out, _ = run("prior-period-summary", "--all")
    assert code == 0 and "## Before you act" in out
    code, _, err = run("prior-period-summary", "--all", "--hours", "5")
    assert code == 2 and "pass one, not both" in err
    code, out, _ = run("llm-status", "--json")
    status = json.loads(out)
    assert code == 0 and status["configured"] and status["key_source"] == "TOTAL_RECALL_LLM_API_KEY"
    assert status["today"]["calls"] == 3
    code, out, _ = run("llm-status")
    assert code == 0 and "set (from TOTAL_RECALL_LLM_API_KEY)" in out
    assert all(KEY not in r for r in (out, json.dumps(status)))


def test_the_cli_llm_commands_without_a_key_exit_2_naming_what_to_set(record: Record, home: Path) -> None:
    runner = CliRunner()
    result = runner.invoke(cli, ["--home", str(home), "summarise-from", "s1"])
    assert result.exit_code == 2 and "set INCEPTION_API_KEY" in result.stderr
    result = runner.invoke(cli, ["--home", str(home), "llm-status"])
    assert result.exit_code == 0 and "configured: no — no API key" in result.stdout
    result = runner.invoke(cli, ["--home", str(home), "summary-cache", "s1", "--json"])
    assert result.exit_code == 0 and json.loads(result.stdout)["tail"]["count"] == 90


def test_the_cli_takes_a_range_by_the_session_s_own_id_shows_block_text_and_keeps_the_reason(
        record: Record, stub: Stub, home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in stub.env().items():
        monkeypatch.setenv(name, value)
    stub.script(said("- Done: found the cause (s1#23)\n- Open: the rollback"))
    runner = CliRunner()

    def run(*args: str) -> tuple[int, str, str]:
        result = runner.invoke(cli, ["--home", str(home), *args])
        return result.exit_code, result.stdout, result.stderr

    code, out, _ = run("summarise-from", f"{CLAUDE_SESSION[:8]}#1-40", "--json")
    assert code == 0 and json.loads(out)["block"]["range"] == "s1#1-40"
    code, out, _ = run("summary-cache", "s1", "--text")
    assert code == 0 and "  block s1#1-40" in out
    assert "\n    - Done: found the cause (s1#23)\n    - Open: the rollback\n" in out
    assert "  tail  s1#41-90: 50 entries" in out
    code, out, _ = run("cache-delete-latest", "s1", "--json")
    deleted = json.loads(out)
    assert code == 0 and deleted["deleted"]["range"] == "s1#1-40"
    assert deleted["reason"] == "deleted on request"
    code, _, err = run("summarise-from", "s1#x")
    assert code == 2 and "summarise-from: `TARGET` not an address: 's1#x'" in err


def test_the_cli_words_a_refusal_with_its_flags(record: Record, home: Path) -> None:
    result = CliRunner().invoke(cli, ["--home", str(home), "summarise-from", "s1", "--through", "95"])
    assert result.exit_code == 2
    assert "summarise-from: --through 95 is outside s1#1-90 (s1 has 90 entries)" in result.stderr
    result = CliRunner().invoke(cli, ["--home", str(home), "prior-period-summary", "--all", "--hours", "5"])
    assert result.exit_code == 2 and "--all is the whole record and --hours 5 is a window" in result.stderr


def test_prior_period_summary_s_default_window_is_the_last_240_hours(record: Record, home: Path) -> None:
    result = CliRunner().invoke(cli, ["--home", str(home), "prior-period-summary", "--directory", "/nowhere"])
    assert result.exit_code == 2
    window = re.search(r"no entries between (\S+) and (\S+) in folders", result.stderr)
    assert window is not None, result.stderr
    since, until = (datetime.fromisoformat(t) for t in window.groups())
    assert until - since == timedelta(hours=240)
    assert "240 hours" in CliRunner().invoke(cli, ["prior-period-summary", "--help"]).stdout


def test_a_range_must_start_where_the_cache_ends_and_the_refusal_names_the_range_as_typed(
        record: Record, stub: Stub, home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in stub.env().items():
        monkeypatch.setenv(name, value)

    def run(*args: str) -> tuple[int, str, str]:
        result = CliRunner().invoke(cli, ["--home", str(home), *args])
        return result.exit_code, result.stdout, result.stderr

    code, _, err = run("summarise-from", "s1#41-60")
    assert code == 2 and "summarise-from s1#41-60: s1 has no cached blocks, so the next block starts at " \
                         "s1#1 — a block continues the cache: pass s1#1-60 (or the session alone)" in err
    code, _, err = run("summarise-from", "s1#1-95")
    assert code == 2 and "summarise-from s1#1-95: s1 has 90 entries, so a block from s1#1 ends at s1#90 " \
                         "at the latest" in err
    assert "--through" not in err and "through=" not in err
    code, _, err = run("summarise-from", "s1#1-40", "--through", "30")
    assert code == 2 and "`TARGET` names a range and `--through` its end — pass one, not both" in err
    assert not stub.requests
    code, out, _ = run("summarise-from", "s1#1-40", "--json")
    assert code == 0 and json.loads(out)["block"]["range"] == "s1#1-40"
    code, out, _ = run("summarise-from", "s1#41-60", "--json")  # where the cache now ends: just that range
    assert code == 0 and json.loads(out)["block"]["range"] == "s1#41-60"
    code, out, _ = run("summarise-from", "s1#61-63", "--json")
    assert code == 0 and json.loads(out)["block"]["range"] == "s1#61-63"
    code, out, _ = run("summarise-from", "s1#64-64", "--json")  # a range of one entry is a block of one
    assert code == 0 and json.loads(out)["block"]["range"] == "s1#64-64"


def help_example_on_the_demo(operation: str, stub: Stub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                             ) -> tuple[list[str], Result]:
    """The words of `operation`'s help example, and what running them on a synced demo record with the
    stub model gave (exit 0)."""
    for name, value in stub.env().items():
        monkeypatch.setenv(name, value)
    home = tmp_path / "demo"
    assert CliRunner().invoke(cli, ["--home", str(home), "--demo", "sync"]).exit_code == 0
    words = shlex.split(by_name(operation).example)[1:]
    result = CliRunner().invoke(cli, ["--home", str(home), "--demo", *words, "--json"])
    assert result.exit_code == 0, result.stderr
    return words, result


def test_the_help_s_range_example_summarises_that_range_on_the_demo(
        stub: Stub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    words, result = help_example_on_the_demo("summarise_from", stub, tmp_path, monkeypatch)
    assert json.loads(result.stdout)["block"]["range"] == words[1] == "s3#1-40"


def test_the_help_s_prior_period_example_summarises_the_demo_s_last_days_and_says_whence_it_counts(
        stub: Stub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _, result = help_example_on_the_demo("prior_period_summary", stub, tmp_path, monkeypatch)
    reply = json.loads(result.stdout)
    assert reply["window"]["until"] == "2026-11-20T09:14:28Z" and reply["sessions"] == ["s3"]
    assert "counts back from its newest entry, 2026-11-20T09:14:28Z, not from now" in result.stderr
