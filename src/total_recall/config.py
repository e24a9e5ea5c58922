"""Where things live: the record's home, each harness's store roots, the sandbox guard.

Precedence for a store root: an explicit root (tests, `--root`) > the environment override
(`TOTAL_RECALL_<HARNESS>_ROOT`, non-empty) > the `$HOME`-derived default. An override that resolves to
nothing usable is an error naming the path, never a silent fall-back to the live store.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from total_recall.errors import ConfigError, SandboxError

RECORD_FILE = "record.sqlite3"
DEMO_RECORD_FILE = "demo.sqlite3"
# The record holds every word of every session: only its owner may read it, whatever the umask.
PRIVATE_DIR = 0o700
PRIVATE_FILE = 0o600

OVERRIDE_VARS: dict[str, str] = {
    "claude-code": "TOTAL_RECALL_CLAUDE_ROOT",
    "codex": "TOTAL_RECALL_CODEX_ROOT",
    "opencode": "TOTAL_RECALL_OPENCODE_ROOT",
    "vibe": "TOTAL_RECALL_VIBE_ROOT",
    "openclaw": "TOTAL_RECALL_OPENCLAW_ROOT",
}


@dataclass(frozen=True, slots=True)
class Root:
    """A folder a reader scans; `override` says it came from the user, not from `$HOME`."""

    harness: str
    path: Path
    override: bool


def _env(env: Mapping[str, str] | None) -> Mapping[str, str]:
    return os.environ if env is None else env


def _expanded(value: str, var: str) -> Path:
    """`value` as a path, `~` expanded; a `~user` that names no user is an error naming `var` (expanduser
    raises a bare RuntimeError)."""
    try:
        return Path(value).expanduser()
    except RuntimeError:
        raise ConfigError(f"{var} names {value}, but there is no home folder for that ~user") from None


def _home(env: Mapping[str, str]) -> Path:
    return Path(env.get("HOME") or Path.home())


def sandbox_armed(env: Mapping[str, str] | None = None) -> bool:
    return _env(env).get("TOTAL_RECALL_SANDBOX", "").strip() not in ("", "0", "false", "no")


# The record home a surface serves when it names one (the CLI's --home); None: the environment's.
_home_in_use: Path | None = None


@contextmanager
def home_at(home: Path) -> Iterator[None]:
    """Inside, `record_home()` is `home`: every copy the calls inside make (overflow files, store
    snapshots) goes under the record they serve. Process-wide on purpose: the MCP server answers in
    worker threads."""
    global _home_in_use
    before, _home_in_use = _home_in_use, home
    try:
        yield
    finally:
        _home_in_use = before


def surface_home() -> Path | None:
    """The record home a surface named for the calls it makes (`home_at`), else None: what `install`
    carries into the registrations it writes."""
    return _home_in_use


def record_home(env: Mapping[str, str] | None = None) -> Path:
    """The folder that holds the record: the one a surface named (`home_at`), else `$TOTAL_RECALL_HOME`,
    else the XDG data dir (a relative `$XDG_DATA_HOME` is ignored, as the XDG spec says).

    Raises:
        ConfigError: `$TOTAL_RECALL_HOME` is a relative path, or a `~user` that names no user.
    """
    if env is None and _home_in_use is not None:
        return _home_in_use
    e = _env(env)
    if value := e.get("TOTAL_RECALL_HOME", "").strip():
        return _absolute(value, "TOTAL_RECALL_HOME")
    if (xdg := e.get("XDG_DATA_HOME", "").strip()) and Path(xdg).is_absolute():
        return Path(xdg) / "total-recall"
    return _home(e) / ".local" / "share" / "total-recall"


def chosen_home(flag: str | None, env: Mapping[str, str] | None = None) -> Path:
    """The record home a surface starts on: the one its `--home` names, else `record_home(env)`.

    Raises:
        ConfigError: `--home` is empty or relative, or so is `$TOTAL_RECALL_HOME` when it decides.
    """
    if flag is None:
        return record_home(env)
    if not flag.strip():  # Path("") is the current folder: never meant
        raise ConfigError("--home is empty: name the record's folder, or leave --home out for "
                          "$TOTAL_RECALL_HOME, else ~/.local/share/total-recall")
    return _absolute(flag, "--home")


def _absolute(value: str, origin: str) -> Path:
    """`value` as an absolute home, `~` expanded. A relative one is refused rather than resolved: a hook
    or a server runs from whatever folder its client stands in, and would make a record there."""
    path = _expanded(value, origin)
    if not path.is_absolute():
        raise ConfigError(f"{origin} names {value!r}, a relative path: the record would be made in whatever "
                          f"folder a command runs from. Give an absolute path ({path.absolute()} from here)")
    return path


# What Total Recall keeps in the record's home: the records (and their -wal, -shm and locks), the copies
# it makes, and the files it writes beside them. Nothing else in a home is ours to change.
OWN_NAMES = (RECORD_FILE, DEMO_RECORD_FILE, "overflow", "snapshots", "llm.toml", "llm_usage.json",
             "observer-prompt.md", "observations", "push-")


def ours(name: str) -> bool:
    return name.startswith(OWN_NAMES)


def private_home(home: Path) -> str | None:
    """Create the record's home private (0700), or make what is ours in an existing one private: when it,
    or anything of ours in it, is open to other users, it loses every group and other permission
    (folders 0700, files 0600). Returns the one-time notice of a tightening, else None.

    A home that holds anything else (`--home /tmp`, or a home folder) is a shared folder: its own mode and
    what others keep there are left alone, and only our entries (`OWN_NAMES`) are tightened. Only the
    home's own entries are looked at on a private home (a few stats per open); paths owned by someone else
    are left alone (chmod would fail), as are symbolic links.

    Raises:
        ConfigError: the home does not exist and cannot be created (under a file, in /sys or /proc, …).
    """
    try:
        home.mkdir(parents=True, mode=PRIVATE_DIR)
        return None  # created by us: mkdir's mode under any umask that leaves the owner's bits is 0700
    except FileExistsError:
        pass
    except OSError as exc:
        raise ConfigError(f"cannot create the record's home {home}: {exc.strerror or exc}") from None
    uid = os.geteuid()
    try:
        entries = list(os.scandir(home))
    except OSError:
        return None  # unreadable: opening the record will say what is wrong
    shared = any(not ours(e.name) for e in entries)
    mine = [Path(e.path) for e in entries if ours(e.name)]
    try:
        loose = (not shared and _loose(home, uid)) or any(_loose(p, uid) for p in mine)
    except OSError:
        return None
    if not loose:
        return None
    tightened = sum(_tighten(p, uid) for p in mine) + (0 if shared else _tighten(home, uid, deep=False))
    where = (f"the record's files in {home} (a folder shared with other things, which is left as it is) "
             "were" if shared else f"the record's home {home} was")
    return (f"{where} open to other users: {tightened} folder(s) and file(s) there are now private "
            f"(folders {PRIVATE_DIR:o}, files {PRIVATE_FILE:o})")


def _loose(path: Path, uid: int) -> bool:
    st = path.lstat()
    return st.st_uid == uid and not path.is_symlink() and bool(st.st_mode & 0o077)


def _tighten(top: Path, uid: int, deep: bool = True) -> int:
    """Remove group and other permissions from `top` (and, when `deep`, everything under it) we own;
    returns how many had any."""
    count = 0
    if not deep or not top.is_dir() or top.is_symlink():
        try:
            st = top.lstat()
            if st.st_uid == uid and not top.is_symlink() and st.st_mode & 0o077:
                os.chmod(top, st.st_mode & 0o700)
                return 1
        except OSError:
            pass
        return 0
    for folder, dirs, files in os.walk(top):
        for path in [Path(folder), *(Path(folder) / n for n in (*dirs, *files))]:
            if path != Path(folder) and path.is_dir() and not path.is_symlink():
                continue  # a folder is done when the walk reaches it
            try:
                st = path.lstat()
                if st.st_uid == uid and not path.is_symlink() and st.st_mode & 0o077:
                    os.chmod(path, st.st_mode & 0o700)
                    count += 1
            except OSError:
                continue  # gone meanwhile, or not ours to change
    return count


def _split_paths(value: str, var: str) -> list[Path]:
    return [_expanded(p.strip(), var) for p in value.split(",") if p.strip()]


def default_roots(harness: str, env: Mapping[str, str] | None = None) -> list[Path]:
    """The live-store folders a harness writes to on this machine (they may not exist)."""
    e = _env(env)
    home = _home(e)
    xdg_data = Path(e["XDG_DATA_HOME"]) if e.get("XDG_DATA_HOME") else home / ".local" / "share"
    if harness == "claude-code":
        if dirs := _split_paths(e.get("CLAUDE_CONFIG_DIR", ""), "CLAUDE_CONFIG_DIR"):
            return [d / "projects" for d in dirs]
        xdg_config = Path(e["XDG_CONFIG_HOME"]) if e.get("XDG_CONFIG_HOME") else home / ".config"
        return [home / ".claude" / "projects", xdg_config / "claude" / "projects"]
    if harness == "codex":
        homes = _split_paths(e.get("CODEX_HOME", ""), "CODEX_HOME") or [home / ".codex"]
        return [h / sub for h in homes for sub in ("sessions", "archived_sessions")]
    if harness == "opencode":
        return [xdg_data / "opencode"]
    if harness == "vibe":
        vibe = _expanded(e["VIBE_HOME"], "VIBE_HOME") if e.get("VIBE_HOME") else home / ".vibe"
        return [vibe / "logs" / "session"]
    if harness == "openclaw":
        if e.get("OPENCLAW_DIR"):
            return [_expanded(e["OPENCLAW_DIR"], "OPENCLAW_DIR") / "agents"]
        names = [".openclaw", ".clawdbot", ".moltbot", ".moldbot"]
        return [home / n / "agents" for n in names] + [home / ".pi" / "agent" / "sessions"]
    raise ConfigError(f"unknown harness {harness!r}")


def resolve_roots(
    harness: str,
    env: Mapping[str, str] | None = None,
    explicit: Path | None = None,
) -> list[Root]:
    """The roots to scan for one harness.

    Raises:
        ConfigError: the override names nothing, a folder that holds nothing or cannot be read, or (the
            variable only) a file rather than a folder.
        SandboxError: the sandbox is armed and no override (or explicit root) was given.
    """
    e = _env(env)
    var = OVERRIDE_VARS.get(harness)
    if var is None:
        raise ConfigError(f"unknown harness {harness!r}")
    if explicit is not None:
        return [_checked_override(harness, explicit, "the explicit root")]
    if value := e.get(var, "").strip():
        path = _expanded(value, var)
        # A file (or /dev/null) is no store: read as one, it would add a junk session to the append-only
        # record. An explicit root may be one file (a test's single transcript); a variable may not.
        if path.exists() and not path.is_dir():
            raise ConfigError(f"{var} names {path}, which is a file, not a store folder")
        return [_checked_override(harness, path, var)]
    if sandbox_armed(e):
        raise SandboxError(
            f"TOTAL_RECALL_SANDBOX is set but {var} is not: refusing to read the live store. "
            f"Point {var} at a fixture or scratch copy."
        )
    return [Root(harness, p, False) for p in default_roots(harness, e) if p.is_dir()]


def _checked_override(harness: str, path: Path, origin: str) -> Root:
    if not path.exists():
        raise ConfigError(f"{origin} names {path}, which does not exist")
    if path.is_dir():
        # An empty folder is a harness with no sessions yet: nothing to read, not an error.
        try:
            next(path.iterdir(), None)
        except OSError as exc:
            raise ConfigError(f"{origin} names {path}, which cannot be read: {exc.strerror or exc}") from None
    return Root(harness, path, True)


def demo_roots() -> dict[str, Path]:
    """The bundled demo store: realistic sessions in the native formats, shipped in the package."""
    base = Path(__file__).resolve().parent / "demo" / "store"
    return {"claude-code": base / "claude" / "projects", "codex": base / "codex" / "sessions"}


def default_folders(env: Mapping[str, str] | None = None) -> list[Path]:
    """Every folder a sync of every harness reads by default, whether it exists or not (what a sync that
    found no store on this machine says it looked in)."""
    e = _env(env)
    return _every_harness(lambda harness: default_roots(harness, e))


def live_store_present(env: Mapping[str, str] | None = None) -> bool:
    """Whether any harness has a store on this machine (or an override points at one)."""
    e = _env(env)
    if any(e.get(var, "").strip() for var in OVERRIDE_VARS.values()):
        return True
    return any(p.is_dir() for h in OVERRIDE_VARS for p in default_roots(h, e))


def use_demo(harnesses: tuple[str, ...] | list[str], env: Mapping[str, str] | None = None) -> bool:
    """Whether a sync with no harness named should run on the bundled demo store: only when this
    machine has no agent store at all and the sandbox is not armed (a sandboxed run reads nothing live)."""
    return not harnesses and not sandbox_armed(env) and not live_store_present(env)


def demo_when_empty(harnesses: tuple[str, ...] | list[str], env: Mapping[str, str] | None = None) -> bool:
    """Whether a sync whose stores left the record without a single session shows the bundled demo too
    (synced into its own record): only when no harness was named, as `use_demo`, and the sandbox is not
    armed."""
    return not harnesses and not sandbox_armed(env)


def store_roots(env: Mapping[str, str] | None = None) -> list[Path]:
    """The folders a sync of every harness reads: each override, else the default folders that exist
    (what a sync that found nothing says it looked in)."""
    e = _env(env)
    return _every_harness(lambda harness: [r.path for r in resolve_roots(harness, e)])


def _every_harness(folders: Callable[[str], list[Path]]) -> list[Path]:
    """The `folders` of every harness, one harness after another."""
    found: list[Path] = []
    for harness in OVERRIDE_VARS:
        try:
            found.extend(folders(harness))
        except ConfigError:
            # A `~user` that names no user, an override that names nothing, the sandbox armed with no
            # override (a SandboxError): that harness's own sync says so.
            continue
    return found


def env_seconds(env: Mapping[str, str], var: str, default: float, most: float) -> float:
    """A number of seconds from `var`, 0 to `most`; `default` when it is unset or blank.

    Raises:
        ConfigError: it is not a number, or negative, NaN, infinite or above `most`.
    """
    raw = env.get(var, "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        value = math.nan
    if not 0 <= value <= most:  # NaN fails every comparison
        shown = repr(raw) if len(raw) <= 40 else repr(raw[:40]) + "…"
        raise ConfigError(f"{var} must be a number of seconds from 0 to {most:g}, not {shown}")
    return value
