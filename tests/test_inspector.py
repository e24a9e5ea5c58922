"""The MCP server through a third-party client: the MCP Inspector CLI (npm @modelcontextprotocol/inspector).

The Inspector needs Node >= 22; both come from the npm registry alone (Node ships as a binary inside the
`node-<os>-<arch>` package) and are installed into <repo>/.cache/inspector the first time. Without npm,
or when the install fails, these tests skip with the reason, except under CI (`CI` set), where they fail.
"""

from __future__ import annotations

import json
import os
import platform
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO
from tests.stores import fixture_stores
from tests.test_mcp import WRITING_TOOLS
from total_recall.ops.replies import entry_json
from total_recall.record.database import Record
from total_recall.record.reading import read
from total_recall.record.sync import sync

# Keep in step with the inspector step of .ci/run.
NODE_VERSION = "22.23.5"
INSPECTOR_VERSION = "2.12.0"
INSPECTOR_DIR = REPO / ".cache" / "inspector"
EXE = Path(sys.executable).parent / "total-recall"
INSTALL_TIMEOUT = 600


class InspectorUnavailable(Exception):
    """npm is missing or the install failed; the message says which."""


@dataclass(frozen=True)
class Inspector:
    """The installed Inspector CLI and the Node it runs on."""

    script: Path
    node_bin: Path

    def env(self) -> dict[str, str]:
        return {**os.environ, "PATH": f"{self.node_bin}{os.pathsep}{os.environ.get('PATH', '')}"}


def node_package() -> str:
    """The npm package holding Node's binary for this machine."""
    system = {"Linux": "linux", "Darwin": "darwin"}.get(platform.system())
    arches = {"x86_64": "x64", "amd64": "x64", "aarch64": "arm64", "arm64": "arm64"}
    arch = arches.get(platform.machine().lower())
    if system is None or arch is None:
        raise InspectorUnavailable(f"no Node package for {platform.system()} {platform.machine()}")
    return f"node-{system}-{arch}"


def ensure_inspector() -> Inspector:
    """The Inspector in .cache/inspector, installed there from npm when it is not yet.

    Raises:
        InspectorUnavailable: npm is not on PATH, or an install step failed (with its output).
    """
    package = node_package()
    inspector = Inspector(INSPECTOR_DIR / "node_modules" / ".bin" / "mcp-inspector",
                          INSPECTOR_DIR / "node_modules" / package / "bin")
    if inspector.script.exists() and (inspector.node_bin / "node").exists():
        return inspector
    npm = shutil.which("npm")
    if npm is None:
        raise InspectorUnavailable("npm is not on PATH: the MCP Inspector CLI cannot be installed")
    INSPECTOR_DIR.mkdir(parents=True, exist_ok=True)
    for spec, env in ((f"{package}@{NODE_VERSION}", None),
                      (f"@modelcontextprotocol/inspector@{INSPECTOR_VERSION}", inspector.env())):
        try:
            done = subprocess.run([npm, "install", "--no-audit", "--no-fund", spec], cwd=INSPECTOR_DIR,
                                  env=env, capture_output=True, text=True, timeout=INSTALL_TIMEOUT)
        except subprocess.TimeoutExpired as exc:
            raise InspectorUnavailable(f"npm install {spec} took over {INSTALL_TIMEOUT} s") from exc
        if done.returncode != 0:
            raise InspectorUnavailable(f"npm install {spec} failed (exit {done.returncode}): "
                                       f"{done.stderr[-2000:]}")
    if not inspector.script.exists():
        raise InspectorUnavailable(f"npm installed the inspector but {inspector.script} is missing")
    return inspector


@pytest.fixture(scope="session")
def inspector() -> Inspector:
    try:
        return ensure_inspector()
    except InspectorUnavailable as exc:
        if os.environ.get("CI"):
            pytest.fail(f"CI must run the MCP Inspector tests: {exc}")
        pytest.skip(str(exc))


@dataclass
class Served:
    path: Path
    server_env: dict[str, str]


