"""The observing bench's generator writes native Claude Code files the project's reader takes whole, and
the bench runs to its tables."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent.parent / "bench"
sys.path.insert(0, str(BENCH))

from observing_data import make_history, shares_word, write_day  # noqa: E402
from total_recall.model import Address  # noqa: E402
from total_recall.readers import Cursor, reader_for  # noqa: E402
from total_recall.record.database import Record  # noqa: E402
from total_recall.syncing import sync  # noqa: E402


def test_generated_days_parse_with_the_claude_code_reader_and_sync_whole(tmp_path: Path) -> None:
    history = make_history(5, "report", days=12)
    projects = tmp_path / "projects"
    for day in range(history.days):
        write_day(projects, history, day)
    reader = reader_for("claude-code")
    sources = list(reader.sources(projects))
    assert len(sources) == len(history.sessions)
    items = [item for s in sources for item in reader.read(s, Cursor())]
    assert [i for i in items if type(i).__name__ == "ReadWarning"] == []
    for path in projects.rglob("*.jsonl"):
        for line in path.read_text(encoding="utf-8").splitlines():
            fields = set(json.loads(line))
            assert {"uuid", "parentUuid", "sessionId", "timestamp", "type", "message"} <= fields
    (tmp_path / "record").mkdir()
    record = Record(tmp_path / "record" / "record.sqlite3")
    assert sync(record, ["claude-code"], roots={"claude-code": projects}).errors == []
    sessions = {s.native_id: s for s in record.sessions()}
    children = [s for s in history.sessions if s.parent is not None]
    assert len(sessions) == len(history.sessions) and children
    assert all(sessions[c.id].relation == "subagent" for c in children)
    owner_text = "\n".join(e.text for s in record.sessions() for e in record.entries(_all(s.number))
                           if e.author == "owner")
    assert all(p.text in owner_text for p in history.planted)
    record.close()


def test_every_paraphrase_shares_no_word_with_its_sentence_but_names() -> None:
    for half in ("report", "fit"):
        history = make_history(9, half, days=30)
        probes = [p for p in history.planted if p.paraphrase]
        assert probes
        for p in probes:
            assert not shares_word(p.paraphrase, p.text, p.names), (p.text, p.paraphrase)


def test_the_halves_never_share_a_phrasing_and_the_seed_reproduces_the_history() -> None:
    report, fit = make_history(4, "report", days=30), make_history(4, "fit", days=30)
    assert [p.text for p in report.planted] == [p.text for p in make_history(4, "report", days=30).planted]
    assert [p.text for p in report.planted] != [p.text for p in make_history(5, "report", days=30).planted]
    assert not {p.text for p in report.planted} & {p.text for p in fit.planted}


def test_the_quick_bench_exits_0_with_its_tables(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(BENCH / "observing.py"), "--quick", "--seed", "3", "--json",
         str(tmp_path / "out.json")],
        capture_output=True, text=True, check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    for table in ("== mechanical observer", "== pasted text", "== after the reflector", "== with a model",
                  "== with a real endpoint", "== cost"):
        assert table in done.stdout
    assert "--seed 3" in done.stdout
    figures = json.loads((tmp_path / "out.json").read_text())
    assert figures["model"]["kept_bad"] == {} and sum(figures["model"]["sent"].values()) > 0


def _all(session: int) -> Address:
    return Address(session, None, None)
