"""Search over the record: words, exact strings, filters, erase purging, the CLI contract."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.stores import synced_transcript
from total_recall import indexes
from total_recall.config import demo_roots
from total_recall.errors import SearchError
from total_recall.find import search as search_module
from total_recall.find.hits import snippet
from total_recall.find.search import Filters, search
from total_recall.indexes.strings import extract, looks_exact
from total_recall.model import Address
from total_recall.record.database import Record
from total_recall.record.reading import read
from total_recall.record.sync import sync
from total_recall.surfaces.cli import cli

RULE = "Never restart the production database during the day."


@pytest.fixture
def record(tmp_path: Path) -> Record:
    s = Record(tmp_path / "record.sqlite3")
    report = sync(s, list(demo_roots()), roots=demo_roots())
    assert report.errors == []
    return s


def texts(record: Record, hits: list) -> list[str]:  # type: ignore[type-arg]
    return [read(record, h.address)[0].text for h in hits]


def test_every_hit_is_an_address_that_read_opens_to_text_holding_the_words(record: Record) -> None:
    hits = search(record, "restart the production database", limit=5)
    assert hits
    for hit, text in zip(hits, texts(record, hits), strict=True):
        assert re.fullmatch(r"s\d+#\d+", hit.address)
        assert any(w in text.lower() for w in ("restart", "production", "database"))
    assert any(RULE in t for t in texts(record, hits))


def test_the_owner_s_words_outrank_tool_output_that_repeats_them(record: Record) -> None:
    hits = search(record, "Never restart the production database during the day", limit=3)
    assert hits[0].author == "owner"


def test_a_hash_fragment_finds_its_entries_through_the_exact_index(record: Record) -> None:
    hits = search(record, "3f9c2e", limit=10)  # a fragment no word tokenizer would match
    assert hits and all("3f9c2e" in t for t in texts(record, hits))


def test_an_exact_string_with_a_filter_finds_only_entries_the_filter_allows(record: Record) -> None:
    everywhere = search(record, "/etc/ssl/private", limit=50)
    assert len({h.harness for h in everywhere}) > 1 and len({h.author for h in everywhere}) > 1
    for harness in {h.harness for h in everywhere}:
        hits = search(record, "/etc/ssl/private", harness=[harness], limit=50)
        assert hits and {h.harness for h in hits} == {harness}
    owner = search(record, "/etc/ssl/private", author=["owner"], limit=50)
    assert owner and {h.author for h in owner} == {"owner"}


def test_a_path_finds_entries_that_name_it(record: Record) -> None:
    hits = search(record, "/etc/ssl/private", limit=10)
    assert hits and all("/etc/ssl/private" in t for t in texts(record, hits[:5]))


def test_filters_scope_by_harness_session_author_and_time(record: Record) -> None:
    assert {h.harness for h in search(record, "certbot", harness=["codex"], limit=50)} == {"codex"}
    assert {h.session for h in search(record, "certbot", session=1, limit=50)} == {1}
    assert {h.author for h in search(record, "certbot", author=["owner"], limit=50)} == {"owner"}
    late = search(record, "certbot", since="2026-11-20", limit=50)
    assert late and all((h.timestamp or "") >= "2026-11-20" for h in late)
    assert search(record, "certbot", project="/no/such/project") == []


def test_after_erase_no_search_by_any_word_of_it_returns_it(record: Record) -> None:
    hit = search(record, RULE, author=["owner"], limit=1)[0]
    text = read(record, hit.address)[0].text
    record.erase(Address.parse(hit.address), "test")
    words = set(re.findall(r"[A-Za-z0-9]{3,}", text))
    for word in words:
        assert hit.address not in [h.address for h in search(record, word, limit=1000)], word
    for kind, value in extract("message", text):
        assert hit.address not in [h.address for h in search(record, value, limit=1000)], (kind, value)


def test_an_erased_entry_stays_out_of_search_after_the_word_index_is_rebuilt(record: Record) -> None:
    hit = search(record, RULE, author=["owner"], limit=1)[0]
    record.erase(Address.parse(hit.address), "test")
    indexes.rebuild(record.db)
    for query in ("restart production database", "erased", "test"):
        assert hit.address not in [h.address for h in search(record, query, limit=1000)], query


def test_an_empty_query_is_a_clear_error(record: Record) -> None:
    with pytest.raises(SearchError, match="empty query"):
        search(record, "   ")
    with pytest.raises(SearchError, match="nothing searchable"):
        search(record, "? !")


def test_query_syntax_never_reaches_the_engine_raw(record: Record) -> None:
    for odd in ['"unbalanced', "NEAR(a b", "a AND OR b", "col:value", "-deploy", "ab^cd", "xy OR"]:
        search(record, odd)  # no sqlite3.OperationalError
    with pytest.raises(SearchError):
        search(record, "*")


def test_exact_strings_are_extracted_at_ingest() -> None:
    text = ("certbot renew failed at 14:03: Renewal failed: urn:ietf:params:acme:error:unauthorized :: "
            "Invalid response from http://shop.example.com/.well-known/acme-challenge/x: 404\n"
            "see /etc/ssl/private/shop.pem and commit 3f9c2e1 (nginx 1.24.0 on shop.example.com)")
    found = extract("tool_result", text)
    kinds = {k: v for k, v in reversed(found)}
    assert kinds["hash"] == "3f9c2e1"
    assert kinds["path"] == "/etc/ssl/private/shop.pem"
    assert kinds["url"].startswith("http://shop.example.com/.well-known/acme-challenge/x")
    assert kinds["version"] == "1.24.0"
    assert kinds["host"] == "shop.example.com"
    assert kinds["time"] == "14:03"
    assert any(k == "error" and "Renewal failed" in v for k, v in found)


def test_paths_sharing_a_tail_are_indexed_once_per_key_and_found_by_it(tmp_path: Path) -> None:
    from tests.keeping_sessions import ClaudeSession

    record = Record(tmp_path / "record.sqlite3")
    session = ClaudeSession(tmp_path / "claude")
    session.owner("Compare /srv/app/conf/tls.yaml with /srv/old/conf/tls.yaml before the switch.")
    number = session.sync(record)
    rows = record.execute("SELECT entry, kind, key FROM strings").fetchall()
    assert len(rows) == len(set(map(tuple, rows)))
    assert [r["key"] for r in rows].count("conf/tls.yaml") == 1
    hits = search(record, "conf/tls.yaml", limit=5)
    assert [h.address for h in hits] == [f"s{number}#1"]


def test_the_cli_search_contract_and_batch_mode(record: Record, tmp_path: Path) -> None:
    home = str(record.path.parent)
    record.close()
    runner = CliRunner()
    out = runner.invoke(cli, ["--home", home, "search", "certbot", "--limit", "3", "--json"])
    assert out.exit_code == 0, out.output
    reply = json.loads(out.stdout)
    assert reply["query"] == "certbot" and reply["bytes"] <= reply["max_bytes"] and "held_back" not in reply
    hits = reply["hits"]
    assert len(hits) == 3
    for key in ("address", "session", "harness", "author", "timestamp", "score", "snippet"):
        assert all(key in h for h in hits)
    queries = tmp_path / "q.txt"
    queries.write_text("certbot\n3f9c2e1\n\n?\n", encoding="utf-8")
    out = runner.invoke(cli, ["--home", home, "search", "--batch", str(queries), "--json", "--limit", "2"])
    assert out.exit_code == 0
    lines = [json.loads(line) for line in out.stdout.splitlines()]
    assert [line["query"] for line in lines] == ["certbot", "3f9c2e1", "?"]
    assert len(lines[0]["hits"]) == 2 and "error" in lines[2] and "hits" not in lines[2]
    bad = runner.invoke(cli, ["--home", home, "search", "  "])
    assert bad.exit_code == 2 and "empty query" in bad.stderr and "Traceback" not in bad.output


def test_grouped_hits_are_ranges_that_read_opens(record: Record, tmp_path: Path) -> None:
    home = str(record.path.parent)
    record.close()
    args = ["--home", home, "search", "certbot renew", "--group", "--json", "--limit", "12"]
    out = CliRunner().invoke(cli, args)
    assert out.exit_code == 0, out.output
    reply = json.loads(out.stdout)
    assert "hits" not in reply
    groups = reply["groups"]
    assert groups and sum(len(g["hits"]) for g in groups) == 12
    scores = [g["score"] for g in groups]
    assert scores == sorted(scores, reverse=True)
    with Record(Path(home) / "record.sqlite3") as again:
        for g in groups:
            inside = {e.address for e in read(again, g["range"])}
            assert {h["address"] for h in g["hits"]} <= inside
            assert all(h["session"] == g["session"] for h in g["hits"])


def test_the_exact_error_line_a_person_asks_back_for_comes_first(record: Record) -> None:
    hits = search(record, "what did the renewal error say", limit=3, meaning=False)
    assert "Renewal failed: urn:ietf:params:acme:error:unauthorized" in hits[0].snippet
    assert hits[0].author == "tool"


def _transcript(tmp_path: Path, turns: list[tuple[str, str]]) -> Record:
    """One Claude Code session of plain (role, text) turns a minute apart, synced into a fresh record."""
    return synced_transcript(tmp_path, [(role, text, f"2026-11-20T10:{i:02d}:00.000Z")
                                        for i, (role, text) in enumerate(turns)])


def test_the_answer_beside_the_question_outranks_a_repeat_of_one_rare_word(tmp_path: Path) -> None:
    record = _transcript(tmp_path, [
        ("user", "Which port does the staging proxy listen on now?"),
        ("assistant", "Since the migration it listens on 8443, with the old 8080 closed."),
        ("user", "ok"),
        ("user", "The proxy, the proxy, the proxy: every ticket this week names the proxy."),
        ("user", "Thanks."),
        ("user", "Let us look at the billing export next."),
    ])
    hits = search(record, "what port does the staging proxy listen on", limit=3, meaning=False)
    assert "8443" in texts(record, hits)[0] or "8443" in texts(record, hits)[1]
    assert all("every ticket" not in t for t in texts(record, hits)[:2])


def test_rerank_bonuses_count_neighbours_favour_substance_and_scale_by_author(tmp_path: Path) -> None:
    from total_recall.find import search as module

    record = _transcript(tmp_path, [
        ("user", "Which port does the staging proxy listen on?"),
        ("assistant", "It listens on 8443 since the migration last week, the old port is closed."),
        ("user", "ok"),
        ("user", "Something else entirely, about the invoices and the billing export for March."),
    ])
    ids = [r[0] for r in record.execute("SELECT id FROM entries ORDER BY seq")]
    fts = module.words_query("staging proxy port listen")
    assert fts is not None
    bonus = module._text_features(record, fts, ids, "staging proxy port listen")
    question, answer, short, unrelated = (bonus[i] for i in ids)
    assert answer > unrelated  # the question beside it holds every word asked
    assert answer > question  # same coverage, but the question asks rather than answers
    assert short < answer  # "ok" holds nothing
    assert module._stem("listening") == module._stem("listens") == "listen"


def test_a_broad_filter_ranks_exactly_as_it_did_when_its_tags_were_scored_too(
    record: Record, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Broad tags (author, harness) now filter beside bm25 instead of inside it, which spares counting a
    # third of the record per tag; scores and order must not change.
    queries = ["restart the production database", "certificate renewal failed", "/etc/ssl/private", "commit"]
    filters: list[dict[str, object]] = [
        {"author": ["agent"]}, {"author": ["owner", "tool"]}, {"harness": ["codex"]},
        {"harness": ["claude-code"], "since": "2000-01-01"},
    ]

    def ranked() -> list[list[tuple[str, float]]]:
        return [
            [(h.address, h.score) for h in search(record, q, limit=25, meaning=False, **f)]  # type: ignore[arg-type]
            for q in queries for f in filters
        ]

    monkeypatch.setattr(search_module, "SPARSE", 0)  # this record's words are all sparse: take the tag paths
    beside = ranked()
    monkeypatch.setattr(Filters, "pinpoints", lambda self: True)
    assert ranked() == beside
    assert sum(len(r) for r in beside) > 60


def test_filtered_words_with_few_matches_rank_as_the_filtered_index_ranks_them(
    record: Record, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Words matching few entries are ranked whole and filtered afterwards, instead of the filter's tags
    # joining the query: the same hits, scores and order, for every kind of filter.
    queries = ["restart the production database", "certificate renewal failed", "/etc/ssl/private",
               "certbot", "3f9c2e"]
    filters: list[dict[str, object]] = [
        {"author": ["agent"]}, {"harness": ["codex"]}, {"session": 1}, {"project": "webshop"},
        {"project": "/srv/webshop", "author": ["owner", "tool"]}, {"since": "2026-11-20"},
        {"harness": ["claude-code"], "since": "2026-11-16T15:00:00"}, {"project": "/no/such/project"},
    ]

    def ranked() -> list[list[tuple[str, float]]]:
        return [
            [(h.address, h.score) for h in search(record, q, limit=25, meaning=False, **f)]  # type: ignore[arg-type]
            for q in queries for f in filters
        ]

    sparse = ranked()
    monkeypatch.setattr(search_module, "SPARSE", 0)
    assert ranked() == sparse
    assert sum(len(r) for r in sparse) > 150
    assert all(r == [] for r in sparse[len(filters) - 1 :: len(filters)])  # no such project: nothing


def test_a_snippet_is_one_line_where_most_query_words_meet_and_marks_its_cuts() -> None:
    text = ("renewal " + "filler words here " * 40 + "\n\n    the   certbot\trenewal failed: rate limit\n"
            + "more filler " * 40)
    shown = snippet(text, ["certbot", "renewal", "failed"], width=80)
    assert "certbot renewal failed: rate limit" in shown
    assert shown.startswith("…") and shown.endswith("…") and "\n" not in shown
    assert len(shown) == 82
    assert snippet("certbot renewal failed", ["failed"]) == "certbot renewal failed"
    assert snippet("", ["x"]) == ""


def test_an_error_line_s_opening_words_find_the_entries_holding_that_line(tmp_path: Path) -> None:
    record = _transcript(tmp_path, [
        ("user", "The import broke again, look at the tests."),
        ("assistant", "TypeError: Cannot read properties of undefined (reading 'map') in the cart view."),
        ("assistant", "TypeError: x is not a function, in the checkout view."),
        ("user", "And the other one?"),
        ("assistant", "TypeError: Cannot read properties of null (reading 'total') in the basket."),
    ])
    hits = search(record, "TypeError: Cannot read properties of undefined", limit=5, meaning=False)
    assert "reading 'map'" in hits[0].snippet
    only_the_type = search(record, "TypeError:", limit=5, meaning=False)
    assert len({h.address for h in only_the_type}) == 3  # the bare type still finds every such line

    # The exact list itself: the whole opening first, the bare type where nothing starts so.
    def exact(query: str) -> list[str]:
        tokens = [t for t in query.split() if looks_exact(t)]
        ids = search_module._exact(record, tokens, None, None, query)
        seq = "SELECT seq FROM entries WHERE id = ?"
        return [read(record, f"s1#{record.execute(seq, (i,)).fetchone()[0]}")[0].text for i in ids]

    assert [t[:40] for t in exact("TypeError: Cannot read properties of undefined")] == [
        "TypeError: Cannot read properties of und"]
    assert len(exact("TypeError: Cannot read")) == 2
    assert len(exact("TypeError: banana split")) == len(exact("TypeError:")) == 3


def test_an_exact_prefix_lookup_is_answered_from_the_key_index_alone(record: Record) -> None:
    # A common error line is stored thousands of times: a table lookup per copy was most of the lookup.
    plan = " ".join(str(r[3]) for r in record.execute(
        "EXPLAIN QUERY PLAN SELECT DISTINCT entry FROM strings WHERE key LIKE ? ESCAPE '\\' "
        "ORDER BY entry DESC LIMIT ?", ("TypeError%", 200)))
    assert "COVERING INDEX strings_key" in plan, plan
    assert search_module._exact(record, ["/etc/ssl/private"], None) != []


def test_the_entries_holding_an_error_fragment_as_typed_come_before_those_sharing_one_word(
        tmp_path: Path) -> None:
    from tests.conftest import SESSIONS

    s = Record(tmp_path / "record.sqlite3")
    root = tmp_path / "claude"
    root.mkdir()
    name = "real_v1.0.51_summaries_326189cf.jsonl"  # its type checker failed twice on "is not callable"
    (root / name).write_bytes((SESSIONS / "claude_code" / name).read_bytes())
    assert sync(s, ["claude-code"], roots={"claude-code": root}).errors == []
    hits = search(s, "is not callable", limit=10, meaning=False)
    holding = [n for n, t in enumerate(texts(s, hits)) if "is not callable" in t]
    assert len(holding) >= 2 and holding[1] <= 2, holding  # two of them in the first three
