"""`total-recall install <client>`: the registration snippet of each client, and `--write` merging it into the
client's own config with a backup, never touching anything else."""

from __future__ import annotations

import hashlib
import json
import plistlib
import tomllib
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from total_recall.errors import InstallError
from total_recall.install import enable_watcher, executable, registration, watch_words, watcher_instead
from total_recall.surfaces.cli import cli

HOOK_EVENTS = ["PreCompact", "SessionStart", "UserPromptSubmit", "Stop"]
CODEX_HOOK_EVENTS = ["PreCompact", "SessionStart", "UserPromptSubmit"]


def install(*args: str) -> Result:
    return CliRunner().invoke(cli, ["install", *args], catch_exceptions=False)


def planned(client: str, *args: str) -> dict[str, Any]:
    result = install(client, "--json", *args)
    assert result.exit_code == 0, result.output
    out: dict[str, Any] = json.loads(result.output)
    return out


def files_under(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "home"  # the autouse fixture points HOME here


@pytest.fixture(autouse=True)
def _default_record(monkeypatch: pytest.MonkeyPatch) -> None:
    """A user on the defaults: no record home or store root of their own (the suite sets both)."""
    monkeypatch.delenv("TOTAL_RECALL_HOME")
    monkeypatch.delenv("TOTAL_RECALL_SANDBOX")


def test_the_command_is_the_absolute_path_of_an_installed_total_recall() -> None:
    command = Path(executable())
    assert command.is_absolute() and command.name == "total-recall" and command.is_file()


def test_claude_code_snippet_registers_the_server_and_the_four_hooks_stop_in_the_background(
        home: Path) -> None:
    out = planned("claude-code")
    command = out["command"]
    server, hooks = out["files"]
    assert server["path"] == str(home / ".claude.json")
    assert hooks["path"] == str(home / ".claude" / "settings.json")
    assert json.loads(server["snippet"]) == {"mcpServers": {"total-recall": {
        "type": "stdio", "command": command, "args": ["mcp"], "env": {}}}}
    events = json.loads(hooks["snippet"])["hooks"]
    assert list(events) == HOOK_EVENTS
    for event, timeout in zip(HOOK_EVENTS, (60, 30, 10, 60), strict=True):
        [group] = events[event]
        assert group["hooks"] == [{"type": "command", "command": f"{command} hook claude-code",
                                   "timeout": timeout, **({"async": True} if event == "Stop" else {})}]
    assert "matcher" not in events["Stop"][0]
    assert out["claude_mcp_add"] == f"claude mcp add --scope user total-recall -- {command} mcp"
    assert not any(f["written"] for f in out["files"])


def test_codex_snippet_is_an_mcp_servers_table_and_its_hooks_json(home: Path) -> None:
    out = planned("codex")
    server, hooks = out["files"]
    assert server["path"] == str(home / ".codex" / "config.toml")
    assert tomllib.loads(server["snippet"]) == {"mcp_servers": {"total-recall": {
        "command": out["command"], "args": ["mcp"]}}}  # hooks are on by default: features left alone
    assert hooks["path"] == str(home / ".codex" / "hooks.json")
    ours = {"type": "command", "command": f"{out['command']} hook codex"}
    assert json.loads(hooks["snippet"]) == {"hooks": {
        "PreCompact": [{"hooks": [{**ours, "timeout": 60}]}],
        "SessionStart": [{"hooks": [{**ours, "timeout": 30}]}],
        "UserPromptSubmit": [{"hooks": [{**ours, "timeout": 10}]}]}}


def test_write_merges_codex_hooks_keeping_the_owner_s_and_replacing_its_own(home: Path,
                                                                             tmp_path: Path) -> None:
    hooks_json = home / ".codex" / "hooks.json"
    hooks_json.parent.mkdir()
    mine = {"hooks": [{"type": "command", "command": "notify-send stopping", "timeout": 5}]}
    stale = {"hooks": [{"type": "command",
                        "command": "TOTAL_RECALL_HOME=/old /old/bin/total-recall hook codex"}]}
    hooks_json.write_text(json.dumps({"hooks": {"Stop": [mine], "PreCompact": [mine, stale]}}),
                          encoding="utf-8")
    result = install("codex", "--write")
    assert result.exit_code == 0, result.output
    ours = {"type": "command", "command": f"{executable()} hook codex"}
    assert json.loads(hooks_json.read_text(encoding="utf-8")) == {"hooks": {
        "Stop": [mine], "PreCompact": [mine, {"hooks": [{**ours, "timeout": 60}]}],
        "SessionStart": [{"hooks": [{**ours, "timeout": 30}]}],
        "UserPromptSubmit": [{"hooks": [{**ours, "timeout": 10}]}]}}
    [backup] = list(hooks_json.parent.glob("hooks.json.total-recall-backup-*"))
    assert f"hooks: merged into {hooks_json} (backup: {backup})" in result.output
    again = install("codex", "--write")
    assert "hooks: already registered" in again.output
    assert list(hooks_json.parent.glob("hooks.json.total-recall-backup-*")) == [backup]


def test_opencode_snippet_is_a_local_server_with_a_command_array(home: Path) -> None:
    out = planned("opencode")
    [change] = out["files"]
    assert change["path"] == str(home / ".config" / "opencode" / "opencode.json")
    assert json.loads(change["snippet"]) == {"mcp": {"total-recall": {
        "type": "local", "command": [out["command"], "mcp"], "enabled": True}}}


def test_vibe_snippet_is_an_mcp_servers_array_entry_named_total_recall(home: Path) -> None:
    out = planned("vibe")
    [change] = out["files"]
    assert change["path"] == str(home / ".vibe" / "config.toml")
    assert tomllib.loads(change["snippet"]) == {"mcp_servers": [{
        "name": "total-recall", "transport": "stdio", "command": out["command"], "args": ["mcp"]}]}


def test_harness_binds_the_registered_server_through_its_environment(home: Path) -> None:
    codex = tomllib.loads(planned("codex", "--harness", "codex")["files"][0]["snippet"])
    assert codex["mcp_servers"]["total-recall"]["env"] == {"HARNESS": "codex"}
    vibe = tomllib.loads(planned("vibe", "--harness", "vibe")["files"][0]["snippet"])
    assert vibe["mcp_servers"][0]["env"] == {"HARNESS": "vibe"}
    opencode = json.loads(planned("opencode", "--harness", "opencode")["files"][0]["snippet"])
    assert opencode["mcp"]["total-recall"]["environment"] == {"HARNESS": "opencode"}
    claude = json.loads(planned("claude-code", "--harness", "claude-code")["files"][0]["snippet"])
    assert claude["mcpServers"]["total-recall"]["env"] == {"HARNESS": "claude-code"}


def test_the_client_home_variables_move_the_config_files(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "cx"))
    monkeypatch.setenv("VIBE_HOME", str(tmp_path / "vb"))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "cl"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    assert planned("codex")["files"][0]["path"] == str(tmp_path / "cx" / "config.toml")
    assert planned("vibe")["files"][0]["path"] == str(tmp_path / "vb" / "config.toml")
    assert [f["path"] for f in planned("claude-code")["files"]] == [
        str(tmp_path / "cl" / ".claude.json"), str(tmp_path / "cl" / "settings.json")]
    assert planned("opencode")["files"][0]["path"] == str(tmp_path / "xdg" / "opencode" / "opencode.json")


