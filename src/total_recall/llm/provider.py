"""One chat completion against any OpenAI-compatible endpoint, with the ingestion guardrails of seed 004.

Retries, each budget counted on its own (a 429 never spends a 5xx retry, nor the other way round):

- **429**: at most 5 retries. `Retry-After` is honoured, in seconds or as an HTTP date, capped at
  10 s (so `Retry-After: 0` comes back at once); without a usable header the wait doubles from 1 s
  (1, 2, 4, 8, 10 s).
- **5xx**: at most 3 retries about 1 s apart (a `Retry-After` sent with one is honoured, capped at 10 s).
- **Connection errors** (refused, reset, DNS): at most 2 retries 1 s apart — the request never reached
  the model, so a retry costs nothing.
- **Timeouts** (no answer within the timeout, default 120 s): not retried — the endpoint may still be
  working on the request, and a retry would double both the wait and the bill. The error says how to
  raise the timeout.
- Any other status (400, 401, 404, 413, …) is not retried: a retry would get the same answer.

Never a silent drop: an exhausted budget, a refused request, or a 200 with no message in it raises
`LLMError` naming the status, the attempts and the endpoint. The key is never put in an error or a
log line (and is scrubbed from any vendor message that echoes it). Sleep and clock are injected, so
tests never wait.

Before a call: the prompt's estimated tokens plus the reply's maximum must fit the per-call cap, and
today's usage plus that estimate the per-day cap (`LLMBudgetExceeded`, naming the cap and its
variable). After it, the tokens the endpoint reports (or the estimate, when it reports none) are
added to the day.
"""

from __future__ import annotations

import email.utils
import http.client
import json
import logging
import os
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

from total_recall import __version__
from total_recall.errors import LLMBudgetExceeded, LLMError, LLMNotConfigured
from total_recall.llm.prompt import estimate_tokens
from total_recall.llm.redaction import redact, scrub
from total_recall.llm.settings import LLMSettings, load_settings
from total_recall.llm.usage import DailyUsage, Day

MAX_429_RETRIES = 5
MAX_5XX_RETRIES = 3
MAX_CONNECTION_RETRIES = 2
MAX_BACKOFF = 10.0
SERVER_ERROR_SPACING = 1.0
VENDOR_MESSAGE_CHARS = 300

log = logging.getLogger("total_recall.llm")


@dataclass(frozen=True, slots=True)
class Message:
    role: Literal["system", "user", "assistant"]
    content: str


@dataclass(frozen=True, slots=True)
class Completion:
    """A model's answer and what it cost."""

    text: str
    model: str
    prompt_tokens: int
    completion_tokens: int
    usage_reported: bool  # False: the token counts are estimates (the endpoint reported none)
    attempts: int
    waited: float  # seconds slept between attempts
    elapsed: float  # seconds from the first attempt to the answer, waits included

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def usage(self) -> dict[str, Any]:
        return {"prompt_tokens": self.prompt_tokens, "completion_tokens": self.completion_tokens,
                "total_tokens": self.total_tokens, "reported": self.usage_reported,
                "attempts": self.attempts, "waited_s": round(self.waited, 3),
                "elapsed_s": round(self.elapsed, 3)}


class _Timeout(Exception):
    pass


class _Unreachable(Exception):
    pass


