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
from total_recall.mining.flood import cap_text, unescaped
from total_recall.mining.scope import (
    MCP,
    REPORT_MAX_BYTES,
    Scoped,
    Selection,
    Spelling,
    check_max_bytes,
    iso,
)
from total_recall.mining.timeline import load, one_line, owner_words, snip
from total_recall.model import Address, Entry, echoed
from total_recall.record.database import Record
from total_recall.record.queries import matching_seqs

SAID_TOOL = "she_said_he_said_action"
QA_TOOL = "extract_qa_pairs"
HIT_CHARS = 1500
ANSWER_CHARS = 1500
PAIRS_PER_SESSION = 100
MAX_WORDS = 50
# SQLite refuses a LIKE pattern past 50,000 bytes; no word worth matching comes near this.
MAX_WORD_CHARS = 200
QUESTION_TOOLS = ("askuserquestion", "ask_user_question", "question", "request_user_input", "ask_user",
                  "askuser")
_LABELS = {"owner": "HE SAID", "agent": "SHE SAID"}
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


def whole_word(word: str) -> re.Pattern[str]:
    """`word` (or a phrase of several) as a whole word, case-blind: `tag` finds "tag v1.2", "(tag)" and
    "tag," but not "staging" or "tags"."""
    return re.compile(rf"(?<!\w){re.escape(word)}(?!\w)", re.I)


