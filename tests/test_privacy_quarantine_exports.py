"""Quarantine keeps an entry's words out of what observations hand out, as erase does: an exported
`observations.md` (an OpenClaw workspace loads it into the agent's window) is rewritten without what
cites the entry, the `observations` listing leaves it out as the SessionStart block does, and `--undo`
puts both back.

Everything runs through the CLI with `--home`, as the owner does; the files are then read byte for byte.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from tests.keeping_helpers import Transcript
from tests.stores import empty_roots
from tests.test_erase_copies import Owner as CliOwner

CANARY = "QX-5f5f-private"
RULE = f"Always use the {CANARY} bucket when deploying to staging."
KEPT = "Run the linter before every push."


class Owner(CliOwner):
    """The owner of test_erase_copies, who also lists the observations shown."""

    def listed(self, *args: str) -> list[str]:
        return [o["text"] for o in self.json("observations", *args)["observations"]]


@pytest.fixture
def owner(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Owner:
    """Two sessions observed mechanically: s1#1 holds the canary rule, the other a rule that stays."""
    roots = empty_roots(tmp_path, monkeypatch)
    me = Owner(roots["claude-code"], tmp_path / "record")
    start = datetime.now(UTC) - timedelta(days=1)
    for n, said in enumerate((RULE, KEPT), start=1):
        t = Transcript(me.root / "-work-shop" / f"0000000{n}-2b1d-4c8e-9f60-3d4e5f6a7b8c.jsonl", "/work/shop",
                       start + timedelta(hours=n))
        t.owner(said)
        t.agent("Understood.")
    me.run("sync", "--harness", "claude-code")
    me.run("observe", "--mechanical")
    assert sorted(me.listed()) == sorted([RULE, KEPT])
    return me


def test_quarantine_rewrites_every_export_without_what_cites_the_entry_and_undo_puts_it_back(
        owner: Owner, tmp_path: Path) -> None:
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    owner.run("observations", "export", "--to", str(workspace))
    owner.run("observations", "export")
    exports = [workspace / "observations.md", owner.home / "observations.md"]
    assert all(RULE in p.read_text(encoding="utf-8") for p in exports)

    done = owner.json("quarantine", "s1#1", "--reason", "wrong project, keep out of windows")

    for path in exports:
        text = path.read_text(encoding="utf-8")
        assert CANARY not in text and KEPT in text, path
    assert done["quarantined"] == ["s1#1"]

    released = owner.json("quarantine", "s1#1", "--undo")

    assert released["released"] == ["s1#1"]
    assert all(RULE in p.read_text(encoding="utf-8") for p in exports)


def test_the_observations_listing_leaves_out_what_cites_a_quarantined_entry_until_its_release(
        owner: Owner) -> None:
    owner.run("quarantine", "s1#1", "--reason", "wrong project, keep out of windows")

    assert owner.listed() == [KEPT]
    assert owner.listed(CANARY) == [] and owner.listed("--archived") == [KEPT]
    assert CANARY not in owner.run("observations").stdout
    owner.run("quarantine", "s1#1", "--undo")
    assert sorted(owner.listed()) == sorted([RULE, KEPT]) and owner.listed(CANARY) == [RULE]
