"""The ownership bench's generator: native files the project's own readers take, and requests that share no
word with their asset."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"
sys.path.insert(0, str(BENCH))

from ownership_data import content_words, make_owner, shares_word, subagent_plan, write_owner  # noqa: E402
from total_recall.model import Address  # noqa: E402
from total_recall.readers import Cursor, reader_for  # noqa: E402
from total_recall.record.database import Record  # noqa: E402
from total_recall.syncing import sync  # noqa: E402


def test_generated_sessions_parse_with_the_claude_code_reader_and_sync_whole(tmp_path: Path) -> None:
    owner = make_owner(0, seed=7, half="report", per_owner=12)
    parent, child = subagent_plan(owner)
    write_owner(tmp_path, owner, late=False, extra=(parent, child))
    projects = write_owner(tmp_path, owner, late=True)
    reader = reader_for("claude-code")
    sources = list(reader.sources(projects))
    assert len(sources) == len(owner.plans) + 2
    warnings = [
        item for s in sources for item in reader.read(s, Cursor()) if type(item).__name__ == "ReadWarning"
    ]
    assert warnings == []
    record = Record(tmp_path / "record.sqlite3")
    assert sync(record, ["claude-code"], roots={"claude-code": projects}).errors == []
    sessions = {s.native_id: s for s in record.sessions()}
    assert len(sessions) == len(owner.plans) + 2
    assert sessions[child.id].relation == "subagent"
    assert sessions[child.id].parent == sessions[parent.id].number


def test_the_config_root_holds_skills_commands_agents_and_mcp_servers(tmp_path: Path) -> None:
    owner = make_owner(1, seed=7, half="report", per_owner=32)
    write_owner(tmp_path, owner, late=False)
    root = tmp_path / ".claude"
    skills = list(root.glob("skills/*/SKILL.md")) + list(tmp_path.glob("work/*/.claude/skills/*/SKILL.md"))
    assert len(skills) == sum(a.kind == "skill" for a in owner.assets)
    assert all(p.read_text().startswith("---\nname: ") for p in skills)
    assert list(root.glob("commands/*.md")) and list(root.glob("agents/*.md"))
    assert "mcpServers" in (tmp_path / ".claude.json").read_text()


@pytest.mark.parametrize("catalogue", ["main", "blind"])
def test_every_kept_request_shares_no_content_word_with_its_asset(catalogue: str) -> None:
    for index in range(4):
        owner = make_owner(index, seed=11, half="report", per_owner=24, catalogue=catalogue)
        assert owner.cases
        for case in owner.cases:
            assert not shares_word(case.request, owner.asset(case.target).stored), case
        for request, _, shared in owner.dropped:
            assert shared and shared <= content_words(request)


def test_a_history_is_dated_in_the_order_it_happened(tmp_path: Path) -> None:
    owner = make_owner(3, seed=7, half="report", per_owner=24)
    projects = write_owner(tmp_path, owner, late=False)
    record = Record(tmp_path / "record.sqlite3")
    sync(record, ["claude-code"], roots={"claude-code": projects})
    started = {s.native_id: min(e.timestamp or "" for e in record.entries(Address(s.number)))
               for s in record.sessions()}
    order = [p.id for p in owner.plans if not p.late]
    assert [started[i] for i in order] == sorted(started[i] for i in order)  # a script written, then run


def test_the_generator_is_reproducible_from_its_seed() -> None:
    a, b = make_owner(2, 5, "report", 24), make_owner(2, 5, "report", 24)
    assert [c.request for c in a.cases] == [c.request for c in b.cases]
    assert [c.request for c in a.cases] != [c.request for c in make_owner(2, 6, "report", 24).cases]


def test_the_quick_bench_runs_to_its_tables(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(BENCH / "ownership.py"), "--quick", "--seed", "3", "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "== eligibility" in done.stdout


def test_more_history_ties_each_asset_to_more_earlier_requests_and_keeps_them_out_of_the_new_ones() -> None:
    one, three = make_owner(4, 7, "report", 24), make_owner(4, 7, "report", 24, history=3)
    assert len(three.plans) - len(one.plans) == 2 * len(three.assets)  # two more sessions an asset
    assert [c.request for c in one.cases] == [c.request for c in make_owner(4, 7, "report", 24).cases]
    # A new request is never one of its asset's own earlier ones (a co-access case asks a neighbour's task).
    for case in (c for c in three.cases if c.category != "co-access"):
        own = [p for p in three.plans if p.assets == {case.target}]  # its evidence (and its creation)
        assert len(own) >= 3
        assert case.request not in {e.text for p in own for e in p.events}
    with pytest.raises(ValueError, match="history must be 1 to 4"):
        make_owner(4, 7, "report", 24, history=5)
