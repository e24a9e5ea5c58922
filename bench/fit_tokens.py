"""The fit behind tokens.py: its eight counts against cl100k_base, checked on held-out files.

    python bench/fit_tokens.py [--json PATH]

Needs a cl100k_base tokenizer that works offline: `bpe-openai` ships the cl100k_base ranks inside its
wheel (`pip install bpe-openai`, or the `bench` extra); tiktoken itself would download them at run time.

The corpus is the repository's own text of the three kinds a window holds: the entries of the fixture
sessions under tests/fixtures/sessions (synced into a scratch record by the real readers: owner words,
agent replies, tool calls and outputs, JSON), the docs (docs/*.md, README.md) and the source
(src/**/*.py), files cut into texts at blank lines (paragraphs merged up to MIN_CHARS). The files of each
kind, sorted by path, go alternately to the train and the held-out half, so no file lends texts to both.

The counts of each text are taken by the shipped `tokens.weight` itself, run with one weight at 1 and the
others at 0, so the fit sees exactly what the estimate counts. The weights are fitted by least squares on
the relative error (each row divided by the true count: a 10-token text weighs as much as a 10,000-token
one), with no constant term (the estimate must stay additive over lines) and no negative weight, then
rounded to twentieths. The held-out half is scored for the fitted and the shipped weights: the median
absolute error, the 10th/90th percentiles of the signed error and the whole half's total.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from total_recall import tokens
from total_recall.record.database import Record
from total_recall.record.sync import sync

REPO = Path(__file__).resolve().parent.parent
SESSIONS = REPO / "tests" / "fixtures" / "sessions"
ROOTS = {  # the fixture stores laid out as each harness's root (tests/stores.py; OpenCode needs a db built)
    "claude-code": SESSIONS / "claude_code",
    "codex": SESSIONS / "codex",
    "vibe": SESSIONS / "vibe" / "logs" / "session",
    "openclaw": SESSIONS / "openclaw",
}
MIN_CHARS = 200
# tokens.py's weights, in the order of its formula.
FEATURES = ("_RUN", "_ALNUM_CHAR", "_DIGIT", "_DIGIT_GROUP", "_NEWLINES", "_SPACES", "_NON_ASCII", "_SYMBOL")
SHIPPED = {name: int(getattr(tokens, name)) for name in FEATURES}


@contextlib.contextmanager
def weights(values: dict[str, int]) -> Iterator[None]:
    before = {name: getattr(tokens, name) for name in values}
    try:
        for name, value in values.items():
            setattr(tokens, name, value)
        yield
    finally:
        for name, value in before.items():
            setattr(tokens, name, value)


def counts(text: str) -> list[int]:
    """The eight counts of `text`, as the shipped estimate takes them."""
    out = []
    for name in FEATURES:
        with weights({n: int(n == name) for n in FEATURES}):
            out.append(tokens.weight(text))
    return out


def paragraphs(text: str) -> list[str]:
    """Blank-line separated blocks, merged until each holds MIN_CHARS (the last may hold fewer)."""
    out: list[str] = []
    current = ""
    for block in text.split("\n\n"):
        current = f"{current}\n\n{block}" if current else block
        if len(current) >= MIN_CHARS:
            out.append(current)
            current = ""
    if current.strip():
        out.append(current)
    return out


def session_texts() -> dict[str, list[str]]:
    """Entry texts of the fixture sessions, by source file (path relative to the repository)."""
    by_file: dict[str, list[str]] = {}
    with tempfile.TemporaryDirectory(prefix="fit-tokens-") as tmp:
        record = Record(Path(tmp) / "record.sqlite3")
        try:
            report = sync(record, list(ROOTS), roots=ROOTS)
            if report.errors or not report.entries_added:
                sys.exit(f"sync of the fixture sessions: {report.entries_added} entries, "
                         f"errors {report.errors}")
            for path, text in record.db.execute(
                "SELECT s.path, e.text FROM entries e JOIN sources s ON s.id = e.source ORDER BY e.id"
            ):
                if text.strip():
                    by_file.setdefault(str(Path(path).resolve().relative_to(REPO)), []).append(text)
        finally:
            record.close()
    return by_file


def file_texts(paths: Sequence[Path]) -> dict[str, list[str]]:
    return {str(p.relative_to(REPO)): paragraphs(p.read_text(encoding="utf-8")) for p in paths}


def halves(by_file: dict[str, list[str]]) -> tuple[list[str], list[str]]:
    """Files sorted by path, alternately to train and held out; each half's texts."""
    train: list[str] = []
    held: list[str] = []
    for n, path in enumerate(sorted(by_file)):
        (train if n % 2 == 0 else held).extend(by_file[path])
    return train, held


