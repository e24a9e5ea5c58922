"""The ownership bench's generator: seeded synthetic owners written in the native store formats.

An owner is a home folder holding a Claude Code config root (`home/.claude`: `skills/*/SKILL.md`,
`commands/*.md`, `agents/*.md`, `projects/<slug>/<uuid>.jsonl` sessions, sub-agents under
`<uuid>/subagents/agent-*.jsonl`), `home/.claude.json` with its MCP servers, and two projects under
`home/work/` (the second keeps skills of its own in `.claude/skills`). The sessions hold how each asset came
to be (a script written then run, a note on a machine, a training run, a decision), and the histories that
tie a request to it: a correction by the owner after the agent hesitated, a visible use with no correction,
a correction synced only after the index was built (`late`), or a use beside another asset (`co-access`).
Every new request (a `Case`) is checked in code to share no content word with its asset's stored text.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date, timedelta
from pathlib import Path
from random import Random
from typing import Any

from ownership_catalog import (
    CAPS,
    CORRECTIONS,
    FRAMES,
    HESITATIONS,
    MUTES,
    NAMED,
    SUPERSEDED,
    UNSERVED,
    Cap,
    Superseded,
    split,
)

STOP = frozenset(
    """a an the and or but if then so of to in on at by for with from into onto over under up down
out off about as is are was were be been being it its this that these those there here i me my we us our you
your he she they them their his her what which who whom whose when where why how all any some no not do does
did done have has had can could would should will shall may might must just again also too very more most
one two let let's ok okay please hey right first next new thing get got go going make made i'm it's we've
you've don't didn't isn't what's that's who's can't won't""".split()
)
PROJECTS = ("alpha", "zulu")  # the second sorts last, so its sessions are numbered after the first's
MINED = frozenset({"script", "machine", "approach", "decision"})


def stem(word: str) -> str:
    for suffix in ("ing", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


def content_words(text: str) -> set[str]:
    """Lower-cased words of two letters or more, split at every non-alphanumeric, stop words out, stemmed."""
    words = re.findall(r"[a-z0-9]+(?:'[a-z]+)?", text.lower())
    return {stem(w) for w in words if len(w) >= 2 and w not in STOP}


def shares_word(request: str, stored: str) -> set[str]:
    return content_words(request) & content_words(stored)


@dataclass
class Asset:
    cap: Cap
    project: str | None  # None: global (config root); else the project whose files or sessions hold it
    sessions: set[str] = field(default_factory=set)  # native ids of every session that mentions it
    called: set[str] = field(default_factory=set)  # the aliases the owner has called it by in a session

    @property
    def name(self) -> str:
        return self.cap.names[0]

    @property
    def kind(self) -> str:
        return self.cap.kind

    @property
    def stored(self) -> str:
        """Everything the asset's own files or creating session say of it: requests must share none of it."""
        return " ".join((*self.cap.names, self.cap.description, self.cap.body, created_words(self.cap)))


@dataclass
class Event:
    kind: str  # owner | agent | tool (a tool call and its result)
    text: str
    tool: str = ""
    input: dict[str, Any] = field(default_factory=dict)


@dataclass
class Plan:
    """One session to write: its project, its events, and whether it lands after the index was built."""

    id: str
    project: str
    events: list[Event]
    late: bool = False
    parent: str | None = None  # a sub-agent's parent session id
    assets: set[str] = field(default_factory=set)


@dataclass
class Case:
    request: str
    target: str  # asset name
    category: str  # correction | helped | late | co-access
    project: str


@dataclass
class Probe:
    """A request asked only to see that something does not come out."""

    request: str
    about: str  # the asset or superseded item it is about


@dataclass
class Owner:
    index: int
    assets: list[Asset]
    plans: list[Plan]
    cases: list[Case]
    dropped: list[tuple[str, str, set[str]]]  # (request, asset, shared words)
    named: list[Case]
    unserved: list[str]
    superseded: list[Superseded]
    probes: dict[str, list[Probe]]  # asset name or superseded key -> probes
    older: dict[str, list[str]]  # superseded key -> the sessions of its older versions

    def asset(self, name: str) -> Asset:
        return next(a for a in self.assets if a.name == name)


def created_words(cap: Cap) -> str:
    """The owner's words when a mined asset was made (they are its stored text too)."""
    if cap.kind == "script":
        return "write a script: " + cap.description.lstrip("# ")
    if cap.kind == "machine":
        return "for the record: " + cap.description
    return cap.description


def _sid(owner: int, label: str) -> str:
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"ownership/{owner}/{label}"))


