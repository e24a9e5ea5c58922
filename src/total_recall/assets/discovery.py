"""Discovery: the skills, commands, agents, prompts and MCP servers in the harnesses' config roots.

Read-only, like the stores: nothing here writes, creates or touches a file's times. Each harness's config
root is derived from the environment the way the stores' are (`config_roots`):

- Claude Code: each `CLAUDE_CONFIG_DIR`; else, when `TOTAL_RECALL_CLAUDE_ROOT` overrides the store, the
  parent of that `projects` folder (the override itself when it is not named `projects`); else `~/.claude`.
  Its `.claude.json` (user and per-project MCP servers) is looked for inside the root and beside it.
- Codex: `CODEX_HOME`; else the parent of `TOTAL_RECALL_CODEX_ROOT` when that names `sessions` or
  `archived_sessions`; else `~/.codex` (prompts in `prompts/*.md`, MCP servers in `config.toml`).
- OpenClaw: `OPENCLAW_DIR`; else the parent of `TOTAL_RECALL_OPENCLAW_ROOT`'s `agents`; else
  `~/.openclaw` (skills in `workspace/skills/*/SKILL.md` and `skills/*/SKILL.md`), plus pi's `~/.pi/agent`.
- OpenCode: `$XDG_CONFIG_HOME/opencode` (`opencode.json`: `mcp.<name>` or `mcp.servers.<name>`).
- Vibe: `VIBE_HOME`, else `~/.vibe` (`config.toml`: `[[mcp_servers]]`).

With the sandbox armed, a harness without its store override is not read at all (no live config).
Project-level `.claude/skills|commands|agents` and `.mcp.json` are read under each cwd the record knows.
"""

from __future__ import annotations

import json
import os
import re
import tomllib
from collections.abc import Iterable, Mapping
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
        roots["openclaw"] = [home / ".openclaw", home / ".pi" / "agent"]
    if not armed or override("opencode") is not None:
        xdg = Path(e["XDG_CONFIG_HOME"]) if e.get("XDG_CONFIG_HOME") else home / ".config"
        roots["opencode"] = [xdg / "opencode"]
    vibe = override("vibe")
    if e.get("VIBE_HOME", "").strip():
        roots["vibe"] = [Path(e["VIBE_HOME"]).expanduser()]
    elif vibe is not None:
        roots["vibe"] = [vibe.parent.parent if vibe.name == "session" else vibe]
    elif not armed:
        roots["vibe"] = [home / ".vibe"]
    return roots


def discover(roots: Mapping[str, Iterable[Path]], cwds: Iterable[str]) -> Found:
    """Every asset in the config roots and under the projects `cwds` (project scope)."""
    found = Found()
    for root in roots.get("claude-code", ()):
        _claude_root(found, root, None)
        for path in (root / ".claude.json", root.parent / ".claude.json"):
            _claude_json(found, path)
    for root in roots.get("codex", ()):
        for path in _listed(root / "prompts", "*.md"):
            _markdown(found, path, "command", None, needs_front=False)
        _toml_servers(found, root / "config.toml", "codex")
    for root in roots.get("openclaw", ()):
        for folder in (root / "workspace" / "skills", root / "skills"):
            for path in _listed(folder, "*/SKILL.md"):
                _markdown(found, path, "skill", None, needs_front=True)
    for root in roots.get("opencode", ()):
        for name in ("opencode.json", "opencode.jsonc"):
            _opencode(found, root / name)
    for root in roots.get("vibe", ()):
        _toml_servers(found, root / "config.toml", "vibe")
    for cwd in sorted(set(cwds)):
        project = Path(cwd)
        _claude_root(found, project / ".claude", cwd)
        _mcp_servers(found, project / ".mcp.json", _json_file(found, project / ".mcp.json"), cwd)
    return found


def _listed(folder: Path, pattern: str) -> list[Path]:
    try:
        return sorted(p for p in folder.glob(pattern) if p.is_file())
    except OSError:
        return []


def _claude_root(found: Found, root: Path, scope: str | None) -> None:
    for path in _listed(root / "skills", "*/SKILL.md"):
        _markdown(found, path, "skill", scope, needs_front=True)
    for path in _listed(root / "commands", "*.md"):
        _markdown(found, path, "command", scope, needs_front=False)
    for path in _listed(root / "agents", "*.md"):
        _markdown(found, path, "agent", scope, needs_front=False)


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
    name = fields.get("name") or stem
    body = redact(body.strip())
    description = redact(fields.get("description") or _first_line(body))
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


def _json_file(found: Found, path: Path) -> Any:
    if not path.is_file():
        return None
    text = _read(found, path)
    if text is None:
        return None
    try:
        return json.loads(text)
    except ValueError:
        found.warnings.append(f"{path}: not JSON; its MCP servers skipped")
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


def _opencode(found: Found, path: Path) -> None:
    data = _json_file(found, path)
    mcp = data.get("mcp") if isinstance(data, dict) else None
    if not isinstance(mcp, dict):
        return
    servers = mcp["servers"] if isinstance(mcp.get("servers"), dict) else mcp
    for name, spec in servers.items():
        _server(found, path, str(name), spec, None)


def _toml_servers(found: Found, path: Path, harness: str) -> None:
    if not path.is_file():
        return
    text = _read(found, path)
    if text is None:
        return
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        found.warnings.append(f"{path}: not TOML ({exc}); its MCP servers skipped")
        return
    servers = data.get("mcp_servers")
    if isinstance(servers, dict):  # Codex: [mcp_servers.<name>]
        for name, spec in servers.items():
            _server(found, path, str(name), spec, None)
    elif isinstance(servers, list):  # Vibe: [[mcp_servers]] with a name
        for spec in servers:
            if isinstance(spec, dict) and isinstance(spec.get("name"), str):
                _server(found, path, spec["name"], spec, None)


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
