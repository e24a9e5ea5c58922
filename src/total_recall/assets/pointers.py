"""The push: up to five pointers to what the owner owns, placed before a turn; none when nothing clears the
relevance bar (a correct answer: a pointer that helps nothing costs tokens every turn).

Scoring, per key: the summed idf of the request's terms the key holds over the geometric mean of the
key's and the request's summed idf (a cosine over binary terms); an asset scores its best key. Only the
owner's own words of the message count (record/spans: a paste is not his). The named slot, decided here in
code: an asset the message names (a name or alias, as a run of its words; a one-word everyday name only
beside a kind word — "the deploy skill") comes first whatever its score. The overlay: the owner's messages
newer than the last rebuild are read on every push (kept per process until the record grows) and their
corrections and mutes applied at once, so a correction counts on the very next push.

Cost: a push runs a handful of indexed lookups on the record (name keys by words, term counts, the keys
holding the rarer terms summed and cut at the bar in SQL, the held-back entries, the mute log), so a process
calling it once (the hook) pays no load of the index. One calling it again holds the postings in memory
(loaded once a build, ~0.2 s at 10,000 assets): a common term's thousand postings cost milliseconds in SQL,
and set intersections and a bisection by weight find the few keys that may clear the bar.
"""

from __future__ import annotations

import math
import re
from bisect import bisect_right
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from total_recall.assets import meaning as meant
from total_recall.assets.asset import Pointer, Push, Setup, Why
from total_recall.assets.corrections import Mute, called_names, corrections, mutes, owner_words
from total_recall.assets.eligibility import Reader, eligible, muted_assets, muted_names, push_off, reader_of
from total_recall.assets.uses import ran_names, used_name
from total_recall.assets.words import (
    KIND_WORDS,
    grams,
    normal_name,
    plain_word,
    shorten,
    terms,
    tokens,
    use_clauses,
)
from total_recall.errors import SearchError
from total_recall.record import assets as table
from total_recall.record.database import Record
from total_recall.record.spans import owner_spans
from total_recall.tokens import estimate_tokens

MAX_POINTERS = 5
# The head of a message a push reads: the owner's words lead; a 1 MB paste behind them adds nothing.
MESSAGE_CHARS = 16_384
QUERY_TERMS = 64
NAME_TOKENS = 400
BAR = 0.3  # the relevance bar a score must clear
EVIDENCE = 2.5  # and the summed idf of the words it matched (one rare word, or two common ones)
LINE_TOKENS = 44
# A term held by more keys than this share of them is too common to look up (it still counts in the norm).
COMMON_SHARE = 0.05
FIELD_WEIGHT = {"name": 1.0, "use": 1.0, "topic": 0.8}
CO_ACCESS_SHARE = 0.5
# An index of this many keys or more is held in memory by a process pushing again (`_scored_keys`).
HELD_KEYS = 5_000


@dataclass(slots=True)
class _Scored:
    score: float
    why: Why
    evidence: float


@dataclass(frozen=True, slots=True)
class _OverlayKey:
    asset: int
    terms: tuple[str, ...]
    entry: int
    via: int
    scope: str | None  # the project of the session that said it
    text: str = ""  # what the owner asked: the push by meaning embeds it as a rebuild would


@dataclass(frozen=True, slots=True)
class _OverlayName:
    asset: int
    norm: str  # what the owner called it, as a normal name
    entry: int
    scope: str | None


@dataclass(frozen=True, slots=True)
class _Overlay:
    keys: tuple[_OverlayKey, ...]
    mutes: tuple[tuple[Mute, int, str | None], ...]  # each with the entry that said it, and its time
    names: tuple[_OverlayName, ...] = ()


_overlays: dict[tuple[str, int, int], _Overlay] = {}


