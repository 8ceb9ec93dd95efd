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


def pack(items: Sequence[Packable], budget: int) -> Packed:
    """Choose by utility per token (score / tokens) until the budget is spent; render the chosen
    in rank order. The reported count is of the rendered text, and never exceeds ``budget``."""
    if budget <= 0 or not items:
        return Packed("", 0, ())
    header_tokens = estimate_tokens(HEADER) + 1
    lines = {item.id: line_for(item) for item in items}
    costs = {item.id: estimate_tokens(lines[item.id]) + 1 for item in items}
    by_value = sorted(items, key=lambda i: (-(i.score / max(costs[i.id], 1)), i.id))
    remaining = budget - header_tokens
    chosen: set[int] = set()
    for item in by_value:
        if costs[item.id] <= remaining:
            chosen.add(item.id)
            remaining -= costs[item.id]
    if not chosen:
        return Packed("", 0, ())
    ordered = [item for item in items if item.id in chosen]
    text = "\n".join([HEADER, *(lines[item.id] for item in ordered)])
    tokens = estimate_tokens(text)
    while tokens > budget and ordered:  # newline joins are counted already; belt and braces
        ordered.pop()
        text = "\n".join([HEADER, *(lines[item.id] for item in ordered)])
        tokens = estimate_tokens(text)
    return Packed(text, tokens, tuple(item.id for item in ordered))
