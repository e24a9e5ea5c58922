"""Decisions, failed attempts and open items, found mechanically in a range: no model, no narrative.

Each item is one line cut verbatim from its entry (shortened with … at a word), so a verifier can find it:
- failure: a tool result that failed (`indexes.failures.failed`: a non-zero exit, a traceback, a refusal), as
  its telling error line; the agent or the owner saying something failed or broke;
- decision: the agent choosing ("let's go with", "I'll use", "decided", "Fix:", "Proposal:"), the owner
  approving ("yes, go ahead");
- open: TODO / next step / still need / later, the bullets under an "Open items" heading, the pending steps
  of the agent's last todo list, and an owner question nothing answers before the range ends.
The owner's words are quoted whole in the marker's own section; of them, items flag only an approval, a
failure he reports, something he leaves for later and his last unanswered question.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

import orjson

from total_recall.model import Span
from total_recall.readers.base import FLAGGED_FAILED

ItemKind = Literal["decision", "failure", "open"]
ITEM_KINDS: tuple[str, ...] = ("decision", "failure", "open")
ITEM_CHARS = 200
# How much of the agent's own prose is read for items, newest first (about 15k tokens): enough for every
# message of a normal range, and a bound on the builder's time for a 10k-entry one.
AGENT_TEXT_CHARS = 60_000
AGENT_ITEMS = 400


@dataclass(frozen=True, slots=True)
class Item:
    """One decision, failed attempt or open item; `line` is cut verbatim from the entry (… if shortened)."""

    kind: ItemKind
    address: str
    line: str


@dataclass(slots=True)  # not frozen: thousands are made per range, and frozen ones cost 3× to make
class Found:
    """An item found in the entry numbered `seq`, with how much it is worth keeping (before recency)."""

    kind: ItemKind
    seq: int
    line: str
    score: float


class Scanned(Protocol):
    """What item finding reads of an entry."""

    seq: int
    author: str
    kind: str
    tool: str | None
    text: str
    spans: tuple[Span, ...]
    failed: bool  # a tool result whose call failed (see `failed`)
    errors: tuple[str, ...]  # its error lines (see `error_lines`), when it failed

    def holds(self, quoted: str) -> bool: ...


# The patterns run on lower-cased text without re.I, and as one alternation, because a case-insensitive
# search per pattern per sentence costs more than everything else the builder does.
_FAILURE = (r"\b(?:failed|fails|failing|didn't work|did not work|doesn't work|does not work|not working|"
            r"isn't working|no luck|broke|broken|crashed|crashes|errored|timed out|same error|"
            r"still getting)\b")
_DECISION = (r"\b(?:let's go with|let's use|we'll go with|we'll use|i'll go with|i'll use|i'm going with|"
             r"going with|decided|we chose|i chose|opted for|settled on|switching to|switched to|instead of|"
             r"the plan is)\b|^\W*(?:fix|plan|decision|proposal|approach)\W*:")
_OPEN = (r"\b(?:todo|fixme|next steps?|still need(?:s|ed)?|still to do|left to do|remaining|open items?|"
         r"open questions?|follow[- ]ups?|not yet|pending|blocked|later|tomorrow|worth a look|your call)\b")
_KINDS = re.compile(f"(?P<failure>{_FAILURE})|(?P<decision>{_DECISION})|(?P<open>{_OPEN})", re.M)
_FAILURE_RX = re.compile(_FAILURE)
_DECISION_RX = re.compile(_DECISION, re.M)
_OPEN_LABEL = re.compile(r"^\W*(?:open items?|open questions?|todo|next steps?|follow[- ]ups?)\b")
_OPEN_HEADING = re.compile(
    r"^\W*(?:open items?|open questions?|next steps?|todo|to ?dos?|follow[- ]ups?|remaining(?: work)?|"
    r"still to do)\W*$")
_APPROVAL = re.compile(
    r"^\W*(?:yes|yep|yeah|ok|okay|sure|go ahead|go for it|approved?|lgtm|sounds good|do it|ship it|agreed|"
    r"perfect)\b")
_BULLET = re.compile(r"^\s*(?:[-*+•]|\d+[.)])\s+")
_SENTENCE_BREAK = re.compile(r"(?<=[.!?])\s+(?=\S)")
_ERROR_WORDS = ("error", "failed", "failure", "fatal", "exception", "denied", "refused", "traceback",
                "not found", "cannot", "unable to", "unauthorized", "forbidden", "panic", "timed out")
# rustc, ty and friends put a code in brackets before the colon: `error[E0308]: mismatched types`.
ERROR_HEAD = re.compile(
    r"\b(?:error|failed|fatal|exception)(?:\[[^\]\n]{1,60}\])?\s*:|\w+(?:Error|Exception):", re.I)
# A line that opens with its error head says what failed; one holding it further in is often source code
# quoted beside the error (`427 |     except PermissionError:`).
_OPENS_WITH_ERROR = re.compile(r"\s*(?:" + ERROR_HEAD.pattern + ")", re.I)
_EXIT_ONLY = re.compile(r"(?:exit code|process exited with code|exit status)[: ]*-?\d+$", re.I)
# An agent saying what it will check ("to make sure nothing else broke") names no failure.
_CHECKING = re.compile(
    r"\b(?:make sure|making sure|ensure|to see (?:if|whether)|to check|verify|nothing(?: else)?)\b")
_TODO_TOOLS = frozenset({"TodoWrite", "todowrite", "todo_write", "update_plan"})
_BASE = {"failure": 3.0, "open": 3.0, "decision": 2.0}
# Every phrase above holds one of these: a sentence holding none is passed over with plain substring
# tests, which cost a tenth of one search of the alternation.
_ITEM_KEYS = ("fail", "work", "luck", "broke", "crash", "errored", "timed out", "same error", "still",
              "go with", "going with", "use", "decided", "chose", "opted", "settled", "switch",
              "instead of", "plan", "todo", "fixme", "next step", "left to do", "remaining", "open",
              "follow", "not yet", "pending", "blocked", "later", "tomorrow", "worth a look", "your call",
              "fix", "decision", "proposal", "approach")


@dataclass(frozen=True, slots=True)
class ItemScan:
    """The items found, and the agent messages left unread (their entry numbers, oldest first)."""

    found: list[Found]
    unscanned: list[int]


def find_items(entries: Sequence[Scanned]) -> ItemScan:
    """Every item found mechanically in the entries, once each, verbatim in its entry.

    The agent's messages are read newest first, up to AGENT_TEXT_CHARS or until AGENT_ITEMS items are
    found (a marker shows a few dozen; a long range's oldest messages are the least likely to hold what
    is still open); the ones left unread are returned so the marker can point at them. The owner's words
    and failed tool calls are always read.
    """
    found: list[tuple[ItemKind, Scanned, str, float]] = []
    budget = AGENT_TEXT_CHARS
    messages = [e for e in entries if e.kind == "message" and e.author == "agent"]
    newest: list[Scanned] = []
    for e in reversed(messages):
        if len(e.text) > budget:
            break
        budget -= len(e.text)
        newest.append(e)
    lows = [e.text.lower() for e in newest]
    maybe = _holding_keys(lows)
    read = len(newest)
    for n, (e, low) in enumerate(zip(newest, lows, strict=True)):
        if len(found) >= AGENT_ITEMS:
            read = n
            break
        if n in maybe and _KINDS.search(low):
            found.extend((kind, e, line, 0.0) for kind, line in _agent_items(e.text))
    unscanned = sorted(m.seq for m in messages[: len(messages) - read])
    for e in entries:
        if e.failed:
            line = failure_line(e.text, e.errors)
            if line is not None:
                found.append(("failure", e, line, 1.0))
    found.extend((kind, e, line, 2.0) for kind, e, line in _owner_items(entries))
    todos = [e for e in entries if e.kind == "tool_call" and e.tool in _TODO_TOOLS]
    if todos:
        found.extend(("open", todos[-1], line, 1.0) for line in _open_todos(todos[-1].text))
    found.extend(("open", e, line, 2.0) for e, line in _unanswered(entries))
    seen: set[tuple[str, str]] = set()
    out = []
    for kind, e, line, bonus in sorted(found, key=lambda f: f[1].seq):
        if (kind, line) in seen or not e.holds(line):
            continue
        seen.add((kind, line))
        out.append(Found(kind, e.seq, line, _BASE[kind] + bonus))
    return ItemScan(out, unscanned)


def failure_line(text: str, lines: Sequence[str]) -> str | None:
    """The telling line of a failed tool call's output (`lines`: its error lines): one opening with
    `error:`/`error[E0308]:`/`XError:`, else one holding such a head, else any error line (the last of the
    best: a traceback ends with its exception), else its first line."""
    best: tuple[int, str] | None = None
    # The line a reader opens a result the harness flagged failed with says only that: never the telling one.
    lines = [line for line in lines if line.strip() != FLAGGED_FAILED]
    for line in lines:
        score = 4 if _OPENS_WITH_ERROR.match(line) else 3 if ERROR_HEAD.search(line) else 1
        if best is None or score >= best[0]:
            best = (score, line)
    if best is not None:
        return shorten(best[1])
    lines = [p.strip() for p in re.split(r"\n|\\n", text[:2_000])
             if p.strip() and p.strip() != FLAGGED_FAILED]
    # "Exit code 1" says only that it failed; the line after it says what ("… ignored by .gitignore").
    first_line = next((line for line in lines if not _EXIT_ONLY.match(line)), lines[0] if lines else "")
    return shorten(first_line) if first_line else None


def error_lines(text: str) -> list[str]:
    """The lines of a tool output that name an error, in order, each verbatim (also inside a JSON-escaped
    output, where a line ends at a two-character `\\n`). Only the head and tail of a long output."""
    body = text if len(text) <= 6_144 else text[:4_096] + "\n" + text[-2_048:]
    low = body.lower()
    starts: set[int] = set()
    for word in _ERROR_WORDS:
        at = low.find(word)
        while at >= 0 and len(starts) < 64:
            escaped = low.rfind("\\n", 0, at)
            starts.add(max(low.rfind("\n", 0, at) + 1, escaped + 2 if escaped >= 0 else 0))
            at = low.find(word, at + len(word))
    out = []
    for start in sorted(starts):
        ends = [x for x in (low.find("\n", start), low.find("\\n", start)) if x >= 0]
        line = body[start:min(ends) if ends else len(body)].strip()
        if 4 <= len(line) <= 300:
            out.append(line)
    return out


def _agent_items(text: str) -> Iterator[tuple[ItemKind, str]]:
    fenced = False
    under_heading = False
    for raw in text.split("\n"):
        if raw.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
            continue
        if fenced:
            continue
        if not raw.strip():
            under_heading = False
            continue
        if _OPEN_HEADING.match(raw.replace("*", "").strip().lower()):
            under_heading = True
            continue
        if under_heading and _BULLET.match(raw):
            yield "open", shorten(_strip_bullet(raw))
            continue
        for sentence in _SENTENCE_BREAK.split(_strip_bullet(raw)):
            kind = _classify(sentence)
            if kind is not None:
                yield kind, shorten(sentence)


def _classify(sentence: str) -> ItemKind | None:
    """A failure before a decision before an open item, whichever phrase comes first in the sentence."""
    low = sentence.lower()
    if not any(key in low for key in _ITEM_KEYS):
        return None
    return _classify_lower(low)


def _classify_lower(low: str) -> ItemKind | None:
    if _OPEN_LABEL.match(low):
        return "open"
    m = _KINDS.search(low)
    if m is None:
        return None
    failing = m if m.lastgroup == "failure" else _FAILURE_RX.search(low, m.end())
    if failing is not None:
        return None if _CHECKING.search(low, 0, failing.start()) else "failure"
    if m.lastgroup == "open" and _DECISION_RX.search(low, m.end()):
        return "decision"
    return "decision" if m.lastgroup == "decision" else "open"


def _holding_keys(lows: Sequence[str]) -> set[int]:
    """Which of the lower-cased texts may hold an item phrase (never leaves out one that does): each key
    is looked for once in all of them joined, a C-speed scan, instead of testing every text in Python."""
    if not lows:
        return set()
    starts = [0]
    for low in lows:
        starts.append(starts[-1] + len(low) + 1)
    joined = "\x00".join(lows)
    out: set[int] = set()
    for key in _ITEM_KEYS:
        at = joined.find(key)
        while at >= 0:
            n = bisect_right(starts, at) - 1
            out.add(n)
            at = joined.find(key, starts[n + 1])  # the next text: one hit marks it
    return out


def _owner_items(entries: Sequence[Scanned]) -> Iterator[tuple[ItemKind, Scanned, str]]:
    """The owner approving, reporting a failure or naming something for later (never an instruction
    again: those are quoted whole)."""
    said = [(e, e.text[s.start:s.end].strip()) for e in entries if e.author == "owner"
            for s in e.spans if s.tag == "statement"]
    said = [(e, sentence) for e, sentence in said if sentence]
    lows = [sentence.lower() for _, sentence in said]
    maybe = _holding_keys(lows)
    for n, ((e, sentence), low) in enumerate(zip(said, lows, strict=True)):
        if _APPROVAL.match(low):
            yield "decision", e, shorten(sentence)
            continue
        kind = _classify_lower(low) if n in maybe else None
        if kind in ("failure", "open"):
            yield kind, e, shorten(sentence)


def _open_todos(text: str) -> Iterator[str]:
    """The pending steps of the agent's last todo list or plan in the range."""
    try:
        args = orjson.loads(text)
    except orjson.JSONDecodeError:
        return
    steps = args.get("todos") or args.get("plan") if isinstance(args, dict) else None
    if not isinstance(steps, list):
        return
    for step in steps:
        if not isinstance(step, dict) or step.get("status") not in ("pending", "in_progress"):
            continue
        words = step.get("content") or step.get("step")
        if isinstance(words, str) and words.strip() and "\n" not in words:
            quoted = words if words in text else orjson.dumps(words).decode()[1:-1]
            if quoted in text:
                yield shorten(quoted)


def _unanswered(entries: Sequence[Scanned]) -> Iterator[tuple[Scanned, str]]:
    """The owner's last question in the range when nothing from the agent follows it there."""
    for i in range(len(entries) - 1, -1, -1):
        e = entries[i]
        if e.author == "agent" and e.kind in ("message", "tool_call"):
            return
        if e.author == "owner":
            questions = [e.text[s.start:s.end].strip() for s in e.spans if s.tag == "question"]
            if questions and questions[-1]:
                yield e, shorten(questions[-1])
            return


def _strip_bullet(line: str) -> str:
    out = _BULLET.sub("", line, count=1).strip()
    return out[2:].strip() if out.startswith("**") and out.count("**") % 2 == 1 else out


def shorten(line: str) -> str:
    """At most ITEM_CHARS, cut at a word with … (the part kept stays verbatim)."""
    line = line.strip()
    if len(line) <= ITEM_CHARS:
        return line
    cut = line.rfind(" ", 0, ITEM_CHARS)
    return line[: cut if cut > ITEM_CHARS // 2 else ITEM_CHARS].rstrip() + "…"


