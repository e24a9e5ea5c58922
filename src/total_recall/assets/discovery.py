"""Discovery: the skills, commands, agents, prompts and MCP servers in the harnesses' config roots.

Read-only, like the stores: nothing here writes, creates or touches a file's times. Each harness's config
root is derived from the environment the way the stores' are (`config_roots`):

- Claude Code: each `CLAUDE_CONFIG_DIR`; else, when `TOTAL_RECALL_CLAUDE_ROOT` overrides the store, the
  parent of that `projects` folder (the override itself when it is not named `projects`); else `~/.claude`.
  Skills in `skills/*/SKILL.md`, commands in `commands/**/*.md`, agents in `agents/*.md`; its
  `.claude.json` (user and per-project MCP servers) is looked for inside the root and beside it. Each
  plugin `plugins/installed_plugins.json` lists (its `installPath`, or the same path under this root's
  `plugins/cache` when that moved) adds its skills, commands, agents, root `SKILL.md` and `.mcp.json`.
- Codex: `CODEX_HOME`; else the parent of `TOTAL_RECALL_CODEX_ROOT` when that names `sessions` or
  `archived_sessions`; else `~/.codex` (prompts in `prompts/*.md`, skills in `skills/**/SKILL.md`, custom
  agents in `agents/*.toml`, MCP servers in `config.toml`).
- OpenClaw: `OPENCLAW_DIR`; else the parent of `TOTAL_RECALL_OPENCLAW_ROOT`'s `agents`; else
  `~/.openclaw` (skills in `workspace/skills/*/SKILL.md` and `skills/*/SKILL.md`).
- pi: `PI_CODING_AGENT_DIR`, else `~/.pi/agent` (skills: `skills/**/SKILL.md` and `skills/*.md`;
  prompt templates: `prompts/*.md`).
- OpenCode: `$XDG_CONFIG_HOME/opencode`, plus `~/.opencode` and `OPENCODE_CONFIG_DIR` (`opencode.json`:
  `mcp.<name>` or `mcp.servers.<name>`; `{skill,skills}/**/SKILL.md`, `{command,commands}/**/*.md`,
  `{agent,agents}/**/*.md`).
- Vibe: `VIBE_HOME`, else `~/.vibe` (`config.toml`: `[[mcp_servers]]`; `skills/*/SKILL.md`,
  `agents/*.toml`).
- Shared: `~/.agents/skills/**/SKILL.md` (read by Codex, OpenCode, Vibe and pi).

With the sandbox armed, a harness without its store override or its own variable is not read at all (no
live config), nor is `~/.agents`. Under each cwd the record knows, the project's own folders are read:
`.claude/…` and `.mcp.json`; `.agents/skills`; `.codex/skills|agents|config.toml`; `.opencode/…` and
`opencode.json(c)`; `.vibe/skills|agents|config.toml`; `.pi/skills|prompts`. A walk goes at most
`WALK_DEPTH` folders down and through `WALK_DIRS` folders, skips hidden ones and `node_modules`, and
enters each real folder once, so a symlink loop ends it.

Where each layout comes from:
- Claude Code: anthropics/claude-code@5cfc0a19 CHANGELOG.md (command subfolders, 1.0.44; a plugin's root
  SKILL.md, 2.1.142) and plugins/plugin-dev/skills/{plugin-structure,mcp-integration}/SKILL.md; the
  installed_plugins.json v2 shape: anthropics/claude-code issues #29671, #54905.
- Codex: openai/codex codex-rs/core/src/skills/loader.rs@f793618e (walk depth 6, 2,000 folders, hidden
  skipped); developers.openai.com/codex/skills (`.agents/skills`, `~/.agents/skills`) and /codex/subagents
  (`agents/*.toml`: name, description, developer_instructions).
- OpenCode: anomalyco/opencode packages/opencode/src/skill/index.ts@048f74f4,
  src/config/{command,agent,paths}.ts; opencode.ai/docs/skills.
- Vibe: mistralai/mistral-vibe@ac8f1a09 vibe/core/config/harness_files/_paths.py, vibe/core/paths/
  _local_config_files.py, vibe/core/skills/manager.py, vibe/core/agents/{manager,models}.py.
- pi: badlogic/pi-mono@83378aad packages/coding-agent/src/{config.ts,core/skills.ts,
  core/prompt-templates.ts,core/package-manager.ts}.
"""