def test_printing_the_snippet_writes_nothing(tmp_path: Path) -> None:
    before = files_under(tmp_path)
    for client in ("claude-code", "codex", "opencode", "vibe"):
        result = install(client)
        assert result.exit_code == 0 and "total-recall" in result.output
    assert files_under(tmp_path) == before


CODEX_EXISTING = """# my codex settings
model = "o3"  # the model I like

[mcp_servers.other]
command = "other-server"
args = ["--fast"]

[features]
web_search_request = true

[profiles.work]
model = "o4"
"""

VIBE_EXISTING = """active_model = "devstral"

[[mcp_servers]]
name = "fetch"
transport = "stdio"
command = "uvx"
args = ["mcp-server-fetch"]

[tools.bash]
permission = "ask"  # keep asking
"""


def test_write_merges_codex_keeping_other_servers_comments_and_a_backup(home: Path, tmp_path: Path) -> None:
    config = home / ".codex" / "config.toml"
    config.parent.mkdir()
    config.write_text(CODEX_EXISTING, encoding="utf-8")
    before = files_under(tmp_path)
    result = install("codex", "--write")
    assert result.exit_code == 0, result.output
    text = config.read_text(encoding="utf-8")
    # Every line of the user's file is kept, comments included, in order; ours joins the mcp_servers group.
    ours = f'[mcp_servers.total-recall]\ncommand = "{executable()}"\nargs = ["mcp"]\n\n'
    # Codex's hooks are on by default: the owner's features stay exactly his.
    assert text == CODEX_EXISTING.replace("[features]", ours + "[features]")
    data = tomllib.loads(text)
    assert data["features"] == {"web_search_request": True}
    assert data["mcp_servers"]["other"] == {"command": "other-server", "args": ["--fast"]}
    assert data["mcp_servers"]["total-recall"] == {"command": executable(), "args": ["mcp"]}
    assert data["profiles"] == {"work": {"model": "o4"}} and data["model"] == "o3"
    [backup] = list(config.parent.glob("config.toml.total-recall-backup-*"))
    assert backup.read_text(encoding="utf-8") == CODEX_EXISTING
    hooks_json = config.parent / "hooks.json"  # the hooks, in a file of their own
    added = {str(p.relative_to(tmp_path)) for p in (backup, hooks_json)}
    assert set(files_under(tmp_path)) - set(before) == added
    assert f"merged into {config} (backup: {backup})" in result.output


