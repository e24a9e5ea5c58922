"""The observing bench's generator: 30 simulated days of one owner's Claude Code sessions, written in the
native format (`projects/<slug>/<uuid>.jsonl`, lines shaped as Claude Code 2.1.114 writes them), with
planted rules, preferences, facts and one-off events in the owner's own varied phrasing, and pasted text
(an email, a log, a README excerpt, a wiki quote, a chat message, a config file, a ticket, a traceback)
holding imperatives that are someone else's.

The phrasings were written as owners write them before anything was measured, and each pool is split
in two by a fixed shuffle: `report` is the half the figures use, `fit` the other (for whoever tunes the
observer). Every archived-item probe has a paraphrase written from the planted sentence's meaning, not
from its words: apart from its names (a service, a host), it shares no content word with the sentence
(checked in code, `shares_word`).
"""

from __future__ import annotations

import json
import re
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from random import Random
from typing import Any

START = datetime(2026, 11, 2, tzinfo=UTC)  # a Monday
PROJECTS = ("shop", "platform")
VERSION = "2.1.114"

SERVICES = "billing search checkout inventory ledger mailer scheduler gateway reports auth".split()
WORDS = """cache index shard replica queue worker pipeline buffer socket router session token cookie header
payload schema cursor channel stream batch checksum certificate keystore manifest registry volume
namespace cluster ingress proxy upstream retry quota metric trace parser bundle lockfile snapshot journal
eviction lease heartbeat partition consumer watermark reducer executor allocator fixture canary tenant
webhook invoice refund coupon shipment catalog subscription renewal template""".split()
NAMES = "Dana Priya Marco Lena Tomasz Aiko Ruth Omar".split()
PAIRS = [("pnpm", "npm"), ("uv", "pip"), ("ruff", "flake8"), ("httpx", "requests"), ("pytest", "unittest"),
         ("podman", "docker"), ("orjson", "simplejson"), ("zstd", "gzip")]
VENDORS = "acme-cloud.example hostly.example paystream.example mailgrid.example".split()

# -- the owner's phrasings (each pool split in two halves by HALF_SEED) --

