"""A local OpenAI-compatible chat endpoint for tests: a real HTTP server on 127.0.0.1, scripted replies."""

from __future__ import annotations

import json
import threading
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

KEY = "sk-test-1234567890abcdefSECRET"


def completion(text: str = "A summary (s1#4).", usage: dict[str, int] | None = None,
               model: str = "stub-model") -> dict[str, Any]:
    body: dict[str, Any] = {"id": "chatcmpl-1", "object": "chat.completion", "model": model,
                            "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                                         "finish_reason": "stop"}]}
    if usage is not None:
        body["usage"] = usage
    return body


@dataclass
class Reply:
    status: int = 200
    body: Any = field(default_factory=completion)
    headers: dict[str, str] = field(default_factory=dict)
    hold: bool = False  # answer only when the test releases the stub (a request that outlives a timeout)
    hang_up: bool = False  # close the connection without answering
    cut_off: bool = False  # close the connection partway through the body


@dataclass
class Stub:
    """The scripted endpoint: `replies` are used in order; when they run out every answer is a 200."""

    port: int = 0
    replies: deque[Reply] = field(default_factory=deque)
    requests: list[dict[str, Any]] = field(default_factory=list)
    release: threading.Event = field(default_factory=threading.Event)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def script(self, *replies: Reply) -> None:
        self.replies.extend(replies)

    def env(self, **extra: str) -> dict[str, str]:
        return {"TOTAL_RECALL_LLM_BASE_URL": self.url, "TOTAL_RECALL_LLM_MODEL": "stub-model",
                "TOTAL_RECALL_LLM_API_KEY": KEY, **extra}

    def prompt(self, n: int = -1) -> str:
        """The text of every message of the n-th request, joined."""
        return "\n".join(m["content"] for m in self.requests[n]["json"]["messages"])


def _handler(stub: Stub) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            raw = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            stub.requests.append({"path": self.path, "headers": dict(self.headers.items()),
                                  "json": json.loads(raw), "bytes": len(raw)})
            reply = stub.replies.popleft() if stub.replies else Reply()
            if reply.hold:
                stub.release.wait(10)
            if reply.hang_up:
                self.close_connection = True
                return
            body = reply.body if isinstance(reply.body, bytes) else json.dumps(reply.body).encode()
            try:
                self.send_response(reply.status)
                for name, value in reply.headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body) + (100 if reply.cut_off else 0)))
                self.end_headers()
                self.wfile.write(body)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (its timeout): nothing to answer

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Handler


@contextmanager
def running_stub() -> Iterator[Stub]:
    stub = Stub()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(stub))
    server.daemon_threads = True
    stub.port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    try:
        yield stub
    finally:
        stub.release.set()
        server.shutdown()
        server.server_close()
        thread.join()
