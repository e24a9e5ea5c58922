"""How the CLI shows observing's replies without --json (see surfaces/human.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

from total_recall.ops.operation import Reply

LISTED_REFUSALS = 10


def _held(reply: Reply) -> None:
    """On stderr: what a capped reply held back and where the whole of it is."""
    if reply.get("held_back"):
        click.echo(f"note: {reply['notice']}", err=True)


def _n(count: int, noun: str) -> str:
    from total_recall.surfaces.human import counted

    return counted(count, noun)


def _observe(reply: Reply, settings: Any) -> str:
    """What the run read and kept; refusals and errors on stderr (an error exits 2)."""
    seen = reply["observed"]
    skipped = "; ".join(f"{count} {why}" for why, count in sorted(reply["skipped"].items()))
    lines = [f"observed {_n(seen['sessions'], 'session')}, {_n(seen['entries'], 'entry')} "
             f"({reply['observer']} observer): {reply['added']} added, {reply['reinforced']} reinforced"
             + (f", {reply['retired']} retired" if reply.get("retired") else "")
             + (f"; passed over: {skipped}" if skipped else "")]
    if reply.get("reflected"):
        lines.append(f"reflected: {reply['reflected']['reason']}")
    if reply["calls"]:
        cost = reply["cost"]
        lines.append(f"model {cost.get('model', '?')}: {reply['tokens']:,} tokens in "
                     f"{_n(reply['calls'], 'call')}; today {cost.get('day_tokens', 0):,} of "
                     f"{cost.get('day_cap', 0):,}")
    refused = reply["refused"]
    if refused:
        click.echo(f"{_n(len(refused) + reply.get('held_back', 0), 'note')} refused:", err=True)
        for why in refused[:LISTED_REFUSALS]:
            click.echo(f"  {why}", err=True)
    for error in reply["errors"]:
        click.echo(f"error: {error}", err=True)
    _held(reply)
    return "\n".join(lines)


def _line(o: dict[str, Any]) -> str:
    state = " (archived)" if o["archived"] else ""
    if o["superseded_by"] is not None:
        state = f" (superseded by #{o['superseded_by']})"
    if o.get("retired"):
        reason = o["retired"]["reason"]  # "retired by the owner: …" says the word already
        state = f" ({reason})" if reason.startswith("retired") else f" (retired: {reason})"
    where = ", ".join(o["addresses"][:4]) + (" …" if len(o["addresses"]) > 4 else "")
    return (f"#{o['id']:<5} {o['type']:<10} {o['priority']:<6} {o['confidence']:.2f}  {o['text']}{state}"
            f"  [{where}]")


def _observations(reply: Reply, settings: Any) -> str:
    found = reply["observations"]
    if not found and not reply.get("held_back"):
        withdrawn = reply.get("withdrawn", 0)
        if reply["query"]:
            said = f"no observations match {reply['query']!r}"
        elif withdrawn:
            said = (f"no current observations ({_n(withdrawn, 'observation')} withdrawn when an entry it "
                    "cited was erased; `observations --archived` shows the others)")
        else:
            said = "no observations yet (`total-recall observe` makes them)"
        click.echo(said, err=True)
    _held(reply)
    return "\n".join(_line(o) for o in found)


def _retire(reply: Reply, settings: Any) -> str:
    return f"retired #{reply['retired']}: {reply['observation']['text']}"


def _export(reply: Reply, settings: Any) -> str:
    return f"wrote {_n(reply['exported'], 'observation')} to {reply['path']}"


def _backups(reply: Reply, settings: Any) -> str:
    if not reply["backups"]:
        return "no backups yet (one is taken before each reflection, applied night or restore)"
    return "\n".join(f"{b['backup']:>4}  {b['taken']}  {_n(b['count'], 'observation')}  {b['reason']}"
                     for b in reply["backups"])


def _restore(reply: Reply, settings: Any) -> str:
    return (f"restored {_n(reply['restored'], 'observation')} from backup {reply['backup']}; what was "
            f"current is backup {reply['backed_up_as']}")


def _reflect(reply: Reply, settings: Any) -> str:
    if not reply["applied"]:
        return f"not consolidated: {reply['reason']}" + (
            f" (backup {reply['backup']} kept)" if reply["backup"] is not None else "")
    return (f"consolidated: {reply['reason']}; {_n(reply['merged'], 'group')} merged, "
            f"{len(reply['superseded'])} superseded, {len(reply['dropped'])} dropped, "
            f"{len(reply['archived'])} archived as stale "
            f"(backup {reply['backup']})")


def _nightly(reply: Reply, settings: Any) -> str:
    m = reply["metrics"]
    night = f"night {reply['night']}: " if reply["night"] is not None else ""
    lines = [f"{night}{reply['outcome']}",
             f"{_n(m['current'], 'current observation')}: {m['decayed']} decayed, {m['archived']} archived, "
             f"{_n(m['chunks'], 'chunk')} of {m['chunked']}, {_n(m['proposals'], 'proposal')}; "
             f"{m['tokens_before']:,} → {m['tokens_after']:,} tokens"]
    if reply["backup"] is not None:
        lines.append(f"backup {reply['backup']} taken first")
    if not reply["applied"] and reply["actions"]:
        lines.append("`total-recall nightly --apply` does it")
    _held(reply)
    return "\n".join(lines)


def _proposal_line(p: dict[str, Any]) -> str:
    return (f"#{p['id']:<4} {p['type']:<10} {p['status']:<9} {p['theme']!r}: {p['text']} "
            f"({p['occurrences']} times on {p['days']} days)")


def _proposals(reply: Reply, settings: Any) -> str:
    found = reply["proposals"]
    if not found and not reply.get("held_back"):
        click.echo(f"no {'' if reply['status'] == 'all' else reply['status'] + ' '}proposals", err=True)
    _held(reply)
    return "\n".join(_proposal_line(p) for p in found)


def _proposal(reply: Reply, settings: Any) -> str:
    lines = [_proposal_line(reply["proposal"])]
    lines += [f"  {_line(o)}" for o in reply["observations"]]
    if reply["proposal"]["status"] == "proposed":
        n = reply["proposal"]["id"]
        lines.append(f"`total-recall approve {n}` or `total-recall reject {n}`")
    return "\n".join(lines)


def _approve(reply: Reply, settings: Any) -> str:
    o = reply["observation"]
    return (f"approved proposal {reply['approved']}: #{o['id']} is a standing {o['type']} "
            f"({o['priority']}): {o['text']}")


def _reject(reply: Reply, settings: Any) -> str:
    return f"rejected proposal {reply['rejected']} ({reply['proposal']['theme']!r})"


RENDERINGS: dict[str, Callable[[Reply, Any], str]] = {
    "observe": _observe, "observations": _observations, "export_observations": _export, "reflect": _reflect,
    "observation_backups": _backups, "restore_observations": _restore,
    "nightly": _nightly, "proposals": _proposals, "proposal": _proposal, "approve_proposal": _approve,
    "reject_proposal": _reject, "retire_observation": _retire,
}