RULES_KEYWORD = [
    "Never restart {svc} during business hours.",
    "Always run the {w} checks before pushing to {branch}.",
    "Never commit anything under {dir}/.",
    "Always tag {svc} releases by hand.",
    "Never paste the {w} credentials into chat.",
    "Always open a ticket before touching {path}.",
    "From now on, {svc} logs go to {host}.",
    "Never merge into {branch} on a Friday.",
    "Always ask me before bumping {pkg}.",
    "Never delete the {w} snapshots, even the old ones.",
    "Every time you change {path}, update the changelog too.",
    "You must not run migrations against {host} directly.",
]
RULES_NATURAL = [
    "Deploys of {svc} wait for the Friday freeze to end.",
    "{Svc}: staging first, then prod.",
    "No force pushes to {branch}.",
    "Use {pkg}, not {pkg2}.",
    "Migrations for {svc} go through {branch}, not straight to main.",
    "Anything under {dir}/ belongs to the {svc} team, hands off.",
    "Secrets for {svc} live in the vault and nowhere near {path}.",
    "Every {w} change in {svc} gets a second reviewer before it merges.",
    "If the nightly for {svc} is red, nobody merges until it's green again.",
    "Hotfixes on {svc} still carry a ticket number in the commit message.",
    "The {svc} database is off limits during business hours.",
    "Only the {svc} team merges into {branch}.",
    "Production credentials stay out of {path}.",
    "Schema changes to {svc} ship behind a flag.",
    "Tests for {svc} run against the local broker, not the shared one.",
    "Releases of {svc} happen on Tuesdays and Thursdays only.",
    "We squash commits on {branch}.",
    "{Svc} config comes from {path}; env vars are for local runs.",
    "Friday afternoons are for reviews, not for deploys.",
    "Rollbacks of {svc} go through the runbook, not by hand.",
    "Nothing gets deployed to {host} without a green canary.",
    "Branch names on {svc} start with the ticket number.",
    "Pull requests on {svc} stay under {n}00 lines.",
    "Database dumps are encrypted before they leave {host}.",
    "The {w} job for {svc} runs after {n}:00, when traffic is low.",
    "Code review before merge on {svc}, no exceptions.",
    "One feature flag per change in {svc}.",
    "Any new dependency in {svc} needs my OK first.",
    "Load tests against {svc} happen on the perf cluster, never on staging.",
    "Customer data from {svc} doesn't go into test fixtures.",
]
PREFERENCES = [
    "I prefer small commits on {svc}, one concern each.",
    "I'd rather have short answers without tables.",
    "I like the {w} tests in {svc} to be table-driven.",
    "My preference is {pkg} over a hand-rolled {w} parser.",
    "Bullet points work better for me than long explanations.",
    "I'm not a fan of reformatting whole files in one go.",
    "I'd sooner read the diff than a summary of it.",
    "Show me the command before you run it, I like knowing what happens.",
    "Type hints everywhere in {svc} make me happier.",
    "I find {pkg} much nicer to work with than {pkg2}.",
    "Plain English in commit messages suits me better than jargon.",
    "I enjoy reviewing {svc} code in the morning, so leave big PRs for then.",
]
FACTS = [
    "The staging database for {svc} lives on {host}:{port}.",
    "{Svc} runs Postgres {ver} in production.",
    "The {svc} repository is at github.com/acme/{svc}.",
    "Our on-call rotation for {svc} changes every Monday at 09:00.",
    "The {w} bucket for {svc} is s3://acme-{svc}-{w}.",
    "{Name} leads the {svc} team.",
    "{Svc} listens on port {port} behind the gateway.",
    "The CI runners for {svc} are on {host}, {n} of them.",
    "The {svc} service is written in Go; everything else here is Python.",
    "The {svc} cron jobs are defined in {path}.",
    "The {w} dashboard for {svc} is at grafana.acme.example/d/{w}.",
    "Our {svc} SLA is {n}9.9 percent a month.",
]
# One-off events, each with two paraphrases a person might later search by: the half decides which.
EVENTS = [
    ("We deployed {svc} to production yesterday.", "when did {svc} go out to customers",
     "{svc} launch date"),
    ("{Svc} had an outage this morning, about {n}0 minutes.", "{svc} downtime", "{svc} was unavailable"),
    ("I rotated the {w} keys last night.", "{w} credential renewal", "when were {w} secrets changed"),
    ("We migrated {svc} to the new cluster on Monday.", "{svc} cluster move", "{svc} moved hosting"),
    ("{Name} fixed the flaky {w} test earlier today.", "who repaired the unreliable {w} spec",
     "{w} intermittent failure resolved"),
    ("We rolled back the {svc} release last night after the 502s.", "{svc} revert gateway errors",
     "{svc} undo after bad gateway"),
    ("The {w} certificate on {host} expired this morning.", "{host} cert lapse", "{host} tls ran out"),
    ("We switched {svc} from {pkg2} to {pkg} last week.", "{svc} tooling change to {pkg}",
     "{svc} replaced {pkg2}"),
    ("I met with the {svc} team yesterday about the {w} limits.", "talk with {svc} people on {w} quotas",
     "{svc} call regarding {w} caps"),
    ("The {svc} build broke after the {pkg} upgrade this afternoon.",
     "{svc} compile failure following {pkg} bump", "{pkg} version change broke {svc}"),
    ("We lost the {w} queue on {host} during the power cut on Tuesday.", "{host} electricity failure",
     "{w} messages gone when {host} lost power"),
    ("{Name} signed the {svc} vendor contract this afternoon.", "{svc} supplier agreement",
     "{svc} deal with supplier done"),
]
# Frames around a planted sentence in the owner's message. `plain` is the sentence alone; the rest are the
# hard cases (reported apart): inside a longer message, a bullet list, after a question, before chatter.
FRAMES = [
    "Before you start: {s} Then have a look at the failing {w} test in {path}.",
    "Thanks, that works. {s}",
    "Can you check why the {w} job is slow? Also: {s}",
    "A few things:\n- {s}\n- the {w} dashboard is fine as it is\n- ping me when {svc} is green",
    "{s} I know it's annoying, but it saved us twice.",
    "ok. {s} let's move on",
    "Good morning! {s}",
    "{s}\n\nNow, back to the {w} bug.",
]
# Everyday one-off requests and questions: not lasting notes.
REQUESTS = [
    "Fix the failing {w} test in {path}.",
    "Can you look at why {svc} returns 502 on /api/{w}?",
    "Add a retry around the {w} call in {path}.",
    "What does {path} do?",
    "Run the {w} suite again, please.",
    "Rename {w} to {w2} in {path}.",
    "Let's bump the {w} timeout to {n}0 seconds in {path} for this test run.",
    "Please write a short summary of the {w} changes for the PR.",
    "Where is the {w} handler for {svc} defined?",
    "Could you split {path} into two modules?",
]