def use(asset: Asset, request: str, cwd: str) -> list[Event]:
    """What the agent does when it reaches for the asset, as Claude Code records it."""
    cap, name = asset.cap, asset.name
    if cap.kind == "skill":
        return [Event("tool", f"Launching skill: {name}", "Skill", {"skill": name})]
    if cap.kind == "command":
        return [Event("tool", f"{name} is running", "SlashCommand", {"command": name})]
    if cap.kind == "agent":
        return [
            Event(
                "tool",
                "The agent finished; its report is above.",
                "Task",
                {"subagent_type": name, "description": name, "prompt": request},
            )
        ]
    if cap.kind == "mcp_server":
        return [Event("tool", '{"ok": true}', f"mcp__{name}__query", {"query": request})]
    if cap.kind == "script":
        runner = "python" if name.endswith(".py") else "bash"
        return [Event("tool", "done", "Bash", {"command": f"cd {cwd} && {runner} scripts/{name}"})]
    if cap.kind == "machine":
        return [Event("tool", "up 12 days, load average 0.08", "Bash", {"command": f"ssh {name} uptime"})]
    if cap.kind == "approach":
        return [Event("tool", "epoch 3/3 done; saved", "Bash", {"command": cap.description})]
    return [Event("agent", f"Going by what we settled: {cap.description}")]


def creation(asset: Asset, cwd: str, rng: Random) -> list[Event]:
    """The session a mined asset comes from."""
    cap, name = asset.cap, asset.name
    if cap.kind == "script":
        path = f"{cwd}/scripts/{name}"
        return [
            Event("owner", created_words(cap)),
            Event(
                "tool",
                "File created successfully",
                "Write",
                {"file_path": path, "content": f"{cap.description}\n{cap.body}\n"},
            ),
            *use(asset, "", cwd),
            Event("agent", f"Wrote and ran scripts/{name}."),
        ]
    if cap.kind == "machine":
        return [
            Event("owner", created_words(cap)),
            *use(asset, "", cwd),
            Event("agent", f"Reached {name}; noted where its login is kept."),
        ]
    if cap.kind == "approach":
        closer = rng.choice(
            (
                "that run was the best so far, hold on to it",
                "keep that one, it's our reference",
                "nice, those numbers are what we wanted",
            )
        )
        return [Event("owner", f"start it: {cap.description}"), *use(asset, "", cwd), Event("owner", closer)]
    lead = rng.choice(("ok, final call. ", "let's settle it. ", "agreed. ", ""))
    return [Event("owner", lead + cap.description), Event("agent", "Noted.")]


def evidence(
    asset: Asset, request: str, category: str, rng: Random, half: str, cwd: str, partner: Asset | None
) -> list[Event]:
    """The history that ties `request` to the asset."""
    called = rng.choice(asset.cap.names)
    if category != "helped":
        asset.called.add(called)
    if category == "helped":
        return [
            Event("owner", request),
            *use(asset, request, cwd),
            Event("agent", "Done."),
            Event("owner", rng.choice(("perfect", "great, thanks", "that worked", "nice one"))),
        ]
    events = [
        Event("owner", request),
        Event("agent", rng.choice(HESITATIONS)),
        Event("owner", rng.choice(split(CORRECTIONS, half)).format(x=called)),
        *use(asset, request, cwd),
    ]
    if partner is not None:
        events += use(partner, request, cwd)
    return [*events, Event("agent", "Done.")]


