"""Erase reaches the copies the tool writes outside the record: exported `observations.md` files (at the
record's home, at a folder the owner chose, and one an older version left at the home) and the names of
overflow files, which once carried a query's words.

Everything runs through the CLI with `--home`, as the owner does; the files are then read byte for byte.
"""

from __future__ import annotations

import json
import os
import stat
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from tests.keeping_helpers import Transcript
from tests.stores import empty_roots
from total_recall.surfaces.cli import cli

CANARY = "zq7canary"
RULE = f"Never deploy the {CANARY} service on a Friday afternoon."
KEPT = "Run the linter before every push."


class Owner:
    """A Claude Code store of the owner's sessions and the record home the CLI serves."""

    def __init__(self, root: Path, home: Path) -> None:
        self.root = root
        self.home = home

    def run(self, *args: str) -> Result:
        result = CliRunner().invoke(cli, ["--home", str(self.home), *args])
        assert result.exit_code == 0, result.output + result.stderr
        return result

    def json(self, *args: str) -> Any:
        return json.loads(self.run(*args, "--json").stdout)

    def cited(self, text: str) -> str:
        """The address of the (one) entry the observation holding `text` came from."""
        [row] = [o for o in self.json("observations")["observations"] if text in o["text"]]
        [address] = row["addresses"]
        return str(address)


@pytest.fixture
def owner(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Owner:
    """Two sessions observed mechanically: one holds the canary rule, the other a rule that stays."""
    empty_roots(tmp_path, monkeypatch)
    me = Owner(tmp_path / "claude-code", tmp_path / "record")
    start = datetime.now(UTC) - timedelta(days=1)
    for n, said in enumerate((RULE, KEPT), start=1):
        t = Transcript(me.root / "-work-shop" / f"0000000{n}-2b1d-4c8e-9f60-3d4e5f6a7b8c.jsonl", "/work/shop",
                       start + timedelta(hours=n))
        t.owner(said)
        t.agent("Noted.")
    me.run("sync", "--harness", "claude-code")
    me.run("observe")
    return me


def notes(owner: Owner) -> None:
    """A third session of forty notes naming the canary, synced: enough for a capped reply to spill."""
    t = Transcript(owner.root / "-work-shop" / "00000003-2b1d-4c8e-9f60-3d4e5f6a7b8c.jsonl", "/work/shop")
    for n in range(40):
        t.owner(f"Note {n}: the {CANARY} service restarts when its queue passes {n * 1000} jobs.")
    owner.run("sync", "--harness", "claude-code")


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def holding(folder: Path, needle: str) -> list[str]:
    """The files under `folder` whose name or bytes hold `needle` (case-blind)."""
    word = needle.lower().encode()
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*")
                  if p.is_file() and (word in p.name.lower().encode() or word in p.read_bytes().lower()))


def test_an_export_is_private_and_written_whole_without_a_temp_file_left(owner: Owner,
                                                                        tmp_path: Path) -> None:
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    old = os.umask(0o022)
    try:
        first = Path(owner.json("observations", "export", "--to", str(workspace))["path"])
        first.chmod(0o644)  # as an older version left it
        again = Path(owner.json("observations", "export", "--to", str(workspace))["path"])
        home = Path(owner.json("observations", "export")["path"])
    finally:
        os.umask(old)
    assert again == first and home == owner.home / "observations.md"
    assert (mode(first), mode(home)) == (0o600, 0o600)
    assert RULE in first.read_text(encoding="utf-8") and KEPT in home.read_text(encoding="utf-8")
    assert sorted(p.name for p in workspace.iterdir()) == ["observations.md"]
    assert not [p.name for p in owner.home.iterdir() if p.name.startswith(".observations")
                or p.name.endswith(".tmp")]


