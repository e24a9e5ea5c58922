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

The request goes over httpx2 (the HTTP client `mcp` already brings) and tenacity runs the retries;
the budgets, waits and messages above are this module's own.

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
import json
import logging
import os
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, NoReturn
from urllib.parse import urlsplit

import httpx2
from tenacity import RetryCallState, Retrying, retry_if_exception_type

from total_recall import __version__
from total_recall.errors import LLMBudgetExceeded, LLMError, LLMNotConfigured
from total_recall.llm.redaction import redact, scrub
from total_recall.llm.settings import LLMSettings, load_settings
from total_recall.llm.usage import DailyUsage, Day
from total_recall.tokens import estimate_tokens

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


_Budget = Literal["429", "5xx", "connection errors"]
_RETRIES: dict[_Budget, int] = {"429": MAX_429_RETRIES, "5xx": MAX_5XX_RETRIES,
                                "connection errors": MAX_CONNECTION_RETRIES}


class _Retryable(Exception):
    """A failed attempt that a retry may cure; `budget` names the retries it spends."""

    def __init__(self, budget: _Budget, why: str, *, status: int = 0, reason: str = "",
                 retry_after: float | None = None, body: bytes = b"") -> None:
        super().__init__(why)
        self.budget = budget
        self.why = why
        self.status = status
        self.reason = reason
        self.retry_after = retry_after
        self.body = body


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
        self._loopback = host in ("localhost", "127.0.0.1", "::1") or host.startswith("127.")

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
        prompt_estimate = sum(estimate_tokens(m.content) for m in messages)
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
        retries = _Retries(self)
        retrying = Retrying(sleep=self.sleep, retry=retry_if_exception_type(_Retryable), stop=retries.stop,
                            wait=retries.wait, before_sleep=retries.before_sleep,
                            retry_error_callback=retries.give_up)
        with self._client() as client:
            for attempt in retrying:  # ends on an answer: a spent budget raises in give_up
                with attempt:
                    body = self._attempt(client, payload, attempt.retry_state.attempt_number)
        state = attempt.retry_state
        return body, state.attempt_number, state.idle_for

    def _attempt(self, client: httpx2.Client, payload: bytes, attempt: int) -> bytes:
        """One request: the answer's body, or `_Retryable` for what a retry may cure, or `LLMError`."""
        endpoint = self.settings.shown_endpoint
        try:
            status, reason, headers, body = self._post(client, payload)
        except httpx2.TimeoutException:
            raise LLMError(self._safe(
                f"{endpoint} did not answer within {self.settings.timeout:g} s (attempt {attempt}); "
                "a timed-out request is not retried because the endpoint may still be working on it: "
                "raise TOTAL_RECALL_LLM_TIMEOUT, or hold prompts smaller with "
                "TOTAL_RECALL_LLM_PROMPT_BYTES"
            )) from None
        except httpx2.TransportError as exc:  # refused, reset, DNS, a broken-off answer
            raise _Retryable("connection errors", str(exc) or type(exc).__name__) from None
        if 200 <= status < 300:
            return body
        if status == 429:
            raise _Retryable("429", "429", status=status, reason=reason or "Too Many Requests",
                             retry_after=self._retry_after(headers), body=body)
        if 500 <= status < 600:
            raise _Retryable("5xx", str(status), status=status, reason=reason,
                             retry_after=self._retry_after(headers), body=body)
        hint = ""
        if status in (401, 403):
            hint = f" — check the key in {self.settings.key_source or 'TOTAL_RECALL_LLM_API_KEY'}"
        elif status == 404:
            hint = f" — check the base URL and the model ({self.settings.model})"
        raise LLMError(self._safe(
            f"{endpoint} answered {status} {reason} (attempt {attempt}, not retried: the same request "
            f"would get the same answer){self._vendor_message(body)}{hint}"
        ))

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

    def _client(self) -> httpx2.Client:
        headers = {"Content-Type": "application/json", "Accept": "application/json",
                   "User-Agent": f"total-recall/{__version__}"}
        if self.settings.api_key:
            headers["Authorization"] = f"Bearer {self.settings.api_key}"
        # trust_env=False: no proxy from the environment for a loopback endpoint.
        return httpx2.Client(headers=headers, timeout=self.settings.timeout, trust_env=not self._loopback)

    def _post(self, client: httpx2.Client, payload: bytes) -> tuple[int, str, Mapping[str, str], bytes]:
        with client.stream("POST", self.settings.endpoint, content=payload) as response:
            try:
                body = response.read()
            except httpx2.TransportError:
                if response.is_success:
                    raise
                body = b""  # an error answer whose body breaks off still counts by its status
            return response.status_code, response.reason_phrase, response.headers, body

    # -- reading the answer --

    def _parse(self, body: bytes, attempts: int, waited: float, elapsed: float,
               prompt_estimate: int) -> Completion:
        endpoint = self.settings.shown_endpoint
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
                               else 0 if reported else estimate_tokens(text)),
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


class _Retries:
    """One call's retry policy for tenacity: each kind of failure spends its own budget."""

    def __init__(self, provider: Provider) -> None:
        self.provider = provider
        self.spent: Counter[_Budget] = Counter()

    def stop(self, state: RetryCallState) -> bool:
        failure = _failure(state)
        return self.spent[failure.budget] >= _RETRIES[failure.budget]

    def wait(self, state: RetryCallState) -> float:
        failure = _failure(state)
        if failure.retry_after is not None:
            return failure.retry_after
        if failure.budget == "429":
            return min(2.0 ** self.spent["429"], MAX_BACKOFF)
        return SERVER_ERROR_SPACING

    def before_sleep(self, state: RetryCallState) -> None:
        """Spends one retry of the failure's budget, and says so."""
        failure = _failure(state)
        self.spent[failure.budget] += 1
        why = f"connection error ({failure.why})" if failure.budget == "connection errors" else failure.why
        why = self.provider._safe(why)  # the transport's own words may quote the URL
        log.warning("LLM endpoint %s: %s on attempt %d; retry %d of %d in %.1f s",
                    self.provider.settings.shown_endpoint, why, state.attempt_number,
                    self.spent[failure.budget], _RETRIES[failure.budget], state.upcoming_sleep)

    def give_up(self, state: RetryCallState) -> NoReturn:
        failure = _failure(state)
        provider, attempts = self.provider, state.attempt_number
        endpoint, budget = provider.settings.shown_endpoint, _RETRIES[failure.budget]
        if failure.budget == "connection errors":
            message = (f"cannot reach {endpoint}: {failure.why} ({attempts} attempts, the {budget} retries "
                       "for connection errors used up)")
        else:
            message = (f"{endpoint} answered {failure.status} {failure.reason} on {attempts} attempts; the "
                       f"{budget} retries for {failure.budget} are used up, the request was not answered"
                       f"{provider._vendor_message(failure.body)}")
        raise LLMError(provider._safe(message))


def _failure(state: RetryCallState) -> _Retryable:
    exc = state.outcome.exception() if state.outcome is not None else None
    assert isinstance(exc, _Retryable)  # tenacity retries nothing else (retry_if_exception_type)
    return exc


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
