"""Decisions as assets: the lines `keeping/items.py` finds, kept when they choose something ("let's go
with", "decided", "switching to" …), and the owner's own sentences that say they are one ("Decided: …",
"we chose …", "settled on …": not a request that only uses something, not a question); each superseded by a
later decision on the same subject.

Same subject: in the same project, the two share at least two content words and at least 40 % of the
shorter one's ("use postgres for the session cache" → "switching to redis for the session cache"), or the
first two content words after the choosing words, its verbs aside ("staging deploys use blue-green" →
"staging deploys switch to canary"). Later: by time, whatever order the sessions synced in. The older one
stays in the index, marked not current, and is never pushed as current.
"""

from __future__ import annotations

import re
import zlib

from total_recall.assets.asset import Draft
from total_recall.assets.mined import Turn
from total_recall.assets.words import shorten, terms
from total_recall.keeping.evicted import MinedEntry
from total_recall.keeping.items import find_items
from total_recall.llm.redaction import redact
from total_recall.model import Span

_CHOOSING = re.compile(r"\b(?:let's go with|let's use|we'll go with|we'll use|going with|decided|we chose|"
                       r"opted for|settled on|switching to|switched to|the plan is|we're using|we use)\b|"
                       r"^\W*(?:decision|plan|approach)\W*:", re.I | re.M)
# The owner deciding in his own words; "let's use the relay" asks for something once, it decides nothing.
_OWNER_DECIDES = re.compile(r"\b(?:decided|we chose|we've chosen|settled on|we(?:'re| are) going with|"
                            r"we'll go with)\b|^\W*decision\W*:", re.I)
# Before the choosing words, these make it no decision ("we haven't decided", "if we settled on").
_UNDECIDED = re.compile(r"\b(?:not|never|haven't|hasn't|didn't|don't|yet|if|whether|undecided)\b|n't\b", re.I)
_SENTENCE_BREAK = re.compile(r"(?<=[.!?])\s+(?=\S)|\n+")
# A decision's subject is what comes first after its choosing words, its verb aside.
_CHOOSING_VERBS = frozenset(terms("use uses go goes move moves switch switches keep keeps run runs "
                                  "stay stays adopt adopts live lives"))
SAME_SUBJECT_WORDS = 2
SAME_SUBJECT_SHARE = 0.4


def decisions(turns: list[Turn], spans: dict[int, list[Span]]) -> list[Draft]:
    """Every choosing decision of every session, the superseded ones marked not current."""
    found: list[tuple[Draft, frozenset[str], tuple[str, ...]]] = []
    for turn in turns:
        messages = [r for r in turn.rows if r.kind == "message"]
        scanned = [MinedEntry(r.id, r.seq, r.author, r.kind, r.text, r.text, r.tool,
                              spans=tuple(spans.get(r.id, ()))) for r in messages]
        ids = {r.seq: r for r in messages}
        lines = [(ids[item.seq], item.line) for item in find_items(scanned).found
                 if item.kind == "decision" and _CHOOSING.search(item.line)]
        lines += [(r, line) for r in messages if r.author == "owner" and r.id in turn.words
                  for line in _owner_decisions(turn.words[r.id])]
        for row, said in lines:
            subject = frozenset(terms(said))
            if len(subject) < 3:
                continue
            line = redact(said)
            address = f"s{row.session}#{row.seq}"
            draft = Draft("decision", shorten(line, 60), shorten(line, 300), address,
                          f"decision:{row.id}:{zlib.crc32(line.encode())}", entry=row.id, scope=turn.cwd,
                          updated=row.ts, sources={row.id})
            draft.key("topic", line, address=address, entry=row.id)
            found.append((draft, subject, _lead(said)))
    # In the order they were taken: by time (a history's sessions sync in any order), else by entry.
    found.sort(key=lambda f: (f[0].updated or "", f[0].entry or 0))
    for i, (older, words, lead) in enumerate(found):
        for newer, other, other_lead in found[i + 1:]:
            shared = len(words & other)
            alike = shared >= max(SAME_SUBJECT_WORDS, SAME_SUBJECT_SHARE * min(len(words), len(other)))
            if newer.scope == older.scope and (alike or (len(lead) == 2 and lead == other_lead)):
                older.current = False
                older.description = shorten(f"{older.description} (superseded by {newer.source})", 340)
                break
    return [d for d, _, _ in found]


def _owner_decisions(words: str) -> list[str]:
    """The sentences of the owner's own words that state a decision."""
    out = []
    for sentence in _SENTENCE_BREAK.split(words):
        sentence = sentence.strip()
        m = _OWNER_DECIDES.search(sentence)
        if m and not sentence.endswith("?") and not _UNDECIDED.search(sentence[:m.start()]):
            out.append(sentence)
    return out


def _lead(line: str) -> tuple[str, ...]:
    """The first two content words after the choosing words, its verbs aside (the subject decided on)."""
    m = _OWNER_DECIDES.search(line) or _CHOOSING.search(line)
    after = line[m.end():] if m else line
    return tuple(t for t in terms(after) if t not in _CHOOSING_VERBS)[:2]
