"""Search: one ranking fused from the word index, the exact-string index (and vectors when present).

"Retrieve coarse, address fine": every hit is an entry address. Rankings are fused by reciprocal rank
(each list contributes 1 / (K + rank)), so a hash fragment found only by the exact index and a phrase
found only by words both rise, and agreeing lists reinforce each other.
"""

from __future__ import annotations

import functools
import math
import operator
import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import date, timedelta

from total_recall.errors import RecordError, SearchError
from total_recall.find import fact_cache as facts
from total_recall.find import verbatim
from total_recall.find.hits import snippet
from total_recall.find.meaning import ready as meaning_ready
from total_recall.find.meaning import similarity
from total_recall.find.when import SINCE_FORMS, window
from total_recall.find.when import since as since_moment
from total_recall.indexes.entry_facts import Conditions, Scored
from total_recall.indexes.strings import looks_exact
from total_recall.indexes.words import Shard
from total_recall.model import Hit, echoed
from total_recall.record import queries
from total_recall.record.database import Record

RRF_K = 60
CANDIDATES = 200
# How many of the best word matches are looked up, so each can borrow from a neighbour among them: 600
# instead of 800 took 2 ms off the median query on a million entries with LoCoMo's figures unchanged
# (500 lost .001 at 5, 400 .003).
POOL = CANDIDATES * 3
# A project filter becomes tag tokens when it names at most this many sessions, else stays SQL.
MAX_TAGGED_SESSIONS = 200
# How many of a word list's matches are ranked, newest first (see _words). On a million-entry record
# 1,000 against 2,000 takes a seventh off the median query and a fifth off the slowest (docs/BENCHMARKS.md).
SCORED = 1_000
# The best RERANK_DEPTH fused candidates are reordered by what a word score misses; the rerank never
# brings in an entry that shares nothing with the query (measured on LoCoMo, fusing a dense list by rank
# lowered recall). Weights fitted on LoCoMo, checked leaving each conversation out: docs/BENCHMARKS.md.
RERANK_DEPTH = 30
# Past how many matches of the words walked a filter's tags stay in the ranking (see _Scope.ranked).
WALKED = 20_000
# A time filter spanning more months than this is left to SQL alone (it narrows little).
MAX_MONTHS = 24
# A time the query names of up to this many days narrows by day tags, a longer one by month tags.
MAX_DAYS = 31
# Words matching fewer entries than this are ranked whole and the filters applied to what they found
# (see _sparse).
SPARSE = SCORED
# How many of the best word candidates have their error lines compared with the query.
ERROR_DEPTH = 50
# Per standard deviation of closeness in meaning within the head (raw cosines spread differently per query).
MEANING_WEIGHT = 0.25
# The share of the query's words found in the entry or the entries beside it: bm25 rewards one rare word
# repeated, while an answer and the question it replies to together hold most of what was asked.
COVERAGE_WEIGHT = 1.2
# Log length, capped: a two-word reply ("Thanks!") matches names and common words but rarely holds a fact.
LENGTH_WEIGHT = 0.3
LENGTH_CAP = 500
# An entry that asks a question is less often the one holding the answer.
ASKING_WEIGHT = -0.2
# An entry holding the query's words as typed, in order (an error line's fragment, "is not callable"):
# stemming and stop words make every entry with "callable" match as well, yet the line was the one meant.
# As much as holding every word, so the phrase wins between entries that cover the query alike.
PHRASE_WEIGHT = COVERAGE_WEIGHT
# How much of each candidate and its neighbours is read to find the query's words (bounds the cost: about
# 1 ms per 100 KB read).
CONTEXT_CHARS = 1_500
# How much of its best neighbour's word score an entry borrows (tuned on LoCoMo: see docs/BENCHMARKS.md).
NEIGHBOUR = 0.35
# The owner's words and the agent's replies outrank bulky tool output and harness bookkeeping.
WEIGHTS: dict[tuple[str, str], float] = {
    ("owner", "message"): 1.5,
    ("agent", "message"): 1.3,
    ("harness", "summary"): 1.1,
    ("agent", "thinking"): 0.9,
    ("agent", "tool_call"): 1.0,
    ("tool", "tool_result"): 0.8,
    ("harness", "meta"): 0.3,
    ("harness", "message"): 0.6,
    ("system", "message"): 0.4,
}
_STOP = frozenset(
    """a an the and or but if of to in on at by for with from as is are was were be been being do does did
    what which who whom whose when where why how this that these those it its i me my we our you your he
    him his she her they them their there here so not no yes can could would should will shall may might
    about into over under than then too very just also any all some""".split()
)
_WORD = re.compile(r"[\w]+", re.U)
_TOKEN = re.compile(r"[^\s\"'`()\[\]{}<>,;]+")