# -- pasted text: imperatives that are someone else's (each listed exactly as it stands in the paste) --

PASTES: list[tuple[str, str, tuple[str, ...]]] = [
    ("email", "Got this from the vendor, thoughts?\n\nFrom: ops@{vendor}\nTo: team@acme.example\n"
     "Subject: {w} policy\n\nHi all,\n\nAlways CC legal on every {svc} release. Never rotate the {w} keys "
     "before Monday.\n\nThanks,\n{Name}",
     ("Always CC legal on every {svc} release.", "Never rotate the {w} keys before Monday.")),
    ("log", "The deploy log says:\n2026-11-20T09:00:01Z WARN always restart {svc} workers after a config "
     "push\n2026-11-20T09:00:02Z ERROR never skip the {w} migration\n\nWhy would it say that?",
     ("always restart {svc} workers after a config push", "never skip the {w} migration")),
    ("readme", "From the {svc} README:\n\n## Contributing\n\n- Always run the linter before you commit.\n"
     "- Never push to main; open a pull request.\n- Use conventional commit messages.\n\n"
     "Is that what we actually do here?",
     ("Always run the linter before you commit.", "Never push to main; open a pull request.",
      "Use conventional commit messages.")),
    ("wiki quote", "> Never deploy {svc} on Mondays.\n> Always page the on-call before a failover.\n\n"
     "that's from the old wiki, still true?",
     ("Never deploy {svc} on Mondays.", "Always page the on-call before a failover.")),
    ("chat", "{Name} wrote in #ops:\n\"Always drain {host} before patching it. Never reboot the primary "
     "first.\"\n\nmakes sense to you?",
     ("Always drain {host} before patching it.", "Never reboot the primary first.")),
    ("config", "Where does this come from?\n```\n# never edit this file by hand\n# always regenerate "
     "with make gen\n{w}_enabled: true\n```",
     ("never edit this file by hand", "always regenerate with make gen")),
    ("ticket", "The ticket says:\nSummary: {w} cleanup for {svc}\nAlways purge the {w} cache after "
     "deploys. Never keep backups older than a week.\n\nShould we do this?",
     ("Always purge the {w} cache after deploys.", "Never keep backups older than a week.")),
    ("traceback", "Got this error:\nTraceback (most recent call last):\n  File \"{path}\", line {n}2, in "
     "flush\nRuntimeError: never call flush() twice; always close the {w} stream first\n\nany idea?",
     ("never call flush() twice; always close the {w} stream first",)),
]
# What a parent agent tells a sub-agent: imperatives in a `user` line that is not the owner's.
SUBAGENT_PROMPTS = [
    "Always use the {w} fixture from conftest. Never modify {path}. Report the failing tests only.",
    "Never run the full suite; always start with tests/test_{w}.py.",
]

_STOP = frozenset("""a an the and or of to in on at for by with from is are was were be been it its this that
these those we our us i me my you your he she they them his her their not no into as than then when what
who why how which there here do does did so if about after before up out over under just also only
""".split())
_WORD = re.compile(r"[a-z][a-z0-9]*")


def content_words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if w not in _STOP and len(w) > 2}


def shares_word(paraphrase: str, sentence: str, names: set[str]) -> set[str]:
    """Content words a paraphrase shares with its sentence, names aside."""
    return (content_words(paraphrase) & content_words(sentence)) - names


def _halves(pool: list[Any], salt: int) -> dict[str, list[int]]:
    order = list(range(len(pool)))
    Random(19 * 1000 + salt).shuffle(order)
    cut = len(order) // 2
    return {"fit": sorted(order[:cut]), "report": sorted(order[cut:])}


POOLS: dict[str, list[Any]] = {"keyword": RULES_KEYWORD, "natural": RULES_NATURAL,
                               "preference": PREFERENCES, "fact": FACTS, "event": EVENTS, "frame": FRAMES}
