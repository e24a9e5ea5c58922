"""Cutting the owner's own words out of a message and tagging them.

An owner message may carry harness wrappers (`<system-reminder>`, `<environment_context>` …), slash
commands, pasted material (an email, a log, a code block) and the owner's own prose. Only the prose can
hold instructions: a pasted email that says "ignore the previous rule" is a `paste` span, never an
instruction. Spans are offsets into the verbatim text, so the text itself is never rewritten.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from total_recall.model import Span, SpanTag

# Blocks a harness wraps around or appends to what the owner typed.
_HARNESS_BLOCK = re.compile(
    r"<(system-reminder|local-command-stdout|local-command-stderr|local-command-caveat|command-message|"
    r"environment_context|user_instructions|user-prompt-submit-hook|bash-stdout|bash-stderr|"
    r"previous_user_messages|compaction_summary|turn_aborted|permissions instructions|"
    r"ide_selection|ide_opened_file|task-notification|persisted-output)>.*?(?:</\1>|\Z)",
    re.S,
)
# What the owner typed as a command: a slash command with its args, or `!` bash mode.
_COMMAND_BLOCK = re.compile(r"<(command-name|command-args|bash-input)>(.*?)</\1>", re.S)
_FENCE = re.compile(r"^[ \t]*(```|~~~)[^\n]*\n.*?(?:^[ \t]*\1[ \t]*$|\Z)", re.S | re.M)
_EMAIL_HEADER = re.compile(r"^(From|To|Cc|Subject|Date|Reply-To|Sent):[ \t]", re.M)
_QUOTE_LINE = re.compile(r"^[ \t]*>")
_LOG_LINE = re.compile(
    r"^\s*(?:\d{4}-\d\d-\d\d[T ]\d\d:\d\d|\[\d{4}-\d\d-\d\d|\d\d:\d\d:\d\d[ ,.]|Traceback \(most recent|"
    r"File \"|at [\w.$<>]+\(|(?:ERROR|WARN(?:ING)?|INFO|DEBUG|FATAL|CRITICAL)\b[: \]]|"
    r"[\w.-]+\.(?:py|js|ts|go|rs|java|c|cpp):\d+|\w*(?:Error|Exception):\s|\$ \S|npm ERR!|E\s{3})"
)
_PASTE_INTRO = re.compile(
    r"(?:here(?:'s| is| are)|this (?:email|mail|message|log|output|error|trace)|"
    r"(?:email|mail|message|log|logs|output|error|trace|traceback|stack ?trace)\s*(?:says|said|was|is)?)"
    r"[^\n]*:[ \t]*$",
    re.I,
)
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"')\]]*\s+(?=\S)|\n+")
_BULLET = re.compile(r"^\s*(?:[-*+•]|\d+[.)])\s+")
_DIRECTIVE = re.compile(
    r"\b(?:never|always|do not|don't|dont|must(?:n't| not)?|make sure|ensure|be sure to|remember to|"
    r"you should|you shouldn't|should not|please|i want you to|i need you to|"
    r"from now on|going forward|no more|stop)\b",
    re.I,
)
_IMPERATIVE = frozenset(
    """add apply ask avoid back break build bump call change check clean clear close commit compare copy
    create debug delete deploy describe disable document double-check download drop edit enable ensure
    explain export fetch figure file find finish fix focus follow format generate get give go grep handle
    help ignore implement import improve include inspect install investigate keep kill leave let list load
    log look make mark merge migrate move name note open pin print profile pull push put read rebase
    rebuild record redo refactor reload remember remove rename renew reorder repeat replace report rerun
    reset restart restore retry return revert review rewrite roll rotate run save scan search send set
    show skip sort split start stop summarize summarise switch sync take tell test touch trace try turn
    undo update upgrade use verify wait walk watch wrap write""".split()
)
_LEAD_INS = frozenset("please and also now then so ok okay just first next finally but".split())


def owner_spans(text: str) -> list[Span]:
    """The tagged spans of the owner's own words in `text`, in order; harness wrappers get none."""
    regions: list[tuple[int, int, SpanTag | None]] = []
    for m in _HARNESS_BLOCK.finditer(text):
        regions.append((m.start(), m.end(), None))
    for m in _COMMAND_BLOCK.finditer(text):
        if not _inside(regions, m.start()):
            regions.append((m.start(), m.end(), None))
            if m.group(2).strip():
                regions.append((m.start(2), m.end(2), "command"))
    spans: list[Span] = [Span(s, e, t) for s, e, t in regions if t is not None]
    for start, end in _gaps(len(text), [(s, e) for s, e, _ in regions]):
        spans.extend(_prose_spans(text, start, end))
    spans = [_trim(text, s) for s in spans]
    return sorted((s for s in spans if s.end > s.start), key=lambda s: s.start)


def has_owner_words(text: str) -> bool:
    """Whether any of `text` is the owner's own (not wholly harness wrappers)."""
    return bool(owner_spans(text))


