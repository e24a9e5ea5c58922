"""LoCoMo retrieval benchmark: does the top-k of a search for the question hold an evidence turn?

    python bench/locomo.py [--zip PATH] [--limit-questions N] [--baseline-only] [--json PATH] [--record DIR]

Each LoCoMo conversation becomes a real Claude Code store (one JSONL transcript per LoCoMo session, one
`user` line per turn, "Speaker: text" as LoCoMo's own setup reads a turn) synced into a fresh record
through the real sync path; evidence ids `D<session>:<turn>` become record addresses `s<n>#<seq>`.
Every question of categories 1-4 with evidence is asked twice, scoped to its own conversation: to our
`total_recall.find.search.search` and to a plain Okapi BM25 (k1=1.2, b=0.75, `[a-z0-9]+` lowercase
tokens, no stemming, no stop words) over the same turn texts. Prints recall@1/@5/@10 overall and per
category for both, the ratio ours/BM25, and the search latency p50/p99.

`--record DIR` keeps the synced record (and its vectors) in DIR: the first run syncs and embeds there,
later runs reuse it, so an experiment on search takes seconds instead of the ~3 minutes of embedding.
"""

from __future__ import annotations

import argparse
import contextlib
import heapq
import json
import math
import os
import re
import sys
import tempfile
import time
import uuid
import zipfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from total_recall.model import Address
from total_recall.record.database import Record
from total_recall.record.sync import sync

REPO = Path(__file__).resolve().parent.parent
DEFAULT_ZIP = REPO / "bench" / "data" / "locomo10.zip"
# The LoCoMo paper's names (the data agrees: category 1 questions average 3.1 evidence turns, almost
# all across sessions; category 4 average 1.06); category 5 (adversarial) has no answer to find.
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
EXPECTED_QUESTIONS = 1536  # 1,540 QA items of categories 1-4, less 4 with an empty evidence list
KS = (1, 5, 10)
NAMESPACE = uuid.UUID("6c6f636f-6d6f-4265-8e63-68000000a001")
_TOKEN = re.compile(r"[a-z0-9]+")
_SESSION_KEY = re.compile(r"session_(\d+)")
# "D8:6; D9:17", "D9:1 D4:4", "D:11:26" and "D30:05" all occur in the data.
_EVIDENCE = re.compile(r"D:?(\d+):(\d+)")
# Only for --stop-words, a diagnostic: the BM25 figures (0.55@5, 0.63@10) match BM25 with
# function words like these removed; plain BM25 (the default) keeps every word.
STOP_WORDS = frozenset(
    "a an the of to in on at for and or is was were are be been did does do what when where who why how "
    "which that this with by from it her his she he they their i you my me as s has have had would could "
    "should about into".split()
)


@dataclass
class Conversation:
    conv_id: str
    sessions: list[tuple[int, datetime, list[tuple[str, str]]]]  # (n, date, [(dia_id, text)])
    qa: list[dict[str, Any]]


@dataclass
class Question:
    conv_id: str
    text: str
    category: int
    evidence: set[str]  # record addresses
    hits: dict[str, list[bool]] = field(default_factory=dict)  # system -> hit at each k of KS


def turn_text(turn: dict[str, Any]) -> str:
    text = f"{turn['speaker']}: {turn['text']}"
    caption = turn.get("blip_caption")
    return f"{text} [shares a photo: {caption}]" if caption else text


def load(zip_path: Path) -> list[Conversation]:
    """locomo10.json (a list of samples) or the per-conversation `<id>.json` files of locomo10_v2."""
    with zipfile.ZipFile(zip_path) as z:
        names = sorted(n for n in z.namelist() if n.endswith(".json"))
        main = [n for n in names if Path(n).name == "locomo10.json"]
        if main:
            samples = json.loads(z.read(main[0]))
            raw = [(str(s["sample_id"]), s["conversation"], s["qa"]) for s in samples]
        else:
            docs = [(Path(n).stem, json.loads(z.read(n))) for n in names]
            raw = [(f"conv-{stem}", d, d["qa"]) for stem, d in docs if isinstance(d, dict) and "qa" in d]
    convs = []
    for conv_id, conv, qa in raw:
        sessions = []
        for key, turns in conv.items():
            m = _SESSION_KEY.fullmatch(key)
            if m and turns:
                when = datetime.strptime(conv[f"{key}_date_time"], "%I:%M %p on %d %B, %Y")
                sessions.append((int(m.group(1)), when.replace(tzinfo=UTC),
                                 [(t["dia_id"], turn_text(t)) for t in turns]))
        convs.append(Conversation(conv_id, sorted(sessions, key=lambda s: s[0]), qa))
    return convs


