"""Assets mined from the record: the tools the agent wrote and ran, the documents written several times,
the machines named in commands, the past runs the owner later points back to, and every visible use of an
asset (what co-access links and "helped" use keys come from).

Every text kept is redacted first (`llm/redaction.py`): a machine is kept with where its login lives (a
key file's path, a vault item, an environment variable's NAME), never the secret.
"""

from __future__ import annotations

import bisect
import itertools
import re
import shlex
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from total_recall.assets.asset import Draft
from total_recall.assets.corrections import refers_back
from total_recall.assets.uses import args_of, used_name
from total_recall.assets.words import STOP, normal_name, shorten, terms
from total_recall.llm.redaction import redact
from total_recall.model import SHELL_TOOLS
from total_recall.record.assets import MinedRow

SCRIPT_SUFFIXES = frozenset({"", ".py", ".sh", ".bash", ".zsh", ".js", ".mjs", ".ts", ".rb", ".pl", ".ps1"})
DOCUMENT_SUFFIXES = frozenset({".md", ".markdown", ".txt", ".rst", ".org", ".adoc", ".tex", ".html"})
_WRITE_TOOLS = frozenset({"Write", "Edit", "MultiEdit", "NotebookEdit", "write", "edit", "create_file",
                          "str_replace_based_edit_tool"})
_PATCH_FILE = re.compile(r"^\*\*\* (?:Add|Update) File: (.+)$", re.M)
_HEREDOC = re.compile(r"\bcat\s+>\s*(['\"]?)([\w./~-]+)\1\s*<<")
_URL_HOST = re.compile(r"\bhttps?://(?:[^/\s@]+@)?(\[[0-9a-f:]+\]|[A-Za-z0-9][\w.-]*)", re.I)
_PRIVATE_V4 = re.compile(r"^(?:10|127|192\.168|172\.(?:1[6-9]|2\d|3[01]))\.[\d.]+$")
_LOCAL_SUFFIXES = (".local", ".lan", ".internal", ".home", ".corp", ".home.arpa", ".intranet")
_MACHINE_LABEL = re.compile(
    r"\b(?:the )?([a-z][\w-]*(?: [a-z][\w-]*)?) (?:machine|box|server|host|computer|pc|workstation) "
    r"(?:is|at|=|lives at|runs at) ([A-Za-z0-9][\w.-]*[A-Za-z0-9])")
_LOGIN_SAID = re.compile(
    r"\b(?:login|password|credentials?|key|token|secret)s? (?:is|are|lives?|kept|stored) "
    r"(?:in|at|under) ([^\n.,;]{3,80})", re.I)
_COMMAND_NAME = re.compile(r"<command-name>/?([\w:.-]+)</command-name>")
_ENV_NAME = re.compile(r"\$\{?([A-Z][A-Z0-9_]{2,})\}?")
_VAULT = re.compile(r"\b(?:op (?:read|item get) ['\"]?(op://[^\s'\"]+|[\w./-]+)|pass(?: show)? ([\w./-]+)|"
                    r"bw get \w+ ([\w./-]+)|security find-generic-password(?: -\w+)* -s ['\"]?([\w./ -]+))")
# ssh options that take an argument (man ssh)
_SSH_ARG = frozenset("BbcDEeFIiJLlmOoPpQRSWw")


@dataclass(slots=True)
class Use:
    identity: str
    entry: int
    session: int
    seq: int
    failed: bool


@dataclass(slots=True)
class Mined:
    drafts: list[Draft] = field(default_factory=list)
    uses: list[Use] = field(default_factory=list)


@dataclass(slots=True)
class Turn:
    """A session's entries as mining reads them, with the owner's words of each owner message."""

    session: int
    cwd: str | None
    rows: list[MinedRow]
    words: dict[int, str]  # entry id -> the owner's own words


