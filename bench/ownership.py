"""Instant Recall's deciding tests (issue 18, seed 001 "How we'll know"): does the push put in front of the
agent what the owner already owns, and nothing it may not see?

    python bench/ownership.py [--seed N] [--owners 8] [--json PATH] [--quick] [--half report|fit]
                              [--catalogue main|blind] [--history 1-4]

Generates owners in the native formats (bench/ownership_data.py; the words in bench/ownership_catalog.py),
syncs each into a record of its own with the real sync, builds the asset index (`assets.rebuild`),
syncs the late corrections after the build, then measures on the same cases:
  ownership misses  new requests sharing no content word with their asset's stored text (checked in code;
                    the rest dropped and counted), for each setup TOPIC → NAMES → USES → CO_ACCESS → OVERLAY
                    → NAMED_SLOT → FULL and the BASELINE (every asset's name and description, the same search
                    and budget): hit@1, hit@5, tokens and ms per push; McNemar's exact test on hit@5 for each
                    step and for FULL against BASELINE; the hard cases (reached only by a correction) apart;
                    with the vectors extra, FULL+MEANING (FULL's words fused with the key vectors, the
                    bar fitted by bench/fit_push.py on the `fit` half) and BASELINE+MEANING (every asset's
                    name and description embedded, the same budget) beside them
  named first       requests naming an asset by name or alias: that asset first (target 100 %), each miss
                    of FULL and FULL+MEANING listed
  no asset serves   everyday requests and tasks of assets the owner does not have: an empty push (≥ 80 %)
  eligibility       erased, quarantined, muted (by the API and by the owner's words), superseded and
                    sub-agent scope: pushes that must not show an asset, each before and after a rebuild where
                    that applies; a sub-agent's reply compared whole with a twin record's that never
                    held the out-of-scope assets (no count may leak): 0 leaks, ≥ 1,000 cases a route;
                    each case asked of FULL and, with the vectors extra, of FULL+MEANING
  speed             push p50/p99 at 10,000 assets, warm and in a fresh process (target 5 ms, seed bar 50 ms)
The owner phrasings (corrections, mutes, request frames) are split by a fixed shuffle: the figures use the
`report` half; `--half fit` generates with the other half, for tuning. `--catalogue blind` draws what the
owners own and the requests no asset serves from bench/ownership_blind.py, written by a helper session that
read neither the push nor the main catalogue: a measure of the push on things and words nobody tuned it on.
`--history K` ties each asset to K earlier requests (each in a session of its own) instead of one: how the
push grows as an owner's history does (the bars stay the ones fitted with one).
Exits 2, saying why, while `total_recall.assets` is missing, after printing what the generator made.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import shutil
import statistics
import subprocess
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, field
from itertools import product
from pathlib import Path
from random import Random
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import ownership_api as api
from ownership_data import (
    PROJECTS,
    Asset,
    Owner,
    Plan,
    make_owner,
    mute_plan,
    project_dir,
    subagent_plan,
    write_many,
    write_owner,
    write_session,
)
from total_recall.record.database import Record

SETUPS = api.SETUPS + (api.MEANING_SETUPS if api.meaning_available() else ())
STEPS = api.SETUPS[:7]
# The eligibility routes ask both pushes that ship: words (the hook without a server) and meaning (the CLI,
# the MCP server, the runtime, the hook through a running server).
ROUTE_SETUPS = ("FULL", "FULL+MEANING") if api.meaning_available() else ("FULL",)
HARD = ("correction", "late")


def norm(name: str) -> str:
    return name.lower().lstrip("/").rsplit("/", 1)[-1]


def refs(text: str, numbers: set[int]) -> bool:
    """Whether `text` names an entry or session of one of `numbers`."""
    return any(int(n) in numbers for n in re.findall(r"\bs(\d+)(?![\d])", text))


@dataclass
class Built:
    owner: Owner
    home: Path
    record: Record
    numbers: dict[str, int]  # native session id -> session number

    def sessions_of(self, asset: Asset) -> set[int]:
        return {self.numbers[s] for s in asset.sessions if s in self.numbers}

    def matches(self, pointer: api.Pointer, asset: Asset) -> bool:
        if norm(pointer.name) in {norm(n) for n in asset.cap.names}:
            return True
        # An approach or a decision is named by the index: then its source must be where it was stated.
        return pointer.kind == asset.kind and refs(pointer.source, self.sessions_of(asset))

    def cwd(self, project: str) -> str:
        return str(project_dir(self.home, project))


@dataclass
class Tally:
    cases: int = 0
    leaks: int = 0
    examples: list[str] = field(default_factory=list)

    def add(self, leaked: str | None) -> None:
        self.cases += 1
        if leaked:
            self.leaks += 1
            if len(self.examples) < 5:
                self.examples.append(leaked)


def build(
    owner: Owner,
    home: Path,
    *,
    extra: tuple[Plan, ...] = (),
    skip: str | None = None,
    split_late: bool = True,
) -> Built:
    shutil.rmtree(home, ignore_errors=True)
    home.mkdir(parents=True)
    record = Record(home / "record.sqlite3")
    if split_late:
        write_owner(home, owner, late=False, extra=extra)
        api.sync(record, home)
        api.rebuild(record, home)
        write_owner(home, owner, late=True, extra=extra)
        api.sync(record, home)
    else:
        write_owner(home, owner, late=False, skip_project=skip, extra=extra)
        write_owner(home, owner, late=True, skip_project=skip, extra=extra)
        api.sync(record, home)
        api.rebuild(record, home)
    return Built(owner, home, record, {s.native_id: s.number for s in record.sessions()})


def copy(built: Built, label: str) -> Built:
    """The record copied, for a route that changes it; the store is shared (read-only)."""
    target = built.home / f"{label}.sqlite3"
    built.record.checkpoint()
    for path in built.home.glob("record.sqlite3*"):
        shutil.copy(path, built.home / path.name.replace("record", label, 1))
    return Built(built.owner, built.home, Record(target), built.numbers)


# -- ownership misses, named first, no asset serves --


def run_cases(built: Built, rows: dict[str, list[dict[str, Any]]]) -> None:
    for case in built.owner.cases:
        asset = built.owner.asset(case.target)
        for setup in SETUPS:
            t = time.perf_counter()
            reply = api.push(built.record, built.home, case.request, setup, cwd=built.cwd(case.project))
            ms = (time.perf_counter() - t) * 1000
            ranks = [i for i, p in enumerate(reply.pointers) if built.matches(p, asset)]
            rows[setup].append(
                {
                    "owner": built.owner.index,
                    "request": case.request,
                    "target": case.target,
                    "category": case.category,
                    "hit1": bool(ranks and ranks[0] == 0),
                    "hit5": bool(ranks and ranks[0] < 5),
                    "tokens": reply.tokens,
                    "ms": ms,
                }
            )


def run_named(built: Built, named: dict[str, list[bool]], missed: dict[str, list[str]]) -> None:
    for case in built.owner.named:
        asset = built.owner.asset(case.target)
        for setup in SETUPS:
            reply = api.push(built.record, built.home, case.request, setup, cwd=built.cwd(case.project))
            first = bool(reply.pointers) and built.matches(reply.pointers[0], asset)
            named[setup].append(first)
            if not first and setup.startswith("FULL"):
                got = reply.pointers[0].name if reply.pointers else "nothing"
                said = f"owner {built.owner.index}: {case.request!r}"
                missed[setup].append(f"{said} -> {got}, not {asset.name}")


def run_unserved(built: Built, empty: dict[str, list[bool]]) -> None:
    for request in built.owner.unserved:
        for setup in SETUPS:
            reply = api.push(built.record, built.home, request, setup, cwd=built.cwd(PROJECTS[0]))
            empty[setup].append(not reply.pointers)


# -- eligibility --


def probe(
    built: Built,
    names: list[str],
    hidden: set[str],
    hidden_sessions: set[int],
    tally: Tally,
    stale: tuple[str, ...] = (),
) -> None:
    """Ask every probe about `names`; a pointer to a hidden asset, an address in a hidden session or a stale
    word is a leak."""
    for name in names:
        for p, setup in product(built.owner.probes[name], ROUTE_SETUPS):
            reply = api.push(built.record, built.home, p.request, setup, cwd=built.cwd(PROJECTS[0]))
            leak = None
            for ptr in reply.pointers:
                text = f"{ptr.line} {ptr.source}"
                if (
                    any(built.matches(ptr, built.owner.asset(h)) for h in hidden)
                    or refs(text, hidden_sessions)
                    # an older version's words; an asset of the catalogue may hold them as its own
                    or (any(w.lower() in text.lower() for w in stale)
                        and not any(built.matches(ptr, a) for a in built.owner.assets))
                ):
                    leak = f"{p.request!r} -> {ptr.name} ({ptr.source})"
            tally.add(leak)


def route_removed(built: Built, how: str, tallies: dict[str, Tally]) -> None:
    """Erase or quarantine every session of the owner's mined assets; none of them may come out after."""
    mined = [a for a in built.owner.assets if a.kind in ("script", "machine", "approach", "decision")]
    sessions = set().union(*(built.sessions_of(a) for a in mined))
    hidden = {a.name for a in mined if built.sessions_of(a) <= sessions}
    routed = copy(built, how)
    for number in sorted(sessions):
        (api.erase if how == "erased" else api.quarantine)(routed.record, number)
    probe(routed, sorted(hidden), hidden, sessions, tallies[f"{how}, no rebuild"])
    api.rebuild(routed.record, routed.home)
    probe(routed, sorted(hidden), hidden, sessions, tallies[f"{how}, rebuilt"])
    routed.record.close()


