"""Registering the MCP server with a client: the snippet, and merging it into the client's own config.

Each client reads a different file in its own format (checked against each client's documentation):

- Claude Code: user-scope MCP servers under `mcpServers` in `~/.claude.json`
  (`$CLAUDE_CONFIG_DIR/.claude.json`), the supported CLI route being `claude mcp add --scope user`;
  hooks under `hooks` in `~/.claude/settings.json` (`$CLAUDE_CONFIG_DIR/settings.json`): PreCompact,
  SessionStart, UserPromptSubmit and Stop, each with a `timeout` in seconds, Stop with `"async": true`
  (Claude Code runs it in the background: code.claude.com/docs/en/hooks, "Run hooks in the background").
- Codex: the `[mcp_servers.<name>]` table in `$CODEX_HOME/config.toml` (`~/.codex/config.toml`); hooks in
  `$CODEX_HOME/hooks.json`, which Codex reads next to its user config, in Claude Code's shape (event →
  groups → `{"type": "command", "command", "timeout"}` in seconds; developers.openai.com/codex/hooks):
  PreCompact, SessionStart, UserPromptSubmit. Not Stop: Codex documents no background mode, and a Stop
  hook holds up the end of every turn. Codex runs a hook it does not manage only once the owner has
  reviewed and trusted it.
- OpenCode: `mcp.<name>` with `type: "local"` and a `command` array in
  `$XDG_CONFIG_HOME/opencode/opencode.json` (V2 also reads that shape; a file already in V2's
  `mcp.servers` shape gets the entry there).
- Mistral Vibe: a `[[mcp_servers]]` entry with `name`, `transport = "stdio"`, `command`, `args`, `env` in
  `$VIBE_HOME/config.toml` (`~/.vibe/config.toml`).

The watcher (`install watcher`) is not a client: a systemd user unit running `total-recall watch`, a file
wholly ours (rewritten, the old one kept as a backup); where there is no systemd, the line to run instead.

A merge keeps everything else in the file (TOML keeps its comments and layout through tomlkit); a file
that cannot be parsed is refused, named, and left alone. Writing keeps a timestamped backup beside it.
"""

from __future__ import annotations

import copy
import json
import os
import plistlib
import shlex
import shutil
import sys
import tempfile
import tomllib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

import tomlkit
import tomlkit.exceptions
from tomlkit.items import AoT, Table

from total_recall.config import OVERRIDE_VARS, record_home, surface_home
from total_recall.errors import InstallError

CLIENTS: tuple[str, ...] = ("claude-code", "codex", "opencode", "vibe")
SERVER_KEY = "total-recall"
CLAUDE_HOOK_EVENTS: tuple[str, ...] = ("PreCompact", "SessionStart", "UserPromptSubmit", "Stop")
CODEX_HOOK_EVENTS: tuple[str, ...] = ("PreCompact", "SessionStart", "UserPromptSubmit")
# Seconds the harness lets each hook run before it cancels it (its `timeout` field; 600 when unset). A
# hook waits at most 10 s for a busy record (keeping/hooks.py WAIT_BOUND); PreCompact also syncs and
# builds a marker; UserPromptSubmit holds up every prompt; Stop syncs in the background.
HOOK_TIMEOUTS: dict[str, int] = {"PreCompact": 60, "SessionStart": 30, "UserPromptSubmit": 10, "Stop": 60}
# The hooks the harness runs in the background (`"async": true`): the owner never waits for them.
CLAUDE_ASYNC_HOOKS: tuple[str, ...] = ("Stop",)
# What decides which record and which stores the server and the hooks use: carried from the environment
# `install` runs in (the record's home: the one the install runs on, `--home` included), so a client starts
# them on the same record (never API keys: those stay in the env).
CARRIED_VARS: tuple[str, ...] = ("TOTAL_RECALL_HOME", *OVERRIDE_VARS.values(), "TOTAL_RECALL_SANDBOX")
OPENCODE_SCHEMA = "https://opencode.ai/config.json"
BACKUP_INFIX = ".total-recall-backup-"

Format = Literal["json", "toml", "systemd"]


@dataclass(frozen=True)
class ConfigChange:
    """One file a registration touches: where it is, what to add by hand, and how to merge it in."""

    path: Path
    format: Format
    what: str
    snippet: str
    merge: Callable[[str | None], str] = field(compare=False, repr=False)

    def merged(self, current: str | None) -> str:
        """The file's new text: `current` (None for a missing file) with the registration merged in.

        Raises:
            InstallError: `current` cannot be parsed, or holds the key in a shape that cannot take it.
        """
        return self.merge(current)


