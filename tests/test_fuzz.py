"""Fuzzed and malformed inputs never crash a sync: every reader meets random shapes and broken bytes."""

from __future__ import annotations

import shutil
import sqlite3
import tempfile
from pathlib import Path
from typing import Any

import orjson
import zstandard
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import SESSIONS
from tests.stores import build_opencode_db
from total_recall.model import EntryDraft, ReadWarning
from total_recall.readers import Cursor, reader_for
from total_recall.record.database import Record
from total_recall.record.sync import sync

# Keys every format uses, so random objects reach deep into the readers' branches.
KEYS = [
    "type", "uuid", "parentUuid", "sessionId", "message", "content", "role", "text", "id", "parentId",
    "payload", "timestamp", "tool_use_id", "name", "input", "arguments", "call_id", "output", "isMeta",
    "isSidechain", "isCompactSummary", "subtype", "logicalParentUuid", "compactMetadata", "summary",
    "cwd", "source", "tool_calls", "function", "tool_call_id", "injected", "reasoning_content",
    "message_id", "thinking", "toolCallId", "toolName", "details", "replacement_history", "attachment",
    "rendered", "data", "parts", "state", "status", "version", "record_type", "instructions", "aiTitle",
]
TYPES = ["user", "assistant", "system", "summary", "session_meta", "response_item", "event_msg",
         "compacted", "turn_context", "message", "function_call", "function_call_output", "reasoning",
         "session", "compaction", "toolResult", "toolCall", "text", "tool_use", "tool_result", "image",
         "attachment", "progress", "ai-title", "custom_tool_call", "local_shell_call", "user_message"]

scalars = st.one_of(st.none(), st.booleans(), st.integers(-(2**40), 2**40), st.floats(allow_nan=False),
                    st.text(max_size=30), st.sampled_from(TYPES))
