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
  Any other reader sees every project's assets.
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


def reader_of(record: Record, session: int | None, cwd: str | None) -> Reader:
    """The reader a session (or a bare cwd) is.

    Raises:
        AddressError: no such session.
    """
    if session is None:
        return Reader(None, cwd)
    s = record.session(session)
    if s.relation != "subagent":
        return Reader(None, cwd or s.cwd, session)
    project = s.cwd
    if s.parent is not None:
        project = record.session(s.parent).cwd or project
    return Reader(frozenset({None, project}), project, session)


# The name `mute --all` mutes: the push itself is off (no asset is called "*").
PUSH_OFF = "*"


def push_off(record: Record) -> bool:
    """Whether the owner turned the push off (`mute --all`), on every route alike."""
    return PUSH_OFF in muted_names(record)


def muted_names(record: Record, later: Sequence[Mute] = ()) -> set[str]:
    """The names muted now: the mute log (owner's and API's, in time order), then `later` (the overlay's,
    newer than the log)."""
    state: dict[str, bool] = {}
    for name, action, _, _ in table.mute_log(record):
        state[name] = action == "mute"
    for mute in later:
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
    # Any held-back source, not only all of them: the name and description cannot be shown without the
    # words that entry gave them, and erase (the m018 trigger) takes the asset on any erased source too.
    return [a for a in kept if a.entry not in held and not any(e in held for e in sources.get(a.id, ()))]