def push(record: Record, text: str, *, session: int | None = None, cwd: str | None = None,
         setup: Setup = Setup.FULL, limit: int = MAX_POINTERS, meaning: bool | None = None,
         subagent: bool = False, harness: str | None = None) -> Push:
    """Up to `limit` (at most 5) pointers for the owner's message `text`, best first. What the message
    itself mutes ("don't bring up X") is kept out already (`subagent`, `harness`: see `reader_of`).

    `meaning`: score by meaning too (`meaning.py`), fused with the words; None: in the FULL setup, when
    the index holds key vectors and the vectors extra loads (the first such push in a process loads the
    model, ~0.8 s: the per-prompt hook says False).

    Raises:
        AddressError: `session` names no session.
        SearchError: `limit` outside 0..5.
    """
    if not 0 <= limit <= MAX_POINTERS:
        raise SearchError(f"limit must be 0 to {MAX_POINTERS}, not {limit}")
    if push_off(record):
        return Push([], 0, off=True)
    reader = reader_of(record, session, cwd, subagent=subagent, harness=harness)
    build = table.last_build(record)
    head = text[:MESSAGE_CHARS]
    words = owner_words(head, owner_spans(head))
    if build is None or limit == 0 or not words:
        return Push([], 0)
    overlay = _overlay(record, build)
    muted = muted_assets(record, muted_names(record, _said(record, overlay), mutes(words, _known(record))))
    scores = _scores(record, build, words, setup, overlay, reader)
    if setup.has(Setup.CO_ACCESS):
        _co_access(record, scores, reader, setup)
    named = _named(record, words, reader, overlay) if setup.has(Setup.NAMED_SLOT) else []
    wanted = [a for a, s in scores.items() if s.score >= BAR and s.evidence >= EVIDENCE]
    companions: list[int] = []
    if meaning or (meaning is None and setup is Setup.FULL and meant.usable(record)):
        wanted, companions = _fused(record, build, words, reader, scores, set(wanted), setup, overlay)
    wanted = sorted(wanted, key=lambda a: -scores[a].score)[: limit * 4]
    companions = sorted(companions, key=lambda a: -scores[a].score)[: limit * 4]
    candidates = table.stored_assets(record, ids=list(dict.fromkeys([*named, *wanted, *companions])))
    shown = {a.id: a for a in eligible(record, candidates, reader, muted)}
    # Companions join only a push an eligible asset opened (one the reader may not see must not bring
    # them: a twin record that never held it would push nothing), and after every asset that cleared.
    cleared = [a for a in wanted if a in shown]
    if cleared:
        cleared += [a for a in companions if a in shown]
    order = [a for a in named if a in shown] + [a for a in cleared if a not in named]
    pointers = []
    for n in order[:limit]:
        a = shown[n]
        scored = scores.get(n, _Scored(0.0, "named", 0.0))
        why: Why = "named" if n in named else scored.why
        pointers.append(Pointer(f"a{a.id}", a.kind, a.name, _line(a), a.source,  # type: ignore[arg-type]
                                round(max(scored.score, 1.0) if n in named else scored.score, 3), why))
    tokens_used = sum(estimate_tokens(p.line) for p in pointers) + max(len(pointers) - 1, 0)
    return Push(pointers, tokens_used)


def _fused(record: Record, build: table.Build, words: str, reader: Reader, scores: dict[int, _Scored],
           cleared: set[int], setup: Setup, overlay: _Overlay) -> tuple[list[int], list[int]]:
    """The assets that clear either bar, each scored by its words and its meaning summed (an asset both
    find ranks above one only one finds), and the companions: those whose meaning reaches only
    `meaning.COMPANION_BAR`, pushed beside a cleared one. The baseline compares with each asset's own
    text only. The overlay's requests count by meaning too, before any rebuild embeds them."""
    query = meant.embedded(words)
    near = meant.nearest(record, build, words, reader, own_only=setup is Setup.BASELINE, query=query)
    keys = [k for k in overlay.keys if k.text and (reader.scopes is None or k.scope in reader.scopes)]
    if setup.has(Setup.OVERLAY) and keys:
        held = table.held_back(record, {e for k in keys for e in (k.entry, k.via)})
        keys = [k for k in keys if k.entry not in held and k.via not in held]
        for k, cosine in zip(keys, meant.cosines(query, [k.text for k in keys]), strict=True):
            near[k.asset] = max(near.get(k.asset, -1.0), cosine)
    companions = []
    for asset, cosine in near.items():
        old = scores.get(asset)
        if asset in cleared and old is not None:
            old.score += cosine
        elif cosine >= meant.COMPANION_BAR:
            scores[asset] = _Scored(cosine + (old.score if old else 0.0), "meaning", EVIDENCE)
            if cosine >= meant.MEANING_BAR:
                cleared.add(asset)
            else:
                companions.append(asset)
    return sorted(cleared), sorted(companions)


