"""Observing's operations (issue 19, seed 002): `observe`, `observations`, `export_observations`,
`reflect`, `observation_backups` and `restore_observations`, `nightly` (the Dream Cycle) and the staging
review (`proposals`, `proposal`, `approve_proposal`, `reject_proposal`).

Observations are the owner's across harnesses — what SessionStart hands every harness — so none of these
takes a harness binding (`binds=False`); `observe --session` names its session as everywhere
(`Call.session`), within a server's binding. `observe` uses the configured model when there is one (the
provider is built per call from the environment and the record home's `llm.toml`), else the mechanical
observer, saying so in a note; `mechanical` forces the mechanical one.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import Field

from total_recall.mining.flood import fit_json
from total_recall.model import NUMBER_MAX, echoed
from total_recall.ops.operation import Call, Effect, Operation, Params, Reply
from total_recall.ops.params import (
    BLANK_AS_SPACE,
    PATH_MAX,
    PRINTABLE,
    REPORT_MAX_BYTES,
    Limit,
    ReplyBytes,
)

ObservationType = Literal["event", "fact", "preference", "goal", "habit", "rule", "context"]
Priority = Literal["high", "medium", "low"]
ProposalId = Annotated[int, Field(ge=1, le=NUMBER_MAX, description=(
    "The proposal's id, as `proposals` lists it."))]


# -- observe --


class ObserveParams(Params):
    session_id: Annotated[str, Field(max_length=500, description=(
        "Only this session (s7, its own id or a unique prefix or piece of it); empty: every session with "
        "entries new since the observer's last run."))] = ""
    mechanical: Annotated[bool, Field(description=(
        "Use the mechanical observer (no model) even when a model is configured."))] = False
    max_bytes: ReplyBytes = REPORT_MAX_BYTES


def observe(call: Call, p: ObserveParams) -> Reply:
    """The observer's run: owner and agent entries new since its last run into observations."""
    from total_recall.observing import observe as observed

    model = None if p.mechanical else _model(call)
    with call.record() as record:
        number = call.session(record, "observe", p.session_id).number if p.session_id.strip() else None
        report = observed(record, session=number, model=model)
    return fit_json("observe", p.session_id[:40] or "all", report.to_json(), "refused", p.max_bytes)


def _model(call: Call) -> Any:
    """The configured provider, or None (with a note saying why the mechanical observer runs).

    Raises:
        ConfigError: a setting is malformed (never a silent fall-back to the mechanical observer).
    """
    from total_recall.llm.provider import Provider
    from total_recall.llm.settings import load_settings

    settings = load_settings(home=call.record_path.parent)
    if settings.problem is not None:
        status = "`llm-status`" if call.surface == "cli" else "the `llm_status` tool"
        call.notes.append(f"no model configured: the mechanical observer ran ({status} says what to set)")
        return None
    return Provider(settings)


# -- observations --


class ObservationsParams(Params):
    query: Annotated[str, Field(max_length=2_000, description=(
        "Words to find (in the text and, for archived ones, their hooks: other phrasings); empty: all, "
        "highest priority and importance first."))] = ""
    type: Annotated[ObservationType | None, Field(description="Only observations of this type.")] = None
    priority: Annotated[Priority | None, Field(description="Only observations of this priority.")] = None
    archived: Annotated[bool, Field(description=(
        "Archived and superseded observations too, not only current ones."))] = False
    limit: Limit = 200
    max_bytes: ReplyBytes = REPORT_MAX_BYTES


def observations(call: Call, p: ObservationsParams) -> Reply:
    from total_recall.observing import observation_json
    from total_recall.observing import observations as found
    from total_recall.record.observations import withdrawn_count

    with call.record() as record:
        rows = [observation_json(o) for o in found(record, p.query or None, p.type, p.priority, p.archived,
                                                   p.limit)]
        withdrawn = withdrawn_count(record)
    return fit_json("observations", p.query[:40] or "all",
                    {"query": p.query, "observations": rows, "withdrawn": withdrawn}, "observations",
                    p.max_bytes)


