"""The word index in shards of consecutive entries: each entry in exactly one shard, found as before."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from total_recall.config import demo_roots
from total_recall.find import index
from total_recall.find import search as search_module
from total_recall.find.search import search
from total_recall.model import Address
from total_recall.record.reading import read
from total_recall.record.store import Store
from total_recall.record.sync import sync

QUERIES = ["certbot", "restart the production database", "certificate renewal failed", "/etc/ssl/private",
           "3f9c2e", "commit", "nginx reload"]
FILTERS: list[dict[str, object]] = [
    {}, {"author": ["owner"]}, {"harness": ["codex"]}, {"session": 1}, {"session": 2}, {"session": 3},
    {"project": "webshop"}, {"project": "webshop", "author": ["agent"]}, {"since": "2026-11-16T15:00:00"},
    {"project": "/no/such/project"},
]
SMALL = 20  # entries per shard in these tests: the demo store (148 entries) spans several


def synced(folder: Path, *harnesses: str) -> Store:
    folder.mkdir(exist_ok=True)
    store = Store(folder / "record.sqlite3")
    report = sync(store, list(harnesses or demo_roots()), roots=demo_roots())
    assert report.errors == []
    return store


def found(store: Store) -> list[set[str]]:
    return [
        {h.address for h in search(store, q, limit=1000, meaning=False, **f)}  # type: ignore[arg-type]
        for q in QUERIES for f in FILTERS
    ]


def indexed(store: Store) -> dict[str, list[int]]:
    """Entry ids held by each shard (external content: the docsize table lists what the index holds)."""
    return {s.name: [r[0] for r in store.db.execute(f"SELECT id FROM {s.name}_docsize ORDER BY id")]
            for s in index.shards(store.db)}


def assert_each_entry_in_its_one_shard(store: Store) -> None:
    shards = sorted(index.shards(store.db), key=lambda s: s.first)
    held = indexed(store)
    for shard, after in zip(shards, [*shards[1:], None], strict=True):
        ids = held[shard.name]
        assert ids and ids[0] >= shard.first and (after is None or ids[-1] < after.first), shard
    everything = [i for s in shards for i in held[s.name]]
    live = [r[0] for r in store.db.execute("SELECT id FROM entries WHERE erased_at IS NULL ORDER BY id")]
    assert everything == live


@pytest.mark.parametrize("narrow", [False, True], ids=["as-shipped", "newest-5-and-no-sparse-path"])
def test_a_record_cut_into_shards_finds_exactly_what_one_index_finds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, narrow: bool
) -> None:
    if narrow:  # every path through the shards: the newest matches cut across them, tags and joins
        monkeypatch.setattr(search_module, "SCORED", 5)
        monkeypatch.setattr(search_module, "SPARSE", 0)
    whole = synced(tmp_path / "whole")
    assert len(index.shards(whole.db)) == 1
    monkeypatch.setattr(index, "SHARD_ENTRIES", SMALL)
    for harness in ("claude-code", "codex"):  # two syncs: the second opens shards past the first's
        sharded = synced(tmp_path / "sharded", harness)
    assert len(index.shards(sharded.db)) >= 3
    assert_each_entry_in_its_one_shard(sharded)
    expected = found(whole)
    assert found(sharded) == expected
    assert sum(len(f) for f in expected) > 150


def test_every_shard_holds_16_mb_of_terms_before_writing_a_segment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(index, "SHARD_ENTRIES", SMALL)
    store = synced(tmp_path)
    for shard in index.shards(store.db):
        size = store.db.execute(f"SELECT v FROM {shard.name}_config WHERE k = 'hashsize'").fetchone()
        assert size[0] == 16 << 20, shard


def test_erase_takes_an_entry_out_of_the_shard_that_holds_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(index, "SHARD_ENTRIES", SMALL)
    store = synced(tmp_path)
    hit = search(store, "Never restart the production database", author=["owner"], limit=1)[0]
    entry_id = store.db.execute(
        "SELECT id FROM entries WHERE session = ? AND seq = ?", (hit.session, hit.seq)
    ).fetchone()[0]
    newest = index.shards(store.db)[0]
    assert entry_id < newest.first  # an older shard than the one sync writes to
    text = read(store, hit.address)[0].text
    store.erase(Address.parse(hit.address), "test")
    assert_each_entry_in_its_one_shard(store)
    for word in set(re.findall(r"[A-Za-z0-9]{3,}", text)):
        assert hit.address not in [h.address for h in search(store, word, limit=1000)], word


def test_rebuild_cuts_a_record_indexed_whole_into_shards_that_find_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = synced(tmp_path)
    before = found(store)
    monkeypatch.setattr(index, "SHARD_ENTRIES", SMALL)
    for _ in range(2):  # a second rebuild replaces the shards of the first
        store.begin()
        index.rebuild(store.db)
        store.commit()
        assert len(index.shards(store.db)) >= 5
        assert_each_entry_in_its_one_shard(store)
        assert found(store) == before
