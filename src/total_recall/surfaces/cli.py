"""The `total-recall` command line. Each command opens the record, calls one core function, renders.

Exit codes: 0 done; 2 a source could not be read, an address names nothing, or a setting is wrong
(the message says which); click's own usage errors are 2 as well.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, TextIO

import click
import orjson

from total_recall import __version__
from total_recall.config import (
    DEMO_RECORD_FILE,
    RECORD_FILE,
    demo_roots,
    demo_when_empty,
    home_at,
    record_home,
    store_roots,
    use_demo,
)
from total_recall.errors import TotalRecallError
from total_recall.find.hits import group as group_hits
from total_recall.find.search import search as find
from total_recall.model import AUTHORS, HARNESSES, Address, SyncReport, echoed
from total_recall.record.reading import read as read_entries
from total_recall.record.sessions import resolve_address, resolve_session
from total_recall.record.store import Store
from total_recall.record.sync import processes_from
from total_recall.surfaces.wire import entry_json, group_json, hit_json, session_json, sync_json
from total_recall.syncing import sync as run_sync

if TYPE_CHECKING:
    from total_recall.mining.listing import Active

MAX_LISTED_WARNINGS = 20


@dataclass
class Settings:
    home: Path
    demo: bool
    named_home: bool = False  # --home was given: the commands we suggest name it too

    @property
    def record_path(self) -> Path:
        return self.home / (DEMO_RECORD_FILE if self.demo else RECORD_FILE)

    def command(self, *words: str) -> str:
        """A command to suggest, on this record: `total-recall [--home H] [--demo] WORDS`."""
        home = f" --home {self.home}" if self.named_home else ""
        return f"total-recall{home}{' --demo' if self.demo else ''} {' '.join(words)}"


def _fail(message: str) -> NoReturn:
    click.echo(f"total-recall: {message}", err=True)
    sys.exit(2)


def _note(message: str) -> None:
    click.echo(f"total-recall: note: {message}", err=True)


@contextmanager
def _store(settings: Settings, creates: bool = False) -> Iterator[Store]:
    """The record, opened; a record this opening creates is announced unless the command `creates` one
    (sync): a mistyped --home would otherwise answer from an empty record without a word."""
    fresh = not settings.record_path.exists()
    try:
        store = Store(settings.record_path)
    except TotalRecallError as exc:
        _fail(str(exc))
    if fresh and not creates:
        _note(f"there was no record at {settings.record_path}: created a new, empty one "
              f"(`{settings.command('sync')}` fills it)")
    try:
        yield store
    except TotalRecallError as exc:
        _fail(str(exc))
    finally:
        store.close()


def counted(n: int, noun: str) -> str:
    """`1 entry`, `2 entries`, `0 sessions`: a count with its noun in the right number."""
    if n == 1:
        return f"1 {noun}"
    return f"{n} {noun[:-1] + 'ies' if noun.endswith('y') else noun + 's'}"


def _dump(value: Any) -> None:
    click.echo(orjson.dumps(value, option=orjson.OPT_INDENT_2).decode())


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="total-recall")
@click.option("--home", type=click.Path(path_type=Path), default=None,
              help="Folder of the record (default: $TOTAL_RECALL_HOME, else ~/.local/share/total-recall).")
@click.option("--demo", is_flag=True, help="Use the bundled demo store and its own record.")
@click.pass_context
def cli(ctx: click.Context, home: Path | None, demo: bool) -> None:
    """Total Recall: a memory for coding agents that keeps the exact words."""
    ctx.obj = Settings(home or record_home(), demo, named_home=home is not None)
    # Copies we make (overflow files, store snapshots) go under the record's home, the one --home names.
    ctx.with_resource(home_at(ctx.obj.home))


@cli.command()
@click.option("--harness", "harnesses", multiple=True, type=click.Choice(HARNESSES),
              help="Sync only this harness (repeatable). Default: every harness found.")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.pass_obj
def sync(settings: Settings, harnesses: tuple[str, ...], as_json: bool) -> None:
    """Read the agent stores on this machine into the record (incremental, never writes to a store).

    With no store on this machine, or stores that hold no session yet, also syncs the bundled demo store
    into its own record, and says so (and where it looked).
    """
    why = None
    if not settings.demo and use_demo(harnesses):
        settings.demo = True
        why = "No agent store found on this machine"
    report, held = _sync_into(settings, harnesses, as_json)
    if why is None and not settings.demo and not held and not report.errors and demo_when_empty(harnesses):
        looked = ", ".join(str(p) for p in store_roots()) or "no folder"
        why = f"The agent stores on this machine hold no session yet (looked in {looked})"
        real = report
        settings.demo = True
        report, _ = _sync_into(settings, (), as_json)
        report.warnings[:0], report.notices[:0] = real.warnings, real.notices
    if as_json:
        if why is not None:
            report.notices.append(f"{why}: synced the bundled demo store into {settings.record_path}")
        _dump(sync_json(report, str(settings.record_path), settings.demo))
    else:
        _render_sync(report, settings, why)
    if report.errors:
        sys.exit(2)


def _sync_into(settings: Settings, harnesses: tuple[str, ...], as_json: bool) -> tuple[SyncReport, bool]:
    """One sync into the record `settings` names (the demo store's, for the demo); returns the report and
    whether the record holds any session after it."""
    roots = None
    if settings.demo:
        roots = demo_roots()
        harnesses = tuple(roots)
    with _store(settings, creates=True) as store:
        progress, close = _progress_bar(enabled=not as_json)
        try:
            report = run_sync(store, harnesses or None, roots=roots, progress=progress,
                              processes=processes_from(os.environ))
        finally:
            close()
        return report, store.holds_sessions()


def _progress_bar(enabled: bool) -> tuple[Callable[[int, int, str], None] | None, Callable[[], None]]:
    """A progress bar on stderr when it is a terminal; nothing otherwise."""
    if not enabled or not sys.stderr.isatty():
        return None, lambda: None
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    bar = Progress(TextColumn("syncing"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                   TextColumn("[dim]{task.description}"), console=Console(stderr=True), transient=True)
    task = bar.add_task("", total=None)
    bar.start()

    def update(done: int, total: int, label: str) -> None:
        bar.update(task, completed=done, total=total, description=Path(label).name if label else "")

    return update, bar.stop


def _render_sync(report: SyncReport, settings: Settings, why: str | None) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console()
    if why is not None:  # echoed, not printed by rich: a long path stays whole on its line
        look, read = (click.style(settings.command(*words), bold=True) for words in (("sessions",),
                                                                                      ("read", "s1")))
        click.echo(f"{why}: synced the bundled demo store into {settings.record_path}.\n"
                   f"Look around with {look} and {read}.")
    table = Table(title=f"Record: {settings.record_path}", title_justify="left")
    for col in ("harness", "sessions", "entries", "new sessions", "new entries"):
        table.add_column(col, justify="left" if col == "harness" else "right")
    for harness, c in sorted(report.per_harness.items()):
        table.add_row(harness, str(c.get("sessions", 0)), str(c.get("entries", 0)),
                      str(c.get("sessions_added", 0)), str(c.get("entries_added", 0)))
    console.print(table)
    console.print(f"{counted(report.entries_added, 'entry')} added, "
                  f"{counted(report.sessions_added, 'session')} new, "
                  f"{report.sessions_updated} updated; {counted(report.sources_read, 'source')} read, "
                  f"{report.sources_skipped} unchanged.", highlight=False)
    if report.vectors:
        pending = report.vectors["pending"]
        console.print(f"meaning search: {counted(report.vectors['embedded'], 'entry')} embedded"
                      + (f", {pending} left for [bold]total-recall index[/] (or the next sync)" if pending
                         else ", every entry has its vector"), highlight=False)
    for notice in report.notices:
        click.echo(f"note: {notice}", err=True)
    if report.warnings:
        click.echo(f"{counted(len(report.warnings), 'warning')} (lines skipped):", err=True)
        for w in report.warnings[:MAX_LISTED_WARNINGS]:
            click.echo(f"  {w}", err=True)
        if len(report.warnings) > MAX_LISTED_WARNINGS:
            click.echo(f"  … {len(report.warnings) - MAX_LISTED_WARNINGS} more (--json lists all)", err=True)
    for error in report.errors:
        click.echo(f"error: {error}", err=True)


@cli.command()
@click.option("--harness", "harnesses", multiple=True, type=click.Choice(HARNESSES),
              help="Only this harness (repeatable).")
@click.option("--project", help="Only sessions whose cwd contains this (case-blind).")
@click.option("--since", help="Only sessions active at or after this time, as `search --since` takes it "
                              "(2026-11-01, 3 days ago, yesterday, last week).")
@click.option("--limit", type=click.IntRange(1), default=None, help="At most this many (the newest).")
@click.option("--json", "as_json", is_flag=True, help="Print the sessions as JSON.")
@click.pass_obj
def sessions(settings: Settings, harnesses: tuple[str, ...], project: str | None, since: str | None,
             limit: int | None, as_json: bool) -> None:
    """List the sessions in the record, most recently active first (last activity: the latest of a
    session's last timed entry, its end and its start; sessions with no time last)."""
    from total_recall.mining.listing import sessions_newest_first

    moment = None if since is None else _since(since)
    with _store(settings) as store:
        found = sessions_newest_first(store, harnesses, project=project, since=moment, limit=limit)
        empty = not found and not store.holds_sessions()
    if as_json:
        _dump([session_json(a.session) for a in found])
        return
    if empty:
        _empty_record(settings)
    elif not found:
        _note("no session matches " + " and ".join(
            f"{flag} {value}" for flag, value in (("--harness", ",".join(harnesses)), ("--project", project),
                                                  ("--since", since)) if value))
    if found:
        _print_sessions(found, _width())


def _since(text: str) -> datetime:
    """`--since` as `search` takes it (find/when.py), as a UTC time; a text naming no time exits 2."""
    from total_recall.find.when import since as since_moment
    from total_recall.mining.scope import parse_time

    moment = parse_time(since_moment(text))
    if moment is None:
        _fail(f"--since: {echoed(text)} is not a time; give an ISO date or time (2026-11-01, "
              "2026-11-01T09:00), N hours/days/weeks ago, yesterday, last week or May 2026")
    return moment


def _empty_record(settings: Settings) -> None:
    """Say, on stderr, that the record holds nothing yet and how to fill it, or where the demo is."""
    if settings.demo:
        _note(f"the demo record {settings.record_path} holds no session yet: "
              f"`{settings.command('sync')}` syncs the bundled demo store into it")
        return
    demo = Settings(settings.home, True, settings.named_home)
    where = (f"the demo's sessions are in their own record: `{demo.command('sessions')}`"
             if demo.record_path.exists() else f"or try the bundled demo: `{demo.command('sync')}`")
    _note(f"the record {settings.record_path} holds no session yet: `{settings.command('sync')}` reads "
          f"this machine's agent stores into it; {where}")


def _width() -> int | None:
    """The width to fit a table in: $COLUMNS when set, else the terminal's; None (whole lines) when
    printing to a pipe or a file."""
    import shutil

    columns = os.environ.get("COLUMNS", "").strip()
    if columns.isdigit() and int(columns) > 0:
        return int(columns)
    return shutil.get_terminal_size().columns if sys.stdout.isatty() else None


@dataclass
class _Column:
    header: str
    cells: list[str]
    cap: int | None = None  # widest it is ever printed
    least: int | None = None  # narrowest it is cut to before it is dropped; None: never cut
    tail: bool = False  # cut from the left, keeping the end (a folder's last names)
    right: bool = False

    def natural(self) -> int:
        from rich.cells import cell_len

        wide = max([cell_len(self.header), *(cell_len(c) for c in self.cells)])
        return wide if self.cap is None else min(wide, max(self.cap, cell_len(self.header)))


# Dropped first when a listing is too wide for the terminal; the address is never dropped nor cut.
_DROPPED_FIRST = ("cwd", "started", "parent", "title", "last active", "entries", "harness")


def _print_sessions(found: list[Active], width: int | None) -> None:
    """The sessions as a table that fits `width`: the title and cwd are cut first, then the least useful
    columns dropped (_DROPPED_FIRST); the address is printed whole whatever the width."""
    from total_recall.mining.scope import iso

    def when(text: str | None) -> str:
        return (text or "")[:16].replace("T", " ")

    rows = [a.session for a in found]
    columns = {
        "session": _Column("session", [s.address for s in rows]),
        "harness": _Column("harness", [s.harness for s in rows]),
        "entries": _Column("entries", [str(s.entries) for s in rows], right=True),
        "last active": _Column("last active", [when(iso(a.last_active)) for a in found]),
        "started": _Column("started", [when(s.started) for s in rows]),
        "parent": _Column("parent", [f"s{s.parent}" if s.parent else "" for s in rows]),
        "title": _Column("title", [_flat(s.title) for s in rows], cap=40, least=12),
        "cwd": _Column("cwd", [_flat(s.cwd) for s in rows], cap=40, least=12, tail=True),
    }
    shown = _fit(columns, width)
    click.echo("  ".join(_cell(c.header, w, c) for c, w in shown).rstrip())
    for n, s in enumerate(rows):
        text = "  ".join(_cell(c.cells[n], w, c) for c, w in shown).rstrip()
        if not s.read_error:
            click.echo(text)
            continue
        click.echo(click.style(text, fg="red"))
        click.echo(click.style(f"    read error: {_flat(s.read_error)}", fg="red"))


def _fit(columns: dict[str, _Column], width: int | None) -> list[tuple[_Column, int]]:
    """The columns to print with their widths, in `columns`' order, fitting `width` when there is one."""
    kept = dict(columns)
    for dropped in (None, *_DROPPED_FIRST):
        if dropped is not None:
            del kept[dropped]
        widths = {name: c.natural() for name, c in kept.items()}
        if width is None:
            break
        over = sum(widths.values()) + 2 * (len(widths) - 1) - width
        for name in ("cwd", "title"):
            if over > 0 and name in kept:
                least = kept[name].least or widths[name]
                cut = min(over, max(0, widths[name] - least))
                widths[name] -= cut
                over -= cut
        if over <= 0:
            break
    return [(c, widths[name]) for name, c in kept.items()]


def _cell(text: str, width: int, column: _Column) -> str:
    from rich.cells import cell_len, set_cell_size

    if cell_len(text) > width:
        if column.least is None:
            return text  # never cut (the address)
        if column.tail:
            while cell_len(text) > width - 1:
                text = text[1:]
            return "…" + text
        return set_cell_size(text, width - 1) + "…"
    pad = " " * (width - cell_len(text))
    return pad + text if column.right else text + pad


def _flat(text: str | None) -> str:
    return " ".join((text or "").split())


@cli.command()
@click.argument("address")
@click.option("--json", "as_json", is_flag=True, help="Print the entries as JSON.")
@click.pass_obj
def read(settings: Settings, address: str, as_json: bool) -> None:
    """Print the entries at ADDRESS exactly: s3 (a session), s3#12 (an entry) or s3#10-20 (a range). The
    session's own id, or a unique prefix of it, may stand for s3: ef958aa1, ef958aa1#12, ef958aa1#10-20."""
    _valid_if_address(address)
    with _store(settings) as store:
        entries = read_entries(store, resolve_address(store, address))
    if as_json:
        _dump([entry_json(e) for e in entries])
        return
    for e in entries:
        flags = [f for f in (e.tool, e.branch == "side" and "side branch", e.quarantined and "quarantined")
                 if f]
        extra = f" · {' · '.join(str(f) for f in flags)}" if flags else ""
        click.echo(f"── {e.address} · {e.author} · {e.kind} · {e.timestamp or 'no time'}{extra} ──")
        click.echo(e.text)


def _valid(address: str) -> bool:
    try:
        Address.parse(address)
    except TotalRecallError as exc:
        _fail(str(exc))
    return True


def _valid_if_address(text: str) -> None:
    """Check what reads as our address (s3…) before the record is opened; a native id needs the record."""
    if text.strip()[:1] == "s" and text.strip()[1:2].isdigit():
        _valid(text)


@cli.command()
@click.argument("address")
@click.option("--reason", required=True, help="Why (kept with the tombstone).")
@click.option("--json", "as_json", is_flag=True)
@click.pass_obj
def erase(settings: Settings, address: str, reason: str, as_json: bool) -> None:
    """Replace the text at ADDRESS with a tombstone and purge it from everything derived, the overflow
    files of capped replies included. ADDRESS may also be cue:N (a recall cue) or receipt:N (a receipt's
    note): text a caller wrote, erased the same way."""
    from total_recall.erasure import erase as erase_target

    if not address.strip().startswith(("cue:", "receipt:")):
        _valid_if_address(address)  # before the record is opened: a bad address creates nothing
    with _store(settings) as store:
        done = erase_target(store, address, reason)
    if as_json:
        _dump({"erased": done.erased, "reason": reason, "overflow_files_removed": len(done.purged)})
    else:
        click.echo(f"erased {counted(len(done.erased), 'entry')}: "
                   f"{', '.join(done.erased) or 'none (already erased)'}")
        if done.purged:
            click.echo(f"removed {len(done.purged)} overflow file(s) that held their text")


@cli.command()
@click.argument("address")
@click.option("--reason", help="Why (kept in the quarantine log); optional with --undo.")
@click.option("--undo", is_flag=True, help="Release the entries from quarantine.")
@click.option("--json", "as_json", is_flag=True)
@click.pass_obj
def quarantine(settings: Settings, address: str, reason: str | None, undo: bool, as_json: bool) -> None:
    """Hide the entries at ADDRESS from windows and pushes without editing them (--undo shows them again).
    ADDRESS may name the session by its own id, or a unique prefix of it, as `read` takes it."""
    _valid_if_address(address)
    with _store(settings) as store:
        done = store.quarantine(resolve_address(store, address), reason, undo=undo)
    if as_json:
        _dump({"released" if undo else "quarantined": done, "reason": reason})
    else:
        already = "none was in quarantine" if undo else "all were in quarantine already"
        click.echo(f"{'released' if undo else 'quarantined'} {counted(len(done), 'entry')}"
                   + (f": {', '.join(done)}" if done else f" ({already})"))


@cli.command()
@click.argument("query", required=False)
@click.option("--limit", type=click.IntRange(1, 1000), default=10, show_default=True)
@click.option("--harness", "harnesses", multiple=True, type=click.Choice(HARNESSES), help="Repeatable.")
@click.option("--session", help="Only this session (s3, its own id, or a unique prefix of it).")
@click.option("--project", help="Only sessions whose cwd contains this.")
@click.option("--author", "authors", multiple=True, type=click.Choice(AUTHORS), help="Repeatable.")
@click.option("--since", help="Only entries at or after this ISO time (2026-11-01, 2026-11-01T09:00).")
@click.option("--batch", type=click.File("r", encoding="utf-8"),
              help="Answer one query per line of this file (- for stdin), one JSON line each.")
@click.option("--group", is_flag=True, help="Gather the hits per session into ranges to read whole.")
@click.option("--json", "as_json", is_flag=True, help="Print the hits as JSON.")
@click.pass_obj
def search(settings: Settings, query: str | None, limit: int, harnesses: tuple[str, ...], session: str | None,
           project: str | None, authors: tuple[str, ...], since: str | None, batch: TextIO | None,
           group: bool, as_json: bool) -> None:
    """Find entries by words, exact strings (paths, hashes, URLs, error lines) and meaning; every hit is
    an address that `read` opens exactly."""
    if (query is None) == (batch is None):
        _fail("give a QUERY or --batch FILE (not both)")
    if session is not None:
        _valid_if_address(session)
    with _store(settings) as store:
        number = None if session is None else resolve_session(store, session).number

        def run(q: str) -> list[dict[str, Any]]:
            hits = find(store, q, limit=limit, harness=harnesses, session=number, project=project,
                        author=authors, since=since)
            if group:
                return [group_json(g) for g in group_hits(hits)]
            return [hit_json(h) for h in hits]

        if batch is not None:
            for line in batch:
                q = line.rstrip("\n")
                if not q.strip():
                    continue
                try:
                    click.echo(orjson.dumps({"query": q, "hits": run(q)}).decode())
                except TotalRecallError as exc:
                    click.echo(orjson.dumps({"query": q, "hits": [], "error": str(exc)}).decode())
            return
        assert query is not None
        hits = run(query)
        empty = not hits and not store.holds_sessions()
    if as_json:
        _dump(hits)
        return
    if not hits:
        click.echo("no hits", err=True)
    if empty:
        _empty_record(settings)
    if group:
        for g in hits:
            click.echo(f"{g['range']:<14} score {g['score']:.4f}  ({counted(len(g['hits']), 'hit')})")
            for h in g["hits"]:
                click.echo(f"    {h['address']:<10} {h['author']:<7} {h['snippet']}")
        return
    for h in hits:
        when = (h["timestamp"] or "")[:16]
        click.echo(f"{h['address']:<10} {h['harness']:<11} {h['author']:<7} {when:<16} {h['snippet']}")


@cli.command()
@click.option("--budget", type=float, default=None, help="Stop embedding after this many seconds.")
@click.option("--rebuild", is_flag=True, help="Rebuild the word and exact-string indexes from the record.")
@click.option("--json", "as_json", is_flag=True)
@click.pass_obj
def index(settings: Settings, budget: float | None, rebuild: bool, as_json: bool) -> None:
    """Bring the derived indexes up to date: meaning vectors for every entry that lacks one (needs the
    vectors extra), and with --rebuild the word and exact-string indexes."""
    from total_recall.find import index as indexes
    from total_recall.find import vectors

    extra = vectors.available()
    if not extra and not rebuild:  # checked before the record is touched
        _fail("meaning vectors need the vectors extra: pip install 'total-recall[vectors]'")
    embedded, total, done = 0, 0, extra
    with _store(settings) as store:
        if rebuild:
            store.begin()
            indexes.rebuild(store.db)
            store.commit()
        if extra:
            progress, close = _progress_bar(enabled=not as_json)
            try:
                embedded, done = vectors.index_pending(
                    store.db, budget, (lambda n, t: progress(n, t, "meaning vectors")) if progress else None)
            finally:
                close()
            total = vectors.count(store.db)
    result = {"embedded": embedded, "vectors": total, "done": done, "rebuilt": rebuild,
              "vectors_extra": extra}
    if as_json:
        _dump(result)
    elif not extra:
        click.echo("rebuilt the word and exact-string indexes; meaning vectors need the vectors extra: "
                   "pip install 'total-recall[vectors]'")
    else:
        more = "" if done else "; more remain"
        click.echo(f"embedded {counted(embedded, 'entry')} ({total} vectors in all){more}")


from total_recall.surfaces import cli_summaries  # noqa: E402, F401, I001  (registers its commands)
from total_recall.surfaces import cli_mcp  # noqa: E402, F401  (registers its commands)
from total_recall.surfaces import cli_mining  # noqa: E402, F401  (registers its commands)
from total_recall.surfaces import cli_hooks  # noqa: E402, F401  (registers its commands)
from total_recall.surfaces import cli_keeping  # noqa: E402, F401  (registers its commands)


def main() -> None:
    cli(prog_name="total-recall")