def command_of(row: MinedRow) -> str | None:
    """The shell command a tool call ran, if it ran one."""
    if row.kind != "tool_call" or (row.tool or "").lower() not in SHELL_TOOLS:
        return None
    args = args_of(row)
    command = args.get("command", args.get("cmd"))
    if isinstance(command, list):
        words = [str(w) for w in command]
        # Codex wraps a script in ["bash", "-lc", "<script>"]
        return words[-1] if len(words) >= 3 and words[1] in ("-c", "-lc") else " ".join(words)
    return command if isinstance(command, str) else None


def written_paths(row: MinedRow) -> list[tuple[str, str]]:
    """(path, content or "") of each file a tool call wrote."""
    if row.kind != "tool_call":
        return []
    args = args_of(row)
    tool = row.tool or ""
    if tool in _WRITE_TOOLS:
        path = args.get("file_path") or args.get("filePath") or args.get("path")
        content = args.get("content") or args.get("file_text") or ""
        return [(path, content if isinstance(content, str) else "")] if isinstance(path, str) else []
    if tool == "apply_patch" or "*** Begin Patch" in row.text[:2_000]:
        text = args.get("input") if isinstance(args.get("input"), str) else row.text
        return [(p.strip(), "") for p in _PATCH_FILE.findall(str(text))]
    command = command_of(row)
    if command:
        return [(m.group(2), "") for m in _HEREDOC.finditer(command)]
    return []


def mine(turns: list[Turn], named: dict[str, str]) -> Mined:
    """Tools, documents, machines and approaches, and every use of an asset (`named`: the normal names of
    the assets discovery found, to their identity)."""
    mined = Mined()
    writes: dict[str, list[tuple[Turn, MinedRow, str]]] = {}
    runs: list[tuple[Turn, MinedRow, str, bool]] = []
    for turn in turns:
        results = {r.group: r.failed for r in turn.rows if r.kind == "tool_result" and r.group}
        for row in turn.rows:
            for path, content in written_paths(row):
                writes.setdefault(path, []).append((turn, row, content))
            if (command := command_of(row)) is not None:
                runs.append((turn, row, command, results.get(row.group or "", False)))
            if row.kind == "tool_call":
                if identity := _used(row, named):
                    mined.uses.append(Use(identity, row.id, turn.session, row.seq,
                                          results.get(row.group or "", False)))
            elif row.author == "owner" and (m := _COMMAND_NAME.search(row.text)) \
                    and (identity := named.get(normal_name(m.group(1)))):
                mined.uses.append(Use(identity, row.id, turn.session, row.seq, False))
    _tools_and_documents(mined, writes, runs)
    _machines(mined, runs, turns)
    _approaches(mined, turns, runs)
    return mined


def _used(row: MinedRow, named: dict[str, str]) -> str | None:
    name = used_name(row)
    return None if name is None else named.get(name)


def _address(row: MinedRow) -> str:
    return f"s{row.session}#{row.seq}"


_REMOTE = re.compile(r"\b(?:ssh|mosh|autossh|scp|rsync)\b")
_RUN_WORDS = re.compile(r"[\s/'\"=;|&)]+")


def _holding(joined: str, starts: list[int], text: str) -> set[int]:
    """The runs whose command holds `text` (`joined`: every command, NUL-separated, run n at starts[n])."""
    out: set[int] = set()
    at = joined.find(text)
    while at >= 0:
        out.add(bisect.bisect_right(starts, at) - 1)
        at = joined.find(text, at + 1)
    return out


def _ran(command: str, path: str) -> bool:
    name = PurePosixPath(path).name
    return path in command or re.search(
        rf"(?:^|[\s/'\"=]){re.escape(name)}(?:$|[\s'\";|&)])", command) is not None