# -- retire_observation --


class RetireParams(Params):
    observation: Annotated[int, Field(ge=1, le=NUMBER_MAX, description=(
        "The observation's id, as `observations` lists it."))]
    reason: Annotated[str, Field(min_length=1, max_length=500, description=(
        "Why it no longer holds (kept with it).")), BLANK_AS_SPACE, PRINTABLE]


def retire_observation(call: Call, p: RetireParams) -> Reply:
    """The owner takes one observation back: out of the current set (listing, export, SessionStart),
    kept with the reason, back only when he says it again later."""
    from total_recall.observing import observation_json
    from total_recall.observing.export import refresh_exports
    from total_recall.observing.retraction import retire_by_owner

    if not p.reason.strip():
        from total_recall.observing import ObservingError

        raise ObservingError("retire_observation: `reason` is blank; say why it no longer holds")
    with call.record() as record:
        retired = retire_by_owner(record, p.observation, p.reason)
        refresh_exports(record)
    return {"retired": p.observation, "reason": p.reason.strip(), "observation": observation_json(retired)}


# -- export_observations --


class ExportParams(Params):
    to: Annotated[str, Field(max_length=PATH_MAX, description=(
        "Where to write, an absolute path (or ~/…): a folder (it gets observations.md) or a .md file; empty: "
        "the record's home. A file there is replaced only when it is an earlier export.")), PRINTABLE] = ""


def export_observations(call: Call, p: ExportParams) -> Reply:
    """Write the current observations as `observations.md` (for an OpenClaw workspace).

    A relative `to` is the shell's folder on the CLI (the process's own: checked as typed, so a refusal
    names it so, then written and answered as an absolute path); a server's caller cannot know the
    server's folder (a harness starts it in the owner's project), so over MCP it is refused by name.
    """
    from total_recall.observing import ObservingError, export
    from total_recall.observing.export import EXPORT_NAME

    where = Path(p.to).expanduser() if p.to.strip() else call.record_path.parent
    if not where.is_absolute() and call.surface != "cli":
        raise ObservingError(f"export_observations: `to` must be an absolute path (or ~/…), not "
                             f"{echoed(p.to)}: a relative one would land in the server's own folder, "
                             "which its caller cannot know")
    if not where.suffix and os.path.lexists(where) and not where.is_dir():
        raise ObservingError(f"export_observations: {where} is a file, not a folder: give a folder (the "
                             f"export is written as {EXPORT_NAME} in it) or a file name ending in .md")
    target = where / EXPORT_NAME if where.is_dir() or not where.suffix else where
    _check_target(target)
    target = Path(os.path.abspath(target))
    with call.record() as record:
        try:
            path, count = export(record, target)
        except OSError as exc:
            why = exc.strerror or str(exc)
            raise ObservingError(f"export_observations: cannot write {target}: {why}") from exc
    return {"path": str(path), "exported": count}


def _check_target(target: Path) -> None:
    """Refuse a target an export must not write: not markdown, or a file that is not an earlier export
    (an agent over MCP names the path; it must never overwrite the owner's files).

    Raises:
        ObservingError: the target is refused, naming why.
    """
    from total_recall.observing import ObservingError

    if target.suffix.lower() != ".md":
        raise ObservingError(f"export_observations: `to` must be a folder or a .md file, not {target}")
    if target.is_symlink() or (target.exists() and not target.is_file()):
        raise ObservingError(f"export_observations: {target} is not a regular file; give another `to`")
    if target.is_file():
        with target.open("rb") as fh:
            head = fh.read(16)
        if not head.startswith(b"# Observations"):
            raise ObservingError(f"export_observations: {target} exists and is not an earlier export; it is "
                                 "left as it is (give another `to`)")


# -- reflect --


class ReflectParams(Params):
    force: Annotated[bool, Field(description=(
        "Consolidate now, even under the threshold (8,000 words of current observations)."))] = False