def executable() -> str:
    """The absolute path of the `total-recall` executable, so a client finds it without the venv on PATH.

    Raises:
        InstallError: no such executable can be found.
    """
    argv0 = Path(sys.argv[0])
    if argv0.name == "total-recall" and argv0.is_file():
        return str(argv0.absolute())
    beside = Path(sys.executable).parent / "total-recall"
    if beside.is_file():
        return str(beside)
    if found := shutil.which("total-recall"):
        return str(Path(found).absolute())
    raise InstallError("cannot find the total-recall executable (not beside this Python, not on PATH); "
                       "install the package first")


def registration(client: str, command: str, *, env: Mapping[str, str] | None = None,
                 config: Path | None = None, harness: str | None = None) -> list[ConfigChange]:
    """The files registering the server with `client` touches, each with its snippet and merge.

    `command` is the executable's absolute path; `config` replaces the client's default MCP config file;
    `harness` binds the server (the `HARNESS` variable in its environment block).

    Raises:
        InstallError: `client` is not one of CLIENTS.
    """
    e = os.environ if env is None else env
    server_env = {**carried(e), **({"HARNESS": harness} if harness else {})}
    if client == "claude-code":
        claude_dir = Path(e["CLAUDE_CONFIG_DIR"]).expanduser() if e.get("CLAUDE_CONFIG_DIR") else None
        mcp_file = config or (claude_dir / ".claude.json" if claude_dir else _home(e) / ".claude.json")
        settings = (claude_dir or _home(e) / ".claude") / "settings.json"
        return [_claude_server(mcp_file, command, server_env), _claude_hooks(settings, command, carried(e))]
    if client == "codex":
        codex_home = Path(e["CODEX_HOME"].split(",")[0].strip()).expanduser() if e.get("CODEX_HOME") \
            else _home(e) / ".codex"
        hooks = _codex_hooks(codex_home / "hooks.json", command, carried(e))
        if _codex_hooks_off(codex_home / "config.toml"):
            hooks = replace(hooks, what=f"hooks (Codex runs none while `[features] hooks = false` stands in "
                                        f"{codex_home / 'config.toml'}: set it true to use these)")
        return [_codex(config or codex_home / "config.toml", command, server_env), hooks]
    if client == "opencode":
        return [_opencode(config or _opencode_file(e), command, server_env)]
    if client == "vibe":
        vibe_home = Path(e["VIBE_HOME"]).expanduser() if e.get("VIBE_HOME") else _home(e) / ".vibe"
        return [_vibe(config or vibe_home / "config.toml", command, server_env)]
    raise InstallError(f"unknown client {client!r} (known: {', '.join(CLIENTS)})")


def carried(env: Mapping[str, str]) -> dict[str, str]:
    """The CARRIED_VARS set (non-empty) in `env`, paths made absolute: the client starts the server and
    the hooks from another folder, with an environment of its own.

    `TOTAL_RECALL_HOME` is the home the install runs on: the one the surface serves (the CLI's `--home`,
    `config.surface_home`), else `env`'s; left out only when it is the default home a client finds
    without it."""
    out = {}
    for name in CARRIED_VARS:
        value = env.get(name, "").strip()
        if value:
            out[name] = value if name == "TOTAL_RECALL_SANDBOX" else str(Path(value).expanduser().absolute())
    if (home := surface_home()) is not None:
        default = record_home({k: v for k, v in env.items() if k != "TOTAL_RECALL_HOME"})
        out.pop("TOTAL_RECALL_HOME", None)
        if home.expanduser().absolute() != default.absolute() or env.get("TOTAL_RECALL_HOME", "").strip():
            out = {"TOTAL_RECALL_HOME": str(home.expanduser().absolute()), **out}
    return out


def claude_add_command(command: str, harness: str | None = None, env: Mapping[str, str] | None = None) -> str:
    """Claude Code's own route to the same user-scope registration."""
    server_env = {**carried(os.environ if env is None else env), **({"HARNESS": harness} if harness else {})}
    flags = "".join(f"--env {shlex.quote(f'{k}={v}')} " for k, v in server_env.items())
    return f"claude mcp add --scope user {flags}{SERVER_KEY} -- {shlex.quote(command)} mcp"


