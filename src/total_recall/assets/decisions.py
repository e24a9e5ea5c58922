"""Decisions as assets: the lines `keeping/items.py` finds, kept when they choose something ("let's go
with", "decided", "switching to" …), and superseded by a later decision on the same subject.

Same subject: in the same project, the two share at least two content words and at least 40 % of the
shorter one's ("use postgres for the session cache" → "switching to redis for the session cache"). The
older one stays in the index, marked not current, and is never pushed as current.
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
SAME_SUBJECT_WORDS = 2
SAME_SUBJECT_SHARE = 0.4


def decisions(turns: list[Turn], spans: dict[int, list[Span]]) -> list[Draft]:
    """Every choosing decision of every session, the superseded ones marked not current."""
    found: list[tuple[Draft, frozenset[str]]] = []
    for turn in turns:
        messages = [r for r in turn.rows if r.kind == "message"]
        scanned = [MinedEntry(r.id, r.seq, r.author, r.kind, r.text, r.text, r.tool,
                              spans=tuple(spans.get(r.id, ()))) for r in messages]
        ids = {r.seq: r for r in messages}
        for item in find_items(scanned).found:
            if item.kind != "decision" or not _CHOOSING.search(item.line):
                continue
            subject = frozenset(terms(item.line))
            if len(subject) < 3:
                continue
            row = ids[item.seq]
            line = redact(item.line)
            address = f"s{row.session}#{row.seq}"
            draft = Draft("decision", shorten(line, 60), shorten(line, 300), address,
                          f"decision:{row.id}:{zlib.crc32(line.encode())}", entry=row.id, scope=turn.cwd,
                          updated=row.ts, sources={row.id})
            draft.key("topic", line, address=address, entry=row.id)
            found.append((draft, subject))
    # In the order they were taken: by time (a history's sessions sync in any order), else by entry.
    found.sort(key=lambda f: (f[0].updated or "", f[0].entry or 0))
    for i, (older, words) in enumerate(found):
        for newer, other in found[i + 1:]:
            shared = len(words & other)
            if newer.scope == older.scope and shared >= SAME_SUBJECT_WORDS \
                    and shared >= SAME_SUBJECT_SHARE * min(len(words), len(other)):
                older.current = False
                older.description = shorten(f"{older.description} (superseded by {newer.source})", 340)
                break
    return [d for d, _ in found]
