"""Observing (issue 19, seed 002): notes distilled from the record that pay attention on their own,
each citing the entries it came from and checked against them.

- `observe` reads each session's entries new since its last run (sub-agent and automated sessions
  passed over) into observations: mechanically without a model, or with the configured one;
- `observations` finds them (words, hooks, type, priority); `observation_json` is their JSON form;
- `reflect` consolidates them past a size; `backups` lists the copies taken before each change, and
  `restore` puts one back;
- `nightly` is the Dream Cycle: decay, lifetimes, archiving with hooks, chunking, staged promotions
  (`proposals`, `show`, `approve`, `reject`), a dry run unless applied;
- `export` writes `observations.md`; `for_session_start` is the block a harness's SessionStart adds.
Observations are derived: erasing an entry withdraws every one citing it (the m019 trigger).
"""

from total_recall.observing.export import export, for_session_start
from total_recall.observing.listing import observation_json, observations
from total_recall.observing.nightly import NightReport, nightly
from total_recall.observing.observation import (
    Draft,
    ObservationRejected,
    ObserveReport,
    ObservingError,
    Source,
)
from total_recall.observing.observer import observe
from total_recall.observing.reflector import Backup, ReflectReport, backups, reflect, restore
from total_recall.observing.staging import Shown, approve, proposals, reject, show
from total_recall.record.observations import Cited, Night, Observation, Proposal

__all__ = [
    "Backup",
    "Cited",
    "Draft",
    "Night",
    "NightReport",
    "Observation",
    "ObservationRejected",
    "ObserveReport",
    "ObservingError",
    "Proposal",
    "ReflectReport",
    "Shown",
    "Source",
    "approve",
    "backups",
    "export",
    "for_session_start",
    "nightly",
    "observation_json",
    "observations",
    "observe",
    "proposals",
    "reflect",
    "reject",
    "restore",
    "show",
]
