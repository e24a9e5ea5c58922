"""Times named in a query ("yesterday", "last week", "in May 2026", "2026-11-16") as a window.

A query that names a time gets an extra ranking over that window, fused with the others, so entries
from then rise without the rest disappearing.
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, timedelta

_MONTHS = {m: i for i, m in enumerate(
    "january february march april may june july august september october november december".split(), 1)}
_MONTHS.update({m[:3]: i for m, i in list(_MONTHS.items())})
_ISO = re.compile(r"\b(\d{4})-(\d\d)-(\d\d)\b")
_MONTH = re.compile(r"\b(?:in |during |on )?(" + "|".join(sorted(_MONTHS, key=len, reverse=True)) +
                    r")\b(?:\s+(\d{4}))?", re.I)
_AGO = re.compile(r"\b(\d+|a|one|two|three)\s+(day|week|month)s?\s+ago\b", re.I)
_WORDS = {"a": 1, "one": 1, "two": 2, "three": 3}


def window(query: str, today: date | None = None) -> tuple[str, str] | None:
    """The [start, end) ISO window a query names, or None when it names no time."""
    today = today or datetime.now(UTC).date()
    q = query.lower()
    if m := _ISO.search(q):
        day = date(int(m[1]), int(m[2]), int(m[3]))
        return _span(day, day + timedelta(days=1))
    if re.search(r"\byesterday\b", q):
        return _span(today - timedelta(days=1), today)
    if re.search(r"\btoday\b|\bthis morning\b", q):
        return _span(today, today + timedelta(days=1))
    if re.search(r"\blast week\b", q):
        start = today - timedelta(days=today.weekday() + 7)
        return _span(start, start + timedelta(days=7))
    if re.search(r"\bthis week\b", q):
        start = today - timedelta(days=today.weekday())
        return _span(start, today + timedelta(days=1))
    if re.search(r"\blast month\b", q):
        first = today.replace(day=1)
        prev = (first - timedelta(days=1)).replace(day=1)
        return _span(prev, first)
    if m := _AGO.search(q):
        n = _WORDS.get(m[1].lower()) or int(m[1])
        unit = {"day": 1, "week": 7, "month": 30}[m[2].lower()]
        centre = today - timedelta(days=n * unit)
        return _span(centre - timedelta(days=unit), centre + timedelta(days=unit))
    if m := _MONTH.search(query):
        word = m[1].lower()
        if word == "may" and not m[2] and not re.search(r"\b(?:in|during)\s+may\b", q):
            return None  # "may" is mostly the verb
        month = _MONTHS[word]
        year = int(m[2]) if m[2] else (today.year if month <= today.month else today.year - 1)
        start = date(year, month, 1)
        end = date(year + (month == 12), month % 12 + 1, 1)
        return _span(start, end)
    return None


def _span(start: date, end: date) -> tuple[str, str]:
    return start.isoformat(), end.isoformat()
