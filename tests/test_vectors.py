"""Meaning search with the vectors extra: embedded at sync within a budget, reranks, forgets on erase."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from total_recall.config import demo_roots
from total_recall.find.search import search
from total_recall.indexes import vectors
from total_recall.model import Address
from total_recall.record.database import Record
from total_recall.record.sync import sync
from total_recall.surfaces.cli import cli

pytestmark = pytest.mark.skipif(not vectors.available(), reason="the vectors extra is not installed")


@pytest.fixture
def record(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Record:
    monkeypatch.setenv("TOTAL_RECALL_VECTOR_BUDGET", "600")
    s = Record(tmp_path / "record.sqlite3")
    report = sync(s, list(demo_roots()), roots=demo_roots())
    assert report.errors == [] and report.vectors["embedded"] > 0 and report.vectors["pending"] == 0
    return s


def test_sync_embeds_the_messages_and_summaries_and_nothing_else(record: Record) -> None:
    kinds = record.execute(
        "SELECT DISTINCT e.kind FROM vectors v JOIN entries e ON e.id = v.entry"
    ).fetchall()
    assert {k for (k,) in kinds} <= {"message", "summary"}
    expected = record.execute(
        "SELECT COUNT(*) FROM entries WHERE kind IN ('message', 'summary') "
        "AND author IN ('owner', 'agent', 'harness')"
    ).fetchone()[0]
    assert vectors.count(record.db) == expected
    assert all(len(blob) == vectors.DIM for (blob,) in record.execute("SELECT vec FROM vectors"))


def test_embeddings_put_a_paraphrase_closest_to_its_meaning() -> None:
    v = vectors.embed([
        "the certificate renewal failed with an unauthorized error",
        "certbot renew: urn:ietf:params:acme:error:unauthorized, 404 on the challenge",
        "the checkout page is slow since five o'clock",
    ])
    assert float(v[0] @ v[1]) > float(v[0] @ v[2])


def test_meaning_reranks_word_candidates(record: Record) -> None:
    hits = search(record, "why did the cert renewal fail", limit=5)
    assert hits
    texts = [record.entries(Address.parse(h.address))[0].text.lower() for h in hits]
    assert any("renew" in t and ("404" in t or "fail" in t) for t in texts)


def test_erase_removes_the_vector(record: Record) -> None:
    entry_id = record.execute("SELECT entry FROM vectors LIMIT 1").fetchone()[0]
    session, seq = record.execute("SELECT session, seq FROM entries WHERE id = ?", (entry_id,)).fetchone()
    record.erase(Address(session, seq, seq), "test")
    assert record.execute("SELECT COUNT(*) FROM vectors WHERE entry = ?", (entry_id,)).fetchone()[0] == 0


def test_a_budget_of_nothing_leaves_the_rest_for_the_index_command(tmp_path: Path) -> None:
    home = tmp_path / "rec"
    runner = CliRunner(env={"TOTAL_RECALL_VECTOR_BUDGET": "0"})
    assert runner.invoke(cli, ["--home", str(home), "--demo", "sync"]).exit_code == 0
    out = runner.invoke(cli, ["--home", str(home), "--demo", "index", "--json"])
    assert out.exit_code == 0, out.output
    result = json.loads(out.stdout)
    assert result["embedded"] > 0 and result["done"] is True and result["vectors"] == result["embedded"]
    again = json.loads(runner.invoke(cli, ["--home", str(home), "--demo", "index", "--json"]).stdout)
    assert again["embedded"] == 0


def test_a_thread_count_that_is_not_a_number_is_refused_by_name(monkeypatch: pytest.MonkeyPatch) -> None:
    from total_recall.errors import ConfigError
    from total_recall.indexes import vectors

    monkeypatch.setenv("TOTAL_RECALL_ONNX_THREADS", "two")
    with pytest.raises(ConfigError, match="TOTAL_RECALL_ONNX_THREADS"):
        vectors._threads()
    monkeypatch.setenv("TOTAL_RECALL_ONNX_THREADS", "1")
    assert vectors._threads() == 1


def test_a_sync_says_how_many_entries_it_embedded_and_how_many_are_left(tmp_path: Path) -> None:
    home = tmp_path / "rec"
    done = CliRunner(env={"TOTAL_RECALL_VECTOR_BUDGET": "600"}).invoke(cli, ["--home", str(home), "--demo",
                                                                             "sync"])
    assert done.exit_code == 0, done.output
    assert "meaning search: " in done.stdout and "every entry has its vector" in done.stdout


def test_index_rebuild_without_the_vectors_extra_rebuilds_and_says_what_is_missing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "rec"
    runner = CliRunner(env={"TOTAL_RECALL_VECTOR_BUDGET": "0"})
    assert runner.invoke(cli, ["--home", str(home), "--demo", "sync"]).exit_code == 0
    monkeypatch.setattr(vectors, "available", lambda: False)  # a base install
    rebuilt = runner.invoke(cli, ["--home", str(home), "--demo", "index", "--rebuild", "--json"])
    assert rebuilt.exit_code == 0, rebuilt.output
    assert json.loads(rebuilt.stdout) == {"embedded": 0, "vectors": 0, "done": False, "rebuilt": True,
                                          "vectors_extra": False}
    fresh = tmp_path / "fresh"
    refused = runner.invoke(cli, ["--home", str(fresh), "index"])
    assert refused.exit_code == 2 and "vectors extra" in refused.stderr
    assert not fresh.exists(), "refused before the record is touched"


def test_an_entry_erased_while_its_batch_is_embedded_gets_no_vector(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "rec"
    runner = CliRunner(env={"TOTAL_RECALL_VECTOR_BUDGET": "0"})
    assert runner.invoke(cli, ["--home", str(home), "--demo", "sync"]).exit_code == 0
    with Record(home / "demo.sqlite3") as other:
        [(first, session, seq)] = other.execute(
            "SELECT id, session, seq FROM entries WHERE kind = 'message' AND author = 'owner' "
            "ORDER BY id LIMIT 1").fetchall()
    real = vectors.embed

    def embed_while_an_erase_lands(texts: list[str]) -> object:
        with Record(home / "demo.sqlite3") as other:  # the owner's erase, from another process
            if not other.entries(Address(session, seq, seq))[0].erased:
                other.erase(Address(session, seq, seq), "pasted a key")
        return real(texts)

    monkeypatch.setattr(vectors, "embed", embed_while_an_erase_lands)
    out = runner.invoke(cli, ["--home", str(home), "--demo", "index", "--json"])
    assert out.exit_code == 0, out.output
    with Record(home / "demo.sqlite3") as after:
        assert after.execute("SELECT COUNT(*) FROM vectors WHERE entry = ?", (first,)).fetchone()[0] == 0
        assert after.execute("SELECT COUNT(*) FROM vectors").fetchone()[0] > 0
