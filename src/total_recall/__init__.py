"""Total Recall: a memory for coding agents that keeps the exact words.

The library's entry points, for scripts that would rather call than shell out:

    from total_recall import Call, OPERATIONS, Record, by_name
    op = by_name("search")
    reply = op(Call(record_path, "cli"), query="TypeError: Cannot read")

Every operation of the CLI and the MCP server is in `OPERATIONS` (`total_recall.ops`), with its parameter
model and reply; `Record` is the record itself, `sync` brings it up to date, `search` and `read` find and
open entries by address. They are imported on first use, so `import total_recall` stays cheap (a hook
runs on every prompt).
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

# name → the module that defines it
_ENTRY_POINTS = {
    "OPERATIONS": "total_recall.ops",
    "Call": "total_recall.ops",
    "Operation": "total_recall.ops",
    "by_name": "total_recall.ops",
    "Record": "total_recall.record.database",
    "Address": "total_recall.model",
    "Entry": "total_recall.model",
    "Session": "total_recall.model",
    "Hit": "total_recall.model",
    "sync": "total_recall.syncing",
    "search": "total_recall.find.search",
    "read": "total_recall.record.reading",
    "record_home": "total_recall.config",
    "TotalRecallError": "total_recall.errors",
}

__all__ = [
    "OPERATIONS", "Address", "Call", "Entry", "Hit", "Operation", "Record", "Session", "TotalRecallError",
    "__version__", "by_name", "read", "record_home", "search", "sync",
]

if TYPE_CHECKING:
    from total_recall.config import record_home
    from total_recall.errors import TotalRecallError
    from total_recall.find.search import search
    from total_recall.model import Address, Entry, Hit, Session
    from total_recall.ops import OPERATIONS, Call, Operation, by_name
    from total_recall.record.database import Record
    from total_recall.record.reading import read
    from total_recall.syncing import sync


def __getattr__(name: str) -> Any:
    if (module := _ENTRY_POINTS.get(name)) is None:
        raise AttributeError(f"module 'total_recall' has no attribute {name!r}")
    return getattr(import_module(module), name)
