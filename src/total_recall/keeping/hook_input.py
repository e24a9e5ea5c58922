"""The hook JSON a harness hands over on stdin: read, and checked before anything acts on it.

Both paths of `total-recall hook …` use it: the full one (`keeping/hooks.py`) and UserPromptSubmit's short
one (`surfaces/entry.py`), which runs before every prompt and so imports only what is loaded already
(`re`, `orjson`, the errors, `model.echoed`). A receipt is permanent (the record is append-only), so
nothing of any size, or of characters no harness sends, gets past `check_payload`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import orjson

from total_recall.errors import HookInputError
from total_recall.model import echoed

TRIGGERS = ("manual", "auto")
SESSION_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:-]{0,199}")  # UUIDs (both harnesses), `agent-…` ids
EVENT_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]{0,99}")
CONTROL = re.compile(r"[\x00-\x1f\x7f]")
PATH_CHARS = 4_096


def parse_payload(text: str) -> dict[str, Any]:
    """The hook JSON read from stdin (`read_json`), its fields checked (`check_payload`).

    Raises:
        HookInputError: it is not a JSON object, or a field the hook acts on is malformed.
    """
    payload = read_json(text)
    if not isinstance(payload, dict):
        raise HookInputError(f"stdin holds a JSON {type(payload).__name__}, not the hook's JSON object")
    check_payload(payload)
    return payload


def read_json(text: str) -> Any:
    """The JSON value of `text`, read as leniently as transcripts are: Node's JSON.stringify writes a lone
    surrogate escape (`"\\ud83d"`) for an emoji cut in half, which a strict parser refuses whole; it
    becomes U+FFFD (`readers.base.loads_lenient`, imported only then: it is heavier than the short path).

    Raises:
        HookInputError: `text` is empty or not JSON at all.
    """
    if not text.strip():
        raise HookInputError("stdin is empty: expected the hook's JSON object")
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        from total_recall.readers.base import loads_lenient

        try:
            # surrogatepass: a surrogate already in `text` (stdin decoded with surrogateescape) becomes
            # bytes that are not UTF-8, which loads_lenient replaces by U+FFFD in turn.
            value, _ = loads_lenient(text.encode("utf-8", "surrogatepass"))
        except ValueError as exc:
            raise HookInputError(f"stdin is not JSON ({exc}): expected the hook's JSON object") from None
        return value


def check_payload(payload: Mapping[str, Any]) -> None:
    """Refuse a payload the hook cannot rightly act on: a session id or event name no harness sends, a
    UserPromptSubmit without a `prompt` string, and for PreCompact (whose receipt is permanent) a mistyped
    `transcript_path`, `trigger` or `custom_instructions`. Other events' optional fields are checked where
    they are read: a mistyped one is ignored and named (`optional_text`).

    Raises:
        HookInputError: naming the field; nothing has been done.
    """
    for key in ("hook_event_name", "session_id"):
        if not isinstance(payload.get(key), str) or not payload[key]:
            raise HookInputError(f"the hook JSON has no {key!r} string: nothing done")
    event, native = payload["hook_event_name"], payload["session_id"]
    if not EVENT_NAME.fullmatch(event):
        raise HookInputError(f"the hook JSON's hook_event_name {echoed(event)} is not an event name: "
                             "nothing done")
    if not SESSION_ID.fullmatch(native):
        raise HookInputError(f"the hook JSON's session_id {echoed(native)} is not a harness session id (1 to "
                             "200 letters, digits, '.', '_', ':' or '-'): nothing done")
    if event == "UserPromptSubmit" and not isinstance(payload.get("prompt"), str):
        # Nothing to push without it: refused here, before the record is opened (or made).
        raise HookInputError(f"UserPromptSubmit's prompt {echoed(payload.get('prompt'))} is not text: "
                             "ignored, nothing pushed")
    if event != "PreCompact":
        return
    transcript = payload.get("transcript_path")
    if transcript is not None and path_text(transcript) is None:
        raise HookInputError(f"PreCompact's transcript_path {echoed(transcript)} is not a file path: "
                             "nothing done")
    if transcript is not None and is_path(transcript, Path.is_dir):
        raise HookInputError(f"PreCompact's transcript_path {echoed(transcript)} names a folder, not a "
                             "transcript file: nothing done")
    if payload.get("trigger") not in TRIGGERS:
        raise HookInputError(f"PreCompact's trigger {echoed(payload.get('trigger'))} is not 'manual' or "
                             "'auto': nothing done")
    custom = payload.get("custom_instructions")
    if custom is not None and not isinstance(custom, str):
        raise HookInputError(f"PreCompact's custom_instructions {echoed(custom)} is not text: nothing done")


def path_text(value: object) -> str | None:
    """`value` when it reads as a path a harness sends (bounded text, no control characters), else None."""
    if not isinstance(value, str) or not value or len(value) > PATH_CHARS or CONTROL.search(value):
        return None
    return value


def is_path(path: str, test: Callable[[Path], bool]) -> bool:
    """`test` (Path.is_file, Path.is_dir) of `path`, `~` expanded; False for a path that cannot be read."""
    try:
        return bool(test(Path(path).expanduser()))
    except (OSError, RuntimeError, ValueError):  # `~nouser`, a name too long: it names nothing here
        return False


def optional_text(payload: Mapping[str, Any], key: str, log: list[str], effect: str) -> str | None:
    """An optional text field of a payload: None when absent; a mistyped one is ignored and named in
    `log` (the hook goes on without it, as the contract allows)."""
    value = payload.get(key)
    if value is None:
        return None
    if path_text(value) is None:
        log.append(f"{payload['hook_event_name']}: {key} {echoed(value)} is not a non-empty string of at "
                   f"most {PATH_CHARS:,} characters: ignored ({effect})")
        return None
    return str(value)