def test_erase_takes_a_withdrawn_observation_out_of_every_export_the_tool_wrote(
        owner: Owner, tmp_path: Path) -> None:
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    chosen = tmp_path / "notes" / "rules.md"
    chosen.parent.mkdir()
    owner.run("observations", "export", "--to", str(workspace))
    owner.run("observations", "export", "--to", str(chosen))
    owner.run("observations", "export")
    exports = [workspace / "observations.md", chosen, owner.home / "observations.md"]
    assert all(RULE in p.read_text(encoding="utf-8") for p in exports)
    owner.run("erase", owner.cited(RULE), "--reason", "the owner's erase")
    for path in exports:
        text = path.read_text(encoding="utf-8")
        assert CANARY not in text and KEPT in text, path  # rewritten from the current observations
        assert mode(path) == 0o600, path
    assert holding(tmp_path, CANARY) == ["claude-code/-work-shop/00000001-2b1d-4c8e-9f60-3d4e5f6a7b8c.jsonl"]


def test_erase_reaches_an_export_an_older_version_left_at_the_home(owner: Owner) -> None:
    # What an older version wrote: the default path, readable by others, no note of where it wrote, and
    # the temp file of a write that died before its rename.
    old = owner.home / "observations.md"
    old.write_text(f"# Observations\n\n## High priority\n\n- {RULE} (s1#1)\n", encoding="utf-8")
    old.chmod(0o644)
    (owner.home / "observations.md.tmp").write_text(f"# Observations\n\n- {RULE}", encoding="utf-8")
    # And one of this version's, from an export killed before its rename.
    killed = owner.home / "observations.md.total-recall-k1ll3d00.tmp"
    killed.write_text(f"# Observations\n\n- {RULE}", encoding="utf-8")
    owner.run("erase", owner.cited(RULE), "--reason", "the owner's erase")
    assert CANARY not in old.read_text(encoding="utf-8") and mode(old) == 0o600
    assert not (owner.home / "observations.md.tmp").exists() and not killed.exists()
    assert holding(owner.home, CANARY) == []


def test_erase_leaves_a_file_at_an_export_path_alone_once_it_is_no_longer_an_export(
        owner: Owner, tmp_path: Path) -> None:
    chosen = tmp_path / "rules.md"
    owner.run("observations", "export", "--to", str(chosen))
    chosen.write_text(f"my own notes about {CANARY}\n", encoding="utf-8")  # the owner's file now
    owner.run("erase", owner.cited(RULE), "--reason", "the owner's erase")
    assert chosen.read_text(encoding="utf-8") == f"my own notes about {CANARY}\n"


def test_no_overflow_file_keeps_an_erased_text_in_its_name(owner: Owner) -> None:
    notes(owner)
    owner.run("search", f"{CANARY} service restarts", "--json", "--max-bytes", "1024")
    overflow = owner.home / "overflow"
    assert list(overflow.iterdir()) and not [p.name for p in overflow.iterdir() if CANARY in p.name]
    # A file an older version named after the query, holding none of the session's text.
    legacy = overflow / f"search_{CANARY}-service-friday_1700000000000_4242_1.md"
    legacy.write_text("{}\n", encoding="utf-8")
    legacy.chmod(0o600)
    owner.run("erase", "s3", "--reason", "the owner's erase")
    owner.run("erase", owner.cited(RULE), "--reason", "the owner's erase")
    assert holding(owner.home, CANARY) == []