def reflect(call: Call, p: ReflectParams) -> Reply:
    from total_recall.observing import reflect as reflected

    with call.record() as record:
        return reflected(record, force=p.force).to_json()


# -- backups --


class BackupsParams(Params):
    pass


def observation_backups(call: Call, p: BackupsParams) -> Reply:
    from total_recall.observing import backups

    with call.record() as record:
        kept = backups(record)
    return {"backups": [{"backup": b.backup, "taken": b.taken, "reason": b.reason, "count": b.count}
                        for b in kept]}


class RestoreParams(Params):
    backup: Annotated[int, Field(ge=1, le=NUMBER_MAX, description=(
        "The backup's id, as `observation_backups` lists it (the last 10 are kept)."))]


def restore_observations(call: Call, p: RestoreParams) -> Reply:
    from total_recall.observing import restore

    with call.record() as record:
        restored, before = restore(record, p.backup)
    return {"backup": p.backup, "restored": restored, "backed_up_as": before}


# -- nightly --


class NightlyParams(Params):
    apply: Annotated[bool, Field(description=(
        "Do what the night plans (a backup is taken first; a failed check rolls it back); without it a "
        "dry run that changes no observation."))] = False
    max_bytes: ReplyBytes = REPORT_MAX_BYTES


def nightly(call: Call, p: NightlyParams) -> Reply:
    from total_recall.observing import nightly as night

    with call.record() as record:
        report = night(record, apply=p.apply)
    return fit_json("nightly", "night", report.to_json(), "actions", p.max_bytes)


# -- the staging review --


class ProposalsParams(Params):
    status: Annotated[Literal["proposed", "approved", "rejected", "all"], Field(description=(
        "Which proposals: those waiting for a decision (proposed), decided ones, or all."))] = "proposed"
    max_bytes: ReplyBytes = REPORT_MAX_BYTES


def proposals(call: Call, p: ProposalsParams) -> Reply:
    from total_recall.observing import proposals as staged

    with call.record() as record:
        rows = staged(record, None if p.status == "all" else p.status)
    reply = {"status": p.status, "proposals": [proposal_json(x) for x in rows]}
    return fit_json("proposals", p.status, reply, "proposals", p.max_bytes)


class ProposalParams(Params):
    proposal: ProposalId


def proposal(call: Call, p: ProposalParams) -> Reply:
    from total_recall.observing import observation_json, show

    with call.record() as record:
        shown = show(record, p.proposal)
    return {"proposal": proposal_json(shown.proposal),
            "observations": [observation_json(o) for o in shown.observations]}


def approve_proposal(call: Call, p: ProposalParams) -> Reply:
    from total_recall.observing import approve, observation_json

    with call.record() as record:
        promoted = approve(record, p.proposal)
    return {"approved": p.proposal, "observation": observation_json(promoted)}


def reject_proposal(call: Call, p: ProposalParams) -> Reply:
    from total_recall.observing import reject

    with call.record() as record:
        decided = reject(record, p.proposal)
    return {"rejected": p.proposal, "proposal": proposal_json(decided)}


def proposal_json(x: Any) -> dict[str, Any]:
    """A staged proposal as scripts read it."""
    return {"id": x.id, "theme": x.theme, "type": x.type, "text": x.text, "members": list(x.members),
            "occurrences": x.occurrences, "days": x.days, "status": x.status, "created": x.created,
            "decided": x.decided, "result": x.result}