@dataclass(frozen=True)
class Written:
    """What `apply` did to one file: `changed` is False when the registration was already there as is."""

    path: Path
    changed: bool
    backup: Path | None


def apply(changes: Sequence[ConfigChange], now: datetime | None = None) -> list[Written]:
    """Merge each change into its file, keeping a timestamped backup of a file that existed.

    Every merge is computed before anything is written, so a file that cannot be parsed leaves all of
    them untouched; nothing but these files and their backups is ever written.

    Raises:
        InstallError: a file cannot be read, parsed or written, or a file stands where its folder must be
            (the message names it).
    """
    planned = [(change, _read(change.path)) for change in changes]
    texts = [change.merged(current) for change, current in planned]
    for change in changes:
        _check_folder(change.path)
    stamp = now or datetime.now(UTC)
    return [_write(change.path, current, text, stamp) for (change, current), text in zip(planned, texts,
                                                                                          strict=True)]


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8") if path.exists() else None
    except (OSError, UnicodeDecodeError) as exc:
        raise InstallError(f"{path}: cannot read it ({exc}); nothing written") from exc


def _check_folder(path: Path) -> None:
    """Refuse a path whose folder cannot be made because a file stands where a folder must, before any
    file is written (mkdir would fail there, after other changes were written)."""
    for folder in path.parents:
        if folder.exists():
            if not folder.is_dir():
                raise InstallError(f"{path}: cannot write it: {folder} is a file, not a folder; nothing "
                                   "written")
            return


def _write(path: Path, current: str | None, text: str, now: datetime) -> Written:
    if text == current:
        return Written(path, False, None)
    backup = None
    if current is not None:
        backup = _backup_path(path, now)
        shutil.copy2(path, backup)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        # Written beside and renamed over, so a crash never leaves a half-written config.
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    except OSError as exc:  # a folder that cannot be made or written to (permissions, a read-only disk)
        raise InstallError(f"{path}: cannot write it ({exc.strerror or exc})") from exc
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        if current is not None:
            shutil.copymode(path, tmp)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return Written(path, True, backup)


def _backup_path(path: Path, now: datetime) -> Path:
    stamp = now.strftime("%Y%m%dT%H%M%SZ")
    candidate = path.with_name(f"{path.name}{BACKUP_INFIX}{stamp}")
    n = 1
    while candidate.exists():
        n += 1
        candidate = path.with_name(f"{path.name}{BACKUP_INFIX}{stamp}-{n}")
    return candidate


def _home(env: Mapping[str, str]) -> Path:
    return Path(env.get("HOME") or Path.home())


# -- JSON clients --


def _load_json(path: Path, current: str | None) -> dict[str, Any]:
    if current is None or not current.strip():
        return {}
    try:
        data = json.loads(current)
    except json.JSONDecodeError as exc:
        raise InstallError(f"{path}: cannot parse it as JSON ({exc}); nothing written. Comments and trailing "
                           "commas are not JSON: add the snippet by hand") from exc
    if not isinstance(data, dict):
        raise InstallError(f"{path}: the top level is not a JSON object; nothing written")
    return data


def _object_at(path: Path, data: dict[str, Any], key: str) -> dict[str, Any]:
    value = data.setdefault(key, {})
    if not isinstance(value, dict):
        raise InstallError(f"{path}: {key!r} is not a JSON object; nothing written")
    return value


