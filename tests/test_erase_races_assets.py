"""An erase that commits while the asset index is being rebuilt (issue 18 under issue 15): the rebuild reads
the record, works for seconds, then writes the index in one transaction. The erase's triggers ran before
those rows existed, so the write itself must leave out whatever an entry erased since the read gave: no
word of it may come back into the record's files, the listing or the push.

The interleaving is forced, not timed: a function the rebuild calls between its read and its write is
wrapped here so that it erases, through the public API and on a connection of its own (another process's,
as `total-recall erase` beside a running sync would be), before handing back what the rebuild asked for.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from tests.test_assets import Session, write
from tests.test_erase import found, home
from total_recall.assets import index, push, rebuild
from total_recall.erasure import erase
from total_recall.indexes import vectors
from total_recall.record.database import Record
from total_recall.surfaces.cli import cli
from total_recall.syncing import sync

WORD = "zqzebra4471"  # in every entry of the erased session that an asset, key or mute is made from




def run(*args: str) -> str:
    got = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    assert got.exit_code == 0, got.output + got.stderr
    return got.stdout


@pytest.fixture
def owner(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A config root (a skill, an agent) and two sessions: `secret` holds the word in a request a
    correction ties to the skill, in a script the agent wrote and ran, in the owner's own decision, and
    says a mute; `kept` has nothing to erase and must keep its assets. Returns the config root."""
    root = tmp_path / ".claude"
    monkeypatch.setenv("TOTAL_RECALL_CLAUDE_ROOT", str(root / "projects"))
    write(root / "skills" / "portal-relay" / "SKILL.md",
          "---\nname: portal-relay\ndescription: Relays commands to a logged-in browser session.\n---\n")
    write(root / "agents" / "code-reviewer.md",
          "---\nname: code-reviewer\ndescription: Reviews a diff for bugs before a merge\n---\nYou review.\n")
    app = tmp_path / "app"
    secret = Session(root, "secret", str(app))
    secret.owner(f"download the {WORD} report from the supplier portal")
    secret.agent("I can't reach the supplier portal from here, it needs a login.")
    secret.owner("you have the portal-relay skill for that")
    secret.call("Skill", {"skill": "portal-relay"}, "relay started")
    secret.owner(f"make a script that rotates the {WORD} logs")
    secret.call("Write", {"file_path": f"{app}/rotate_zq.sh",
                          "content": f"#!/bin/sh\n# Rotate the {WORD} logs\n"})
    secret.bash(f"sh {app}/rotate_zq.sh", "rotated")
    secret.owner(f"Decided: we ship the TLS relay with {WORD} from now on, never nginx.")
    secret.agent("Ok.")
    secret.owner("please don't mention the code-reviewer agent anymore")
    kept = Session(root, "kept", str(app), day=2)
    kept.owner("write a script that cleans the gpu cache")
    kept.call("Write", {"file_path": f"{app}/gpu_clean.py", "content": "# Clean the gpu cache\n"})
    kept.bash(f"python {app}/gpu_clean.py", "freed")
    return root


@pytest.fixture
def reader() -> Iterator[Callable[[], sqlite3.Connection]]:
    """Another connection on the record, held open while the files are searched, as a running MCP server
    holds it: closing the last one would checkpoint the WAL and hide what the rebuild left in it."""
    held: list[sqlite3.Connection] = []

    def open_() -> sqlite3.Connection:
        db = sqlite3.connect(home() / "record.sqlite3")
        db.execute("SELECT COUNT(*) FROM entries").fetchone()
        held.append(db)
        return db

    yield open_
    for db in held:
        db.close()


def erase_secret(root: Path) -> list[str]:
    """Erase the whole `secret` session through the public API, on a connection of its own."""
    native = Session(root, "secret", "").id
    other = Record(home() / "record.sqlite3")
    try:
        number = next(s.number for s in other.sessions() if s.native_id == native)
        return erase(other, f"s{number}", "private").erased
    finally:
        other.close()


def interleaved(monkeypatch: pytest.MonkeyPatch, name: str, root: Path) -> dict[str, Any]:
    """Wrap `index.<name>` (called by the rebuild after it read the record, before it writes) so that it
    erases the `secret` session once; what it saw is returned in the dict."""
    original = getattr(index, name)
    seen: dict[str, Any] = {}

    def wrapped(*args: Any, **kwargs: Any) -> Any:
        out = original(*args, **kwargs)
        if "erased" not in seen:
            seen["read"] = WORD in repr(args)  # the rebuild had read the words the erase takes
            seen["result"] = out
            seen["erased"] = erase_secret(root)
        return out

    monkeypatch.setattr(index, name, wrapped)
    return seen


