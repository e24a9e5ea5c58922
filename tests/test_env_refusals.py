"""Settings from the environment that make no sense are refused by name (exit 2 on the CLI, an error result
over MCP), never a traceback or a silent acceptance; and a password in the LLM endpoint's URL is never
shown, while the request still goes to the real URL."""

from __future__ import annotations

import json
import logging
import os
import shutil
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from tests.conftest import SESSIONS
from tests.llm_stub import Reply, completion, running_stub
from tests.test_mcp import Served, calls, payload, served, text
from total_recall.config import OVERRIDE_VARS
from total_recall.errors import LLMError
from total_recall.llm.provider import Message, Provider
from total_recall.record.database import Record
from total_recall.surfaces.cli import cli

__all__ = ["served"]  # the fixture, imported for pytest

EXE = Path(sys.executable).with_name("total-recall")
PASSWORD = "s3cret-pw"
ASK = [Message("user", "Summarise s1#1-4.")]


def run(*args: str, env: dict[str, str] | None = None) -> Result:
    return CliRunner().invoke(cli, list(args), env=env)


def refused(result: Result, *named: str) -> None:
    """Exit 2 with every `named` piece in the message, and no traceback."""
    assert result.exit_code == 2, (result.exit_code, result.output, result.exception)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    for piece in named:
        assert piece in result.output, (piece, result.output)


@pytest.fixture
def claude_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "claude"
    shutil.copytree(SESSIONS / "claude_code", root)
    monkeypatch.setenv("TOTAL_RECALL_CLAUDE_ROOT", str(root))
    return root


def sessions_in_record() -> int:
    path = Path(os.environ["TOTAL_RECALL_HOME"]) / "record.sqlite3"
    if not path.exists():
        return 0
    with Record(path) as record:
        return len(list(record.sessions()))


# -- 1. the LLM endpoint's password --

def with_password(url: str) -> str:
    return url.replace("http://", f"http://user:{PASSWORD}@", 1)