def session_uuid(conv_id: str, n: int) -> str:
    return str(uuid.uuid5(NAMESPACE, f"{conv_id}/session_{n}"))


def write_store(convs: Sequence[Conversation], projects: Path) -> None:
    """One Claude Code transcript per LoCoMo session, one `user` line per turn."""
    for conv in convs:
        folder = projects / f"-locomo-{conv.conv_id}"
        folder.mkdir(parents=True)
        for n, when, turns in conv.sessions:
            sid = session_uuid(conv.conv_id, n)
            parent: str | None = None
            lines = []
            for i, (dia_id, text) in enumerate(turns):
                uid = str(uuid.uuid5(NAMESPACE, f"{conv.conv_id}/{dia_id}"))
                lines.append(json.dumps({
                    "type": "user", "uuid": uid, "parentUuid": parent, "sessionId": sid,
                    "cwd": f"/locomo/{conv.conv_id}", "isSidechain": False,
                    "timestamp": (when + timedelta(seconds=i)).strftime("%Y-%m-%dT%H:%M:%S.000Z"),
                    "message": {"role": "user", "content": text},
                }))
                parent = uid
            (folder / f"{sid}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")


def address_map(record: Record, convs: Sequence[Conversation]) -> dict[str, dict[str, str]]:
    """conv_id -> dia_id -> address, checked entry by entry against the text written."""
    numbers = {s.native_id: s.number for s in record.sessions(["claude-code"])}
    out: dict[str, dict[str, str]] = {}
    for conv in convs:
        addrs = out.setdefault(conv.conv_id, {})
        for n, _, turns in conv.sessions:
            number = numbers[session_uuid(conv.conv_id, n)]
            entries = record.entries(Address(number), with_spans=False)
            if len(entries) != len(turns):
                sys.exit(f"{conv.conv_id} session {n}: {len(turns)} turns written, s{number} has "
                         f"{len(entries)} entries")
            for (dia_id, text), entry in zip(turns, entries, strict=True):
                if entry.text != text or entry.kind != "message":
                    sys.exit(f"{conv.conv_id} {dia_id} -> {entry.address}: recorded {entry.kind} "
                             f"{entry.text[:80]!r} is not the turn written {text[:80]!r}")
                if dia_id in addrs:
                    sys.exit(f"{conv.conv_id}: dia_id {dia_id} occurs twice")
                addrs[dia_id] = entry.address
    return out


def tokens(text: str) -> list[str]:
    return _TOKEN.findall(text.lower())


class BM25:
    """Okapi BM25 over a fixed list of documents; idf = ln(1 + (N - df + 0.5) / (df + 0.5))."""

    def __init__(
        self, docs: Sequence[str], k1: float = 1.2, b: float = 0.75, stop: frozenset[str] = frozenset()
    ) -> None:
        self.stop = stop
        toks = [self.tokens(d) for d in docs]
        avgdl = sum(map(len, toks)) / max(len(toks), 1)
        self.norm = [k1 * (1 - b + b * len(t) / avgdl) for t in toks]
        self.k1 = k1
        self.postings: dict[str, dict[int, int]] = {}
        for i, t in enumerate(toks):
            for term in t:
                tf = self.postings.setdefault(term, {})
                tf[i] = tf.get(i, 0) + 1
        n = len(docs)
        self.idf = {t: math.log(1 + (n - len(p) + 0.5) / (len(p) + 0.5)) for t, p in self.postings.items()}

    def tokens(self, text: str) -> list[str]:
        return [t for t in tokens(text) if t not in self.stop] if self.stop else tokens(text)

    def top(self, query: str, k: int) -> list[int]:
        scores: dict[int, float] = {}
        for term in self.tokens(query):  # a repeated query word counts each time, as in plain BM25
            for doc, tf in self.postings.get(term, {}).items():
                gain = self.idf[term] * tf * (self.k1 + 1) / (tf + self.norm[doc])
                scores[doc] = scores.get(doc, 0.0) + gain
        return heapq.nlargest(k, scores, key=lambda d: (scores[d], -d))