def _tools_and_documents(mined: Mined, writes: dict[str, list[tuple[Turn, MinedRow, str]]],
                         runs: list[tuple[Turn, MinedRow, str, bool]]) -> None:
    # Which runs name a file, by the words between the separators `_ran` allows: a path's few candidate
    # runs are checked instead of every run (paths × runs made a 36k-entry record's rebuild take seconds).
    by_word: dict[str, list[int]] = {}
    for n, (_, _, command, _) in enumerate(runs):
        for word in set(_RUN_WORDS.split(command)):
            by_word.setdefault(word, []).append(n)
    joined = "\0".join(c for _, _, c, _ in runs)
    starts = list(itertools.accumulate((len(c) + 1 for _, _, c, _ in runs[:-1]), initial=0))
    for path, wrote in writes.items():
        # In the order they were written: the newest version is the last by time, whatever order the
        # sessions were synced in (an old session found later would otherwise pass for the newest).
        wrote = sorted(wrote, key=lambda w: (w[1].ts or "", w[1].id))
        suffix = PurePosixPath(path).suffix.lower()
        first = wrote[0][1]
        later = []
        if suffix in SCRIPT_SUFFIXES:
            named = set(by_word.get(PurePosixPath(path).name, ()))
            named |= _holding(joined, starts, path)
            later = [(t, r, ok) for n in sorted(named) for t, r, c, ok in [runs[n]]
                     if _after(r, first) and _ran(c, path)]
        turn, newest, _ = wrote[-1]
        if later:
            kind = "tool"
        elif len(wrote) >= 2 and suffix in DOCUMENT_SUFFIXES:
            kind = "document"
        else:
            continue
        name = PurePosixPath(path).name
        request = _request_row(turn, newest)
        asked = "" if request is None else turn.words[request.id]
        # What it does: the newest content's own comment, else the owner's request, filed under the entry
        # it came from (holding that entry back holds back the words).
        said = next(((r, c) for _, r, c in reversed(wrote) if c), None)
        purpose, told = (_purpose(said[1]), said[0]) if said else ("", newest)
        if not purpose and request is not None:
            purpose, told = asked, request
        what = "script" if kind == "tool" else f"document written {len(wrote)} times; this is the newest"
        description = redact(f"{purpose} ({what}: {path})" if purpose else f"{what}: {path}")
        draft = Draft(kind, name, shorten(description, 300), _address(newest), f"{kind}:{path}",  # type: ignore[arg-type]
                      entry=newest.id, scope=turn.cwd, updated=newest.ts,
                      sources={r.id for _, r, _ in wrote} | {told.id})
        draft.key("name", name, address=_address(newest), entry=newest.id)
        stem = PurePosixPath(path).stem
        if stem != name and len(stem) >= 4:
            draft.key("name", stem, address=_address(newest), entry=newest.id)
        draft.key("topic", redact(f"{purpose} {path}"), address=_address(told), entry=told.id)
        if request is not None:
            draft.key("use", redact(shorten(asked, 200)), address=_address(request), entry=request.id,
                      origin="request")
        mined.drafts.append(draft)
        for run_turn, run, failed in later:
            mined.uses.append(Use(draft.identity, run.id, run_turn.session, run.seq, failed))


def _after(run: MinedRow, write: MinedRow) -> bool:
    """Whether a run came after a write: by time (a history's sessions sync in any order), else by id."""
    if run.ts and write.ts and run.ts != write.ts:
        return run.ts > write.ts
    return run.id > write.id


def _purpose(content: str) -> str:
    """The first comment or docstring line of a script: what its author said it does."""
    for line in content.split("\n")[:12]:
        line = line.strip()
        if line.startswith("#!") or not line:
            continue
        text = line.lstrip("#/*\"' ").rstrip("\"' ")
        if text and (line[0] in "#/\"'" or line.startswith("*")):
            return shorten(text, 160)
    return ""


def _request_row(turn: Turn, row: MinedRow) -> MinedRow | None:
    for r in reversed(turn.rows):
        if r.seq < row.seq and r.author == "owner" and r.kind == "message" and turn.words.get(r.id):
            return r
    return None


