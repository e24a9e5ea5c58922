"""Times named in a query ("yesterday", "last week", "in May 2026", "2026-11-16") as a window.

A query that names a time gets an extra ranking over that window, fused with the others, so entries
from then rise without the rest disappearing.
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, timedelta

from total_recall.errors import SearchError
from total_recall.model import echoed

_MONTHS = {m: i for i, m in enumerate(
    "january february march april may june july august september october november december".split(), 1)}
_MONTHS.update({m[:3]: i for m, i in list(_MONTHS.items())})
_MONTH_WORDS = "|".join(sorted(_MONTHS, key=len, reverse=True))
# ASCII digits only: \d would take other scripts' digits, which int() reads as a date no one wrote.
_ISO = re.compile(r"\b(\d{4})-(\d\d)-(\d\d)\b", re.A)
_MONTH = re.compile(r"\b(?:in |during |on )?(" + _MONTH_WORDS + r")\b(?:\s+(\d{4}))?", re.I | re.A)
_AGO = re.compile(r"\b(\d+|a|one|two|three)\s+(day|week|month)s?\s+ago\b", re.I | re.A)
_WORDS = {"a": 1, "one": 1, "two": 2, "three": 3}


def window(query: str, today: date | None = None) -> tuple[str, str] | None:
    """The [start, end) ISO window a query names, or None when it names no time (or one no date holds:
    "99999999999 days ago", "May 0000" are searched as words)."""
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
        unit = {"day": 1, "week": 7, "month": 30}[m[2].lower()]
        try:
            n = _WORDS.get(m[1].lower()) or int(m[1])
            centre = today - timedelta(days=n * unit)
            return _span(centre - timedelta(days=unit), centre + timedelta(days=unit))
        except (ValueError, OverflowError):
            return None  # further back than any date (int() refuses over 4,300 digits: ValueError)
    if m := _MONTH.search(query):
        word = m[1].lower()
        if word == "may" and not m[2] and not re.search(r"\b(?:in|during)\s+may\b", q):
            return None  # "may" is mostly the verb
        month = _MONTHS[word]
        year = int(m[2]) if m[2] else (today.year if month <= today.month else today.year - 1)
        if year < 1:
            return None  # no year 0
        start = date(year, month, 1)
        # December 9999 ends at the last day a date holds: there is no year 10000 to end at.
        end = date(year + (month == 12), month % 12 + 1, 1) if year < 9999 or month < 12 else date.max
        return _span(start, end)
    return None


_YEAR_MONTH = re.compile(r"(\d{4})(?:-(0[1-9]|1[0-2]))?", re.A)
_SINCE_AGO = re.compile(r"(\d+|a|an|one|two|three)\s+(minute|hour|day|week|month)s?\s+ago", re.I | re.A)
# The names a `since` may be as a whole (a query may name them among other words: `window`).
_SINCE_NAMED = re.compile(r"yesterday|today|this morning|this week|last week|last month", re.I)
_SINCE_MONTH = re.compile(r"(?:(?:in|during|on)\s+)?(" + _MONTH_WORDS + r")(?:\s+(\d{4}))?", re.I | re.A)
_UNIT = {"minute": timedelta(minutes=1), "hour": timedelta(hours=1), "day": timedelta(days=1),
         "week": timedelta(weeks=1), "month": timedelta(days=30)}
_AGO_DIGITS = 12  # more is further back than any date: refused before int() reads it


# What a refused `since` is told it may be, on every operation that takes one.
SINCE_FORMS = ("an ISO date or time (2026-11-01, 2026-11-01T09:00), a month or a year (2026-10, 2026), "
               "N minutes, hours, days, weeks or months ago, today, yesterday, this morning, this week, last "
               "week, last month or May 2026")


def since(text: str, now: datetime | None = None) -> str | None:
    """The moment a `since` filter names, as the record's times are written (ISO, UTC). The whole text
    (trimmed) must be one form: an ISO date or time (`2026-11-01`, `2026-11-01T09:00`, with or without an
    offset), a month or a year (`2026-10`, `2026`), `N minutes/hours/days/weeks/months ago`, or the start
    of a time a query may name (`yesterday`, `last week`, `May 2026`); None when it is none (the caller
    refuses it, naming the forms).

    Raises:
        SearchError: the text is one of the forms but names a time before year 1 or after 9999.
    """
    now = now or datetime.now(UTC)
    t = text.strip()
    if not t.isascii():
        return None  # fromisoformat and int() would read other scripts' digits
    if m := _YEAR_MONTH.fullmatch(t):  # a month (2026-10) or a year (2026): from its start
        if m[1] == "0000":
            raise _out_of_range(text)
        return f"{m[1]}-{m[2] or '01'}-01T00:00:00"
    try:
        moment = datetime.fromisoformat(t)  # the whole text, and a day that exists in its month
    except ValueError:
        moment = None
    if moment is not None:
        if moment.tzinfo is not None:
            try:
                moment = moment.astimezone(UTC).replace(tzinfo=None)
            except OverflowError as exc:  # 0001-01-01T00:00+01:00 is in year 0 in UTC
                raise _out_of_range(text) from exc
        return moment.isoformat()
    if m := _SINCE_AGO.fullmatch(t):
        if len(m[1]) > _AGO_DIGITS:
            raise _out_of_range(text)
        n = _WORDS.get(m[1].lower(), 1) if not m[1].isdigit() else int(m[1])
        try:
            return (now - n * _UNIT[m[2].lower()]).replace(tzinfo=None).isoformat(timespec="seconds")
        except OverflowError as exc:
            raise _out_of_range(text) from exc
    if m := _SINCE_MONTH.fullmatch(t):
        if m[2] == "0000":
            raise _out_of_range(text)
    elif not _SINCE_NAMED.fullmatch(t):
        return None  # words around a time, or none: not read as some other time
    named = window(t, now.date())
    return None if named is None else named[0]


def _out_of_range(text: str) -> SearchError:
    # "is not a time" as for any other refused `since`: the callers' refusals read alike.
    return SearchError(f"since: {echoed(text)} is out of range: it is not a time between the years 1 and "
                       "9999")


def _span(start: date, end: date) -> tuple[str, str]:
    return start.isoformat(), end.isoformat()
