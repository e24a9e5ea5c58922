"""An erase that lands while a summary block is being written (the model is answering) never leaves the erased
words in the block: the erase is run by the loopback model itself, between the read and the write, through
the record's own erase, and the record's files are then searched byte for byte (as in tests/test_erase.py)."""

from __future__ import annotations

import json
import sqlite3
from collections import deque
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from tests.keeping_sessions import ClaudeSession
from tests.llm_stub import Reply, Stub, completion, running_stub
from tests.test_erase import found, home
from total_recall.model import Address
from total_recall.record.database import Record
from total_recall.surfaces.cli import cli

TOKEN = "tok-5d2b81c0e9"
WORD = "5d2b81c0e9"  # the word index keeps this part of the token as a term of its own
SECRET = f"the deploy token is {TOKEN}, keep it out of the logs"


def run(*args: str) -> Any:
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.output + result.stderr
    return json.loads(result.stdout)




class _Acting(deque[Reply]):
    """The stub's script, running `act` when the model is asked (after the read, before the answer)."""

    def __init__(self, act: Callable[[], None], replies: list[Reply]) -> None:
        super().__init__(replies)
        self.act: Callable[[], None] | None = act

    def popleft(self) -> Reply:
        act, self.act = self.act, None
        if act is not None:
            act()
        return super().popleft()


def erase_while_answering(stub: Stub, address: str, *replies: Reply) -> None:
    """The first request the model gets erases `address` (another connection, as another process would)
    before it is answered; the rest are answered as scripted."""

    def act() -> None:
        with Record(home() / "record.sqlite3") as record:
            record.erase(Address.parse(address), "pasted while the model was summarising")

    stub.replies = _Acting(act, list(replies))


def paraphrase(text: str) -> Reply:
    # What a model does with a secret it was shown: repeats it without citing where it stood.
    return Reply(body=completion(text, {"prompt_tokens": 900, "completion_tokens": 120}))


@pytest.fixture
def session(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> ClaudeSession:
    """A Claude Code session whose third entry holds the secret, synced into the record."""
    claude = ClaudeSession(tmp_path / "claude")
    claude.owner("Set up the deploy for staging.").agent("Which token should the deploy use?")
    claude.owner(SECRET).agent("Noted; I will not print it.")
    claude.owner("Now run the test suite.").agent("Running the test suite now.")
    monkeypatch.setenv("TOTAL_RECALL_CLAUDE_ROOT", str(claude.root))
    run("sync", "--json")
    return claude


@pytest.fixture
def stub(monkeypatch: pytest.MonkeyPatch) -> Iterator[Stub]:
    with running_stub() as s:
        for name, value in s.env().items():
            monkeypatch.setenv(name, value)
        yield s


@pytest.fixture
def reader(session: ClaudeSession) -> Iterator[sqlite3.Connection]:
    """Another connection on the record, idle between reads like a server's (so the WAL is not deleted on
    the last close, which would hide what was left in it)."""
    db = sqlite3.connect(home() / "record.sqlite3")
    db.execute("SELECT COUNT(*) FROM entries").fetchone()
    yield db
    db.close()


def test_a_block_whose_entry_is_erased_while_the_model_answers_is_not_stored_and_the_reply_says_so(
        session: ClaudeSession, stub: Stub, reader: sqlite3.Connection) -> None:
    erase_while_answering(stub, "s1#3", paraphrase(
        f"- The owner set up the deploy; the key mentioned was {TOKEN}.\n- The test suite ran."))
    reply = run("summarise-from", "s1", "--json")
    assert TOKEN in stub.prompt(0)  # the model was given the words before the erase
    cache = run("summary-cache", "s1", "--text", "--json")
    assert TOKEN not in json.dumps(cache) and TOKEN not in json.dumps(reply)
    assert found(WORD) == {}
    assert cache["blocks"] == [] and cache["next"] == "s1#1"
    assert reply["block"] is None
    assert reply["not_stored"] == {"range": "s1#1-6", "erased": ["s1#3"]}
    assert "[block s1#1-6 not stored: s1#3 was erased while it was written]" in reply["text"]
    assert any("s1#3 was erased while the model was writing s1#1-6" in n for n in reply["notices"])
    # Summarised again, the prompt carries the tombstone and no earlier text holding the words.
    again = run("summarise-from", "s1", "--json")
    assert again["block"]["range"] == "s1#1-6" and TOKEN not in stub.prompt(1)
    assert found(WORD) == {}


def test_a_block_whose_prompt_carried_an_entry_erased_while_the_model_answers_is_not_stored(
        session: ClaudeSession, stub: Stub, reader: sqlite3.Connection) -> None:
    # The first block quotes the secret; the next one is written from a prompt carrying that block, and the
    # secret's entry is erased while the model answers it.
    stub.script(paraphrase(f"- The owner gave the deploy token {TOKEN} (s1#3)."))
    assert run("summarise-from", "s1#1-4", "--json")["block"]["range"] == "s1#1-4"
    erase_while_answering(stub, "s1#3", paraphrase(
        f"- Ran the test suite with the token {TOKEN} given earlier."))
    reply = run("summarise-from", "s1", "--json")
    assert TOKEN in stub.prompt(1)
    cache = run("summary-cache", "s1", "--text", "--json")
    assert TOKEN not in json.dumps(cache) and TOKEN not in json.dumps(reply)
    assert found(WORD) == {}
    assert [b["range"] for b in cache["blocks"]] == ["s1#1-4"]
    assert cache["blocks"][0]["erased_since"] == ["s1#3"] and cache["blocks"][0]["text"] is None
    assert reply["block"] is None and reply["not_stored"] == {"range": "s1#5-6", "erased": ["s1#3"]}


def test_a_block_written_before_an_erase_in_the_same_millisecond_is_still_blanked(
        session: ClaudeSession, stub: Stub, reader: sqlite3.Connection, monkeypatch: pytest.MonkeyPatch
) -> None:
    # One clock reading for the block and the erase (two events in the same millisecond): the erase that
    # follows the block still blanks it, and reading it back withholds it.
    from total_recall.record import database, summary_blocks

    monkeypatch.setattr(database, "now", lambda: "2026-12-02T10:00:00.00Z")
    monkeypatch.setattr(summary_blocks, "now", lambda: "2026-12-02T10:00:00.00Z")
    stub.script(paraphrase(f"- The owner set up the deploy with {TOKEN}."))
    assert run("summarise-from", "s1", "--json")["block"]["range"] == "s1#1-6"
    run("erase", "s1#3", "--reason", "a deploy token", "--json")
    [block] = run("summary-cache", "s1", "--text", "--json")["blocks"]
    assert block["erased_since"] == ["s1#3"] and block["text"] is None
    assert found(WORD) == {}