def percentile(values: Sequence[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(p / 100 * len(ordered)) - 1))] if ordered else 0.0


def recall(questions: Sequence[Question], system: str) -> dict[str, float]:
    n = max(len(questions), 1)
    return {f"r@{k}": sum(q.hits[system][i] for q in questions) / n for i, k in enumerate(KS)}


def judge(q: Question, system: str, ranked: Sequence[str]) -> None:
    q.hits[system] = [any(a in q.evidence for a in ranked[:k]) for k in KS]


def open_record(stack: contextlib.ExitStack, record: Path | None,
                convs: Sequence[Conversation]) -> tuple[Record, float, bool]:
    """The synced record of `convs`: in a temporary folder, or kept in (and reused from) `record`.

    Returns the record, the sync's seconds and whether the record was reused."""
    n_turns = sum(len(t) for c in convs for _, _, t in c.sessions)
    if record is None:
        tmp = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="locomo-")))
    else:
        tmp = record
        tmp.mkdir(parents=True, exist_ok=True)
    reused = (tmp / "record.sqlite3").exists()
    if not reused:
        write_store(convs, tmp / "claude" / "projects")
    t = time.perf_counter()
    opened_record = Record(tmp / "record.sqlite3")
    stack.callback(opened_record.close)
    report = sync(opened_record, ["claude-code"], roots={"claude-code": tmp / "claude" / "projects"})
    if reused:
        # address_map checks every entry against the turn written, so a stale record is refused.
        if report.errors or report.entries_added:
            sys.exit(f"{tmp}: the kept record is not this data set's (sync added "
                     f"{report.entries_added} entries, errors {report.errors}); remove it")
    elif report.errors or report.warnings or report.entries_added != n_turns:
        sys.exit(f"sync: {report.entries_added} entries for {n_turns} turns; errors "
                 f"{report.errors}; warnings {[str(w) for w in report.warnings[:5]]}")
    return opened_record, time.perf_counter() - t, reused


def questions_of(
    convs: Sequence[Conversation], addrs: dict[str, dict[str, str]]
) -> tuple[list[Question], dict[str, int], list[str]]:
    """Every question of categories 1-4 with evidence, its evidence as record addresses; with the
    evidence counts and the ids that resolve to no turn."""
    questions: list[Question] = []
    ev = {"strings": 0, "ids": 0, "repaired": 0, "unresolved": 0, "no_evidence": 0, "all_unresolved": 0}
    unresolved: list[str] = []
    for conv in convs:
        for qa in conv.qa:
            if qa["category"] not in CATEGORIES:
                continue
            if not qa["evidence"]:
                ev["no_evidence"] += 1
                continue
            found: set[str] = set()
            for s in qa["evidence"]:
                ev["strings"] += 1
                parsed = [f"D{a}:{int(b)}" for a, b in _EVIDENCE.findall(s)]
                ev["repaired"] += bool(parsed) and parsed != [s]
                for dia in parsed or [s]:
                    ev["ids"] += 1
                    if dia in addrs[conv.conv_id]:
                        found.add(addrs[conv.conv_id][dia])
                    else:
                        ev["unresolved"] += 1
                        unresolved.append(f"{conv.conv_id} {s!r}")
            ev["all_unresolved"] += not found
            questions.append(Question(conv.conv_id, qa["question"], qa["category"], found))
    return questions, ev, unresolved


