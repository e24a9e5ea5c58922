"""What the mechanical observer's sentence shapes were checked against: each phrasing of one half of the
observing bench's pools (bench/observing_data.py), filled a few times, cut into the owner's spans and
classified as the observer does, and the bench's pastes and everyday requests beside them.

    python bench/fit_observer.py [--half fit|report|blind|blind2|blind3|blind4] [--fills 3] [--seed 5]

The shapes in `observing/mechanical.py` were written from `--half fit` only (issue 19: "Deploys of X wait
for …", "No X to Y", "Only X merges …", "X is off limits", "Every X change gets …", "one X per Y", "X before
Y", generic plurals with a condition); `--half report` is what `bench/observing.py` reports. A phrasing is
listed when a fill of it misses its kind, and any fact, preference, event, request or pasted line that
became a rule is listed too (target: none). `--half blind` classifies `bench/observing_blind.py` instead:
sentences a helper session wrote on 2026-12-02 without reading the detector — rules, preferences and facts
each as their kind, and owner sentences that must not become rules (one-off requests, reports, "never
mind"). Each blind pool was written by a helper session that read neither the detector nor the other
pools, and measured once untouched before any shape was written from it: `blind` (rules 26 of 60),
`blind2` (rules 123 of 240, 33 of 240 non-rules made rules), `blind3` (156 / 21 of 240), each then a
development set and training data for the words (`bench/fit_rule_words.py`); `blind4` (eight more voices)
is the one nothing was written or fitted from.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from random import Random

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import observing_blind
import observing_blind2
import observing_blind3
import observing_blind4
from observing_data import FRAMES, HALVES, PASTES, POOLS, REQUESTS, _fill, slots
from total_recall.observing.mechanical import classify
from total_recall.record.spans import owner_spans

WANT = {"keyword": "rule", "natural": "rule", "preference": "preference", "fact": "fact", "event": "event"}


def kinds(text: str) -> list[str | None]:
    """The observation type of each of the owner's spans in `text` (None: no note)."""
    out: list[str | None] = []
    for span in owner_spans(text):
        found = classify(text[span.start:span.end].strip(), span.tag)
        out.append(found[0] if found else None)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--half", choices=("fit", "report", "blind", "blind2", "blind3", "blind4"), default="fit")
    ap.add_argument("--fills", type=int, default=3)
    ap.add_argument("--seed", type=int, default=5)
    args = ap.parse_args()
    rng = Random(args.seed)
    print(f"half '{args.half}', {args.fills} fills a phrasing")
    if args.half.startswith("blind"):
        pools = {"blind": observing_blind, "blind2": observing_blind2, "blind3": observing_blind3,
                 "blind4": observing_blind4}[args.half]
        blind(pools.blind_pools(), rng, args.fills)
        return
    wrong_rules = 0
    for pool, want in WANT.items():
        hit = total = 0
        for i in HALVES[pool][args.half]:
            template = POOLS[pool][i]
            template = template[0] if isinstance(template, tuple) else template
            for _ in range(args.fills):
                sentence = _fill(template, slots(rng))
                got = kinds(sentence)
                total += 1
                hit += want in got
                if want != "rule" and "rule" in got:
                    wrong_rules += 1
                    print(f"   {pool} became a rule: {sentence}")
                elif want not in got:
                    print(f"   {pool} missed ({got}): {sentence}")
        print(f"{pool:<11} {hit} of {total} as {want}")
    framed = hit = 0
    for pool in ("keyword", "natural"):
        for i in HALVES[pool][args.half]:
            for f in HALVES["frame"][args.half]:
                message = _fill(FRAMES[f], slots(rng), s=_fill(POOLS[pool][i], slots(rng)))
                framed += 1
                hit += "rule" in kinds(message)
                if "rule" not in kinds(message):
                    print(f"   framed rule missed: {message!r}")
    print(f"rules in the half's frames (a longer message): {hit} of {framed}")
    for f in HALVES["frame"][args.half]:
        around = _fill(FRAMES[f], slots(rng), s="")  # the frame's own words, with nothing planted in it
        if "rule" in kinds(around):
            wrong_rules += 1
            print(f"   a frame's own words became a rule: {around!r}")
    for template in REQUESTS:
        request = _fill(template, slots(rng))
        if "rule" in kinds(request):
            wrong_rules += 1
            print(f"   request became a rule: {request}")
    for shape, template, _ in PASTES:
        pasted = _fill(template, slots(rng))
        spans = [s for s in owner_spans(pasted) if s.tag != "paste"]
        for span in spans:
            found = classify(pasted[span.start:span.end].strip(), span.tag)
            if found and found[0] == "rule":
                wrong_rules += 1
                print(f"   {shape} paste line became a rule: {pasted[span.start:span.end]!r}")
    print(f"rules from facts, preferences, events, requests and pastes: {wrong_rules} (target 0)")


def blind(pools: dict[str, list[str]], rng: Random, fills: int) -> None:
    """A blind pool: each kind's share found as that kind, and the non-rules that became rules."""
    for pool, templates in pools.items():
        want = "rule" if pool == "not_rule" else pool
        hit = total = 0
        for template in templates:
            for _ in range(fills):
                sentence = _fill(template, slots(rng))
                found = want in kinds(sentence)
                total += 1
                hit += found
                if found == (pool == "not_rule"):
                    said = "became a rule" if found else f"missed ({kinds(sentence)})"
                    print(f"   {pool} {said}: {sentence}")
        label = "became rules (target 0)" if pool == "not_rule" else f"as {want}"
        print(f"{pool:<11} {hit} of {total} {label}")


if __name__ == "__main__":
    main()
