"""Pareto selection (PRISM's retrieval step, which its own code left out) — pure.

Every candidate has several objectives in [0, 1] (recall uses relevance, salience and
coherence). No weighted sum is asked to trade one for another: candidates are sorted into
non-dominated **fronts** (front 0: nothing is at least as good on every objective and better on
one; front 1: what only front 0 beats; ...). Whole fronts fill a **pool** of about three times
the number wanted; the last front that does not fit is cut by **crowding distance** (the
candidates in its sparse regions first, its extremes always), so the pool covers the trade-offs
instead of piling up in one corner. Then a **diverse pick** takes the pool front by front (the
caller's score orders within a front), skipping near-duplicates of what it already holds and
honouring type quotas while other types can fill the slots.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

POOL_FACTOR = 3  # the pool holds about this many times k

Objectives = Sequence[float]


@dataclass(frozen=True)
class Ranked:
    """Where one candidate stood: its front (0 best) and crowding distance in that front
    (``inf`` for a front's extremes), and whether it made the pool."""

    index: int
    front: int
    crowding: float
    pooled: bool


def dominates(a: Objectives, b: Objectives) -> bool:
    better = False
    for x, y in zip(a, b, strict=True):
        if x < y:
            return False
        if x > y:
            better = True
    return better


def fronts(points: Sequence[Objectives]) -> list[list[int]]:
    """Non-dominated sorting: the indexes of ``points`` front by front (Deb's fast sort,
    O(m·n²)); within a front, in index order."""
    n = len(points)
    beaten_by = [0] * n  # how many points dominate each
    beats: list[list[int]] = [[] for _ in range(n)]
    for i in range(n):
        a = points[i]
        for j in range(i + 1, n):
            b = points[j]
            if dominates(a, b):
                beats[i].append(j)
                beaten_by[j] += 1
            elif dominates(b, a):
                beats[j].append(i)
                beaten_by[i] += 1
    result: list[list[int]] = []
    current = [i for i in range(n) if beaten_by[i] == 0]
    while current:
        result.append(sorted(current))
        following: list[int] = []
        for i in current:
            for j in beats[i]:
                beaten_by[j] -= 1
                if beaten_by[j] == 0:
                    following.append(j)
        current = following
    return result


def crowding(front: Sequence[int], points: Sequence[Objectives]) -> dict[int, float]:
    """Crowding distance of each member of ``front``: per objective, the normalised gap between
    its neighbours on that objective, summed; a front's extremes get ``inf``."""
    distance = dict.fromkeys(front, 0.0)
    if len(front) <= 2:
        return dict.fromkeys(front, math.inf)
    for m in range(len(points[front[0]])):
        ordered = sorted(front, key=lambda i: (points[i][m], i))
        low, high = points[ordered[0]][m], points[ordered[-1]][m]
        distance[ordered[0]] = distance[ordered[-1]] = math.inf
        if high == low:
            continue
        for before, member, after in zip(ordered, ordered[1:], ordered[2:], strict=False):
            if distance[member] != math.inf:
                distance[member] += (points[after][m] - points[before][m]) / (high - low)
    return distance


def pool(points: Sequence[Objectives], size: int) -> list[Ranked]:
    """Every point's front and crowding distance, and which ``size`` of them make the pool:
    whole fronts while they fit, the rest of the last by crowding distance (largest first)."""
    ranked: list[Ranked] = []
    taken = 0
    for number, front in enumerate(fronts(points)):
        spread = crowding(front, points)
        if taken >= size:
            ranked.extend(Ranked(i, number, spread[i], False) for i in front)
            continue
        room = size - taken
        if len(front) <= room:
            chosen = set(front)
        else:
            chosen = set(sorted(front, key=lambda i: (-spread[i], i))[:room])
        taken += len(chosen)
        ranked.extend(Ranked(i, number, spread[i], i in chosen) for i in front)
    return sorted(ranked, key=lambda r: r.index)


def pick(
    ranked: Sequence[Ranked],
    k: int,
    *,
    score: Callable[[int], float],
    kind: Callable[[int], str],
    same: Callable[[int, int], bool],
    quotas: dict[str, int],
) -> tuple[list[int], int]:
    """The diverse pick of ``k`` from the pool: front by front, the caller's ``score`` first
    within a front; a near-duplicate (``same``) of a pick is suppressed; a type past its quota
    waits until nothing else can fill the slot. Returns the picks in order and how many were
    suppressed as duplicates."""
    order = sorted(
        (r for r in ranked if r.pooled), key=lambda r: (r.front, -score(r.index), r.index)
    )
    chosen: list[int] = []
    used: dict[str, int] = {}
    waiting: list[int] = []
    suppressed = 0
    for r in order:
        if len(chosen) >= k:
            break
        if any(same(r.index, c) for c in chosen):
            suppressed += 1
            continue
        t = kind(r.index)
        if used.get(t, 0) >= quotas.get(t, k):
            waiting.append(r.index)
            continue
        used[t] = used.get(t, 0) + 1
        chosen.append(r.index)
    for index in waiting:
        if len(chosen) >= k:
            break
        if any(same(index, c) for c in chosen):
            suppressed += 1
            continue
        chosen.append(index)
    return chosen, suppressed
