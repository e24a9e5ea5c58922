"""LoCoMo out of sample: fit the search constants on five conversations, report on the other five.

    python bench/fit_search.py [--record DIR] [--zip PATH] [--json PATH] [--passes N]

The ten conversations are cut into two fixed halves by their order in locomo10.json (1-5, 6-10). On the
train half, a coordinate search over the constants of `find/search.py` that were tuned on LoCoMo
(TUNED below, each over a few values around the shipped one) picks the best recall@5, starting from the
shipped values: one constant at a time is set to each of its values with the others held, the best kept
(ties keep the current value), for up to `--passes` rounds or until nothing moves. The constants are
module attributes read when a search runs; the script checks that each is a global some function of the
module reads (not a default captured at import), so setting it here changes the ranking. Then the
held-out half is asked with the fitted constants, with the shipped ones, and by plain BM25 (the baseline
of bench/locomo.py), and the halves swap. The in-sample figure (shipped constants on all ten) is printed
beside. The honest figure is the held-out one with constants fitted on the other half.

`--record DIR` is bench/locomo.py's: a record synced and embedded there once is reused, so the fit
costs only its searches (each question's embedding is computed once per run and reused across settings).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import time
import types
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from locomo import (
    DEFAULT_ZIP,
    EXPECTED_QUESTIONS,
    KS,
    Question,
    address_map,
    ask_bm25,
    ask_ours,
    check_ids,
    embed_all,
    load,
    open_record,
    questions_of,
    recall,
)
from total_recall.find import search as ranking
from total_recall.indexes import vectors

# The constants chosen on all 1,536 questions, each with the values tried (the shipped one among them).
# `_STOP` is the query's stop-word list: the shipped list, or none.
TUNED: dict[str, tuple[Any, ...]] = {
    "NEIGHBOUR": (0.0, 0.2, 0.35, 0.5, 0.7, 1.0),
    "POOL": (200, 400, 600, 800),
    "RERANK_DEPTH": (10, 20, 30, 50, 80),
    "COVERAGE_WEIGHT": (0.6, 0.9, 1.2, 1.6, 2.0),
    "LENGTH_WEIGHT": (0.0, 0.15, 0.3, 0.45, 0.6),
    "ASKING_WEIGHT": (0.0, -0.1, -0.2, -0.4),
    "MEANING_WEIGHT": (0.1, 0.25, 0.4, 0.6),
    "_STOP": ("shipped", "none"),
}
SHIPPED_STOP = ranking._STOP


def check_read_at_call_time(module: types.ModuleType, names: Sequence[str]) -> None:
    """Refuse to fit a constant no function of the module reads as a global: setting it would change
    nothing (a renamed constant, or one captured in a default or a derived constant at import)."""
    read: set[str] = set()

    def walk(code: types.CodeType) -> None:
        read.update(code.co_names)
        for const in code.co_consts:
            if isinstance(const, types.CodeType):
                walk(const)

    for value in vars(module).values():
        if isinstance(value, types.FunctionType) and value.__module__ == module.__name__:
            walk(value.__code__)
        elif isinstance(value, type) and value.__module__ == module.__name__:
            for member in vars(value).values():
                if isinstance(member, types.FunctionType):
                    walk(member.__code__)
    missing = [n for n in names if n not in read or not hasattr(module, n)]
    if missing:
        sys.exit(f"{module.__name__}: {', '.join(missing)} not read by any function at call time; "
                 "fitting them would change nothing")


def shipped() -> dict[str, Any]:
    return {name: "shipped" if name == "_STOP" else getattr(ranking, name) for name in TUNED}


@contextlib.contextmanager
def constants(setting: dict[str, Any]) -> Iterator[None]:
    """The search module's constants set to `setting` for the block, put back after it."""
    before = {name: getattr(ranking, name) for name in setting}
    try:
        for name, value in setting.items():
            if name == "_STOP":
                value = SHIPPED_STOP if value == "shipped" else frozenset()
            setattr(ranking, name, value)
        yield
    finally:
        for name, value in before.items():
            setattr(ranking, name, value)


def memoize_query_embedding() -> None:
    """Each question is embedded once per run, not once per setting tried: the same vector every time,
    so the ranking is unchanged; only the fit's time is."""
    embed = vectors.embed
    cache: dict[str, Any] = {}

    def embed_once(texts: Sequence[str]) -> Any:
        if len(texts) != 1:
            return embed(texts)
        if texts[0] not in cache:
            cache[texts[0]] = embed(texts)
        return cache[texts[0]]

    vectors.embed = embed_once


def key(setting: dict[str, Any]) -> tuple[Any, ...]:
    return tuple(setting[name] for name in TUNED)