from __future__ import annotations

import json
import os
import re
import tomllib
from collections import deque
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from total_recall.assets.asset import AssetKind, Draft
from total_recall.assets.mined import scrubbed
from total_recall.assets.words import shorten, terms, use_clauses
from total_recall.config import OVERRIDE_VARS, sandbox_armed
from total_recall.llm.redaction import redact

# Enough of a body to say what it is about; a skill's whole manual would drown its description.
BODY_CHARS = 1_200
FILE_BYTES = 256 * 1024
# Codex's own bounds on a skills walk (codex-rs/core/src/skills/loader.rs).
WALK_DEPTH = 6
WALK_DIRS = 2_000


@dataclass(slots=True)
class Found:
    drafts: list[Draft] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def config_roots(env: Mapping[str, str] | None = None) -> dict[str, list[Path]]:
    """Each harness's config roots (see the module docstring for how each is derived); they may not
    exist."""
    e = os.environ if env is None else env
    home = Path(e.get("HOME") or Path.home())
    armed = sandbox_armed(e)

    def override(harness: str) -> Path | None:
        value = e.get(OVERRIDE_VARS[harness], "").strip()
        return Path(value).expanduser() if value else None

    def split(value: str) -> list[Path]:
        return [Path(p.strip()).expanduser() for p in value.split(",") if p.strip()]

    roots: dict[str, list[Path]] = {}
    claude = override("claude-code")
    if e.get("CLAUDE_CONFIG_DIR", "").strip():
        roots["claude-code"] = split(e["CLAUDE_CONFIG_DIR"])
    elif claude is not None:
        roots["claude-code"] = [claude.parent if claude.name == "projects" else claude]
    elif not armed:
        roots["claude-code"] = [home / ".claude"]
    codex = override("codex")
    if e.get("CODEX_HOME", "").strip():
        roots["codex"] = split(e["CODEX_HOME"])
    elif codex is not None:
        roots["codex"] = [codex.parent if codex.name in ("sessions", "archived_sessions") else codex]
    elif not armed:
        roots["codex"] = [home / ".codex"]
    claw = override("openclaw")
    if e.get("OPENCLAW_DIR", "").strip():
        roots["openclaw"] = [Path(e["OPENCLAW_DIR"]).expanduser()]
    elif claw is not None:
        roots["openclaw"] = [claw.parent if claw.name == "agents" else claw]
    elif not armed:
        roots["openclaw"] = [home / ".openclaw"]
    if e.get("PI_CODING_AGENT_DIR", "").strip():
        roots["pi"] = [Path(e["PI_CODING_AGENT_DIR"]).expanduser()]
    elif not armed:
        roots["pi"] = [home / ".pi" / "agent"]
    if not armed or override("opencode") is not None:
        xdg = Path(e["XDG_CONFIG_HOME"]) if e.get("XDG_CONFIG_HOME") else home / ".config"
        extra = split(e.get("OPENCODE_CONFIG_DIR", ""))
        roots["opencode"] = [xdg / "opencode", *([] if armed else [home / ".opencode"]), *extra]
    vibe = override("vibe")
    if e.get("VIBE_HOME", "").strip():
        roots["vibe"] = [Path(e["VIBE_HOME"]).expanduser()]
    elif vibe is not None:
        roots["vibe"] = [vibe.parent.parent if vibe.name == "session" else vibe]
    elif not armed:
        roots["vibe"] = [home / ".vibe"]
    if not armed:
        roots["agents"] = [home / ".agents"]
    return roots


