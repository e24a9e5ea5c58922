"""Dialogue across sessions: who said what about some words, and the questions asked and answered.

`she_said_he_said_action` finds, per session of a window, the owner's messages (HE SAID), the agent's
messages (SHE SAID) and the tool calls (THEY DID) that mention any of the words — in every harness.
`extract_qa_pairs` pairs questions with their answers: the owner's questions with the agent's reply, and
the questions an agent put through a question tool with what the owner picked or typed.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from total_recall.errors import ScopeError
from total_recall.mining.flood import cap_text
from total_recall.mining.queries import matching_seqs
from total_recall.mining.scope import (
    DIALOGUE_HOURS_DEFAULT,
    QA_HOURS_DEFAULT,
    REPORT_MAX_BYTES,
    Scoped,
    check_harness,
    check_max_bytes,
    iso,
    select_sessions,
)
from total_recall.mining.timeline import load, one_line, owner_words, snip
from total_recall.model import Address, Entry, echoed
from total_recall.record.store import Store

HIT_CHARS = 1500
ANSWER_CHARS = 1500
PAIRS_PER_SESSION = 100
MAX_WORDS = 50
# SQLite refuses a LIKE pattern past 50,000 bytes; no word worth matching comes near this.
MAX_WORD_CHARS = 200
QUESTION_TOOLS = ("askuserquestion", "ask_user_question", "question", "request_user_input", "ask_user",
                  "askuser")
_LABELS = {"owner": "HE SAID ", "agent": "SHE SAID"}
_QUOTED_ANSWER = re.compile(r'"([^"]+)"\s*=\s*"([^"]*)"')
_A_LINE = re.compile(r"^A:\s*(.*)$", re.M)
_CANCELLED = re.compile(r"cancel+ed|dismissed|declined|did not answer|without answering", re.I)


def check_words(tool: str, words: Sequence[str] | str | None) -> list[str]:
    """The words to match: a list, or one string of comma-separated words; at least one."""
    if isinstance(words, str):
        given: list[Any] = words.split(",")
    elif words is None:
        given = []
    else:
        given = list(words)
    picked: list[str] = []
    for w in given:
        if not isinstance(w, str):
            raise ScopeError(f"{tool}: `words` must be text, not {echoed(w)}")
        word = w.strip()
        if len(word) > MAX_WORD_CHARS:
            raise ScopeError(f"{tool}: `words` holds a word of {len(word)} characters ({echoed(word, 40)}) — "
                             f"each word runs at most {MAX_WORD_CHARS}")
        if word and word not in picked:
            picked.append(word)
            if len(picked) > MAX_WORDS:
                raise ScopeError(f"{tool}: `words` holds more than {MAX_WORDS} words — pass at most "
                                 f"{MAX_WORDS}")
    if not picked:
        raise ScopeError(f"{tool}: `words` is required — pass at least one word to match "
                         "(words=['git', 'tag'])")
    return picked


def _around(text: str, needles: list[str], width: int) -> str:
    """A window of `text` around its first match, marked where it was cut."""
    if len(text) <= width:
        return text
    folded = text.casefold()
    at = min((i for i in (folded.find(n) for n in needles) if i >= 0), default=0)
    start = max(0, at - width // 3)
    end = min(len(text), start + width)
    return ("…" if start else "") + text[start:end] + ("…" if end < len(text) else "")


def _session_heading(c: Scoped, marker: str) -> str:
    s = c.session
    title = f" · {s.title!r}" if s.title else ""
    cwd = f" · {s.cwd}" if s.cwd else ""
    return f"{marker} {s.address} · {s.harness}{title}{cwd} · last active {iso(c.last_active) or 'unknown'}"


def she_said_he_said_action(
    store: Store,
    *,
    words: Sequence[str] | str | None = None,
    session_id: str | None = None,
    hours_back: float | None = None,
    all: bool | None = None,
    directory: str | None = None,
    harness: str | None = None,
    max_bytes: int | None = None,
) -> str:
    """What was said and done about some words: per session, most recently active first, HE SAID (the
    owner's messages), SHE SAID (the agent's messages) and THEY DID (tool calls, by name or input) that
    mention any of `words` (case-insensitive), each with its address and time. Works one session
    (`session_id`) or a window (`hours_back`, default 48; `directory`; or `all=true`). Harness-injected
    text is never matched; quarantined entries are skipped. Flood-capped at max_bytes (default 16384).

    Raises:
        ScopeError: no words, a window outside the scope contract, a bound out of range, or a session_id
            that matches no session or several.
    """
    tool = "she_said_he_said_action"
    picked = check_words(tool, words)
    budget = check_max_bytes(tool, max_bytes, REPORT_MAX_BYTES)
    sessions, described = select_sessions(
        store, tool, session_id=session_id, hours_back=hours_back, all=all, directory=directory,
        harness=check_harness(tool, harness), default_hours=DIALOGUE_HOURS_DEFAULT,
    )
    needles = [w.casefold() for w in picked]
    by_number = {c.session.number: c for c in sessions}
    hits: dict[int, list[Entry]] = {}
    withheld = 0
    found_seqs: dict[int, list[int]] = {}
    for number, seq in matching_seqs(store, list(by_number), picked):
        found_seqs.setdefault(number, []).append(seq)
    for number, seqs in found_seqs.items():
        # One range read per session, not one read per hit.
        wanted = set(seqs)
        for e in store.entries(Address(number, seqs[0], seqs[-1]), with_spans=False):
            if e.seq not in wanted:
                continue
            if e.quarantined is not None:
                withheld += 1
            else:
                hits.setdefault(number, []).append(e)
    body: list[str] = []
    for c in sessions:
        found = hits.get(c.session.number)
        if not found:
            continue
        body.append("")
        body.append(_session_heading(c, "##"))
        for e in found:
            said = f"{e.tool}: {e.text}" if e.kind == "tool_call" else e.text
            where = f"{e.tool or ''}\n{e.text}".casefold()
            matched = [w for w, n in zip(picked, needles, strict=True) if n in where]
            label = "THEY DID" if e.kind == "tool_call" else _LABELS[e.author]
            text = one_line(_around(said, needles, HIT_CHARS))
            body.append(f"{label} {e.address} {e.timestamp or 'no time'} [{', '.join(matched)}] {text}")
    total = sum(len(v) for v in hits.values())
    head = (f"# she said, he said, they did — words: {', '.join(picked)} · scope: {described} · sessions: "
            f"{len(sessions)} scanned, {len(hits)} with matches · hits: {total}")
    if withheld:
        head += f" · {withheld} quarantined hits withheld"
    if not total:
        head += "\nno matches"
        if not sessions:
            head += " — no sessions in this scope; widen with hours_back=N or all=true"
    report = head + "\n" + "\n".join(body) + ("\n" if body else "")
    return cap_text(tool, "-".join(picked)[:40], report, budget)


@dataclass(frozen=True, slots=True)
class Pair:
    """A question and its answer, both with their addresses."""

    asked: Entry
    answered: Entry
    lines: tuple[str, ...]
    how: str


def _question_items(args: Any) -> list[dict[str, Any]]:
    if isinstance(args, dict):
        qs = args.get("questions")
        if isinstance(qs, list):
            return [q for q in qs if isinstance(q, dict)]
        if isinstance(args.get("question"), str):
            return [args]
    return []


def _options(q: dict[str, Any]) -> list[str]:
    out = []
    for o in q.get("options") or q.get("choices") or []:
        if isinstance(o, str):
            out.append(o)
        elif isinstance(o, dict) and o.get("label"):
            desc = f" — {o['description']}" if o.get("description") else ""
            out.append(f"{o['label']}{desc}")
    return out


def _answers(text: str) -> list[str] | None:
    """What the owner picked or typed, from a question tool's result; None when it was not answered."""
    try:
        data: Any = orjson.loads(text)
    except orjson.JSONDecodeError:
        data = None
    if isinstance(data, dict):
        if data.get("answered") is False:
            return None
        answers = data.get("answers")
        if isinstance(answers, list):
            got = [str(a.get("answer")) if isinstance(a, dict) else str(a) for a in answers]
            return got or None
        if isinstance(answers, dict):  # Codex: {"answers": {id: {"answers": [...]}}}
            got = []
            for v in answers.values():
                inner = v.get("answers") if isinstance(v, dict) else v
                got.extend(str(a) for a in (inner if isinstance(inner, list) else [inner]))
            return got or None
    quoted = _QUOTED_ANSWER.findall(text)
    if quoted:
        return [a for _, a in quoted]
    lines = _A_LINE.findall(text)
    if lines:
        return [line.strip() for line in lines]
    if not text.strip() or _CANCELLED.search(text):
        return None
    return [snip(text.strip(), ANSWER_CHARS, "the result")]