def route_muted(built: Built, half: str, rng: Random, tallies: dict[str, Tally]) -> None:
    # An approach's or a decision's name is the index's to choose (as for the named route): the owner
    # cannot mute it by a name the index does not know.
    names = [a.name for a in built.owner.assets if a.kind not in ("approach", "decision")]
    rng.shuffle(names)
    # over a third of the nameable assets each way: with 8 owners, over 1,000 probes a route
    cut = max(len(names) * 2 // 5, 1)
    by_api, by_words = names[:cut], names[cut : 2 * cut]
    routed = copy(built, "muted")
    for name in by_api:
        api.mute(routed.record, name)
    plan = mute_plan(built.owner, by_words, half, rng)
    write_session(routed.home, plan, 99)
    api.sync(routed.record, routed.home)
    for stage in ("no rebuild", "rebuilt"):
        probe(routed, by_api, set(by_api), set(), tallies[f"muted by the API, {stage}"])
        probe(routed, by_words, set(by_words), set(), tallies[f"muted in the owner's words, {stage}"])
        if stage == "no rebuild":
            api.rebuild(routed.record, routed.home)
    routed.record.close()


def route_superseded(built: Built, tallies: dict[str, Tally]) -> None:
    """An older decision or document version: its address and its own words must not come out."""
    for s in built.owner.superseded:
        old = {built.numbers[sid] for sid in built.owner.older[s.key]}
        probe(built, [s.key], set(), old, tallies["superseded"], s.stale)


def route_scope(owner: Owner, out: Path, tallies: dict[str, Tally], side: list[str]) -> None:
    """A sub-agent of a first-project session asks about second-project assets (out of its scope) and
    about its own: nothing out of scope comes out, and every reply equals a twin's that never held them."""
    parent, child = subagent_plan(owner)
    # Homes whose paths hold the same words (a number is no term) and as many characters: a topic key holds
    # its file's path, and "full" against "twin" there moved a score (the twin is not the record's own).
    full = build(owner, out / "scope-1", extra=(parent, child), split_late=False)
    twin = build(owner, out / "scope-2", extra=(parent, child), skip=PROJECTS[1], split_late=False)
    outside = [a for a in owner.assets if a.project == PROJECTS[1]]
    inside = [a for a in owner.assets if a.project != PROJECTS[1]]

    def canon(b: Built, reply: api.Reply) -> list[str]:
        back = {n: sid for sid, n in b.numbers.items()}
        rows = [f"{p.name}|{p.kind}|{p.line}|{p.source}|{p.why}" for p in reply.pointers]
        rows = [re.sub(r"\bs(\d+)", lambda m: back.get(int(m.group(1)), m.group(0)), r) for r in rows]
        rows = [r.replace(str(b.home), "<home>") for r in rows]
        return [*rows, f"tokens={reply.tokens}", *reply.shape]

    for group in (outside, inside):
        for a in group:
            for p, setup in product(owner.probes[a.name], ROUTE_SETUPS):
                got = api.push(
                    full.record, full.home, p.request, setup,
                    session=full.numbers[child.id], cwd=full.cwd(PROJECTS[0]),
                )
                ref = api.push(
                    twin.record,
                    twin.home,
                    p.request,
                    setup,
                    session=twin.numbers[child.id],
                    cwd=twin.cwd(PROJECTS[0]),
                )
                leak = next(
                    (
                        f"{p.request!r} -> {x.name}"
                        for x in got.pointers
                        if any(full.matches(x, o) for o in outside)
                    ),
                    None,
                )
                if leak is None and canon(full, got) != canon(twin, ref):
                    leak = f"{p.request!r}: differs from the twin's: {canon(full, got)} / {canon(twin, ref)}"
                if leak is None and [x.score for x in got.pointers] != [x.score for x in ref.pointers]:
                    side.append(p.request)
                tallies["sub-agent scope"].add(leak)
    full.record.close()
    twin.record.close()


# -- speed --


def speed(out: Path, owner: Owner, count: int, seed: int, pushes: int) -> dict[str, Any]:
    home = out / "speed"
    shutil.rmtree(home, ignore_errors=True)
    home.mkdir(parents=True)
    write_owner(home, owner, late=False)
    write_owner(home, owner, late=True)
    write_many(home / ".claude", count, seed)
    record = Record(home / "record.sqlite3")
    api.sync(record, home)
    t = time.perf_counter()
    api.rebuild(record, home, meaning=False)  # the word push's speed; the meaning setups' ms are per case
    built_s = time.perf_counter() - t
    rng = Random(seed)
    requests = [p.request for ps in owner.probes.values() for p in ps]
    times = []
    for _ in range(pushes):
        t = time.perf_counter()
        api.push(record, home, rng.choice(requests), "FULL", cwd=str(project_dir(home, PROJECTS[0])))
        times.append((time.perf_counter() - t) * 1000)
    record.close()
    cold = []
    code = (
        "import sys, time; t0 = time.perf_counter(); sys.path.insert(0, sys.argv[1]);"
        "import ownership_api as api;"
        "from pathlib import Path; from total_recall.record.database import Record;"
        "h = Path(sys.argv[2]); r = Record(h / 'record.sqlite3'); t = time.perf_counter();"
        "api.push(r, h, sys.argv[3], 'FULL'); e = time.perf_counter();"
        "print((e - t) * 1000, (e - t0) * 1000)"
    )
    for request in requests[:5]:
        t = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-c", code, str(Path(__file__).parent), str(home), request],
            capture_output=True,
            text=True,
            check=False,
        )
        wall = (time.perf_counter() - t) * 1000
        if done.returncode != 0:
            raise api.BenchError(f"a push in a fresh process failed: {done.stderr.strip()[-500:]}")
        first, inside = map(float, done.stdout.split()[-2:])
        cold.append((first, inside, wall))
    return {
        "assets": count,
        "rebuild_s": built_s,
        "p50": pct(times, 50),
        "p99": pct(times, 99),
        "pushes": len(times),
        "cold_first_push_ms": [c[0] for c in cold],
        "cold_process_ms": [c[2] for c in cold],
    }


