"""The table of operations: every user-facing thing Total Recall does, defined once.

The CLI (`surfaces/cli_ops.py`) and the MCP server (`surfaces/mcp.py`) register from `OPERATIONS`; an
operation's parameters, limits, defaults and errors are the same on both (see `ops/operation.py`).
"""

from __future__ import annotations

from typing import Any

from total_recall.ops.assets import OPERATIONS as _ASSETS
from total_recall.ops.finding import OPERATIONS as _FINDING
from total_recall.ops.keeping import OPERATIONS as _KEEPING
from total_recall.ops.mining import OPERATIONS as _MINING
from total_recall.ops.observing import OPERATIONS as _OBSERVING
from total_recall.ops.operation import GROUPS, Call, Effect, Operation, Params
from total_recall.ops.record import OPERATIONS as _RECORD
from total_recall.ops.summaries import OPERATIONS as _SUMMARIES

OPERATIONS: tuple[Operation[Any], ...] = (*_RECORD, *_FINDING, *_ASSETS, *_KEEPING, *_OBSERVING, *_MINING,
                                          *_SUMMARIES)


def by_name(name: str) -> Operation[Any]:
    """The operation called `name` (its canonical name, an MCP alias or its CLI command).

    Raises:
        KeyError: no operation has that name.
    """
    for op in OPERATIONS:
        if name in (op.name, op.command, *op.aliases):
            return op
    raise KeyError(name)


__all__ = ["GROUPS", "OPERATIONS", "Call", "Effect", "Operation", "Params", "by_name"]
