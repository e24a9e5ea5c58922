"""The ingest benchmark's floor: SQLite alone makes the same writes a sync makes into the record."""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO
from total_recall.config import demo_roots
from total_recall.indexes import words
from total_recall.record.database import Record
from total_recall.record.sync import sync

sys.path.insert(0, str(REPO / "bench"))
import ingest  # bench/ holds scripts, not a package


def test_the_floor_writes_every_entry_text_and_source_record_and_indexes_the_words(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(ingest, "SHARD_ENTRIES", 20)  # the demo store's 148 entries span 8 shards
    record = tmp_path / "record.sqlite3"
    with Record(record) as opened_record:
        assert sync(opened_record, list(demo_roots()), roots=demo_roots()).errors == []
    scratch = tmp_path / "scratch"
    scratch.mkdir()

    words_s, rows_s = ingest.sqlite_floor(record, scratch)

    assert words_s > 0 and rows_s > 0
    source = sqlite3.connect(f"file:{record}?mode=ro", uri=True)
    floor = sqlite3.connect(scratch / "floor.sqlite3")
    texts = dict(source.execute("SELECT id, text FROM entries"))
    assert dict(floor.execute("SELECT id, text FROM texts")) == texts
    assert dict(floor.execute("SELECT id, raw FROM raws")) == dict(source.execute("SELECT id, raw FROM raws"))
    shards = floor.execute("SELECT name FROM sqlite_master WHERE sql LIKE 'CREATE VIRTUAL TABLE%'").fetchall()
    assert len(shards) == 8
    for word in ("certbot", "renewal", "nginx"):
        in_record = {r[0] for shard in words.shards(source) for r in source.execute(
            f"SELECT rowid FROM {shard.name} WHERE {shard.name} MATCH ?", (f"text : {word}",))}
        assert in_record
        in_floor = {r[0] for (shard,) in shards for r in floor.execute(
            f"SELECT rowid FROM {shard} WHERE {shard} MATCH ?", (word,))}
        assert in_floor == in_record
    source.close()
    floor.close()