@pytest.fixture
def record(tmp_path: Path) -> Iterator[Served]:
    with fixture_stores(tmp_path / "stores") as stores:
        env = {**stores.env, "TOTAL_RECALL_HOME": str(tmp_path / "record"), "TOTAL_RECALL_SANDBOX": "1",
               "TOTAL_RECALL_VECTOR_BUDGET": "0"}
        path = tmp_path / "record" / "record.sqlite3"
        with Record(path) as record:
            assert sync(record, env=env).errors == []
        yield Served(path, env)


def run(inspector: Inspector, record: Served, *method: str) -> subprocess.CompletedProcess[str]:
    """`mcp-inspector --cli` against `total-recall mcp`; the server's environment goes by -e, as a client's
    config would pass it (the Inspector does not hand its own environment to the server)."""
    env_args = [arg for key, value in record.server_env.items() for arg in ("-e", f"{key}={value}")]
    server = [str(EXE), "mcp", "--no-sync"]
    return subprocess.run([str(inspector.script), "--cli", *env_args, *method, "--", *server],
                          env=inspector.env(), capture_output=True, text=True, timeout=120)


def tool_call(inspector: Inspector, record: Served, tool: str, **arguments: str) -> dict[str, Any]:
    args = [a for key, value in arguments.items() for a in ("--tool-arg", f"{key}={value}")]
    done = run(inspector, record, "--method", "tools/call", "--tool-name", tool, *args)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    value: dict[str, Any] = json.loads(result["content"][0]["text"])
    assert value == result["structuredContent"]
    return value


def test_the_inspector_lists_every_tool_with_honest_annotations_and_portable_schemas(inspector: Inspector,
                                                                        record: Served) -> None:
    done = run(inspector, record, "--method", "tools/list", "--strict")
    assert done.returncode == 0, done.stderr  # --strict exits 6 on any error-severity portability problem
    tools = {t["name"]: t for t in json.loads(done.stdout)["tools"]}
    assert {"status", "harness", "list_sessions", "read", "search"} <= set(tools)
    assert {"compact", "cue", "summarise_from", "sync", "erase", "quarantine", "index"} <= set(tools)
    assert all(t["annotations"]["readOnlyHint"] is (name not in WRITING_TOOLS) for name, t in tools.items())
    limit = tools["search"]["inputSchema"]["properties"]["limit"]
    assert (limit["minimum"], limit["maximum"]) == (1, 1000)
    assert tools["read"]["inputSchema"]["properties"]["max_bytes"]["maximum"] == 8_388_608


def test_the_inspector_calls_list_sessions(inspector: Inspector, record: Served) -> None:
    got = tool_call(inspector, record, "list_sessions", all="true", max_bytes="8388608")
    with Record(record.path) as opened_record:
        expected = {s.address for s in opened_record.sessions()}
    assert {s["session"] for s in got["sessions"]} == expected
    assert got["held_back"] == 0


def test_the_inspector_reads_an_address_exactly(inspector: Inspector, record: Served) -> None:
    with Record(record.path) as opened_record:
        session = next(s for s in opened_record.sessions() if s.harness == "opencode")
        address = f"{session.address}#1-2"
        expected = [entry_json(e) for e in read(opened_record, address)]
    got = tool_call(inspector, record, "read", address=address)
    assert got["entries"] == expected and got["bounds"]["returned_records"] == 2


def test_the_inspector_searches_and_gets_addresses(inspector: Inspector, record: Served) -> None:
    got = tool_call(inspector, record, "search", query="fixture", limit="5", harness='["codex"]')
    assert len(got["hits"]) == 5
    with Record(record.path) as opened_record:
        for hit in got["hits"]:
            assert hit["harness"] == "codex"
            assert "fixture" in read(opened_record, hit["address"])[0].text.lower()


def test_the_inspector_sees_an_unknown_parameter_refused_as_a_tool_error(inspector: Inspector,
                                                                         record: Served) -> None:
    done = run(inspector, record, "--method", "tools/call", "--tool-name", "read", "--tool-arg", "adress=s1")
    assert done.returncode != 0  # the Inspector exits non-zero on a result with isError
    result = json.loads(done.stdout)
    assert result["isError"] is True
    message = result["content"][0]["text"]
    assert message.startswith("read: unrecognised field `adress`")
    assert message.endswith("read accepts: address, offset, limit, max_bytes, text_offset")
