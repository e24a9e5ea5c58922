"""Words of an observation, mechanically: its subject (for grouping related ones) and its hooks (other
phrasings the observation search indexes, so an archived item is still found by words it never used).

No model: content words, a crude stem, and a small table of the synonyms coding owners use for the same
things (deploy/release/ship, prod/production, db/database …). A model may write better hooks; these are
what a fresh machine gets.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import datetime

_WORD = re.compile(r"[A-Za-z][A-Za-z0-9+#.-]*[A-Za-z0-9+#]|[A-Za-z]|\d+(?:\.\d+)*")
STOP = frozenset("""
a about above after again against all also am an and any are aren't as at be because been before being
below between both but by can can't cannot could did didn't do does doesn't doing don't down during each
few for from further get gets got had has have having he her here hers him his how i i'd i'll i'm i've if
in into is isn't it it's its itself just let let's like me more most my myself no nor not now of off on
once only or other our ours out over own please same she should so some such than that that's the their
them then there these they this those through to too under until up us very was we we'll we're were what
when where which while who whom why will with would you you'd you'll you're your yours yourself ok okay
yes yeah sure thing things really actually always never every each use using used make sure ever want
need needs wait waits go goes going first one two also still must
""".split())

# Groups of words an owner uses for the same thing; each word of a group can stand for any other.
_GROUPS = (
    "deploy deploys deployed deployment deployments release releases released ship ships shipped rollout "
    "rollouts",
    "prod production live",
    "staging stage preprod pre-production",
    "db database databases datastore",
    "test tests testing spec specs",
    "bug bugs defect defects issue issues problem problems",
    "fix fixes fixed repair patch resolve",
    "meeting meetings call calls sync standup",
    "docs documentation readme manual",
    "config configuration settings setup",
    "freeze freezes lockdown moratorium",
    "review reviews approval sign-off",
    "server servers host hosts machine machines box",
    "dependency dependencies deps package packages library libraries",
    "secret secrets key keys credential credentials token tokens password passwords",
    "log logs logging",
    "backup backups snapshot snapshots",
    "outage outages incident incidents downtime",
    "migrate migration migrations move port",
    "upgrade upgrades upgraded update updates bump bumped",
    "delete remove drop",
    "create add make",
    "email emails mail message messages",
    "customer customers client clients user users",
    "invoice invoices billing payment payments",
    "cost costs price spend budget",
    "slow latency performance",
    "prefer prefers preference like likes favour favor",
    "hate hates dislike dislikes avoid",
    "branch branches",
    "commit commits",
    "friday fridays weekend",
    "monday mondays",
    "tabs indentation",
    "pnpm npm yarn",
    "python py",
    "javascript js",
    "typescript ts",
    "script scripts",
    "error errors failure failures failed crash",
    # Added from the observing bench's `fit` paraphrases only (its `report` ones measure them).
    "rollback rollbacks rolled revert reverted reverts",
    "contract contracts agreement agreements",
    "vendor vendors supplier suppliers provider providers",
    "expired expire expires lapsed lapse",
    "certificate certificates cert certs",
    "flaky unreliable",
    "team teams people folks",
)
# What an HTTP status an owner quotes ("after the 502s") is called when he searches for it later: the
# reason phrases of RFC 9110.
HTTP_STATUS = {"400": "bad request", "401": "unauthorized", "403": "forbidden", "404": "not found",
               "408": "request timeout", "409": "conflict", "429": "too many requests rate limited",
               "500": "server error", "502": "bad gateway error", "503": "service unavailable",
               "504": "gateway timeout"}
# Where a secret was taken out (`llm.redaction`): no word of the owner's, so no word of the note's.
_REDACTED = re.compile(r"\[REDACTED:[\w-]+\]")
_STATUS = re.compile(r"\b([45]\d\d)s?\b")
SYNONYMS: dict[str, tuple[str, ...]] = {}
for _group in _GROUPS:
    _members = tuple(_group.split())
    for _w in _members:
        SYNONYMS[_w] = tuple(m for m in _members if m != _w)

_TYPE_WORDS = {"event": "what happened", "fact": "fact", "preference": "preference", "goal": "goal",
               "habit": "habit", "rule": "rule", "context": "context"}


def content_words(text: str) -> list[str]:
    """The words of `text` that carry its meaning, lower-cased, in order, once each."""
    out: dict[str, None] = {}
    for m in _WORD.finditer(_REDACTED.sub(" ", text)):
        w = m.group(0).lower().strip(".-")
        if w and w not in STOP and (len(w) > 2 or w.isdigit() or w in SYNONYMS):
            out[w] = None
    return list(out)


def stem(word: str) -> str:
    """A crude stem (plural, -ing, -ed, -ment), enough to see two notes share a subject."""
    for suffix in ("ments", "ment", "ings", "ing", "ied", "ies", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)]
            break
    return word


def canonical(word: str) -> str:
    """The word a synonym group is known by (its first), stemmed: `release` and `deploys` agree."""
    group = SYNONYMS.get(word)
    if group is not None:
        first = min((word, *group), key=lambda w: _group_rank(w))
        return stem(first)
    return stem(word)


def _group_rank(word: str) -> int:
    for n, group in enumerate(_GROUPS):
        members = group.split()
        if word in members:
            return n * 100 + members.index(word)
    return 1 << 30


def subject(text: str) -> str:
    """What an observation is about: its canonical content stems, space-separated, sorted."""
    return " ".join(sorted({canonical(w) for w in content_words(text)}))


def overlap(a: str, b: str) -> float:
    """How much two subjects share (Jaccard over their stems)."""
    sa, sb = set(a.split()), set(b.split())
    if not sa or not sb:
        return 0.0
    return len(sa & sb) / len(sa | sb)


def shared(subjects: Iterable[str]) -> list[str]:
    """The stems every one of `subjects` holds."""
    sets = [set(s.split()) for s in subjects]
    return sorted(set.intersection(*sets)) if sets else []


def hooks(text: str, type: str, seen: datetime | None = None) -> list[str]:
    """Four or five other phrasings of an observation, for the search over archived ones: its key words,
    the same with synonyms, what kind of note it is, a question it answers, and when (time-bound ones)
    or the words' other forms."""
    words = content_words(text)[:10]
    if not words:
        words = [w.lower() for w in text.split()[:5]]
    keys = " ".join(words)
    named = " ".join(HTTP_STATUS[m.group(1)] for m in _STATUS.finditer(text) if m.group(1) in HTTP_STATUS)
    swapped = " ".join(dict.fromkeys([*(s for w in words for s in (SYNONYMS.get(w) or (w,))),
                                      *named.split()]))
    other = " ".join(dict.fromkeys(s for w in words for s in SYNONYMS.get(w, ())[1:3])) or keys
    label = _TYPE_WORDS.get(type, type)
    out = [keys, swapped, f"{label} about {' '.join(words[:4])}",
           f"what did the owner say about {' '.join(words[:3])}"]
    if seen is not None and type in ("event", "context", "fact"):
        out.append(f"{seen:%B %Y} week of {seen:%Y-%m-%d} {seen:%A}")
    else:
        out.append(other)
    kept = [h for h in dict.fromkeys(h.strip() for h in out) if h]
    for spare in (f"note on {keys}", f"{label} {keys}", f"remember {keys}"):
        if len(kept) >= 4:
            break
        if spare not in kept:
            kept.append(spare)
    return kept[:5]


def related_groups(subjects: list[str], least: float = 0.5, shared_stems: int = 3) -> list[list[int]]:
    """Groups (indices into `subjects`, 2 or more each) of subjects that are related: a pair sharing half
    their stems (`least`, Jaccard) or `shared_stems` of them, joined transitively."""
    parent = list(range(len(subjects)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    sets = [set(s.split()) for s in subjects]
    holders: dict[str, list[int]] = {}
    for i, stems in enumerate(sets):
        for w in stems:
            holders.setdefault(w, []).append(i)
    for i, stems in enumerate(sets):
        candidates: dict[int, int] = {}
        for w in stems:
            held = holders[w]
            if len(held) > 200:  # a word most notes hold says nothing about their subject
                continue
            for j in held:
                if j > i:
                    candidates[j] = candidates.get(j, 0) + 1
        for j, common in candidates.items():
            union = len(stems | sets[j])
            if common >= shared_stems or (union and common / union >= least):
                parent[root(j)] = root(i)
    groups: dict[int, list[int]] = {}
    for i in range(len(subjects)):
        groups.setdefault(root(i), []).append(i)
    return [g for g in groups.values() if len(g) >= 2]
