"""The LLM-backed tools through a real MCP client, against a real OpenAI-compatible stub on loopback: the
summary cache grows and shrinks block by block, and without a key they answer what to set while every
other tool keeps working."""

from __future__ import annotations

from typing import Any

from mcp.client.session import ClientSession

from tests.llm_stub import KEY, running_stub
from tests.test_mcp import Served, calls, payload, run_client, served, text

__all__ = ["served"]  # the fixture, imported for pytest

WRITING = {"summarise_from", "cache_delete_latest", "prior_period_summary"}


def test_the_summary_tools_say_what_they_do_in_their_annotations(served: Served) -> None:
    async def talk(session: ClientSession) -> Any:
        return {t.name: t for t in (await session.list_tools()).tools}

    tools = run_client(served, talk, "--no-sync")
    assert {"summary_cache", "llm_status", *WRITING} <= set(tools)
    assert tools["summary_cache"].annotations.read_only_hint is True
    assert tools["llm_status"].annotations.read_only_hint is True
    assert tools["llm_status"].annotations.open_world_hint is False
    assert tools["summarise_from"].annotations.open_world_hint is True
    assert tools["prior_period_summary"].annotations.open_world_hint is True
    assert tools["cache_delete_latest"].annotations.destructive_hint is True
    assert all(tools[n].annotations.read_only_hint is False for n in WRITING)


def test_summarise_from_caches_a_block_that_summary_cache_shows_and_delete_latest_drops(
        served: Served) -> None:
    with running_stub() as stub:
        served.env.update(stub.env())
        cached, made, status, dropped, after = calls(served, [
            ("summary_cache", {"session_id": "s1"}),
            ("summarise_from", {"target": "s1"}),
            ("summary_cache", {"session_id": "s1", "with_text": True}),
            ("cache_delete_latest", {"session_id": "s1", "reason": "redo"}),
            ("summary_cache", {"session_id": "s1"}),
        ])
    assert payload(cached)["blocks"] == []
    block = payload(made)
    assert block["session"] == "s1" and block["block"]["range"].startswith("s1#1-")
    assert len(stub.requests) == 1 and KEY not in text(made)
    shown = payload(status)["blocks"]
    assert [b["range"] for b in shown] == [block["block"]["range"]] and shown[0]["text"]
    assert payload(dropped)["deleted"]["range"] == block["block"]["range"]
    assert payload(after)["blocks"] == []


def test_prior_period_summary_takes_the_scope_contract(served: Served) -> None:
    with running_stub() as stub:
        served.env.update(stub.env())
        both, whole = calls(served, [
            ("prior_period_summary", {"all": True, "hours_back": 5}),
            ("prior_period_summary", {"all": True}),
        ])
    assert both.is_error and "pass one, not both" in text(both)
    assert "## Before you act" in payload(whole)["text"]


def test_without_a_key_the_llm_tools_name_what_to_set_and_the_rest_still_works(served: Served) -> None:
    summarised, listed = calls(served, [("summarise_from", {"target": "s1"}),
                                        ("summary_cache", {"session_id": "s1"})])
    assert summarised.is_error and "INCEPTION_API_KEY" in text(summarised)
    assert payload(listed)["session"] == "s1"


def test_llm_status_says_what_is_configured_and_today_s_usage_but_never_the_key(served: Served) -> None:
    (bare,) = calls(served, [("llm_status", {})])
    assert payload(bare)["configured"] is False and "no API key" in payload(bare)["problem"]
    with running_stub() as stub:
        served.env.update(stub.env())
        made, status = calls(served, [("summarise_from", {"target": "s1"}), ("llm_status", {})])
    assert not made.is_error
    got = payload(status)
    assert got["configured"] is True and got["key_set"] is True
    assert got["key_source"] == "TOTAL_RECALL_LLM_API_KEY" and got["today"]["calls"] == 1
    assert KEY not in text(status)


def test_a_refusal_names_the_parameter_and_a_bound_server_refuses_another_harness_s_target(
        served: Served) -> None:
    with served.open_record() as record:
        other = next(s for s in record.sessions() if s.harness != "codex")
    (through,) = calls(served, [("summarise_from", {"target": "s1", "through": 1_000_000})])
    assert through.is_error and "summarise_from: through=1000000 is outside s1#1-" in text(through)
    ranged, cached = calls(served, [("summarise_from", {"target": f"{other.address}#1-2"}),
                                    ("summary_cache", {"session_id": other.address})], "--harness", "codex")
    for refused in (ranged, cached):
        assert refused.is_error and f"{other.address} is a {other.harness} session" in text(refused)
        assert "bound to codex" in text(refused)