def test_an_erase_killed_after_its_commit_is_finished_by_the_next_command(
        owner: Owner, monkeypatch: pytest.MonkeyPatch) -> None:
    from total_recall import erasure

    owner.run("observations", "export")
    notes(owner)
    owner.run("search", CANARY, "--limit", "50", "--json", "--max-bytes", "1024")
    assert holding(owner.home / "overflow", "on a Friday afternoon"), "a capped reply spilled the rule"

    def killed(record: object) -> list[Path]:
        raise KeyboardInterrupt  # the process dies between the erase's commit and its clean-up

    monkeypatch.setattr(erasure, "refresh_exports", killed)
    args = ["--home", str(owner.home), "erase", owner.cited(RULE), "--reason", "gone"]
    assert CliRunner().invoke(cli, args).exit_code != 0
    assert holding(owner.home / "overflow", "on a Friday afternoon") == []  # purged before the commit
    assert RULE in (owner.home / "observations.md").read_text(encoding="utf-8")
    monkeypatch.undo()
    owner.run("sessions")  # any next command finishes the clean-up
    assert RULE not in (owner.home / "observations.md").read_text(encoding="utf-8")
    assert KEPT in (owner.home / "observations.md").read_text(encoding="utf-8")
    assert not list(owner.home.glob("*.erase-pending"))


