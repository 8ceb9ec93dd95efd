"""Dates and quantities in a text: candidates found by pattern, resolved by ``dateparser`` (a
maintained parser of absolute and relative dates in many languages) against when the text was
said, so "last March" in a message of 20 May 2023 is March 2023."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import dateparser

from memory.extraction.types import Quantity, When

MONTH = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
    r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
)
WEEKDAY = r"(?:mon|tues?|wed(?:nes)?|thu(?:rs)?|fri|sat(?:ur)?|sun)(?:day)?"
UNIT = r"(?:days?|weeks?|months?|years?|hours?|minutes?)"
NUMBER_WORD = r"(?:\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|twelve|a few)"
CANDIDATE = re.compile(
    rf"(?i)\b(?:\d{{4}}-\d{{2}}-\d{{2}}(?:[ T]\d{{1,2}}:\d{{2}})?"
    rf"|\d{{1,2}}/\d{{1,2}}/\d{{2,4}}"
    rf"|{MONTH}\.?\s+\d{{1,2}}(?:st|nd|rd|th)?(?:,?\s+\d{{4}})?"
    rf"|\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{MONTH}\.?(?:,?\s+\d{{4}})?"
    rf"|{MONTH}\.?\s+\d{{4}}"
    rf"|(?:next|last|this|coming)\s+(?:{WEEKDAY}|{MONTH}|week|month|year|weekend)"
    rf"|(?:on\s+)?{WEEKDAY}(?=\s+(?:at|morning|afternoon|evening|night)\b)"
    rf"|{NUMBER_WORD}\s+{UNIT}\s+ago|in\s+{NUMBER_WORD}\s+{UNIT}"
    rf"|yesterday|today|tomorrow|tonight"
    rf"|(?:in|since|from|until|by)\s+(?:19|20)\d{{2}}"
    rf"|(?:in|since|by|until)\s+{MONTH}(?:\s+\d{{4}})?(?!\s*\d{{1,2}}(?:st|nd|rd|th)?\b))\b"
)
FUTURE = re.compile(
    r"(?i)\b(?:will|'ll|going to|gonna|plan(?:ning|s)? to|next|tomorrow|upcoming|deadline|due|"
    r"scheduled|book(?:ed)?|appointment|coming|until|by)\b"
)
MONEY = re.compile(
    r"(?i)(?P<pre>[$€£¥])\s?(?P<a>\d[\d,]*(?:\.\d+)?)(?P<k>k\b)?"
    r"|(?P<b>\d[\d,]*(?:\.\d+)?)\s?(?P<unit>eur|euros?|usd|dollars?|gbp|pounds?|chf|jpy|yen|%|"
    r"percent|km|kilomet(?:er|re)s?|miles?|kg|kilos?|lbs?|hours?|minutes?|mins?)(?!\w)"
)
UNITS = {
    "$": "USD",
    "€": "EUR",
    "£": "GBP",
    "¥": "JPY",
    "eur": "EUR",
    "euro": "EUR",
    "euros": "EUR",
    "usd": "USD",
    "dollar": "USD",
    "dollars": "USD",
    "gbp": "GBP",
    "pound": "GBP",
    "pounds": "GBP",
    "percent": "%",
    "kilometer": "km",
    "kilometers": "km",
    "kilometre": "km",
    "kilometres": "km",
    "mile": "miles",
    "kilo": "kg",
    "kilos": "kg",
    "lb": "lbs",
    "hour": "hours",
    "minute": "minutes",
    "min": "minutes",
    "mins": "minutes",
}


def _naive_utc(moment: datetime) -> datetime:
    return moment.astimezone(UTC).replace(tzinfo=None) if moment.tzinfo else moment


def resolve(phrase: str, *, base: datetime, future: bool) -> datetime | None:
    """One phrase as a moment (UTC), read from ``base``; None when it names no date."""
    if re.fullmatch(r"(?:19|20)\d{2}", phrase):  # a year alone: its first day
        return datetime(int(phrase), 1, 1, tzinfo=UTC)
    parsed = dateparser.parse(
        phrase,
        languages=["en"],
        settings={
            "RELATIVE_BASE": _naive_utc(base),
            "PREFER_DATES_FROM": "future" if future else "past",
            "PREFER_DAY_OF_MONTH": "first",
            "RETURN_AS_TIMEZONE_AWARE": False,
        },
    )
    return parsed.replace(tzinfo=UTC) if parsed else None


def find_dates(text: str, *, base: datetime) -> list[When]:
    out = []
    for match in CANDIDATE.finditer(text):
        phrase = re.sub(r"(?i)^(?:in|since|from|until|by|on)\s+", "", match.group())
        sentence_start = max(text.rfind(ch, 0, match.start()) for ch in ".!?\n") + 1
        future = bool(FUTURE.search(text[sentence_start : match.end() + 40]))
        month = re.fullmatch(rf"(?i)(next|last|this|coming)\s+({MONTH})", phrase)
        if month:  # "last March": the parser knows March, the word says which one
            phrase, future = month.group(2), month.group(1).lower() in {"next", "coming"}
        at = resolve(phrase, base=base, future=future)
        if at is not None:
            out.append(When(match.group(), at, match.start(), match.end()))
    return out


def find_quantities(text: str) -> list[Quantity]:
    out = []
    for match in MONEY.finditer(text):
        raw = (match.group("a") or match.group("b") or "").replace(",", "")
        try:
            value = float(raw)
        except ValueError:
            continue
        if match.group("k"):
            value *= 1000
        unit = (match.group("pre") or match.group("unit") or "").lower()
        out.append(Quantity(match.group(), value, UNITS.get(unit, unit), *match.span()))
    return out
