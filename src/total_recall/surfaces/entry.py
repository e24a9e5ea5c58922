"""`total-recall`'s entry point: the per-prompt hook on a short path, every other command through the CLI.

UserPromptSubmit runs before every prompt the owner sends, so `total-recall [--home H] hook claude-code`
answers it importing only what the push needs (the record, the asset index, `keeping/prompt.py`, and
`keeping/hook_input.py`, which reads and checks the payload as the full path does) — not click, pydantic,
the table of operations or the MCP SDK, which cost more than the push itself. It asks a running MCP
server first (its push socket, `assets/channel.py`: by meaning, within ~80 ms) and pushes by words itself
when none answers. Any other hook event, and stdin that is not a JSON object, goes the full way
(`surfaces/cli.py`), with the stdin already read handed over. Like every hook, it always exits 0 and says
what went wrong on stderr.
"""

from __future__ import annotations

import sys

HARNESSES = ("claude-code", "codex")


def main() -> None:
    args = sys.argv[1:]
    home: str | None = None
    if args[:1] == ["--home"] and len(args) >= 2:
        home, args = args[1], args[2:]
    if len(args) == 2 and args[0] == "hook" and args[1] in HARNESSES:
        text = sys.stdin.read()
        if _prompt_hook(args[1], text, home):
            return
        sys.stdin = _Replay(text)  # the full path reads the same stdin
    from total_recall.surfaces.cli import main as cli_main

    cli_main()


def _prompt_hook(harness: str, text: str, home: str | None) -> bool:
    """Answer a UserPromptSubmit on the short path; False when the payload is another event (or not a
    JSON object), for the full path to answer. Its fields are checked as on the full path
    (`keeping/hook_input.py`, which imports nothing the short path has not loaded already)."""
    import orjson

    from total_recall.errors import HookInputError
    from total_recall.keeping.hook_input import check_payload, optional_text, read_json

    try:
        payload = read_json(text)
    except HookInputError:
        return False  # the full path names it
    if not isinstance(payload, dict) or payload.get("hook_event_name") != "UserPromptSubmit":
        return False
    prefix = f"total-recall hook {harness}"
    log: list[str] = []
    try:
        check_payload(payload)
    except HookInputError as exc:  # nothing pushed, and no record opened (or made) for it
        print(f"{prefix}: {exc}", file=sys.stderr)
        return True
    payload = {**payload, "cwd": optional_text(payload, "cwd", log, "pushed for no project")}
    for line in log:
        print(f"{prefix}: {line}", file=sys.stderr)
    try:
        from total_recall.config import RECORD_FILE, chosen_home, home_at
        from total_recall.keeping.prompt import OPEN_WAIT, context, served

        where = chosen_home(home)
        path = where / RECORD_FILE
        if not path.exists():
            return True  # nothing recorded yet: nothing to push, and no record made for it
        # A running MCP server pushes by meaning (it holds the model); without one in time, words here,
        # importing the record only then.
        said = served(where, harness, payload)
        if said is False:
            from total_recall.record.database import Record

            with home_at(where), Record(path, timeout=OPEN_WAIT) as record:
                said = context(record, harness, payload)
    except Exception as exc:  # the top of a hook: whatever went wrong, the harness goes on
        print(f"{prefix}: UserPromptSubmit failed: {type(exc).__name__}: {exc}", file=sys.stderr)
        return True
    if said:
        out = {"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": said}}
        sys.stdout.write(orjson.dumps(out).decode() + "\n")
    return True


class _Replay:
    """Standard input already read, offered again to the full path."""

    def __init__(self, text: str) -> None:
        self.text = text

    def read(self, size: int = -1) -> str:
        text, self.text = (self.text, "") if size < 0 else (self.text[:size], self.text[size:])
        return text

    def isatty(self) -> bool:
        return False

    def fileno(self) -> int:
        raise OSError("stdin was read by the hook's short path")

