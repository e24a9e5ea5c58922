"""An erase that lands while the reflector or the nightly cycle is at work (after its first read of the
observations, before it writes) never has its words copied back: the erase runs through the record's own
erase, on another connection as another process would, from the observations table's read itself — the
first read those runs make outside their write transaction. The record's files are then searched byte for
byte (as in tests/test_erase.py)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from tests import observing_owner
from tests.stores import empty_roots
from tests.test_observe_surfaces import three_days
from total_recall.model import Address
from total_recall.record import observations as table
from total_recall.record.database import Record

# Two sessions' first prompts, kept as low-priority context notes; the second says the first whole, so the
# reflector drops the first into it. The first is phrased so that its words in this order stand nowhere else.
FIRST = "please look at the deploy script of the kestrel billing service"
SECOND = ("please look at the deploy script for the kestrel billing service and the nightly release job, "
          "then the invoice one")


class Owner(observing_owner.Owner):
    """The owner, with what these tests ask of him."""

    def found(self, words: str) -> dict[str, int]:
        """How often `words` occur in each file under the record's home, byte for byte."""
        needle = words.encode()
        counts = {str(p.relative_to(self.home)): p.read_bytes().count(needle)
                  for p in self.home.rglob("*") if p.is_file()}
        return {name: n for name, n in counts.items() if n}


@pytest.fixture
def owner(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Owner:
    empty_roots(tmp_path, monkeypatch)
    return Owner(tmp_path / "claude-code", tmp_path / "record")


@pytest.fixture
def reader(owner: Owner) -> Iterator[Callable[[], None]]:
    """Another connection on the record, idle between reads like a server's (so the WAL is not deleted on
    the last close, which would hide what was left in it); call it once the record exists."""
    held: list[sqlite3.Connection] = []

    def hold() -> None:
        db = sqlite3.connect(owner.home / "record.sqlite3")
        db.execute("SELECT COUNT(*) FROM entries").fetchone()
        held.append(db)

    yield hold
    for db in held:
        db.close()


def erase_after_first_read(owner: Owner, monkeypatch: pytest.MonkeyPatch, address: str) -> None:
    """The next read of the observations table erases `address` right after it has read, as an erase run
    by another process at that moment would."""
    read = table.read
    pending = [address]

    def reading(*args: Any, **kwargs: Any) -> list[table.Observation]:
        out = read(*args, **kwargs)
        if pending:
            with Record(owner.home / "record.sqlite3") as record:
                record.erase(Address.parse(pending.pop()), "pasted while the observations were tidied")
        return out

    monkeypatch.setattr(table, "read", reading)


def test_reflect_never_copies_the_quote_of_an_entry_erased_after_its_first_read(
        owner: Owner, reader: Callable[[], None], monkeypatch: pytest.MonkeyPatch) -> None:
    now = datetime.now(UTC)
    for n, prompt in enumerate((FIRST, SECOND), 1):
        t = owner.session(f"0000000{n}-2b1d-4c8e-9f60-3d4e5f6a7b8c", start=now - timedelta(days=3 - n))
        t.owner(prompt)
        t.agent("Looking at it now.")
    assert owner.run("sync", "--harness", "claude-code").exit_code == 0
    owner.json("observe", "--mechanical")
    reader()
    notes = {o["text"]: o for o in owner.json("observations")["observations"]}
    assert {FIRST, SECOND} <= set(notes) and notes[FIRST]["addresses"] == ["s1#1"]
    erase_after_first_read(owner, monkeypatch, "s1#1")

    reply = owner.json("reflect", "--force")

    assert owner.found(FIRST) == {}
    listed = owner.json("observations")["observations"]
    assert all("s1#1" not in o["addresses"] for o in listed)
    assert FIRST not in json.dumps(listed) and FIRST not in json.dumps(reply)
    assert [o["text"] for o in listed] == [SECOND]  # the note that would have taken it in stays, as it was
    assert reply["left_out"] == [notes[FIRST]["id"]]
    assert f"observation {notes[FIRST]['id']} withdrawn by an erase" in reply["reason"]


def test_an_applied_night_planned_before_an_erase_rolls_back_and_stages_none_of_its_words(
        owner: Owner, reader: Callable[[], None], monkeypatch: pytest.MonkeyPatch) -> None:
    three_days(owner)  # a theme seen on three days: the night stages it for the owner
    owner.json("observe")
    reader()
    assert owner.json("nightly")["metrics"]["proposals"] == 1
    erase_after_first_read(owner, monkeypatch, "s1#1")  # and its copies, the same words in s2 and s3

    night = owner.json("nightly", "--apply")

    assert owner.found("small commits with a one-line") == {}
    assert owner.json("proposals")["proposals"] == []
    assert night["outcome"].startswith("rolled back: ") and "withdrawn (an erase)" in night["outcome"]
    assert "run the night again" in night["outcome"]
    # Run again, the night plans from what is there now.
    again = owner.json("nightly", "--apply")
    assert not again["outcome"].startswith("rolled back")
    assert owner.found("small commits with a one-line") == {}