class Provider:
    """Calls one endpoint with one model, within the guardrails above."""

    def __init__(self, settings: LLMSettings, *, sleep: Callable[[float], None] = time.sleep,
                 clock: Callable[[], float] = time.time) -> None:
        if settings.problem is not None:
            raise LLMNotConfigured(settings.problem)
        self.settings = settings
        self.sleep = sleep
        self.clock = clock
        self.usage = DailyUsage(settings.home, settings.max_day_tokens, clock)
        host = urlsplit(settings.base_url).hostname or ""
        # A loopback endpoint (Ollama, a local server, a test stub) must never go through a proxy.
        loopback = host in ("localhost", "127.0.0.1", "::1") or host.startswith("127.")
        handlers = [urllib.request.ProxyHandler({})] if loopback else []
        self._opener = urllib.request.build_opener(*handlers)

    @classmethod
    def from_env(cls, *, home: Path | None = None, env: Mapping[str, str] | None = None,
                 sleep: Callable[[float], None] = time.sleep,
                 clock: Callable[[], float] = time.time) -> Provider:
        """The provider the environment and `<home>/llm.toml` configure.

        Raises:
            LLMNotConfigured: no key (or no endpoint/model); the message names what to set.
            ConfigError: a setting is malformed.
        """
        return cls(load_settings(env if env is not None else os.environ, home), sleep=sleep, clock=clock)

    @property
    def name(self) -> str:
        return self.settings.preset

    @property
    def model(self) -> str:
        return self.settings.model

    def today(self) -> Day:
        return self.usage.today()

    def complete(self, messages: Sequence[Message], max_output_tokens: int | None = None) -> Completion:
        """The model's reply to `messages`.

        Raises:
            LLMBudgetExceeded: the call would pass the per-call or the per-day token cap.
            LLMError: the endpoint refused, failed past its retry budget, timed out or answered nothing.
        """
        s = self.settings
        out = max_output_tokens or s.max_output_tokens
        prompt_bytes = sum(len(m.content.encode("utf-8")) for m in messages)
        prompt_estimate = estimate_tokens(prompt_bytes)
        if prompt_estimate + out > s.max_call_tokens:
            raise LLMBudgetExceeded(
                f"this call needs ~{prompt_estimate + out:,} tokens (~{prompt_estimate:,} for a "
                f"{prompt_bytes:,}-byte prompt + {out:,} for the reply), over the per-call cap of "
                f"{s.max_call_tokens:,}: raise it with TOTAL_RECALL_LLM_MAX_CALL_TOKENS, or hold prompts "
                "smaller with TOTAL_RECALL_LLM_PROMPT_BYTES"
            )
        self.usage.check(prompt_estimate + out)
        payload = json.dumps({
            "model": s.model,
            "messages": [{"role": m.role, "content": m.content} for m in messages],
            "max_tokens": out,
            "stream": False,
        }).encode("utf-8")
        started = self.clock()
        body, attempts, waited = self._post_with_retries(payload)
        completion = self._parse(body, attempts, waited, self.clock() - started, prompt_estimate)
        self.usage.add(completion.total_tokens, estimated=not completion.usage_reported)
        return completion

    # -- the retry loop --

    def _post_with_retries(self, payload: bytes) -> tuple[bytes, int, float]:
        endpoint = self.settings.endpoint
        rate_limited = server_errors = unreachable = 0
        attempts = 0
        waited = 0.0
        while True:
            attempts += 1
            try:
                status, reason, headers, body = self._post(payload)
            except _Timeout:
                raise LLMError(self._safe(
                    f"{endpoint} did not answer within {self.settings.timeout:g} s (attempt {attempts}); "
                    "a timed-out request is not retried because the endpoint may still be working on it: "
                    "raise TOTAL_RECALL_LLM_TIMEOUT, or hold prompts smaller with "
                    "TOTAL_RECALL_LLM_PROMPT_BYTES"
                )) from None
            except _Unreachable as exc:
                if unreachable >= MAX_CONNECTION_RETRIES:
                    raise LLMError(self._safe(
                        f"cannot reach {endpoint}: {exc} ({attempts} attempts, the "
                        f"{MAX_CONNECTION_RETRIES} retries for connection errors used up)"
                    )) from None
                unreachable += 1
                waited += self._wait(SERVER_ERROR_SPACING, f"connection error ({exc})", attempts,
                                     unreachable, MAX_CONNECTION_RETRIES)
                continue
            if 200 <= status < 300:
                return body, attempts, waited
            if status == 429:
                if rate_limited >= MAX_429_RETRIES:
                    raise LLMError(self._safe(
                        f"{endpoint} answered 429 {reason or 'Too Many Requests'} on {attempts} attempts; "
                        f"the {MAX_429_RETRIES} retries for 429 are used up, the request was not answered"
                        f"{self._vendor_message(body)}"
                    ))
                delay = self._retry_after(headers)
                if delay is None:
                    delay = min(2.0 ** rate_limited, MAX_BACKOFF)
                rate_limited += 1
                waited += self._wait(delay, "429", attempts, rate_limited, MAX_429_RETRIES)
                continue
            if 500 <= status < 600:
                if server_errors >= MAX_5XX_RETRIES:
                    raise LLMError(self._safe(
                        f"{endpoint} answered {status} {reason} on {attempts} attempts; the "
                        f"{MAX_5XX_RETRIES} retries for 5xx are used up, the request was not answered"
                        f"{self._vendor_message(body)}"
                    ))
                delay = self._retry_after(headers)
                server_errors += 1
                waited += self._wait(SERVER_ERROR_SPACING if delay is None else delay, str(status),
                                     attempts, server_errors, MAX_5XX_RETRIES)
                continue
            hint = ""
            if status in (401, 403):
                hint = f" — check the key in {self.settings.key_source or 'TOTAL_RECALL_LLM_API_KEY'}"
            elif status == 404:
                hint = f" — check the base URL and the model ({self.settings.model})"
            raise LLMError(self._safe(
                f"{endpoint} answered {status} {reason} (attempt {attempts}, not retried: the same request "
                f"would get the same answer){self._vendor_message(body)}{hint}"
            ))

    def _wait(self, delay: float, why: str, attempt: int, used: int, budget: int) -> float:
        log.warning("LLM endpoint %s: %s on attempt %d; retry %d of %d in %.1f s",
                    self.settings.endpoint, why, attempt, used, budget, delay)
        self.sleep(delay)
        return delay

    def _retry_after(self, headers: Mapping[str, str]) -> float | None:
        """The wait a `Retry-After` header asks for, capped at 10 s; None when absent or unusable."""
        value = (headers.get("retry-after") or "").strip()
        if not value:
            return None
        try:
            seconds = float(value)
        except ValueError:
            try:
                when = email.utils.parsedate_to_datetime(value)
            except (TypeError, ValueError, IndexError):
                return None
            if when.tzinfo is None:
                return None
            seconds = when.timestamp() - self.clock()
        if seconds != seconds:  # NaN
            return None
        return min(max(seconds, 0.0), MAX_BACKOFF)

    # -- one HTTP request --

    def _post(self, payload: bytes) -> tuple[int, str, Mapping[str, str], bytes]:
        headers = {"Content-Type": "application/json", "Accept": "application/json",
                   "User-Agent": f"total-recall/{__version__}"}
        if self.settings.api_key:
            headers["Authorization"] = f"Bearer {self.settings.api_key}"
        request = urllib.request.Request(self.settings.endpoint, data=payload, headers=headers, method="POST")
        try:
            with self._opener.open(request, timeout=self.settings.timeout) as response:
                return response.status, response.reason, _lower(response.headers), response.read()
        except urllib.error.HTTPError as exc:
            try:
                body = exc.read()
            except (OSError, http.client.HTTPException):
                body = b""
            return exc.code, str(exc.reason or ""), _lower(exc.headers), body
        except TimeoutError:
            raise _Timeout() from None
        except urllib.error.URLError as exc:
            if isinstance(exc.reason, TimeoutError):
                raise _Timeout() from None
            raise _Unreachable(str(exc.reason)) from None
        except (OSError, http.client.HTTPException) as exc:
            raise _Unreachable(f"{type(exc).__name__}: {exc}") from None

    # -- reading the answer --

    def _parse(self, body: bytes, attempts: int, waited: float, elapsed: float,
               prompt_estimate: int) -> Completion:
        endpoint = self.settings.endpoint
        try:
            data = json.loads(body)
        except ValueError:
            raise LLMError(self._safe(
                f"{endpoint} answered 200 with a body that is not JSON (attempt {attempts}): "
                f"{body[:VENDOR_MESSAGE_CHARS].decode('utf-8', 'replace')!r}"
            )) from None
        text = _message_text(data)
        if not text.strip():
            reason = ""
            if isinstance(data, dict) and isinstance(data.get("choices"), list) and data["choices"]:
                first = data["choices"][0]
                if isinstance(first, dict) and first.get("finish_reason"):
                    reason = f" (finish_reason {first['finish_reason']})"
            raise LLMError(self._safe(
                f"{endpoint} answered 200 with no message content{reason} (attempt {attempts}); "
                "nothing was stored"
            ))
        usage = data.get("usage") if isinstance(data, dict) else None
        prompt_tokens = _int(usage, "prompt_tokens")
        completion_tokens = _int(usage, "completion_tokens")
        reported = prompt_tokens is not None or completion_tokens is not None
        if not reported and (total := _int(usage, "total_tokens")) is not None:
            prompt_tokens, reported = total, True
        model = data.get("model") if isinstance(data, dict) else None
        return Completion(
            text=text,
            model=model if isinstance(model, str) and model else self.settings.model,
            prompt_tokens=(prompt_tokens if prompt_tokens is not None
                           else 0 if reported else prompt_estimate),
            completion_tokens=(completion_tokens if completion_tokens is not None
                               else 0 if reported else estimate_tokens(len(text.encode("utf-8")))),
            usage_reported=reported,
            attempts=attempts,
            waited=waited,
            elapsed=elapsed,
        )

    def _vendor_message(self, body: bytes) -> str:
        """What the vendor said, briefly: its JSON error message, or the start of the body."""
        text = body.decode("utf-8", "replace").strip()
        try:
            data = json.loads(text)
        except ValueError:
            data = None
        if isinstance(data, dict):
            err = data.get("error", data.get("message", data.get("detail")))
            if isinstance(err, dict):
                err = err.get("message", err)
            text = err if isinstance(err, str) else json.dumps(err)
        text = " ".join(text.split())[:VENDOR_MESSAGE_CHARS]
        return f": {text}" if text else ""

    def _safe(self, message: str) -> str:
        return redact(scrub(message, self.settings.api_key))


def _message_text(data: Any) -> str:
    if not isinstance(data, dict):
        return ""
    choices = data.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        return ""
    message = choices[0].get("message")
    content = message.get("content") if isinstance(message, dict) else choices[0].get("text")
    if isinstance(content, list):  # content parts: keep the text ones
        content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return content if isinstance(content, str) else ""


def _int(usage: Any, name: str) -> int | None:
    value = usage.get(name) if isinstance(usage, dict) else None
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def _lower(headers: Any) -> dict[str, str]:
    """Response headers with lower-cased names (HTTP names are case-insensitive)."""
    return {str(k).lower(): str(v) for k, v in headers.items()} if headers is not None else {}