def test_write_merges_vibe_as_one_more_array_entry_and_replaces_its_own(home: Path) -> None:
    config = home / ".vibe" / "config.toml"
    config.parent.mkdir()
    config.write_text(VIBE_EXISTING, encoding="utf-8")
    assert install("vibe", "--write", "--harness", "vibe").exit_code == 0
    assert install("vibe", "--write").exit_code == 0  # again, unbound: replaces the entry, never doubles it
    data = tomllib.loads(config.read_text(encoding="utf-8"))
    assert [s["name"] for s in data["mcp_servers"]] == ["fetch", "total-recall"]
    assert data["mcp_servers"][1] == {"name": "total-recall", "transport": "stdio", "command": executable(),
                                      "args": ["mcp"]}
    assert data["tools"] == {"bash": {"permission": "ask"}} and data["active_model"] == "devstral"
    assert "# keep asking" in config.read_text(encoding="utf-8")
    assert len(list(config.parent.glob("config.toml.total-recall-backup-*"))) == 2


def test_write_merges_opencode_keeping_other_servers(home: Path) -> None:
    config = home / ".config" / "opencode" / "opencode.json"
    config.parent.mkdir(parents=True)
    existing = {"$schema": "https://opencode.ai/config.json", "theme": "dark",
                "mcp": {"other": {"type": "remote", "url": "https://example.com/mcp", "enabled": True}}}
    config.write_text(json.dumps(existing), encoding="utf-8")
    assert install("opencode", "--write").exit_code == 0
    data = json.loads(config.read_text(encoding="utf-8"))
    assert data["theme"] == "dark" and data["mcp"]["other"] == existing["mcp"]["other"]
    assert data["mcp"]["total-recall"] == {"type": "local", "command": [executable(), "mcp"], "enabled": True}
    [backup] = list(config.parent.glob("opencode.json.total-recall-backup-*"))
    assert json.loads(backup.read_text(encoding="utf-8")) == existing


def test_an_opencode_config_in_v2_shape_gets_the_server_under_mcp_servers(home: Path) -> None:
    config = home / ".config" / "opencode" / "opencode.json"
    config.parent.mkdir(parents=True)
    config.write_text(json.dumps({"mcp": {"servers": {"other": {"type": "local", "command": ["x"]}}}}),
                      encoding="utf-8")
    assert install("opencode", "--write").exit_code == 0
    servers = json.loads(config.read_text(encoding="utf-8"))["mcp"]["servers"]
    assert servers["total-recall"] == {"type": "local", "command": [executable(), "mcp"]}
    assert servers["other"] == {"type": "local", "command": ["x"]}