def test_a_reply_writes_its_overflow_file_while_no_erase_can_start(
        owner: Owner, monkeypatch: pytest.MonkeyPatch) -> None:
    # An erase takes the record's erase lock alone: were it free while a reply read before the erase
    # writes its overflow file, the file would come after the erase's purge.
    import fcntl

    from total_recall.mining import flood

    notes(owner)
    real_spill = flood.spill
    erase_could_start: list[bool] = []

    def spill_as_an_erase_tries(tool: str, scope: str, text: str) -> flood.Overflow:
        fd = os.open(owner.home / "record.sqlite3.erase-lock", os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            erase_could_start.append(True)
        except BlockingIOError:
            erase_could_start.append(False)
        finally:
            os.close(fd)
        return real_spill(tool, scope, text)

    monkeypatch.setattr(flood, "spill", spill_as_an_erase_tries)
    owner.run("search", f"{CANARY} service restarts", "--json", "--max-bytes", "1024")
    assert erase_could_start == [False]


def test_a_sync_an_erase_lands_in_keeps_no_overflow_file_of_what_it_read_before(
        owner: Owner, monkeypatch: pytest.MonkeyPatch) -> None:
    # A call that adds runs without the erase lock (a sync may take minutes): its reply, read before the
    # erase, must not be written to an overflow file after the erase's purge.
    from total_recall import erasure
    from total_recall.mining import indexing
    from total_recall.record.database import Record

    notes(owner)
    sessions = owner.json("sessions")["sessions"]
    named = [s["session"] for s in sessions if CANARY in (s["title"] or "")]
    assert len(named) == 2
    real = indexing.vector_coverage

    def erased_meanwhile(record: Record, numbers: list[int]) -> Any:
        with Record(owner.home / "record.sqlite3") as other:
            for address in named:
                erasure.erase(other, address, "erased while the index call ran")
        return real(record, numbers)

    monkeypatch.setattr(indexing, "vector_coverage", erased_meanwhile)
    reply = owner.json("index-sessions", "--all", "--budget", "0", "--max-bytes", "1500")
    assert reply["held_back"] > 0 and reply["overflow"]["file"] is None
    assert "an erase landed while this call ran" in reply["overflow"]["withheld"]
    assert holding(owner.home / "overflow", CANARY) == []
    monkeypatch.undo()
    again = owner.json("index-sessions", "--all", "--budget", "0", "--max-bytes", "1500")
    assert Path(again["overflow"]["file"]).is_file()  # with no erase meanwhile, the whole reply is kept


def test_an_erase_purges_an_overflow_file_holding_only_the_title_the_erased_message_gave(
        owner: Owner) -> None:
    # A short first line titles the session; a listing's overflow file holds that title and none of the
    # message's other words.
    t = Transcript(owner.root / "-work-shop" / "00000004-2b1d-4c8e-9f60-3d4e5f6a7b8c.jsonl", "/work/shop")
    t.owner(f"go {CANARY}\nand then the rest of a long request about the billing service and its queues")
    for n in range(30):
        padding = owner.root / "-work-shop" / f"1{n:07d}-2b1d-4c8e-9f60-3d4e5f6a7b8c.jsonl"
        Transcript(padding, "/work/shop").owner(f"Session {n} about nothing in particular, padding it out.")
    owner.run("sync", "--harness", "claude-code")
    listed = owner.json("sessions", "--limit", "100", "--max-bytes", "1000000")["sessions"]
    [address] = [s["session"] for s in listed if s["title"] == f"go {CANARY}"]
    owner.run("index-sessions", "--all", "--budget", "0", "--max-bytes", "1500", "--json")
    spilled = [p for p in holding(owner.home / "overflow", f"go {CANARY}")
               if "and then the rest" not in (owner.home / "overflow" / p).read_text(encoding="utf-8")]
    assert spilled, "no overflow file holds the title alone"
    owner.run("erase", f"{address}#1", "--reason", "the owner's erase")
    assert holding(owner.home / "overflow", CANARY) == []


def test_an_erase_names_the_exports_it_left_alone_because_the_owner_changed_them(
        owner: Owner, tmp_path: Path) -> None:
    chosen = tmp_path / "notes" / "rules.md"
    chosen.parent.mkdir()
    owner.run("observations", "export", "--to", str(chosen))
    owner.run("observations", "export")
    with chosen.open("a", encoding="utf-8") as fh:
        fh.write("- my own line, added by hand\n")
    reply = owner.json("erase", owner.cited(RULE), "--reason", "the owner's erase")
    assert reply["exports_left_alone"] == [str(chosen)] and reply["exports_rewritten"] == 1
    assert RULE in chosen.read_text(encoding="utf-8")  # his file now: left as he made it, and said
    assert RULE not in (owner.home / "observations.md").read_text(encoding="utf-8")
    again = owner.json("erase", owner.cited(KEPT), "--reason", "the owner's erase")
    assert again["exports_left_alone"] == [str(chosen)]  # said by every erase, not only the first


def test_an_entry_a_sync_adds_before_the_erase_takes_its_lock_leaves_no_overflow_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from contextlib import contextmanager

    from tests.keeping_sessions import ClaudeSession
    from total_recall import erasure
    from total_recall.mining.flood import overflow_folder, spill
    from total_recall.record.database import Record

    secret = f"the launch code is {CANARY}-omega-42 and nobody may know it"
    monkeypatch.setenv("TOTAL_RECALL_HOME", str(tmp_path / "home"))
    session = ClaudeSession(tmp_path / "claude")
    session.owner("Please refactor the parser module.").agent("Done.")
    with Record(tmp_path / "home" / "record.sqlite3") as record:
        number = session.sync(record)
        real = erasure._erasing

        @contextmanager
        def late(path: Path, texts: list[str]) -> Any:
            # Between the erase's read of the session and its lock: a sync adds the owner's next message,
            # and a reply read from it spills it.
            session.owner(secret)
            session.sync(record)
            spill("read", f"s{number}", f"reply: {secret}\n\n\n")
            with real(path, texts) as under:
                yield under

        monkeypatch.setattr(erasure, "_erasing", late)
        done = erasure.erase(record, f"s{number}", "gone")
    assert len(done.erased) == 3
    assert [p.name for p in overflow_folder().iterdir() if CANARY in p.read_text(encoding="utf-8")] == []


def test_a_refused_erase_leaves_no_mark_and_the_next_command_keeps_the_overflow_files(owner: Owner) -> None:
    notes(owner)
    owner.run("search", f"{CANARY} service restarts", "--json", "--max-bytes", "1024")
    files = sorted(p.name for p in (owner.home / "overflow").iterdir())
    assert files
    refused = CliRunner().invoke(cli, ["--home", str(owner.home), "erase", "s2#1", "--reason", " "])
    assert refused.exit_code == 2 and "reason" in refused.stderr
    assert not list(owner.home.glob("*.erase-pending"))
    owner.run("sessions")
    assert sorted(p.name for p in (owner.home / "overflow").iterdir()) == files