def ask_bm25(convs: Sequence[Conversation], addrs: dict[str, dict[str, str]], questions: Sequence[Question],
             stop: frozenset[str] = frozenset(), system: str = "bm25") -> float:
    """Judge every question by plain BM25 over its own conversation's turns; ms per question."""
    by_conv = {c.conv_id: c for c in convs}
    bm25: dict[str, tuple[BM25, list[str]]] = {}
    for cid in {q.conv_id for q in questions}:
        texts = [text for _, _, turns in by_conv[cid].sessions for _, text in turns]
        bm25[cid] = (BM25(texts, stop=stop), list(addrs[cid].values()))
    t = time.perf_counter()
    for q in questions:
        index, order = bm25[q.conv_id]
        judge(q, system, [order[i] for i in index.top(q.text, max(KS))])
    return (time.perf_counter() - t) * 1000 / max(len(questions), 1)


def ask_ours(search: Callable[..., Any], record: Record, addrs: dict[str, dict[str, str]],
             questions: Sequence[Question], system: str = "ours",
             meaning: bool = True) -> tuple[list[float], int]:
    """Judge every question by our search within its own conversation; latencies (ms) and hits found
    outside their conversation."""
    latencies: list[float] = []
    leaks = 0
    for q in questions:
        t = time.perf_counter()
        hits = search(record, q.text, limit=max(KS), project=f"/locomo/{q.conv_id}", meaning=meaning)
        latencies.append((time.perf_counter() - t) * 1000)
        own = set(addrs[q.conv_id].values())
        leaks += sum(h.address not in own for h in hits)
        judge(q, system, [h.address for h in hits])
    return latencies, leaks


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--zip", type=Path, default=DEFAULT_ZIP)
    ap.add_argument("--limit-questions", type=int, default=None, metavar="N")
    ap.add_argument("--baseline-only", action="store_true", help="BM25 only (no total_recall.find)")
    ap.add_argument("--json", type=Path, default=None, metavar="PATH")
    ap.add_argument("--stop-words", action="store_true", help="diagnostic: BM25 drops STOP_WORDS")
    ap.add_argument("--record", type=Path, default=None, metavar="DIR",
                    help="sync and embed into DIR once; reuse the record found there on later runs")
    args = ap.parse_args(argv)
    started = time.perf_counter()
    os.environ.setdefault("TOTAL_RECALL_VECTOR_BUDGET", "0")  # embedding is timed on its own below
    search: Callable[..., Any] | None = None
    if not args.baseline_only:
        try:
            from total_recall.find.search import search
        except ImportError as exc:
            sys.exit(f"total_recall.find.search is not importable ({exc}); run with --baseline-only")
    convs = load(args.zip)
    n_turns = sum(len(t) for c in convs for _, _, t in c.sessions)
    n_sessions = sum(len(c.sessions) for c in convs)
    check_ids(convs)

    with contextlib.ExitStack() as stack:
        record, sync_s, reused = open_record(stack, args.record, convs)
        addrs = address_map(record, convs)
        if reused:
            print(f"record reused from {args.record}")
        questions, ev, unresolved = questions_of(convs, addrs)
        if args.limit_questions is None:
            assert len(questions) == EXPECTED_QUESTIONS, f"{len(questions)} questions, not 1536"
        else:
            questions = questions[: args.limit_questions]
        print(f"LoCoMo: {len(convs)} conversations, {n_sessions} sessions, {n_turns} turns synced in "
              f"{sync_s:.2f} s; {len(questions)} questions (categories 1-4; {ev['no_evidence']} without "
              f"evidence left out)")
        print(f"evidence: {ev['strings']} strings -> {ev['ids']} ids ({ev['repaired']} strings split or "
              f"repaired), {ev['unresolved']} unresolved: {', '.join(unresolved) or '-'}; "
              f"{ev['all_unresolved']} questions with no resolvable evidence (kept)")

        bm25_ms = ask_bm25(convs, addrs, questions, STOP_WORDS if args.stop_words else frozenset())
        latencies: list[float] = []
        leaks = 0
        first_ms = 0.0
        embed_s = 0.0
        with_meaning = False
        if search is not None and questions:
            with_meaning, embed_s = embed_all(record)
            t = time.perf_counter()
            search(record, questions[0].text, limit=max(KS), project=f"/locomo/{questions[0].conv_id}")
            first_ms = (time.perf_counter() - t) * 1000  # a lazily built index shows here, not in p99
            latencies, leaks = ask_ours(search, record, addrs, questions)
            if with_meaning:
                ask_ours(search, record, addrs, questions, system="words", meaning=False)

    systems = ["bm25"] + (["words"] if with_meaning else []) + (["ours"] if search is not None else [])
    table = recall_table(questions, systems)
    print_table(table, systems)
    latency = {"p50": percentile(latencies, 50), "p99": percentile(latencies, 99), "first": first_ms}
    if latencies:
        print(f"\nsearch latency: p50 {latency['p50']:.2f} ms, p99 {latency['p99']:.2f} ms "
              f"(first call {first_ms:.1f} ms, untimed); hits outside their conversation: {leaks}")
    total_s = time.perf_counter() - started
    print(f"BM25 {bm25_ms:.2f} ms/question; whole run {total_s:.1f} s")
    if args.json:
        args.json.write_text(json.dumps({
            "questions": len(questions), "conversations": len(convs), "sessions": n_sessions,
            "turns": n_turns, "evidence": ev, "unresolved": unresolved, "recall": table,
            "latency_ms": latency if latencies else None, "leaks": leaks if latencies else None,
            "bm25_stop_words": args.stop_words, "bm25_ms_per_question": bm25_ms, "sync_s": sync_s,
            "total_s": total_s, "embed_s": embed_s, "with_meaning": with_meaning,
        }, indent=2) + "\n", encoding="utf-8")
    return 0


