"""The LLM-backed tools of seed 004 on the MCP server: the summary cache and the prior-period summary.

Thin typed wrappers over `mining/summaries.py`. The provider is built per call from the environment and
the record home's `llm.toml`, so a server started without a key serves every other tool, and these answer
a clear error naming what to set. `summary_cache` only reads; `summarise_from` and `prior_period_summary`
call the configured endpoint (open world); `cache_delete_latest` drops the newest cached block (logged).
"""

from __future__ import annotations

from typing import Annotated

from mcp.types import CallToolResult
from pydantic import Field

from total_recall.mining import summaries
from total_recall.mining.scope import HOURS_MAX
from total_recall.mining.summaries import PERIOD_HOURS_DEFAULT, resolve_target
from total_recall.surfaces.mcp import CALLS_OUT, DROPS, Binding, RecallServer, reply

SessionId = Annotated[str, Field(description=(
    "s7, a native session id, or a prefix or piece of one; empty: the most recently active session."))]


def register(server: RecallServer, binding: Binding) -> None:
    """Add the summary tools to `server`, each answering within `binding`."""

    @server.read_only
    def summary_cache(
        session_id: SessionId = "",
        with_text: Annotated[bool, Field(description="Include each block's summary text.")] = False,
    ) -> CallToolResult:
        """The summary blocks cached for a session, each naming the exact entry range it summarises, and
        the tail no block covers yet (what the next summarise_from would cost). Calls no LLM."""
        with binding.store() as store:
            number, _, _ = resolve_target(store, "summary_cache", session_id, binding.harness)
            return reply(summaries.summary_cache(store, session=number, with_text=with_text))

    @server.tool_with(CALLS_OUT)
    def summarise_from(
        target: Annotated[str, Field(description=(
            "A session (s7, a native id; empty: the most recent) to continue where its cache ends, the "
            "entry s7#41 to start at (it must be where the cache ends), or a range s7#41-80."))] = "",
        through: Annotated[int | None, Field(ge=1, description="Stop at this entry number.")] = None,
    ) -> CallToolResult:
        """Summarise a session from the first entry no cached block covers, with the configured LLM, and
        cache the result as the next block (every statement cites its entries; citations are checked
        against the record). Needs an LLM endpoint: the error names what to set when none is."""
        with binding.store() as store:
            number, first, last = resolve_target(store, "summarise_from", target, binding.harness)
            if through is None and last is not None and last != first:
                through = last  # a range address: summarise exactly that range
            return reply(summaries.summarise_from(store, session=number, from_seq=first, through=through))

    @server.tool_with(DROPS)
    def cache_delete_latest(
        session_id: SessionId = "",
        reason: Annotated[str, Field(max_length=500, description="Why (kept in the deletion log).")]
        = "deleted on request",
    ) -> CallToolResult:
        """Delete the newest cached summary block of a session (the deletion is logged), so summarise_from
        can redo that period. The record itself is never touched."""
        with binding.store() as store:
            number, _, _ = resolve_target(store, "cache_delete_latest", session_id, binding.harness)
            return reply(summaries.cache_delete_latest(store, session=number, reason=reason))

    @server.tool_with(CALLS_OUT)
    def prior_period_summary(
        hours_back: Annotated[float, Field(
            json_schema_extra={"minimum": 0, "maximum": HOURS_MAX}, description=(
                f"The last N hours (at most {HOURS_MAX}); 0 or omitted: {PERIOD_HOURS_DEFAULT}, never "
                "unbounded."))] = 0,
        all: Annotated[bool, Field(description="The whole record, on purpose; not with hours_back.")] = False,
        directory: Annotated[str, Field(description="Only sessions whose folder contains this.")] = "",
    ) -> CallToolResult:
        """Orient yourself in a past period across sessions: the sessions, the owner's instructions word for
        word and the commits straight from the record, then an LLM summary of the state and the goals,
        each statement cited. Needs an LLM endpoint: the error names what to set when none is."""
        with binding.store() as store:
            return reply(summaries.prior_period(store, hours_back=hours_back or None, all=all or None,
                                      directory=directory or None, harness=binding.harness))