def _around(text: str, needles: list[re.Pattern[str]], width: int, escaped: bool = False) -> str:
    """A window of `text` around its first match, marked where it was cut. A tool call's arguments
    (`escaped`) are matched with their JSON escapes undone, as their hit was: `tag` after an escaped newline
    (`…\\ntag v1.2`) is a word of its own there, and the window is cut from the text as written."""
    if len(text) <= width:
        return text
    where = unescaped(text) if escaped else text
    at = min((m.start() for m in (n.search(where) for n in needles) if m), default=0)
    if escaped:
        at = _written_at(text, at)
    start = max(0, at - width // 3)
    end = min(len(text), start + width)
    return ("…" if start else "") + text[start:end] + ("…" if end < len(text) else "")


def _written_at(text: str, at: int) -> int:
    """Where in `text` the `at`-th character of `unescaped(text)` was written: the last character of the
    shortest start of `text` that unescapes to more than `at` characters (within an escape's few characters:
    a `\\u00e9` cut short stays as written)."""
    low, high = 0, len(text)
    while low < high:
        middle = (low + high) // 2
        if len(unescaped(text[:middle])) <= at:
            low = middle + 1
        else:
            high = middle
    return max(0, low - 1)


def _session(c: Scoped) -> dict[str, Any]:
    s = c.session
    return {"session": s.address, "harness": s.harness, "title": s.title, "cwd": s.cwd,
            "last_active": iso(c.last_active)}


def _heading(s: dict[str, Any], marker: str) -> str:
    title = f" · {s['title']!r}" if s["title"] else ""
    cwd = f" · {s['cwd']}" if s["cwd"] else ""
    when = s["last_active"] or "unknown"
    return f"{marker} {s['session']} · {s['harness']}{title}{cwd} · last active {when}"


def she_said_he_said_action(record: Record, words: Sequence[str] | str, scope: Selection, *,
                            max_bytes: int = REPORT_MAX_BYTES, spelling: Spelling = MCP) -> dict[str, Any]:
    """What was said and done about some words: per session of `scope`, most recently active first, HE
    SAID (the owner's messages), SHE SAID (the agent's messages) and THEY DID (tool calls, by name or
    input) that mention any of `words` as a whole word (case-insensitive; `tag` is not in "staging"), each
    with its address, time and the words it matched. Harness-injected text is never matched; quarantined
    entries are skipped (`withheld` counts them). `said_text` writes it as seed 004's report; `notice`
    says how to widen a scope that held no session (in the words `spelling` gives).

    Raises:
        ScopeError: no words, or a bound out of range.
    """
    tool = SAID_TOOL
    picked = check_words(tool, words)
    budget = check_max_bytes(tool, max_bytes, REPORT_MAX_BYTES)
    sessions = scope.sessions
    needles = [whole_word(w) for w in picked]
    by_number = {c.session.number: c for c in sessions}
    hits: dict[int, list[Entry]] = {}
    withheld = 0
    found_seqs: dict[int, list[int]] = {}
    for number, seq in matching_seqs(record, list(by_number), picked):
        found_seqs.setdefault(number, []).append(seq)
    matched: dict[tuple[int, int], list[str]] = {}
    for number, seqs in found_seqs.items():
        # One range read per session, not one read per hit.
        wanted = set(seqs)
        for e in record.entries(Address(number, seqs[0], seqs[-1]), with_spans=False):
            if e.seq not in wanted:
                continue
            # The record's query finds the words anywhere in the text; a hit holds one as a whole word.
            where = f"{e.tool or ''}\n{unescaped(e.text) if e.kind == 'tool_call' else e.text}"
            words_held = [w for w, n in zip(picked, needles, strict=True) if n.search(where)]
            if not words_held:
                continue
            if e.quarantined is not None:
                withheld += 1
            else:
                hits.setdefault(number, []).append(e)
                matched[number, e.seq] = words_held
    rows = []
    for c in sessions:
        found = hits.get(c.session.number)
        if not found:
            continue
        said = []
        for e in found:
            text = f"{e.tool}: {e.text}" if e.kind == "tool_call" else e.text
            said.append({
                "said": "THEY DID" if e.kind == "tool_call" else _LABELS[e.author], "address": e.address,
                "author": e.author, "kind": e.kind, "tool": e.tool, "timestamp": e.timestamp,
                "matched": matched[e.session, e.seq],
                "text": one_line(_around(text, needles, HIT_CHARS, escaped=e.kind == "tool_call")),
            })
        rows.append({**_session(c), "hits": said})
    return {"words": picked, "scope": scope.described, "sessions_scanned": len(sessions),
            "sessions_matched": len(rows), "hit_count": sum(len(r["hits"]) for r in rows),
            "withheld": withheld, "sessions": rows, "max_bytes": budget,
            "notice": None if sessions else f"no sessions in this scope; {spelling.widen()}"}


def said_text(reply: dict[str, Any]) -> str:
    """`she_said_he_said_action`'s report: a header line, then per session a heading and one line per hit
    (`HE SAID s7#12 <time> [words] text`); flood-capped at its max_bytes."""
    body: list[str] = []
    for s in reply["sessions"]:
        body.append("")
        body.append(_heading(s, "##"))
        for h in s["hits"]:
            body.append(f"{h['said']:<8} {h['address']} {h['timestamp'] or 'no time'} "
                        f"[{', '.join(h['matched'])}] {h['text']}")
    total = reply["hit_count"]
    head = (f"# she said, he said, they did — words: {', '.join(reply['words'])} · scope: {reply['scope']} · "
            f"sessions: {reply['sessions_scanned']} scanned, {reply['sessions_matched']} with matches · "
            f"hits: {total}")
    if reply["withheld"]:
        head += f" · {reply['withheld']} quarantined hits withheld"
    if not total:
        head += "\nno matches"
        if reply["notice"]:
            head += f" — {reply['notice']}"
    report = head + "\n" + "\n".join(body) + ("\n" if body else "")
    return cap_text(SAID_TOOL, "-".join(reply["words"])[:40], report, reply["max_bytes"])


@dataclass(frozen=True, slots=True)
class Pair:
    """A question and its answer, both with their addresses: the questions asked (one for an owner's
    question; a question tool may ask several, each with a header and options) and the answers."""

    asked: Entry
    answered: Entry
    questions: tuple[dict[str, Any], ...]
    answers: tuple[str, ...]
    tool: str | None  # the question tool the agent asked through; None: the owner asked

    def as_json(self, n: int) -> dict[str, Any]:
        return {"n": n, "asked": self.asked.address, "answered": self.answered.address,
                "timestamp": self.asked.timestamp, "tool": self.tool, "questions": list(self.questions),
                "answers": list(self.answers)}


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
        asked = tuple({"header": q.get("header") or None, "question": str(q.get("question", "")),
                       "options": _options(q)} for q in questions)
        pairs.append(Pair(e, answer, asked, tuple(picked), e.tool))
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
        asked: dict[str, Any] = {"header": None, "question": snip(question.strip(), ANSWER_CHARS, e.address),
                                 "options": []}
        answer = snip(reply.text.strip(), ANSWER_CHARS, reply.address)
        pairs.append(Pair(e, reply, (asked,), (answer,), None))
    return pairs


def extract_qa_pairs(record: Record, scope: Selection, *,
                     max_bytes: int = REPORT_MAX_BYTES) -> dict[str, Any]:
    """Questions and their answers, per session of `scope`, most recently active first: the owner's
    questions with the agent's reply in words, and the questions an agent put through a question tool
    (AskUserQuestion, question, ask_user_question, request_user_input) with what the owner picked or
    typed — both addresses on every pair. At most the 100 most recent pairs per session (`held_back`
    counts the rest). `qa_text` writes it as seed 004's report.

    Raises:
        ScopeError: a bound out of range.
    """
    budget = check_max_bytes(QA_TOOL, max_bytes, REPORT_MAX_BYTES)
    rows = []
    for c in scope.sessions:
        entries = load(record, c.session.number)
        pairs = sorted(_tool_pairs(entries) + _owner_pairs(entries), key=lambda p: p.asked.seq)
        if not pairs:
            continue
        held = max(len(pairs) - PAIRS_PER_SESSION, 0)
        rows.append({**_session(c), "held_back": held,
                     "pairs": [p.as_json(n) for n, p in enumerate(pairs[held:], start=held + 1)]})
    return {"scope": scope.described, "sessions_scanned": len(scope.sessions),
            "sessions_with_pairs": len(rows), "pair_count": sum(len(r["pairs"]) for r in rows),
            "sessions": rows, "max_bytes": budget}


def qa_text(reply: dict[str, Any]) -> str:
    """`extract_qa_pairs`' report: a header line, then per session a heading and each pair (`--- QA n`,
    then `Q:`/`A:` for the owner's questions, `QUESTION:`/`OPTIONS:`/`ANSWERS:` for a question tool's);
    flood-capped at its max_bytes."""
    body: list[str] = []
    for s in reply["sessions"]:
        held = s["held_back"]
        body.append("")
        body.append(_heading(s, "===") + (f" · {held} earlier pairs held back" if held else ""))
        for p in s["pairs"]:
            how = f"the agent asked ({p['tool']})" if p["tool"] is not None else "the owner asked"
            body.append(f"--- QA {p['n']} ({p['timestamp'] or 'no time'}) · {how} {p['asked']} → answered "
                        f"{p['answered']}")
            body.extend(_pair_lines(p))
    total = reply["pair_count"]
    head = (f"# QA pairs — scope: {reply['scope']} · sessions: {reply['sessions_scanned']} scanned, "
            f"{reply['sessions_with_pairs']} with pairs · pairs: {total}")
    if not total:
        head += "\nno question was asked and answered in this scope"
    report = head + "\n" + "\n".join(body) + ("\n" if body else "")
    return cap_text(QA_TOOL, "qa", report, reply["max_bytes"])


def _pair_lines(p: dict[str, Any]) -> list[str]:
    if p["tool"] is None:
        return [f"Q: {p['questions'][0]['question']}", f"A: {p['answers'][0]}"]
    lines: list[str] = []
    for q in p["questions"]:
        if q["header"]:
            lines.append(f"HEADER: {q['header']}")
        lines.append(f"QUESTION: {q['question']}")
        if q["options"]:
            lines.append("OPTIONS:")
            lines.extend(f"  - {o}" for o in q["options"])
    lines.append("ANSWERS:")
    lines.extend(f"  - {a}" for a in p["answers"])
    return lines