def discover(roots: Mapping[str, Iterable[Path]], cwds: Iterable[str]) -> Found:
    """Every asset in the config roots and under the projects `cwds` (project scope)."""
    found = Found()
    for root in roots.get("claude-code", ()):
        _claude_root(found, root, None)
        for path in (root / ".claude.json", root.parent / ".claude.json"):
            _claude_json(found, path)
        _claude_plugins(found, root)
    for root in roots.get("codex", ()):
        for path in _listed(root / "prompts", "*.md"):
            _markdown(found, path, "command", None, needs_front=False)
        _codex_root(found, root, None)
        _toml_servers(found, root / "config.toml", None)
    for root in roots.get("openclaw", ()):
        for folder in (root / "workspace" / "skills", root / "skills"):
            for path in _listed(folder, "*/SKILL.md"):
                _markdown(found, path, "skill", None, needs_front=True)
    for root in roots.get("pi", ()):
        _pi_root(found, root, None)
    for root in roots.get("opencode", ()):
        for name in ("opencode.json", "opencode.jsonc"):
            _opencode(found, root / name, None)
        _opencode_root(found, root, None)
    for root in roots.get("vibe", ()):
        _toml_servers(found, root / "config.toml", None)
        _vibe_root(found, root, None)
    for root in roots.get("agents", ()):
        _skills(found, root / "skills", None)
    for cwd in sorted(set(cwds)):
        _project(found, Path(cwd), cwd)
    return found


def _project(found: Found, project: Path, cwd: str) -> None:
    """The project's own folders, each harness's, scoped to the project."""
    _claude_root(found, project / ".claude", cwd)
    _mcp_servers(found, project / ".mcp.json", _json_file(found, project / ".mcp.json"), cwd)
    _skills(found, project / ".agents" / "skills", cwd)
    _codex_root(found, project / ".codex", cwd)
    _toml_servers(found, project / ".codex" / "config.toml", cwd)
    _opencode_root(found, project / ".opencode", cwd)
    for name in ("opencode.json", "opencode.jsonc"):
        _opencode(found, project / name, cwd)
    _vibe_root(found, project / ".vibe", cwd)
    _toml_servers(found, project / ".vibe" / "config.toml", cwd)
    _pi_root(found, project / ".pi", cwd)


def _listed(folder: Path, pattern: str) -> list[Path]:
    try:
        return sorted(p for p in folder.glob(pattern) if p.is_file())
    except OSError:
        return []


def _walked(folder: Path) -> Iterator[tuple[Path, int]]:
    """Each file under `folder` and how many folders down it lies, breadth first and bounded: at most
    WALK_DEPTH folders down and WALK_DIRS folders in all, hidden folders and `node_modules` skipped, each
    real folder entered once (so a symlink loop ends). A folder holding a SKILL.md is a skill: its own
    files are not walked further, only that SKILL.md is given."""
    seen: set[Path] = set()
    queue: deque[tuple[Path, int]] = deque([(folder, 0)])
    while queue and len(seen) < WALK_DIRS:
        here, depth = queue.popleft()
        try:
            real = here.resolve()
            if real in seen or not here.is_dir():
                continue
            seen.add(real)
            if depth and (here / "SKILL.md").is_file():
                yield here / "SKILL.md", depth
                continue
            entries = sorted(here.iterdir())
        except OSError:
            continue
        for entry in entries:
            if entry.name.startswith(".") or entry.name == "node_modules":
                continue
            try:
                if entry.is_dir():
                    if depth < WALK_DEPTH:
                        queue.append((entry, depth + 1))
                elif entry.is_file():
                    yield entry, depth
            except OSError:
                continue


