"""What search ranks and filters by, kept apart from the text: `entry_facts`, and the facts a searching
process remembers."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.stores import synced_transcript
from total_recall import indexes
from total_recall.config import demo_roots
from total_recall.find import fact_cache as facts
from total_recall.find import search as search_module
from total_recall.find.search import search
from total_recall.model import Address
from total_recall.record.database import Record
from total_recall.record.sync import sync

LIVE = "SELECT id, session, seq, author, kind, ts FROM entries WHERE erased_at IS NULL ORDER BY id"
FACTS = "SELECT id, session, seq, author, kind, ts FROM entry_facts ORDER BY id"
QUERIES = ("certificate renewal", "restart the production database", "error", "TLS handshake failed",
           "commit", "nginx reload")


@pytest.fixture
def record(tmp_path: Path) -> Record:
    s = Record(tmp_path / "record.sqlite3")
    assert sync(s, list(demo_roots()), roots=demo_roots()).errors == []
    return s


def rows(record: Record, sql: str) -> list[tuple[object, ...]]:
    return [tuple(r) for r in record.execute(sql)]


def test_sync_erase_and_rebuild_keep_entry_facts_equal_to_the_live_entries(record: Record) -> None:
    assert rows(record, FACTS) == rows(record, LIVE) and len(rows(record, LIVE)) > 50
    erased = Address.parse(search(record, "certificate", author=["owner"], limit=1)[0].address)
    record.erase(erased, "test")
    assert rows(record, FACTS) == rows(record, LIVE)
    assert len(rows(record, FACTS)) == record.execute("SELECT count(*) FROM entries").fetchone()[0] - 1
    record.db.execute("DELETE FROM entry_facts WHERE id % 3 = 0")
    indexes.rebuild(record.db)
    assert rows(record, FACTS) == rows(record, LIVE)


def test_a_record_from_before_entry_facts_gets_them_when_opened(record: Record) -> None:
    record.erase(Address.parse(search(record, "certificate", limit=1)[0].address), "test")
    record.db.execute("DROP TABLE entry_facts")
    record.db.execute("DELETE FROM _migrations WHERE name = 'm012_entry_facts'")
    record.close()
    reopened = Record(record.path)
    assert rows(reopened, FACTS) == rows(reopened, LIVE)


def test_an_erased_entry_stays_out_of_every_filtered_search(record: Record) -> None:
    hit = search(record, "certificate renewal", author=["owner"], limit=1)[0]
    text = record.execute("SELECT text FROM entries WHERE session = ? AND seq = ?", (hit.session, hit.seq)
                         ).fetchone()[0]
    record.erase(Address.parse(hit.address), "test")
    since = str(record.execute("SELECT min(ts) FROM entries").fetchone()[0])[:10]
    filters: list[dict[str, object]] = [
        {"author": ["owner"]}, {"harness": [hit.harness]}, {"session": hit.session}, {"since": since},
        {"author": ["owner"], "since": since},
    ]
    for word in set(re.findall(r"[A-Za-z]{4,}", text)):
        for given in filters:
            found = [h.address for h in search(record, word, limit=1000, **given)]  # type: ignore[arg-type]
            assert hit.address not in found, (word, given)


def test_a_searching_process_reads_an_entry_s_facts_once(record: Record) -> None:
    statements: list[str] = []
    record.db.set_trace_callback(statements.append)
    first = search(record, "certificate renewal", limit=10)
    assert any("FROM entry_facts" in s for s in statements)
    statements.clear()
    again = search(record, "certificate renewal", limit=10)
    assert again == first
    assert not any("FROM entry_facts" in s for s in statements)


def test_a_search_inside_a_transaction_remembers_nothing_that_could_be_rolled_back(record: Record) -> None:
    record.db.execute("BEGIN")
    try:
        assert search(record, "certificate renewal", limit=10)
        assert facts.of_store(record)._known == {}
    finally:
        record.db.execute("ROLLBACK")
    search(record, "certificate renewal", limit=10)
    assert facts.of_store(record)._known


def test_remembered_facts_rank_exactly_as_fresh_reads_however_small_the_memory(
    record: Record, monkeypatch: pytest.MonkeyPatch
) -> None:
    fresh = {q: search(Record(record.path), q, limit=20) for q in QUERIES}
    monkeypatch.setattr(facts, "CAPACITY", 7)
    for _ in range(2):
        for query in QUERIES:
            assert search(record, query, limit=20) == fresh[query], query
    assert len(facts.of_store(record)._known) <= 7


def test_a_session_synced_in_parts_still_lends_its_neighbour_s_words(tmp_path: Path) -> None:
    """The answer, recorded after another session's entries, is not numbered beside its question."""
    record = synced_transcript(tmp_path, [
        ("user", "Which port does the staging proxy listen on?", "2026-11-20T10:00:00.000Z"),
    ])
    other = tmp_path / "projects" / "-other"
    other.mkdir()
    (other / "22222222-2222-4333-8444-555555555555.jsonl").write_text(json.dumps({
        "type": "user", "uuid": "10000000-0000-4000-8000-000000000000", "parentUuid": None,
        "sessionId": "22222222-2222-4333-8444-555555555555", "cwd": "/other", "isSidechain": False,
        "timestamp": "2026-11-20T10:01:00.000Z", "message": {"role": "user", "content": "Unrelated words."},
    }) + "\n")
    assert sync(record, ["claude-code"], roots={"claude-code": tmp_path / "projects"}).errors == []
    transcript = next((tmp_path / "projects" / "-rerank").glob("*.jsonl"))
    with transcript.open("a") as out:
        out.write(json.dumps({
            "type": "assistant", "uuid": "00000000-0000-4000-8000-000000000001",
            "parentUuid": "00000000-0000-4000-8000-000000000000",
            "sessionId": "11111111-2222-4333-8444-555555555555", "cwd": "/rerank", "isSidechain": False,
            "timestamp": "2026-11-20T10:02:00.000Z",
            "message": {"role": "assistant", "content": [{"type": "text", "text": "It is 8443 now."}]},
        }) + "\n")
    assert sync(record, ["claude-code"], roots={"claude-code": tmp_path / "projects"}).errors == []
    (question, q_session), (answer, a_session) = record.execute(
        "SELECT id, session FROM entries WHERE text LIKE 'Which port%' OR text LIKE 'It is 8443%' ORDER BY id"
    ).fetchall()
    assert q_session == a_session and answer - question > 1  # the other session sits between them
    fts = search_module.words_query("staging proxy")
    assert fts is not None
    bonus = search_module._text_features(record, fts, [answer], "staging proxy")[answer]
    weight = search_module.WEIGHTS[("agent", "message")] / search_module.WEIGHTS[("owner", "message")]
    assert bonus == pytest.approx(weight * search_module.COVERAGE_WEIGHT)  # both words, from the question