@dataclass(frozen=True, slots=True)
class Filters:
    harness: Sequence[str] = ()
    session: int | None = None
    project: str | None = None
    author: Sequence[str] = ()
    since: str | None = None
    kinds: Sequence[str] = field(default_factory=tuple)

    def tags(self, record: Record) -> tuple[list[str], list[int] | None, bool]:
        """The filters as FTS5 clauses over the tag column: one per filter but the sessions, the sessions
        the filters name (None when they name none), and whether the clauses apply every filter, so word
        search needs no SQL condition at all (not with `since`, or a project naming more than
        MAX_TAGGED_SESSIONS sessions).

        The clauses let FTS5 intersect before anything is joined.
        """
        covers = self.since is None
        groups: list[list[str]] = []
        if self.harness:
            groups.append([f"h_{h.replace('-', '_')}" for h in self.harness])
        if self.author:
            groups.append([f"a_{a}" for a in self.author])
        if self.kinds:
            groups.append([f"k_{k}" for k in self.kinds])
        if self.since is not None and (months := _months(record, self.since)) is not None:
            groups.append(months)
        sessions: list[int] | None = None
        if self.session is not None:
            sessions = [self.session]
        elif self.project:
            ids = queries.sessions_in_folders(record, self.project, MAX_TAGGED_SESSIONS + 1)
            if len(ids) <= MAX_TAGGED_SESSIONS:
                sessions = ids
            else:
                covers = False
        return [_any(g) for g in groups], sessions, covers

    def pinpoints(self) -> bool:
        """Whether the filters name sessions (a session, a project): tags that few entries carry."""
        return self.session is not None or bool(self.project)

    def narrows(self) -> bool:
        """Whether any filter is set."""
        return bool(self.harness or self.session is not None or self.project or self.author or self.since
                    or self.kinds)

    def conditions(self) -> Conditions:
        """The filters as conditions checked on each entry (in SQL, by the indexes)."""
        return Conditions(self.harness, self.session, self.project, self.author, self.since, self.kinds)


def _months(record: Record, start: str, end: str | None = None) -> list[str] | None:
    """The month tags of entries timed from `start` (ISO, inclusive) to `end` (ISO date, exclusive):
    a time filter narrowed inside the index (the exact bounds stay in SQL); None past MAX_MONTHS."""
    last = (date.fromisoformat(end[:10]) - timedelta(days=1)).isoformat()[:7] if end else "9999-12"
    months = queries.word_months(record, start[:7], last, MAX_MONTHS + 1)
    if len(months) > MAX_MONTHS:
        return None
    return [f"m_{m.replace('-', '_')}" for m in months] or ["m_none"]  # m_none: no entry from then


def _days(start: str, end: str) -> list[str] | None:
    """The day tags of a window of ISO dates [start, end) up to MAX_DAYS long; None when longer."""
    first, stop = date.fromisoformat(start[:10]), date.fromisoformat(end[:10])
    if not 0 < (stop - first).days <= MAX_DAYS:
        return None
    days = (first + timedelta(days=n) for n in range((stop - first).days))
    return [f"d_{day.isoformat().replace('-', '_')}" for day in days]


def _any(tags: Sequence[str]) -> str:
    return "(" + " OR ".join(f'"{t}"' for t in tags) + ")"


