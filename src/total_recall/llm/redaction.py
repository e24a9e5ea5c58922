"""Secrets taken out of text before it leaves the machine for an LLM endpoint.

Session logs hold keys: pasted `.env` files, `Authorization` headers in curl commands, tool output
that printed a token. Each match becomes `[REDACTED:<kind>]`, so the model (and a reader of the
summary) sees that something was removed and what sort of thing it was.
"""

from __future__ import annotations

import re
from collections.abc import Callable


def _nocase(word: str) -> str:
    """`word` as a case-blind pattern without (?i), which would turn off the fast first-character scan."""
    return "".join(f"[{c.lower()}{c.upper()}]" if c.isalpha() else re.escape(c) for c in word)


# key=value secrets: the keyword is found in an ASCII-lowered copy (same length, so offsets agree) by a
# pattern of plain literals, which the engine scans for fast; the value is matched right after it.
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
_SECRET_NAME = re.compile(r"api[_-]?key|apikey|secret|token|passw(?:or)?d|credential")
_SECRET_VALUE = re.compile(r"[A-Za-z0-9_.-]*[\"']?\s*[:=]\s*[\"']?(?!\[REDACTED)([^\s\"',;]{8,})")

# Most specific first: a PEM block or a JWT must not be half-eaten by the generic key=value rule. No
# pattern starts with \b or (?i): both turn off the regex engine's fast scan for the first character
# (a 50x difference on long tool output); a word boundary, where one is needed, is checked on the match.
_PATTERNS: tuple[tuple[str, re.Pattern[str], str, bool], ...] = (
    ("private-key", re.compile(
        r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----.*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|\Z)", re.S),
     "", False),
    # The end of a key whose beginning a clip or a page break left out.
    ("private-key", re.compile(
        r"(?:[A-Za-z0-9+/=]{16,}\r?\n)+[A-Za-z0-9+/=]*\r?\n?-----END [A-Z0-9 ]*PRIVATE KEY-----"), "", False),
    ("jwt", re.compile(r"eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"), "", True),
    ("bearer", re.compile(_nocase("bearer") + r"(\s+)[A-Za-z0-9._~+/=-]{12,}"), r"Bearer\1", True),
    ("basic-auth", re.compile(_nocase("basic") + r"(\s+)[A-Za-z0-9+/]{16,}={0,2}"), r"Basic\1", True),
    ("url-password", re.compile(r"(://[^/\s:@]+:)[^/\s@]{3,}(?=@)"), r"\1", False),
    ("api-key", re.compile(
        r"(?:sk-(?:ant-|proj-)?[A-Za-z0-9_-]{20,}|sk_[A-Za-z0-9_-]{20,}|"
        r"gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,}|glpat-[A-Za-z0-9_-]{20,}|"
        r"xox[abprs]-[A-Za-z0-9-]{10,}|AKIA[0-9A-Z]{16}|AIza[0-9A-Za-z_-]{35}|"
        r"hf_[A-Za-z0-9]{30,}|npm_[A-Za-z0-9]{30,})"), "", True),
)


def redact(text: str) -> str:
    """`text` with every secret-shaped string replaced by `[REDACTED:<kind>]`."""
    for kind, pattern, keep, boundary in _PATTERNS:
        if kind == "private-key" and "PRIVATE KEY-----" not in text:
            continue
        text = pattern.sub(_replacement(keep, f"[REDACTED:{kind}]", boundary), text)
    return _redact_values(text)


def _redact_values(text: str) -> str:
    """The value of `NAME=value` / `name: value` where the name says key, secret, token or password; the
    name is kept (OPENAI_ in OPENAI_API_KEY too), the value goes."""
    out: list[str] = []
    done = 0
    for name in _SECRET_NAME.finditer(text.translate(_ASCII_LOWER)):
        if name.start() < done:
            continue
        value = _SECRET_VALUE.match(text, name.end())
        if value is None:
            continue
        out.append(text[done:value.start(1)] + "[REDACTED:secret]")
        done = value.end(1)
    return "".join(out) + text[done:] if out else text


def _replacement(keep: str, marker: str, boundary: bool) -> Callable[[re.Match[str]], str]:
    def replace(m: re.Match[str]) -> str:
        before = m.string[m.start() - 1] if m.start() > 0 else " "
        if boundary and (before.isalnum() or before == "_"):
            return m.group(0)  # inside a longer word (task-…, aseyJ…): not a secret's start
        return (m.expand(keep) if keep else "") + marker

    return replace


def scrub(text: str, secret: str | None) -> str:
    """`text` with one known secret (the API key) removed wherever it appears, whatever its shape."""
    if secret and len(secret) >= 4:
        text = text.replace(secret, "[the API key]")
    return text


def redact_url(url: str) -> str:
    """`url` fit to show or log: a password in it (`http://user:pw@host`) becomes `[REDACTED:url-password]`
    whatever its length (the `redact` pattern wants three characters), then `redact` runs on the rest
    (a key in the query string). The request itself must still use the real URL.

    Split by hand, not with urlsplit: that raises on a malformed host or port, and a URL that is wrong
    in some other way must still lose its password."""
    start = url.find("://")
    if start >= 0:
        start += 3
        end = next((i for i in range(start, len(url)) if url[i] in "/?#"), len(url))
        userinfo, at, host = url[start:end].rpartition("@")
        if at and ":" in userinfo:
            name = userinfo.partition(":")[0]
            url = f"{url[:start]}{name}:[REDACTED:url-password]@{host}{url[end:]}"
    return redact(url)