def test_llm_status_shows_the_endpoint_with_its_url_password_redacted_in_text_and_json(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOTAL_RECALL_LLM_BASE_URL", f"http://user:{PASSWORD}@127.0.0.1:9/v1")
    monkeypatch.setenv("TOTAL_RECALL_LLM_API_KEY", "k")
    monkeypatch.setenv("TOTAL_RECALL_LLM_MODEL", "m")
    human, as_json = run("llm-status"), run("llm-status", "--json")
    assert human.exit_code == 0 and as_json.exit_code == 0
    assert "endpoint:   http://user:[REDACTED:url-password]@127.0.0.1:9/v1/chat/completions" in human.output
    reply = json.loads(as_json.output)
    assert reply["base_url"] == "http://user:[REDACTED:url-password]@127.0.0.1:9/v1"
    assert PASSWORD not in human.output + as_json.output


def test_a_url_password_of_one_character_is_redacted_too(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOTAL_RECALL_LLM_BASE_URL", "http://user:p@127.0.0.1:9/v1")
    monkeypatch.setenv("TOTAL_RECALL_LLM_MODEL", "m")
    shown = json.loads(run("llm-status", "--json").output)
    assert shown["endpoint"] == "http://user:[REDACTED:url-password]@127.0.0.1:9/v1/chat/completions"


def test_the_mcp_llm_status_tool_never_returns_the_url_password(served: Served) -> None:
    served.env |= {"TOTAL_RECALL_LLM_BASE_URL": f"http://user:{PASSWORD}@127.0.0.1:9/v1",
                   "TOTAL_RECALL_LLM_API_KEY": "k", "TOTAL_RECALL_LLM_MODEL": "m"}
    (status,) = calls(served, [("llm_status", {})])
    got = payload(status)
    assert got["endpoint"] == "http://user:[REDACTED:url-password]@127.0.0.1:9/v1/chat/completions"
    assert PASSWORD not in text(status)


def test_each_retry_line_and_the_final_error_redact_the_url_password(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {"TOTAL_RECALL_LLM_BASE_URL": f"http://user:{PASSWORD}@127.0.0.1:{port}/v1",
           "TOTAL_RECALL_LLM_MODEL": "m"}
    sleeps: list[float] = []
    with pytest.raises(LLMError) as caught:
        Provider.from_env(home=tmp_path / "record", env=env, sleep=sleeps.append).complete(ASK)
    retries = [r.getMessage() for r in caplog.records if "retry" in r.getMessage()]
    assert len(retries) == 2 and sleeps == [1.0, 1.0]
    assert all("user:[REDACTED:url-password]@127.0.0.1" in line for line in retries)
    assert PASSWORD not in caplog.text and PASSWORD not in str(caught.value)


def test_the_request_still_goes_to_the_real_url_with_its_password(tmp_path: Path) -> None:
    with running_stub() as stub:
        stub.script(Reply(body=completion("ok (s1#4)")))
        env = stub.env(TOTAL_RECALL_LLM_BASE_URL=with_password(stub.url))
        answer = Provider.from_env(home=tmp_path / "record", env=env).complete(ASK)
    assert answer.text == "ok (s1#4)" and len(stub.requests) == 1


# -- 2. store-root overrides that are not folders --

@pytest.mark.parametrize("harness", sorted(OVERRIDE_VARS))
def test_a_root_override_naming_a_file_is_refused_by_name_and_nothing_is_recorded(
        harness: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    afile = tmp_path / "afile"
    afile.write_text("not a store\n")
    var = OVERRIDE_VARS[harness]
    monkeypatch.setenv(var, str(afile))
    refused(run("sync", "--harness", harness), var, str(afile), "not a store folder")
    assert sessions_in_record() == 0


def test_a_root_override_naming_dev_null_is_refused_by_name(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOTAL_RECALL_CLAUDE_ROOT", os.devnull)
    refused(run("sync", "--harness", "claude-code"), "TOTAL_RECALL_CLAUDE_ROOT", os.devnull)
    assert sessions_in_record() == 0


def test_a_root_override_with_an_unknown_tilde_user_is_refused_naming_the_variable(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOTAL_RECALL_CODEX_ROOT", "~no-such-user-tr/x")
    refused(run("sync", "--harness", "codex"), "TOTAL_RECALL_CODEX_ROOT", "~no-such-user-tr/x")


def test_a_root_override_naming_an_empty_folder_is_a_harness_with_no_sessions_yet(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for var in OVERRIDE_VARS.values():
        monkeypatch.setenv(var, str(tmp_path / "empty"))
    (tmp_path / "empty").mkdir()
    done = run("sync", "--json")
    assert done.exit_code == 0, done.output
    assert json.loads(done.stdout)["errors"] == [] and sessions_in_record() == 0


def test_an_unreadable_root_override_is_refused_naming_the_path(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if os.geteuid() == 0:
        pytest.skip("root reads every folder")
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o000)
    monkeypatch.setenv("TOTAL_RECALL_VIBE_ROOT", str(locked))
    try:
        refused(run("sync", "--harness", "vibe"), "TOTAL_RECALL_VIBE_ROOT", str(locked), "cannot be read")
    finally:
        locked.chmod(0o700)


# -- 3. a record home that cannot be created --

@pytest.fixture
def afile(tmp_path: Path) -> Path:
    path = tmp_path / "afile"
    path.write_text("x\n")
    return path


def test_a_home_under_a_file_is_refused_naming_the_path_and_the_reason(
        afile: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOTAL_RECALL_HOME", str(afile / "sub"))
    refused(run("status"), f"cannot create the record's home {afile / 'sub'}", "Not a directory")


def test_a_home_the_system_will_not_create_is_refused_with_the_system_s_reason(
        monkeypatch: pytest.MonkeyPatch) -> None:
    if not Path("/proc/self").is_dir():
        pytest.skip("needs /proc")
    monkeypatch.setenv("TOTAL_RECALL_HOME", "/proc/self/newdir")
    refused(run("status"), "cannot create the record's home /proc/self/newdir", "No such file or directory")


def test_the_mcp_server_exits_2_with_the_message_when_its_home_cannot_be_created(afile: Path) -> None:
    env = {**os.environ, "TOTAL_RECALL_HOME": str(afile / "sub")}
    done = subprocess.run([str(EXE), "mcp", "--no-sync"], env=env, stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2, done.stderr
    assert "cannot create the record's home" in done.stderr and "Traceback" not in done.stderr


# -- 4. the vector budget and the ONNX thread count --

@pytest.mark.parametrize("value", ["abc", "-1", "nan", "inf", "1e309", "86401"])
def test_a_vector_budget_that_is_not_a_number_of_seconds_in_range_is_refused_by_name(
        value: str, claude_store: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOTAL_RECALL_VECTOR_BUDGET", value)
    refused(run("sync", "--harness", "claude-code"), "TOTAL_RECALL_VECTOR_BUDGET", repr(value))
    assert sessions_in_record() == 0  # refused before the sync wrote anything


def test_a_home_with_an_unknown_tilde_user_is_refused_by_name_and_a_hook_still_exits_0(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOTAL_RECALL_HOME", "~nouser-zq7/x")
    refused(run("status"), "TOTAL_RECALL_HOME", "~nouser-zq7/x")
    start = json.dumps({"hook_event_name": "SessionStart", "session_id": "abc", "source": "startup"})
    done = subprocess.run([str(EXE), "hook", "claude-code"], input=start, capture_output=True, text=True,
                          env=dict(os.environ), timeout=60)
    assert done.returncode == 0 and "TOTAL_RECALL_HOME" in done.stderr and "Traceback" not in done.stderr


def test_a_vector_budget_of_zero_or_blank_is_taken(
        claude_store: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for value in ("0", " "):
        monkeypatch.setenv("TOTAL_RECALL_VECTOR_BUDGET", value)
        assert run("sync", "--harness", "claude-code").exit_code == 0


@pytest.fixture
def pending_vectors(claude_store: Path) -> Iterator[dict[str, str]]:
    """A record with entries waiting for meaning vectors; the env a subprocess needs to reach it (the
    model is loaded once per process, so each thread count must be tried in a fresh one)."""
    pytest.importorskip("onnxruntime")
    assert run("sync", "--harness", "claude-code").exit_code == 0
    yield dict(os.environ)


@pytest.mark.parametrize("value", ["99999999999999999999", "1025", "²"])
def test_an_onnx_thread_count_out_of_bounds_is_refused_by_name(
        value: str, pending_vectors: dict[str, str]) -> None:
    env = {**pending_vectors, "TOTAL_RECALL_ONNX_THREADS": value}
    done = subprocess.run([str(EXE), "index", "--budget", "1"], env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 2, done.stderr
    assert "TOTAL_RECALL_ONNX_THREADS must be a whole number of threads from 0" in done.stderr
    assert "Traceback" not in done.stderr


# -- 5. the LLM limits --

@pytest.mark.parametrize("var", ["TOTAL_RECALL_LLM_MAX_CALL_TOKENS", "TOTAL_RECALL_LLM_MAX_DAY_TOKENS",
                                 "TOTAL_RECALL_LLM_PROMPT_BYTES", "TOTAL_RECALL_LLM_MAX_OUTPUT_TOKENS"])
@pytest.mark.parametrize("value", ["99999999999999999999", "1000000001", "0", "-5", "1e3"])
def test_an_llm_count_beyond_its_bound_is_refused_at_settings_load(
        var: str, value: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(var, value)
    refused(run("llm-status"), f"{var} must be a positive integer, at most 1,000,000,000")


def test_observe_refuses_a_64_bit_overflowing_call_cap_instead_of_failing_in_the_encoder(
        monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in {"TOTAL_RECALL_LLM_MAX_CALL_TOKENS": "99999999999999999999",
                        "TOTAL_RECALL_LLM_API_KEY": "k", "TOTAL_RECALL_LLM_BASE_URL": "http://127.0.0.1:9/v1",
                        "TOTAL_RECALL_LLM_MODEL": "m"}.items():
        monkeypatch.setenv(name, value)
    refused(run("observe", "--session", "s1"), "TOTAL_RECALL_LLM_MAX_CALL_TOKENS")


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "1e309", "0", "-1", "86401"])
def test_an_llm_timeout_that_is_not_a_positive_finite_number_of_seconds_is_refused(
        value: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOTAL_RECALL_LLM_TIMEOUT", value)
    result = run("llm-status")
    refused(result, "TOTAL_RECALL_LLM_TIMEOUT must be a positive finite number of seconds")
    assert "timeout nan" not in result.output


def test_a_nan_timeout_in_the_config_file_is_refused_naming_the_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "record"
    home.mkdir()
    (home / "llm.toml").write_text("timeout = nan\n")
    refused(run("llm-status"), f"{home / 'llm.toml'} (timeout) must be a positive finite number of seconds")


def test_an_llm_timeout_within_bounds_is_shown(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOTAL_RECALL_LLM_TIMEOUT", "2.5")
    result = run("llm-status")
    assert result.exit_code == 0 and "timeout 2.5 s" in result.output


def test_the_mcp_llm_status_tool_refuses_a_nan_timeout_by_name(served: Served) -> None:
    served.env["TOTAL_RECALL_LLM_TIMEOUT"] = "nan"
    (status,) = calls(served, [("llm_status", {})])
    assert status.is_error and "TOTAL_RECALL_LLM_TIMEOUT must be a positive finite number" in text(status)
