"""CLI commands `watch` (the reactive watcher: runs until stopped, so not an operation) and the watcher's
side of `install` (`total-recall install watcher`: its systemd user unit).

Registered on the `cli` group by importing this module (surfaces/cli.py does, once); `install` (in
cli_mcp.py) hands `watcher` to `install_watcher` here.
"""

from __future__ import annotations

import math
import signal
import sys
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import Any

import click
import orjson
from click.core import ParameterSource

from total_recall.errors import TotalRecallError
from total_recall.install import (
    WATCHER,
    apply,
    enable_watcher,
    executable,
    systemd_here,
    watch_words,
    watcher_instead,
    watcher_unit,
)
from total_recall.llm.provider import Provider
from total_recall.observing.watcher import (
    DEFAULT_COOLDOWN,
    DEFAULT_LINES,
    HARNESSES,
    MAX_COOLDOWN,
    MAX_RUN,
    Action,
    Watcher,
    watched_roots,
)
from total_recall.surfaces.cli import Settings, _dump, _fail, _note, cli


class _Seconds(click.types.FloatParamType):
    """A finite number of seconds from 0 to `most`: click's FloatRange lets nan through (it compares
    false both ways) and inf up to any open bound."""

    name = "seconds"

    def __init__(self, most: float, words: str) -> None:
        self.most, self.words = most, words

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> float:
        try:
            seconds = float(value)
        except (TypeError, ValueError):
            seconds = math.nan
        if 0 <= seconds <= self.most:
            return seconds
        given = f"{value!r}"
        if param is not None and ctx is not None and param.name is not None and param.envvar and \
                ctx.get_parameter_source(param.name) is ParameterSource.ENVIRONMENT:
            given = f"{value!r} (from {param.envvar})"  # the flag was not given: name where it came from
        self.fail(f"{given}: give a finite number of seconds from 0 to {self.most:.0f} ({self.words})",
                  param, ctx)


@cli.command("watch")
@click.option("--harness", "harnesses", multiple=True, type=click.Choice(HARNESSES), metavar="NAME",
              help=f"Follow only this harness's store ({'|'.join(HARNESSES)}); repeatable. Default: every "
                   "one with a store here.")
@click.option("--lines", type=click.IntRange(min=1), default=DEFAULT_LINES, show_default=True,
              envvar="TOTAL_RECALL_WATCH_LINES", show_envvar=True,
              help="Sync and observe a main session once it has grown by this many lines.")
@click.option("--cooldown", type=_Seconds(MAX_COOLDOWN, "a day"), default=DEFAULT_COOLDOWN, show_default=True,
              envvar="TOTAL_RECALL_WATCH_COOLDOWN", show_envvar=True, metavar="SECONDS",
              help="At most one sync and observe of a session per this many seconds.")
@click.option("--mechanical", is_flag=True, help="Observe mechanically even when a model is configured.")
@click.option("--for", "seconds", type=_Seconds(MAX_RUN, "366 days"), default=None, metavar="SECONDS",
              help="Stop after this many seconds (exit 0).")
@click.option("--once", is_flag=True, help="Stop after the first sync and observe (exit 0).")
@click.option("--json", "as_json", is_flag=True, help="One JSON object a line for each action.")
@click.pass_obj
def watch(settings: Settings, harnesses: tuple[str, ...], lines: int, cooldown: float, mechanical: bool,
          seconds: float | None, once: bool, as_json: bool) -> None:
    """Follow the agents' session stores by file events; once a main session has grown by --lines lines,
    sync its harness and observe it (at most once per --cooldown). Sub-agent files are not counted.

    Runs until stopped: SIGTERM exits 0, Ctrl-C 130, each after the file watch is closed; a sync or an
    observe that fails is reported on stderr and the watch goes on. Nothing is written in a store."""
    if settings.demo:
        _fail("the demo store never changes: watch the live stores (drop --demo)")
    try:
        model = None if mechanical else _model(settings)
        watcher = Watcher(settings.record_path, watched_roots(harnesses), lines=lines, cooldown=cooldown,
                          model=model)
        started = watcher.start()
    except TotalRecallError as exc:
        _fail(str(exc), type(exc).__name__)
    emit = _emitter(as_json)

    def stop(signum: int, frame: FrameType | None) -> None:
        watcher.stop()

    before = signal.signal(signal.SIGTERM, stop)
    code = 0
    try:
        emit(started)
        watcher.run(emit, seconds=seconds, once=once)
        why = "SIGTERM" if watcher.stopping else ("once" if once else "time")
    except KeyboardInterrupt:
        why, code = "SIGINT", 130
    finally:
        signal.signal(signal.SIGTERM, before)
        watcher.close()
    emit(Action("stopped", data={"why": why}))
    sys.exit(code)


