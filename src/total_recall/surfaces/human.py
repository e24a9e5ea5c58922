"""How the CLI shows a reply without --json: one rendering per operation that has its own, and a plain
`key: value` form for the rest. Notes and warnings go to stderr; the reply's own words to stdout."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click
import orjson

from total_recall.ops.operation import Operation, Reply

MAX_LISTED_WARNINGS = 20


def counted(n: int, noun: str) -> str:
    """`1 entry`, `2 entries`, `0 sessions`: a count with its noun in the right number."""
    if n == 1:
        return f"1 {noun}"
    return f"{n} {noun[:-1] + 'ies' if noun.endswith('y') else noun + 's'}"


def human(op: Operation[Any], reply: Reply, settings: Any) -> str:
    """`reply` as a person reads it: the operation's own rendering, its MCP text, or `key: value` lines."""
    if (render := RENDERINGS.get(op.name)) is not None:
        return render(reply, settings)
    if op.text is not None:
        return op.text(reply)
    return plain(reply)


def plain(reply: Reply) -> str:
    """A reply with no rendering of its own: scalar fields as `key: value`, lists one item a line."""
    lines = []
    for key, value in reply.items():
        if isinstance(value, list):
            lines.append(f"{key}: {len(value)}")
            lines += [f"  {orjson.dumps(v).decode() if isinstance(v, dict | list) else v}" for v in value]
        elif isinstance(value, dict):
            lines.append(f"{key}: {orjson.dumps(value).decode()}")
        else:
            lines.append(f"{key}: {value}")
    return "\n".join(lines)


def _held(reply: Reply, text: str) -> str:
    """`text`, then on stderr what a capped reply held back and where the whole of it is."""
    if reply.get("held_back"):
        click.echo(f"note: {reply['notice']}", err=True)
    return text


