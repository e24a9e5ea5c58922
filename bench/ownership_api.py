"""Every call the ownership bench makes into Total Recall, in one place: a signature that lands differently
is fixed here only. `missing()` says, in a sentence, why the asset index cannot be measured yet."""

from __future__ import annotations

import importlib
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, fields, is_dataclass
from pathlib import Path
from typing import Any

from total_recall.erasure import erase as erase_target
from total_recall.model import Address
from total_recall.record.database import Record
from total_recall.syncing import sync as sync_record

SETUPS = ("TOPIC", "NAMES", "USES", "CO_ACCESS", "OVERLAY", "NAMED_SLOT", "FULL", "BASELINE")
# The push by meaning (the vectors extra): FULL's words fused with each asset's key vectors, and the
# baseline by meaning (every asset's name and description embedded, the same budget).
MEANING = "+MEANING"
MEANING_SETUPS = ("FULL" + MEANING, "BASELINE" + MEANING)


class BenchError(Exception):
    """The code under test is missing or answers in a shape the bench does not know."""


@dataclass(frozen=True)
class Pointer:
    name: str
    kind: str
    line: str
    source: str
    score: float
    why: str


@dataclass(frozen=True)
class Reply:
    pointers: list[Pointer]
    tokens: int
    shape: tuple[str, ...]  # every other field of the reply with its value, to compare replies whole


def _assets() -> Any:
    return importlib.import_module("total_recall.assets")


def missing() -> str | None:
    try:
        mod = _assets()
    except ImportError as exc:
        return f"total_recall.assets is not importable yet ({exc}): the asset index has not landed"
    absent = [n for n in ("rebuild", "push", "Setup", "mute", "unmute") if not hasattr(mod, n)]
    if absent:
        return f"total_recall.assets lacks {', '.join(absent)}"
    setups = [s for s in SETUPS if not hasattr(mod.Setup, s.removesuffix(MEANING))]
    if setups:
        return f"total_recall.assets.Setup lacks {', '.join(setups)}"
    return None


@contextmanager
def _home(home: Path) -> Iterator[None]:
    """HOME points at the synthetic owner while the index reads config roots, so no real one is read."""
    saved = {k: os.environ.get(k) for k in ("HOME", "CLAUDE_CONFIG_DIR", "TOTAL_RECALL_CLAUDE_ROOT")}
    os.environ["HOME"] = str(home)
    os.environ.pop("CLAUDE_CONFIG_DIR", None)
    os.environ["TOTAL_RECALL_CLAUDE_ROOT"] = str(home / ".claude" / "projects")
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def sync(record: Record, home: Path) -> None:
    report = sync_record(record, ["claude-code"], roots={"claude-code": home / ".claude" / "projects"})
    if report.errors:
        raise BenchError(f"sync of {home} failed: {report.errors[:3]}")


def rebuild(record: Record, home: Path, *, meaning: bool = True) -> Any:
    with _home(home):
        return _assets().rebuild(record, roots={"claude-code": home / ".claude"}, meaning=meaning)


def meaning_available() -> bool:
    """Whether the vectors extra loads here (the meaning setups are measured only then)."""
    try:
        from total_recall.indexes import vectors
    except ImportError:
        return False
    return bool(vectors.available())


def push(
    record: Record, home: Path, text: str, setup: str, *, session: int | None = None, cwd: str | None = None
) -> Reply:
    mod = _assets()
    base, meaning = setup.removesuffix(MEANING), setup.endswith(MEANING)
    with _home(home):
        got = mod.push(record, text, session=session, cwd=cwd, setup=getattr(mod.Setup, base),
                       meaning=meaning)
    try:
        pointers = [
            Pointer(str(p.name), str(p.kind), str(p.line), str(p.source), float(p.score), str(p.why))
            for p in got.pointers
        ]
        tokens = int(got.tokens)
    except AttributeError as exc:
        raise BenchError(f"push returned {type(got).__name__} without {exc.name}") from None
    other: tuple[str, ...] = ()
    if is_dataclass(got):
        other = tuple(
            f"{f.name}={getattr(got, f.name)!r}" for f in fields(got) if f.name not in ("pointers", "tokens")
        )
    return Reply(pointers, tokens, other)


def mute(record: Record, name: str) -> None:
    _assets().mute(record, name)


def erase(record: Record, session: int) -> None:
    erase_target(record, f"s{session}", "ownership bench: erased route")


def quarantine(record: Record, session: int) -> None:
    record.quarantine(Address(session), "ownership bench: quarantined route")
