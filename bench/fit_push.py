"""Fits the push's relevance bar for meaning (`assets/meaning.py` MEANING_BAR) on the ownership bench's
`fit` half only, so the figures of `bench/ownership.py --half report` are measured on phrasings it never saw.

    python bench/fit_push.py [--seed N] [--owners 8] [--target 0.85]

Builds the owners as the bench does (same generator, `--half fit`), then for each bar on a grid pushes
every ownership-miss case and every request no asset serves with FULL+MEANING, and prints hit@1, hit@5
and the share of empty pushes for the unserved. The bar to keep is the lowest one whose empty share
reaches `--target` (the issue's floor is 80 %; the default keeps a margin for the report half).

It also prints what limits the push by meaning (docs/BENCHMARKS.md, "Instant Recall"): the ranking's own
ceiling (the asset anywhere in the top five of `meaning.nearest`, no bar at all), and for three kinds of
bar — on the best cosine, on its margin over the runner-up, on its z-score over the other assets the
reader sees — the hit@5 each reaches at the bar keeping 80 / 85 / 90 % of the unserved requests empty.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
from collections.abc import Iterable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import ownership_api as api
from ownership import build, norm
from ownership_data import PROJECTS, make_owner
from total_recall.assets import meaning
from total_recall.assets.eligibility import reader_of
from total_recall.record import assets as table

GRID = [round(0.30 + 0.025 * i, 3) for i in range(17)]  # 0.30 … 0.70


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=3)
    ap.add_argument("--owners", type=int, default=8)
    ap.add_argument("--per-owner", type=int, default=24)
    ap.add_argument("--target", type=float, default=0.85)
    ap.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "out" / "fit_push")
    args = ap.parse_args()
    os.umask(0o077)
    if not api.meaning_available():
        raise SystemExit("the vectors extra is not installed: nothing to fit")
    hits: dict[float, list[tuple[bool, bool]]] = {b: [] for b in GRID}
    empty: dict[float, list[bool]] = {b: [] for b in GRID}
    served: list[tuple[bool, tuple[float, float, float]]] = []  # (in the top five, features)
    unserved: list[tuple[float, float, float]] = []
    for i in range(args.owners):
        owner = make_owner(i, args.seed, "fit", args.per_owner)
        built = build(owner, args.out / f"owner-{i}")
        names = {a.id: norm(a.name) for a in table.stored_assets(built.record)}
        build_ = table.last_build(built.record)
        for case in owner.cases:
            want = {norm(n) for n in owner.asset(case.target).cap.names}
            near = meaning.nearest(built.record, build_, case.request,
                                   reader_of(built.record, None, built.cwd(case.project)))
            top = sorted(near, key=near.__getitem__, reverse=True)[:5]
            served.append((any(names.get(a) in want for a in top), _features(near)))
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
            for request in owner.unserved:
                reply = api.push(built.record, built.home, request, "FULL+MEANING",
                                 cwd=built.cwd(PROJECTS[0]))
                empty[bar].append(not reply.pointers)
        built.record.close()
        print(f"owner {i}: {len(owner.cases)} cases, {len(owner.unserved)} unserved", flush=True)
    print(f"\nseed {args.seed}, half 'fit': {len(hits[GRID[0]])} cases, {len(empty[GRID[0]])} unserved")
    print(f"{'bar':>6}{'hit@1':>8}{'hit@5':>8}{'empty':>8}")
    chosen = None
    for bar in GRID:
        h1 = sum(a for a, _ in hits[bar]) / max(len(hits[bar]), 1)
        h5 = sum(b for _, b in hits[bar]) / max(len(hits[bar]), 1)
        e = sum(empty[bar]) / max(len(empty[bar]), 1)
        if chosen is None and e >= args.target:
            chosen = bar
        print(f"{bar:>6.3f}{h1:>8.3f}{h5:>8.3f}{e:>8.1%}")
    print(f"\nthe lowest bar keeping >= {args.target:.0%} of the unserved empty: {chosen}")
    print(f"\nby meaning alone: the asset in the top five with no bar {_share(h for h, _ in served):.3f}")
    for n, kind in enumerate(("best cosine", "margin over the runner-up", "z-score over the rest")):
        values = sorted(f[n] for f in unserved)
        cuts = []
        for q in (0.80, 0.85, 0.90):
            bar = values[min(int(q * len(values)), len(values) - 1)]
            cuts.append(f"empty {q:.0%}: hit@5 {_share(h and f[n] >= bar for h, f in served):.3f}")
        print(f"   a bar on the {kind:<26} " + "; ".join(cuts))


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