def _line(a: table.StoredAsset) -> str:
    """`name — what it is for — address or path`, cut to about 40 tokens. A decision's or an approach's
    name is the index's cut of its own text: the text then says it once (`what it decided — address`)."""
    what = (use_clauses(a.description) or [a.description])[0]
    said_once = a.kind in ("decision", "approach") and a.name.removesuffix("…") in what
    for limit in (160, 120, 90, 60, 40, 20):
        line = f"{shorten(what, limit)} — {a.source}" if said_once \
            else f"{a.name} — {shorten(what, limit)} — {a.source}"
        if estimate_tokens(line) <= LINE_TOKENS:
            return line
    return f"{shorten(a.name, 40)} — {a.source}"


def _idf(n: int, df: int) -> float:
    return math.log(1 + n / max(df, 1))


def _scores(record: Record, build: table.Build, words: str, setup: Setup, overlay: _Overlay, reader: Reader
            ) -> dict[int, _Scored]:
    query = terms(words)[:QUERY_TERMS]
    if not query:
        return {}
    scopes = reader.scopes
    # A reader of some projects only counts the keys it may see, so what it may not see moves no score.
    n = max(build.keys if scopes is None else table.key_count(record, scopes), 1)
    df = table.term_counts(record, query, scopes)
    idf = {t: _idf(n, df.get(t, 0)) for t in query}
    norm = sum(idf[t] for t in sorted(idf))
    wanted = {t: idf[t] for t in query if 0 < df.get(t, 0) <= max(200, n * COMMON_SHARE)}
    out: dict[int, _Scored] = {}
    if scopes is not None:
        fields = _fields(setup)
        if setup is Setup.BASELINE:
            fields = ("name", "topic")
        _scoped_scores(record, out, sorted(wanted), fields, scopes, n, idf, norm, setup)
    elif setup is Setup.BASELINE:
        for doc in table.scored_documents(record, wanted, norm, BAR):
            score = doc.evidence / math.sqrt(max(doc.weight, 1e-9) * norm)
            _better(out, doc.asset, _Scored(score, "topic", doc.evidence))
        return out
    else:
        for k in _scored_keys(record, build, wanted, norm, _fields(setup), BAR * min(FIELD_WEIGHT.values())):
            score = FIELD_WEIGHT[k.field] * k.evidence / math.sqrt(max(k.weight, 1e-9) * norm)
            _better(out, k.asset, _Scored(score, k.field, k.evidence))  # type: ignore[arg-type]
    keys = [k for k in overlay.keys if scopes is None or k.scope in scopes]
    if setup.has(Setup.OVERLAY) and keys:
        held = table.held_back(record, {e for k in keys for e in (k.entry, k.via)})
        counts = table.term_counts(record, sorted({t for k in keys for t in k.terms}), scopes)
        for ok in keys:
            found = sorted(set(ok.terms) & set(query))
            if not found or ok.entry in held or ok.via in held:
                continue
            evidence = sum(idf[t] for t in found)
            weight = sum(_idf(n, counts.get(t, 0)) for t in sorted(ok.terms))
            score = evidence / math.sqrt(max(weight, 1e-9) * norm)
            _better(out, ok.asset, _Scored(score, "overlay", evidence))
    return out


@dataclass(slots=True)
class _Postings:
    """The index's postings, held by a process that pushes again: each term's keys, lightest first, and
    each key's weight. Keys erased since (the trigger deletes them) are dropped when the few found are
    read back, so only a rebuild makes new ones."""

    keys: dict[str, list[int]]
    weights: dict[str, list[float]]
    weight: dict[int, float]
    sets: dict[str, set[int]]

    @classmethod
    def load(cls, record: Record) -> _Postings:
        weight = table.key_weights(record)
        keys, weights = {}, {}
        for term, held in table.postings(record):
            held = sorted((k for k in held if k in weight), key=weight.__getitem__)
            keys[term], weights[term] = held, [weight[k] for k in held]
        return cls(keys, weights, weight, {})

    def scored(self, idf: dict[str, float], norm: float, floor: float) -> dict[int, float]:
        """The evidence of each key whose cosine reaches `floor`, as `table.scored_keys` finds them. A key
        holding one of the request's terms clears it only when light enough (a bisection of that term's
        keys); those holding several are few (set intersections): no loop over every posting."""
        held = {t: self._set(t) for t in idf if t in self.keys}
        seen: set[int] = set()
        several: set[int] = set()
        for keys in held.values():
            several |= seen & keys
            seen |= keys
        found = {k: sum(v for t, v in idf.items() if t in held and k in held[t]) for k in several}
        for t in held:
            lightest = idf[t] * idf[t] / (floor * floor * norm) * (1 + 1e-9)
            found.update((k, idf[t]) for k in self.keys[t][: bisect_right(self.weights[t], lightest)]
                         if k not in several)
        return {k: e for k, e in sorted(found.items()) if e * e >= floor * floor * self.weight[k] * norm}

    def _set(self, term: str) -> set[int]:
        if (found := self.sets.get(term)) is None:
            found = self.sets[term] = set(self.keys[term])
        return found


