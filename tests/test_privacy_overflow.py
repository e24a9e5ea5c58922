"""Erase reaches an overflow file however a surface rewrote the erased text in it: a search snippet that
flattened a tool result's short lines to one line (whole, or cut with "…"), a report's line joining them
with ⏎, and the JSON escapes of a `--json` reply — while a capped reply quoting none of it stays.

Everything runs through the CLI with `--home`, as the owner does; the files are then read byte for byte.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.keeping_helpers import Transcript
from tests.stores import empty_roots
from tests.test_erase_copies import Owner as CliOwner

SECRET = "SECzz11q7"
# An env dump: every line shorter than the 16 characters a distinctive line needs.
ENV_DUMP = f"deploy host\nuser=deploy\npw={SECRET}\nhost=db01\nport=5432\ntok=TKzz11ab\nregion=eu-west\n"
# The owner pasting one alike: a report quotes an owner's message, line breaks shown as ⏎.
PASTE_SECRET = "PINqq42x"
PASTE = f"deploy creds\nuser=ops\npin={PASTE_SECRET}\nzone=b\n"
# Longer than a snippet's 160 characters once flattened, so a snippet of it is cut on both sides.
LONG_DUMP = "".join(f"k{n:02d}=v{n:02d}\n" for n in range(15)) + f"pw={SECRET}\n" + "".join(
    f"k{n:02d}=v{n:02d}\n" for n in range(15, 30))


class Owner(CliOwner):
    """The owner of test_erase_copies, who also looks into the overflow files."""

    def holding(self, needle: str) -> list[Path]:
        return [p for p in (self.home / "overflow").iterdir() if needle.encode() in p.read_bytes()]


def full_report(output: str) -> Path:
    """The overflow file a capped text report names."""
    named = next(line for line in output.splitlines() if line.startswith("full_report: "))
    return Path(named.split(": ", 1)[1])


@pytest.fixture
def owner(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Owner:
    """One session: the owner asks, a Bash call prints `ENV_DUMP` (s1#3), another `LONG_DUMP` (s1#5), the
    owner pastes `PASTE` (s1#6), then filler notes of the agent mentioning the deploy host, enough to
    overflow a 1 KiB reply."""
    roots = empty_roots(tmp_path, monkeypatch)
    me = Owner(roots["claude-code"], tmp_path / "record")
    t = Transcript(me.root / "-work-probe" / "aaaaaaaa-1111-4222-8333-444444444444.jsonl", "/work/probe")
    t.owner("check the deploy host please")
    t.tool("Bash", {"command": "cat deploy.env", "description": "show deploy host env"}, ENV_DUMP)
    t.tool("Bash", {"command": "cat keys.env", "description": "show the keys"}, LONG_DUMP)
    t.owner(PASTE)
    for n in range(12):
        t.agent(f"deploy host note number {n} with some filler words to take space")
    me.run("sync", "--harness", "claude-code")
    return me


def test_erase_removes_a_search_overflow_whose_json_snippet_flattened_a_result_of_short_lines_only(
        owner: Owner) -> None:
    reply = owner.json("search", "deploy host", "--limit", "50", "--max-bytes", "1024")
    spilled = Path(reply["overflow"]["file"])
    assert " ".join(ENV_DUMP.split()) in spilled.read_text(encoding="utf-8")
    # A capped reply quoting none of it: filler notes that share words, no run of it.
    other = owner.json("search", "filler words", "--limit", "50", "--max-bytes", "1024")
    kept = Path(other["overflow"]["file"])
    assert SECRET.encode() not in kept.read_bytes()

    done = owner.json("erase", "s1#3", "--reason", "a password")

    assert done["overflow_files_removed"] == 1 and not spilled.exists() and kept.exists()
    assert owner.holding(SECRET) == []


def test_erase_removes_a_text_report_holding_a_cut_snippet_of_the_result(owner: Owner) -> None:
    out = owner.run("dream", "k14=v14 deploy host", "--session", "s1", "--limit", "50",
                    "--max-bytes", "1024").stdout
    spilled = full_report(out)
    snippet = next(line for line in spilled.read_text(encoding="utf-8").splitlines() if SECRET in line)
    assert "| …" in snippet and snippet.endswith("…")  # cut on both sides, its lines flattened

    owner.run("erase", "s1#5", "--reason", "a password")

    assert not spilled.exists() and owner.holding(SECRET) == []


def test_erase_removes_a_report_that_joined_a_messages_short_lines_with_return_signs(owner: Owner) -> None:
    out = owner.run("he-said-she-said", "--words", "deploy", "--session", "s1", "--max-bytes", "1024").stdout
    spilled = full_report(out)
    assert f"pin={PASTE_SECRET} ⏎ zone=b" in spilled.read_text(encoding="utf-8")

    owner.run("erase", "s1#6", "--reason", "a pin")

    assert not spilled.exists() and owner.holding(PASTE_SECRET) == []
