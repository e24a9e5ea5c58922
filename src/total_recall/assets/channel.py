"""The push socket: a running MCP server answers the per-prompt hook, so the hook's push goes by meaning
without loading the model.

Claude Code keeps `total-recall mcp` running for a whole session; on start it listens on a Unix socket in
the record's home, `push-<pid>.sock` (one per server process, removed when it exits), mode 0600 in a home
that is 0700, and answers connections from its own user only (the peer's uid is checked). One JSON object
per connection each way: the request in (a line, then the writer's end closed), the answer out. The hook
asks a live socket with tight timeouts and falls back to its word push on any failure; a socket whose
process is gone is removed by the first client that finds it.
"""

from __future__ import annotations

import contextlib
import os
import socket
import stat
import struct
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import orjson

PREFIX, SUFFIX = "push-", ".sock"
CONNECT_WAIT = 0.02  # seconds for the connect
ANSWER_WAIT = 0.06  # and for the answer: past it, the hook pushes by words
MAX_REQUEST = 256 * 1024  # bytes a server reads of one request (the hook cuts a prompt to 100,000 chars)
READ_WAIT = 2.0  # a client that connects and says nothing is dropped after this
TRIED = 2  # sockets a client tries, newest first
WARM_UP = "warm up the push"

Answer = Callable[[Mapping[str, Any]], Mapping[str, Any]]


def socket_path(home: Path, pid: int | None = None) -> Path:
    return home / f"{PREFIX}{os.getpid() if pid is None else pid}{SUFFIX}"


def ask(home: Path, request: Mapping[str, Any], *, connect_wait: float = CONNECT_WAIT,
        answer_wait: float = ANSWER_WAIT) -> dict[str, Any] | None:
    """The answer of a live push socket in `home` to `request`; None when none answers in time (no
    server, a stale or foreign socket, a slow or failed answer). Never raises."""
    if not hasattr(socket, "AF_UNIX"):
        return None
    try:
        found = [(p.stat().st_mtime, p) for p in home.glob(f"{PREFIX}*{SUFFIX}") if _ours(p)]
    except OSError:
        return None
    body = orjson.dumps(dict(request)) + b"\n"
    for _, path in sorted(found, reverse=True)[:TRIED]:
        try:
            reply = orjson.loads(_exchange(path, body, connect_wait, answer_wait))
        except (OSError, orjson.JSONDecodeError):
            continue
        if isinstance(reply, dict):
            return reply
    return None


def _ours(path: Path) -> bool:
    """A socket of this user, private, whose process is alive; a dead process's socket is removed."""
    try:
        st = path.lstat()
    except OSError:
        return False
    if not stat.S_ISSOCK(st.st_mode) or st.st_uid != os.getuid() or st.st_mode & 0o077:
        return False
    pid = path.name[len(PREFIX):-len(SUFFIX)]
    if not pid.isdigit():
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        with contextlib.suppress(OSError):
            path.unlink()
        return False
    except PermissionError:
        return False  # another user's process took the number
    return True


def _exchange(path: Path, body: bytes, connect_wait: float, answer_wait: float) -> bytes:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
        conn.settimeout(connect_wait)
        conn.connect(str(path))
        deadline = time.monotonic() + answer_wait
        conn.settimeout(answer_wait)
        conn.sendall(body)
        conn.shutdown(socket.SHUT_WR)
        parts: list[bytes] = []
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("the push socket answered too late")
            conn.settimeout(left)
            part = conn.recv(65536)
            if not part:
                return b"".join(parts)
            parts.append(part)


class Listener:
    """One server's push socket, answered in a daemon thread, one connection at a time."""

    def __init__(self, home: Path, answer: Answer) -> None:
        self.path = socket_path(home)
        self.answer = answer
        self.sock: socket.socket | None = None

    def start(self) -> None:
        """Bind the socket (0600) and serve it.

        Raises:
            OSError: the socket cannot be made (the path is too long, the home is not writable).
        """
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()  # a socket of an earlier process that had our number
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.bind(str(self.path))
            os.chmod(self.path, 0o600)  # the home is 0700 already: nobody else could reach it meanwhile
            sock.listen(16)
        except OSError:
            sock.close()
            raise
        import threading  # here: the hook, which only asks, never pays for it

        self.sock = sock
        _open.append(self)
        threading.Thread(target=self._serve, name="total-recall-push", daemon=True).start()

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.path.unlink()
        if self.sock is not None:
            with contextlib.suppress(OSError):
                self.sock.close()
            self.sock = None

    def _serve(self) -> None:
        try:
            # A first answer loads what answering needs (the model, the key vectors, the overlay), so
            # the first prompt is answered in time; until then a hook finds no answer and uses words.
            self.answer({"text": WARM_UP})
        except Exception as exc:  # a model that does not load leaves the word push, said once
            print(f"total-recall mcp: push by meaning unavailable: {exc}", file=sys.stderr)
        print(f"total-recall mcp: push socket {self.path} ready", file=sys.stderr, flush=True)
        while (sock := self.sock) is not None:
            try:
                conn, _ = sock.accept()
            except OSError:
                return  # closed
            with conn, contextlib.suppress(OSError):
                self._one(conn)

    def _one(self, conn: socket.socket) -> None:
        if _peer_uid(conn) not in (None, os.getuid()):
            return  # another user: no answer at all
        conn.settimeout(READ_WAIT)
        parts, size = [], 0
        while size <= MAX_REQUEST and (part := conn.recv(65536)):
            parts.append(part)
            size += len(part)
        try:
            request = orjson.loads(b"".join(parts))
            if not isinstance(request, dict):
                raise ValueError("the request is not a JSON object")
            reply: Mapping[str, Any] = self.answer(request)
        except Exception as exc:  # one bad request must not stop the thread; the hook falls back
            reply = {"error": f"{type(exc).__name__}: {exc}"}
        conn.sendall(orjson.dumps(dict(reply)))


def _peer_uid(conn: socket.socket) -> int | None:
    """The connecting process's uid (Linux: SO_PEERCRED; None where the platform does not say)."""
    option = getattr(socket, "SO_PEERCRED", None)
    if option is None:
        return None
    _, uid, _ = struct.unpack("3i", conn.getsockopt(socket.SOL_SOCKET, option, struct.calcsize("3i")))
    return int(uid)


_open: list[Listener] = []


def close_all() -> None:
    """Remove this process's sockets (a server ending with os._exit runs no other clean-up)."""
    while _open:
        _open.pop().close()