_postings: dict[tuple[str, int], _Postings | None] = {}


def _scored_keys(record: Record, build: table.Build, idf: dict[str, float], norm: float,
                 fields: tuple[str, ...], floor: float) -> list[table.KeyScore]:
    """`table.scored_keys`, from the postings held in memory from a process's second push of a build on
    (a common term's thousand postings cost milliseconds in SQL); its first, as the hook's one push, goes
    by SQL and loads nothing, and so does every push of a small index (SQL answers it in a millisecond)."""
    if build.keys < HELD_KEYS:
        return table.scored_keys(record, idf, norm, fields, floor)
    cache = (str(record.path), build.id)
    if cache not in _postings:
        _postings.clear()
        _postings[cache] = None
        return table.scored_keys(record, idf, norm, fields, floor)
    held = _postings[cache]
    if held is None:
        held = _postings[cache] = _Postings.load(record)
    found = held.scored(idf, norm, floor)
    return [table.KeyScore(asset, field, origin, found[key], held.weight[key])
            for key, asset, field, origin in table.live_keys(record, list(found), fields)]


def _fields(setup: Setup) -> tuple[str, ...]:
    if setup.has(Setup.USES):
        return ("name", "topic", "use")
    return ("topic", "name") if setup.has(Setup.NAMES) else ("topic",)


def _scoped_scores(record: Record, out: dict[int, _Scored], wanted: list[str], fields: tuple[str, ...],
                   scopes: frozenset[str | None], n: int, idf: dict[str, float], norm: float,
                   setup: Setup) -> None:
    """The scores of a scoped reader's keys, every weight counted over the keys it may see (the SQL path's
    stored weights count them all). The baseline's document is an asset's own name and description keys."""
    found = table.scoped_keys(record, wanted, fields, scopes)
    if setup is Setup.BASELINE:
        found = [k for k in found if k.origin == "store"]
    counts = table.term_counts(record, sorted({t for k in found for t in k.terms}), scopes)
    asked = set(wanted)
    if setup is Setup.BASELINE:
        docs: dict[int, set[str]] = {}
        for k in found:
            docs.setdefault(k.asset, set()).update(k.terms)
        for asset, held_terms in docs.items():
            weight = sum(_idf(n, counts.get(t, 0)) for t in sorted(held_terms))
            evidence = sum(idf[t] for t in sorted(held_terms & asked))
            _better(out, asset, _Scored(evidence / math.sqrt(max(weight, 1e-9) * norm), "topic", evidence))
        return
    for k in found:
        weight = sum(_idf(n, counts.get(t, 0)) for t in k.terms)
        evidence = sum(idf[t] for t in k.terms if t in asked)
        score = FIELD_WEIGHT[k.field] * evidence / math.sqrt(max(weight, 1e-9) * norm)
        _better(out, k.asset, _Scored(score, k.field, evidence))  # type: ignore[arg-type]


def _better(out: dict[int, _Scored], asset: int, scored: _Scored) -> None:
    old = out.get(asset)
    if old is None or scored.score > old.score:
        out[asset] = scored


def _co_access(record: Record, scores: dict[int, _Scored], reader: Reader, setup: Setup) -> None:
    """Assets linked to a strong candidate (used with it before) share its score; in FULL, the assets
    this session already used lend theirs a little too."""
    strong = sorted((a for a, s in scores.items() if s.score >= BAR and s.evidence >= EVIDENCE),
                    key=lambda a: -scores[a].score)[:MAX_POINTERS]
    lent: dict[int, _Scored] = {}
    for a, b, weight in table.links_of(record, strong, reader.scopes):
        src = scores[a]
        _better(lent, b, _Scored(CO_ACCESS_SHARE * weight * src.score, "co-access", src.evidence))
    if setup is Setup.FULL and reader.session is not None:
        used = {a for a, _ in table.session_uses(record, reader.session)}
        for _, b, weight in table.links_of(record, sorted(used), reader.scopes):
            if b in scores:
                scores[b].score += 0.1 * weight
    for asset, scored in lent.items():
        if asset not in scores or scores[asset].score < scored.score:
            scores[asset] = scored