def _hosts(command: str) -> Iterator[tuple[str, str, str | None, str | None]]:
    """(host, how, user, login place) named in a command: ssh/scp/rsync targets and private http hosts."""
    words: list[str] = []
    if _REMOTE.search(command):  # shlex is slow: only commands that may reach a machine are split
        try:
            words = shlex.split(command, posix=True)
        except ValueError:
            words = command.split()
    for i, word in enumerate(words):
        if PurePosixPath(word).name not in ("ssh", "mosh", "autossh"):
            continue
        login, user, j = None, None, i + 1
        while j < len(words) and words[j].startswith("-"):
            flag = words[j]
            arg = words[j + 1] if len(flag) == 2 and flag[1] in _SSH_ARG and j + 1 < len(words) else None
            if flag == "-i" and arg:
                login = f"key file {arg}"
            elif flag == "-l" and arg:
                user = arg
            j += 2 if arg is not None else 1
        if j < len(words):
            target = words[j]
            if "@" in target:
                user, target = target.rsplit("@", 1)
            if re.fullmatch(r"[A-Za-z0-9][\w.-]*", target):
                yield target, "ssh", user, login
    for word in words:
        m = re.fullmatch(r"(?:([\w.-]+)@)?([A-Za-z0-9][\w.-]*\.[\w.-]+|[a-z][\w-]*):[~/\w.-]*", word)
        if m and words and PurePosixPath(words[0]).name in ("scp", "rsync"):
            yield m.group(2), "ssh", m.group(1), None
    for m in _URL_HOST.finditer(command):
        host = m.group(1).strip("[]")
        if _private(host):
            yield host, "http", None, None


def _private(host: str) -> bool:
    low = host.lower()
    single_label = "." not in low and low != "localhost" and not low.isdigit()
    return bool(_PRIVATE_V4.match(low)) or low.endswith(_LOCAL_SUFFIXES) or single_label


_SECRET_FLAG = re.compile(
    r"((?:^|\s)(?:--(?:password|passwd|pass|token|api-key|apikey|secret|auth)(?:=|\s+)|sshpass\s+-p\s*|"
    r"-u\s+[^\s:]+:|--user\s+[^\s:]+:))(['\"]?)[^\s'\"]+\2")


def scrubbed(command: str) -> str:
    """A command as it may be kept: the generic redaction, and the values of password, token and key flags
    (`sshpass -p X`, `--password X`, `curl -u user:X`) replaced."""
    return redact(_SECRET_FLAG.sub(lambda m: m.group(1) + "[REDACTED:secret]", command))


def _login_places(command: str) -> list[str]:
    places = [f"env {n}" for n in _ENV_NAME.findall(command)]
    for m in _VAULT.finditer(command):
        item = next(g for g in m.groups() if g)
        places.append(f"vault item {item.strip()}")
    if "sshpass" in command and "-p" in command.split():
        places.append("password given inline (not kept)")
    return places


