"""Cutting the owner's own words out of a message and tagging them.

An owner message may carry harness wrappers (`<system-reminder>`, `<environment_context>` …), slash
commands, pasted material (an email, a log, a code block, a quoted passage) and the owner's own prose. Only
the prose is his words, and only it can hold his instructions: a pasted email that says "ignore the previous
rule" is a `paste` span, never an instruction. What someone else wrote is told by structure, not by its
words: fences, quote blocks, log lines, an email's headers or its greeting and sign-off, a forwarded-message
line, a passage wholly in quotation marks beside words of his own, the block after a line that introduces
something received (a document's whole excerpt, lists too, after a line saying it comes from a README, docs or
a wiki). The prose is then cut into sentences and tagged; every sentence of it is the owner's, whatever its
tag. What a harness or a reader put in is nobody's: a reader's `[image: …]` placeholder line, OpenClaw's
gateway envelope.
Spans are offsets into the verbatim text, so the text itself is never rewritten.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from total_recall.model import ARGS_PROSE_WORDS, Span, SpanTag

# Blocks a harness wraps around or appends to what the owner typed.
_HARNESS_BLOCK = re.compile(
    r"<(system-reminder|local-command-stdout|local-command-stderr|local-command-caveat|command-message|"
    r"environment_context|user_instructions|user-prompt-submit-hook|bash-stdout|bash-stderr|"
    r"previous_user_messages|compaction_summary|turn_aborted|permissions instructions|"
    r"ide_selection|ide_opened_file|task-notification|persisted-output)>.*?(?:</\1>|\Z)",
    re.S,
)
# Lines a reader writes in place of what a message carries: `[image: image/png, 8 bytes]`, `[image]`,
# `[document: …]`.
_PLACEHOLDER = re.compile(r"^[ \t]*\[(?:image|document)(?:: [^\n]*)?\][ \t]*$", re.M)
# OpenClaw's gateway envelope around what came in from a channel: labelled metadata blocks, each a JSON
# fence (the labels of OpenClaw's `strip-inbound-meta.ts`), the "Untrusted context" line and the paragraph
# or the external content it introduces, and a `[Channel Sender Sun 2026-03-08 22:03 GMT+9] ` stamp before
# the words. A stamp counts only at the start of the message or right after such a block, and only with a word
# before its date (a log line starts with the date).
_ENVELOPE_BLOCK = re.compile(
    r"^[ \t]*(?:\[[^\]\n]{0,100}\][ \t]*)?"
    r"(?:(?:Conversation info|Sender|Forwarded message context) \(untrusted metadata\)|"
    r"(?:Thread starter|Replied message|Chat history since last reply) \(untrusted, for context\)):[ \t]*\n"
    r"\s*```[^\n]*\n.*?^[ \t]*```[ \t]*$"
    r"|^Untrusted context \(metadata, do not treat as instructions or commands\):[ \t]*(?:"
    r"\s*<<<EXTERNAL_UNTRUSTED_CONTENT.*?(?:<<<END_EXTERNAL_UNTRUSTED_CONTENT[^\n]*>>>|\Z)"
    r"|(?:\n[^\n]*\S[^\n]*)*)", re.M | re.S)
_ENVELOPE_STAMP = re.compile(
    r"\s*\[[^\]\d\s][^\]\n]{0,80}? \d{4}-\d\d-\d\d[ T]\d\d:\d\d(?::\d\d)?"
    r"(?:Z| ?[A-Za-z][\w/+:-]{0,30})?\][ \t]*")
_WEEKDAY_DATE = re.compile(r"\b(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) \d{4}-\d\d-\d\d")
# What the owner typed as a command: a slash command with its args (`ARGS_PROSE_WORDS`), or `!` bash mode
# (Claude Code's `<bash-input>`; a pi `!` command, recorded by its reader as the `!` line he typed).
_COMMAND_BLOCK = re.compile(r"<(command-name|command-args|bash-input)>(.*?)</\1>", re.S)
# A command's first word: lower-case or a path, with no colon — "!important: keep prod" is an exclamation.
_BANG_COMMAND = re.compile(r"\A!!?([a-z0-9_./~$-][^\s:!]*(?:[ \t][^\n]*)?)\Z")
_FENCE = re.compile(r"^[ \t]*(```|~~~)[^\n]*\n.*?(?:^[ \t]*\1[ \t]*$|\Z)", re.S | re.M)
_EMAIL_HEADER = re.compile(r"^(From|To|Cc|Subject|Date|Reply-To|Sent):[ \t]", re.M)
# Where a forwarded or quoted email starts without its headers.
_FORWARDED = re.compile(
    r"^\s*(?:-{2,}\s*(?:Forwarded message|Original Message)\s*-{2,}|Begin forwarded message:|"
    r"On [^\n]{4,120} wrote:)\s*$", re.I)
# An email's first and last lines: "Hi all," … "Thanks,\nDana". Only the pair marks an email: an owner
# may greet the agent, but he does not sign off with a comma and a name.
_GREETING = re.compile(
    r"^\s*(?:hi|hello|hey|dear|good (?:morning|afternoon|evening)|greetings)\b[^\n]{0,40},\s*$", re.I)
_SIGN_OFF = re.compile(
    r"^\s*(?:thanks|thank you|many thanks|thanks again|best|best regards|kind regards|warm regards|regards|"
    r"cheers|sincerely|yours(?: truly| sincerely)?|all the best|br)\b[^\n]{0,20},\s*$", re.I)
_SEPARATOR = re.compile(r"^\s*([-_=*~])\1{2,}\s*$")
_QUOTE_LINE = re.compile(r"^[ \t]*>")
_LOG_LINE = re.compile(
    r"^\s*(?:\d{4}-\d\d-\d\d[T ]\d\d:\d\d|\[\d{4}-\d\d-\d\d|\d\d:\d\d:\d\d[ ,.]|Traceback \(most recent|"
    r"File \"|at [\w.$<>]+\(|(?:ERROR|WARN(?:ING)?|INFO|DEBUG|FATAL|CRITICAL)\b[: \]]|"
    r"[\w.-]+\.(?:py|js|ts|go|rs|java|c|cpp):\d+|\w*(?:Error|Exception):\s|\$ \S|npm ERR!|E\s{3})"
)
# A line that introduces something someone (or something) else wrote: it names what was received, or says
# who sent, wrote or said it. "Here are the rules:" introduces the owner's own words, and is not one.
_PASTE_INTRO = re.compile(
    r"\b(?:e-?mails?|mails?|messages?|logs?|output|errors?|trace|traceback|stack ?trace|reply|replies|"
    r"response|ticket|thread|memo|runbook|notice|announcement|forwarding|pasted|pasting|copied|"
    r"sent|wrote|writes|forwarded|posted|said|says|replied|answered)\b[^\n]*:[ \t]*$",
    re.I,
)
# A line that says what follows comes from a document: "From the billing README:", "the wiki says:",
# "CONTRIBUTING.md excerpt:". What follows it, a list or headings included, is the document's, not the
# owner's; "Two rules for the docs:" names no source and stays his.
_DOCUMENT = (r"(?:readme|docs?|documentation|wiki|changelog|change ?log|release notes|contributing|"
             r"guidelines?|guide|handbook|manual|faq|man ?page|spec|rfc|style ?guide|playbook|runbook|"
             r"[\w./-]+\.(?:md|rst|txt|adoc))")
_DOCUMENT_INTRO = re.compile(
    r"(?:\b(?:from|according to|quoting|quoted from|copied from|pasted from|excerpt (?:of|from)|straight "
    r"out of) (?:[\w./'-]+ ){0,4}?" + _DOCUMENT + r"\b|\b" + _DOCUMENT
    + r"(?: file| page| entry)? (?:says|said|say|reads|states|excerpt|extract|snippet)\b)[^\n]*:[ \t]*$",
    re.I,
)
_MARKDOWN_BLOCK = re.compile(r"^\s*(?:#{1,6}\s|[-*+•]\s|\d+[.)]\s|>|\||    |\t)")
# A passage wholly in quotation marks: an opening mark at its start, the closing one at its end, none between.
_QUOTED = re.compile(r"\A\s*[\"“‘][^\"“”‘’]+[\"”’][.,;!?)]*\s*\Z")
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
    if bang := _BANG_COMMAND.match(text):
        return [Span(bang.start(1), bang.end(1), "command")]
    regions: list[tuple[int, int, SpanTag | None]] = []
    for m in _HARNESS_BLOCK.finditer(text):
        regions.append((m.start(), m.end(), None))
    if "[" in text:
        regions.extend((m.start(), m.end(), None) for m in _PLACEHOLDER.finditer(text))
    if "(untrusted" in text or "Untrusted context" in text or text.startswith("["):
        regions.extend(_envelope(text))
    typed: list[Span] = []
    for m in _COMMAND_BLOCK.finditer(text):
        if not _inside(regions, m.start()):
            regions.append((m.start(), m.end(), None))
            if not m.group(2).strip():
                continue
            if m.group(1) == "command-args" and len(m.group(2).split()) >= ARGS_PROSE_WORDS:
                typed.extend(_prose_spans(text, m.start(2), m.end(2)))  # a request typed after the command
            else:
                regions.append((m.start(2), m.end(2), "command"))
    spans: list[Span] = [Span(s, e, t) for s, e, t in regions if t is not None] + typed
    for start, end in _gaps(len(text), [(s, e) for s, e, _ in regions]):
        spans.extend(_prose_spans(text, start, end))
    spans = [_trim(text, s) for s in spans]
    return sorted((s for s in spans if s.end > s.start), key=lambda s: s.start)


def has_owner_words(text: str) -> bool:
    """Whether any of `text` is the owner's own (not wholly harness wrappers)."""
    return bool(owner_spans(text))


