"""The LLM provider against a real HTTP endpoint on loopback: retries, timeouts, caps, budgets, keys."""

from __future__ import annotations

import logging
import socket
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from email.utils import format_datetime
from pathlib import Path

import pytest

from tests.llm_stub import KEY, Reply, Stub, completion, running_stub
from total_recall.errors import ConfigError, LLMBudgetExceeded, LLMError, LLMNotConfigured
from total_recall.llm.prompt import Piece, clip, fit
from total_recall.llm.provider import Message, Provider
from total_recall.llm.redaction import redact
from total_recall.llm.settings import PRESETS, load_settings
from total_recall.tokens import estimate_tokens

NOW = datetime(2026, 11, 16, 14, 0, tzinfo=UTC).timestamp()
ASK = [Message("system", "You summarise."), Message("user", "Summarise s1#1-4.")]


@pytest.fixture
def stub() -> Iterator[Stub]:
    with running_stub() as s:
        yield s


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "record"


class Clock:
    def __init__(self) -> None:
        self.now = NOW

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def sleeps() -> list[float]:
    return []


@pytest.fixture
def make(stub: Stub, home: Path, sleeps: list[float]) -> Callable[..., Provider]:
    def make(clock: Callable[[], float] = lambda: NOW, **env: str) -> Provider:
        return Provider.from_env(home=home, env=stub.env(**env), sleep=sleeps.append, clock=clock)

    return make


def too_many(retry_after: str | None = None) -> Reply:
    return Reply(429, {"error": {"message": "rate limited"}},
                 {"Retry-After": retry_after} if retry_after is not None else {})


# -- success --

def test_a_completion_returns_the_model_s_text_and_counts_the_usage_the_endpoint_reports(
        stub: Stub, make: Callable[..., Provider]) -> None:
    stub.script(Reply(body=completion("The cert expired (s1#11).", {"prompt_tokens": 40,
                                                                   "completion_tokens": 9})))
    provider = make()
    answer = provider.complete(ASK)
    assert answer.text == "The cert expired (s1#11)."
    assert (answer.prompt_tokens, answer.completion_tokens, answer.usage_reported) == (40, 9, True)
    assert answer.attempts == 1
    request = stub.requests[0]
    assert request["path"] == "/v1/chat/completions"
    assert request["headers"]["Authorization"] == f"Bearer {KEY}"
    assert request["json"]["model"] == "stub-model"
    assert request["json"]["messages"][1] == {"role": "user", "content": "Summarise s1#1-4."}
    assert provider.today().tokens == 49


def test_an_answer_without_usage_counts_an_estimate_and_says_so(
        stub: Stub, make: Callable[..., Provider]) -> None:
    stub.script(Reply(body=completion("word " * 100)))
    answer = make().complete(ASK)
    assert answer.usage_reported is False
    assert answer.completion_tokens == estimate_tokens("word " * 100) == 100  # the one estimate (tokens.py)
    assert answer.prompt_tokens > 0


# -- 429 --

def test_a_429_waits_what_retry_after_asks_in_seconds_or_as_a_date_capped_at_ten_seconds(
        stub: Stub, make: Callable[..., Provider], sleeps: list[float]) -> None:
    in_five = format_datetime(datetime.fromtimestamp(NOW + 5, UTC), usegmt=True)
    stub.script(too_many("3"), too_many("30"), too_many(in_five), too_many("0"), Reply())
    answer = make().complete(ASK)
    assert sleeps == [3.0, 10.0, 5.0, 0.0]
    assert answer.attempts == 5
    assert answer.waited == 18.0


def test_a_429_without_a_usable_retry_after_backs_off_doubling_from_one_second_to_ten(
        stub: Stub, make: Callable[..., Provider], sleeps: list[float]) -> None:
    stub.script(too_many(), too_many("soon"), too_many(), too_many(), too_many(), Reply())
    assert make().complete(ASK).attempts == 6
    assert sleeps == [1.0, 2.0, 4.0, 8.0, 10.0]


def test_a_sixth_429_in_a_row_is_an_error_naming_the_status_attempts_and_endpoint_never_a_drop(
        stub: Stub, make: Callable[..., Provider], sleeps: list[float]) -> None:
    stub.script(*[too_many("1") for _ in range(6)], Reply())
    with pytest.raises(LLMError) as caught:
        make().complete(ASK)
    message = str(caught.value)
    assert "429" in message and "6 attempts" in message and f"{stub.url}/chat/completions" in message
    assert "5 retries for 429 are used up" in message and "rate limited" in message
    assert len(stub.requests) == 6 and len(sleeps) == 5


# -- 5xx --

