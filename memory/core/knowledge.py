"""What a newly stated fact does to what is already known — pure: the decision, not the rows.

PlugMem handles conflicts by freshness; mem0 lets an LLM delete the loser (sometimes both).
Here nothing is deleted: for one subject and slot there is at most one *current* value, and a
new statement either confirms it (the same value, or a near duplicate: more evidence, more
confidence), replaces it (the old value's validity closes where the new one's opens, and the new
one records what it superseded), ends it ("I left Acme"), or — said about an earlier time than
the current value — is kept as a past value that never becomes current.

Entity names resolve through a key that ignores case, possessives and a leading generic word,
so "Maya's" is Maya and "Project Falcon" is Falcon.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from enum import Enum

GENERIC_HEADS = ("project", "team", "operation", "initiative", "the", "mr", "mrs", "ms", "dr")
_POSSESSIVE = re.compile(r"(?:'s|’s|')$")
_SPACES = re.compile(r"\s+")
_WORD = re.compile(r"[^\W_]+")
NEAR_DUPLICATE = 0.8  # token Jaccard of two values at or above which they are one value


def entity_key(name: str) -> str:
    """The key an entity is found by: "Maya's" -> "maya", "Project Falcon" -> "falcon"."""
    words = _SPACES.sub(" ", _POSSESSIVE.sub("", name.strip().rstrip(".,;:!?"))).lower().split()
    while len(words) > 1 and words[0].rstrip(".") in GENERIC_HEADS:
        words.pop(0)
    return " ".join(words)


def value_key(value: str) -> str:
    return " ".join(_WORD.findall(value.lower()))


def similar(a: str, b: str) -> float:
    """Token Jaccard of two values (1.0 for the same words in any order)."""
    left, right = set(value_key(a).split()), set(value_key(b).split())
    if not left or not right:
        return 0.0
    return len(left & right) / len(left | right)


class Action(Enum):
    CONFIRM = "confirm"  # the current value said again: add evidence and confidence
    CREATE = "create"  # the slot had no current value
    SUPERSEDE = "supersede"  # a new value replaces the current one
    END = "end"  # the statement closes the current value
    RECORD_PAST = "record_past"  # a value that held before the current one (said late)
    RECORD_ENDED = "record_ended"  # an ending about a value we never had: kept, closed


@dataclass(frozen=True)
class Known:
    """The current value of a subject's slot."""

    value: str
    valid_from: datetime | None


@dataclass(frozen=True)
class Stated:
    value: str
    when: datetime | None
    ends: bool


def decide(current: Known | None, stated: Stated) -> Action:
    same = current is not None and similar(current.value, stated.value) >= NEAR_DUPLICATE
    if stated.ends:
        return Action.END if same else Action.RECORD_ENDED
    if current is None:
        return Action.CREATE
    if same:
        return Action.CONFIRM
    if (
        current.valid_from is not None
        and stated.when is not None
        and stated.when < current.valid_from
    ):
        return Action.RECORD_PAST
    return Action.SUPERSEDE


def more_confident(confidence: float, added: float) -> float:
    """Independent evidence: 1 - (1 - c)(1 - c'), kept under 1."""
    return min(0.99, 1 - (1 - confidence) * (1 - added))


# a question about what held before: recall then shows the values a slot held, not only its
# current one ("where did I initially keep…", "what did I use before…", "how many did I lead
# when I started")
PAST = re.compile(
    r"(?i)\b(?:initially|originally|previously|formerly|earlier|at first|in the beginning|"
    r"used to|before|prior to|back then|back when|first|when (?:I|we) (?:just )?(?:started|"
    r"began|joined|moved)|had (?:been|I|we)|change[ds]?|changed from|last time)\b"
)


def asks_about_past(question: str) -> bool:
    return PAST.search(question) is not None