def _named(record: Record, words: str, reader: Reader, overlay: _Overlay) -> list[int]:
    """The assets the message names (by the index's names, or what the owner called them since), in the
    order it names them."""
    said = tokens(words)[:NAME_TOKENS]
    runs = set(grams(said, 5))
    found = [(normal_name(k.text), k.asset) for k in table.named_keys(record, sorted(runs), reader.scopes)]
    scopes = reader.scopes
    late = [n for n in overlay.names if n.norm in runs and (scopes is None or n.scope in scopes)]
    if late:
        held = table.held_back(record, {n.entry for n in late})
        found += [(n.norm, n.asset) for n in late if n.entry not in held]
    if not found:
        return []
    out: list[tuple[int, int]] = []
    for norm, asset in found:
        size = len(norm.split())
        for i in range(len(said) - size + 1):
            if " ".join(said[i:i + size]) != norm:
                continue
            beside = set(said[max(i - 2, 0):i] + said[i + size:i + size + 2])
            if plain_word(norm) and not beside & KIND_WORDS:
                continue
            out.append((i, asset))
            break
    return list(dict.fromkeys(a for _, a in sorted(out)))


def _overlay(record: Record, build: table.Build) -> _Overlay:
    """The corrections, uses and mutes newer than the build (cached until the record grows), read as the
    rebuild reads them: a correction's request, the request before a use (the one before that when the
    owner's last words only pointed at it) become keys, and what he called the asset then a name of it."""
    newest = record.newest_entry()
    cache = (str(record.path), build.id, newest)
    if (hit := _overlays.get(cache)) is not None:
        return hit
    keys: list[_OverlayKey] = []
    said: list[tuple[Mute, int, str | None]] = []
    called: list[_OverlayName] = []

    known = _known(record)

    def request(session: int, seq: int) -> tuple[int, int, str] | None:
        before = table.owner_before(record, session, seq)
        words = owner_words(before[2], table.spans_of(record, before[0])) if before else ""
        return (before[0], before[1], words) if before and words else None

    def key(asset: int, said_by: tuple[int, int, str], via: int, session: int) -> None:
        cwd = record.session(session).cwd
        keys.append(_OverlayKey(asset, tuple(terms(said_by[2])), said_by[0], via, cwd, said_by[2]))

    def call(asset: int, names: Iterable[str], entry: int, session: int) -> None:
        cwd = record.session(session).cwd
        called.extend(_OverlayName(asset, n, entry, cwd) for n in map(normal_name, names) if n)

    if newest > build.last_entry:
        spans = table.owner_spans(record, build.last_entry)
        rows = list(table.mined_rows(record, build.last_entry, newest))
        ran = _ran_assets(record, rows)
        for row in rows:
            if row.kind == "tool_call":
                asset = ran.get(row.id) if (name := used_name(row)) is None else _named_asset(record, name)
                last = request(row.session, row.seq)
                if asset is None or last is None:
                    continue
                names = {normal_name(k.text) for k in table.names_of(record, asset)}
                runs = set(grams(tokens(last[2]), 5))
                points = bool(runs & names)
                earlier = request(row.session, last[1])
                steps = table.between(record, row.session, earlier[1], last[1]) if earlier else []
                replied = ("agent", "message") in steps and not any(k == "tool_call" for _, k in steps)
                if earlier is not None and (points or replied):
                    key(asset, earlier, last[0], row.session)
                    # his last words only pointed at it: what he called it there names it, when they name
                    # no known asset and it is the first thing used after them
                    first = not any(k == "tool_call" for _, k in table.between(record, row.session, last[1],
                                                                                 row.seq))
                    if not points and first and not known(runs):
                        call(asset, called_names(last[2]), last[0], row.session)
                if not points:
                    key(asset, last, last[0], row.session)
                continue
            if row.author != "owner" or row.kind != "message":
                continue
            words = owner_words(row.text, spans.get(row.id, []))
            if not words:
                continue
            said.extend((m, row.id, row.ts) for m in mutes(words, known))
            fixes = [c for c in corrections(words) if not c.unnamed]
            before = request(row.session, row.seq)
            if not fixes or before is None:
                continue
            for fix in fixes:
                hits = table.named_keys(record, list(fix.names))
                best = min(hits, key=lambda k: fix.names.index(normal_name(k.text)), default=None)
                if best is not None:
                    key(best.asset, before, row.id, row.session)
                    if fix.said and len(fix.said.split()) <= 4:
                        call(best.asset, [fix.said], row.id, row.session)
    overlay = _Overlay(tuple(keys), tuple(said), tuple(called))
    if len(_overlays) > 16:
        _overlays.clear()
    _overlays[cache] = overlay
    return overlay