def test_three_server_errors_then_an_answer_is_answered_about_a_second_apart(
        stub: Stub, make: Callable[..., Provider], sleeps: list[float]) -> None:
    stub.script(Reply(503), Reply(500), Reply(502), Reply(body=completion("ok (s1#4)")))
    assert make().complete(ASK).text == "ok (s1#4)"
    assert sleeps == [1.0, 1.0, 1.0]


def test_a_fourth_server_error_is_an_error_naming_the_status_and_the_attempts(
        stub: Stub, make: Callable[..., Provider]) -> None:
    stub.script(Reply(500), Reply(500), Reply(500), Reply(500, b"upstream exploded"), Reply())
    with pytest.raises(LLMError, match=r"answered 500 .* on 4 attempts; the 3 retries for 5xx are used up"
                                       r".*upstream exploded"):
        make().complete(ASK)
    assert len(stub.requests) == 4


def test_a_server_error_waits_what_its_retry_after_asks_capped_at_ten_seconds(
        stub: Stub, make: Callable[..., Provider], sleeps: list[float]) -> None:
    stub.script(Reply(503, headers={"Retry-After": "2"}), Reply(500, headers={"Retry-After": "30"}), Reply())
    assert make().complete(ASK).attempts == 3
    assert sleeps == [2.0, 10.0]


def test_a_server_error_whose_body_breaks_off_still_counts_as_that_server_error(
        stub: Stub, make: Callable[..., Provider]) -> None:
    stub.script(*[Reply(503, b"upstream", cut_off=True) for _ in range(4)], Reply())
    with pytest.raises(LLMError, match=r"answered 503 .* on 4 attempts; the 3 retries for 5xx are used up"):
        make().complete(ASK)
    assert len(stub.requests) == 4


def test_429_and_5xx_retries_are_budgeted_independently(
        stub: Stub, make: Callable[..., Provider], sleeps: list[float]) -> None:
    stub.script(Reply(500), too_many(), Reply(503), too_many(), too_many(), Reply(502), too_many(),
                too_many(), Reply(body=completion("finally (s1#4)")))
    answer = make().complete(ASK)
    assert answer.text == "finally (s1#4)"
    assert answer.attempts == 9
    assert sleeps == [1.0, 1.0, 1.0, 2.0, 4.0, 1.0, 8.0, 10.0]


# -- timeouts, refusals, empty answers --

def test_a_request_that_outlives_the_timeout_is_an_error_at_once_and_is_not_retried(
        stub: Stub, make: Callable[..., Provider], sleeps: list[float]) -> None:
    stub.script(Reply(hold=True))
    with pytest.raises(LLMError, match=r"within 0.2 s \(attempt 1\).*TOTAL_RECALL_LLM_TIMEOUT"):
        make(TOTAL_RECALL_LLM_TIMEOUT="0.2").complete(ASK)
    assert sleeps == []
    assert len(stub.requests) == 1


def test_an_endpoint_that_refuses_connections_is_retried_twice_then_named(
        home: Path, sleeps: list[float]) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {"TOTAL_RECALL_LLM_BASE_URL": f"http://127.0.0.1:{port}/v1", "TOTAL_RECALL_LLM_MODEL": "m"}
    with pytest.raises(LLMError, match=rf"cannot reach http://127.0.0.1:{port}/v1/chat/.*3 attempts"):
        Provider.from_env(home=home, env=env, sleep=sleeps.append).complete(ASK)
    assert sleeps == [1.0, 1.0]


def test_a_connection_closed_without_an_answer_spends_the_connection_budget_not_the_5xx_one(
        stub: Stub, make: Callable[..., Provider], sleeps: list[float]) -> None:
    stub.script(Reply(hang_up=True), Reply(500), Reply(hang_up=True), Reply(500), Reply(500),
                Reply(body=completion("ok (s1#4)")))
    answer = make().complete(ASK)
    assert (answer.text, answer.attempts) == ("ok (s1#4)", 6)
    assert sleeps == [1.0] * 5


def test_a_loopback_endpoint_is_called_directly_even_with_a_proxy_in_the_environment(
        stub: Stub, make: Callable[..., Provider], monkeypatch: pytest.MonkeyPatch) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{s.getsockname()[1]}"
    for name in ("HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"):
        monkeypatch.setenv(name, dead)
    for name in ("NO_PROXY", "no_proxy"):
        monkeypatch.delenv(name, raising=False)
    assert make().complete(ASK).attempts == 1
    assert len(stub.requests) == 1


def test_a_bad_request_is_not_retried_and_carries_the_vendor_s_message(
        stub: Stub, make: Callable[..., Provider], sleeps: list[float]) -> None:
    stub.script(Reply(400, {"error": {"message": "model 'stub-model' does not exist"}}))
    with pytest.raises(LLMError, match=r"answered 400 .*attempt 1, not retried.*does not exist"):
        make().complete(ASK)
    assert sleeps == [] and len(stub.requests) == 1


