"""Where things live: the demo fallback and the record home."""

from __future__ import annotations

from pathlib import Path

from total_recall.config import record_home, use_demo


def test_the_demo_store_is_used_only_on_a_machine_with_no_agent_store(tmp_path: Path) -> None:
    home = tmp_path / "machine"
    home.mkdir()
    env = {"HOME": str(home)}
    assert use_demo((), env)
    assert not use_demo(("codex",), env)
    assert not use_demo((), {**env, "TOTAL_RECALL_SANDBOX": "1"})
    (home / ".codex" / "sessions").mkdir(parents=True)
    assert not use_demo((), env)


def test_the_record_lives_in_the_xdg_data_dir_unless_told_otherwise(tmp_path: Path) -> None:
    assert record_home({"HOME": str(tmp_path)}) == tmp_path / ".local" / "share" / "total-recall"
    assert record_home({"HOME": str(tmp_path), "XDG_DATA_HOME": "/x"}) == Path("/x/total-recall")
    assert record_home({"TOTAL_RECALL_HOME": "/r"}) == Path("/r")