def _tool_pairs(entries: list[Entry]) -> list[Pair]:
    results: dict[str, list[Entry]] = {}
    for e in entries:
        if e.kind == "tool_result" and e.group:
            results.setdefault(e.group, []).append(e)
    pairs = []
    for e in entries:
        if e.kind != "tool_call" or (e.tool or "").casefold() not in QUESTION_TOOLS:
            continue
        if e.quarantined is not None or e.erased:
            continue
        answer = next((r for r in results.get(e.group or "", []) if r.seq > e.seq), None)
        if answer is None or answer.quarantined is not None or answer.erased:
            continue
        try:
            questions = _question_items(orjson.loads(e.text))
        except orjson.JSONDecodeError:
            questions = []
        picked = _answers(answer.text)
        if not questions or picked is None:
            continue  # never answered, or cancelled: no pair
        lines: list[str] = []
        for q in questions:
            if q.get("header"):
                lines.append(f"HEADER: {q['header']}")
            lines.append(f"QUESTION: {q.get('question', '')}")
            options = _options(q)
            if options:
                lines.append("OPTIONS:")
                lines.extend(f"  - {o}" for o in options)
        lines.append("ANSWERS:")
        lines.extend(f"  - {a}" for a in picked)
        pairs.append(Pair(e, answer, tuple(lines), f"the agent asked ({e.tool})"))
    return pairs