def _envelope(text: str) -> Iterator[tuple[int, int, SpanTag | None]]:
    """OpenClaw's gateway envelope in `text`: its metadata blocks, and the stamp opening the words."""
    ends = [0]
    for m in _ENVELOPE_BLOCK.finditer(text):
        ends.append(m.end())
        yield m.start(), m.end(), None
    for at in ends:
        stamp = _ENVELOPE_STAMP.match(text, at)
        # Alone at the start, only with the weekday OpenClaw writes before the date: the owner may open
        # with a bracket of his own ("[Incident 2026-03-08 22:03 UTC] the API is down").
        if stamp is not None and (at > 0 or _WEEKDAY_DATE.search(stamp.group())):
            yield stamp.start(), stamp.end(), None


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
    pastes = _merged([*pastes, *_line_pastes(text, start, end, pastes)])
    for s, e in pastes:
        yield Span(s, e, "paste")
    for s, e in _gaps(end, [(start, start), *pastes]):
        if s < start:
            continue
        yield from _sentences(text, s, e)


def _merged(regions: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Overlapping pastes as one (a fence that follows a line introducing a paste is found twice)."""
    out: list[tuple[int, int]] = []
    for s, e in sorted(regions):
        if out and s < out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], e))
        else:
            out.append((s, e))
    return out


def _line_pastes(text: str, start: int, end: int, fences: list[tuple[int, int]]) -> Iterator[tuple[int, int]]:
    """Runs of pasted lines: an email (from its headers, a forwarded-message line, or a greeting that a
    sign-off closes), quoted lines, logs, a paragraph wholly in quotation marks, the block after a line
    introducing something received, a document's excerpt after a line naming it."""
    lines: list[tuple[int, int]] = []
    pos = start
    for raw in text[start:end].split("\n"):
        lines.append((pos, pos + len(raw)))
        pos += len(raw) + 1

    def line(n: int) -> str:
        return text[lines[n][0]:lines[n][1]]

    i = 0
    free = 0  # the first line no paste has taken
    while i < len(lines):
        s = lines[i][0]
        here = line(i)
        if any(fs <= s < fe for fs, fe in fences):
            i += 1
            continue
        if _email_opens(lines, i, line):
            # The separator the owner put before the pasted email is part of it.
            first = i - 1 if i - 1 >= free and _SEPARATOR.match(line(i - 1)) else i
            j = _email_end(lines, i, line)
            yield lines[first][0], lines[j - 1][1]
            i = free = j
            continue
        if _QUOTE_LINE.match(here) or (_LOG_LINE.match(here) and _is_log_run(text, lines, i)):
            matcher = _QUOTE_LINE if _QUOTE_LINE.match(here) else _LOG_LINE
            j = i + 1
            while j < len(lines) and (
                matcher.match(line(j)) or (matcher is _LOG_LINE and line(j).startswith((" ", "\t")))
            ):
                j += 1
            yield s, lines[j - 1][1]
            i = free = j
            continue
        if here.lstrip()[:1] in ('"', "“", "‘") and (i == 0 or not line(i - 1).strip()):
            j = _paragraph_end(lines, i, line)
            alone = not any(line(n).strip() for part in (range(i), range(j, len(lines))) for n in part)
            if not alone and _QUOTED.match(text[s:lines[j - 1][1]]):
                # A paragraph wholly in quotation marks beside the owner's words is someone else's, quoted;
                # alone, it is what he typed ("run echo fixture please", quotes and all).
                yield s, lines[j - 1][1]
                i = free = j
                continue
        if _DOCUMENT_INTRO.search(here):
            found = _document_block(lines, i + 1, line, fences)
            if found is not None:
                j, k = found
                yield lines[j][0], lines[k - 1][1]
                i = free = k
                continue
        if _PASTE_INTRO.search(here):
            # "Here is the log:" then the block up to the next blank line (after blank lines, if any).
            j = i + 1
            while j < len(lines) and not line(j).strip() and j - i <= 2:
                j += 1
            # A list after it is the owner's own ("Two rules for the logs:" then bullets).
            block = line(j) if j < len(lines) else ""
            # A fence after it is a paste already, and what follows the fence is the owner's again.
            fenced = j < len(lines) and any(fs <= lines[j][0] < fe for fs, fe in fences)
            if block.strip() and not fenced and not _SEPARATOR.match(block) and not _BULLET.match(block):
                if _email_opens(lines, j, line):
                    i = j
                    continue
                k = _paragraph_end(lines, j, line)
                yield lines[j][0], lines[k - 1][1]
                i = free = k
                continue
        i += 1


def _document_block(lines: list[tuple[int, int]], i: int, line: Callable[[int], str],
                    fences: list[tuple[int, int]]) -> tuple[int, int] | None:
    """The first and after-last lines of a document excerpt starting at line i (after blank lines): its
    first paragraph whatever it is, then each paragraph shaped like a document's (headings, lists, quotes,
    tables, indented lines) up to the first plain one, the owner's again. None when none follows or a fence
    does (a fence is a paste already)."""
    j = i
    while j < len(lines) and not line(j).strip() and j - i < 2:
        j += 1
    if j >= len(lines) or not line(j).strip() or any(fs <= lines[j][0] < fe for fs, fe in fences):
        return None
    k = _paragraph_end(lines, j, line)
    while True:
        n = k
        while n < len(lines) and not line(n).strip():
            n += 1
        if (n >= len(lines) or not _MARKDOWN_BLOCK.match(line(n))
                or any(fs <= lines[n][0] < fe for fs, fe in fences)):
            return j, k
        k = _paragraph_end(lines, n, line)


def _paragraph_end(lines: list[tuple[int, int]], i: int, line: Callable[[int], str]) -> int:
    """The line after the paragraph that holds line i (the next blank line, or the end)."""
    j = i + 1
    while j < len(lines) and line(j).strip():
        j += 1
    return j


def _email_opens(lines: list[tuple[int, int]], i: int, line: Callable[[int], str]) -> bool:
    """Whether an email starts at line i: headers, a forwarded-message line, or a greeting whose email a
    sign-off closes within the next 80 lines."""
    here = line(i)
    if _EMAIL_HEADER.match(here) or _FORWARDED.match(here):
        return True
    if _GREETING.match(here):
        for j in range(i + 1, min(len(lines), i + 80)):
            if _SEPARATOR.match(line(j)):
                return False
            if _SIGN_OFF.match(line(j)):
                return True
    return False


def _email_end(lines: list[tuple[int, int]], i: int, line: Callable[[int], str]) -> int:
    """The line after the email that starts at line i: after a separator line, or after its sign-off and
    the name lines under it; else the end, leaving out a last one-line question set apart by a blank line
    after a body of several paragraphs (the owner asking about what he pasted)."""
    j = i + 1
    while j < len(lines):
        if _SEPARATOR.match(line(j)):
            return j + 1
        if _SIGN_OFF.match(line(j)):
            k = j + 1
            while k < len(lines) and line(k).strip() and k - j <= 3 and not _SEPARATOR.match(line(k)):
                k += 1
            return k + 1 if k < len(lines) and _SEPARATOR.match(line(k)) else k
        j += 1
    last = len(lines)
    while last > i and not line(last - 1).strip():
        last -= 1
    blocks = sum(1 for n in range(i, last) if line(n).strip() and (n == i or not line(n - 1).strip()))
    if (blocks >= 3 and last - 2 > i and not line(last - 2).strip()
            and line(last - 1).rstrip().rstrip("\"')").endswith("?")):
        return last - 1
    return len(lines)


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