def test_write_merges_claude_code_server_and_hooks_keeping_the_user_s_own(home: Path, tmp_path: Path) -> None:
    claude_json = home / ".claude.json"
    claude_json.write_text(json.dumps({"numStartups": 7, "projects": {"/w": {"mcpServers": {}}},
                                       "mcpServers": {"fs": {"type": "stdio", "command": "fs-server"}}}),
                           encoding="utf-8")
    settings = home / ".claude" / "settings.json"
    settings.parent.mkdir()
    mine = {"matcher": "", "hooks": [{"type": "command", "command": "notify-send compacting"}]}
    stale = {"matcher": "", "hooks": [{"type": "command",
                                       "command": "/old/venv/bin/total-recall hook claude-code"}]}
    settings.write_text(json.dumps({"model": "opus", "hooks": {"PreCompact": [mine, stale]}}),
                        encoding="utf-8")
    before = files_under(tmp_path)
    result = install("claude-code", "--write")
    assert result.exit_code == 0, result.output
    data = json.loads(claude_json.read_text(encoding="utf-8"))
    assert data["numStartups"] == 7 and data["projects"] == {"/w": {"mcpServers": {}}}
    assert data["mcpServers"]["fs"] == {"type": "stdio", "command": "fs-server"}
    assert data["mcpServers"]["total-recall"]["command"] == executable()
    hooks = json.loads(settings.read_text(encoding="utf-8"))
    assert hooks["model"] == "opus"
    ours = {"type": "command", "command": f"{executable()} hook claude-code"}
    assert hooks["hooks"]["PreCompact"] == [mine, {"matcher": "", "hooks": [{**ours, "timeout": 60}]}]
    assert hooks["hooks"]["SessionStart"] == [{"matcher": "", "hooks": [{**ours, "timeout": 30}]}]
    assert hooks["hooks"]["UserPromptSubmit"] == [{"hooks": [{**ours, "timeout": 10}]}]
    backups = {p.name for p in tmp_path.rglob("*.total-recall-backup-*")}
    assert len(backups) == 2
    assert set(files_under(tmp_path)) - set(before) == {str(p.relative_to(tmp_path))
                                                       for p in tmp_path.rglob("*.total-recall-backup-*")}


def test_writing_again_changes_nothing_and_keeps_no_new_backup(home: Path) -> None:
    assert install("codex", "--write").exit_code == 0
    config = home / ".codex" / "config.toml"
    first = config.read_bytes()
    result = install("codex", "--write")
    assert result.exit_code == 0
    assert "already registered" in result.output
    assert config.read_bytes() == first
    assert list(config.parent.glob("*.total-recall-backup-*")) == []  # the first write made the file


def test_config_option_writes_that_file_instead(tmp_path: Path) -> None:
    project = tmp_path / "project" / ".mcp.json"
    project.parent.mkdir()
    project.write_text('{"mcpServers": {}}', encoding="utf-8")
    assert install("claude-code", "--write", "--config", str(project)).exit_code == 0
    assert "total-recall" in json.loads(project.read_text(encoding="utf-8"))["mcpServers"]


@pytest.mark.parametrize(("client", "relative", "broken"), [
    ("claude-code", ".claude.json", '{"mcpServers": {'),
    ("opencode", ".config/opencode/opencode.json", '{\n  // a comment\n  "mcp": {}\n}'),
    ("codex", ".codex/config.toml", "[mcp_servers\ncommand = 1"),
    ("vibe", ".vibe/config.toml", 'mcp_servers = "not a list"\n'),
])
def test_a_config_that_cannot_be_parsed_or_merged_is_refused_naming_it_and_nothing_is_written(
        home: Path, tmp_path: Path, client: str, relative: str, broken: str) -> None:
    config = home / relative
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(broken, encoding="utf-8")
    before = files_under(tmp_path)
    result = CliRunner().invoke(cli, ["install", client, "--write"])
    assert result.exit_code == 2
    assert str(config) in result.output and "nothing written" in result.output
    assert files_under(tmp_path) == before  # neither the file, nor a backup, nor the hooks file


def test_an_unknown_client_is_refused_by_the_core_and_the_cli() -> None:
    with pytest.raises(InstallError, match="unknown client 'cursor'"):
        registration("cursor", "/bin/total-recall")
    result = CliRunner().invoke(cli, ["install", "cursor"])
    assert result.exit_code == 2 and "cursor" in result.output


def test_the_record_home_and_store_roots_of_the_install_go_with_the_server_and_the_hooks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TOTAL_RECALL_HOME", str(tmp_path / "my record"))
    monkeypatch.setenv("TOTAL_RECALL_CODEX_ROOT", str(tmp_path / "codex"))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-not-carried")
    carried = {"TOTAL_RECALL_HOME": str(tmp_path / "my record"),
               "TOTAL_RECALL_CODEX_ROOT": str(tmp_path / "codex")}
    server, hooks = (json.loads(f["snippet"]) for f in planned("claude-code")["files"])
    assert server["mcpServers"]["total-recall"]["env"] == carried
    command = hooks["hooks"]["PreCompact"][0]["hooks"][0]["command"]
    assert command.startswith(f"TOTAL_RECALL_HOME='{tmp_path / 'my record'}' TOTAL_RECALL_CODEX_ROOT=")
    assert command.endswith("total-recall hook claude-code")
    codex = tomllib.loads(planned("codex", "--harness", "codex")["files"][0]["snippet"])
    assert codex["mcp_servers"]["total-recall"]["env"] == {**carried, "HARNESS": "codex"}
    result = install("claude-code", "--write")
    assert result.exit_code == 0, result.output
    again = install("claude-code", "--write")  # the carried hook is ours: replaced, not doubled
    settings = json.loads((tmp_path / "home" / ".claude" / "settings.json").read_text())
    assert again.exit_code == 0 and [len(settings["hooks"][e]) for e in HOOK_EVENTS] == [1, 1, 1, 1]