def test_an_answer_with_no_message_content_is_an_error_not_an_empty_summary(
        stub: Stub, make: Callable[..., Provider]) -> None:
    stub.script(Reply(body=completion("")))
    with pytest.raises(LLMError, match="no message content"):
        make().complete(ASK)


# -- the key --

def test_the_key_never_appears_in_errors_or_log_lines_even_when_the_vendor_echoes_it(
        stub: Stub, make: Callable[..., Provider], caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    stub.script(too_many(), Reply(401, {"error": {"message": f"Incorrect API key provided: {KEY}"}}))
    provider = make()
    with pytest.raises(LLMError) as caught:
        provider.complete(ASK)
    assert KEY not in str(caught.value)
    assert "Incorrect API key provided" in str(caught.value)
    assert "check the key in TOTAL_RECALL_LLM_API_KEY" in str(caught.value)
    assert "429" in caplog.text and KEY not in caplog.text
    assert KEY not in repr(provider.settings) and KEY not in str(provider.settings.describe())


def test_with_no_key_the_llm_tools_refuse_naming_every_variable_that_would_fix_it(home: Path) -> None:
    with pytest.raises(LLMNotConfigured) as caught:
        Provider.from_env(home=home, env={})
    message = str(caught.value)
    for name in ("INCEPTION_API_KEY", "TOTAL_RECALL_LLM_API_KEY", "TOTAL_RECALL_LLM_PRESET",
                 "MISTRAL_API_KEY", "OPENROUTER_API_KEY", "ollama", "TOTAL_RECALL_LLM_BASE_URL"):
        assert name in message


def test_each_preset_answers_at_its_documented_endpoint_with_its_own_key_variable(home: Path) -> None:
    mistral = load_settings({"TOTAL_RECALL_LLM_PRESET": "mistral", "MISTRAL_API_KEY": "m-key"}, home)
    assert (mistral.endpoint, mistral.model, mistral.key_source) == (
        "https://api.mistral.ai/v1/chat/completions", "mistral-small-latest", "MISTRAL_API_KEY")
    mercury = load_settings({"INCEPTION_API_KEY": "i-key"}, home)
    assert (mercury.preset, mercury.base_url, mercury.model) == (
        "mercury", "https://api.inceptionlabs.ai/v1", "mercury-2.5")
    router = load_settings({"TOTAL_RECALL_LLM_PRESET": "openrouter"}, home)
    assert router.problem is not None and "OPENROUTER_API_KEY" in router.problem
    ollama = load_settings({"TOTAL_RECALL_LLM_PRESET": "ollama"}, home)
    assert ollama.problem is None and ollama.api_key is None
    assert ollama.base_url == "http://localhost:11434/v1"
    assert (ollama.prompt_bytes, ollama.max_output_tokens) == (10_000, 1_024)  # its 4k default context
    assert mercury.prompt_bytes == 200_000
    assert set(PRESETS) == {"mercury", "mistral", "openrouter", "ollama"}


def test_an_unknown_preset_is_refused_naming_the_known_ones(home: Path) -> None:
    with pytest.raises(ConfigError, match=r"unknown LLM preset 'gpt'.*mercury, mistral, openrouter, ollama"):
        load_settings({"TOTAL_RECALL_LLM_PRESET": "gpt"}, home)


def test_the_config_file_fills_what_the_environment_leaves_unset_and_keeps_a_key_only_when_private(
        home: Path) -> None:
    home.mkdir(parents=True)
    config = home / "llm.toml"
    config.write_text('preset = "mistral"\nmodel = "mistral-large-latest"\napi_key = "file-key"\n'
                      "max_day_tokens = 5000\n")
    config.chmod(0o644)
    with pytest.raises(ConfigError, match="chmod 600"):
        load_settings({}, home)
    config.chmod(0o600)
    settings = load_settings({"TOTAL_RECALL_LLM_MODEL": "mistral-medium-latest"}, home)
    assert (settings.preset, settings.model, settings.max_day_tokens) == (
        "mistral", "mistral-medium-latest", 5000)
    assert settings.api_key == "file-key" and settings.key_source == f"{config} (api_key)"
    other = load_settings({"TOTAL_RECALL_LLM_PRESET": "mercury", "INCEPTION_API_KEY": "i"}, home)
    assert (other.model, other.key_source) == ("mercury-2.5", "INCEPTION_API_KEY")


def test_an_unknown_config_field_or_a_malformed_number_is_named(home: Path) -> None:
    home.mkdir(parents=True)
    (home / "llm.toml").write_text('modle = "x"\n')
    with pytest.raises(ConfigError, match="unknown field 'modle'"):
        load_settings({}, home)
    (home / "llm.toml").unlink()
    with pytest.raises(ConfigError, match="TOTAL_RECALL_LLM_MAX_DAY_TOKENS must be a positive integer"):
        load_settings({"TOTAL_RECALL_LLM_MAX_DAY_TOKENS": "lots"}, home)


# -- token caps --

def test_a_call_over_the_per_call_cap_is_refused_before_anything_is_sent(
        stub: Stub, make: Callable[..., Provider]) -> None:
    provider = make(TOTAL_RECALL_LLM_MAX_CALL_TOKENS="3000", TOTAL_RECALL_LLM_MAX_OUTPUT_TOKENS="1000")
    with pytest.raises(LLMBudgetExceeded, match=r"per-call cap of 3,000.*TOTAL_RECALL_LLM_MAX_CALL_TOKENS"):
        provider.complete([Message("user", "word " * 2_001)])  # 2,001 + 1,000 tokens
    assert stub.requests == []
    provider.complete([Message("user", "word " * 1_000)])  # 1,000 + 1,000 fits
    assert len(stub.requests) == 1


def test_the_per_day_cap_counts_across_calls_and_processes_and_resets_the_next_utc_day(
        stub: Stub, make: Callable[..., Provider]) -> None:
    used = {"prompt_tokens": 120, "completion_tokens": 30}
    stub.script(Reply(body=completion("one", used)), Reply(body=completion("two", used)))
    clock = Clock()
    env = {"TOTAL_RECALL_LLM_MAX_DAY_TOKENS": "300", "TOTAL_RECALL_LLM_MAX_OUTPUT_TOKENS": "20"}
    make(clock, **env).complete(ASK)
    again = make(clock, **env)  # a second process sees the first one's tokens
    assert again.today().tokens == 150
    with pytest.raises(LLMBudgetExceeded, match=r"150 used .*cap of 300.*TOTAL_RECALL_LLM_MAX_DAY_TOKENS"):
        again.complete([Message("user", "word " * 150)])
    assert len(stub.requests) == 1
    clock.now += 86_400
    assert again.complete([Message("user", "word " * 150)]).text == "two"
    assert again.today().tokens == 150


# -- prompt budget --

def test_an_oversize_prompt_is_cut_in_the_middle_with_a_marker_naming_what_went(
        stub: Stub, make: Callable[..., Provider]) -> None:
    pieces = [Piece(f"[s3#{n} · agent · message]\n{'word ' * 60}\n", 3, n, n) for n in range(1, 1001)]
    fitted = fit(pieces, 20_000)
    assert fitted.size <= 20_000
    assert fitted.kept[0].first == 1 and fitted.kept[-1].first == 1000
    first_dropped = len([p for p in fitted.kept if p.first is not None and p.first < 500]) + 1
    assert fitted.dropped_ranges == (f"s3#{first_dropped}-{first_dropped + fitted.dropped - 1}",)
    marker = (f"[… {fitted.dropped:,} entries ({fitted.dropped_bytes:,} bytes: "
              f"{fitted.dropped_ranges[0]}) dropped to fit the 20,000-byte prompt budget …]")
    assert marker in fitted.text
    make().complete([Message("user", fitted.text)])
    assert marker in stub.prompt()
    assert stub.requests[0]["bytes"] < 20_000 + 1_000


def test_a_prompt_within_budget_is_sent_whole_without_a_marker() -> None:
    pieces = [Piece(f"s1#{n} text\n", 1, n, n) for n in range(1, 11)]
    fitted = fit(pieces, 10_000)
    assert fitted.dropped == 0 and "dropped" not in fitted.text
    assert fitted.text == "".join(p.text for p in pieces)


def test_redaction_runs_on_the_kept_pieces_and_the_redacted_prompt_still_fits() -> None:
    secret = "postgres://app:" + "p" * 8 + "@db/shop"  # redaction makes this one longer
    pieces = [Piece(f"[s2#{n}] connect with {secret} or OPENAI_API_KEY=sk-proj-{'k' * 24}\n", 2, n, n)
              for n in range(1, 400)]
    seen: list[str] = []

    def redacting(text: str) -> str:
        seen.append(text)
        return redact(text)

    fitted = fit(pieces, 6_000, transform=redacting)
    assert fitted.size <= 6_000 and fitted.dropped > 0
    assert "p" * 8 not in fitted.text and "k" * 24 not in fitted.text
    assert "[REDACTED:url-password]" in fitted.text and "[REDACTED:api-key]" in fitted.text
    assert len(seen) < len(pieces) // 2  # the dropped pieces were never redacted


def test_a_clip_never_cuts_a_key_in_half_so_redaction_still_sees_it_whole() -> None:
    key = "sk-proj-" + "Z" * 40
    for shift in range(0, 120, 7):
        text = "word " * (50 + shift // 5) + f"the key {key} leaked " + "tail " * 400
        clipped = redact(clip(text, 400))
        assert "ZZZZZZZZ" not in clipped
