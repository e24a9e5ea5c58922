"""The owner of the observing tests: a Claude Code store of his sessions (written as Claude Code writes
them) and the record home the CLI and the hooks use; each test file adds what it asks of him."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from click.testing import CliRunner, Result

from tests.keeping_helpers import Transcript
from total_recall.record.database import Record
from total_recall.surfaces.cli import cli

SHOP = "/work/shop"


@dataclass
class Owner:
    root: Path
    home: Path

    def run(self, *args: str) -> Result:
        return CliRunner().invoke(cli, ["--home", str(self.home), *args])

    def json(self, *args: str) -> dict[str, Any]:
        got = self.run(*args, "--json")
        assert got.exit_code == 0, got.output + got.stderr
        reply: dict[str, Any] = json.loads(got.stdout)
        return reply

    def hook(self, stdin: str, harness: str = "claude-code") -> Result:
        return CliRunner().invoke(cli, ["--home", str(self.home), "hook", harness], input=stdin)

    def session(self, name: str, cwd: str = SHOP, start: datetime | None = None) -> Transcript:
        return Transcript(self.root / cwd.replace("/", "-") / f"{name}.jsonl", cwd, start)

    def record(self) -> Record:
        return Record(self.home / "record.sqlite3")
