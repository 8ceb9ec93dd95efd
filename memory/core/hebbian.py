"""Edge weights: Hebbian reinforcement, decay and pruning (PromptX overwrote weights; we learn).

Every use of an edge moves its weight toward 1 by a fraction η of the remaining distance,
``w ← w + η(1 − w)``; k uses in one batch are the closed form ``1 − (1 − w)(1 − η)^k``, so a
batch can be applied in one atomic SQL UPDATE and concurrent writers lose nothing. Unused edges
decay with a half-life and are pruned below a floor.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass

ETA_SEQUENCE = 0.30  # consecutive schema words: the strongest, directed association
ETA_COOCCUR = 0.12  # within the window, both directions
COOCCUR_WINDOW = 2
HALF_LIFE_DAYS = 45.0
PRUNE_BELOW = 0.02
MAX_OUT_DEGREE = 64


@dataclass(frozen=True)
class EdgeUse:
    source: str  # cue lemma
    target: str
    kind: str  # sequence | cooccur
    eta: float
    times: int


def reinforce(weight: float, eta: float, times: int = 1) -> float:
    """The weight after ``times`` reinforcements (a new edge starts from 0)."""
    if not 0 < eta < 1 or times < 0:
        raise ValueError("eta must be in (0, 1) and times >= 0")
    return float(1.0 - (1.0 - weight) * (1.0 - eta) ** times)


def decay(weight: float, idle_days: float, half_life_days: float = HALF_LIFE_DAYS) -> float:
    return float(weight * 0.5 ** (max(idle_days, 0.0) / half_life_days))


def should_prune(weight: float) -> bool:
    return weight < PRUNE_BELOW


def edge_uses(schemas: list[list[str]], window: int = COOCCUR_WINDOW) -> list[EdgeUse]:
    """The edge reinforcements a batch of schemas (lists of lemmas) implies, aggregated.

    ``a→b`` (sequence) for neighbours; ``a↔c`` (cooccur) for pairs up to ``window`` apart,
    including neighbours backwards, so activation can travel from any word of a memory.
    """
    sequence: Counter[tuple[str, str]] = Counter()
    cooccur: Counter[tuple[str, str]] = Counter()
    for lemmas in schemas:
        seq: set[tuple[str, str]] = set()  # each edge counts once per engram
        co: set[tuple[str, str]] = set()
        for i, source in enumerate(lemmas):
            for j in range(i + 1, min(len(lemmas), i + window + 1)):
                target = lemmas[j]
                if source == target:
                    continue
                if j == i + 1:
                    seq.add((source, target))  # forward: the sequence edge
                    co.add((target, source))  # backward: a co-occurrence
                else:
                    co.update({(source, target), (target, source)})
        sequence.update(seq)
        cooccur.update(co - seq)
    uses = [EdgeUse(s, t, "sequence", ETA_SEQUENCE, n) for (s, t), n in sequence.items()]
    uses += [EdgeUse(s, t, "cooccur", ETA_COOCCUR, n) for (s, t), n in cooccur.items()]
    return sorted(uses, key=lambda u: (u.source, u.target, u.kind))  # one lock order for all


def base_level_activation(count: int, idle_days: float, decay_rate: float = 0.5) -> float:
    """ACT-R's base-level activation in its usual closed-form approximation.

    ``B = ln(n / (1 − d)) − d · ln(L)`` with n uses and L the time since first use (here: since
    last access, in days, floored at one hour). Higher for frequent and recent concepts.
    """
    n = max(count, 0) + 1
    idle = max(idle_days, 1 / 24)
    return float(math.log(n / (1 - decay_rate)) - decay_rate * math.log(idle))