# -- figures --


def pct(values: list[float], p: float) -> float:
    if not values:
        return math.nan
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(p / 100 * len(ordered)) - 1))]


def mcnemar(a: list[bool], b: list[bool]) -> tuple[int, int, float]:
    """Discordant pairs (a only, b only) and the exact two-sided p of McNemar's test."""
    only_a = sum(x and not y for x, y in zip(a, b, strict=True))
    only_b = sum(y and not x for x, y in zip(a, b, strict=True))
    n, k = only_a + only_b, min(only_a, only_b)
    p = min(1.0, 2 * sum(math.comb(n, i) for i in range(k + 1)) / 2**n) if n else 1.0
    return only_a, only_b, p


def report(
    rows: dict[str, list[dict[str, Any]]],
    named: dict[str, list[bool]],
    empty: dict[str, list[bool]],
    missed: dict[str, list[str]],
    tallies: dict[str, Tally],
    side: list[str],
    fast: dict[str, Any] | None,
    command: str,
) -> dict[str, Any]:
    out: dict[str, Any] = {"command": command}
    n = len(rows["FULL"])
    print(
        f"\n== ownership misses: {n} paired cases (target: FULL hit@5 >= 0.90, baseline beside)\n   {command}"
    )
    print(f"{'setup':<17}{'hit@1':>7}{'hit@5':>7}{'hard @5':>9}{'tokens':>8}{'ms p50':>8}{'ms p99':>8}")
    hard = [i for i, r in enumerate(rows["FULL"]) if r["category"] in HARD]
    for s in SETUPS:
        rs = rows[s]
        line = {
            "hit1": _mean(r["hit1"] for r in rs),
            "hit5": _mean(r["hit5"] for r in rs),
            "hard_hit5": _mean(rs[i]["hit5"] for i in hard),
            "tokens": _mean(r["tokens"] for r in rs),
            "ms_p50": pct([r["ms"] for r in rs], 50),
            "ms_p99": pct([r["ms"] for r in rs], 99),
        }
        out[s] = line
        print(
            f"{s:<17}{line['hit1']:>7.3f}{line['hit5']:>7.3f}{line['hard_hit5']:>9.3f}{line['tokens']:>8.1f}"
            f"{line['ms_p50']:>8.2f}{line['ms_p99']:>8.2f}"
        )
    print(f"   hard cases (reached only through a correction): {len(hard)} of {n}")
    shown = [s for s in ("FULL", "BASELINE", "FULL+MEANING", "BASELINE+MEANING") if rows.get(s)]
    print(f"\n   per category, hit@5 ({' / '.join(shown)})")
    for cat in ("correction", "late", "helped", "co-access"):
        idx = [i for i, r in enumerate(rows["FULL"]) if r["category"] == cat]
        print(f"   {cat:<11}{len(idx):>5}  " + " / ".join(
            f"{_mean(rows[s][i]['hit5'] for i in idx):.3f}" for s in shown))
    print("\n   paired hit@5 (McNemar, exact): each step against the one before, FULL against BASELINE")
    out["mcnemar"] = {}
    meaning = [("FULL+MEANING", "FULL"), ("FULL+MEANING", "BASELINE+MEANING")]
    meaning = meaning if rows.get("FULL+MEANING") else []
    for a, b in [*zip(STEPS[1:], STEPS[:-1], strict=True), ("FULL", "BASELINE"), *meaning]:
        only_a, only_b, p = mcnemar([r["hit5"] for r in rows[a]], [r["hit5"] for r in rows[b]])
        out["mcnemar"][f"{a} vs {b}"] = {"only_first": only_a, "only_second": only_b, "p": p}
        print(f"   {a:>16} vs {b:<16} {only_a:>4} won, {only_b:>4} lost, p = {p:.3g}")
    print(
        f"\n== named asset first: {len(named['FULL'])} requests naming an asset (target 100 %)\n   {command}"
    )
    for s in SETUPS:
        out.setdefault("named_first", {})[s] = _mean(named[s])
        print(f"   {s:<17}{_mean(named[s]):>7.1%}")
        for miss in missed.get(s, []):
            print(f"      {miss[:200]}")
    out["named_missed"] = missed
    print(f"\n== requests no asset serves: {len(empty['FULL'])} (target: empty push >= 80 %)\n   {command}")
    for s in SETUPS:
        out.setdefault("empty", {})[s] = _mean(empty[s])
        print(f"   {s:<17}{_mean(empty[s]):>7.1%}")
    print(f"\n== eligibility (target: 0 leaks, >= 1,000 cases a route)\n   {command}")
    out["eligibility"] = {}
    for route, t in tallies.items():
        out["eligibility"][route] = {"cases": t.cases, "leaks": t.leaks, "examples": t.examples}
        print(f"   {route:<40}{t.cases:>7,} cases {t.leaks:>6,} leaks")
        for e in t.examples[:3]:
            print(f"      {e[:200]}")
    print(f"   sub-agent replies equal to the twin's but scored differently (a side channel): {len(side)}")
    out["scope_score_drift"] = len(side)
    if fast:
        out["speed"] = fast
        print(
            f"\n== speed: push at {fast['assets']:,} assets + one owner (target p99 < 5 ms; seed bar 50 ms)\n"
            f"   {command}"
        )
        print(
            f"   rebuild {fast['rebuild_s']:.1f} s; warm push p50 {fast['p50']:.2f} ms, "
            f"p99 {fast['p99']:.2f} ms "
            f"({fast['pushes']} pushes)"
        )
        print(
            "   fresh process: first push "
            + ", ".join(f"{x:.1f}" for x in fast["cold_first_push_ms"])
            + " ms; whole process "
            + ", ".join(f"{x:.0f}" for x in fast["cold_process_ms"])
            + " ms"
        )
    return out