def _dump_json(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def _json_merge(path: Path, edit: Callable[[dict[str, Any]], None]) -> Callable[[str | None], str]:
    """A merge applying `edit` to the parsed file; a file `edit` leaves equal comes back byte for byte."""

    def merge(current: str | None) -> str:
        data = _load_json(path, current)
        before = copy.deepcopy(data)
        edit(data)
        return current if current is not None and data == before else _dump_json(data)

    return merge


def _claude_server(path: Path, command: str, server_env: dict[str, str]) -> ConfigChange:
    entry = {"type": "stdio", "command": command, "args": ["mcp"], "env": server_env}

    def edit(data: dict[str, Any]) -> None:
        _object_at(path, data, "mcpServers")[SERVER_KEY] = entry

    return ConfigChange(path, "json", "MCP server (user scope)",
                        _dump_json({"mcpServers": {SERVER_KEY: entry}}), _json_merge(path, edit))


def _claude_hooks(path: Path, command: str, hook_env: Mapping[str, str]) -> ConfigChange:
    def group(event: str) -> dict[str, Any]:
        hook: dict[str, Any] = {"type": "command", "command": _hook_command(command, hook_env, "claude-code"),
                                "timeout": HOOK_TIMEOUTS[event]}
        if event in CLAUDE_ASYNC_HOOKS:
            hook["async"] = True
        # UserPromptSubmit and Stop take no matcher; an empty one matches every trigger of the other two.
        matcher = {} if event in ("UserPromptSubmit", "Stop") else {"matcher": ""}
        return {**matcher, "hooks": [hook]}

    return _hooks_change(path, "claude-code", CLAUDE_HOOK_EVENTS, group)


def _codex_hooks(path: Path, command: str, hook_env: Mapping[str, str]) -> ConfigChange:
    def group(event: str) -> dict[str, Any]:
        # No matcher: a group without one runs for every source and trigger.
        return {"hooks": [{"type": "command", "command": _hook_command(command, hook_env, "codex"),
                           "timeout": HOOK_TIMEOUTS[event]}]}

    return _hooks_change(path, "codex", CODEX_HOOK_EVENTS, group)


def _hook_command(command: str, hook_env: Mapping[str, str], harness: str) -> str:
    # A hook's config has no environment block: the variables go before the command, as the shell takes them.
    assignments = "".join(f"{k}={shlex.quote(v)} " for k, v in hook_env.items())
    return f"{assignments}{shlex.quote(command)} hook {harness}"


def _hooks_change(path: Path, harness: str, events: Sequence[str],
                  group: Callable[[str], dict[str, Any]]) -> ConfigChange:
    """The `hooks` object of a JSON settings file (Claude Code's settings.json, Codex's hooks.json, the
    same shape): our group for each of `events`, after the owner's own groups, replacing ours."""

    def edit(data: dict[str, Any]) -> None:
        hooks = _object_at(path, data, "hooks")
        for event in events:
            groups = hooks.setdefault(event, [])
            if not isinstance(groups, list):
                raise InstallError(f"{path}: hooks.{event} is not a list; nothing written")
            kept = [g for g in groups if not _is_our_hook_group(g, harness)]
            hooks[event] = [*kept, group(event)]

    snippet = _dump_json({"hooks": {e: [group(e)] for e in events}})
    return ConfigChange(path, "json", "hooks", snippet, _json_merge(path, edit))


def _is_our_hook_group(group: Any, harness: str) -> bool:
    """A hook group this installer wrote before (perhaps from another install path): replaced, not doubled."""
    if not isinstance(group, dict) or not isinstance(group.get("hooks"), list) or len(group["hooks"]) != 1:
        return False
    cmd = group["hooks"][0].get("command") if isinstance(group["hooks"][0], dict) else None
    if not isinstance(cmd, str):
        return False
    words = shlex.split(cmd) if cmd.strip() else []
    while words and "=" in words[0] and words[0].split("=", 1)[0] in CARRIED_VARS:
        words = words[1:]  # the variables an install carried
    return len(words) == 3 and Path(words[0]).name == "total-recall" and words[1:] == ["hook", harness]


def _opencode_file(env: Mapping[str, str]) -> Path:
    base = Path(env["XDG_CONFIG_HOME"]) if env.get("XDG_CONFIG_HOME") else _home(env) / ".config"
    folder = base / "opencode"
    plain, jsonc = folder / "opencode.json", folder / "opencode.jsonc"
    return jsonc if jsonc.exists() and not plain.exists() else plain


def _opencode(path: Path, command: str, server_env: dict[str, str]) -> ConfigChange:
    entry: dict[str, Any] = {"type": "local", "command": [command, "mcp"], "enabled": True}
    if server_env:
        entry["environment"] = server_env

    def edit(data: dict[str, Any]) -> None:
        if not data:
            data["$schema"] = OPENCODE_SCHEMA
        mcp = _object_at(path, data, "mcp")
        servers = mcp.get("servers")
        if isinstance(servers, dict) and "type" not in servers:
            # The file is in V2's shape (mcp.servers.<name>, no `enabled` field): follow it.
            servers[SERVER_KEY] = {k: v for k, v in entry.items() if k != "enabled"}
        else:
            mcp[SERVER_KEY] = entry

    return ConfigChange(path, "json", "MCP server", _dump_json({"mcp": {SERVER_KEY: entry}}),
                        _json_merge(path, edit))


# -- TOML clients --


def _load_toml(path: Path, current: str | None) -> tomlkit.TOMLDocument:
    try:
        return tomlkit.parse(current or "")
    except tomlkit.exceptions.ParseError as exc:
        raise InstallError(f"{path}: cannot parse it as TOML ({exc}); nothing written") from exc


def _server_table(command: str, server_env: dict[str, str], *first: tuple[str, str]) -> Table:
    """The server's TOML table (Codex's `[mcp_servers.total-recall]`, a Vibe `[[mcp_servers]]` entry)."""
    t = tomlkit.table()
    for key, value in first:
        t.add(key, value)
    t.add("command", command)
    t.add("args", ["mcp"])
    if server_env:
        t.add("env", _inline(server_env))
    t.add(tomlkit.nl())
    return t


def _codex(path: Path, command: str, server_env: dict[str, str]) -> ConfigChange:
    def table() -> Table:
        return _server_table(command, server_env)

    def merge(current: str | None) -> str:
        doc = _load_toml(path, current)
        servers = doc.get("mcp_servers")
        if servers is None:
            servers = tomlkit.table(is_super_table=True)
            doc.add("mcp_servers", servers)
        if not isinstance(servers, Table):
            raise InstallError(f"{path}: mcp_servers is not a table; nothing written")
        if current is not None and _same(servers.get(SERVER_KEY), table()):
            return current
        servers[SERVER_KEY] = table()  # in place when it is there already
        return _toml_text(doc)

    snippet = tomlkit.document()
    snippet.add("mcp_servers", tomlkit.table(is_super_table=True))
    snippet["mcp_servers"].add(SERVER_KEY, table())
    return ConfigChange(path, "toml", "MCP server", tomlkit.dumps(snippet), merge)


def _codex_hooks_off(config: Path) -> bool:
    """Whether the owner turned Codex's hooks off (`[features] hooks = false`, or the older `codex_hooks`):
    they are on by default (developers.openai.com/codex/hooks), and his choice is his to change."""
    try:
        features = tomllib.loads(config.read_text(encoding="utf-8")).get("features")
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return False
    return isinstance(features, dict) and False in (features.get("hooks"), features.get("codex_hooks"))


def _vibe(path: Path, command: str, server_env: dict[str, str]) -> ConfigChange:
    def entry() -> Table:
        return _server_table(command, server_env, ("name", SERVER_KEY), ("transport", "stdio"))

    def merge(current: str | None) -> str:
        doc = _load_toml(path, current)
        servers = doc.get("mcp_servers")
        if servers is None:
            doc.add("mcp_servers", tomlkit.aot())
            servers = doc["mcp_servers"]
        if not isinstance(servers, AoT):
            raise InstallError(f"{path}: mcp_servers is not an array of tables ([[mcp_servers]]); "
                               "nothing written")
        for i, server in enumerate(servers.body):
            if server.get("name") == SERVER_KEY:
                if current is not None and _same(server, entry()):
                    return current
                servers.body[i] = entry()
                break
        else:
            servers.append(entry())
        return _toml_text(doc)

    snippet = tomlkit.document()
    snippet.add("mcp_servers", tomlkit.aot())
    snippet["mcp_servers"].append(entry())
    return ConfigChange(path, "toml", "MCP server", tomlkit.dumps(snippet), merge)


def _same(item: Any, table: Table) -> bool:
    return hasattr(item, "unwrap") and item.unwrap() == table.unwrap()


def _inline(values: dict[str, str]) -> Any:
    table = tomlkit.inline_table()
    table.update(values)
    return table


def _toml_text(doc: tomlkit.TOMLDocument) -> str:
    text = tomlkit.dumps(doc)
    return text if text.endswith("\n") else text + "\n"


# -- the watcher's service --

WATCHER = "watcher"
WATCH_SERVICE = "total-recall-watch"
ENABLE_WATCHER = f"systemctl --user daemon-reload && systemctl --user enable --now {WATCH_SERVICE}"
UNIT_SUFFIX = ".service"
LAUNCHD_LABEL = "com.total-recall.watch"


def watch_words(command: str, harness: str | None = None, home: Path | None = None) -> list[str]:
    """The command line the service runs: `total-recall [--home H] watch [--harness NAME]`."""
    return [command, *(["--home", str(home.expanduser().absolute())] if home else []), "watch",
            *(["--harness", harness] if harness else [])]


def systemd_here(env: Mapping[str, str] | None = None, platform: str = sys.platform) -> bool:
    """Whether this machine runs systemd user units: Linux with `systemctl` on PATH."""
    e = os.environ if env is None else env
    found = shutil.which("systemctl", path=e.get("PATH", os.defpath))
    return platform.startswith("linux") and found is not None


def unit_folder(env: Mapping[str, str] | None = None) -> Path:
    """Where systemd looks for this user's own units: `~/.config/systemd/user`."""
    e = os.environ if env is None else env
    config = Path(e["XDG_CONFIG_HOME"]) if e.get("XDG_CONFIG_HOME") else _home(e) / ".config"
    return config / "systemd" / "user"


def enable_watcher(unit: Path, env: Mapping[str, str] | None = None) -> str:
    """The commands that start the watcher's unit written at `unit`: by its name where systemd looks for
    user units, else by its absolute path (`systemctl --user enable` links a unit file from elsewhere)."""
    here = unit.parent.absolute() == unit_folder(env).absolute()
    named = unit.name.removesuffix(UNIT_SUFFIX) if here else str(unit.absolute())
    return f"systemctl --user daemon-reload && systemctl --user enable --now {shlex.quote(named)}"


def watcher_unit(words: Sequence[str], *, env: Mapping[str, str] | None = None,
                 path: Path | None = None) -> ConfigChange:
    """The systemd user unit running `words` (`watch_words`) with the variables an install carries, at
    `path` (default `~/.config/systemd/user/total-recall-watch.service`). The file is wholly ours: a
    `--write` replaces it, the old one kept as a backup.

    Raises:
        InstallError: `path` does not end in `.service` (systemd would not load it as a service).
    """
    e = os.environ if env is None else env
    if path is not None and (not path.name.endswith(UNIT_SUFFIX) or path.name == UNIT_SUFFIX):
        raise InstallError(f"{path}: systemd loads a service only from a file named NAME{UNIT_SUFFIX}; "
                           "nothing written")
    target = path or unit_folder(e) / f"{WATCH_SERVICE}{UNIT_SUFFIX}"
    lines = [
        "# Written by `total-recall install watcher`: follows the agents' session stores, and syncs and",
        "# observes a session once it has grown. `total-recall install watcher --write` rewrites it.",
        "# Only the variables below reach it: an LLM key belongs in llm.toml in the record's home.",
        "[Unit]",
        "Description=Total Recall watcher: sync and observe busy agent sessions",
        "",
        "[Service]",
        "Type=simple",
        "ExecStart=" + " ".join(_unit_word(w) for w in words),
        *(f"Environment={_unit_word(f'{k}={v}', quote=True)}" for k, v in carried(e).items()),
        "Restart=on-failure",
        "RestartSec=30",
        "",
        "[Install]",
        "WantedBy=default.target",
    ]
    text = "\n".join(lines) + "\n"
    return ConfigChange(target, "systemd", "systemd user unit", text, lambda current: text)


def watcher_instead(words: Sequence[str], *, env: Mapping[str, str] | None = None,
                    platform: str = sys.platform) -> str:
    """What to run where there is no systemd: a launchd agent on macOS, else a nohup line."""
    e = os.environ if env is None else env
    variables = carried(e)
    if platform == "darwin":
        agent = _home(e) / "Library" / "LaunchAgents" / f"{LAUNCHD_LABEL}.plist"
        plist = plistlib.dumps({"Label": LAUNCHD_LABEL, "ProgramArguments": list(words),
                                "EnvironmentVariables": variables, "RunAtLoad": True,
                                "KeepAlive": {"SuccessfulExit": False}}).decode()
        return (f"# save as {agent}, then: launchctl load -w {shlex.quote(str(agent))}\n{plist}")
    log = _home(e) / ".local" / "state" / f"{WATCH_SERVICE}.log"
    assignments = "".join(f"{k}={shlex.quote(v)} " for k, v in variables.items())
    return (f"mkdir -p {shlex.quote(str(log.parent))} && {assignments}nohup "
            f"{shlex.join(words)} >>{shlex.quote(str(log))} 2>&1 &")


def _unit_word(word: str, quote: bool = False) -> str:
    """One word of a unit's command line or assignment, as systemd reads it back: `%` and `$` doubled
    (no specifier or variable expanded), quoted when it holds space, a quote or a backslash."""
    word = word.replace("%", "%%")
    if not quote:
        word = word.replace("$", "$$")
    if quote or any(c.isspace() or c in "\"'\\;" for c in word):
        word = '"' + word.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return word
