"""The day's LLM token usage, kept under the record home so every process (CLI, MCP server) shares it.

`<record home>/llm_usage.json` holds tokens and calls per UTC day (the last 31 days). A call counts the
usage the endpoint reports; when it reports none, the estimate (prompt bytes / 4 + the reply's) counts
instead and the day says how many calls were estimated. Read-modify-write runs under an exclusive
lock on a sibling lock file, so two processes never lose each other's tokens.
"""

from __future__ import annotations

import json
import logging
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from total_recall.errors import LLMBudgetExceeded

USAGE_FILE = "llm_usage.json"
KEEP_DAYS = 31

log = logging.getLogger("total_recall.llm")


@dataclass(frozen=True, slots=True)
class Day:
    """One UTC day's usage."""

    day: str
    tokens: int
    calls: int
    estimated_calls: int


class DailyUsage:
    """The per-day token count and its cap."""

    def __init__(self, home: Path, cap: int, clock: Callable[[], float]) -> None:
        self.path = home / USAGE_FILE
        self.cap = cap
        self.clock = clock

    def today(self) -> Day:
        day = self._day()
        row = self._load().get(day, {})
        return Day(day, int(row.get("tokens", 0)), int(row.get("calls", 0)), int(row.get("estimated", 0)))

    def check(self, estimate: int) -> None:
        """Raises: LLMBudgetExceeded when this call would take today past the cap."""
        used = self.today().tokens
        if used + estimate > self.cap:
            raise LLMBudgetExceeded(
                f"today's LLM tokens ({used:,} used + ~{estimate:,} for this call) would pass the "
                f"per-day cap of {self.cap:,}: raise it with TOTAL_RECALL_LLM_MAX_DAY_TOKENS, or wait "
                "for the next UTC day"
            )

    def add(self, tokens: int, estimated: bool) -> Day:
        day = self._day()
        with self._locked():
            days = self._load()
            row = days.setdefault(day, {"tokens": 0, "calls": 0, "estimated": 0})
            row["tokens"] = int(row.get("tokens", 0)) + tokens
            row["calls"] = int(row.get("calls", 0)) + 1
            row["estimated"] = int(row.get("estimated", 0)) + (1 if estimated else 0)
            kept = dict(sorted(days.items())[-KEEP_DAYS:])
            tmp = self.path.with_suffix(".tmp")
            tmp.write_text(json.dumps({"days": kept}, indent=1), encoding="utf-8")
            tmp.chmod(0o600)
            os.replace(tmp, self.path)
        return Day(day, row["tokens"], row["calls"], row["estimated"])

    def _day(self) -> str:
        return datetime.fromtimestamp(self.clock(), UTC).strftime("%Y-%m-%d")

    def _load(self) -> dict[str, dict[str, Any]]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError):
            # A damaged usage file must not block the tools forever; it restarts the count, loudly.
            log.warning("%s is unreadable; the day's LLM usage restarts at 0", self.path)
            return {}
        days = data.get("days") if isinstance(data, dict) else None
        return {k: v for k, v in days.items() if isinstance(v, dict)} if isinstance(days, dict) else {}

    @contextmanager
    def _locked(self) -> Iterator[None]:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if sys.platform == "win32":  # no flock; a single user's processes rarely collide there
            yield
            return
        import fcntl

        with open(self.path.with_suffix(".lock"), "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)