@pytest.mark.parametrize("given", ["--home", "TOTAL_RECALL_HOME"])
def test_the_home_an_install_runs_on_goes_absolute_into_every_client_s_registration(
        given: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    record = tmp_path / "my record"
    if given == "TOTAL_RECALL_HOME":
        monkeypatch.setenv(given, str(record))
    home = ["--home", str(record)] if given == "--home" else []

    def snippets(client: str) -> list[str]:
        result = CliRunner().invoke(cli, [*home, "install", client, "--json"], catch_exceptions=False)
        assert result.exit_code == 0, result.output
        return [f["snippet"] for f in json.loads(result.output)["files"]]

    carried = {"TOTAL_RECALL_HOME": str(record)}
    server, hooks = (json.loads(s) for s in snippets("claude-code"))
    assert server["mcpServers"]["total-recall"]["env"] == carried
    for event in HOOK_EVENTS:
        command = hooks["hooks"][event][-1]["hooks"][0]["command"]
        assert command.startswith(f"TOTAL_RECALL_HOME='{record}' ")
    codex, codex_hooks = snippets("codex")
    assert tomllib.loads(codex)["mcp_servers"]["total-recall"]["env"] == carried
    for event in CODEX_HOOK_EVENTS:
        command = json.loads(codex_hooks)["hooks"][event][-1]["hooks"][0]["command"]
        assert command.startswith(f"TOTAL_RECALL_HOME='{record}' ") and command.endswith(" hook codex")
    [opencode] = snippets("opencode")
    assert json.loads(opencode)["mcp"]["total-recall"]["environment"] == carried
    [vibe] = snippets("vibe")
    assert tomllib.loads(vibe)["mcp_servers"][0]["env"] == carried
    fake_path(tmp_path, monkeypatch, systemctl=True)
    [unit] = snippets("watcher")
    assert unit_values(unit)["Environment"] == [f"TOTAL_RECALL_HOME={record}"]


# -- the watcher's service (`install watcher`) --


def fake_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, systemctl: bool) -> None:
    """PATH holding nothing but (when `systemctl`) a `systemctl` that is never run."""
    folder = tmp_path / ("bin-systemd" if systemctl else "bin-bare")
    folder.mkdir()
    if systemctl:
        tool = folder / "systemctl"
        tool.write_text("#!/bin/sh\nexit 1\n", encoding="utf-8")
        tool.chmod(0o755)
    monkeypatch.setenv("PATH", str(folder))


def unit_values(text: str) -> dict[str, list[str]]:
    """Each `Key=value` of a unit file, with systemd's quoting and `%%` undone."""
    out: dict[str, list[str]] = {}
    for row in text.splitlines():
        if "=" in row and not row.startswith(("#", "[")):
            key, value = row.split("=", 1)
            if value.startswith('"'):
                value = value[1:-1].replace('\\"', '"').replace("\\\\", "\\")
            out.setdefault(key, []).append(value.replace("%%", "%"))
    return out


