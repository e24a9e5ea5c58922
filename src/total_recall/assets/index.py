"""The asset index: rebuilt whole from the record and the config roots, kept in the record's own tables
(record/assets.py, migration m018), listed by `assets`, muted by `mute`/`unmute`.

A rebuild reads the harnesses' config roots (read-only), mines the record, derives the four kinds of key
(names, topics, use keys, co-access links) with where each came from, and replaces the index in one
transaction; an asset found again keeps its number. The mute log outlives rebuilds.
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime, timedelta
from pathlib import Path

from total_recall.assets.asset import Asset, AssetReport, Draft, Key, KeyDraft, Keys
from total_recall.assets.corrections import called_names, corrections, mutes, owner_words
from total_recall.assets.decisions import decisions
from total_recall.assets.discovery import config_roots, discover
from total_recall.assets.eligibility import PUSH_OFF, eligible, muted_assets, reader_of
from total_recall.assets.meaning import key_vectors
from total_recall.assets.mined import Mined, Turn, Use, mine, scrubbed, sessions_turns
from total_recall.assets.pointers import muted_now
from total_recall.assets.words import grams, normal_name, shorten, terms, tokens
from total_recall.errors import SearchError
from total_recall.record import assets as table
from total_recall.record.assets import MinedRow
from total_recall.record.database import Record

TOPIC_TERMS = 40  # a topic key keeps its first 40 content words: a manual's tail says little about its use
UNNAMED_REACH = 12  # "there's a script for that" names the asset used within the next 12 entries
SESSION_LINKS = 30  # co-access pairs are made among a session's first 30 distinct assets


# A sync rebuilds the index when it is this old (or was never built): new skills in a config root and the
# owner's older corrections reach it at least daily; corrections since the last rebuild count at once anyway
# (the push's overlay).
REBUILD_AFTER = timedelta(hours=24)


def rebuild_if_due(record: Record, now: datetime | None = None, *,
                   meaning: bool = True) -> AssetReport | None:
    """`rebuild` when the index was never built or is older than REBUILD_AFTER; None when it is fresh."""
    last = table.last_build(record)
    moment = now or datetime.now(UTC)
    if last is not None:
        built = datetime.fromisoformat(last.at.replace("Z", "+00:00"))
        if built.tzinfo is None:
            built = built.replace(tzinfo=UTC)
        if moment - built < REBUILD_AFTER:
            return None
    return rebuild(record, meaning=meaning)


def rebuild(record: Record, roots: Mapping[str, Path | Iterable[Path]] | None = None, *,
            env: Mapping[str, str] | None = None, meaning: bool = True) -> AssetReport:
    """Rebuild the index from the record and the config roots (`roots`: harness → config root(s); None:
    derived from the environment, see `discovery.config_roots`). With the vectors extra (and `meaning`),
    every use key and every asset's name and description is embedded too, for the push by meaning.

    It reads the record outside any transaction and writes seconds later: an entry erased meanwhile gives
    nothing to the index (`table.store_build` leaves out, under its write lock, what the erase's triggers
    would have dropped)."""
    started = time.perf_counter()
    found_roots = config_roots(env) if roots is None else {
        h: [r] if isinstance(r, Path) else list(r) for h, r in roots.items()}
    last = record.newest_entry()
    found = discover(found_roots, table.known_cwds(record))
    spans = table.owner_spans(record)
    rows = list(table.mined_rows(record, 0, last))
    words = {r.id: w for r in rows if r.author == "owner" and r.kind == "message"
             and (w := owner_words(r.text, spans.get(r.id, [])))}
    cwds = {s.number: s.cwd for s in record.sessions()}
    turns = sessions_turns(rows, cwds, words)
    named = {normal_name(k.text): d.identity for d in found.drafts for k in d.keys if k.field == "name"}
    mined = mine(turns, named)
    drafts = _merged([*found.drafts, *mined.drafts, *decisions(turns, spans)])
    by_identity = {d.identity: d for d in drafts}
    by_name: dict[str, Draft] = {}
    for d in drafts:
        for k in d.keys:
            if k.field == "name":
                by_name.setdefault(normal_name(k.text), d)
    _corrections(turns, mined, by_name, by_identity)
    _helped(turns, _visible_uses(mined, drafts, rows), by_identity, by_name)
    links = _links(mined, cwds)

    def known(norms: Iterable[str]) -> set[str]:
        return {n for n in norms if n in by_name}

    mute_rows = [(m.name, m.action, _ts(t, entry), entry) for t in turns for entry, w in t.words.items()
                 for m in mutes(w, known)]
    stored = _stored(drafts, {r.id: cwds.get(r.session) for r in rows})
    texts = [t for row, keys, _ in stored for t in (table.described(row), *(k.text for k in keys
                                                                              if k.field == "use"))]
    vectors = key_vectors(texts, table.stored_vectors(record)) if meaning else {}
    table.store_build(record, stored, links, [(u.identity, u.entry, u.session) for u in mined.uses],
                      mute_rows, last, found.warnings, vectors)
    report = AssetReport(warnings=found.warnings, links=len(links), mutes=len(mute_rows))
    for row, keys, _ in stored:
        report.assets[row.kind] = report.assets.get(row.kind, 0) + 1
        for stored_key in keys:
            report.keys[stored_key.field] = report.keys.get(stored_key.field, 0) + 1
    report.seconds = time.perf_counter() - started
    return report


def _merged(drafts: list[Draft]) -> list[Draft]:
    """One draft per identity (the last found wins, with every key and source of the others)."""
    out: dict[str, Draft] = {}
    for d in drafts:
        if (old := out.get(d.identity)) is not None:
            for k in old.keys:
                d.key(k.field, k.text, address=k.address, path=k.path, entry=k.entry, via=k.via,
                      origin=k.origin)
            d.sources |= old.sources
        out[d.identity] = d
    return list(out.values())


def _ts(turn: Turn, entry: int) -> str:
    return next((r.ts for r in turn.rows if r.id == entry), None) or ""


def _address(turn: Turn, entry: int) -> str:
    return f"s{turn.session}#{next(r.seq for r in turn.rows if r.id == entry)}"


def _request(turn: Turn, before_seq: int) -> tuple[int, str] | None:
    """The owner's last message with words of his own before `before_seq` (entry id, words)."""
    row = _owner_row(turn, before_seq)
    return None if row is None else (row.id, turn.words[row.id])