json_values = st.recursive(
    scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.dictionaries(st.sampled_from(KEYS), children, max_size=6),
    ),
    max_leaves=25,
)
records = st.dictionaries(st.sampled_from(KEYS), json_values, max_size=8).map(
    lambda d: d if "type" in d else {**d, "type": "user"}
)
lines = st.one_of(
    records.map(orjson.dumps),
    st.binary(max_size=60),
    records.map(lambda r: orjson.dumps(r)[: max(1, len(orjson.dumps(r)) // 2)]),
)


# Lines a strict parser refuses but whose text can be kept, and reused ids with other text.
def _mangle(record: dict[str, Any], how: str) -> bytes:
    raw = orjson.dumps(record)
    if how == "bom":
        return b"\xef\xbb\xbf" + raw
    if how == "surrogate":
        return raw.replace(b"{", b'{"text":"lone \\udc00 here",', 1)
    if how == "latin1":
        return raw.replace(b"{", b'{"text":"caf\xe9",', 1)
    return raw


mangled = st.builds(_mangle, records, st.sampled_from(["bom", "surrogate", "latin1", "plain"]))
reused = st.builds(lambda r, text: orjson.dumps(
    {**r, "uuid": "same-uuid", "id": "same-id", "message_id": "same-mid", "text": text}),
                   records, st.text(max_size=10))
any_lines = st.one_of(lines, mangled, reused)

LAYOUT = {
    "claude-code": "projects/-x/11111111-2222-4333-8444-555555555555.jsonl",
    "codex": "sessions/2026/01/01/rollout-2026-01-01T00-00-00-11111111-2222-4333-8444-555555555555.jsonl",
    "vibe": "session_20260101_000000_11111111/messages.jsonl",
    "openclaw": "agents/main/sessions/11111111-2222-4333-8444-555555555555.jsonl",
}


def sync_one(harness: str, root: Path, home: Path) -> Any:
    with Record(home / "record.sqlite3") as record:
        return sync(record, [harness], roots={harness: root})


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(harness=st.sampled_from(sorted(LAYOUT)), body=st.lists(any_lines, min_size=1, max_size=12))
def test_random_lines_in_any_jsonl_store_never_crash_a_sync(harness: str, body: list[bytes]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "root"
        path = root / LAYOUT[harness]
        path.parent.mkdir(parents=True)
        path.write_bytes(b"\n".join(body) + b"\n")
        if harness == "vibe":
            (path.parent / "meta.json").write_bytes(orjson.dumps({"session_id": "x", "title": 7}))
        report = sync_one(harness, root, Path(tmp))
        assert report.errors == []
        again = sync_one(harness, root, Path(tmp))
        assert again.entries_added == 0 and again.errors == []


def test_a_truncated_zstd_rollout_is_a_named_error_and_the_rest_still_syncs(tmp_path: Path) -> None:
    root = tmp_path / "codex"
    shutil.copytree(SESSIONS / "codex", root)
    plain = next(root.rglob("rollout-2026-02-23T20*.jsonl"))
    packed = zstandard.ZstdCompressor().compress(plain.read_bytes())
    plain.with_name(plain.name + ".zst").write_bytes(packed[: len(packed) // 2])
    plain.unlink()
    report = sync_one("codex", root, tmp_path)
    assert len(report.errors) == 1 and plain.name in report.errors[0]
    assert report.entries_added > 0


def test_corrupt_opencode_rows_are_warnings_and_the_rest_is_read(tmp_path: Path) -> None:
    root = tmp_path / "opencode"
    root.mkdir()
    writer = build_opencode_db(root / "opencode.db")
    writer.execute("UPDATE part SET data = 'not json {' WHERE rowid = (SELECT MIN(rowid) FROM part)")
    writer.execute("UPDATE message SET data = '[1, 2]' WHERE rowid = (SELECT MAX(rowid) FROM message)")
    writer.execute("UPDATE session SET title = 12345")
    try:
        report = sync_one("opencode", root, tmp_path)
    finally:
        writer.close()
    assert report.errors == []
    assert len(report.warnings) >= 2
    assert all(str(root / "opencode.db") in str(w) for w in report.warnings)
    assert report.entries_added > 0


def test_a_vibe_meta_json_of_the_wrong_shape_is_a_warning(tmp_path: Path) -> None:
    root = tmp_path / "vibe"
    shutil.copytree(SESSIONS / "vibe" / "logs" / "session", root)
    for meta in root.rglob("meta.json"):
        meta.write_text('["not", "an", "object"]', encoding="utf-8")
    report = sync_one("vibe", root, tmp_path)
    assert report.errors == [] and report.entries_added > 0
    assert any("meta.json" in str(w) for w in report.warnings)


def test_an_opencode_db_without_its_tables_is_a_named_error(tmp_path: Path) -> None:
    root = tmp_path / "opencode"
    root.mkdir()
    db = sqlite3.connect(root / "opencode.db")
    db.execute("CREATE TABLE unrelated(x)")
    db.commit()
    db.close()
    report = sync_one("opencode", root, tmp_path)
    assert report.errors and str(root / "opencode.db") in report.errors[0]


def _silent(harness: str, body: list[bytes]) -> list[int]:
    """Numbers of the non-blank lines that gave neither an entry nor a warning naming them, or whose
    entry reuses the key of an entry with other text (the record keeps one entry per key)."""
    reader = reader_for(harness)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "root"
        path = root / LAYOUT[harness]
        path.parent.mkdir(parents=True)
        data = b"\n".join(body) + b"\n"
        path.write_bytes(data)
        if harness == "vibe":  # a Vibe folder without one is waited for (`vibe.META_WAIT`), not read
            (path.parent / "meta.json").write_bytes(orjson.dumps({"session_id": "x"}))
        seen: set[int] = set()
        first_text: dict[tuple[str, str], str] = {}
        merged: set[int] = set()  # lines whose entry the record would drop as a replay of another text
        for source in reader.sources(root):
            for item in reader.read(source, Cursor()):
                if not isinstance(item, EntryDraft | ReadWarning) or item.line is None:
                    continue
                seen.add(item.line)
                if isinstance(item, EntryDraft) and first_text.setdefault(
                        (item.session, item.key), item.text) != item.text:
                    merged.add(item.line)
    out = sorted(merged)
    for n, raw in enumerate(data.split(b"\n")[:-1], 1):
        if n == 1:
            raw = raw.removeprefix(b"\xef\xbb\xbf")  # an encoding mark, not data
        if not raw.strip() or n in seen or n in merged:
            continue
        try:
            obj = orjson.loads(raw.removeprefix(b"\xef\xbb\xbf"))
        except orjson.JSONDecodeError:
            obj = None
        # Lines that are a harness's own headers or markers are read, not dropped: they feed the session.
        if isinstance(obj, dict) and (
            (harness == "openclaw" and obj.get("type") == "session")
            or (harness == "codex" and set(obj) <= {"record_type"})
        ):
            continue
        out.append(n)
    return out


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(harness=st.sampled_from(sorted(LAYOUT)), body=st.lists(any_lines, min_size=1, max_size=12))
def test_every_line_of_a_fuzzed_jsonl_store_gives_an_entry_or_a_warning(
    harness: str, body: list[bytes]
) -> None:
    assert _silent(harness, body) == []
