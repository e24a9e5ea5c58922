"""One reader per harness; each discovers sources under a root and streams them read-only."""

from __future__ import annotations

import importlib
import re
from functools import cache

from total_recall.errors import ConfigError
from total_recall.readers.base import Checkpoint, Cursor, Item, Line, Reader, Source

__all__ = ["READER_CLASSES", "Checkpoint", "Cursor", "Item", "Line", "Reader", "Source", "echo_label",
           "reader_for"]

# harness name -> (module, class); imported lazily so one broken optional reader cannot stop the rest.
READER_CLASSES: dict[str, tuple[str, str]] = {
    "claude-code": ("total_recall.readers.claude_code", "ClaudeCodeReader"),
    "codex": ("total_recall.readers.codex", "CodexReader"),
    "opencode": ("total_recall.readers.opencode", "OpenCodeReader"),
    "vibe": ("total_recall.readers.vibe", "VibeReader"),
    "openclaw": ("total_recall.readers.openclaw", "OpenClawReader"),
}


def reader_for(harness: str) -> Reader:
    """The reader of one harness.

    Raises:
        ConfigError: the harness name is unknown.
    """
    reader: Reader = _reader_class(harness)()
    return reader


@cache
def echo_label(harness: str) -> re.Pattern[str] | None:
    """The label of `harness`'s entries repeating a message after it (`Reader.echo`), or None (also for a
    harness no reader knows: a record may hold one a later version dropped, and its erase must go on)."""
    return _reader_class(harness).echo if harness in READER_CLASSES else None


def _reader_class(harness: str) -> type[Reader]:
    try:
        module_name, class_name = READER_CLASSES[harness]
    except KeyError:
        raise ConfigError(
            f"unknown harness {harness!r} (known: {', '.join(READER_CLASSES)})"
        ) from None
    cls: type[Reader] = getattr(importlib.import_module(module_name), class_name)
    return cls