HALVES = {name: _halves(pool, salt) for salt, (name, pool) in enumerate(POOLS.items())}


@dataclass
class Planted:
    """One planted sentence: what it is, where it stands, and how it was phrased."""

    id: int
    kind: str  # rule, preference, fact, event
    text: str
    family: str  # keyword, natural (rules), or the kind
    frame: str  # "plain", or the frame's number (a hard case)
    day: int
    session: str = ""
    paraphrase: str = ""
    names: set[str] = field(default_factory=set)
    template: int = 0  # its template's index in its pool


@dataclass
class Pasted:
    id: int
    shape: str
    imperatives: tuple[str, ...]
    day: int
    session: str = ""


@dataclass
class Turn:
    kind: str  # owner, agent, tool, sub (a sub-agent's prompt)
    text: str
    tool: str = ""
    args: dict[str, Any] = field(default_factory=dict)


@dataclass
class Session:
    id: str
    project: str
    day: int
    start: datetime
    turns: list[Turn] = field(default_factory=list)
    parent: str | None = None  # a sub-agent's parent session id


@dataclass
class History:
    seed: int
    half: str
    days: int
    sessions: list[Session] = field(default_factory=list)
    planted: list[Planted] = field(default_factory=list)
    pasted: list[Pasted] = field(default_factory=list)
    repeats: int = 0
    dropped_paraphrases: list[tuple[str, str, set[str]]] = field(default_factory=list)

    def on(self, day: int) -> list[Session]:
        return [s for s in self.sessions if s.day == day]


def slots(rng: Random) -> dict[str, str]:
    svc, w, w2 = rng.choice(SERVICES), rng.choice(WORDS), rng.choice(WORDS)
    pkg, pkg2 = rng.choice(PAIRS)
    n = str(rng.randint(2, 9))
    d = {"svc": svc, "Svc": svc.capitalize(), "w": w, "w2": w2, "n": n, "pkg": pkg, "pkg2": pkg2,
         "path": f"src/{svc}/{w}.py", "dir": f"vendor/{w}", "host": f"{w}-{n}.internal",
         "port": str(rng.randint(5000, 9999)), "branch": rng.choice(["develop", f"release/{n}.x", "staging"]),
         "ver": f"{rng.randint(13, 17)}.{rng.randint(1, 9)}", "Name": rng.choice(NAMES),
         "vendor": rng.choice(VENDORS)}
    return d


def _names(s: dict[str, str]) -> set[str]:
    """The slot values a paraphrase may share with its sentence: names of things, not words for them."""
    out: set[str] = set()
    for key in ("svc", "w", "host", "pkg", "pkg2", "Name", "path"):
        out |= content_words(s[key])
    return out


def make_history(seed: int, half: str, days: int, per_day: tuple[int, int] = (2, 4)) -> History:
    """The owner's `days` days: 2–4 sessions a day, each with 1–3 planted sentences among everyday work."""
    rng = Random(seed)
    h = History(seed, half, days)
    used: set[str] = set()
    stated: list[Planted] = []  # rules and preferences, restated now and then on a later day
    for day in range(days):
        for k in range(rng.randint(*per_day)):
            project = PROJECTS[k % 2]
            sid = str(uuid.UUID(int=rng.getrandbits(128), version=4))
            start = START + timedelta(days=day, hours=9 + 2 * k, minutes=rng.randint(0, 50))
            s = Session(sid, project, day, start)
            s.turns.append(Turn("owner", _fill(rng.choice(REQUESTS), slots(rng))))
            s.turns.extend(_work(rng))
            for _ in range(rng.randint(1, 3)):
                p = _plant(rng, h, half, day, sid, used)
                text = p.text if p.frame == "plain" else _fill(FRAMES[int(p.frame)], slots(rng), s=p.text)
                s.turns.append(Turn("owner", text))
                s.turns.append(Turn("agent", rng.choice(_ACKS)))
                if p.kind in ("rule", "preference"):
                    stated.append(p)
                if rng.random() < 0.5:
                    s.turns.append(Turn("owner", _fill(rng.choice(REQUESTS), slots(rng))))
                    s.turns.extend(_work(rng))
            if stated and rng.random() < 0.25:
                again = rng.choice(stated)
                if again.day < day:  # said again on a later day: reinforcement, and themes to stage
                    s.turns.append(Turn("owner", again.text))
                    s.turns.append(Turn("agent", "Yes, still noted."))
                    h.repeats += 1
            if rng.random() < 0.45:
                shape, body, imps = PASTES[rng.randrange(len(PASTES))]
                sl = slots(rng)
                s.turns.append(Turn("owner", _fill(body, sl)))
                s.turns.append(Turn("agent", "That reads like someone else's policy; I won't treat it as "
                                             "yours unless you say so."))
                h.pasted.append(Pasted(len(h.pasted), shape, tuple(_fill(i, sl) for i in imps), day, sid))
            h.sessions.append(s)
            if rng.random() < 0.15:  # a sub-agent the main agent started
                child = Session("agent-" + uuid.UUID(int=rng.getrandbits(128)).hex[:17], project, day,
                                start + timedelta(minutes=20), parent=sid)
                child.turns.append(Turn("sub", _fill(rng.choice(SUBAGENT_PROMPTS), slots(rng))))
                child.turns.append(Turn("agent", "Done: two failing tests, both in the fixture setup."))
                h.sessions.append(child)
    return h