def _mean(values: Any) -> float:
    vs = [float(v) for v in values]
    return statistics.fmean(vs) if vs else math.nan


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=None, help="default: a new one each run (printed)")
    ap.add_argument("--owners", type=int, default=8)
    ap.add_argument("--per-owner", type=int, default=24, help="assets per owner (of the catalogue's 32)")
    ap.add_argument("--half", choices=("report", "fit"), default="report")
    ap.add_argument("--speed-assets", type=int, default=10_000)
    ap.add_argument("--catalogue", choices=("main", "blind"), default="main",
                    help="what owners own; `blind`: written by a hand that read neither the push nor `main`")
    ap.add_argument("--history", type=int, choices=range(1, 5), default=1,
                    help="earlier requests tying each asset to its uses (each in a session of its own)")
    ap.add_argument("--quick", action="store_true", help="2 owners, 1,000 assets for speed: seconds, for CI")
    ap.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "out" / "ownership")
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args()
    os.umask(0o077)  # the record's home is private; saying so for every generated owner is noise
    if args.quick:
        args.owners, args.speed_assets = min(args.owners, 2), min(args.speed_assets, 1000)
    seed = args.seed if args.seed is not None else int.from_bytes(os.urandom(4), "big")
    command = (
        "python bench/ownership.py "
        + " ".join(a for a in sys.argv[1:] if a != f"--seed={seed}")
        + ("" if args.seed is not None else f" --seed {seed}")
    )
    print(f"seed {seed}, phrasing half '{args.half}', catalogue '{args.catalogue}', "
          f"{args.history} earlier request(s) an asset")
    owners = [make_owner(i, seed, args.half, args.per_owner, args.catalogue, args.history)
              for i in range(args.owners)]
    cases = sum(len(o.cases) for o in owners)
    dropped = sum(len(o.dropped) for o in owners)
    print(
        f"generated {len(owners)} owners: {sum(len(o.assets) for o in owners)} assets, "
        f"{sum(len(o.plans) for o in owners)} sessions; {cases + dropped} new requests, {cases} share no "
        f"content "
        f"word with their asset ({dropped} dropped); {sum(len(o.named) for o in owners)} named, "
        f"{sum(len(o.unserved) for o in owners)} unserved"
    )
    why = api.missing()
    if why:
        print(f"\ncannot measure: {why}", file=sys.stderr)
        raise SystemExit(2)
    rows: dict[str, list[dict[str, Any]]] = defaultdict(list)
    named: dict[str, list[bool]] = defaultdict(list)
    empty: dict[str, list[bool]] = defaultdict(list)
    missed: dict[str, list[str]] = defaultdict(list)
    tallies: dict[str, Tally] = defaultdict(Tally)
    side: list[str] = []
    rng = Random(seed)
    try:
        for owner in owners:
            t = time.perf_counter()
            built = build(owner, args.out / f"owner-{owner.index}")
            run_cases(built, rows)
            run_named(built, named, missed)
            run_unserved(built, empty)
            route_superseded(built, tallies)
            route_removed(built, "erased", tallies)
            route_removed(built, "quarantined", tallies)
            route_muted(built, args.half, rng, tallies)
            built.record.close()
            route_scope(owner, args.out / f"owner-{owner.index}", tallies, side)
            print(
                f"owner {owner.index}: {len(owner.cases)} cases, {time.perf_counter() - t:.1f} s", flush=True
            )
        fast = speed(args.out, owners[0], args.speed_assets, seed, 200 if args.quick else 1000)
    except api.BenchError as exc:
        print(f"\ncannot measure: {exc}", file=sys.stderr)
        raise SystemExit(2) from None
    table = report(rows, named, empty, missed, tallies, side, fast, command)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        table.update(
            seed=seed,
            half=args.half,
            catalogue=args.catalogue,
            history=args.history,
            cases=rows["FULL"],
            dropped=[(r, a, sorted(w)) for o in owners for r, a, w in o.dropped],
        )
        args.json.write_text(json.dumps(table, indent=1, default=str))


if __name__ == "__main__":
    main()