def fit(evaluate: Callable[[dict[str, Any]], dict[str, float]], names: Sequence[str],
        passes: int) -> tuple[dict[str, Any], dict[str, float], dict[tuple[Any, ...], dict[str, float]]]:
    """Coordinate search from the shipped constants: the setting with the best (r@5, r@10, r@1) on the
    train half, its recall there, and the recall of every setting tried (by `key`)."""
    current = shipped()
    seen: dict[tuple[Any, ...], dict[str, float]] = {}

    def score(setting: dict[str, Any]) -> dict[str, float]:
        if key(setting) not in seen:
            seen[key(setting)] = evaluate(setting)
        return seen[key(setting)]

    def order(r: dict[str, float]) -> tuple[float, float, float]:
        return (round(r["r@5"], 9), round(r["r@10"], 9), round(r["r@1"], 9))

    best = score(current)
    for n in range(passes):
        moved = False
        for name in names:
            for value in TUNED[name]:
                trial = {**current, name: value}
                r = score(trial)
                if order(r) > order(best):
                    current, best, moved = trial, r, True
            print(f"  pass {n + 1}, {name:<15} -> {current[name]!s:<8} train r@5 {best['r@5']:.3f} "
                  f"({len(seen)} settings tried)", flush=True)
        if not moved:
            break
    return current, best, seen


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--zip", type=Path, default=DEFAULT_ZIP)
    ap.add_argument("--record", type=Path, default=None, metavar="DIR",
                    help="sync and embed into DIR once; reuse the record found there on later runs")
    ap.add_argument("--passes", type=int, default=2, metavar="N", help="rounds of the coordinate search")
    ap.add_argument("--json", type=Path, default=None, metavar="PATH")
    args = ap.parse_args(argv)
    started = time.perf_counter()
    os.environ.setdefault("TOTAL_RECALL_VECTOR_BUDGET", "0")
    convs = load(args.zip)
    check_ids(convs)
    check_read_at_call_time(ranking, list(TUNED))
    halves = ([c.conv_id for c in convs[:5]], [c.conv_id for c in convs[5:]])
    print(f"halves: A = {', '.join(halves[0])}; B = {', '.join(halves[1])}")

    with contextlib.ExitStack() as stack:
        record, _, _ = open_record(stack, args.record, convs)
        addrs = address_map(record, convs)
        questions, _, _ = questions_of(convs, addrs)
        assert len(questions) == EXPECTED_QUESTIONS, f"{len(questions)} questions, not 1536"
        with_meaning, _ = embed_all(record)
        if with_meaning:
            memoize_query_embedding()
        else:
            print("meaning: the vectors extra is not installed; words only, MEANING_WEIGHT not fitted")
        tuned = [n for n in TUNED if with_meaning or n != "MEANING_WEIGHT"]
        ask_bm25(convs, addrs, questions)

        def evaluate(setting: dict[str, Any], qs: Sequence[Question],
                     system: str = "ours") -> dict[str, float]:
            with constants(setting):
                ask_ours(ranking.search, record, addrs, qs, system=system, meaning=with_meaning)
            return recall(qs, system)

        t = time.perf_counter()
        in_sample = evaluate(shipped(), questions, "shipped")
        per_setting = time.perf_counter() - t
        print(f"in sample (shipped constants, all {len(questions)} questions): "
              f"{fmt(in_sample)}; BM25 {fmt(recall(questions, 'bm25'))} ({per_setting:.1f} s a pass)")

        results: list[dict[str, Any]] = []
        for train_ids, test_ids, label in ((*halves, "A -> B"), (halves[1], halves[0], "B -> A")):
            train = [q for q in questions if q.conv_id in train_ids]
            test = [q for q in questions if q.conv_id in test_ids]

            def on_train(setting: dict[str, Any], qs: list[Question] = train) -> dict[str, float]:
                return evaluate(setting, qs)

            print(f"\nfit on {label.split()[0]} ({len(train)} questions), report on {label.split()[-1]} "
                  f"({len(test)} questions)", flush=True)
            setting, fitted_train, tried = fit(on_train, tuned, args.passes)
            print(f"  fitted: {', '.join(f'{k}={v}' for k, v in setting.items())}", flush=True)
            results.append({
                "train": label.split()[0], "test": label.split()[-1], "n_train": len(train),
                "n_test": len(test), "fitted": setting, "settings_tried": len(tried),
                "train_fitted": fitted_train, "train_shipped": tried[key(shipped())],
                "test_fitted": evaluate(setting, test, "fitted"),
                "test_shipped": evaluate(shipped(), test, "shipped"),
                "test_bm25": recall(test, "bm25"),
            })

    print(f"\n{'':<44}{'n':>6}{'r@1':>8}{'r@5':>8}{'r@10':>8}")
    for r in results:
        head = f"held out {r['test']} (fit on {r['train']})"
        print(f"{head}, fitted constants".ljust(44) + row(r["n_test"], r["test_fitted"]))
        print(f"{head}, shipped constants".ljust(44) + row(r["n_test"], r["test_shipped"]))
        print(f"{head}, BM25".ljust(44) + row(r["n_test"], r["test_bm25"]))
        print(f"train {r['train']}, fitted constants".ljust(44) + row(r["n_train"], r["train_fitted"]))
        print(f"train {r['train']}, shipped constants".ljust(44) + row(r["n_train"], r["train_shipped"]))
        print(f"  fitted: {', '.join(f'{k}={v}' for k, v in r['fitted'].items())} "
              f"({r['settings_tried']} settings tried)")
    print("in sample, all ten, shipped".ljust(44) + row(len(questions), in_sample))
    print("in sample, all ten, BM25".ljust(44) + row(len(questions), recall(questions, "bm25")))
    pooled = {f"r@{k}": sum(r["test_fitted"][f"r@{k}"] * r["n_test"] for r in results) / len(questions)
              for k in KS}
    print("held out, both halves pooled".ljust(44) + row(len(questions), pooled))
    total_s = time.perf_counter() - started
    print(f"whole run {total_s:.0f} s")
    if args.json:
        args.json.write_text(json.dumps({
            "halves": halves, "with_meaning": with_meaning, "grid": TUNED, "passes": args.passes,
            "in_sample_shipped": in_sample, "in_sample_bm25": recall(questions, "bm25"),
            "held_out": results, "held_out_pooled": pooled, "total_s": total_s,
        }, indent=2, default=str) + "\n", encoding="utf-8")
    return 0


def fmt(r: dict[str, float]) -> str:
    return " / ".join(f"{r[f'r@{k}']:.3f}" for k in KS)


def row(n: int, r: dict[str, float]) -> str:
    return f"{n:>6}" + "".join(f"{r[f'r@{k}']:>8.3f}" for k in KS)


if __name__ == "__main__":
    sys.exit(main())