_ACKS = ["Noted — I'll keep that in mind.", "Understood.", "Got it, I'll follow that.", "Makes sense, noted.",
         "OK."]


def _plant(rng: Random, h: History, half: str, day: int, sid: str, used: set[str]) -> Planted:
    kind = rng.choices(["rule", "preference", "fact", "event"], weights=[4, 2, 2, 2])[0]
    for _ in range(50):
        family = kind
        if kind == "rule":
            family = "natural" if rng.random() < 0.7 else "keyword"
        pool = POOLS[family]
        index = rng.choice(HALVES[family][half])
        sl = slots(rng)
        template = pool[index]
        paraphrase = ""
        if isinstance(template, tuple):
            template, para = template[0], template[1 if half == "fit" else 2]
            paraphrase = _fill(para, sl)
        text = _fill(template, sl)
        if text in used:
            continue
        used.add(text)
        names = _names(sl)
        if paraphrase and (shared := shares_word(paraphrase, text, names)):
            h.dropped_paraphrases.append((text, paraphrase, shared))
            paraphrase = ""
        frame = "plain" if rng.random() < 0.6 else str(rng.choice(HALVES["frame"][half]))
        p = Planted(len(h.planted), kind, text, family, frame, day, sid, paraphrase, names, index)
        h.planted.append(p)
        return p
    raise RuntimeError("the phrasing pool ran out of distinct sentences")


def _work(rng: Random) -> list[Turn]:
    """The agent at work: a message, a command and its output, sometimes a failure."""
    sl = slots(rng)
    failed = rng.random() < 0.3
    out = (f"....F\nFAILED tests/test_{sl['w']}.py::test_{sl['w2']} - AssertionError: expected {sl['n']}\n"
           f"1 failed, {sl['n']}4 passed" if failed else f"{sl['n']}5 passed in 0.{sl['n']}s")
    return [Turn("agent", _fill(rng.choice(_AGENT), sl)),
            Turn("tool", out, "Bash", {"command": f"pytest -q tests/test_{sl['w']}.py"}),
            Turn("agent", "One test fails; I'll look at the fixture next." if failed else "All green.")]


_AGENT = ["I looked at {path}; the {w} handler retries without backoff. I'll add a capped backoff.",
          "The {w} check in {svc} reads the whole {w2} table; I'll narrow it to the tenant.",
          "Running the {w} tests for {svc} now.",
          "I'll use {pkg} for this, since the repo already depends on it."]


def _fill(template: str, sl: dict[str, str], s: str = "") -> str:
    return template.format(s=s, **sl)


# -- writing the native files --


def project_dir(project: str) -> str:
    return f"/home/dev/work/{project}"


def write_day(projects: Path, h: History, day: int) -> list[Path]:
    """The sessions of `day` as Claude Code writes them; returns their paths."""
    return [write_session(projects, s) for s in h.on(day)]