def _owner_row(turn: Turn, before_seq: int) -> MinedRow | None:
    for r in reversed(turn.rows):
        if r.seq < before_seq and r.id in turn.words:
            return r
    return None


def resolve(names: Iterable[str], by_name: Mapping[str, Draft]) -> Draft | None:
    for name in names:
        if name in by_name:
            return by_name[name]
    return None


def _corrections(turns: list[Turn], mined: Mined, by_name: dict[str, Draft],
                 by_identity: dict[str, Draft]) -> None:
    """"You have the X for that": the request before the correction becomes a use key of X."""
    for turn in turns:
        for r in turn.rows:
            if r.id not in turn.words:
                continue
            for c in corrections(turn.words[r.id]):
                target = (_next_used(turn, r.seq, mined, by_identity) if c.unnamed
                          else resolve(c.names, by_name))
                request = _request(turn, r.seq)
                if target is None or request is None:
                    continue
                target.key("use", shorten(request[1], 200), address=_address(turn, request[0]),
                           entry=request[0], via=r.id, origin="correction")
                if c.said and c.said not in {normal_name(k.text) for k in target.keys if k.field == "name"} \
                        and len(c.said.split()) <= 4:
                    target.key("name", c.said, address=f"s{turn.session}#{r.seq}", entry=r.id, origin="owner")


def _next_used(turn: Turn, seq: int, mined: Mined, by_identity: dict[str, Draft]) -> Draft | None:
    for use in sorted(mined.uses, key=lambda u: u.seq):
        if use.session == turn.session and seq < use.seq <= seq + UNNAMED_REACH:
            return by_identity.get(use.identity)
    return None