def _skills(found: Found, folder: Path, scope: str | None, *, loose: bool = False) -> None:
    """Every `*/…/SKILL.md` under `folder`; with `loose` (pi), a Markdown file directly in it is one too."""
    for path, depth in _walked(folder):
        if (depth and path.name == "SKILL.md") or (loose and not depth and path.suffix == ".md"):
            _markdown(found, path, "skill", scope, needs_front=True)


def _markdown_tree(found: Found, folder: Path, kind: AssetKind, scope: str | None) -> None:
    for path, _ in _walked(folder):
        if path.suffix == ".md":
            _markdown(found, path, kind, scope, needs_front=False)


def _claude_root(found: Found, root: Path, scope: str | None) -> None:
    for path in _listed(root / "skills", "*/SKILL.md"):
        _markdown(found, path, "skill", scope, needs_front=True)
    _markdown_tree(found, root / "commands", "command", scope)
    for path in _listed(root / "agents", "*.md"):
        _markdown(found, path, "agent", scope, needs_front=False)


def _claude_plugins(found: Found, root: Path) -> None:
    """The plugins Claude Code lists as installed; `projectPath` scopes a project or local install."""
    data = _json_file(found, root / "plugins" / "installed_plugins.json", "its plugins")
    plugins = data.get("plugins") if isinstance(data, dict) else None
    if not isinstance(plugins, dict):
        return
    for installs in plugins.values():
        for install in installs if isinstance(installs, list) else [installs]:
            if not isinstance(install, dict) or not isinstance(install.get("installPath"), str):
                continue
            folder = _plugin_folder(root, Path(install["installPath"]).expanduser())
            project = install.get("projectPath")
            if folder is not None:
                _claude_plugin(found, folder, project if isinstance(project, str) else None)


def _plugin_folder(root: Path, path: Path) -> Path | None:
    """The plugin's folder: its recorded path, else the same path under this root's `plugins/cache` (the
    recorded one is absolute, so a config root copied or shared from another machine names another's)."""
    if path.is_dir():
        return path
    parts = path.parts
    for n in range(len(parts) - 1):
        if parts[n:n + 2] == ("plugins", "cache"):
            moved = root.joinpath("plugins", "cache", *parts[n + 2:])
            return moved if moved.is_dir() else None
    return None


def _claude_plugin(found: Found, folder: Path, scope: str | None) -> None:
    _claude_root(found, folder, scope)
    if (folder / "SKILL.md").is_file():
        _markdown(found, folder / "SKILL.md", "skill", scope, needs_front=True)
    data = _json_file(found, folder / ".mcp.json")
    servers = data.get("mcpServers", data) if isinstance(data, dict) else None
    if isinstance(servers, dict):  # `{"mcpServers": {…}}` or the bare map of servers
        for name, spec in servers.items():
            if isinstance(spec, dict) and ("command" in spec or "url" in spec):
                _server(found, folder / ".mcp.json", str(name), spec, scope)


def _codex_root(found: Found, root: Path, scope: str | None) -> None:
    _skills(found, root / "skills", scope)
    for path in _listed(root / "agents", "*.toml"):
        _toml_agent(found, path, scope)


def _opencode_root(found: Found, root: Path, scope: str | None) -> None:
    for folder in ("skill", "skills"):
        _skills(found, root / folder, scope)
    for folder in ("command", "commands"):
        _markdown_tree(found, root / folder, "command", scope)
    for folder in ("agent", "agents"):
        _markdown_tree(found, root / folder, "agent", scope)


def _vibe_root(found: Found, root: Path, scope: str | None) -> None:
    for path in _listed(root / "skills", "*/SKILL.md"):
        _markdown(found, path, "skill", scope, needs_front=True)
    for path in _listed(root / "agents", "*.toml"):
        _toml_agent(found, path, scope)


def _pi_root(found: Found, root: Path, scope: str | None) -> None:
    _skills(found, root / "skills", scope, loose=True)
    for path in _listed(root / "prompts", "*.md"):
        _markdown(found, path, "command", scope, needs_front=False)


