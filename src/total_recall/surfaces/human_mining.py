"""How the CLI shows the mining operations' replies without --json (see surfaces/human.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from total_recall.ops.operation import Reply

RENDERINGS: dict[str, Callable[[Reply, Any], str]] = {}