def check_ids(convs: Sequence[Conversation]) -> None:
    ids = [c.conv_id for c in convs]
    if any(a != b and f"/locomo/{b}".startswith(f"/locomo/{a}") for a in ids for b in ids):
        sys.exit("a conversation id is a prefix of another: project scoping by substring would leak")


def embed_all(record: Record) -> tuple[bool, float]:
    """Embed every turn still without a vector, when the vectors extra is installed: (with meaning, s)."""
    from total_recall.indexes import vectors

    if not vectors.available():
        return False, 0.0
    t = time.perf_counter()
    embedded, _ = vectors.index_pending(record.db)
    embed_s = time.perf_counter() - t
    print(f"meaning: {vectors.count(record.db)} turns have vectors ({embedded} embedded now, "
          f"in {embed_s:.1f} s)")
    return True, embed_s


def recall_table(questions: Sequence[Question], systems: Sequence[str]) -> dict[str, dict[str, Any]]:
    """Recall at each k per system, for all questions and per category; ours/BM25 where both ran."""
    groups: dict[str, list[Question]] = {"all": list(questions)}
    for c, name in CATEGORIES.items():
        groups[f"{c} {name}"] = [q for q in questions if q.category == c]
    table: dict[str, dict[str, Any]] = {}
    for g, qs in groups.items():
        row: dict[str, Any] = {"n": len(qs)}
        for s in systems:
            row[s] = recall(qs, s)
        if "ours" in row and "bm25" in row:
            row["ratio"] = {k: (row["ours"][k] / v if v else None) for k, v in row["bm25"].items()}
        table[g] = row
    return table


def print_table(table: dict[str, dict[str, Any]], systems: Sequence[str]) -> None:
    columns = [*systems, *(["ratio"] if "ours" in systems and "bm25" in systems else [])]
    head = "".join(f"{s + '@' + str(k):>10}" for s in columns for k in KS)
    print(f"\n{'category':<16}{'n':>6}{head}")
    for g, row in table.items():
        if not row["n"]:
            continue
        cells = [row[s][f"r@{k}"] for s in systems for k in KS]
        cells += [row["ratio"][f"r@{k}"] for k in KS] if "ratio" in row else []
        print(f"{g:<16}{row['n']:>6}" + "".join(f"{c:>10.3f}" if c is not None else f"{'-':>10}"
                                                   for c in cells))


if __name__ == "__main__":
    sys.exit(main())
