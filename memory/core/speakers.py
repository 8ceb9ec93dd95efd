"""Whose words a question asks about: the agent's ("what did you recommend?"), the user's own
("what did I tell you about…?"), or a named person's ("what did Maya paint?").

Pure Python. Remember keeps a message's speaker label as metadata (``Maya: …``, ``assistant:
…``) instead of a concept; recall prefers the memories spoken by whom the question points at.
It is a soft preference, like the time window (``memory.core.when``): the answer is sometimes
in the other side's reply, so nothing is filtered out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

# Labels chat logs give the two sides of an agent's conversation.
AGENT_LABELS = frozenset({"assistant", "ai", "bot", "agent", "chatbot", "gpt", "model"})
USER_LABELS = frozenset({"user", "human", "me", "customer", "client"})

# Saying and advising, in the past ("you recommended") and after "did" ("did you recommend"):
# a question that points back at something said. "Can you recommend" asks for something new.
_PAST = (
    "recommended|suggested|mentioned|said|told|gave|given|provided|listed|shared|explained|"
    "described|wrote|written|named|showed|shown|advised|proposed|offered|pointed out|came up"
)
_BASE = (
    "recommend|suggest|mention|say|tell|give|provide|list|share|explain|describe|write|name|"
    "show|advise|propose|offer|point out|come up"
)
_ADVERB = r"(?:\w+ly\s+|had\s+|have\s+|once\s+|just\s+|also\s+)?"
AGENT_RE = re.compile(
    rf"\byou\s+{_ADVERB}(?:{_PAST})\b|\bdid\s+you\s+{_ADVERB}(?:{_BASE})\b"
    r"|\byour\s+(?:recommendation|suggestion|advice|answer|explanation|tip)s?\b",
    re.I,
)
USER_RE = re.compile(
    rf"\bI\s+{_ADVERB}(?:{_PAST}|asked|recommended)\b|\bdid\s+I\s+{_ADVERB}(?:{_BASE}|ask)\b",
    re.I,
)
WORD_RE = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")


def _words(text: str) -> list[str]:
    """Lower-cased words, a possessive's "'s" dropped ("Maya's" is Maya)."""
    out = []
    for word in WORD_RE.findall(text.lower()):
        for mark in ("'s", "’s"):
            if word.endswith(mark):
                word = word[: -len(mark)]
        out.append(word)
    return out


@lru_cache(maxsize=1024)
def _label(speaker: str) -> tuple[str, tuple[str, ...]]:
    """A speaker label's side ("agent", "user" or "" for a name) and the words of a name that
    identify it: any of them ("John" for John Smith), not initials or titles' stubs."""
    label = speaker.strip().lower()
    if label in AGENT_LABELS:
        return "agent", ()
    if label in USER_LABELS:
        return "user", ()
    return "", tuple(word for word in _words(label) if len(word) >= 3)


@dataclass(frozen=True)
class Meant:
    """Whom a question points at."""

    agent: bool = False
    user: bool = False
    words: frozenset[str] = frozenset()

    def points_at(self, speaker: str | None) -> bool:
        """Whether a memory spoken by ``speaker`` is one the question asks about."""
        if not speaker:
            return False
        side, names = _label(speaker)
        if side == "agent":
            return self.agent
        if side == "user":
            return self.user
        return any(name in self.words for name in names)


def meant(query: str) -> Meant:
    return Meant(
        agent=bool(AGENT_RE.search(query)),
        user=bool(USER_RE.search(query)),
        words=frozenset(_words(query)),
    )