def progress_bar(enabled: bool) -> Any:
    """A progress bar on stderr when it is a terminal (its `update(done, total, label)` and `stop()`);
    None otherwise."""
    if not enabled or not sys.stderr.isatty():
        return None
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    bar = Progress(TextColumn("working"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                   TextColumn("[dim]{task.description}"), console=Console(stderr=True), transient=True)
    task = bar.add_task("", total=None)
    bar.start()

    class Bar:
        def update(self, done: int, total: int, label: str) -> None:
            bar.update(task, completed=done, total=total, description=Path(label).name if label else "")

        def stop(self) -> None:
            bar.stop()

    return Bar()


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


def _sessions(reply: Reply, settings: Any) -> str:
    """The sessions as a table that fits the terminal: the title and cwd are cut first, then the least
    useful columns dropped (_DROPPED_FIRST); the address is printed whole whatever the width."""
    rows = reply["sessions"]
    if not rows:
        return ""

    def when(text: str | None) -> str:
        return (text or "")[:16].replace("T", " ")

    columns = {
        "session": _Column("session", [s["session"] for s in rows]),
        "harness": _Column("harness", [s["harness"] for s in rows]),
        "entries": _Column("entries", [str(s["entries"]) for s in rows], right=True),
        "last active": _Column("last active", [when(s["last_active"]) for s in rows]),
        "started": _Column("started", [when(s["started"]) for s in rows]),
        "parent": _Column("parent", [s["parent"] or "" for s in rows]),
        "title": _Column("title", [_flat(s["title"]) for s in rows], cap=40, least=12),
        "cwd": _Column("cwd", [_flat(s["cwd"]) for s in rows], cap=40, least=12, tail=True),
    }
    shown = _fit(columns, _width())
    lines = ["  ".join(_cell(c.header, w, c) for c, w in shown).rstrip()]
    for n, s in enumerate(rows):
        text = "  ".join(_cell(c.cells[n], w, c) for c, w in shown).rstrip()
        if not s["read_error"]:
            lines.append(text)
            continue
        lines.append(click.style(text, fg="red"))
        lines.append(click.style(f"    read error: {_flat(s['read_error'])}", fg="red"))
    return _held(reply, "\n".join(lines))


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




def _sync(reply: Reply, settings: Any) -> str:
    from io import StringIO

    from rich.console import Console
    from rich.table import Table

    out = StringIO()
    console = Console(file=out, width=_width() or 120)
    # The path on a line of its own, never folded: a table's title would break it mid-name to the table's
    # width, and a path is copied whole.
    out.write(f"Record: {reply['record']}\n")
    table = Table()
    for col in ("harness", "sessions", "entries", "new sessions", "new entries"):
        table.add_column(col, justify="left" if col == "harness" else "right")
    for harness, c in sorted(reply["harnesses"].items()):
        table.add_row(harness, str(c["sessions"]), str(c["entries"]), str(c["sessions_added"]),
                      str(c["entries_added"]))
    console.print(table)
    console.print(f"{counted(reply['entries_added'], 'entry')} added, "
                  f"{counted(reply['sessions_added'], 'session')} new, "
                  f"{reply['sessions_updated']} updated; {counted(reply['sources_read'], 'source')} read, "
                  f"{reply['sources_unchanged']} unchanged.", highlight=False)
    if vectors := reply.get("vectors"):
        pending = vectors["pending"]
        console.print(f"meaning search: {counted(vectors['embedded'], 'entry')} embedded"
                      + (f", {pending} left for [bold]total-recall index[/] (or the next sync)" if pending
                         else ", every entry has its vector"), highlight=False)
    if built := reply.get("assets"):
        console.print(f"what you own: {counted(built['assets'], 'asset')} indexed for the push "
                      f"({built['seconds']:g} s)", highlight=False)
    for notice in reply["notices"]:
        click.echo(f"note: {notice}", err=True)
    if reply["demo"] and not settings.demo:
        look, read = (click.style(settings.command("--demo", *w), bold=True) for w in (("sessions",),
                                                                                      ("read", "s1")))
        click.echo(f"Look around with {look} and {read}.", err=True)
    warnings = reply["warnings"]
    if warnings:
        total = len(warnings) + reply.get("held_back", 0)
        click.echo(f"{counted(total, 'warning')} (lines skipped):", err=True)
        for w in warnings[:MAX_LISTED_WARNINGS]:
            click.echo(f"  {w}", err=True)
        if total > MAX_LISTED_WARNINGS:
            click.echo(f"  … {total - MAX_LISTED_WARNINGS} more (--json lists them; so does status)",
                       err=True)
    for error in reply["errors"]:
        click.echo(f"error: {error}", err=True)
    return out.getvalue()


def _status(reply: Reply, settings: Any) -> str:
    """The record's coverage per harness as a table, then its last sync and what that sync skipped."""

    def when(text: str | None) -> str:
        return (text or "")[:16].replace("T", " ") or "-"

    rows = [("harness", "sessions", "entries", "sources", "unreadable", "last sync", "last active")]
    rows += [(h["harness"], str(h["sessions"]), str(h["entries"]), str(h["sources"]),
              str(h["unreadable_sources"]), when(h["last_sync"]), when(h["last_active"]))
             for h in reply["harnesses"]]
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = [f"record: {reply['record']}" + (" (the demo's)" if reply["demo"] else "")]
    for r in rows:
        cells = zip(r, widths, strict=True)
        lines.append("  ".join(c.rjust(w) if 0 < i < 5 else c.ljust(w) for i, (c, w) in enumerate(cells))
                     .rstrip())
    totals = reply["totals"]
    lines.append(f"{counted(totals['sessions'], 'session')}, {counted(totals['entries'], 'entry')} in all")
    if last := reply.get("last_sync"):
        lines.append(f"last sync that read anything: {when(last['at'])}, "
                     f"{counted(last['sources_read'], 'source')} read, "
                     f"{counted(last['entries_added'], 'entry')} added, "
                     f"{counted(last['warning_count'], 'warning')}")
        lines += [f"  {w}" for w in last["warnings"][:MAX_LISTED_WARNINGS]]
        more = last["warning_count"] - min(len(last["warnings"]), MAX_LISTED_WARNINGS)
        if more > 0:
            lines.append(f"  … {more} more (--json lists the first 200)")
    if reply.get("notice"):
        click.echo(f"note: {reply['notice']}", err=True)
    return "\n".join(lines)


def _read(reply: Reply, settings: Any) -> str:
    lines = []
    for e in reply["entries"]:
        flags = [f for f in (e["tool"], e["branch"] == "side" and "side branch",
                             e["quarantined"] and "quarantined") if f]
        extra = f" · {' · '.join(str(f) for f in flags)}" if flags else ""
        when = e["timestamp"] or "no time"
        lines.append(f"── {e['address']} · {e['author']} · {e['kind']} · {when}{extra} ──")
        lines.append(e["text"])
    bounds = reply["bounds"]
    if not lines:  # an offset past the end, a session with no entry yet: say so, never silence
        click.echo(f"note: {bounds['notice']}", err=True)
    elif bounds.get("next_offset") is not None:
        click.echo(f"note: {bounds['returned_records']} of {bounds['total_records']} entries shown; go on "
                   f"with --offset {bounds['next_offset']}", err=True)
    return "\n".join(lines)


def _search(reply: Reply, settings: Any) -> str:
    if "groups" in reply:
        lines = []
        for g in reply["groups"]:
            lines.append(f"{g['range']:<14} score {g['score']:.4f}  ({counted(len(g['hits']), 'hit')})")
            lines += [f"    {h['address']:<10} {h['author']:<7} {h['snippet']}" for h in g["hits"]]
        found = reply["groups"]
    else:
        lines = [f"{h['address']:<10} {h['harness']:<11} {h['author']:<7} {(h['timestamp'] or '')[:16]:<16} "
                 f"{h['snippet']}" for h in reply["hits"]]
        found = reply["hits"]
    if not found:
        click.echo("no hits", err=True)
    return _held(reply, "\n".join(lines))


def _push(reply: Reply, settings: Any) -> str:
    from total_recall.keeping.prompt import pointers_text

    if reply["off"]:
        click.echo("note: the push is off (`total-recall unmute --all` turns it on)", err=True)
    elif not reply["pointers"]:
        click.echo("nothing to push: no asset clears the bar for this message", err=True)
    return pointers_text([p["line"] for p in reply["pointers"]])


def _assets(reply: Reply, settings: Any) -> str:
    lines = []
    for a in reply["assets"]:
        uses = "; ".join(k["text"] for k in a["keys"]["uses"][:3])
        state = "" if a["current"] else " (superseded)"
        lines.append(f"{a['asset']:<6} {a['kind']:<10} {a['name']}{state} — {a['description'][:80]}")
        if uses:
            lines.append(f"{'':<17} for: {uses}")
        lines.append(f"{'':<17} {a['source']}")
    if not reply["assets"]:
        click.echo("no assets: `total-recall assets --rebuild` makes the index from the record and the "
                   "harnesses' config roots", err=True)
    return _held(reply, "\n".join(lines))


def _muting(reply: Reply, settings: Any) -> str:
    action = "muted" if "muted" in reply else "unmuted"
    if reply[action] == "*":
        return f"the push is {'on' if reply['push'] else 'off'}"
    none = " (no asset has that name yet)" if action == "muted" else " (no asset has that name)"
    named = f" ({', '.join(reply['assets'])})" if reply["assets"] else none
    return f"{action} {reply[action]!r}{named}"


def _erase(reply: Reply, settings: Any) -> str:
    done = reply["erased"]
    text = f"erased {counted(len(done), 'entry')}: {', '.join(done) or 'none (already erased)'}"
    if reply["overflow_files_removed"]:
        text += f"\nremoved {counted(reply['overflow_files_removed'], 'overflow file')} that held their text"
    if reply.get("snapshots_removed"):
        text += (f"\nremoved {counted(reply['snapshots_removed'], 'store copy')} a killed sync "
                 "had left")
    if reply.get("exports_rewritten"):
        text += (f"\nrewrote {counted(reply['exports_rewritten'], 'exported observations file')} without "
                 "what the erase withdrew")
    if reply.get("exports_left_alone"):
        text += ("\nleft alone, as you changed them since they were exported (they may still hold what was "
                 f"erased): {', '.join(reply['exports_left_alone'])}")
    if reply.get("wal_cleared") is False:
        text += ("\nnote: another process reading the record holds an older snapshot of it, so the erased "
                 "words stay in its write-ahead log (record.sqlite3-wal) until that reader closes")
    return text


def _quarantine(reply: Reply, settings: Any) -> str:
    undo = "released" in reply
    done = reply["released" if undo else "quarantined"]
    already = "none was in quarantine" if undo else "all were in quarantine already"
    return (f"{'released' if undo else 'quarantined'} {counted(len(done), 'entry')}"
            + (f": {', '.join(done)}" if done else f" ({already})"))


def _index(reply: Reply, settings: Any) -> str:
    if not reply["vectors_extra"]:
        return "rebuilt the word and exact-string indexes"
    more = "" if reply["done"] else "; more remain"
    return f"embedded {counted(reply['embedded'], 'entry')} ({reply['vectors']} vectors in all){more}"


from total_recall.surfaces import human_keeping, human_mining, human_observing, human_summaries  # noqa: E402

RENDERINGS: dict[str, Callable[[Reply, Any], str]] = {
    **human_keeping.RENDERINGS, **human_mining.RENDERINGS, **human_summaries.RENDERINGS,
    **human_observing.RENDERINGS,
    "push": _push, "assets": _assets, "mute": _muting, "unmute": _muting,
    "sync": _sync, "status": _status, "sessions": _sessions, "read": _read, "search": _search,
    "erase": _erase,
    "quarantine": _quarantine, "index": _index,
}