def _machines(mined: Mined, runs: list[tuple[Turn, MinedRow, str, bool]], turns: list[Turn]) -> None:
    machines: dict[str, Draft] = {}
    # each way a machine is reached, with the entry (id, address) that said it
    how: dict[str, dict[str, tuple[int, str]]] = {}
    for turn, row, command, failed in runs:
        for host, reach, user, login in _hosts(command):
            draft = machines.get(host)
            if draft is None:
                draft = machines[host] = Draft("machine", host, "", _address(row), f"machine:{host}",
                                               entry=row.id, scope=turn.cwd, updated=row.ts)
                draft.key("name", host, address=_address(row), entry=row.id)
            draft.source, draft.entry, draft.updated = _address(row), row.id, row.ts
            draft.sources.add(row.id)
            places = how.setdefault(host, {})
            places[f"{reach} as {user}" if user else reach] = (row.id, _address(row))
            if user:
                draft.key("name", f"{user}@{host}", address=_address(row), entry=row.id)
            for place in ([login] if login else []) + _login_places(command):
                places[f"login: {place}"] = (row.id, _address(row))
            draft.key("topic", shorten(scrubbed(command), 200), address=_address(row), entry=row.id)
            mined.uses.append(Use(draft.identity, row.id, turn.session, row.seq, failed))
    for turn in turns:
        for entry, words in turn.words.items():
            low = words.lower()
            for label, host in _MACHINE_LABEL.findall(low):
                draft = machines.get(host)
                if draft is not None:
                    # Only these keys hold the label's words, so its entry is no source of the asset:
                    # holding it back drops the keys, not the machine.
                    draft.key("name", f"{label} machine", address=f"s{turn.session}#{_seq(turn, entry)}",
                              entry=entry, origin="owner")
                    draft.key("name", label, address=f"s{turn.session}#{_seq(turn, entry)}", entry=entry,
                              origin="owner")
            for host, draft in machines.items():
                if host.lower() in low:
                    for place in _LOGIN_SAID.findall(words):
                        said = f"login: {redact(place.strip())}"
                        how[host].setdefault(said, (entry, f"s{turn.session}#{_seq(turn, entry)}"))
                        draft.sources.add(entry)
    for host, draft in machines.items():
        draft.description = shorten(redact(f"machine {host}, reached by {'; '.join(sorted(how[host]))}"), 300)
        # One topic key a way of reaching it, filed under the entry that said it (the description mixes
        # several entries' words: one key of it all would outlive any of them being held back).
        for way, (entry, address) in sorted(how[host].items()):
            draft.key("topic", redact(f"machine {host}, reached by {way}"), address=address, entry=entry)
        mined.drafts.append(draft)


def _ts(turn: Turn, entry: int) -> str:
    return next((r.ts for r in turn.rows if r.id == entry), None) or ""


def _seq(turn: Turn, entry: int) -> int:
    return next(r.seq for r in turn.rows if r.id == entry)


def _approaches(mined: Mined, turns: list[Turn], runs: list[tuple[Turn, MinedRow, str, bool]]) -> None:
    """A run the owner later points back to ("train it with the setup we used"): the newest earlier command
    sharing a word with his request becomes an approach, keyed by that request."""
    found: dict[int, Draft] = {}
    for turn in turns:
        for entry, words in turn.words.items():
            if not refers_back(words):
                continue
            wanted = set(terms(words)) - _REFER_WORDS
            when = _ts(turn, entry)
            best = None
            for run_turn, row, command, failed in sorted(runs, key=lambda r: r[1].ts or "", reverse=True):
                earlier = (row.ts or "") < when if row.ts and when else row.id < entry
                if earlier and not failed and wanted & set(terms(command)):
                    best = (run_turn, row, command)
                    break
            if best is None:
                continue
            run_turn, row, command = best
            draft = found.get(row.id)
            if draft is None:
                shown = shorten(scrubbed(command), 160)
                draft = found[row.id] = Draft(
                    "approach", shorten(shown, 60), f"the run later called back to: {shown}", _address(row),
                    f"approach:{row.id}", entry=row.id, scope=run_turn.cwd, updated=row.ts, sources={row.id})
                draft.key("topic", shown, address=_address(row), entry=row.id)
                if (request := _request_row(run_turn, row)) is not None:
                    # the request's words, filed under the request: erasing it takes this key too
                    draft.key("topic", redact(shorten(run_turn.words[request.id], 200)),
                              address=_address(request), entry=request.id)
            draft.key("use", redact(shorten(words, 200)), address=f"s{turn.session}#{_seq(turn, entry)}",
                      entry=entry, origin="correction")
    mined.drafts.extend(found.values())


_REFER_WORDS = frozenset(terms("setup settings config configuration command flags parameters params recipe "
                               "same usual like did before again")) | STOP


def sessions_turns(rows: Iterable[MinedRow], cwds: dict[int, str | None],
                   words: dict[int, str]) -> list[Turn]:
    """The mined rows cut into one Turn per session."""
    out: list[Turn] = []
    for row in rows:
        if not out or out[-1].session != row.session:
            out.append(Turn(row.session, cwds.get(row.session), [], {}))
        out[-1].rows.append(row)
        if row.id in words:
            out[-1].words[row.id] = words[row.id]
    return out