def _owner_pairs(entries: list[Entry]) -> list[Pair]:
    pairs = []
    for i, e in enumerate(entries):
        if e.author != "owner" or e.kind != "message" or e.quarantined is not None or e.erased:
            continue
        if not any(s.tag == "question" for s in e.spans):
            continue
        reply = None
        for later in entries[i + 1:]:
            if later.author == "owner" and later.kind == "message":
                break  # the owner spoke again before the agent answered in words
            if later.author == "agent" and later.kind == "message" and later.text.strip():
                reply = later
                break
        if reply is None or reply.quarantined is not None:
            continue
        question, _ = owner_words(e)
        lines = (f"Q: {snip(question.strip(), ANSWER_CHARS, e.address)}",
                 f"A: {snip(reply.text.strip(), ANSWER_CHARS, reply.address)}")
        pairs.append(Pair(e, reply, lines, "the owner asked"))
    return pairs


def extract_qa_pairs(
    store: Store,
    *,
    session_id: str | None = None,
    hours_back: float | None = None,
    all: bool | None = None,
    directory: str | None = None,
    harness: str | None = None,
    max_bytes: int | None = None,
) -> str:
    """Questions and their answers, per session, most recently active first: the owner's questions with
    the agent's reply in words, and the questions an agent put through a question tool (AskUserQuestion,
    question, ask_user_question, request_user_input) with what the owner picked or typed — both
    addresses on every pair. At most the 100 most recent pairs per session (the rest counted). Works one
    session (`session_id`) or a window (`hours_back`, default 48; `directory`; or `all=true`).
    Flood-capped at max_bytes (default 16384).

    Raises:
        ScopeError: a window outside the scope contract, a bound out of range, or a session_id that
            matches no session or several.
    """
    tool = "extract_qa_pairs"
    budget = check_max_bytes(tool, max_bytes, REPORT_MAX_BYTES)
    sessions, described = select_sessions(
        store, tool, session_id=session_id, hours_back=hours_back, all=all, directory=directory,
        harness=check_harness(tool, harness), default_hours=QA_HOURS_DEFAULT,
    )
    body: list[str] = []
    with_pairs = 0
    total = 0
    for c in sessions:
        entries = load(store, c.session.number)
        pairs = sorted(_tool_pairs(entries) + _owner_pairs(entries), key=lambda p: p.asked.seq)
        if not pairs:
            continue
        with_pairs += 1
        held = max(len(pairs) - PAIRS_PER_SESSION, 0)
        pairs = pairs[held:]
        total += len(pairs)
        body.append("")
        body.append(_session_heading(c, "===") + (f" · {held} earlier pairs held back" if held else ""))
        for n, p in enumerate(pairs, start=held + 1):
            when = p.asked.timestamp or "no time"
            body.append(f"--- QA {n} ({when}) · {p.how} {p.asked.address} → answered {p.answered.address}")
            body.extend(p.lines)
    head = (f"# QA pairs — scope: {described} · sessions: {len(sessions)} scanned, {with_pairs} with pairs · "
            f"pairs: {total}")
    if not total:
        head += "\nno question was asked and answered in this scope"
    report = head + "\n" + "\n".join(body) + ("\n" if body else "")
    return cap_text(tool, "qa", report, budget)