def _read(found: Found, path: Path) -> str | None:
    try:
        with path.open("rb") as fh:
            data = fh.read(FILE_BYTES)
        return data.decode("utf-8", "replace").lstrip("\ufeff")
    except OSError as exc:
        found.warnings.append(f"{path}: unreadable: {exc.strerror or exc}")
        return None


_FRONT_LINE = re.compile(r"^([A-Za-z0-9_-]+)\s*:\s*(.*)$")


def front_matter(text: str) -> tuple[dict[str, str], str] | None:
    """The `key: value` front matter of a Markdown file and the body after it; ({}, text) when it has
    none; None when it opens one that does not parse (no closing `---`, a line that is not a key)."""
    if not text.startswith("---"):
        return {}, text
    lines = text.split("\n")
    if lines[0].strip() != "---":
        return None
    fields: dict[str, str] = {}
    last: str | None = None
    for n, line in enumerate(lines[1:], start=1):
        if line.strip() == "---":
            return {k: v.strip() for k, v in fields.items()}, "\n".join(lines[n + 1:])
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if line[:1] in (" ", "\t") and last is not None:
            fields[last] = (fields[last] + " " + line.strip()).strip()  # a folded or block value
            continue
        m = _FRONT_LINE.match(line)
        if m is None:
            return None
        last = m.group(1).lower()
        value = m.group(2).strip()
        if value in (">", "|", ">-", "|-"):
            value = ""
        elif len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
            value = value[1:-1]
        fields[last] = value
    return None


def _markdown(found: Found, path: Path, kind: AssetKind, scope: str | None, *, needs_front: bool) -> None:
    text = _read(found, path)
    if text is None:
        return
    parsed = front_matter(text)
    if parsed is None or (needs_front and not parsed[0].get("name") and not parsed[0].get("description")):
        why = "front matter that does not parse" if parsed is None else "no name or description"
        found.warnings.append(f"{path}: malformed {path.name} ({why}); skipped")
        return
    fields, body = parsed
    stem = path.parent.name if path.name == "SKILL.md" else path.stem
    _file_asset(found, path, kind, scope, fields.get("name") or stem, stem, fields.get("description"), body)


def _toml_agent(found: Found, path: Path, scope: str | None) -> None:
    """A custom agent in its own TOML file: Codex's `name`, `description`, `developer_instructions`;
    Vibe's `display_name` and `description` (its name is the file's)."""
    data = _toml_file(found, path, f"malformed {path.name} (not TOML: {{}}); skipped")
    if data is None:
        return
    name = data.get("name") if isinstance(data.get("name"), str) else None
    body = next((v for k in ("developer_instructions", "instructions", "prompt")
                 if isinstance(v := data.get(k), str)), "")
    about = data.get("description") or data.get("display_name")
    _file_asset(found, path, "agent", scope, name or path.stem, path.stem,
                about if isinstance(about, str) else None, body)


def _file_asset(found: Found, path: Path, kind: AssetKind, scope: str | None, name: str, stem: str,
                description: str | None, body: str) -> None:
    body = redact(body.strip())
    description = redact(description or _first_line(body))
    draft = Draft(kind, name, shorten(description, 400), str(path), f"{kind}:{path}", scope=scope,
                  updated=_mtime(path))
    for alias in dict.fromkeys((name, stem)):
        draft.key("name", alias, path=str(path))
    if description:
        draft.key("topic", description, path=str(path))
    if body and terms(body):
        draft.key("topic", body[:BODY_CHARS], path=str(path), origin="body")
    for clause in use_clauses(description):
        draft.key("use", clause, path=str(path), origin="description")
    found.drafts.append(draft)


def _first_line(body: str) -> str:
    for line in body.split("\n"):
        line = line.strip().lstrip("#").strip()
        if line:
            return line
    return ""