def _visible_uses(mined: Mined, drafts: list[Draft], rows: list[MinedRow]) -> list[Use]:
    """Every use mining saw, and each decision the agent stated (it acts on it there: a use too)."""
    by_id = {r.id: r for r in rows}
    stated = [Use(d.identity, r.id, r.session, r.seq, False) for d in drafts
              if d.kind == "decision" and d.entry is not None and (r := by_id.get(d.entry)) is not None
              and r.author == "agent"]
    return [*mined.uses, *stated]


def _helped(turns: list[Turn], uses: list[Use], by_identity: dict[str, Draft],
            by_name: Mapping[str, Draft]) -> None:
    """A use that did not fail: the request before it becomes a use key of what was used. When the owner's
    last words before the use only point at it (they name it, or they follow the agent's reply to an
    earlier request without anything used in between: "you've got X, reach for it"), the earlier request
    is what it was for: it becomes the key (origin correction), the pointing words too when they do not name
    it, and what he called it then a name of it, unless they name another asset."""
    by_session = {t.session: t for t in turns}
    used_at = {(u.session, u.seq) for u in uses}
    for use in uses:
        turn, draft = by_session.get(use.session), by_identity.get(use.identity)
        if use.failed or turn is None or draft is None:
            continue
        last = _owner_row(turn, use.seq)
        if last is None:
            continue
        said = turn.words[last.id]
        earlier = _owner_row(turn, last.seq)
        between = [r for r in turn.rows if earlier is not None and earlier.seq < r.seq < last.seq]
        replied = any(r.author == "agent" and r.kind == "message" for r in between) \
            and not any(r.kind == "tool_call" or (turn.session, r.seq) in used_at for r in between)
        names = _names_in(said, draft)
        if earlier is not None and (names or replied):
            draft.key("use", shorten(turn.words[earlier.id], 200), address=_address(turn, earlier.id),
                      entry=earlier.id, via=last.id, origin="correction")
            if names:
                continue
            first = not any(last.seq < seq < use.seq for session, seq in used_at if session == turn.session)
            if not first or any(g in by_name for g in grams(tokens(said), 5)):
                continue
            for alias in called_names(said):
                draft.key("name", alias, address=_address(turn, last.id), entry=last.id, origin="owner")
        draft.key("use", shorten(said, 200), address=_address(turn, last.id), entry=last.id, origin="helped")


def _names_in(words: str, draft: Draft) -> bool:
    """Whether `words` say one of the draft's names, as a run of their words."""
    said = f" {' '.join(tokens(words))} "
    return any(f" {n} " in said for k in draft.keys if k.field == "name" and (n := normal_name(k.text)))


def _links(mined: Mined, cwds: Mapping[int, str | None]) -> list[tuple[str, str, str | None, float]]:
    """Assets used in the same turn (weight 1) or the same session (0.5), per project they were seen in."""
    links: dict[tuple[str, str, str | None], float] = {}
    by_session: dict[int, list[tuple[int, str]]] = {}
    for use in mined.uses:
        by_session.setdefault(use.session, []).append((use.seq, use.identity))
    for session, uses in by_session.items():
        scope = cwds.get(session)
        order = list(dict.fromkeys(i for _, i in sorted(uses)))[:SESSION_LINKS]
        for n, a in enumerate(order):
            for b in order[n + 1:]:
                pair = (min(a, b), max(a, b), scope)
                links[pair] = max(links.get(pair, 0.0), 0.5)
        ordered = sorted(uses)
        for (seq_a, a), (seq_b, b) in itertools.pairwise(ordered):
            if a != b and seq_b - seq_a <= 6:
                links[(min(a, b), max(a, b), scope)] = 1.0
    return [(a, b, scope, w) for (a, b, scope), w in links.items()]


def key_terms(k: KeyDraft | Key | str, field: str) -> list[str]:
    text = k if isinstance(k, str) else k.text
    found = terms(text)
    return found[:TOPIC_TERMS] if field == "topic" else found


