"""A token estimate for budgets, without a tokenizer: nothing to download, same answer everywhere.

Why not bytes/4: that rule is right on average for English prose and wrong by 40% or more on the text a
coding agent's window is full of (JSON, paths, hashes, indented code, logs). BPE tokenizers cut text
at letter runs, digit groups, punctuation and whitespace runs, so the estimate counts those:

    tokens ≈ 0.6·runs of letters/digits + 0.1·their characters + 0.25·digits + 1.5·digit runs
             + 1·newline runs + 1·runs of 2+ spaces or tabs + 1.1·non-ASCII characters + 0.5·other symbols

(a single space joins the word after it, as in BPE). The weights were fitted against OpenAI's cl100k_base
on texts from the fixture sessions, the docs and the source (prose, tool output, JSON, code);
`bench/fit_tokens.py` refits them on half the files and scores the other half (docs/BENCHMARKS.md). On
the held-out half (1,098 texts, 143k tokens) the median error is 4.6%, 80% of texts fall within
−5% … +20%, the whole half within +2.3%; a refit on the other half does no better there (median 4.6%),
so these weights stay. The worst case is a very short text (a few tokens, off by one or two: the
sessions' entries alone have a median error of 11%). Rounding leans high so a marker
built to a budget fits it. Other tokenizers (o200k, Claude's) differ from cl100k by up to ~15% on their
own, so treat a budget as ±20%.

The weights are kept in twentieths so the estimate is exactly additive over lines: the tokens of lines
joined by single newlines are the sum of each line's weight plus one per newline, which is what lets the
marker builder fill a budget line by line and know the total before it renders.
"""

from __future__ import annotations

import string


def _marks(members: bytes) -> bytes:
    """A byte translation table: `x` for the members, `.` for every other byte."""
    return bytes(0x78 if b in members else 0x2E for b in range(256))


# The counts run on the UTF-8 bytes with translate/count (C loops): regexes over a large tool output
# cost ten times as much, and a window model estimates every entry it holds.
_ALNUM = _marks((string.ascii_letters + string.digits).encode())
_DIGITS = _marks(string.digits.encode())
_NEWLINE = _marks(b"\n")
_BLANK = _marks(b" \t")
_WHITESPACE = b" \t\n\r\x0b\x0c"
_ASCII = bytes(range(0x80))
_NOT_LEAD = bytes(range(0xC0))  # what is left after deleting these are the lead bytes of non-ASCII characters

# Weights in twentieths of a token (see the module docstring).
_RUN, _ALNUM_CHAR, _DIGIT, _DIGIT_GROUP = 12, 2, 5, 30
_NEWLINES, _SPACES, _NON_ASCII, _SYMBOL = 20, 20, 22, 10
SCALE = 20


def _runs(marked: bytes, head: bytes = b"x") -> int:
    """How many runs of marked bytes that begin with `head` (b"xx": runs of at least two)."""
    return marked.count(b"." + head) + (1 if marked.startswith(head) else 0)


def weight(text: str) -> int:
    """The estimate in twentieths of a token, unrounded; additive over pieces cut at a newline."""
    if not text:
        return 0
    raw = text.encode("utf-8", "surrogatepass")
    alnum_marks = raw.translate(_ALNUM)
    alnum = alnum_marks.count(b"x")
    runs = digits = groups = 0
    if alnum:
        runs = _runs(alnum_marks)
        digit_marks = raw.translate(_DIGITS)
        digits = digit_marks.count(b"x")
        groups = _runs(digit_marks) if digits else 0
    newlines = _runs(raw.translate(_NEWLINE)) if b"\n" in raw else 0
    # Runs of two or more blanks: none without a double space or a tab, the usual case for a short line.
    spaces = _runs(raw.translate(_BLANK), b"xx") if b"  " in raw or b"\t" in raw else 0
    whitespace = len(raw) - len(raw.translate(None, _WHITESPACE))
    high = 0 if text.isascii() else len(raw.translate(None, _ASCII))
    non_ascii = len(raw.translate(None, _NOT_LEAD)) if high else 0
    symbols = len(raw) - alnum - whitespace - high
    return (_RUN * runs + _ALNUM_CHAR * alnum + _DIGIT * digits + _DIGIT_GROUP * groups
            + _NEWLINES * newlines + _SPACES * spaces + _NON_ASCII * non_ascii + _SYMBOL * symbols)


def estimate_tokens(text: str) -> int:
    """The estimated token count of `text` (see the module docstring for how far off it may be)."""
    return -(-weight(text) // SCALE)


def number_and_comma_weight(number: int) -> int:
    """`weight(f",{number}")`, which is also `weight(f"{number},")`, without the byte passes: one run of
    digits and one symbol. An address list adds one of these per entry, thousands in a long range."""
    digits = len(str(number))
    return _RUN + _DIGIT_GROUP + _SYMBOL + (_ALNUM_CHAR + _DIGIT) * digits