def _mtime(path: Path) -> str | None:
    try:
        return datetime.fromtimestamp(path.stat().st_mtime, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    except OSError:
        return None


def _json_file(found: Found, path: Path, lost: str = "its MCP servers") -> Any:
    if not path.is_file():
        return None
    text = _read(found, path)
    if text is None:
        return None
    try:
        return json.loads(text)
    except ValueError:
        found.warnings.append(f"{path}: not JSON; {lost} skipped")
        return None


def _claude_json(found: Found, path: Path) -> None:
    data = _json_file(found, path)
    if not isinstance(data, dict):
        return
    _mcp_servers(found, path, data, None)
    projects = data.get("projects")
    if isinstance(projects, dict):
        for project, conf in projects.items():
            if isinstance(project, str) and isinstance(conf, dict):
                _mcp_servers(found, path, conf, project)


def _mcp_servers(found: Found, path: Path, data: Any, scope: str | None) -> None:
    servers = data.get("mcpServers") if isinstance(data, dict) else None
    if isinstance(servers, dict):
        for name, spec in servers.items():
            _server(found, path, str(name), spec, scope)


def _opencode(found: Found, path: Path, scope: str | None) -> None:
    data = _json_file(found, path)
    mcp = data.get("mcp") if isinstance(data, dict) else None
    if not isinstance(mcp, dict):
        return
    servers = mcp["servers"] if isinstance(mcp.get("servers"), dict) else mcp
    for name, spec in servers.items():
        _server(found, path, str(name), spec, scope)


def _toml_file(found: Found, path: Path, warning: str) -> dict[str, Any] | None:
    """A TOML file's table; None, and a warning naming the path (`warning`, the parse error in its {}),
    when it is not TOML."""
    text = _read(found, path)
    if text is None:
        return None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        found.warnings.append(f"{path}: " + warning.format(exc))
        return None


def _toml_servers(found: Found, path: Path, scope: str | None) -> None:
    if not path.is_file():
        return
    data = _toml_file(found, path, "not TOML ({}); its MCP servers skipped")
    if data is None:
        return
    servers = data.get("mcp_servers")
    if isinstance(servers, dict):  # Codex: [mcp_servers.<name>]
        for name, spec in servers.items():
            _server(found, path, str(name), spec, scope)
    elif isinstance(servers, list):  # Vibe: [[mcp_servers]] with a name
        for spec in servers:
            if isinstance(spec, dict) and isinstance(spec.get("name"), str):
                _server(found, path, spec["name"], spec, scope)


def _server(found: Found, path: Path, name: str, spec: Any, scope: str | None) -> None:
    """An MCP server: how it is started or reached, the NAMES of its environment (never their values)."""
    if not isinstance(spec, dict):
        return
    command = spec.get("command")
    words = [*command] if isinstance(command, list) else [command] if isinstance(command, str) else []
    args = spec.get("args")
    words += [str(a) for a in args] if isinstance(args, list) else []
    reach = " ".join(str(w) for w in words) or str(spec.get("url") or spec.get("httpUrl") or "")
    env = spec.get("env") or spec.get("environment")
    names = sorted(str(k) for k in env) if isinstance(env, dict) else []
    description = f"MCP server ({spec.get('type') or spec.get('transport') or 'stdio'}): {scrubbed(reach)}"
    if names:
        description += f"; environment: {', '.join(names)}"
    draft = Draft("mcp_server", name, shorten(description, 400), str(path),
                  f"mcp_server:{path}:{scope or ''}:{name}", scope=scope, updated=_mtime(path))
    draft.key("name", name, path=str(path))
    draft.key("topic", f"{name} {spec.get('description') or ''} {scrubbed(reach)}", path=str(path))
    if isinstance(spec.get("description"), str):
        for clause in use_clauses(spec["description"]):
            draft.key("use", clause, path=str(path), origin="description")
    found.drafts.append(draft)