def fit(x: Any, y: Any) -> Any:
    """Least squares of x·w against y on the relative error, every w >= 0 (weights that come out
    negative are held at zero and the rest fitted again)."""
    a = x / y[:, None]
    b = np.ones(len(y))
    free = np.ones(x.shape[1], bool)
    w = np.zeros(x.shape[1])
    while True:
        w[:] = 0
        w[free] = np.linalg.lstsq(a[:, free], b, rcond=None)[0]
        if (w >= 0).all():
            return w
        free &= w > 0


def score(x: Any, y: Any, twentieths: Sequence[int]) -> dict[str, float]:
    """How far the estimate (rounded up, as estimate_tokens does) is from the true counts."""
    est = np.ceil(x @ np.array(twentieths, float) / tokens.SCALE)
    err = (est - y) / y
    return {
        "median_abs": float(np.median(np.abs(err))), "p10": float(np.percentile(err, 10)),
        "p90": float(np.percentile(err, 90)), "within_10pct": float(np.mean(np.abs(err) <= 0.10)),
        "total": float(est.sum() / y.sum() - 1), "texts": len(y),
    }


def encodable(text: str) -> bool:
    """Whether the text is valid Unicode (a lone surrogate from a broken JSON escape is not)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--json", type=Path, default=None, metavar="PATH")
    args = ap.parse_args(argv)
    try:
        import bpe_openai  # type: ignore[import-untyped]
    except ImportError:
        sys.exit("needs bpe-openai (cl100k_base shipped in its wheel): pip install bpe-openai")
    encoding = bpe_openai.get_encoding("cl100k_base")
    # Known cl100k_base ids: a different encoding or a broken install is refused here.
    if encoding.encode_ordinary("hello world") != [15339, 1917]:
        sys.exit("bpe-openai's cl100k_base does not give cl100k_base's ids for 'hello world'")

    kinds = {
        "sessions": session_texts(),
        "docs": file_texts(sorted([*(REPO / "docs").glob("*.md"), REPO / "README.md"])),
        "src": file_texts(sorted((REPO / "src").rglob("*.py"))),
    }
    split: dict[str, dict[str, list[str]]] = {"train": {}, "held out": {}}
    for kind, by_file in kinds.items():
        split["train"][kind], split["held out"][kind] = halves(by_file)

    def matrix(texts: list[str]) -> tuple[Any, Any]:
        texts = [t for t in texts if t.strip() and encodable(t)]
        x = np.array([counts(t) for t in texts], float)
        y = np.array([len(encoding.encode_ordinary(t)) for t in texts], float)
        keep = y > 0
        return x[keep], y[keep]

    data = {half: {kind: matrix(texts) for kind, texts in by_kind.items()} for half, by_kind in split.items()}
    x_train = np.vstack([x for x, _ in data["train"].values()])
    y_train = np.concatenate([y for _, y in data["train"].values()])
    w = fit(x_train, y_train)
    # Rounded to twentieths (the estimate itself rounds its total up).
    fitted = {name: round(v * tokens.SCALE) for name, v in zip(FEATURES, w, strict=True)}
    print(f"corpus: {sum(len(f) for f in kinds.values())} files; "
          + "; ".join(f"{half} {sum(len(y) for _, y in d.values())} texts, "
                      f"{int(sum(y.sum() for _, y in d.values()))} tokens" for half, d in data.items()))
    print("weights (twentieths):   " + "  ".join(f"{n.strip('_').lower()}" for n in FEATURES))
    print("  shipped               " + "  ".join(f"{SHIPPED[n]}" for n in FEATURES))
    print("  fitted on train       " + "  ".join(f"{fitted[n]}" for n in FEATURES)
          + f"   (unrounded: {', '.join(f'{v * tokens.SCALE:.2f}' for v in w)})")
    report: dict[str, Any] = {"fitted": fitted, "shipped": SHIPPED, "unrounded": [float(v) for v in w],
                              "scores": {}}
    print(f"\n{'half':<10}{'kind':<10}{'weights':<9}{'texts':>7}{'median |err|':>14}{'p10':>8}{'p90':>8}"
          f"{'<=10%':>8}{'total':>8}")
    for half in ("held out", "train"):
        parts = {**data[half], "all": (np.vstack([x for x, _ in data[half].values()]),
                                       np.concatenate([y for _, y in data[half].values()]))}
        for kind, (x, y) in parts.items():
            for label, table in (("fitted", fitted), ("shipped", SHIPPED)):
                s = score(x, y, [table[n] for n in FEATURES])
                report["scores"][f"{half}/{kind}/{label}"] = s
                print(f"{half:<10}{kind:<10}{label:<9}{s['texts']:>7}{s['median_abs']:>13.1%}"
                      f"{s['p10']:>+8.1%}{s['p90']:>+8.1%}{s['within_10pct']:>8.0%}{s['total']:>+8.1%}")
    if args.json:
        args.json.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
