"""The one eligibility check every route passes (push, asset search, the listing): what a reader may be
shown, whatever brought it.

- Erased or quarantined: an asset counts only while every one of its source entries (those its name and
  description were made from) and the entry its address names are neither erased nor quarantined: its
  shown text is one string made of several entries' words, so a held-back one takes the whole asset out
  (an older version of a decision or document is never shown in its place); a key whose words (or whose
  correction) come from such an entry never counts, nor matches by words, by name or by meaning. Erase
  goes further and deletes them (the m018 trigger: any erased source takes the asset, as here).
- Muted: "please don't mention X" / "stop suggesting X" from the owner, or `mute(record, "X")`, hides
  every asset named X from then on, until "you can mention X again" or `unmute`.
- Current: a decision a later one on the same subject superseded is not pushed.
- Scope: a sub-agent session (relation `subagent`) sees only the global assets (no project) and those of
  its parent session's project (the parent's cwd, else its own); nothing else, not even a count of it,
  nor a score moved by it: its push counts only the keys (and co-access links) of sessions and files in
  its scope, and its idf over those keys alone, so it equals the push of a record that never held the rest.
  A sub-agent the record has not synced yet (a hook fired inside it names its parent's session and its
  own agent id) gets the same scope: its parent's project (the parent's cwd, else the cwd it runs in).
  Any other reader sees every project's assets.
- Binding: a server bound to one harness (`mcp --harness`) shows only the assets none of whose entries
  (source, address) lies in another harness's sessions — the files of the config roots and scripts stay
  — and lists only the keys said in its harness's sessions, so no other harness's words come through it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from total_recall.assets.corrections import Mute
from total_recall.assets.words import normal_name
from total_recall.record import assets as table
from total_recall.record.database import Record


@dataclass(frozen=True, slots=True)
class Reader:
    """Who is asking: `scopes` the projects whose assets it may see (None: all), `cwd` its project."""

    scopes: frozenset[str | None] | None
    cwd: str | None
    session: int | None = None
    harness: str | None = None  # the harness a server is bound to; None: every harness


def reader_of(record: Record, session: int | None, cwd: str | None, *, subagent: bool = False,
              harness: str | None = None) -> Reader:
    """The reader a session (or a bare cwd) is. `subagent`: the asker is a sub-agent not in the record
    yet, started from `session` (its parent, None when that is not synced either) in `cwd`. `harness`:
    the one a server is bound to.

    Raises:
        AddressError: no such session.
    """
    if subagent:
        project = (record.session(session).cwd if session is not None else None) or cwd
        return Reader(frozenset({None, project}), project, None, harness)
    if session is None:
        return Reader(None, cwd, None, harness)
    s = record.session(session)
    if s.relation != "subagent":
        return Reader(None, cwd or s.cwd, session, harness)
    project = s.cwd
    if s.parent is not None:
        project = record.session(s.parent).cwd or project
    return Reader(frozenset({None, project}), project, session, harness)


# The name `mute --all` mutes: the push itself is off (no asset is called "*").
PUSH_OFF = "*"


def push_off(record: Record) -> bool:
    """Whether the owner turned the push off (`mute --all`), on every route alike."""
    return PUSH_OFF in muted_names(record)


def muted_names(record: Record, later: Sequence[tuple[Mute, str | None]] = (),
                now: Sequence[Mute] = ()) -> set[str]:
    """The names muted now: the mute log (owner's and API's) and `later` (mutes said in entries the index
    has not read yet, each with its entry's time), in order of time — an `unmute` given after the owner
    said "don't mention X" lifts it even before a rebuild logs his words —, then `now` (said in the message
    being pushed for). A `later` mute without a time counts after the log, as the newest."""
    events = [(at[:19], 0, name, action == "mute") for name, action, at, _ in table.mute_log(record)]
    # Seconds only: harnesses write 12:00:00Z and 12:00:00.000Z for the same instant.
    events += [((at or "\uffff")[:19], 1, m.name, m.action == "mute") for m, at in later]
    state: dict[str, bool] = {}
    for _, _, name, on in sorted(events, key=lambda e: (e[0], e[1])):
        state[name] = on
    for mute in now:
        state[mute.name] = mute.action == "mute"
    return {name for name, on in state.items() if on}


def muted_assets(record: Record, names: Iterable[str]) -> set[int]:
    """The assets one of `names` names (as a name or alias)."""
    wanted = [normal_name(n) for n in names if normal_name(n)]
    return {k.asset for k in table.named_keys(record, wanted)} if wanted else set()


def eligible(record: Record, assets: Sequence[table.StoredAsset], reader: Reader, muted: set[int], *,
             current_only: bool = True) -> list[table.StoredAsset]:
    """The assets of `assets` the reader may be shown, in the order given."""
    kept = [a for a in assets if a.id not in muted and (a.current or not current_only)
            and (reader.scopes is None or a.scope in reader.scopes)]
    sources = table.sources_of(record, [a.id for a in kept])
    entries = {e for a in kept for e in sources.get(a.id, ())}
    entries |= {a.entry for a in kept if a.entry is not None}
    held = table.held_back(record, entries) if entries else set()
    if reader.harness is not None and entries:
        held |= table.other_harness(record, entries, reader.harness)
    # Any held-back source, not only all of them: the name and description cannot be shown without the
    # words that entry gave them, and erase (the m018 trigger) takes the asset on any erased source too.
    return [a for a in kept if a.entry not in held and not any(e in held for e in sources.get(a.id, ()))]
