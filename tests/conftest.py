"""Shared test fixtures: where the copied fixtures live, and an environment that never sees live stores."""

from __future__ import annotations

from pathlib import Path

import pytest

from total_recall.llm.settings import ENV, PRESETS

REPO = Path(__file__).resolve().parents[1]
# Copies of public fixtures (tests/fixtures/README.md says where each came from): a plain clone has
# nothing beside it, so the tests read only what the repository holds.
FIXTURES = REPO / "tests" / "fixtures"
SESSIONS = FIXTURES / "sessions"
PROMPT_CULT = FIXTURES / "prompt_cult"
JARVIS = FIXTURES / "jarvis"


@pytest.fixture(autouse=True)
def _isolated_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Point HOME and the record at tmp, arm the sandbox so no test can read a live store, and unset every
    model setting."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("TOTAL_RECALL_HOME", str(tmp_path / "record"))
    monkeypatch.setenv("TOTAL_RECALL_SANDBOX", "1")
    # Embedding is slow; only the tests of meaning search turn it on.
    monkeypatch.setenv("TOTAL_RECALL_VECTOR_BUDGET", "0")
    for var in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "VIBE_HOME", "OPENCLAW_DIR", "PI_CODING_AGENT_DIR",
                "OPENCODE_CONFIG_DIR", "XDG_DATA_HOME",
                "XDG_CONFIG_HOME", "TOTAL_RECALL_CLAUDE_ROOT", "TOTAL_RECALL_CODEX_ROOT",
                "TOTAL_RECALL_OPENCODE_ROOT", "TOTAL_RECALL_VIBE_ROOT", "TOTAL_RECALL_OPENCLAW_ROOT",
                # No model unless a test points at its stub: a key on the machine must not reach one.
                *ENV.values(), *(p.key_env for p in PRESETS.values() if p.key_env)):
        monkeypatch.delenv(var, raising=False)