def words_query(query: str) -> str | None:
    """The FTS5 query for free text: every meaningful word, quoted, OR-ed (never a syntax error)."""
    words = [w.lower() for w in _WORD.findall(query)]
    keep = [w for w in words if w not in _STOP and len(w) > 1] or [w for w in words if len(w) > 1]
    if not keep:
        return None
    return " OR ".join(f'"{w}"' for w in dict.fromkeys(keep))


def search(
    record: Record,
    query: str,
    *,
    limit: int = 10,
    harness: Sequence[str] = (),
    session: int | None = None,
    project: str | None = None,
    author: Sequence[str] = (),
    since: str | None = None,
    meaning: bool = True,
) -> list[Hit]:
    """The best `limit` entries for `query`, fused from every index, each with its address.

    With `meaning` (and the vectors extra and some vectors in the record) the best candidates are
    reordered by closeness in meaning too.

    Raises:
        SearchError: the query holds nothing to search for.
    """
    if not query.strip():
        raise SearchError("empty query: give some words, a path, a hash or an error line")
    if since is not None:
        moment = since_moment(since)
        if moment is None:
            raise SearchError(f"since: {echoed(since)} is not a time; give {SINCE_FORMS}")
        since = moment
    filters = Filters(harness, session, project, author, since)
    # One read snapshot for every statement: a sync committing meanwhile (a new shard, new entries) or
    # a rebuild of the index changes nothing this search sees.
    with queries.snapshot(record) as own:
        # Inside the caller's transaction a search sees entries that may yet be rolled back, and their ids
        # given again: only what a search of its own reads (committed, so final) is remembered.
        known = facts.of_store(record) if own else facts.Facts()
        return _search(record, query, filters, limit, meaning, known)


def _search(record: Record, query: str, filters: Filters, limit: int, meaning: bool,
            known: facts.Facts) -> list[Hit]:
    where = filters.conditions()
    groups, sessions, tags_cover = filters.tags(record)
    scope = _Scope(tuple(groups), _spans(record, sessions), filters.pinpoints(),
                   where if filters.narrows() else None)
    # Erase takes an entry out of the word index, so when the tags apply every filter the word lists are
    # read from the index alone, never joined with the entries of every match.
    word_where = None if tags_cover else where
    lists: list[list[int]] = []
    exact = [t for t in _TOKEN.findall(query) if looks_exact(t)]
    # A host or a path OR-ed word by word ("com", "us", "13") matches half the record: exact tokens
    # are searched whole (exact index) and as phrases instead.
    plain = " ".join(t for t in _TOKEN.findall(query) if t not in exact)
    fts = words_query(plain)
    if fts:
        words_ranked = _words(record, fts, scope, word_where, known)
        lists.append(words_ranked)
        lists.append(_error_lines(record, fts, words_ranked))
        if named := window(query):
            # The same words again within the time the query names: entries from then rise.
            timed = replace(where, between=named)
            days = _days(*named)
            when = days or _months(record, *named)
            # Day tags are few per entry list, like a session's: they stay in bm25 (see _Scope.ranked).
            within = replace(scope, groups=(*scope.groups, _any(when)), pinpoint=scope.pinpoint or bool(days)
                             ) if when else scope
            lists.append(_words(record, fts, within, timed, known))
    aimed: list[list[int]] = []  # the lists looking for the exact string itself
    if exact:
        # Erase takes an entry out of the exact index too: with no filter, no join with entries.
        whole = _exact(record, exact, scope.where, scope.sessions, query)
        aimed.append(whole)
        if len(whole) < limit * 2:
            # The exact index scans only the head and tail of big outputs; phrases cover every byte,
            # at the price of reading the position lists of common pieces ("com", "example").
            aimed.append(_phrases(record, exact, scope, word_where))
    wanted = verbatim.parts(query)
    if wanted and (lines := verbatim.phrases(wanted)):
        # The line as one phrase of its words: found even where the word lists rank its look-alikes
        # (the same line with another code) first. Its newest few are enough: every one holds the
        # line's words in order.
        aimed.append(_phrases(record, [], scope, word_where, lines, verbatim.AIMED_DEPTH))
    lists += aimed
    if not any(lists) and not fts and not exact:
        raise SearchError(f"nothing searchable in {query!r}")
    fused: dict[int, float] = {}
    for ranking in lists:
        for rank, entry_id in enumerate(ranking):
            fused[entry_id] = fused.get(entry_id, 0.0) + 1.0 / (RRF_K + rank + 1)
    ranked = sorted(fused, key=lambda i: (-fused[i], i))
    with_meaning = meaning and bool(ranked) and meaning_ready(record)
    if ranked and (fts or with_meaning):
        ranked = _rerank(record, query, ranked, fused, fts, with_meaning)
    if wanted:
        ranked = verbatim.first(record, ranked, aimed, wanted, fused)
    return _hits(record, ranked[:limit], fused, fts, wanted)