def assert_gone(reader: Callable[[], sqlite3.Connection], asked: list[str]) -> None:
    db = reader()
    assert found(WORD) == {}
    for table, columns in (("asset_keys", ("entry", "via")), ("asset_sources", ("entry",)),
                           ("asset_uses", ("entry",)), ("asset_mutes", ("entry",))):
        cited = " OR ".join(f"e.id = t.{c}" for c in columns)
        left = db.execute(f"SELECT COUNT(*) FROM {table} t JOIN entries e ON ({cited}) "
                          "WHERE e.erased_at IS NOT NULL").fetchone()[0]
        assert left == 0, table  # nothing the erase's triggers drop was written after them
    orphans = db.execute("SELECT COUNT(*) FROM asset_vectors WHERE (key IS NOT NULL AND key NOT IN "
                         "(SELECT id FROM asset_keys)) OR asset NOT IN (SELECT id FROM assets)").fetchone()[0]
    assert orphans == 0
    listed = json.loads(run("assets", "--json"))["assets"]
    shown = json.dumps(listed) + "".join(run("push", a, "--json") for a in asked)
    assert WORD not in shown
    names = {a["name"] for a in listed}
    assert {"portal-relay", "code-reviewer", "gpu_clean.py"} <= names  # what the erase did not name stays
    assert "rotate_zq.sh" not in names
    assert not db.execute("SELECT COUNT(*) FROM asset_mutes").fetchone()[0]  # the mute it said went too


ASKED = [f"download the {WORD} report", f"rotate the {WORD} logs", "how do we ship the TLS relay"]


def test_an_erase_while_a_rebuild_embeds_leaves_no_word_key_or_vector_of_it(
        owner: Path, monkeypatch: pytest.MonkeyPatch, reader: Callable[[], sqlite3.Connection]) -> None:
    run("sync", "--harness", "claude-code")  # the first sync builds the index
    listed = run("assets", "--json")
    assert WORD in listed and "rotate_zq.sh" in listed  # what is at stake
    seen = interleaved(monkeypatch, "key_vectors", owner)  # the last step before the write
    # The package's rebuild (an agent on the package, the sync's daily one): `assets --rebuild` holds the
    # erase lock shared as every reading operation does, so through it an erase waits; this holds none.
    with Record(home() / "record.sqlite3") as record:
        rebuild(record, {"claude-code": owner})
    assert seen["erased"] and seen["read"]
    assert_gone(reader, ASKED)
    # The vectors made from the erased words (in the rebuild's hands when the erase committed) stay out.
    assert not vectors.available() or any(WORD in text for text in seen["result"])
    for text, vec in seen["result"].items():
        if WORD in text:
            assert found(vec) == {}, text


def test_an_erase_during_the_rebuild_a_sync_makes_leaves_no_word_of_it(
        owner: Path, monkeypatch: pytest.MonkeyPatch, reader: Callable[[], sqlite3.Connection]) -> None:
    seen = interleaved(monkeypatch, "mine", owner)  # just after the read
    sync = json.loads(run("sync", "--harness", "claude-code", "--json"))
    assert sync["assets"] is not None and seen["erased"] and seen["read"]
    assert_gone(reader, ASKED)


def test_a_mute_said_since_the_rebuild_stops_muting_once_erased_in_a_process_that_pushed_before(
        tmp_path: Path) -> None:
    """The push's overlay (the owner's words since the last rebuild) is kept by a process until the record
    grows; an erase adds no entry, so the overlay read before it must not keep a mute it took out."""
    root = tmp_path / ".claude"
    write(root / "agents" / "code-reviewer.md",
          "---\nname: code-reviewer\ndescription: Reviews a diff for bugs before a merge\n---\nYou review.\n")
    s = Session(root, "review", str(tmp_path / "app"))
    s.owner("write a script that cleans the gpu cache")
    record = Record(home() / "record.sqlite3")
    try:
        sync(record, ["claude-code"], roots={"claude-code": root / "projects"})
        rebuild(record, {"claude-code": root}, meaning=False)
        asked = "review the diff for bugs before the merge"

        def pushed() -> set[str]:
            return {p.name for p in push(record, asked, meaning=False).pointers}

        assert "code-reviewer" in pushed()
        s.owner("please don't mention the code-reviewer agent anymore")  # after the build: the overlay's
        sync(record, ["claude-code"], roots={"claude-code": root / "projects"})
        assert "code-reviewer" not in pushed()
        other = Record(home() / "record.sqlite3")
        try:
            number = next(x.number for x in other.sessions() if x.native_id == s.id)
            erase(other, f"s{number}#2", "private")
        finally:
            other.close()
        assert "code-reviewer" in pushed()
    finally:
        record.close()