def write_session(projects: Path, s: Session) -> Path:
    cwd = project_dir(s.project)
    folder = projects / cwd.replace("/", "-")
    if s.parent is not None:
        folder = folder / s.parent / "subagents"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{s.id}.jsonl"
    lines: list[str] = []
    parent: str | None = None
    clock = s.start
    sid = s.parent or s.id
    prompt = str(uuid.uuid5(uuid.NAMESPACE_URL, f"{s.id}/prompt"))

    def put(kind: str, message: dict[str, Any], **extra: Any) -> str:
        nonlocal parent, clock
        node = str(uuid.uuid5(uuid.NAMESPACE_URL, f"{s.id}/{len(lines)}"))
        clock += timedelta(seconds=40 + 7 * (len(lines) % 5))
        line: dict[str, Any] = {"parentUuid": parent, "isSidechain": s.parent is not None}
        if kind == "user":
            line["promptId"] = prompt
        line.update(type=kind, message=message, uuid=node,
                    timestamp=clock.strftime("%Y-%m-%dT%H:%M:%S.") + f"{clock.microsecond // 1000:03d}Z",
                    **extra, userType="external", entrypoint="cli", cwd=cwd, sessionId=sid, version=VERSION,
                    gitBranch="main")
        if s.parent is not None:
            line["agentId"] = s.id.removeprefix("agent-")
        lines.append(json.dumps(line))
        parent = node
        return node

    for n, t in enumerate(s.turns):
        if t.kind in ("owner", "sub"):
            put("user", {"role": "user", "content": t.text}, permissionMode="default")
        elif t.kind == "agent":
            put("assistant", _assistant(s.id, n, [{"type": "text", "text": t.text}], "end_turn"),
                requestId=f"req_{uuid.uuid5(uuid.NAMESPACE_URL, f'{s.id}/{n}').hex[:24]}")
        else:
            call = f"toolu_{uuid.uuid5(uuid.NAMESPACE_URL, f'{s.id}/{n}/call').hex[:24]}"
            use = put("assistant", _assistant(s.id, n, [{"type": "tool_use", "id": call, "name": t.tool,
                                                         "input": t.args, "caller": {"type": "direct"}}],
                                              "tool_use"),
                      requestId=f"req_{uuid.uuid5(uuid.NAMESPACE_URL, f'{s.id}/{n}').hex[:24]}")
            put("user", {"role": "user", "content": [{"tool_use_id": call, "type": "tool_result",
                                                      "content": t.text, "is_error": False}]},
                toolUseResult={"stdout": t.text, "stderr": "", "interrupted": False, "isImage": False},
                sourceToolAssistantUUID=use)
    with path.open("a", encoding="utf-8") as fh:
        fh.write("\n".join(lines) + "\n")
    return path


def _assistant(sid: str, n: int, content: list[dict[str, Any]], stop: str) -> dict[str, Any]:
    return {"model": "claude-opus-4-7", "id": f"msg_{uuid.uuid5(uuid.NAMESPACE_URL, f'{sid}/{n}').hex[:24]}",
            "type": "message", "role": "assistant", "content": content, "stop_reason": stop,
            "stop_sequence": None, "usage": {"input_tokens": 6, "cache_creation_input_tokens": 0,
                                             "cache_read_input_tokens": 1200, "output_tokens": 80,
                                             "service_tier": "standard"}}


def heavy_day(projects: Path, seed: int, entries: int = 2_000) -> int:
    """One heavy user's day: sessions of everyday work (planted sentences and pastes among it) until about
    `entries` entries; returns how many lines were written."""
    rng = Random(seed)
    h = History(seed, "report", 1)
    used: set[str] = set()
    written = 0
    k = 0
    while written < entries:
        s = Session(str(uuid.UUID(int=rng.getrandbits(128), version=4)), PROJECTS[k % 2], 0,
                    START + timedelta(hours=8, minutes=7 * k))
        while sum(2 if t.kind == "tool" else 1 for t in s.turns) < 200:
            s.turns.append(Turn("owner", _fill(rng.choice(REQUESTS), slots(rng))))
            s.turns.extend(_work(rng))
            if rng.random() < 0.3:
                p = _plant(rng, h, "report", 0, s.id, used)
                s.turns.append(Turn("owner", p.text))
                s.turns.append(Turn("agent", rng.choice(_ACKS)))
            if rng.random() < 0.05:
                s.turns.append(Turn("owner", _fill(PASTES[rng.randrange(len(PASTES))][1], slots(rng))))
        write_session(projects, s)
        written += sum(2 if t.kind == "tool" else 1 for t in s.turns)
        k += 1
    return written
