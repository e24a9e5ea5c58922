"""What a query means word for word, and which entries hold it: exact strings first.

A person who pastes an error line, a path, a hash, a URL or a command wants the entry holding that string,
not the ones sharing most of its words (`... (code 3771b1)` against five `(code ...)` look-alikes). The
word ranking cannot tell them apart, so the entries holding a part of the query verbatim (case-blind,
white space and JSON escapes aside) are moved ahead of the rest, the longest part held first.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from total_recall.indexes.strings import looks_exact
from total_recall.record import queries
from total_recall.record.database import Record

# How many of the best candidates, and of each list aimed at the exact string, are read and checked.
DEPTH = 30
AIMED_DEPTH = 10
# A query of this many words with a digit or a sign words rarely carry (`;` `:` `_` `=` `/`) is looked for
# whole as well: an output line, a test name or a sentence pasted as it stood. Only whole: cutting words off
# a question would leave single words.
LINE_WORDS = 3
_LINE_SHAPE = re.compile(r"\d|[;:_=/]")
# How many places of a part's anchor are looked at in one text (a common word can occur hundreds of times).
MAX_TRIES = 20
# The query split as the search splits it (exact-looking tokens are whole pieces between these).
_TOKEN = re.compile(r"[^\s\"'`()\[\]{}<>,;]+")
_QUOTED = re.compile(r"(?<![\w\\])([\"'`])(.{3,}?)\1(?!\w)")
_FLAG = re.compile(r"(?<!\S)--?[A-Za-z]")
_HEX = re.compile(r"[0-9a-f]{5,64}")
_EDGE = ".,;:!?\"'`()[]{}<>"
# Words around a line in a question ("where did we see …", "… again"), cut to find the line itself.
_PLAIN = re.compile(r"[a-z]+")
MAX_LEADING = 4
MAX_TRAILING = 3
# JSON escapes left in text recorded with its envelope (a tool output as `{"output": "...\n..."}`).
_ESCAPES = (("\\n", " "), ("\\t", " "), ("\\r", " "), ('\\"', '"'), ("\\/", "/"), ("\\\\", "\\"))


def plain(text: str) -> str:
    """`text` with JSON string escapes undone, as a person reads it (only when it holds some)."""
    if "\\" not in text:
        return text
    for escaped, char in _ESCAPES:
        text = text.replace(escaped, char)
    return text


def _flat(text: str) -> str:
    return " ".join(plain(text).split())


@dataclass(frozen=True, slots=True)
class Part:
    """A piece of the query meant verbatim, lower case with white space collapsed; a hex fragment (`hex`)
    also matches as the start of a longer hash, as git's abbreviations do."""

    text: str
    hex: bool = False

    @property
    def anchor(self) -> str:
        """Its longest run of letters and digits: found in the raw text whatever its escapes and spacing,
        so only the text around it is flattened and compared."""
        runs: list[str] = re.findall(r"[^\W_]+", self.text) or [self.text]
        return max(runs, key=len)


def parts(query: str) -> tuple[Part, ...]:
    """The parts of `query` meant verbatim, longest first: each quoted piece, each exact-looking token
    (a path, a hash, a URL, `TypeError:`), and the whole query when it holds any of those or a command
    flag, or reads as a line pasted as it stood (`LINE_WORDS`). None for plain words: their ranking is the
    word index's."""
    found: list[str] = [m.group(2) for m in _QUOTED.finditer(query)]
    found += [t.strip(_EDGE) for t in _TOKEN.findall(query) if looks_exact(t)]
    whole = query.strip().rstrip("?!").strip()
    if len(whole) >= 2 and whole[0] == whole[-1] and whole[0] in "\"'`":
        whole = whole[1:-1]
    if found or _FLAG.search(query):
        found += _trimmed(whole)
    elif len(whole.split()) >= LINE_WORDS and _LINE_SHAPE.search(whole):
        found.append(whole)  # a line pasted as it stood ("14 doctests, 127 tests, 12 failures"), whole only
    out: dict[str, Part] = {}
    for piece in found:
        text = " ".join(piece.lower().split())
        if len(text) >= 3 and text not in out:
            out[text] = Part(text, bool(_HEX.fullmatch(text)) and not text.isalpha())
    return tuple(sorted(out.values(), key=lambda p: -len(p.text)))