def catalogue_of(name: str) -> tuple[tuple[Cap, ...], tuple[str, ...]]:
    """The things owners may own and the requests none serves: `main` (bench/ownership_catalog.py) or
    `blind` (bench/ownership_blind.py, written by a hand that read neither the push nor `main`)."""
    if name == "blind":
        from ownership_blind import BLIND_CAPS, BLIND_UNSERVED

        return BLIND_CAPS, BLIND_UNSERVED
    return CAPS, UNSERVED


def make_owner(index: int, seed: int, half: str, per_owner: int, catalogue: str = "main", history: int = 1
               ) -> Owner:
    """One owner: assets drawn from the catalogue, the sessions behind them, the cases and the probes.
    `history`: how many earlier requests tie each asset to its uses, each in a session of its own (1 to 4 of
    its six tasks; two others are the new requests). With 1 the owners are the bench's usual ones."""
    if not 1 <= history <= 4:
        raise ValueError(f"history must be 1 to 4 earlier requests, not {history}")
    rng = Random(seed * 1_000_003 + index)
    all_caps, unserved_tasks = catalogue_of(catalogue)
    frames = split(FRAMES, half)
    caps = list(all_caps)
    rng.shuffle(caps)
    caps = caps[:per_owner]
    assets: list[Asset] = []
    for i, cap in enumerate(caps):
        # Config assets are global except some skills of the second project; mined ones follow their session.
        if cap.kind in MINED:
            project: str | None = PROJECTS[i % 2]
        elif cap.kind == "skill" and i % 3 == 0:
            project = PROJECTS[1]
        else:
            project = None
        assets.append(Asset(cap, project))
    plans: list[Plan] = []

    def add(
        label: str, project: str, events: list[Event], about: Iterable[Asset], late: bool = False
    ) -> Plan:
        plan = Plan(_sid(index, label), project, events, late)
        for a in about:
            a.sessions.add(plan.id)
            plan.assets.add(a.name)
        plans.append(plan)
        return plan

    for a in assets:
        if a.kind in MINED:
            add(f"create/{a.name}", a.project or PROJECTS[0], creation(a, f"@{a.project}", rng), [a])
    cases: list[Case] = []
    dropped: list[tuple[str, str, set[str]]] = []
    categories = ("correction", "correction", "helped", "helped", "late", "co-access")
    for i, a in enumerate(assets):
        category = categories[i % len(categories)]
        project = a.project or PROJECTS[i % 2]
        tasks = list(a.cap.tasks)
        rng.shuffle(tasks)
        pasts, new = tasks[:history], tasks[history : history + 2]
        partner = None
        if category == "co-access":
            # The correction names another asset; the target is used beside it, and the new request
            # is about the other asset's task: only the link between them reaches the target.
            partner = a
            a = next(b for b in assets[i + 1 :] + assets[:i] if b.project in (None, project) and b is not a)
            pasts = [rng.choice(a.cap.tasks)]
            pasts += [t for t in a.cap.tasks if t not in pasts][: history - 1]
            new = [t for t in a.cap.tasks if t not in pasts][:2]
            target = partner
        else:
            target = a
        for n, past in enumerate(pasts):
            add(
                f"evidence/{target.name}" + (f"/{n}" if n else ""),
                project,
                evidence(a, rng.choice(frames).format(t=past), category, rng, half, f"@{project}", partner),
                [a] + ([partner] if partner else []),
                late=category == "late",
            )
        for task in new:
            request = rng.choice(frames).format(t=task)
            shared = shares_word(request, target.stored)
            if shared:
                dropped.append((request, target.name, shared))
            else:
                cases.append(Case(request, target.name, category, project))
    named = []
    for a in assets:
        if a.kind in ("approach", "decision"):
            continue  # their names are the index's to choose
        # Its name, and an alias only once the owner has called it so in a session: an alias never said
        # anywhere names nothing the index can know.
        for alias in [a.cap.names[0], *sorted(a.called - {a.cap.names[0]})]:
            named.append(
                Case(
                    rng.choice(NAMED).format(x=alias, t=rng.choice(a.cap.tasks)),
                    a.name,
                    "named",
                    a.project or PROJECTS[0],
                )
            )
    owned = {c.key for c in caps}
    unserved = [rng.choice(frames).format(t=t) for t in unserved_tasks]
    unserved += [rng.choice(frames).format(t=t) for c in all_caps if c.key not in owned for t in c.tasks[:2]]
    superseded = list(SUPERSEDED)
    older: dict[str, list[str]] = {}
    for s in superseded:
        cwd = f"@{PROJECTS[0]}"
        for n, version in enumerate(s.versions):
            if s.kind == "decision":
                events = [Event("owner", version), Event("agent", "Noted.")]
            else:
                events = [
                    Event("owner", f"update {s.path}" if n else f"write {s.path}"),
                    Event(
                        "tool", "File written", "Write", {"file_path": f"{cwd}/{s.path}", "content": version}
                    ),
                ]
            plan = add(f"superseded/{s.key}/{n}", PROJECTS[0], events, [])
            if n < len(s.versions) - 1:
                older.setdefault(s.key, []).append(plan.id)
    probes: dict[str, list[Probe]] = {}
    for a in assets:
        asks = [Probe(f.format(t=t), a.name) for t in a.cap.tasks for f in rng.sample(frames, 3)]
        asks += [
            Probe(n.format(x=x, t=rng.choice(a.cap.tasks)), a.name) for x in a.cap.names for n in NAMED[:3]
        ]
        probes[a.name] = asks
    for s in superseded:
        probes[s.key] = [Probe(f.format(t=t), s.key) for t in s.tasks for f in frames]
    return Owner(index, assets, plans, cases, dropped, named, unserved, superseded, probes, older)