def _rerank(
    record: Record, query: str, ranked: list[int], fused: dict[int, float], fts: str | None, meaning: bool
) -> list[int]:
    """The best candidates reordered by adding to their fused score how much of the query they and their
    neighbours hold, their length, whether they ask, and (with vectors) how close they are in meaning."""
    head = ranked[:RERANK_DEPTH]
    top = fused[head[0]]
    score = {entry_id: fused[entry_id] / top for entry_id in ranked}
    if fts:
        for entry_id, bonus in _text_features(record, fts, head, query).items():
            score[entry_id] += bonus
    if meaning:
        close = similarity(record, query, head)
        if len(close) > 1:
            mean = sum(close.values()) / len(close)
            spread = (sum((c - mean) ** 2 for c in close.values()) / len(close)) ** 0.5 or 1.0
            for entry_id, c in close.items():
                score[entry_id] += MEANING_WEIGHT * (c - mean) / spread
    fused.update(score)
    return sorted(head, key=lambda i: (-score[i], i)) + ranked[RERANK_DEPTH:]


def _text_features(record: Record, fts: str, head: list[int], query: str) -> dict[int, float]:
    """Coverage, phrase, length and asking bonuses of each head entry, scaled by its author and kind
    weight.

    An entry's neighbours are almost always the entries numbered beside it (a sync appends a session's
    entries in order), so one read of each head entry's id range finds them on the same page; those
    not found there (a session synced in parts, its first or last entry) are looked up by seq.
    """
    read = queries.near(record, head, CONTEXT_CHARS)
    by_id = {r[0]: r for r in read}
    rows = [by_id[entry_id][:7] for entry_id in head if entry_id in by_id]
    texts = {(r[1], r[2]): r[4] for r in read if r[7]}
    missing = {(r[1], seq) for r in rows for seq in (r[2] - 1, r[2] + 1)
               if seq >= 1 and (r[1], seq) not in texts}
    if missing:
        texts.update({(r[0], r[1]): r[2] for r in queries.heads(record, list(missing), CONTEXT_CHARS)})
    wanted = {_stem(w.strip('"')) for w in fts.split(" OR ")}
    # Which wanted stems each text holds: a substring test per stem, and a word-boundary check only where
    # it passes (splitting every text into words took 5 ms of a 10 ms query).
    stems: dict[tuple[int, int], set[str]] = {}
    for key, text in texts.items():
        lower = text.lower()
        stems[key] = {w for w in wanted if w in lower and _as_word(w).search(lower) is not None}
    words = " ".join(query.lower().strip().strip('"').split())
    # Whole words only ("at is" is not inside "that is"); one word: coverage says it all.
    phrase = re.compile(rf"(?<!\w){re.escape(words)}(?!\w)") if " " in words else None
    lengths = {r[0]: math.log1p(min(r[3], LENGTH_CAP)) for r in rows}
    mean_length = sum(lengths.values()) / max(len(lengths), 1)
    bonus: dict[int, float] = {}
    for entry_id, session, seq, _, text, author, kind in rows:
        around = stems[(session, seq)].union(
            stems.get((session, seq - 1), set()), stems.get((session, seq + 1), set())
        )
        coverage = len(wanted & around) / max(len(wanted), 1)
        # Scaled like the word score, so a tool output repeating the owner's words stays below them.
        weight = WEIGHTS.get((author, kind), 0.7) / WEIGHTS[("owner", "message")]
        length = lengths[entry_id] - mean_length
        typed = phrase is not None and phrase.search(" ".join(text.lower().split())) is not None
        bonus[entry_id] = weight * (COVERAGE_WEIGHT * coverage + PHRASE_WEIGHT * typed
                                    + LENGTH_WEIGHT * length + ASKING_WEIGHT * ("?" in text))
    return bonus


