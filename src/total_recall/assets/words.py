"""The words keys are made of: tokens, a light stem, stop words, names as token runs, "for …" clauses.

One tokenizer for what is stored and what is asked, so a key and a request meet on the same terms. The
stem only folds the endings that split one word into several terms (reports/report, downloading/download);
it never reaches for meaning.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

_TOKEN = re.compile(r"[a-z0-9]+")
# Words that tell nothing about what a thing is for; the request's and the key's both lose them.
STOP = frozenset("""
a about above after again against all also am an and any are aren't as at be because been before being
below between both but by can can't could did didn't do does doesn't doing don't down during each few for
from further get got had has have having he her here hers him his how i i'd i'll i'm i've if in into is
isn't it it's its itself just let let's like me more most my myself no nor not now of off on once only or
other our ours out over own please same she should so some such than that the their them then there these
they this those through to too under until up very was we we'll we're were what when where which while who
whom why will with would you you'd you'll you're your yours yourself yeah yes ok okay hey hi thanks thank
again last time one ones thing things something anything want need make sure use used using way ll ve re
s t d m
""".split())
# Words a name of one common word needs beside it before it counts as naming an asset ("the deploy skill").
KIND_WORDS = frozenset("skill skills command commands agent agents script scripts tool tools server servers "
                       "machine machines host box mcp prompt prompts helper setup doc document".split())


def tokens(text: str) -> list[str]:
    """Lower-cased runs of letters and digits, in order (names keep their order for n-grams)."""
    return _TOKEN.findall(text.lower())


def stem(word: str) -> str:
    """Fold plural and -ing/-ed/-ly endings (4+ letters left), so forms of one word are one term."""
    for suffix, keep in (("ies", "y"), ("sses", "ss"), ("ing", ""), ("ed", ""), ("ly", ""), ("es", ""),
                         ("s", "")):
        if word.endswith(suffix) and len(word) - len(suffix) >= 4 and not word.endswith("ss"):
            base = word[: len(word) - len(suffix)] + keep
            # "running" → "runn" → "run": a doubled last consonant left by the cut goes too
            if suffix in ("ing", "ed") and len(base) > 4 and base[-1] == base[-2] and base[-1] not in "lsz":
                base = base[:-1]
            return base
    return word


def terms(text: str) -> list[str]:
    """The distinct stemmed content terms of `text`, in order of first appearance."""
    seen: dict[str, None] = {}
    for word in tokens(text):
        if word in STOP or len(word) < 2 or word.isdigit():
            continue
        seen.setdefault(stem(word), None)
    return list(seen)


def normal_name(text: str) -> str:
    """A name as keys store and requests are matched against it: its tokens joined by single spaces
    (`portal-relay`, `Portal_Relay` and `portal relay` are one name)."""
    return " ".join(tokens(text))


def grams(words: Sequence[str], longest: int = 5) -> Iterator[str]:
    """Every run of 1..`longest` consecutive words, joined by spaces (the names a text may hold)."""
    for i in range(len(words)):
        for n in range(1, longest + 1):
            if i + n > len(words):
                break
            yield " ".join(words[i : i + n])


def plain_word(name: str) -> bool:
    """Whether a name is a single everyday word ("deploy", "notes"): it names an asset only beside a kind
    word, or a request saying "deploy the app" would pin the deploy skill first every time."""
    return " " not in name and (name in STOP or (name.isalpha() and len(name) <= 8))


_USE_CLAUSE = re.compile(
    r"\b(?:use (?:it |this |me )?(?:when|whenever|if|for|to)|useful (?:when|for)|for (?:when|whenever)|"
    r"helps? (?:with|you|when)|lets? you|used (?:for|to|when)|when you need to|whenever)\b"
    r"\s*([^.;\n]{3,160})", re.I)
_FOR_CLAUSE = re.compile(r"(?:^|[,:—-]\s*)\bfor\s+([^.;\n]{3,120})", re.I)


def use_clauses(description: str) -> list[str]:
    """The "use when …" / "for …" clauses of a description: what it says the thing is for."""
    found = [m.group(1).strip(" ,") for m in _USE_CLAUSE.finditer(description)]
    found += [m.group(1).strip(" ,") for m in _FOR_CLAUSE.finditer(description)]
    out: list[str] = []
    for clause in found:
        if clause and clause not in out and terms(clause):
            out.append(clause)
    return out


def shorten(text: str, limit: int) -> str:
    """One line of at most `limit` characters, cut at a word with … ."""
    line = " ".join(text.split())
    if len(line) <= limit:
        return line
    cut = line.rfind(" ", 0, limit - 1)
    return line[: cut if cut > limit // 2 else limit - 1].rstrip(" ,;:—-") + "…"