def mute_plan(owner: Owner, names: list[str], half: str, rng: Random) -> Plan:
    """A session in which the owner asks, in words of their own, that each of `names` stop being offered."""
    events = []
    for name in names:
        events += [
            Event("owner", rng.choice(split(MUTES, half)).format(x=name)),
            Event("agent", "Understood."),
        ]
    return Plan(_sid(owner.index, "mute/" + ",".join(names)), PROJECTS[0], events, late=True)


def subagent_plan(owner: Owner) -> tuple[Plan, Plan]:
    """A parent session in the first project and a sub-agent it started (Claude Code's new layout)."""
    parent = Plan(
        _sid(owner.index, "parent"),
        PROJECTS[0],
        [
            Event("owner", "look into the flaky test for me"),
            Event(
                "tool",
                "The agent finished.",
                "Task",
                {"subagent_type": "general-purpose", "prompt": "find the flaky test"},
            ),
        ],
    )
    child = Plan(
        "agent-" + _sid(owner.index, "child")[:8],
        PROJECTS[0],
        [Event("owner", "find the flaky test"), Event("agent", "Looking.")],
        parent=parent.id,
    )
    return parent, child


# -- writing the native files --


def project_dir(home: Path, project: str) -> Path:
    return home / "work" / project


def write_config(home: Path, owner: Owner, skip_project: str | None = None) -> Path:
    """The Claude Code config root (`home/.claude`) and `home/.claude.json`; returns the root."""
    root = home / ".claude"
    servers: dict[str, Any] = {}
    for a in owner.assets:
        cap = a.cap
        front = f"---\nname: {a.name.lstrip('/')}\ndescription: {cap.description}\n---\n\n{cap.body}\n"
        if cap.kind == "skill":
            if a.project == skip_project and a.project is not None:
                continue
            base = root if a.project is None else project_dir(home, a.project) / ".claude"
            path = base / "skills" / a.name / "SKILL.md"
        elif cap.kind == "command":
            path = root / "commands" / f"{a.name.lstrip('/')}.md"
        elif cap.kind == "agent":
            path = root / "agents" / f"{a.name}.md"
        elif cap.kind == "mcp_server":
            command, *args = cap.description.split()
            servers[a.name] = {"type": "stdio", "command": command, "args": args, "env": {}}
            continue
        else:
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(front, encoding="utf-8")
    for project in PROJECTS:
        if project != skip_project:
            project_dir(home, project).mkdir(parents=True, exist_ok=True)
    (root / "projects").mkdir(parents=True, exist_ok=True)
    (home / ".claude.json").write_text(json.dumps({"numStartups": 3, "mcpServers": servers}, indent=1))
    return root