_SUFFIXES = ("", "ing", "ed", "es", "s", "ly")


@functools.lru_cache(maxsize=512)
def _as_word(stem: str) -> re.Pattern[str]:
    """The stem as a whole word, bare or with one of _SUFFIXES."""
    endings = "|".join(re.escape(s) for s in _SUFFIXES if s)
    return re.compile(rf"(?<!\w){re.escape(stem)}(?:{endings})?(?!\w)")


def _stem(word: str) -> str:
    """A crude suffix strip, so "practicing" meets "practiced" (the index's porter stems are not exposed)."""
    for suffix in _SUFFIXES[1:]:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


@dataclass(frozen=True, slots=True)
class _Scope:
    """The filter tags of a search: a clause per filter but the sessions, and the sessions the filters
    name with the first and last entry id of each (None: they name none); whether they pinpoint
    sessions (few entries carry them); every filter as conditions on each entry (None when nothing
    narrows the search)."""

    groups: tuple[str, ...]
    sessions: tuple[queries.SessionSpan, ...] | None
    pinpoint: bool
    where: Conditions | None = None

    def skips(self, shard: Shard) -> bool:
        """Whether no session the filters name has entries in the shard (nothing there can match)."""
        return self.sessions is not None and not any(shard.holds(a, b) for _, a, b in self.sessions)

    def tags(self, shard: Shard) -> str | None:
        """The tag clause in `shard`: a project's sessions cost FTS5 a list each, so only those with
        entries there are named."""
        clauses = list(self.groups)
        if self.sessions is not None:
            clauses.append(_any([f"s_{n}" for n, a, b in self.sessions if shard.holds(a, b)] or ["s_0"]))
        return " AND ".join(clauses) or None

    def matched(self, fts: str, shard: Shard) -> str:
        """The words in the text column, intersected with the tags: which entries of `shard` match."""
        text = f"text : ({fts})"
        tags = self.tags(shard)
        return f"({text}) AND (tag : ({tags}))" if tags else text

    def ranked(self, record: Record, shard: Shard, fts: str, floor: int) -> str:
        """What bm25 runs over in `shard`, given the oldest match kept there.

        Before scoring, bm25 counts every entry of the shard holding each phrase it runs over: a broad
        tag (`a_agent`, `h_codex`: a third of the record) costs 10–20 ms to count and adds nothing to the
        score (its column weighs 0). Without the tags, bm25 walks every match of the words newer than
        `floor` and the tags are checked beside it: cheap where the tagged entries are dense among recent
        matches, dear where they are not (a session, a harness whose sessions are all old), so the tags
        stay where the walk would pass more than WALKED matches.
        """
        words = f"text : ({fts})"
        if not self.tags(shard):
            return words
        if self.pinpoint:
            return self.matched(fts, shard)
        newest, oldest, kept = queries.newest_span(record, shard, words, SCORED)
        if kept < SCORED:
            return words  # every match of the words is walked anyway
        walked = SCORED * (newest - floor) / max(newest - oldest, 1)
        return words if walked <= WALKED else self.matched(fts, shard)


def _spans(record: Record, sessions: list[int] | None) -> tuple[queries.SessionSpan, ...] | None:
    """The first and last entry id of each session named that has entries (None: none named)."""
    return None if sessions is None else queries.session_spans(record, sessions)


