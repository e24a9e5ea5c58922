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
    for iso in _ISO.finditer(q):
        try:
            day = date(int(iso[1]), int(iso[2]), int(iso[3]))
            return _span(day, day + timedelta(days=1))
        except (ValueError, OverflowError):
            continue  # 2026-13-01 names no day
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


_YEAR_MONTH = re.compile(r"(\d{4})(?:-(0[1-9]|1[0-2]))?")
_SINCE_AGO = re.compile(r"(\d{1,9}|a|an|one|two|three)\s+(minute|hour|day|week|month)s?\s+ago", re.I)
_UNIT = {"minute": timedelta(minutes=1), "hour": timedelta(hours=1), "day": timedelta(days=1),
         "week": timedelta(weeks=1), "month": timedelta(days=30)}


def since(text: str, now: datetime | None = None) -> str | None:
    """The moment a `since` filter names, as the record's times are written (ISO, UTC): an ISO date or
    time (`2026-11-01`, `2026-11-01T09:00`, with or without an offset), a month or a year (`2026-10`),
    `N hours/days/weeks ago`, or the start of a time a query may name (`yesterday`, `last week`,
    `May 2026`); None when it names none."""
    now = now or datetime.now(UTC)
    t = text.strip()
    if m := _YEAR_MONTH.fullmatch(t):  # a month (2026-10) or a year (2026): from its start
        return f"{m[1]}-{m[2] or '01'}-01T00:00:00"
    try:
        moment = datetime.fromisoformat(t)
    except ValueError:
        moment = None
    if moment is not None:
        if moment.tzinfo is not None:
            moment = moment.astimezone(UTC).replace(tzinfo=None)
        return moment.isoformat()
    try:
        if m := _SINCE_AGO.fullmatch(t):
            n = _WORDS.get(m[1].lower(), 1) if not m[1].isdigit() else int(m[1])
            return (now - n * _UNIT[m[2].lower()]).replace(tzinfo=None).isoformat(timespec="seconds")
    except OverflowError:
        return None  # further back than any date
    named = window(t, now.date())
    return None if named is None else named[0]


def _span(start: date, end: date) -> tuple[str, str]:
    return start.isoformat(), end.isoformat()