def write_session(home: Path, plan: Plan, number: int) -> Path:
    """One session as Claude Code writes it: a uuid-chained JSONL under `projects/<slug>/`."""
    cwd = str(project_dir(home, plan.project))
    slug = cwd.replace("/", "-").replace(".", "-")
    folder = home / ".claude" / "projects" / slug
    if plan.parent is not None:
        folder = folder / plan.parent / "subagents"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{plan.id}.jsonl"
    lines: list[str] = []
    parent: str | None = None
    sid = plan.parent or plan.id

    def put(kind: str, message: dict[str, Any], i: int) -> None:
        nonlocal parent
        node = str(uuid.uuid5(uuid.NAMESPACE_URL, f"{plan.id}/{len(lines)}"))
        # A day per session in the order the history happened (a script is written before it is run, a
        # document's versions follow each other); the sync still meets the files in another order.
        day = (date(2026, 1, 1) + timedelta(days=number)).isoformat()
        stamp = f"{day}T{8 + len(lines) // 60:02d}:{len(lines) % 60:02d}:00.000Z"
        line = {
            "parentUuid": parent,
            "isSidechain": plan.parent is not None,
            "userType": "external",
            "cwd": cwd,
            "sessionId": sid,
            "version": "2.1.114",
            "type": kind,
            "message": message,
            "uuid": node,
            "timestamp": stamp,
        }
        lines.append(json.dumps(line))
        parent = node

    for i, e in enumerate(plan.events):
        text = e.text.replace(f"@{plan.project}", cwd)
        data = json.loads(json.dumps(e.input).replace(f"@{plan.project}", cwd))
        if e.kind == "owner":
            put("user", {"role": "user", "content": text}, i)
        elif e.kind == "agent":
            put("assistant", {"role": "assistant", "content": [{"type": "text", "text": text}]}, i)
        else:
            call = f"toolu_{uuid.uuid5(uuid.NAMESPACE_URL, f'{plan.id}/{i}').hex[:24]}"
            put(
                "assistant",
                {
                    "role": "assistant",
                    "content": [{"type": "tool_use", "id": call, "name": e.tool, "input": data}],
                },
                i,
            )
            put(
                "user",
                {
                    "role": "user",
                    "content": [
                        {"tool_use_id": call, "type": "tool_result", "content": text, "is_error": False}
                    ],
                },
                i,
            )
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def write_owner(
    home: Path, owner: Owner, *, late: bool, skip_project: str | None = None, extra: Iterable[Plan] = ()
) -> Path:
    """The config root and every session (`late`: the late ones only); returns the projects folder."""
    root = write_config(home, owner, skip_project)
    for n, plan in enumerate([*owner.plans, *extra]):
        if plan.late == late and plan.project != skip_project:
            write_session(home, plan, n)
    return root / "projects"


def write_many(root: Path, count: int, seed: int) -> None:
    """`count` config assets (skills, commands, agents 7:2:1) for the speed run, from catalogue words."""
    rng = Random(seed)
    words = sorted({w for c in CAPS for w in re.findall(r"[a-z]{4,}", (c.description + c.body).lower())})
    for i in range(count):
        name = f"{rng.choice(words)}-{rng.choice(words)}-{i}"
        desc = " ".join(rng.sample(words, 12)).capitalize() + "."
        front = f"---\nname: {name}\ndescription: {desc}\n---\n\n{' '.join(rng.sample(words, 20))}\n"
        kind = i % 10
        path = (
            root / "skills" / name / "SKILL.md"
            if kind < 7
            else root / "commands" / f"{name}.md"
            if kind < 9
            else root / "agents" / f"{name}.md"
        )
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(front, encoding="utf-8")