def _trimmed(whole: str) -> list[str]:
    """The whole query, and the same with up to MAX_LEADING plain lower-case words cut from its start and
    MAX_TRAILING from its end: the line asked about inside a question ("what was <line> about")."""
    words = whole.split()
    lead = 0
    while lead < min(MAX_LEADING, len(words) - 1) and _PLAIN.fullmatch(words[lead]):
        lead += 1
    trail = 0
    while trail < min(MAX_TRAILING, len(words) - lead - 1) and _PLAIN.fullmatch(words[-1 - trail]):
        trail += 1
    return [" ".join(words[a : len(words) - b]) for a in range(lead + 1) for b in range(trail + 1)]


def _bounded(flat: str, at: int, part: Part) -> bool:
    """Whether the occurrence of `part` at `at` stands whole: it neither starts nor (unless a hash's
    abbreviation) ends inside a longer token (`/srv/a.yaml` is not held by `/srv/a.yaml.bak`)."""
    before = flat[at - 1] if at else " "
    if before.isalnum() or before == "_" or (before in "./-" and at >= 2 and flat[at - 2].isalnum()):
        return False
    if part.hex:
        return True
    end = at + len(part.text)
    after = flat[end] if end < len(flat) else " "
    nxt = flat[end + 1] if end + 1 < len(flat) else " "
    return not (after.isalnum() or after == "_" or (after in "./-:" and (nxt.isalnum() or nxt in "/.")))


def held(text: str, wanted: tuple[Part, ...]) -> float:
    """How much of the query `text` holds verbatim: the length of each part it holds whole, half that
    where the part only sits inside a longer token; 0 when it holds none.

    Only the text around each place a part's anchor occurs is flattened (a tool output can hold 50 KB)."""
    lower = text.lower()
    total = 0.0
    for part in wanted:
        anchor, best, seen = part.anchor, 0.0, 0
        at = lower.find(anchor)
        while at >= 0 and best < 1.0 and seen < MAX_TRIES:
            # Escapes and runs of white space make the raw text longer than the part: room for both.
            reach = 2 * len(part.text) + 16
            lo = max(0, at - reach)
            raw = lower[lo : at + len(anchor) + reach]
            flat = _flat(raw)
            found = flat.find(part.text)
            while found >= 0 and best < 1.0:
                best = max(best, 1.0 if _bounded(flat, found, part) else 0.5)
                found = flat.find(part.text, found + 1)
            seen += 1
            at = lower.find(anchor, at + 1)
        total += best * len(part.text)
    return total


def first(record: Record, ranked: list[int], aimed: list[list[int]], wanted: tuple[Part, ...],
          fused: dict[int, float]) -> list[int]:
    """`ranked` with the entries holding most of the query verbatim moved ahead, in their order otherwise.

    Checked: the best DEPTH of `ranked` and the first AIMED_DEPTH of each list `aimed` at the exact string
    (its phrase, its exact-index lookup), so an entry holding the line is checked even where the words rank
    it low. Their fused scores are raised to stay in order."""
    checked = list(dict.fromkeys([*ranked[:DEPTH], *(i for ids in aimed for i in ids[:AIMED_DEPTH])]))
    if not checked:
        return ranked
    # Only the texts holding an anchor are copied out of the record to be compared.
    anchors = list(dict.fromkeys(p.anchor for p in wanted))
    texts = queries.texts_holding(record, checked, anchors)
    score = {r[0]: s for r in texts if (s := held(r[1], wanted)) > 0}
    if not score:
        return ranked
    position = {entry_id: n for n, entry_id in enumerate(ranked)}
    ahead = sorted(score, key=lambda i: (-score[i], position.get(i, len(position))))
    rest = [i for i in ranked if i not in score]
    floor = max((fused.get(i, 0.0) for i in rest[:1]), default=0.0)
    for entry_id in reversed(ahead):
        floor = fused[entry_id] = max(fused.get(entry_id, 0.0), floor + 1e-6)
    return ahead + rest


def phrases(wanted: tuple[Part, ...]) -> list[str]:
    """FTS5 phrases of the parts of several words that no other such part holds (the shortest cut of a
    question finds every entry a longer one would): the word index finds the line where the exact
    index does not (past the part of a long output it scans)."""
    texts = [p.text for p in wanted if " " in p.text]
    cores = [t for t in texts if not any(o != t and o in t for o in texts)]
    out = []
    for core in cores:
        words = re.findall(r"\w+", core)  # as the word index cuts them (`_` joins words there)
        if len(words) > 1:
            out.append('"' + " ".join(words) + '"')
    return out