def _stored(drafts: list[Draft], scope_of: Mapping[int, str | None]
            ) -> list[tuple[table.AssetRow, list[table.KeyRow], set[int]]]:
    """The rows of a build (`scope_of`: an entry's project). Every text is redacted here, whatever module
    found it: nothing secret-shaped reaches the record's asset tables."""
    for d in drafts:
        d.name, d.description = scrubbed(d.name), scrubbed(d.description)
        d.keys = [KeyDraft(k.field, scrubbed(k.text), k.address, k.path, k.entry, k.via, k.origin)
                  for k in d.keys]
    per_key = [(d, k, key_terms(k, k.field)) for d in drafts for k in d.keys]
    df: dict[str, int] = {}
    for _, _, found in per_key:
        for t in found:
            df[t] = df.get(t, 0) + 1
    n = max(len(per_key), 1)
    keys: dict[str, list[table.KeyRow]] = {}
    for d, draft_key, found in per_key:
        weight = sum(math.log(1 + n / df[t]) for t in found)
        keys.setdefault(d.identity, []).append(table.KeyRow(
            draft_key.field, draft_key.text, normal_name(draft_key.text) if draft_key.field == "name" else "",
            weight, draft_key.address, draft_key.path, draft_key.entry, draft_key.via, draft_key.origin,
            None if draft_key.entry is None else scope_of.get(draft_key.entry), tuple(found)))
    return [(table.AssetRow(d.identity, d.kind, d.name, d.description, d.source, d.entry, d.scope, d.current,
                            d.updated), keys.get(d.identity, []), d.sources) for d in drafts]


def assets(record: Record, kind: str | None = None, *, session: int | None = None,
           harness: str | None = None) -> list[Asset]:
    """The assets of the index a reader may see (eligibility's scope, binding and erase/quarantine rules;
    muted and superseded ones are listed, `current` saying which are superseded), in number order.
    `harness`: the one a server is bound to.

    Raises:
        AddressError: no such session.
    """
    reader = reader_of(record, session, None, harness=harness)
    shown = eligible(record, table.stored_assets(record, kind), reader, set(), current_only=False)
    keys = table.keys_of(record, [a.id for a in shown])
    said = [e for k in keys for e in (k.entry, k.via) if e is not None]
    held = table.held_back(record, said)
    if harness is not None:
        held |= table.other_harness(record, said, harness)
    by_asset: dict[int, dict[str, list[Key]]] = {}
    for k in keys:
        if k.entry in held or k.via in held:
            continue
        fields = by_asset.setdefault(k.asset, {})
        fields.setdefault(k.field, []).append(Key(k.text, k.address, k.path, k.origin))
    out = []
    for a in shown:
        fields = by_asset.get(a.id, {})
        out.append(Asset(f"a{a.id}", a.kind, a.name, a.description,  # type: ignore[arg-type]
                         Keys(tuple(fields.get("name", [])), tuple(fields.get("topic", [])),
                              tuple(fields.get("use", []))), a.source, a.updated, a.scope, a.current))
    return out


def mute(record: Record, name: str) -> set[str]:
    """Mute `name` (kept across rebuilds, lifted by `unmute`); returns the assets it names now (`a12`).

    Raises:
        SearchError: a name with no words in it.
    """
    return _log(record, name, "mute")


def unmute(record: Record, name: str) -> set[str]:
    """Lift a mute of `name` (the owner's or the API's)."""
    return _log(record, name, "unmute")


def _log(record: Record, name: str, action: str) -> set[str]:
    if name.strip() == PUSH_OFF:  # the push itself, off or on
        table.log_mute(record, PUSH_OFF, action)
        return set()
    norm = normal_name(name)
    if not norm:
        raise SearchError(f"nothing to {action}: {name!r} holds no name")
    table.log_mute(record, norm, action)
    return {f"a{n}" for n in muted_assets(record, [norm])}


def muted(record: Record) -> set[str]:
    """The names muted now, what the owner said since the last rebuild included."""
    return muted_now(record)
