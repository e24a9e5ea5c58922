"""The word index in shards of consecutive entries: each entry in exactly one shard, found as before."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.stores import synced_transcript
from total_recall import indexes
from total_recall.config import demo_roots
from total_recall.find import search as search_module
from total_recall.find.search import search
from total_recall.indexes import words
from total_recall.model import Address
from total_recall.record.database import Record
from total_recall.record.reading import read
from total_recall.record.sync import sync

QUERIES = ["certbot", "restart the production database", "certificate renewal failed", "/etc/ssl/private",
           "3f9c2e", "commit", "nginx reload"]
FILTERS: list[dict[str, object]] = [
    {}, {"author": ["owner"]}, {"harness": ["codex"]}, {"session": 1}, {"session": 2}, {"session": 3},
    {"project": "webshop"}, {"project": "webshop", "author": ["agent"]}, {"since": "2026-11-16T15:00:00"},
    {"project": "/no/such/project"},
]
SMALL = 20  # entries per shard in these tests: the demo store (148 entries) spans several


def synced(folder: Path, *harnesses: str) -> Record:
    folder.mkdir(exist_ok=True)
    record = Record(folder / "record.sqlite3")
    report = sync(record, list(harnesses or demo_roots()), roots=demo_roots())
    assert report.errors == []
    return record


def found(record: Record) -> list[set[str]]:
    return [
        {h.address for h in search(record, q, limit=1000, meaning=False, **f)}  # type: ignore[arg-type]
        for q in QUERIES for f in FILTERS
    ]


def indexed(record: Record) -> dict[str, list[int]]:
    """Entry ids held by each shard (external content: the docsize table lists what the index holds)."""
    return {s.name: [r[0] for r in record.db.execute(f"SELECT id FROM {s.name}_docsize ORDER BY id")]
            for s in words.shards(record.db)}


def assert_each_entry_in_its_one_shard(record: Record) -> None:
    shards = sorted(words.shards(record.db), key=lambda s: s.first)
    held = indexed(record)
    for shard, after in zip(shards, [*shards[1:], None], strict=True):
        ids = held[shard.name]
        assert ids and ids[0] >= shard.first and (after is None or ids[-1] < after.first), shard
    everything = [i for s in shards for i in held[s.name]]
    live = [r[0] for r in record.db.execute("SELECT id FROM entries WHERE erased_at IS NULL ORDER BY id")]
    assert everything == live


@pytest.mark.parametrize("narrow", [False, True], ids=["as-shipped", "newest-5-and-no-sparse-path"])
def test_a_record_cut_into_shards_finds_exactly_what_one_index_finds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, narrow: bool
) -> None:
    if narrow:  # every path through the shards: the newest matches cut across them, tags and joins
        monkeypatch.setattr(search_module, "SCORED", 5)
        monkeypatch.setattr(search_module, "SPARSE", 0)
    whole = synced(tmp_path / "whole")
    assert len(words.shards(whole.db)) == 1
    monkeypatch.setattr(words, "SHARD_ENTRIES", SMALL)
    for harness in ("claude-code", "codex"):  # two syncs: the second opens shards past the first's
        sharded = synced(tmp_path / "sharded", harness)
    assert len(words.shards(sharded.db)) >= 3
    assert_each_entry_in_its_one_shard(sharded)
    expected = found(whole)
    assert found(sharded) == expected
    assert sum(len(f) for f in expected) > 150


def test_every_shard_holds_16_mb_of_terms_before_writing_a_segment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(words, "SHARD_ENTRIES", SMALL)
    record = synced(tmp_path)
    for shard in words.shards(record.db):
        size = record.db.execute(f"SELECT v FROM {shard.name}_config WHERE k = 'hashsize'").fetchone()
        assert size[0] == 16 << 20, shard


def test_erase_takes_an_entry_out_of_the_shard_that_holds_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(words, "SHARD_ENTRIES", SMALL)
    record = synced(tmp_path)
    hit = search(record, "Never restart the production database", author=["owner"], limit=1)[0]
    entry_id = record.db.execute(
        "SELECT id FROM entries WHERE session = ? AND seq = ?", (hit.session, hit.seq)
    ).fetchone()[0]
    newest = words.shards(record.db)[0]
    assert entry_id < newest.first  # an older shard than the one sync writes to
    text = read(record, hit.address)[0].text
    record.erase(Address.parse(hit.address), "test")
    assert_each_entry_in_its_one_shard(record)
    for word in set(re.findall(r"[A-Za-z0-9]{3,}", text)):
        assert hit.address not in [h.address for h in search(record, word, limit=1000)], word


def test_rebuild_cuts_a_record_indexed_whole_into_shards_that_find_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    record = synced(tmp_path)
    before = found(record)
    monkeypatch.setattr(words, "SHARD_ENTRIES", SMALL)
    for _ in range(2):  # a second rebuild replaces the shards of the first
        record.begin()
        indexes.rebuild(record.db)
        record.commit()
        assert len(words.shards(record.db)) >= 5
        assert_each_entry_in_its_one_shard(record)
        assert found(record) == before


def _months_apart(tmp_path: Path) -> Record:
    """One Claude Code session of 90 turns spread over July to November 2026, synced."""
    said = ["deploy the certificate", "rollback failed again", "certificate renewal works",
            "deploy rollback plan", "the renewal timer"]
    return synced_transcript(tmp_path, [
        ("user", f"turn {i}: {said[i % 5]}", f"2026-{7 + i // 18:02d}-{1 + i % 18:02d}T10:00:00.000Z")
        for i in range(90)
    ], cwd="/months")


@pytest.mark.parametrize("narrow", [False, True], ids=["as-shipped", "newest-5-and-no-sparse-path"])
def test_a_time_filter_narrowed_by_month_tags_finds_exactly_what_sql_alone_finds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, narrow: bool
) -> None:
    if narrow:
        monkeypatch.setattr(search_module, "SCORED", 5)
        monkeypatch.setattr(search_module, "SPARSE", 0)
    monkeypatch.setattr(words, "SHARD_ENTRIES", SMALL)
    record = _months_apart(tmp_path)
    tagged = record.db.execute("SELECT month FROM months ORDER BY month").fetchall()
    assert [r[0] for r in tagged] == ["2026-07", "2026-08", "2026-09", "2026-10", "2026-11"]
    asks = [("deploy certificate", {"since": "2026-09-10"}), ("rollback", {"since": "2026-11-01"}),
            ("renewal", {"since": "2026-10"}), ("deploy", {"since": "2027-01-01"}),
            ("certificate in August 2026", {}), ("rollback failed on 2026-10-05", {}),
            ("deploy rollback two weeks ago", {}), ("certificate renewal yesterday", {}),
            ("renewal timer in September 2026", {"since": "2026-09-15"})]

    def found() -> list[list[tuple[str, str | None]]]:
        return [[(h.address, h.timestamp) for h in search(record, q, limit=100, meaning=False, **f)]  # type: ignore[arg-type]
                for q, f in asks]

    with_tags = found()
    monkeypatch.setattr(search_module, "MAX_MONTHS", -1)  # every time filter left to SQL alone
    monkeypatch.setattr(search_module, "MAX_DAYS", 0)
    assert [sorted(r) for r in with_tags] == [sorted(r) for r in found()]
    assert len(with_tags[0]) >= (5 if narrow else 20) and with_tags[3] == []
    assert all((ts or "") >= "2026-09-10" for _, ts in with_tags[0])
    assert all((ts or "") >= "2026-11-01" for _, ts in with_tags[1])


@pytest.mark.parametrize("live_shard_entries", [1 << 17, SMALL], ids=["as-shipped", "live-code-changed"])
def test_a_record_from_before_shards_and_time_tags_is_migrated_to_both(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, live_shard_entries: int
) -> None:
    record = synced(tmp_path)
    before = found(record)
    timed = record.db.execute("SELECT count(ts) FROM entries WHERE erased_at IS NULL").fetchone()[0]
    # Put the record back as m008 left it: one index whose tags hold no month, no shard or month table.
    record.db.executescript("""
        BEGIN;
        DROP VIEW entries_fts_content;
        CREATE VIEW entries_fts_content AS
            SELECT e.id AS id, e.text AS text,
                   'a_' || e.author || ' k_' || e.kind || ' h_' || replace(s.harness, '-', '_')
                   || ' s_' || e.session AS tag
            FROM entries e JOIN sessions s ON s.id = e.session WHERE e.erased_at IS NULL;
        INSERT INTO entries_fts(entries_fts) VALUES ('rebuild');
        DROP TABLE fts_shards;
        DROP TABLE months;
        DELETE FROM _migrations WHERE name IN ('m009_fts_shards', 'm010_day_tags');
        COMMIT;
    """)
    assert record.db.execute("SELECT count(*) FROM entries_fts WHERE entries_fts MATCH 'tag : m_2026_11'"
                            ).fetchone()[0] == 0
    record.close()
    # The migration runs its own frozen copy of the rebuild: what the live index code says since is not it.
    monkeypatch.setattr(words, "SHARD_ENTRIES", live_shard_entries)
    again = Record(tmp_path / "record.sqlite3")
    assert [s.name for s in words.shards(again.db)] == ["entries_fts"]
    assert again.db.execute("SELECT count(*) FROM entries_fts WHERE entries_fts MATCH 'tag : m_2026_11'"
                            ).fetchone()[0] == timed > 100
    assert again.db.execute("SELECT count(*) FROM entries_fts WHERE entries_fts MATCH 'tag : d_2026_11_16'"
                            ).fetchone()[0] > 50
    assert found(again) == before


def test_the_tags_sync_writes_are_exactly_those_the_content_view_gives_erase_and_rebuild(
    tmp_path: Path,
) -> None:
    # FTS5 forgets an entry by being handed the very tokens it indexed: sync's tags and the view's agree.
    record = synced(tmp_path)
    rows = record.db.execute(
        "SELECT e.author, e.kind, s.harness, e.session, e.ts, v.tag FROM entries e "
        "JOIN sessions s ON s.id = e.session JOIN entries_fts_content v ON v.id = e.id"
    ).fetchall()
    assert len(rows) == 148 and any(r[4] is None for r in rows)
    assert [words.tag(*r[:5]) for r in rows] == [r[5] for r in rows]
    timed = next(r[5] for r in rows if r[4] is not None)
    assert " m_2026_11 d_2026_11_16" in timed


def test_a_search_reads_one_snapshot_while_the_index_is_rebuilt_beside_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    record = synced(tmp_path)
    expected = [h.address for h in search(record, "certbot renewal", limit=50, meaning=False)]
    other = Record(tmp_path / "record.sqlite3")
    real = words.shards
    rebuilt: list[bool] = []

    def shards_then_rebuild(db: object) -> list[words.Shard]:
        found = real(db)  # type: ignore[arg-type]
        if not rebuilt:  # another connection cuts the index into new shards mid-search
            rebuilt.append(True)
            monkeypatch.setattr(words, "SHARD_ENTRIES", SMALL)
            other.begin()
            indexes.rebuild(other.db)
            other.commit()
        return found

    monkeypatch.setattr(words, "shards", shards_then_rebuild)
    assert [h.address for h in search(record, "certbot renewal", limit=50, meaning=False)] == expected
    assert rebuilt and len(real(other.db)) >= 5


@pytest.mark.parametrize("shard_entries", [SMALL, 1 << 17], ids=["in-shards", "one-index"])
def test_passing_over_what_lies_outside_the_named_sessions_ids_changes_nothing_found(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, shard_entries: int
) -> None:
    # The sessions a filter names are looked up as entry-id ranges, to skip shards and exact strings
    # outside them; ranges spanning every id must find the same.
    monkeypatch.setattr(words, "SHARD_ENTRIES", shard_entries)
    record = synced(tmp_path)
    asks = [(q, f) for q in ("/etc/ssl/private", "3f9c2e", "certbot renewal failed", "conf/tls.yaml")
            for f in ({"session": 1}, {"session": 2}, {"session": 3}, {"project": "webshop"},
                      {"project": "webshop", "author": ["tool"]})]

    def found() -> list[list[str]]:
        return [[h.address for h in search(record, q, limit=50, meaning=False, **f)]  # type: ignore[arg-type]
                for q, f in asks]

    pruned = found()
    monkeypatch.setattr(search_module, "_spans", lambda db, sessions: None if sessions is None else tuple(
        (n, 0, 1 << 62) for n in sessions))
    assert found() == pruned
    assert sum(len(r) for r in pruned) > 60 and not all(pruned[2::5])  # session 3 (Codex) lacks some