Row = Scored  # id, session, seq, author, kind, bm25


def _words(
    record: Record, fts: str, scope: _Scope, where: Conditions | None, known: facts.Facts
) -> list[int]:
    # bm25 costs a few microseconds per matching entry: a word found in 100,000 entries would take
    # most of a second. Past SCORED matches, only the newest SCORED are ranked (found by walking the
    # match lists by rowid, newest shard first, which needs no scoring): vague queries favour recent
    # work. What stays is FTS5's own first pass of bm25, which counts every entry of a shard holding
    # each phrase it ranks by to weigh it: a few ms for common words in a shard.
    rows = _sparse(record, fts, scope, where)
    if rows is None:
        rows = _index_only(record, fts, scope, known) if where is None else _joined(record, fts, scope, where)
    # bm25 is negative, better when lower: flip it, weight it by who wrote the entry, then let each
    # entry borrow from its best neighbour in the same session (an answer sits next to its question).
    # In (session, seq) order an entry's neighbours among the rows sit right beside it.
    own = sorted((r[1], r[2], -r[5] * WEIGHTS.get((r[3], r[4]), 0.7), r[0]) for r in rows)
    last = len(own) - 1
    smoothed = []
    for at, (session, seq, score, entry_id) in enumerate(own):
        near = 0.0
        if at and own[at - 1][0] == session and own[at - 1][1] == seq - 1:
            near = own[at - 1][2]
        if at < last and own[at + 1][0] == session and own[at + 1][1] == seq + 1 and own[at + 1][2] > near:
            near = own[at + 1][2]
        smoothed.append((-(score + NEIGHBOUR * near), entry_id))
    smoothed.sort()
    return [entry_id for _, entry_id in smoothed[:CANDIDATES]]


def _walk(
    record: Record, scope: _Scope | None, fts: str, need: int, where: Conditions | None = None
) -> list[tuple[Shard, int, int]]:
    """The shards holding the newest `need` matches of the words (within `scope`'s tags, unless None;
    passing `where` when given), newest first, each with the oldest rowid of them it holds (0: all its
    matches) and their count. Walking a match list by rowid needs no scoring."""
    found: list[tuple[Shard, int, int]] = []
    for shard in queries.word_shards(record):
        if need <= 0:
            break
        if scope is not None and scope.skips(shard):
            continue
        query = scope.matched(fts, shard) if scope is not None else f"text : ({fts})"
        oldest, count = queries.newest_reach(record, shard, query, need, where)
        if count:
            found.append((shard, oldest if count == need else 0, count))
        need -= count
    return found


def _best(rows: list[Row]) -> list[Row]:
    """The POOL best of rows ranked shard by shard (bm25 weighs words by each shard's counts:
    close across shards of the same record, not equal)."""
    return sorted(rows, key=operator.itemgetter(5, 0))[:POOL]


_BY_SCORE = operator.itemgetter(1, 0)  # (id, bm25) rows: best first, then oldest


def _rows_of(known: facts.Facts, record: Record, ranked: list[tuple[int, float]]) -> list[Row]:
    """The ranked (id, bm25) as rows (in no particular order), the facts read by earlier searches taken
    from memory."""
    score = dict(ranked)
    return [(*fact, score[fact[0]]) for fact in known.of(record, list(score))]


def _about(record: Record, ranked: list[tuple[int, float]], where: Conditions) -> list[Row]:
    """The ranked (id, bm25) passing `where`, as rows (in no particular order)."""
    if not ranked:
        return []
    score = dict(ranked)
    return [(*r, score[r[0]]) for r in queries.facts_passing(record, list(score), where)]


