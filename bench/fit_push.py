"""Fits the push's two bars for meaning (`assets/meaning.py` MEANING_BAR and COMPANION_BAR) on the ownership
bench's `fit` half only, so the figures of `bench/ownership.py --half report` are measured on phrasings it
never saw.

    python bench/fit_push.py [--seed N] [--owners 8] [--target 0.85] [--precision 0.05] [--history 1-4]

Builds the owners as the bench does (same generator, `--half fit`), then:

- the companion bar: for every served request whose best cosine clears a bar (the shipped MEANING_BAR), the
  other assets of its top five by meaning, by band of cosine, and how often each is the asset wanted; the bar
  is the lowest band edge from which every band up is right at least `--precision` of the time;
- the bar itself: for each bar on a grid, pushes every ownership-miss case and every request no asset serves
  with FULL+MEANING (companions at the shipped COMPANION_BAR) and prints hit@1, hit@5, the share of empty
  pushes for the unserved and the tokens a turn. The bar to keep is the lowest one whose empty share reaches
  `--target` (the issue's floor is 80 %; the default keeps a margin for the report half).

It also prints what limits the push by meaning (docs/BENCHMARKS.md, "Instant Recall"): the ranking's own
ceiling (the asset anywhere in the top five of `meaning.nearest`, no bar at all), and for three kinds of
bar — on the best cosine, on its margin over the runner-up, on its z-score over the other assets the
reader sees — the hit@5 each reaches at the bar keeping 80 / 85 / 90 % of the unserved requests empty, when
only the assets over the bar are pushed and when companions join them.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import ownership_api as api
from ownership import Built, build
from ownership_data import PROJECTS, Asset, make_owner
from total_recall.assets import meaning
from total_recall.assets.eligibility import reader_of
from total_recall.record import assets as table

GRID = [round(0.30 + 0.005 * i, 3) for i in range(41)]  # 0.30 … 0.50
BAND = 0.05


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=3)
    ap.add_argument("--owners", type=int, default=8)
    ap.add_argument("--per-owner", type=int, default=24)
    ap.add_argument("--history", type=int, choices=range(1, 5), default=1,
                    help="earlier requests an asset (ownership.py --history): the limits as history grows")
    ap.add_argument("--target", type=float, default=0.85)
    ap.add_argument("--precision", type=float, default=0.05)
    ap.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "out" / "fit_push")
    args = ap.parse_args()
    os.umask(0o077)
    if not api.meaning_available():
        raise SystemExit("the vectors extra is not installed: nothing to fit")
    shipped = (meaning.MEANING_BAR, meaning.COMPANION_BAR)
    hits: dict[float, list[tuple[bool, bool]]] = {b: [] for b in GRID}
    empty: dict[float, list[bool]] = {b: [] for b in GRID}
    tokens: dict[float, list[int]] = {b: [] for b in GRID}
    # (the wanted asset's rank in the top five or 5, the best cosine, the wanted asset's cosine, features)
    served: list[tuple[int, float, float, tuple[float, float, float]]] = []
    unserved: list[tuple[float, float, float]] = []
    bands: dict[int, list[bool]] = {}
    for i in range(args.owners):
        owner = make_owner(i, args.seed, "fit", args.per_owner, history=args.history)
        built = build(owner, args.out / f"owner-{i}")
        stored = table.stored_assets(built.record)
        build_ = table.last_build(built.record)
        for case in owner.cases:
            wanted = _wanted(built, stored, owner.asset(case.target))
            near = meaning.nearest(built.record, build_, case.request,
                                   reader_of(built.record, None, built.cwd(case.project)))
            top = sorted(near, key=near.__getitem__, reverse=True)[:5]
            rank = next((n for n, a in enumerate(top) if a in wanted), 5)
            best = near[top[0]] if top else 0.0
            served.append((rank, best, max((near.get(a, -1.0) for a in wanted), default=-1.0),
                           _features(near)))
            if best >= shipped[0]:
                for a in top[1:]:
                    bands.setdefault(int(near[a] / BAND), []).append(a in wanted)
        for request in owner.unserved:
            near = meaning.nearest(built.record, build_, request,
                                   reader_of(built.record, None, built.cwd(PROJECTS[0])))
            unserved.append(_features(near))
        for bar in GRID:
            meaning.MEANING_BAR = bar  # the bench's own process only: the shipped value is the fitted one
            for case in owner.cases:
                reply = api.push(built.record, built.home, case.request, "FULL+MEANING",
                                 cwd=built.cwd(case.project))
                target = owner.asset(case.target)
                ranks = [n for n, p in enumerate(reply.pointers) if built.matches(p, target)]
                hits[bar].append((bool(ranks and ranks[0] == 0), bool(ranks)))
                tokens[bar].append(reply.tokens)
            for request in owner.unserved:
                reply = api.push(built.record, built.home, request, "FULL+MEANING",
                                 cwd=built.cwd(PROJECTS[0]))
                empty[bar].append(not reply.pointers)
                tokens[bar].append(reply.tokens)
        meaning.MEANING_BAR = shipped[0]
        built.record.close()
        print(f"owner {i}: {len(owner.cases)} cases, {len(owner.unserved)} unserved", flush=True)
    print(f"\nseed {args.seed}, half 'fit': {len(served)} cases, {len(unserved)} unserved")
    print(f"\ncompanions (the top five's others, when the best cosine clears {shipped[0]}), by cosine:")
    companion = None
    for band in sorted(bands, reverse=True):
        right = _share(bands[band])
        print(f"  {band * BAND:.2f}–{(band + 1) * BAND:.2f}: {len(bands[band]):>5} pushed, "
              f"the asset wanted {right:.1%}")
        if len(bands[band]) >= 20 and (companion is None or companion == round((band + 1) * BAND, 2)):
            companion = round(band * BAND, 2) if right >= args.precision else companion
    print(f"the companion bar (every band of 20 or more from it up right >= {args.precision:.0%}): "
          f"{companion} (shipped {shipped[1]})")
    print(f"\nwith companions from {shipped[1]}:")
    print(f"{'bar':>6}{'hit@1':>8}{'hit@5':>8}{'empty':>8}{'tokens':>8}")
    chosen = None
    for bar in GRID:
        h1 = _share(a for a, _ in hits[bar])
        h5 = _share(b for _, b in hits[bar])
        e = _share(empty[bar])
        if chosen is None and e >= args.target:
            chosen = bar
        print(f"{bar:>6.3f}{h1:>8.3f}{h5:>8.3f}{e:>8.1%}{statistics.mean(tokens[bar]):>8.1f}")
    print(f"\nthe lowest bar keeping >= {args.target:.0%} of the unserved empty: {chosen} "
          f"(shipped {shipped[0]})")
    ceiling = _share(r < 5 for r, *_ in served)
    print(f"\nby meaning alone: the asset in the top five with no bar {ceiling:.3f}; with a bar, the "
          "top five pushed whole when the bar lets the message through:")
    for n, kind in enumerate(("best cosine", "margin over the runner-up", "z-score over the rest")):
        values = sorted(f[n] for f in unserved)
        cuts = []
        for q in (0.80, 0.85, 0.90):
            bar = values[min(int(q * len(values)), len(values) - 1)]
            cuts.append(f"empty {q:.0%}: hit@5 {_share(r < 5 and f[n] >= bar for r, _, _, f in served):.3f}")
        print(f"   a bar on the {kind:<26} " + "; ".join(cuts))
    values = sorted(f[0] for f in unserved)
    for q in (0.80, 0.85, 0.90):
        bar = values[min(int(q * len(values)), len(values) - 1)]
        alone = _share(r < 5 and own >= bar for r, _, own, _ in served)
        beside = _share(r < 5 and best >= bar and own >= shipped[1] for r, best, own, _ in served)
        print(f"   the best cosine's bar at empty {q:.0%}: only the assets over it {alone:.3f}; "
              f"with companions from {shipped[1]} {beside:.3f}")


def _wanted(built: Built, stored: Sequence[table.StoredAsset], target: Asset) -> set[int]:
    """The index's assets that are `target`, as the bench matches a pointer (`Built.matches`)."""
    return {a.id for a in stored if built.matches(
        api.Pointer(a.name, a.kind, "", a.source, 0.0, ""), target)}


def _features(near: dict[int, float]) -> tuple[float, float, float]:
    """(best cosine, its margin over the runner-up, its z-score over the other assets' best cosines)."""
    top = sorted(near.values(), reverse=True)
    if not top:
        return (0.0, 0.0, 0.0)
    rest = top[1:]
    spread = statistics.pstdev(rest) if len(rest) > 1 else 1.0
    return (top[0], top[0] - (rest[0] if rest else 0.0),
            (top[0] - (statistics.mean(rest) if rest else 0.0)) / (spread or 1.0))


def _share(flags: Iterable[bool]) -> float:
    seen = list(flags)
    return sum(seen) / max(len(seen), 1)


if __name__ == "__main__":
    main()