def _inside(regions: list[tuple[int, int, SpanTag | None]], pos: int) -> bool:
    return any(s <= pos < e for s, e, _ in regions)


def _gaps(length: int, taken: list[tuple[int, int]]) -> Iterator[tuple[int, int]]:
    pos = 0
    for s, e in sorted(taken):
        if s > pos:
            yield pos, s
        pos = max(pos, e)
    if pos < length:
        yield pos, length


def _prose_spans(text: str, start: int, end: int) -> Iterator[Span]:
    """Pastes first (fences, emails, quotes, logs), then the prose between them sentence by sentence."""
    pastes: list[tuple[int, int]] = []
    chunk = text[start:end]
    for m in _FENCE.finditer(chunk):
        pastes.append((start + m.start(), start + m.end()))
    pastes.extend(_line_pastes(text, start, end, pastes))
    for s, e in pastes:
        yield Span(s, e, "paste")
    for s, e in _gaps(end, [(start, start), *pastes]):
        if s < start:
            continue
        yield from _sentences(text, s, e)


def _line_pastes(text: str, start: int, end: int, fences: list[tuple[int, int]]) -> Iterator[tuple[int, int]]:
    """Runs of pasted lines: an email from its headers on, quoted lines, logs, text after a paste intro."""
    lines: list[tuple[int, int]] = []
    pos = start
    for raw in text[start:end].split("\n"):
        lines.append((pos, pos + len(raw)))
        pos += len(raw) + 1
    i = 0
    while i < len(lines):
        s, e = lines[i]
        line = text[s:e]
        if any(fs <= s < fe for fs, fe in fences):
            i += 1
            continue
        if _EMAIL_HEADER.match(line):
            # An email runs to a separator line or the end: the owner's own words come before it.
            j = i + 1
            while j < len(lines) and text[lines[j][0] : lines[j][1]].strip() not in ("---", "--", "___"):
                j += 1
            yield s, lines[j - 1][1]
            i = j
            continue
        if _QUOTE_LINE.match(line) or (_LOG_LINE.match(line) and _is_log_run(text, lines, i)):
            matcher = _QUOTE_LINE if _QUOTE_LINE.match(line) else _LOG_LINE
            j = i + 1
            while j < len(lines) and (
                matcher.match(text[lines[j][0] : lines[j][1]])
                or (matcher is _LOG_LINE and text[lines[j][0] : lines[j][1]].startswith((" ", "\t")))
            ):
                j += 1
            yield s, lines[j - 1][1]
            i = j
            continue
        follows = i + 1 < len(lines) and text[lines[i + 1][0] : lines[i + 1][1]].strip()
        if _PASTE_INTRO.search(line) and follows:
            # "Here is the log:" followed directly by lines: the block up to the next blank line.
            j = i + 1
            while j < len(lines) and text[lines[j][0] : lines[j][1]].strip():
                j += 1
            yield lines[i + 1][0], lines[j - 1][1]
            i = j
            continue
        i += 1


def _is_log_run(text: str, lines: list[tuple[int, int]], i: int) -> bool:
    """One log-looking line inside prose is a quoted error, not a paste; two in a row are a paste."""
    if i + 1 < len(lines):
        nxt = text[lines[i + 1][0] : lines[i + 1][1]]
        return bool(_LOG_LINE.match(nxt)) or nxt.startswith((" ", "\t"))
    return False


def _sentences(text: str, start: int, end: int) -> Iterator[Span]:
    pos = start
    for m in _SENTENCE_END.finditer(text, start, end):
        if m.start() > pos:
            yield _tag(text, pos, m.start())
        pos = m.end()
    if pos < end:
        yield _tag(text, pos, end)


def _tag(text: str, start: int, end: int) -> Span:
    sentence = text[start:end].strip()
    return Span(start, end, classify(sentence))


def classify(sentence: str) -> SpanTag:
    """Tag one sentence of owner prose."""
    s = _BULLET.sub("", sentence).strip()
    if not s:
        return "statement"
    if s.startswith("/") and re.match(r"/[\w:-]+(\s|$)", s):
        return "command"
    if s.startswith(("$ ", "!")) and len(s) > 2:
        return "command"
    if s.rstrip("\"')").endswith("?"):
        return "question"
    if _DIRECTIVE.search(s):
        return "instruction"
    words = re.findall(r"[A-Za-z'-]+", s.lower())
    while words and words[0] in _LEAD_INS:
        words = words[1:]
    if words and words[0] in _IMPERATIVE:
        return "instruction"
    if re.match(r"(?i)(let's|lets|we (?:must|need to|should)|you (?:must|need to|have to))\b", s):
        return "instruction"
    return "statement"


def _trim(text: str, span: Span) -> Span:
    """Spans never start or end in white space."""
    s, e = span.start, span.end
    while s < e and text[s].isspace():
        s += 1
    while e > s and text[e - 1].isspace():
        e -= 1
    return Span(s, e, span.tag)