def _sparse(record: Record, fts: str, scope: _Scope, where: Conditions | None) -> list[Row] | None:
    """As `_index_only`, for filtered words that match fewer than SPARSE entries in all: every match
    ranked, then the filters applied to those few in SQL. None when the words match more.

    A filter in the query costs more than such words: bm25 counts every entry of each tag it runs over
    (a project's tags name up to MAX_TAGGED_SESSIONS sessions), and a `since` joins every match with
    its entry; the word lists of a rare word under a project filter took 10–13 ms that way on a million
    entries, 1–4 ms so.
    The scores are the same (the tag column weighs nothing in bm25), and so is what passes the filters.
    """
    conditions = where if where is not None else scope.where
    if conditions is None or any(" " in term for term in fts.split(" OR ")):
        # Nothing to filter (_index_only ranks the words alone already), or a phrase: a phrase of
        # common pieces ("4 13 18" of a version) is dear to find in every shard, cheap where the
        # filter's tags narrow it first.
        return None
    words = f"text : ({fts})"
    walked = _walk(record, None, fts, SPARSE)
    if sum(count for _, _, count in walked) >= SPARSE:
        return None
    ranked = [row for shard, _, _ in walked for row in queries.scored_matches(record, shard, words)]
    return _best(_about(record, ranked, conditions))


def _index_only(record: Record, fts: str, scope: _Scope, known: facts.Facts) -> list[Row]:
    """(id, session, seq, author, kind, bm25) of the best matches, ranked in the word index alone; only
    the pool kept is looked up (in `known`, else in entry_facts)."""
    ranked: list[tuple[int, float]] = []
    if scope.pinpoint or (not scope.groups and scope.sessions is None):
        # bm25 runs over what is walked: one pass, newest first, scoring only the SCORED kept.
        for shard in queries.word_shards(record):
            if len(ranked) >= SCORED:
                break
            if not scope.skips(shard):
                matched = scope.matched(fts, shard)
                ranked += queries.newest_scored(record, shard, matched, SCORED - len(ranked))
        return _rows_of(known, record, sorted(ranked, key=_BY_SCORE)[:POOL])
    for shard, floor, _ in _walk(record, scope, fts, SCORED):
        matched = scope.matched(fts, shard)
        ranked_over = scope.ranked(record, shard, fts, floor)
        among = None if ranked_over == matched else matched
        ranked += queries.best_matches(record, shard, ranked_over, floor, POOL, among)
    return _rows_of(known, record, sorted(ranked, key=_BY_SCORE)[:POOL])


def _joined(record: Record, fts: str, scope: _Scope, where: Conditions) -> list[Row]:
    """As `_index_only`, with SQL conditions on every match (a time window, a wide project); the
    conditions apply every filter, so the tags only narrow the walk. Where bm25 runs over the words
    alone, the tags are still checked beside it before a match is joined with its entry."""
    rows: list[Row] = []
    for shard, floor, _ in _walk(record, scope, fts, SCORED, where):
        matched = scope.matched(fts, shard)
        ranked_over = scope.ranked(record, shard, fts, floor)
        among = None if ranked_over == matched else matched
        rows += queries.best_passing(record, shard, ranked_over, floor, POOL, where, among)
    return _best(rows)


def _error_lines(record: Record, fts: str, ranked: list[int]) -> list[int]:
    """Tool outputs among the word candidates whose error lines hold the query's words, most first.

    The exact line a person asks back for ("what did the renewal error say?") often sits in a long tool
    output that length normalization pushes down; its own line is short and says it all.
    """
    head = ranked[:ERROR_DEPTH]
    words = {w.strip('"') for w in fts.split(" OR ")}
    if not head or len(words) < 2:
        return []  # one word ("failed") does not yet ask for a particular line
    found: dict[int, int] = {}
    for entry_id, line in queries.error_lines(record, head):
        lower = line.lower()
        found[entry_id] = max(found.get(entry_id, 0), sum(w in lower for w in words))
    position = {entry_id: n for n, entry_id in enumerate(head)}
    hits = [e for e, n in found.items() if n >= 2]
    return sorted(hits, key=lambda e: (-found[e], position[e]))