def _model(settings: Settings) -> Provider | None:
    """The configured model, or None (and a note) when there is none: the mechanical observer then.

    Raises:
        ConfigError: a setting is malformed.
    """
    from total_recall.llm.settings import load_settings

    llm = load_settings(home=settings.home)
    if llm.problem is not None:
        _note(f"no model configured ({llm.problem}): the mechanical observer runs")
        return None
    return Provider(llm)


def _emitter(as_json: bool) -> Callable[[Action], None]:
    def emit(action: Action) -> None:
        for error in action.errors:
            where = f" {action.harness} {action.path}" if action.harness else ""
            click.echo(f"total-recall watch:{where}: {action.kind}: {error}", err=True)
        if as_json:
            click.echo(orjson.dumps(action.to_json()).decode())
        else:
            click.echo(_human(action))
        sys.stdout.flush()

    return emit


def _human(a: Action) -> str:
    d = a.data
    where = f"{a.harness} {a.path}" + (f" (s{a.session})" if a.session else "")
    if a.kind == "watching":
        roots = "; ".join(f"{h}: {', '.join(p)}" for h, p in d["roots"].items())
        return (f"{a.at} watching {d['files']} session file(s) under {roots} — sync and observe after "
                f"{d['lines']} new lines, at most every {d['cooldown']:g} s ({d['observer']} observer)")
    if a.kind == "sync":
        return (f"{a.at} {where}: {a.lines} new lines → synced {d['sources_read']} source(s), "
                f"{d['entries_added']} new entries")
    if a.kind == "observe":
        return (f"{a.at} {where}: observed {d['observed']['entries']} entries → "
                f"{d.get('added', 0)} added, {d.get('reinforced', 0)} reinforced")
    if a.kind == "held":
        return f"{a.at} {where}: {a.lines} new lines, held for {d['seconds_left']:.0f} s more (cooldown)"
    if a.kind == "reset":
        return f"{a.at} {where}: {a.lines} new lines already {d['reason']}: count reset"
    if a.kind == "error":
        return f"{a.at} {where}: {d['stage']} failed; the watch goes on"
    return f"{a.at} stopped ({d['why']})"


def install_watcher(write: bool, config: Path | None, harness: str | None, as_json: bool) -> None:
    """`total-recall install watcher`: print (or with `write`, write) the systemd user unit running
    `total-recall watch`; without systemd, print what to run instead."""
    settings = click.get_current_context().find_object(Settings)
    home = settings.home if settings is not None and settings.named_home else None
    if harness is not None and harness not in HARNESSES:
        _fail(f"the watcher follows {', '.join(HARNESSES)}, not {harness!r}")
    try:
        words = watch_words(executable(), harness, home)
        change = watcher_unit(words, path=config)
        systemd = systemd_here()
        written = apply([change])[0] if write and systemd else None
    except TotalRecallError as exc:
        _fail(str(exc), type(exc).__name__)
    instead = None if systemd else watcher_instead(words)
    if as_json:
        out: dict[str, Any] = {"client": WATCHER, "command": words[0], "systemd": systemd, "files": [{
            "path": str(change.path), "what": change.what, "format": change.format, "snippet": change.snippet,
            "written": written is not None, "changed": bool(written and written.changed),
            "backup": str(written.backup) if written and written.backup else None}] if systemd else []}
        out.update({"run": enable_watcher(change.path)} if systemd else {"instead": instead})
        _dump(out)
        return
    if not systemd:
        if write:
            _note("no systemd here (no systemctl on PATH, or not Linux): nothing written")
        click.echo("# No systemd user units here: run the watcher this way instead.")
        click.echo(instead)
        return
    if written is None:
        click.echo(f"# {change.what}: save as {change.path}")
        click.echo(change.snippet.rstrip("\n"))
        click.echo()
        click.echo(f"# total-recall install {WATCHER} --write writes it for you (with a backup); then run:")
    elif not written.changed:
        click.echo(f"{change.what}: already in {written.path}; nothing changed. If the watcher is not "
                   "running yet:")
    else:
        kept = f"backup: {written.backup}" if written.backup else "new file"
        click.echo(f"{change.what}: written to {written.path} ({kept}). Start it with:")
    click.echo(enable_watcher(change.path))
