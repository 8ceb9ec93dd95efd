"""Packing recalled memories into a context string that fits a token budget."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from memory.core.text import estimate_tokens


@dataclass(frozen=True)
class Packable:
    id: int
    type: str
    content: str
    score: float
    token_count: int


@dataclass(frozen=True)
class Packed:
    text: str
    tokens: int
    ids: tuple[int, ...]


HEADER = "Relevant memories (most relevant first):"


def line_for(item: Packable) -> str:
    return f"- [{item.type.lower()} #{item.id}] {item.content.strip()}"


FLOOR_SHARE = 0.15  # of the top score: below it a memory is padding, not context
FLOOR = 0.05  # and below this, whatever the top


def pack(items: Sequence[Packable], budget: int) -> Packed:
    """Take memories in rank order while they fit (a long relevant memory is not traded for
    several short weak ones), skipping those that do not fit and those under the relevance
    floor; render them in rank order. The reported count is of the rendered text, and never
    exceeds ``budget``."""
    if budget <= 0 or not items:
        return Packed("", 0, ())
    top = max(item.score for item in items)
    floor = max(FLOOR, FLOOR_SHARE * top)
    header_tokens = estimate_tokens(HEADER) + 1
    lines = {item.id: line_for(item) for item in items}
    costs = {item.id: estimate_tokens(lines[item.id]) + 1 for item in items}
    remaining = budget - header_tokens
    ordered: list[Packable] = []
    for item in sorted(items, key=lambda i: (-i.score, i.id)):
        if item.score >= floor and costs[item.id] <= remaining:
            ordered.append(item)
            remaining -= costs[item.id]
    if not ordered:
        return Packed("", 0, ())
    text = "\n".join([HEADER, *(lines[item.id] for item in ordered)])
    tokens = estimate_tokens(text)
    while tokens > budget and ordered:  # newline joins are counted already; belt and braces
        ordered.pop()
        text = "\n".join([HEADER, *(lines[item.id] for item in ordered)])
        tokens = estimate_tokens(text)
    return Packed(text, tokens, tuple(item.id for item in ordered))
