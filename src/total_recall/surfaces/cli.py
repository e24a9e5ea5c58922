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
from pathlib import Path
from typing import Any, NoReturn, TextIO

import click
import orjson

from total_recall import __version__
from total_recall.config import (
    DEMO_RECORD_FILE,
    RECORD_FILE,
    demo_roots,
    home_at,
    record_home,
    use_demo,
)
from total_recall.errors import TotalRecallError
from total_recall.find.hits import group as group_hits
from total_recall.find.search import search as find
from total_recall.model import AUTHORS, HARNESSES, Address, SyncReport
from total_recall.record.reading import read as read_entries
from total_recall.record.sessions import resolve_address, resolve_session
from total_recall.record.store import Store
from total_recall.record.sync import processes_from
from total_recall.record.sync import sync as run_sync
from total_recall.surfaces.wire import entry_json, group_json, hit_json, session_json, sync_json

MAX_LISTED_WARNINGS = 20


@dataclass
class Settings:
    home: Path
    demo: bool

    @property
    def record_path(self) -> Path:
        return self.home / (DEMO_RECORD_FILE if self.demo else RECORD_FILE)


def _fail(message: str) -> NoReturn:
    click.echo(f"total-recall: {message}", err=True)
    sys.exit(2)


@contextmanager
def _store(settings: Settings) -> Iterator[Store]:
    try:
        store = Store(settings.record_path)
    except TotalRecallError as exc:
        _fail(str(exc))
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
    ctx.obj = Settings(home or record_home(), demo)
    # Copies we make (overflow files, store snapshots) go under the record's home, the one --home names.
    ctx.with_resource(home_at(ctx.obj.home))


@cli.command()
@click.option("--harness", "harnesses", multiple=True, type=click.Choice(HARNESSES),
              help="Sync only this harness (repeatable). Default: every harness found.")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.pass_obj
def sync(settings: Settings, harnesses: tuple[str, ...], as_json: bool) -> None:
    """Read the agent stores on this machine into the record (incremental, never writes to a store).

    With no store on this machine, syncs the bundled demo store into its own record instead.
    """
    roots = None
    if settings.demo or use_demo(harnesses):
        settings.demo = True
        roots = demo_roots()
        harnesses = tuple(roots)
    with _store(settings) as store:
        progress, close = _progress_bar(enabled=not as_json)
        try:
            report = run_sync(store, harnesses or None, roots=roots, progress=progress,
                              processes=processes_from(os.environ))
        finally:
            close()
        if as_json:
            _dump(sync_json(report, str(settings.record_path), settings.demo))
        else:
            _render_sync(report, settings)
    if report.errors:
        sys.exit(2)


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


def _render_sync(report: SyncReport, settings: Settings) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console()
    if settings.demo:
        console.print("No agent store found on this machine: synced the bundled demo store "
                      f"into {settings.record_path}.\nLook around with [bold]total-recall --demo sessions[/] "
                      "and [bold]total-recall --demo read s1[/].", highlight=False)
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
@click.option("--json", "as_json", is_flag=True, help="Print the sessions as JSON.")
@click.pass_obj
def sessions(settings: Settings, harnesses: tuple[str, ...], as_json: bool) -> None:
    """List the sessions in the record, in order of first sight."""
    with _store(settings) as store:
        found = store.sessions(harnesses)
    if as_json:
        _dump([session_json(s) for s in found])
        return
    from rich.console import Console
    from rich.table import Table

    table = Table()
    table.add_column("session", no_wrap=True, min_width=7)
    table.add_column("harness", no_wrap=True, min_width=11)
    table.add_column("title", max_width=40, overflow="ellipsis", no_wrap=True)
    table.add_column("cwd", max_width=30, overflow="ellipsis", no_wrap=True)
    table.add_column("entries", justify="right", no_wrap=True, min_width=7)
    table.add_column("started", no_wrap=True, min_width=16)
    table.add_column("parent", no_wrap=True, min_width=6)
    table.add_column("read error", overflow="fold")
    for s in found:
        table.add_row(s.address, s.harness, s.title or "", s.cwd or "", str(s.entries),
                      (s.started or "")[:16].replace("T", " "), f"s{s.parent}" if s.parent else "",
                      s.read_error or "", style="red" if s.read_error else None)
    Console().print(table, markup=False, highlight=False)


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
    if not undo and not (reason or "").strip():
        _fail("quarantine needs --reason (why, kept in the quarantine log)")
    reason = reason or "released"
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
    if as_json:
        _dump(hits)
        return
    if not hits:
        click.echo("no hits", err=True)
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
from total_recall.surfaces import cli_window  # noqa: E402, F401  (registers its commands)
from total_recall.surfaces import cli_keeping  # noqa: E402, F401  (registers its commands)


def main() -> None:
    cli(prog_name="total-recall")
