"""The summaries operations."""

from __future__ import annotations

from typing import Any

from total_recall.ops.operation import Operation

OPERATIONS: tuple[Operation[Any], ...] = ()