def _known(record: Record) -> Callable[[Iterable[str]], set[str]]:
    """Which of some normal names name an asset of the index."""
    def known(norms: Iterable[str]) -> set[str]:
        return {normal_name(k.text) for k in table.named_keys(record, list(norms))}

    return known


def _said(record: Record, overlay: _Overlay) -> list[tuple[Mute, str | None]]:
    """The overlay's mutes (with their times) but those whose entry was erased since it was cached (a
    process keeps it until the record grows): an erase drops the mutes an entry said, as its trigger drops
    them from the log."""
    if not overlay.mutes:
        return []
    gone = table.erased_among(record, [entry for _, entry, _ in overlay.mutes])
    return [(m, at) for m, entry, at in overlay.mutes if entry not in gone]


def muted_now(record: Record) -> set[str]:
    """The names muted now, the owner's words not indexed yet included (what a push keeps out)."""
    build = table.last_build(record)
    return muted_names(record, _said(record, _overlay(record, build)) if build is not None else ())


def _named_asset(record: Record, name: str) -> int | None:
    hits = table.named_keys(record, [name])
    return hits[0].asset if hits else None


def _ran_assets(record: Record, rows: list[table.MinedRow]) -> dict[int, int]:
    """The script each shell call runs or the machine it reaches (by a name the index knows for one of
    those kinds), by the call's entry. Only calls whose text holds such a name are parsed, and the names
    are looked up at once: a day's thousand calls cost the hook next to nothing."""
    known = [a.name for kind in ("tool", "machine") for a in table.stored_assets(record, kind)]
    if not known:
        return {}
    holds = re.compile("|".join(re.escape(n) for n in sorted(set(known), key=len, reverse=True)))
    runs = {r.id: ran_names(r) for r in rows if r.kind == "tool_call" and holds.search(r.text)}
    names = sorted({n for files, hosts in runs.values() for n in (*files, *hosts)})
    hits = table.named_keys(record, names) if names else []
    kinds = {a.id: a.kind for a in table.stored_assets(record, ids=[k.asset for k in hits])}
    found: dict[tuple[str, str | None], int] = {}
    for k in hits:
        found.setdefault((normal_name(k.text), kinds.get(k.asset)), k.asset)
    out = {}
    for entry, (files, hosts) in runs.items():
        wanted = [(n, "tool") for n in files] + [(n, "machine") for n in hosts]
        if (asset := next((found[w] for w in wanted if w in found), None)) is not None:
            out[entry] = asset
    return out


def search_assets(record: Record, text: str, *, session: int | None = None, cwd: str | None = None,
                  limit: int = 20, harness: str | None = None) -> list[Pointer]:
    """The asset search route: the same scoring, bar and eligibility as the push, without its cap of five
    (`limit` 1..100) and without the named slot."""
    if not 1 <= limit <= 100:
        raise SearchError(f"limit must be 1 to 100, not {limit}")
    reader = reader_of(record, session, cwd, harness=harness)
    build = table.last_build(record)
    words = owner_words(text[:MESSAGE_CHARS], owner_spans(text[:MESSAGE_CHARS]))
    if build is None or not words:
        return []
    overlay = _overlay(record, build)
    scores = _scores(record, build, words, Setup.FULL, overlay, reader)
    muted = muted_assets(record, muted_names(record, _said(record, overlay)))
    ranked = sorted((a for a, s in scores.items() if s.evidence > 0), key=lambda a: -scores[a].score)
    candidates = table.stored_assets(record, ids=ranked[: limit * 4])
    shown = {a.id: a for a in eligible(record, candidates, reader, muted)}
    return [Pointer(f"a{n}", shown[n].kind, shown[n].name, _line(shown[n]), shown[n].source,  # type: ignore[arg-type]
                    round(scores[n].score, 3), scores[n].why) for n in ranked if n in shown][:limit]
