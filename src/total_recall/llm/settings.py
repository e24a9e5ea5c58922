"""Which LLM endpoint the LLM-backed tools call, with which key and within which limits.

Precedence, field by field: the environment (`TOTAL_RECALL_LLM_*`) > the config file
`<record home>/llm.toml` > the preset's defaults. The preset is `TOTAL_RECALL_LLM_PRESET`, else the
file's `preset`, else `custom` when a base URL is given, else `mercury`. When the environment names a
preset other than the file's, the file's endpoint, model and key are for that other provider and are
ignored (its limits still apply).

The key: `TOTAL_RECALL_LLM_API_KEY` > the file's `api_key` (only from a file no one else can read) >
the variable the file names in `api_key_env` > the preset's own variable (`INCEPTION_API_KEY`, …).
An unknown preset, an unknown file field or a malformed number is an error naming it, never a
silent fall-back; a missing key is not an error here (`llm-status` must still describe the setup) but
`problem` says what to set, and the provider refuses to start with it.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from total_recall.config import record_home
from total_recall.errors import ConfigError
from total_recall.llm.redaction import redact_url

CONFIG_FILE = "llm.toml"


@dataclass(frozen=True, slots=True)
class Preset:
    """A known provider: where it answers, its default model, and the variable that holds its key."""

    name: str
    label: str
    base_url: str
    model: str
    key_env: str | None  # None: the endpoint needs no key (a local server)
    # A smaller prompt budget for endpoints whose context is small by default (see the ollama preset).
    prompt_bytes: int | None = None
    max_output_tokens: int | None = None


# Base URLs and model names as the vendors document them (checked against their docs, 2026).
PRESETS: dict[str, Preset] = {
    "mercury": Preset("mercury", "Inception Labs Mercury", "https://api.inceptionlabs.ai/v1",
                      "mercury-2.5", "INCEPTION_API_KEY"),
    "mistral": Preset("mistral", "Mistral", "https://api.mistral.ai/v1", "mistral-small-latest",
                      "MISTRAL_API_KEY"),
    "openrouter": Preset("openrouter", "OpenRouter", "https://openrouter.ai/api/v1", "openrouter/auto",
                         "OPENROUTER_API_KEY"),
    # Ollama serves a 4,096-token context unless the model is configured for more, and cuts a longer
    # prompt without saying so: its defaults fit that window. Raise both once num_ctx is raised.
    "ollama": Preset("ollama", "a local Ollama", "http://localhost:11434/v1", "llama3.2", None,
                     prompt_bytes=10_000, max_output_tokens=1_024),
}
DEFAULT_PRESET = "mercury"
CUSTOM = "custom"

# Limits. A prompt of 200 KB is ~50k tokens: far under every preset's context window, and a request
# the vendor ingests in seconds (the Rust tool's recall prompts used the same bound).
DEFAULT_TIMEOUT = 120.0
DEFAULT_PROMPT_BYTES = 200_000
DEFAULT_MAX_OUTPUT_TOKENS = 4_096
DEFAULT_MAX_CALL_TOKENS = 100_000
DEFAULT_MAX_DAY_TOKENS = 2_000_000
# The largest values a setting may take: a day of waiting for one answer, and a billion bytes or tokens
# (no endpoint takes more; beyond 64 bits the JSON encoder fails).
MAX_TIMEOUT = 86_400.0
MAX_INTEGER = 1_000_000_000

ENV = {
    "preset": "TOTAL_RECALL_LLM_PRESET",
    "base_url": "TOTAL_RECALL_LLM_BASE_URL",
    "model": "TOTAL_RECALL_LLM_MODEL",
    "api_key": "TOTAL_RECALL_LLM_API_KEY",
    "timeout": "TOTAL_RECALL_LLM_TIMEOUT",
    "prompt_bytes": "TOTAL_RECALL_LLM_PROMPT_BYTES",
    "max_output_tokens": "TOTAL_RECALL_LLM_MAX_OUTPUT_TOKENS",
    "max_call_tokens": "TOTAL_RECALL_LLM_MAX_CALL_TOKENS",
    "max_day_tokens": "TOTAL_RECALL_LLM_MAX_DAY_TOKENS",
}
FILE_FIELDS = ("preset", "base_url", "model", "api_key", "api_key_env", "timeout", "prompt_bytes",
               "max_output_tokens", "max_call_tokens", "max_day_tokens")
_PROVIDER_FIELDS = ("base_url", "model", "api_key", "api_key_env")


@dataclass(frozen=True, slots=True)
class LLMSettings:
    """The endpoint in effect. `api_key` never appears in a repr, a log line or an error."""

    preset: str
    base_url: str
    model: str
    api_key: str | None = field(repr=False)
    key_source: str | None  # where the key came from: a variable name, or the config file
    key_env: str | None  # the variable a user would set for this preset
    timeout: float
    prompt_bytes: int
    max_output_tokens: int
    max_call_tokens: int
    max_day_tokens: int
    home: Path
    config_file: Path | None
    problem: str | None  # set when the tools cannot call this endpoint; says what to set

    @property
    def endpoint(self) -> str:
        """The URL requests go to, password and all: never show or log it, show `shown_endpoint`."""
        return self.base_url.rstrip("/") + "/chat/completions"

    @property
    def shown_endpoint(self) -> str:
        """`endpoint` without a password the URL carries, for messages, logs and `llm-status`."""
        return redact_url(self.endpoint)

    def describe(self) -> dict[str, Any]:
        """What `llm-status` shows: everything but the key itself."""
        return {
            "configured": self.problem is None,
            "problem": self.problem,
            "preset": self.preset,
            "base_url": redact_url(self.base_url),
            "endpoint": self.shown_endpoint,
            "model": self.model,
            "key_set": self.api_key is not None,
            "key_source": self.key_source,
            "key_env": self.key_env,
            "config_file": str(self.config_file) if self.config_file else None,
            "timeout_s": self.timeout,
            "prompt_bytes": self.prompt_bytes,
            "max_output_tokens": self.max_output_tokens,
            "max_call_tokens": self.max_call_tokens,
            "max_day_tokens": self.max_day_tokens,
            "presets": {p.name: {"base_url": p.base_url, "model": p.model, "key_env": p.key_env}
                        for p in PRESETS.values()},
        }


def load_settings(env: Mapping[str, str] | None = None, home: Path | None = None) -> LLMSettings:
    """The LLM settings in effect for the record at `home` (default: the record home).

    Raises:
        ConfigError: an unknown preset or file field, a malformed number or URL, an unreadable file,
            or a key kept in a config file others can read.
    """
    e = os.environ if env is None else env
    home = record_home(e) if home is None else home
    path = home / CONFIG_FILE
    file = _read_file(path) if path.is_file() else {}

    def env_value(name: str) -> str | None:
        value = e.get(ENV[name], "").strip()
        return value or None

    preset_name = env_value("preset") or _file_str(file, "preset", path)
    if env_value("preset") and file.get("preset") and file["preset"] != env_value("preset"):
        file = {k: v for k, v in file.items() if k not in _PROVIDER_FIELDS}
    base_url = env_value("base_url") or _file_str(file, "base_url", path)
    if preset_name is None:
        preset_name = CUSTOM if base_url else DEFAULT_PRESET
    if preset_name != CUSTOM and preset_name not in PRESETS:
        raise ConfigError(
            f"unknown LLM preset {preset_name!r} (from {_origin(env_value('preset'), 'preset', path)}): "
            f"known presets are {', '.join(PRESETS)}, or {CUSTOM} with TOTAL_RECALL_LLM_BASE_URL"
        )
    preset = PRESETS.get(preset_name)
    base_url = base_url or (preset.base_url if preset else None)
    model = env_value("model") or _file_str(file, "model", path) or (preset.model if preset else None)
    key_env = _file_str(file, "api_key_env", path) or (preset.key_env if preset else None)
    api_key, key_source = _key(e, file, path, key_env)

    problem = None
    shown_url = redact_url(base_url or "")
    if base_url is None:
        problem = "no LLM endpoint: set TOTAL_RECALL_LLM_BASE_URL (any OpenAI-compatible /v1 URL)"
    elif not base_url.startswith(("http://", "https://")):
        raise ConfigError(f"TOTAL_RECALL_LLM_BASE_URL must start with http:// or https://, not {shown_url!r}")
    elif model is None:
        problem = f"no LLM model for {shown_url}: set TOTAL_RECALL_LLM_MODEL"
    elif api_key is None and key_env is not None:
        problem = _no_key(preset_name, shown_url, key_env)

    return LLMSettings(
        preset=preset_name,
        base_url=base_url or "",
        model=model or "",
        api_key=api_key,
        key_source=key_source,
        key_env=key_env,
        timeout=_number(e, file, path, "timeout", DEFAULT_TIMEOUT, integer=False),
        prompt_bytes=_int(e, file, path, "prompt_bytes",
                          (preset and preset.prompt_bytes) or DEFAULT_PROMPT_BYTES),
        max_output_tokens=_int(e, file, path, "max_output_tokens",
                               (preset and preset.max_output_tokens) or DEFAULT_MAX_OUTPUT_TOKENS),
        max_call_tokens=_int(e, file, path, "max_call_tokens", DEFAULT_MAX_CALL_TOKENS),
        max_day_tokens=_int(e, file, path, "max_day_tokens", DEFAULT_MAX_DAY_TOKENS),
        home=home,
        config_file=path if path.is_file() else None,
        problem=problem,
    )


def _no_key(preset: str, base_url: str, key_env: str) -> str:
    others = ", ".join(
        f"{p.name} ({p.key_env or 'no key, local'})" for p in PRESETS.values() if p.name != preset
    )
    return (
        f"no API key for the LLM tools (preset {preset}, {base_url}): set {key_env} "
        f"(or TOTAL_RECALL_LLM_API_KEY). Other providers: TOTAL_RECALL_LLM_PRESET={others}; or "
        "TOTAL_RECALL_LLM_BASE_URL and TOTAL_RECALL_LLM_MODEL for any OpenAI-compatible endpoint. "
        "Every tool that needs no LLM works without a key."
    )


def _read_file(path: Path) -> dict[str, Any]:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:  # ValueError: bad UTF-8, bad TOML, an integer of 4,300+ digits
        raise ConfigError(f"{path}: not a readable TOML file: {exc}") from exc
    if unknown := sorted(set(data) - set(FILE_FIELDS)):
        raise ConfigError(f"{path}: unknown field {unknown[0]!r}; the fields are {', '.join(FILE_FIELDS)}")
    if "api_key" in data and path.stat().st_mode & 0o077:
        raise ConfigError(
            f"{path} holds an api_key but others can read it: chmod 600 {path}, or keep the key in "
            "the environment (TOTAL_RECALL_LLM_API_KEY, or the variable named by api_key_env)"
        )
    return data


def _file_str(file: Mapping[str, Any], name: str, path: Path) -> str | None:
    value = file.get(name)
    if value is None:
        return None
    if not isinstance(value, str):
        raise ConfigError(f"{path}: {name} must be a string, not {value!r}")
    return value.strip() or None


def _origin(from_env: str | None, name: str, path: Path) -> str:
    return ENV[name] if from_env else str(path)


def _key(e: Mapping[str, str], file: Mapping[str, Any], path: Path,
         key_env: str | None) -> tuple[str | None, str | None]:
    if value := e.get(ENV["api_key"], "").strip():
        return value, ENV["api_key"]
    if in_file := _file_str(file, "api_key", path):
        return in_file, f"{path} (api_key)"
    if key_env and (named := e.get(key_env, "").strip()):
        return named, key_env
    return None, None


def _number(e: Mapping[str, str], file: Mapping[str, Any], path: Path, name: str,
            default: float, integer: bool) -> float:
    raw: object = e.get(ENV[name], "").strip() or file.get(name)
    if raw is None or raw == "":
        return default
    origin = ENV[name] if e.get(ENV[name], "").strip() else f"{path} ({name})"
    value: float | None = None
    usable = isinstance(raw, str | int) or (isinstance(raw, float) and not integer)
    if usable and not isinstance(raw, bool):
        assert isinstance(raw, str | int | float)
        try:
            value = int(raw) if integer else float(raw)
        except ValueError:
            value = None
    # `not 0 < value <= top` also refuses NaN; the caps keep every number one an HTTP client, a socket
    # timeout and the JSON encoder (64-bit integers) can take.
    top, cap = (MAX_INTEGER, f"{MAX_INTEGER:,}") if integer else (MAX_TIMEOUT, f"{MAX_TIMEOUT:g}")
    if value is None or not 0 < value <= top:
        what = "integer" if integer else "finite number of seconds"
        shown = repr(raw) if len(repr(raw)) <= 40 else repr(raw)[:40] + "…"
        raise ConfigError(f"{origin} must be a positive {what}, at most {cap}, not {shown}")
    return value


def _int(e: Mapping[str, str], file: Mapping[str, Any], path: Path, name: str, default: int) -> int:
    return int(_number(e, file, path, name, default, integer=True))