def test_install_watcher_writes_a_user_unit_running_watch_with_the_carried_env_and_backs_up_a_rewrite(
        home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake_path(tmp_path, monkeypatch, systemctl=True)
    monkeypatch.setenv("TOTAL_RECALL_HOME", str(tmp_path / "my record"))
    monkeypatch.setenv("TOTAL_RECALL_CLAUDE_ROOT", str(tmp_path / "50% claude"))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-not-carried")
    unit = home / ".config" / "systemd" / "user" / "total-recall-watch.service"
    plan = planned("watcher")
    assert plan["systemd"] is True and plan["files"][0]["path"] == str(unit) and not unit.exists()
    assert plan["run"] == "systemctl --user daemon-reload && systemctl --user enable --now total-recall-watch"
    done = planned("watcher", "--write")
    assert done["files"][0]["written"] and done["files"][0]["backup"] is None
    values = unit_values(unit.read_text(encoding="utf-8"))
    assert values["ExecStart"] == [f"{executable()} watch"]
    assert values["Restart"] == ["on-failure"] and values["WantedBy"] == ["default.target"]
    assert values["Environment"] == [f"TOTAL_RECALL_HOME={tmp_path / 'my record'}",
                                     f"TOTAL_RECALL_CLAUDE_ROOT={tmp_path / '50% claude'}"]
    first = unit.read_bytes()
    same = install("watcher", "--write")
    assert same.exit_code == 0 and "nothing changed" in same.output and unit.read_bytes() == first
    again = install("watcher", "--write", "--harness", "codex")
    assert again.exit_code == 0 and "systemctl --user enable --now total-recall-watch" in again.output
    [backup] = unit.parent.glob("total-recall-watch.service.total-recall-backup-*")
    assert backup.read_bytes() == first
    rewritten = unit_values(unit.read_text(encoding="utf-8"))
    assert rewritten["ExecStart"] == [f"{executable()} watch --harness codex"]


def test_install_watcher_without_systemd_prints_what_to_run_and_writes_nothing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake_path(tmp_path, monkeypatch, systemctl=False)
    before = files_under(tmp_path)
    result = install("watcher", "--write")
    assert result.exit_code == 0
    assert f"nohup {executable()} watch >>" in result.output and "no systemd here" in result.output
    out = planned("watcher")
    assert out["systemd"] is False and out["files"] == [] and "nohup" in out["instead"]
    assert files_under(tmp_path) == before


def test_install_watcher_on_macos_hands_a_launchd_agent(tmp_path: Path) -> None:
    env = {"HOME": str(tmp_path), "TOTAL_RECALL_HOME": str(tmp_path / "rec")}
    hint = watcher_instead(watch_words("/opt/bin/total-recall", "codex"), env=env, platform="darwin")
    where, plist = hint.split("\n", 1)
    assert str(tmp_path / "Library" / "LaunchAgents" / "com.total-recall.watch.plist") in where
    agent = plistlib.loads(plist.encode())
    assert agent["ProgramArguments"] == ["/opt/bin/total-recall", "watch", "--harness", "codex"]
    assert agent["EnvironmentVariables"] == {"TOTAL_RECALL_HOME": str(tmp_path / "rec")}


def test_the_advice_to_start_the_watcher_names_the_unit_file_it_wrote(tmp_path: Path) -> None:
    env = {"HOME": str(tmp_path)}
    default = tmp_path / ".config" / "systemd" / "user" / "total-recall-watch.service"
    assert enable_watcher(default, env) == ("systemctl --user daemon-reload && systemctl --user enable --now "
                                            "total-recall-watch")
    elsewhere = tmp_path / "units" / "my watch.service"
    assert enable_watcher(elsewhere, env).endswith(f"systemctl --user enable --now '{elsewhere}'")


def test_install_watcher_with_config_says_to_enable_the_file_it_wrote(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake_path(tmp_path, monkeypatch, systemctl=True)
    unit = tmp_path / "units" / "tr.service"
    plan = planned("watcher", "--config", str(unit))
    assert plan["files"][0]["path"] == str(unit) and plan["run"].endswith(f"enable --now {unit}")
    written = install("watcher", "--config", str(unit), "--write")
    assert written.exit_code == 0 and f"enable --now {unit}" in written.output


def test_install_watcher_refuses_a_unit_file_systemd_would_not_load(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake_path(tmp_path, monkeypatch, systemctl=True)
    result = install("watcher", "--config", str(tmp_path / "watch.conf"), "--write")
    assert result.exit_code == 2 and "watch.conf" in result.output and ".service" in result.output
    assert not (tmp_path / "watch.conf").exists()


def test_install_watcher_refuses_a_harness_the_watcher_does_not_follow() -> None:
    result = CliRunner().invoke(cli, ["install", "watcher", "--harness", "opencode"])
    assert result.exit_code == 2 and "opencode" in result.output


def test_codex_hooks_turned_off_by_the_owner_stay_off_and_the_plan_says_so(home: Path) -> None:
    config = home / ".codex" / "config.toml"
    config.parent.mkdir()
    config.write_text("[features]\nhooks = false\n", encoding="utf-8")
    _, hooks = planned("codex")["files"]
    assert "Codex runs none while `[features] hooks = false` stands in" in hooks["what"]
    assert install("codex", "--write").exit_code == 0
    assert tomllib.loads(config.read_text(encoding="utf-8"))["features"] == {"hooks": False}
