"""`bench/prompt_hook.py` on a base install: `--help` answers, and a run says which extra it needs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[1] / "bench" / "prompt_hook.py"
# Runs the bench as `python bench/prompt_hook.py ARGS` would, with pytest not importable (no test extra).
WITHOUT_PYTEST = ("import runpy, sys; sys.modules['pytest'] = None; sys.argv = sys.argv[1:]; "
                  "runpy.run_path(sys.argv[0], run_name='__main__')")


def bench(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", WITHOUT_PYTEST, str(BENCH), *args], capture_output=True,
                          text=True, timeout=60)


def test_the_prompt_hook_bench_s_help_needs_no_test_extra() -> None:
    done = bench("--help")
    assert done.returncode == 0, done.stderr
    assert "--assets" in done.stdout and "Traceback" not in done.stderr


def test_a_prompt_hook_bench_run_without_the_test_extra_says_which_extra_it_needs() -> None:
    done = bench("--assets", "1", "--runs", "1")
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert "needs the test extra" in done.stderr and "pip install -e '.[test]'" in done.stderr
