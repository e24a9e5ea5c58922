"""One very long JSONL line: the reader's time and peak RSS against a plain read of the same bytes.

    python bench/long_lines.py --mb 500 [--dir /dev/shm] [--zst]

Writes (or reuses) `<dir>/long_line_<mb>.jsonl`: one line of `--mb` MB with no newline inside it, then a
newline and one short line; with `--zst` also its `.jsonl.zst`. Then, each in a fresh child process, so
every peak RSS is that process's own:
  1. the floor: the same bytes read in 1 MiB chunks and thrown away (decompressed, for the `.zst`);
  2. `iter_jsonl` over the whole payload, counting the lines it yields and the warnings;
  3. a whole sync of the payload as a Claude Code session (a hard link in a projects folder beside it)
     into a fresh record: what a user's `total-recall sync` costs on such a file.
Prints seconds and peak RSS for each, and what the reader yielded (the long line should be one warning
naming file:line, the short line after it a line). Target (issue 15): linear time, peak RSS < 300 MB.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

CHUNK = 1 << 20

CHILD = r"""
import json, resource, sys, time
from pathlib import Path
path, mode = Path(sys.argv[1]), sys.argv[2]
started = time.perf_counter()
out = {}
if mode == "floor":
    from total_recall.readers.base import open_payload
    n = 0
    with open_payload(path) as fh:
        while chunk := fh.read(1 << 20):
            n += len(chunk)
    out["bytes"] = n
elif mode == "sync":
    import os, tempfile
    from total_recall.record.database import Record
    from total_recall.record.sync import sync
    work = Path(tempfile.mkdtemp(dir=path.parent))
    project = work / "projects" / "-srv-app"
    project.mkdir(parents=True)
    os.link(path, project / "4f1c2d3e-0000-4000-8000-000000000001.jsonl")
    with Record(work / "record" / "record.sqlite3") as record:
        report = sync(record, ["claude-code"], roots={"claude-code": work / "projects"},
                      env={"TOTAL_RECALL_VECTOR_BUDGET": "0"})
    out["entries"], out["warnings"] = report.entries_added, [str(w) for w in report.warnings]
    import shutil
    shutil.rmtree(work)
else:
    from total_recall.model import ReadWarning
    from total_recall.readers.base import Cursor, Line, iter_jsonl
    lines, warnings = 0, []
    for item in iter_jsonl(path, Cursor()):
        if isinstance(item, Line):
            lines += 1
        elif isinstance(item, ReadWarning):
            warnings.append(f"line {item.line}: {item.why}")
    out["lines"], out["warnings"] = lines, warnings
out["seconds"] = round(time.perf_counter() - started, 2)
out["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
print(json.dumps(out))
"""


def make(path: Path, mb: int) -> None:
    if path.exists():
        return
    with open(path, "wb") as fh:
        fh.write(b'{"type":"user","message":{"role":"user","content":"')
        block = b"a" * CHUNK
        for _ in range(mb):
            fh.write(block)
        fh.write(b'"}}\n{"type":"user","uuid":"u-after","sessionId":"s","timestamp":"2026-01-01T00:00:01Z",'
                 b'"message":{"role":"user","content":"after the long line"}}\n')


def make_zst(plain: Path, packed: Path) -> None:
    if packed.exists():
        return
    import zstandard

    with open(plain, "rb") as src, open(packed, "wb") as dst:
        zstandard.ZstdCompressor(level=3).copy_stream(src, dst)


def run(path: Path, mode: str) -> dict[str, object]:
    done = subprocess.run([sys.executable, "-c", CHILD, str(path), mode], capture_output=True, text=True,
                          check=True)
    result: dict[str, object] = json.loads(done.stdout)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mb", type=int, default=500)
    parser.add_argument("--dir", type=Path, default=Path("/dev/shm"))
    parser.add_argument("--zst", action="store_true", help="also the same payload compressed")
    args = parser.parse_args()
    plain = args.dir / f"long_line_{args.mb}.jsonl"
    make(plain, args.mb)
    paths = [plain]
    if args.zst:
        packed = plain.with_name(plain.name + ".zst")
        make_zst(plain, packed)
        paths.append(packed)
    for path in paths:
        print(f"{path.name} ({path.stat().st_size / 1e6:.1f} MB on disk)")
        print("  floor (plain read): ", json.dumps(run(path, "floor")))
        print("  iter_jsonl:         ", json.dumps(run(path, "reader")))
        if path.suffix == ".jsonl":  # Claude Code keeps plain JSONL only
            print("  sync:               ", json.dumps(run(path, "sync")))


if __name__ == "__main__":
    main()
