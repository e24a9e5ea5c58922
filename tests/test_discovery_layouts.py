"""Discovery over the harnesses' real layouts, built under tmp and read through `total-recall assets`.

Each layout cites where the harness itself looks; the module docstring of `assets/discovery.py` lists the
same sources with their commits.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from tests.keeping_helpers import Transcript
from total_recall.surfaces.cli import cli


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def skill(folder: Path, name: str, description: str) -> Path:
    return write(folder / "SKILL.md", f"---\nname: {name}\ndescription: {description}\n---\n# {name}\n")


def described(path: Path, description: str, name: str = "") -> Path:
    """A Markdown command, agent or prompt with its description (and name) in front matter."""
    named = f"name: {name}\n" if name else ""
    return write(path, f"---\n{named}description: {description}\n---\n{description}\n")


def rebuilt(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, **env: str) -> tuple[dict[str, Any], Result]:
    """`assets --rebuild --json` with `env` set; the assets by their source path, and the run."""
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    got = CliRunner().invoke(cli, ["--home", str(tmp_path / "record"), "assets", "--rebuild", "--json",
                                   "--max-bytes", "4000000"])
    assert got.exit_code == 0, got.output
    reply = json.loads(got.stdout[got.stdout.index("{"):])
    return {a["source"]: a for a in reply["assets"]}, got


def assert_asset(found: dict[str, Any], path: Path, kind: str, name: str, description: str,
                 scope: str | None = None) -> None:
    asset = found.get(str(path))
    assert asset is not None, f"{path} not indexed; found {sorted(found)}"
    assert (asset["kind"], asset["name"], asset["description"], asset["scope"]) == (
        kind, name, description, scope)


def test_an_installed_claude_plugin_brings_its_skills_commands_agents_and_mcp_servers(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    claude = tmp_path / "claude"
    # The cache layout <root>/plugins/cache/<marketplace>/<plugin>/<version> and the v2 registry
    # {"version": 2, "plugins": {"name@marketplace": [{"scope", "installPath", ...}]}}: anthropics/claude-code
    # issues #29671 and #54905. A plugin's folders: plugins/plugin-dev/skills/plugin-structure/SKILL.md; its
    # bare `.mcp.json` map: plugins/plugin-dev/skills/mcp-integration/SKILL.md; a root SKILL.md is a skill:
    # CHANGELOG 2.1.142.
    plugin = claude / "plugins" / "cache" / "acme-market" / "deploy-kit" / "1.2.0"
    write(plugin / ".claude-plugin" / "plugin.json", '{"name": "deploy-kit", "version": "1.2.0"}')
    one = skill(plugin / "skills" / "canary-rollout", "canary-rollout", "Rolls a release out to canaries.")
    command = described(plugin / "commands" / "ship.md", "Ship the current branch.")
    agent = described(plugin / "agents" / "auditor.md", "Audits a release checklist.", "release-auditor")
    servers = {"deploy-api": {"command": "deploy-mcp", "args": ["--stdio"]}}
    mcp = write(plugin / ".mcp.json", json.dumps(servers))
    root_skill = skill(tmp_path / "solo", "solo-helper", "A plugin that is one skill.")
    write(claude / "plugins" / "installed_plugins.json", json.dumps({"version": 2, "plugins": {
        "deploy-kit@acme-market": [{"scope": "user", "installPath": str(plugin), "version": "1.2.0"}],
        "solo@acme-market": [{"scope": "project", "installPath": str(root_skill.parent), "version": "1",
                              "projectPath": "/work/shop"}]}}))

    found, _ = rebuilt(tmp_path, monkeypatch, CLAUDE_CONFIG_DIR=str(claude))

    assert_asset(found, one, "skill", "canary-rollout", "Rolls a release out to canaries.")
    assert_asset(found, command, "command", "ship", "Ship the current branch.")
    assert_asset(found, agent, "agent", "release-auditor", "Audits a release checklist.")
    assert_asset(found, root_skill, "skill", "solo-helper", "A plugin that is one skill.", scope="/work/shop")
    server = next(a for a in found.values() if a["kind"] == "mcp_server")
    assert (server["name"], server["source"]) == ("deploy-api", str(mcp))
    assert "deploy-mcp --stdio" in server["description"]


def test_a_plugin_recorded_under_another_machines_home_is_found_in_this_roots_cache(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    claude = tmp_path / "claude"
    # installPath is absolute and names the installing machine's home when the config root is shared or
    # copied (anthropics/claude-code issue #29671, #56462); the files sit under this root's plugins/cache.
    moved = skill(claude / "plugins" / "cache" / "official" / "code-review" / "unknown" / "skills" / "review",
                  "review", "Reviews a pull request.")
    write(claude / "plugins" / "installed_plugins.json", json.dumps({"version": 2, "plugins": {
        "code-review@official": [{"scope": "user", "version": "unknown", "installPath":
                                  "/root/.claude/plugins/cache/official/code-review/unknown"}]}}))

    found, _ = rebuilt(tmp_path, monkeypatch, CLAUDE_CONFIG_DIR=str(claude))

    assert_asset(found, moved, "skill", "review", "Reviews a pull request.")


def test_claude_commands_in_subfolders_are_indexed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    claude = tmp_path / "claude"
    # .claude/commands/frontend/component.md is /frontend:component (anthropics/claude-code CHANGELOG 1.0.44).
    nested = described(claude / "commands" / "frontend" / "component.md", "Scaffold a UI component.")

    found, _ = rebuilt(tmp_path, monkeypatch, CLAUDE_CONFIG_DIR=str(claude))

    assert_asset(found, nested, "command", "component", "Scaffold a UI component.")


def test_codex_skills_nest_in_folders_and_custom_agents_are_toml_files(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    codex = tmp_path / "codex"
    # $CODEX_HOME/skills is walked for SKILL.md, hidden folders (the bundled .system) skipped:
    # openai/codex codex-rs/core/src/skills/loader.rs. Custom agents: $CODEX_HOME/agents/<name>.toml with
    # name, description, developer_instructions (developers.openai.com/codex/subagents).
    deep = skill(codex / "skills" / "documents" / "pdf-forms", "pdf-forms", "Fills in PDF forms.")
    skill(codex / "skills" / ".system" / "skill-creator", "skill-creator", "Bundled with Codex.")
    # With the sandbox armed, the live ~/.agents is not read though Codex's home is given.
    skill(tmp_path / "home" / ".agents" / "skills" / "live-only", "live-only", "Must stay unread.")
    agent = write(codex / "agents" / "reviewer.toml", 'name = "reviewer"\ndescription = "Reviews diffs for '
                  'missing tests."\ndeveloper_instructions = """\nReview only.\n"""\n')

    found, _ = rebuilt(tmp_path, monkeypatch, CODEX_HOME=str(codex))

    assert_asset(found, deep, "skill", "pdf-forms", "Fills in PDF forms.")
    assert_asset(found, agent, "agent", "reviewer", "Reviews diffs for missing tests.")
    assert not any(".system" in source or ".agents" in source for source in found)


def test_opencode_reads_singular_and_plural_folders_in_its_config_dir(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = tmp_path / "xdg"
    opencode = config / "opencode"
    # {skill,skills}/**/SKILL.md: anomalyco/opencode packages/opencode/src/skill/index.ts;
    # {command,commands}/**/*.md and {agent,agents}/**/*.md: src/config/command.ts, src/config/agent.ts.
    one = skill(opencode / "skill" / "git-release", "git-release", "Drafts release notes from tags.")
    two = skill(opencode / "skills" / "team" / "standup", "standup", "Summarises yesterday's commits.")
    command = described(opencode / "command" / "test.md", "Run the tests with coverage.")
    nested = described(opencode / "commands" / "db" / "migrate.md", "Apply migrations.")
    agent = write(opencode / "agent" / "docs-writer.md",
                  "---\ndescription: Writes docs.\nmode: subagent\n---\nWrite.\n")
    plural = described(opencode / "agents" / "security.md", "Audits for security.")

    found, _ = rebuilt(tmp_path, monkeypatch, XDG_CONFIG_HOME=str(config),
                       TOTAL_RECALL_OPENCODE_ROOT=str(tmp_path / "opencode-store"))

    assert_asset(found, one, "skill", "git-release", "Drafts release notes from tags.")
    assert_asset(found, two, "skill", "standup", "Summarises yesterday's commits.")
    assert_asset(found, command, "command", "test", "Run the tests with coverage.")
    assert_asset(found, nested, "command", "migrate", "Apply migrations.")
    assert_asset(found, agent, "agent", "docs-writer", "Writes docs.")
    assert_asset(found, plural, "agent", "security", "Audits for security.")


def test_vibe_skills_and_toml_agents_in_its_home_are_indexed(tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    vibe = tmp_path / "vibe"
    # VIBE_HOME/skills/<name>/SKILL.md and VIBE_HOME/agents/*.toml (name = the file's stem, description):
    # mistralai/mistral-vibe vibe/core/config/harness_files/_paths.py, vibe/core/agents/models.py.
    one = skill(vibe / "skills" / "changelog", "changelog", "Keeps CHANGELOG.md in step.")
    agent = write(vibe / "agents" / "careful.toml",
                  'display_name = "Careful"\ndescription = "Asks before every edit."\nsafety = "safe"\n')

    found, _ = rebuilt(tmp_path, monkeypatch, VIBE_HOME=str(vibe))

    assert_asset(found, one, "skill", "changelog", "Keeps CHANGELOG.md in step.")
    assert_asset(found, agent, "agent", "careful", "Asks before every edit.")


def test_pi_skills_nest_or_sit_loose_and_its_prompt_templates_are_commands(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pi = tmp_path / "pi-agent"
    # PI_CODING_AGENT_DIR (else ~/.pi/agent): skills/ is walked for SKILL.md and its own *.md files are
    # skills too; prompts/*.md are prompt templates: badlogic/pi-mono packages/coding-agent/src/config.ts,
    # src/core/skills.ts, src/core/prompt-templates.ts.
    deep = skill(pi / "skills" / "web" / "browser-tools", "browser-tools", "Drives a headless browser.")
    loose = described(pi / "skills" / "commit.md", "Writes commit messages.", "commit")
    prompt = described(pi / "prompts" / "review.md", "Review the staged diff.")

    found, _ = rebuilt(tmp_path, monkeypatch, PI_CODING_AGENT_DIR=str(pi))

    assert_asset(found, deep, "skill", "browser-tools", "Drives a headless browser.")
    assert_asset(found, loose, "skill", "commit", "Writes commit messages.")
    assert_asset(found, prompt, "command", "review", "Review the staged diff.")


def test_the_shared_agents_skills_folder_in_home_is_read_without_the_sandbox(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # ~/.agents/skills: Codex (developers.openai.com/codex/skills), OpenCode (src/skill/index.ts
    # EXTERNAL_DIRS), Vibe (harness_files/_paths.py GLOBAL_AGENTS_SKILLS_DIR), pi (package-manager.ts).
    home = tmp_path / "home"  # the autouse fixture's HOME: nothing live is read with the sandbox off
    shared = skill(home / ".agents" / "skills" / "tidy-imports", "tidy-imports", "Sorts Python imports.")
    monkeypatch.delenv("TOTAL_RECALL_SANDBOX")

    found, _ = rebuilt(tmp_path, monkeypatch, HOME=str(home))

    assert_asset(found, shared, "skill", "tidy-imports", "Sorts Python imports.")


def test_each_harness_project_folder_is_read_under_a_known_cwd(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    project = tmp_path / "shop"
    cwd = str(project)
    claude = tmp_path / "claude"
    Transcript(claude / "projects" / "-shop" / "0b4f3c2e-1111-4222-8333-444455556666.jsonl", cwd).owner("hi")
    # .agents/skills: Codex, OpenCode, Vibe (vibe/core/paths/_local_config_files.py), pi.
    shared = skill(project / ".agents" / "skills" / "seed-db", "seed-db", "Seeds the dev database.")
    # .codex/skills, .codex/agents/*.toml and .codex/config.toml are Codex's project layer
    # (codex-rs/core/src/skills/loader.rs ConfigLayerSource::Project; developers.openai.com/codex/subagents).
    codex_skill = skill(project / ".codex" / "skills" / "lint-fix", "lint-fix", "Fixes lint errors.")
    codex_agent = write(project / ".codex" / "agents" / "planner.toml",
                        'name = "planner"\ndescription = "Plans the work."\n'
                        'developer_instructions = "Plan."\n')
    codex_config = write(project / ".codex" / "config.toml",
                         '[mcp_servers.tracker]\ncommand = "tracker-mcp"\n')
    # .opencode/{command,agent,skill}s and a project opencode.json: src/config/paths.ts, command.ts, agent.ts.
    oc_command = described(project / ".opencode" / "commands" / "deploy.md", "Deploy it.")
    oc_agent = described(project / ".opencode" / "agent" / "triage.md", "Triage bugs.")
    oc_config = write(project / "opencode.json",
                      json.dumps({"mcp": {"browser": {"type": "local", "command": ["browser-mcp"]}}}))
    # .vibe/skills, .vibe/agents/*.toml, .vibe/config.toml: vibe/core/paths/_local_config_files.py.
    vibe_skill = skill(project / ".vibe" / "skills" / "api-docs", "api-docs", "Writes API docs.")
    vibe_agent = write(project / ".vibe" / "agents" / "tester.toml", 'description = "Writes tests."\n')
    vibe_config = write(project / ".vibe" / "config.toml",
                        '[[mcp_servers]]\nname = "kb"\ncommand = "kb-mcp"\n')
    # .pi/prompts/*.md and .pi/skills: pi-mono src/core/prompt-templates.ts, src/core/skills.ts.
    pi_prompt = described(project / ".pi" / "prompts" / "explain.md", "Explain a file.")

    sync = CliRunner().invoke(cli, ["--home", str(tmp_path / "record"), "sync", "--harness", "claude-code"],
                              env={"TOTAL_RECALL_CLAUDE_ROOT": str(claude / "projects")})
    assert sync.exit_code == 0, sync.output
    found, _ = rebuilt(tmp_path, monkeypatch, TOTAL_RECALL_CLAUDE_ROOT=str(claude / "projects"))

    assert_asset(found, shared, "skill", "seed-db", "Seeds the dev database.", scope=cwd)
    assert_asset(found, codex_skill, "skill", "lint-fix", "Fixes lint errors.", scope=cwd)
    assert_asset(found, codex_agent, "agent", "planner", "Plans the work.", scope=cwd)
    assert_asset(found, oc_command, "command", "deploy", "Deploy it.", scope=cwd)
    assert_asset(found, oc_agent, "agent", "triage", "Triage bugs.", scope=cwd)
    assert_asset(found, vibe_skill, "skill", "api-docs", "Writes API docs.", scope=cwd)
    assert_asset(found, vibe_agent, "agent", "tester", "Writes tests.", scope=cwd)
    assert_asset(found, pi_prompt, "command", "explain", "Explain a file.", scope=cwd)
    servers = {(a["name"], a["source"], a["scope"]) for a in found.values() if a["kind"] == "mcp_server"}
    assert servers >= {("tracker", str(codex_config), cwd), ("browser", str(oc_config), cwd),
                       ("kb", str(vibe_config), cwd)}


def test_a_symlink_loop_in_a_skills_folder_ends_the_walk_and_its_skills_are_indexed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    codex = tmp_path / "codex"
    # Codex follows symlinked skill folders and enters each real folder once (codex-rs/.../loader.rs).
    nested = skill(codex / "skills" / "team" / "oncall", "oncall", "Pages the on-call engineer.")
    (codex / "skills" / "team" / "loop").symlink_to(codex / "skills", target_is_directory=True)
    too_deep = skill(codex / "skills" / "a" / "b" / "c" / "d" / "e" / "f" / "g", "too-deep", "Seven down.")

    found, _ = rebuilt(tmp_path, monkeypatch, CODEX_HOME=str(codex))

    assert_asset(found, nested, "skill", "oncall", "Pages the on-call engineer.")
    assert str(too_deep) not in found
    assert [a["name"] for a in found.values()] == ["oncall"]


def test_a_malformed_file_in_a_new_location_is_warned_by_path_and_the_rest_are_indexed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    codex = tmp_path / "codex"
    good = skill(codex / "skills" / "tools" / "csv-clean", "csv-clean", "Cleans CSV exports.")
    broken_skill = write(codex / "skills" / "tools" / "half" / "SKILL.md", "---\nname: half\nnot a key\n")
    broken_agent = write(codex / "agents" / "broken.toml", 'name = "broken\ndescription = \n')
    agent = write(codex / "agents" / "fine.toml", 'name = "fine"\ndescription = "Does fine work."\n')

    found, got = rebuilt(tmp_path, monkeypatch, CODEX_HOME=str(codex))

    assert_asset(found, good, "skill", "csv-clean", "Cleans CSV exports.")
    assert_asset(found, agent, "agent", "fine", "Does fine work.")
    assert str(broken_skill) not in found and str(broken_agent) not in found
    notes = got.stderr
    assert f"{broken_skill}: malformed SKILL.md" in notes
    assert f"{broken_agent}: malformed broken.toml" in notes
