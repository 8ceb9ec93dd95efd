"""What an extractor finds in one episode: entities, dates, quantities and facts, each with
its span in the text (evidence a person can check)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

ENTITY_KINDS = ("person", "organisation", "place", "handle", "email", "project", "thing")


@dataclass(frozen=True)
class Mention:
    """A named thing as written ("Maya's", "Project Falcon"), its kind, and where."""

    name: str
    kind: str
    start: int
    end: int


@dataclass(frozen=True)
class When:
    """A date or time the text names, resolved against when it was said."""

    text: str
    at: datetime
    start: int
    end: int


@dataclass(frozen=True)
class Quantity:
    text: str
    value: float
    unit: str  # "EUR", "USD", "%", "km", "" for a bare count
    start: int
    end: int


@dataclass(frozen=True)
class FactDraft:
    """subject / predicate / object as stated, the slot it fills, and the evidence span.

    ``slot`` is the key a later value replaces: ``works_at`` holds one value at a time, so a
    new employer supersedes the old one; ``likes:hiking`` is one of many, so another liking
    adds to it. ``ends`` says the statement closes the slot ("I left Acme") instead of
    filling it."""

    subject: str
    predicate: str
    object: str
    slot: str
    confidence: float
    start: int
    end: int
    valid_from: datetime | None = None
    ends: bool = False


@dataclass
class Extraction:
    extractor: str  # "rules/1", "llm/<model>"
    mentions: list[Mention] = field(default_factory=list)
    dates: list[When] = field(default_factory=list)
    quantities: list[Quantity] = field(default_factory=list)
    facts: list[FactDraft] = field(default_factory=list)
    tokens: int = 0  # an LLM's tokens spent, for metering
