"""The main record and the demo's share a home: an erase in one rewrites only the exports that record
wrote, never the other's with its own notes — with the ledger this version keeps, and with the one an older
version kept (bare paths, the home's own `observations.md` unlisted)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from tests.stores import synced_transcript
from total_recall.surfaces.cli import cli

RULE = "Always run the linter before every push."
TURNS = [("user", RULE, "2026-05-01T10:00:00Z"),
         ("assistant", "Will do.", "2026-05-01T10:01:00Z")]


@dataclass
class Home:
    """A home holding the main record and the demo's, each observed and exported."""

    path: Path
    main_export: Path
    demo_export: Path

    def run(self, *args: str) -> dict[str, Any]:
        done = CliRunner().invoke(cli, ["--home", str(self.path), *args, "--json"], catch_exceptions=False)
        assert done.exit_code == 0, done.output
        reply: dict[str, Any] = json.loads(done.stdout)
        return reply

    def cited_by_the_demo(self) -> tuple[str, str]:
        """An entry of the demo's an observation cites, and that observation's text."""
        first = self.run("--demo", "observations")["observations"][0]
        return first["addresses"][0], first["text"]


@pytest.fixture
def home(tmp_path: Path) -> Home:
    folder = tmp_path / "rec"
    synced_transcript(folder, TURNS).close()
    at = Home(folder, folder / "observations.md", tmp_path / "workspace" / "observations.md")
    at.run("--demo", "sync")
    at.run("observe", "--mechanical")
    at.run("--demo", "observe", "--mechanical")
    assert at.run("observations", "export")["path"] == str(at.main_export)
    at.run("--demo", "observations", "export", "--to", str(at.demo_export))
    assert RULE in at.main_export.read_text(encoding="utf-8")
    return at


def test_an_erase_in_one_record_rewrites_its_own_export_and_never_the_other_records(home: Home) -> None:
    main_before = home.main_export.read_text(encoding="utf-8")
    address, text = home.cited_by_the_demo()
    assert text in home.demo_export.read_text(encoding="utf-8")

    erased = home.run("--demo", "erase", address, "--reason", "not for the notes")
    assert (erased["exports_rewritten"], erased["exports_left_alone"]) == (1, [])
    assert home.main_export.read_text(encoding="utf-8") == main_before
    demo_after = home.demo_export.read_text(encoding="utf-8")
    assert text not in demo_after

    erased = home.run("erase", "s1#1", "--reason", "not for the notes")
    assert (erased["exports_rewritten"], erased["exports_left_alone"]) == (1, [])
    assert RULE not in home.main_export.read_text(encoding="utf-8")
    assert home.demo_export.read_text(encoding="utf-8") == demo_after


def test_an_older_versions_ledger_is_read_by_whose_notes_each_export_holds(home: Home) -> None:
    # As an older version left it: bare paths, and the home's own export not listed at all.
    (home.path / "observations-exported.json").write_text(json.dumps([str(home.demo_export)]),
                                                          encoding="utf-8")
    main_before = home.main_export.read_text(encoding="utf-8")
    address, text = home.cited_by_the_demo()

    assert home.run("--demo", "erase", address, "--reason", "not for the notes")["exports_rewritten"] == 1
    assert home.main_export.read_text(encoding="utf-8") == main_before
    demo_after = home.demo_export.read_text(encoding="utf-8")
    assert text not in demo_after

    assert home.run("erase", "s1#1", "--reason", "not for the notes")["exports_rewritten"] == 1
    assert RULE not in home.main_export.read_text(encoding="utf-8")
    assert home.demo_export.read_text(encoding="utf-8") == demo_after


def _forget_every_note(record_file: Path) -> None:
    """What the reflector does to the notes it merges: they leave the record, ids and all."""
    from total_recall.record import observations
    from total_recall.record.database import Record

    with Record(record_file) as record:
        observations.delete(record, [o.id for o in observations.read(record)])


@pytest.mark.parametrize("beside", [False, True], ids=["alone", "beside-the-demo"])
def test_an_older_versions_export_none_of_whose_notes_remain_is_rewritten_or_named(tmp_path: Path,
                                                                                  beside: bool) -> None:
    folder = tmp_path / "rec"
    synced_transcript(folder, TURNS).close()
    at = Home(folder, folder / "observations.md", tmp_path / "elsewhere" / "observations.md")
    if beside:
        at.run("--demo", "sync")
    at.run("observe", "--mechanical")
    at.run("observations", "export", "--to", str(at.demo_export))
    (folder / "observations-exported.json").write_text(json.dumps([str(at.demo_export)]), encoding="utf-8")
    _forget_every_note(folder / "record.sqlite3")
    assert RULE in at.demo_export.read_text(encoding="utf-8")

    erased = at.run("erase", "s1#1", "--reason", "not for the notes")
    if beside:  # maybe the demo's: left as it is, but named, as it may hold the words erased
        assert erased["exports_left_alone"] == [str(at.demo_export)]
    else:  # no other record in the home: this one's, rewritten
        assert erased["exports_rewritten"] == 1 and RULE not in at.demo_export.read_text(encoding="utf-8")