OPERATIONS: tuple[Operation[Any], ...] = (
    Operation(
        "observe", "observing", Effect.CALLS_OUT, ObserveParams, observe, binds=False,
        flags={"session_id": "session"}, example="total-recall observe --session s3 --json",
        doc="Observe what is new in the record since the observer's last run, per session (sub-agent and "
            "automated sessions passed over): the owner's instructions, decisions, failures and open items "
            "become observations, each citing the entries it came from and checked against them. With an "
            "LLM configured the model observer runs (within its per-call and per-day token caps, the spend "
            "in the reply); without one, or with `mechanical`, the mechanical observer. Reads the record "
            "as it is: `sync` first for what the stores hold since."),
    Operation(
        "observations", "observing", Effect.READS, ObservationsParams, observations, argument=("query",),
        binds=False, example="total-recall observations 'deploy' --type rule",
        doc="List or search the observations: current ones, highest priority first, or those matching "
            "words (other phrasings of an archived one find it too); each with its priority, type, "
            "confidence, importance and the addresses it came from."),
    Operation(
        "retire_observation", "observing", Effect.DROPS, RetireParams, retire_observation,
        cli="observations retire", argument=("observation",), binds=False,
        example="total-recall observations retire 4 --reason 'the Friday freeze is gone'",
        doc="Retire one observation the owner takes back: out of the current ones (the listing, the "
            "export, the SessionStart block), kept with the reason (listed among the archived "
            "`observations`), "
            "and back only when he says it again after now; reading the same words again never brings it "
            "back."),
    Operation(
        "export_observations", "observing", Effect.ADDS, ExportParams, export_observations,
        cli="observations export", binds=False,
        example="total-recall observations export --to ~/.openclaw/workspace",
        doc="Write the current observations to observations.md (for an OpenClaw workspace), each with the "
            "addresses it came from; an earlier export there is replaced whole."),
    Operation(
        "reflect", "observing", Effect.DROPS, ReflectParams, reflect, binds=False,
        example="total-recall reflect --force",
        doc="Consolidate the observations once they pass 8,000 words: related ones merge, stale "
            "low-priority ones are dropped, a high-priority one is never lost (it names what superseded "
            "it). A backup is taken first; a result that is not shorter, or loses a high-priority item, is "
            "rolled back."),
    Operation(
        "observation_backups", "observing", Effect.READS, BackupsParams, observation_backups,
        cli="observations backups", binds=False, example="total-recall observations backups",
        doc="The copies of the observations taken before each change (a reflection, an applied night, a "
            "restore): the last 10, newest first, each with when, why and how many observations it holds."),
    Operation(
        "restore_observations", "observing", Effect.DROPS, RestoreParams, restore_observations,
        cli="observations restore", argument=("backup",), binds=False,
        example="total-recall observations restore 3",
        doc="Put a backup's observations back in place of the current ones; the current ones are backed "
            "up first, so a restore is undone by restoring that backup. Observations citing an entry "
            "erased since stay withdrawn."),
    Operation(
        "nightly", "observing", Effect.DROPS, NightlyParams, nightly, binds=False,
        example="total-recall nightly --apply",
        doc="The nightly cycle (seed 002's Dream Cycle): importance decay and per-type lifetimes, "
            "archiving with other phrasings to find them by, chunking related observations, and staging "
            "themes seen 3+ times on 3+ days as proposals. A dry run that reports what it would do unless "
            "`apply`; applied, a backup first and a rollback when a check fails."),
    Operation(
        "proposals", "observing", Effect.READS, ProposalsParams, proposals, binds=False,
        example="total-recall proposals",
        doc="The promotions the nightly cycle staged for the owner to approve or reject."),
    Operation(
        "proposal", "observing", Effect.READS, ProposalParams, proposal, argument=("proposal",),
        binds=False, example="total-recall proposal 3",
        doc="One staged proposal with the observations it gathers."),
    Operation(
        "approve_proposal", "observing", Effect.ADDS, ProposalParams, approve_proposal, cli="approve",
        argument=("proposal",), binds=False, example="total-recall approve 3",
        doc="Approve a staged proposal: its newest observation becomes a standing one (high priority; a "
            "preference or habit becomes a rule) citing every entry of the theme, and the others name it."),
    Operation(
        "reject_proposal", "observing", Effect.ADDS, ProposalParams, reject_proposal, cli="reject",
        argument=("proposal",), binds=False, example="total-recall reject 3",
        doc="Reject a staged proposal: nothing is promoted, and the theme is not proposed again."),
)
