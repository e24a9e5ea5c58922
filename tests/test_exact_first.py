"""Exact strings first: a query that is, or holds, an exact string (an error line, a path, a hash, a URL, a
command) ranks the entries holding that whole string above entries that merely share its words."""

from __future__ import annotations

from pathlib import Path

from tests.keeping_sessions import ClaudeSession
from total_recall.find.search import search
from total_recall.record.database import Record
from total_recall.record.reading import read

FILLER = ("The deploy of the billing service went through the usual checks and the staging cluster "
          "answered every probe in time. ")


def _text(record: Record, address: str) -> str:
    return read(record, address)[0].text


def test_a_whole_error_line_asked_back_ranks_the_entry_holding_it_above_its_look_alike_lines(
    tmp_path: Path,
) -> None:
    record = Record(tmp_path / "record.sqlite3")
    session = ClaudeSession(tmp_path / "claude")
    wanted = "x509: certificate signed by unknown authority (code 3771b1)"
    # The line asked for sits mid-way through a long output (past the part the exact index scans); six
    # look-alikes differing only in the code follow, each alone in a short output (bm25 favours them) and
    # newer (the word lists walk newest first).
    session.owner("Pull the images from the internal registry again.")
    session.tool("docker pull registry.internal/app:latest",
                 FILLER * 40 + f"\nError response from daemon: {wanted}\n" + FILLER * 40)
    for code in ("3771b2", "a771b1", "3f71c9", "0e12aa", "77b1c3", "9d0c41"):
        session.owner("Try the pull once more, with the certificate bundle mounted.")
        session.tool("docker pull registry.internal/app:latest",
                     f"x509: certificate signed by unknown authority (code {code})")
    session.sync(record)
    hits = search(record, wanted, limit=10, meaning=False)
    assert wanted in _text(record, hits[0].address)
    assert sum("unknown authority" in _text(record, h.address) for h in hits) >= 6


def test_an_abbreviated_hash_finds_the_entry_holding_the_full_hash_first(tmp_path: Path) -> None:
    record = Record(tmp_path / "record.sqlite3")
    session = ClaudeSession(tmp_path / "claude")
    full = "3771b0e4c2d9a8f61b5e0c7d2a9f4e3b1c8d6a05"
    sha256 = "c0ffee" + "9a41d2" * 9 + "b7e1"  # 64 hex characters
    session.owner("Which commit broke the cart? Check the log.")
    session.tool("git log --oneline -5", "commit 3771a9e2 (HEAD) tidy the cart view\n"
                 "3771c40 rename the basket\n1b2c3d4 bump the lockfile")
    session.agent(f"The regression came in with commit {full}, which changed the cart totals.")
    session.tool("sha256sum dist/app.tar.gz", f"{sha256}  dist/app.tar.gz")
    session.agent("The other commits (3771a9e2, 3771c40) only renamed things.")
    session.sync(record)
    for prefix in (full[:5], full[:6], full[:7], full[:12], full):
        hits = search(record, prefix, limit=5, meaning=False)
        assert hits and full in _text(record, hits[0].address), prefix
    for prefix in (sha256[:7], sha256):
        hits = search(record, prefix, limit=5, meaning=False)
        assert hits and sha256 in _text(record, hits[0].address), prefix


def test_a_path_query_ranks_the_entry_naming_that_path_above_paths_sharing_most_of_it(tmp_path: Path) -> None:
    record = Record(tmp_path / "record.sqlite3")
    session = ClaudeSession(tmp_path / "claude")
    wanted = "/srv/shop/services/payments/config/tls.yaml"
    session.owner(f"Look at {wanted} before the switch; " + FILLER * 4)
    for path in ("/srv/shop/services/payments/config/tls.yml", "/srv/shop/services/payouts/config/tls.yaml",
                 "/srv/shop/services/payments/config/ssl.yaml", "/srv/shop/services/payments/conf/tls.yaml",
                 "/srv/shop/service/payments/config/tls.yaml",
                 "/srv/shop/services/payments/config/tls.yaml.bak"):
        session.agent(f"Read {path}")
    session.sync(record)
    hits = search(record, wanted, limit=10, meaning=False)
    assert hits[0].author == "owner" and wanted in _text(record, hits[0].address)


def test_a_snippet_is_plain_text_centred_on_the_exact_string_matched(tmp_path: Path) -> None:
    record = Record(tmp_path / "record.sqlite3")
    session = ClaudeSession(tmp_path / "claude")
    # A tool output recorded with its JSON envelope: the text holds `\n` and `\"` escapes.
    envelope = ('runner stdout: {"output": "' + "On branch main\\nnothing to commit\\n" * 30
                + 'git branch -a && echo \\"---\\"\\n* main\\n  remotes/origin/main\\n'
                + "Already up to date.\\n" * 30 + '", "metadata": {"exit_code": 0}}')
    session.owner("List the branches, please.")
    session.tool("git branch -a", envelope)
    session.sync(record)
    hits = search(record, 'git branch -a && echo "---"', limit=3, meaning=False)
    shown = hits[0].snippet
    assert 'git branch -a && echo "---"' in shown
    assert "\\n" not in shown and '\\"' not in shown
    at = shown.index("git branch -a")
    assert 30 < at < len(shown) - 60  # context on both sides: centred, not starting at the match


def test_a_line_asked_back_without_quotes_ranks_the_entry_holding_it_whole_first(tmp_path: Path) -> None:
    # Found on a real session (marot/spotter): the one output with 12 failures ranked 15th among its
    # look-alikes until the question was put in quotes.
    record = Record(tmp_path / "record.sqlite3")
    session = ClaudeSession(tmp_path / "claude")
    session.owner("Run the suite.")
    session.tool("mix test", FILLER * 30 + "\nFinished in 4.2 seconds\n14 doctests, 127 tests, 12 failures\n")
    for failures in (3, 2, 1, 0, 0, 0):
        session.owner("Again.")
        session.tool("mix test", f"14 doctests, 127 tests, {failures} failures")
    session.owner("The owner said: main was clean; fix the issues. Then test again.")
    session.sync(record)
    for line in ("14 doctests, 127 tests, 12 failures", "main was clean; fix the issues"):
        hits = search(record, line, limit=10, meaning=False)
        assert hits and line in _text(record, hits[0].address), line
