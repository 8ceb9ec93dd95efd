"""Time named in a question, as a window to prefer memories from ("in April 2022", "last week").

Pure Python: the window is resolved against the recall's ``now``. It is a soft preference:
recall boosts memories that happened inside it and leaves the rest where they are, since a
question's date words can as well describe the answer ("what did I plan for May?").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta

MONTHS = {
    name: number
    for number, names in enumerate(
        [
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ],
        start=1,
    )
    for name in names
}
_MONTH = "|".join(sorted(MONTHS, key=len, reverse=True))
MONTH_YEAR_RE = re.compile(
    rf"\b({_MONTH})\.?(?:\s+(\d{{1,2}})(?:st|nd|rd|th)?,?)?\s+(\d{{4}})\b", re.I
)
MONTH_RE = re.compile(rf"\b(?:in|during|since|from|of|last|this)\s+({_MONTH})\b", re.I)
YEAR_RE = re.compile(r"\b(?:in|during|of)\s+((?:19|20)\d{2})\b", re.I)
ISO_DAY_RE = re.compile(r"\b((?:19|20)\d{2})[-/](\d{1,2})[-/](\d{1,2})\b")
AGO_RE = re.compile(
    r"\b(\d{1,3}|a|an|one|two|three|four|five|six)\s+(day|week|month)s?\s+ago\b", re.I
)
NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
RELATIVE = {
    "today": (0, 1),
    "yesterday": (1, 1),
    "last week": (7, 7),
    "past week": (7, 7),
    "this week": (7, 7),
    "last weekend": (8, 3),
    "last month": (31, 31),
    "past month": (31, 31),
    "this month": (31, 31),
    "last year": (366, 366),
    "past year": (366, 366),
}
RELATIVE_RE = re.compile(r"\b(" + "|".join(RELATIVE) + r")\b", re.I)


@dataclass(frozen=True)
class Window:
    start: datetime
    end: datetime  # exclusive
    said: str  # the words that named it

    def holds(self, moment: datetime | None) -> bool:
        return moment is not None and self.start <= moment < self.end


def _month_span(year: int, month: int, now: datetime) -> tuple[datetime, datetime]:
    start = now.replace(year=year, month=month, day=1, hour=0, minute=0, second=0, microsecond=0)
    end = start.replace(year=year + 1, month=1) if month == 12 else start.replace(month=month + 1)
    return start, end


def window_in(question: str, now: datetime) -> Window | None:
    """The first time expression of ``question`` as a window, or None."""
    midnight = now.replace(hour=0, minute=0, second=0, microsecond=0)
    if found := ISO_DAY_RE.search(question):
        year, month, day = (int(part) for part in found.groups())
        try:
            start = midnight.replace(year=year, month=month, day=day)
        except ValueError:
            return None
        return Window(start, start + timedelta(days=1), found.group(0))
    if found := MONTH_YEAR_RE.search(question):
        month, year = MONTHS[found.group(1).lower()], int(found.group(3))
        if found.group(2):
            try:
                start = midnight.replace(year=year, month=month, day=int(found.group(2)))
            except ValueError:
                return None
            return Window(start, start + timedelta(days=1), found.group(0))
        return Window(*_month_span(year, month, now), found.group(0))
    if found := AGO_RE.search(question):
        count = NUMBERS.get(found.group(1).lower()) or int(found.group(1))
        days = {"day": 1, "week": 7, "month": 30}[found.group(2).lower()] * count
        center = midnight - timedelta(days=days)
        slack = timedelta(days=max(1, days // 4))
        return Window(center - slack, center + slack + timedelta(days=1), found.group(0))
    if found := RELATIVE_RE.search(question):
        back, length = RELATIVE[found.group(1).lower()]
        start = midnight - timedelta(days=back)
        return Window(start, start + timedelta(days=length), found.group(0))
    if found := MONTH_RE.search(question):
        month = MONTHS[found.group(1).lower()]
        year = now.year if month <= now.month else now.year - 1  # the latest such month
        return Window(*_month_span(year, month, now), found.group(0))
    if found := YEAR_RE.search(question):
        year = int(found.group(1))
        start = midnight.replace(year=year, month=1, day=1)
        return Window(start, start.replace(year=year + 1), found.group(0))
    return None