def _exact(record: Record, tokens: list[str], where: Conditions | None,
           sessions: tuple[queries.SessionSpan, ...] | None = None, query: str = "") -> list[int]:
    """Entries holding an exact string that is, or starts with, a token (a hash fragment, a path tail);
    `where` None: no filter to join entries for. Where the query goes on after a token ("TypeError:
    Cannot read"), the strings starting with all of it are looked up first: an error line's first word
    opens thousands of them. With the sessions the filters name (and the first and last entry id of
    each), a string outside their ids is passed over before it is joined."""
    within = None if sessions is None else _merged([(a, b) for _, a, b in sessions])

    def starting(key: str) -> list[int]:
        return queries.strings_starting(record, key, CANDIDATES, where, within)

    found: list[int] = []
    for token in dict.fromkeys(tokens):
        key = token.strip(".,;:!?\"'`()[]{}<>")
        if len(key) < 3:
            continue
        opening = _opening(query, token)
        rows = (opening and starting(opening)) or starting(key)
        seen = set(found)
        found.extend(r for r in rows if r not in seen)
    return found


def _opening(query: str, token: str) -> str | None:
    """The query from `token` to its end, when more words follow it (the start of a line asked back)."""
    at = query.find(token)
    rest = " ".join(query[at:].split()).rstrip(".,;:!?\"'`)]}>") if at >= 0 else ""
    return rest if " " in rest and len(rest) >= len(token) + 4 else None


def _merged(ranges: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Id ranges with the overlapping ones joined."""
    joined: list[tuple[int, int]] = []
    for a, b in sorted(ranges):
        if joined and a <= joined[-1][1] + 1:
            joined[-1] = (joined[-1][0], max(joined[-1][1], b))
        else:
            joined.append((a, b))
    return joined


def _phrases(
    record: Record, tokens: list[str], scope: _Scope, where: Conditions | None, phrases: Sequence[str] = (),
    most: int = CANDIDATES,
) -> list[int]:
    """Exact-looking tokens through the word index, which covers every byte: a path or URL as the
    phrase of its words, a hex fragment as a prefix; newest first, as the exact index gives them.

    Not ranked by bm25: it would count the entries holding each phrase in every shard, and a phrase
    of common pieces ("us east 2 example com" of a host) is dear to count where it is rare. `phrases`:
    FTS5 phrases looked for beside them; at most `most` entries."""
    terms = list(phrases)
    for token in dict.fromkeys(tokens):
        words = [w.lower() for w in _WORD.findall(token)]
        if len(words) == 1 and len(words[0]) >= 4:
            terms.append(f'"{words[0]}"*')
        elif len(words) > 1:
            terms.append('"' + " ".join(words) + '"')
    if not terms:
        return []
    terms = list(dict.fromkeys(terms))
    found: list[int] = []
    for shard in queries.word_shards(record):
        if scope.skips(shard):
            continue
        query = scope.matched(" OR ".join(terms), shard)
        found += queries.newest_matches(record, shard, query, most - len(found), where)
        if len(found) >= most:
            break
    return found


def _hits(record: Record, ids: list[int], fused: dict[int, float], fts: str | None,
          wanted: Sequence[verbatim.Part] = ()) -> list[Hit]:
    if not ids:
        return []
    rows = {r.id: r for r in queries.hit_rows(record, ids)}
    words = [w.strip('"') for w in fts.split(" OR ")] if fts else []
    exact = [p.text for p in wanted]
    hits = []
    for entry_id in ids:
        r = rows.get(entry_id)
        if r is None:  # the index names an entry the record no longer returns: a damaged page
            raise RecordError(f"{record.path}: not a usable record: entry {entry_id} is in the word index "
                              "but cannot be read (damaged? `index --rebuild` rebuilds the index from the "
                              "record)")
        hits.append(Hit(
            address=f"s{r.session}#{r.seq}", session=r.session, seq=r.seq, harness=r.harness, author=r.author,
            kind=r.kind, timestamp=r.timestamp, score=round(fused[entry_id], 6),
            snippet=snippet(r.text, words, exact),
        ))
    return hits
