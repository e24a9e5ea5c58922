"""The window tools on the bundled demo, whose sessions are fixed in time (2026-11-16 to 2026-11-20): a window
counts back from the demo's newest entry, not from now, and says so; so the help's examples answer on the
demo as written. A record of one's own keeps counting from now."""

from __future__ import annotations

import json
import shlex
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from total_recall.config import OVERRIDE_VARS, demo_roots
from total_recall.ops import by_name
from total_recall.surfaces.cli import cli

NEWEST = "2026-11-20T09:14:28Z"  # the demo's newest entry (s3, the Codex session)


def run(home: Path, *args: str) -> Result:
    result = CliRunner().invoke(cli, ["--home", str(home), *args], catch_exceptions=False)
    assert result.exit_code == 0, result.output + result.stderr
    return result


def example(name: str) -> list[str]:
    """The operation's example from its --help, without `total-recall`."""
    words = shlex.split(by_name(name).example)
    assert words[0] == "total-recall"
    return words[1:]


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    home = tmp_path_factory.mktemp("demo")
    # The help's own example of index-sessions, run first: it syncs the demo store into the demo's record.
    indexed = json.loads(run(home, "--demo", *example("index_sessions"), "--json").stdout)
    assert indexed["sync"]["entries_added"] > 0
    yield home


def as_json(home: Path, *args: str) -> Any:
    return json.loads(run(home, "--demo", *args, "--json").stdout)


def test_a_demo_window_counts_back_from_the_demo_s_newest_entry_and_says_so(demo: Path) -> None:
    listed = as_json(demo, "list")
    assert listed["window"] == (f"the last 240 h of the demo (the default window), up to its newest entry "
                                f"{NEWEST}")
    assert [r["session"] for r in listed["sessions"]] == ["s3", "s1", "s2"]
    hours = as_json(demo, "list", "--hours", "48")
    assert hours["window"] == f"the last 48 h of the demo, up to its newest entry {NEWEST}"
    assert [r["session"] for r in hours["sessions"]] == ["s3"]  # s1 and s2 end on 2026-11-16


def test_the_help_s_examples_of_the_window_tools_answer_on_the_demo(demo: Path) -> None:
    listed = as_json(demo, *example("list_sessions"))
    assert [r["session"] for r in listed["sessions"]] == ["s3"]
    qa = as_json(demo, *example("extract_qa_pairs"))
    assert qa["scope"] == f"the last 48 h of the demo, up to its newest entry {NEWEST}"
    assert [p["asked"] for s in qa["sessions"] for p in s["pairs"]] == ["s3#6", "s3#41"]
    dreamt = as_json(demo, *example("do_android_dream_of_electric_sheep"))
    assert dreamt["sessions"] == ["s3"] and dreamt["hits"]
    shown = run(demo, "--demo", *example("do_android_dream_of_electric_sheep")).stdout
    assert "sessions searched: 1 (s3)" in shown and "\ns3#" in shown
    said = as_json(demo, *example("she_said_he_said_action"))
    assert said["hit_count"] > 0
    indexed = as_json(demo, *example("index_sessions"))
    assert [r["session"] for r in indexed["sessions"]] == ["s3", "s1", "s2"]
    assert indexed["scope"].startswith("the last 240 h of the demo (the default window), up to its newest")


def test_a_record_of_one_s_own_holding_the_demo_s_sessions_still_counts_from_now(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for harness, root in demo_roots().items():
        monkeypatch.setenv(OVERRIDE_VARS[harness], str(root))
    own = tmp_path / "own"
    run(own, "sync", "--harness", "codex", "--json")
    listed = json.loads(run(own, "list", "--json").stdout)
    assert listed["window"] == "the last 240 h (the default window)" and listed["window_count"] == 0
    assert json.loads(run(own, "list", "--all", "--json").stdout)["window_count"] == 1


def test_he_said_she_said_on_the_demo_does_not_take_staging_for_the_word_tag(demo: Path) -> None:
    said = as_json(demo, "he-said-she-said", "--words", "tag", "--session", "s3")
    assert said["hit_count"] == 0  # s3#20 "Now staging: …" holds no word "tag"
    staging = as_json(demo, "he-said-she-said", "--words", "staging", "--session", "s3")
    assert "s3#20" in [h["address"] for s in staging["sessions"] for h in s["hits"]]
