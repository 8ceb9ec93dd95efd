"""Phase 2 of recall: score candidates, suppress near-duplicates, apply type quotas.

Each candidate arrives with what the channels found — a text rank, a vector similarity, the
activation of its cues — and its own salience: type, strength, importance, recency and ACT-R
base-level activation. The score is relevance × salience, both in [0, 1]; every part is kept so
the caller can show *why* a memory came back.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from memory.core import pareto
from memory.core.hebbian import base_level_activation

TYPE_WEIGHT = {"PATTERN": 2.0, "LINK": 1.5, "ATOMIC": 1.0}  # PromptX's weights
# At most this share of k per type, so one kind of memory cannot crowd out the others.
TYPE_QUOTA = {"PATTERN": 0.4, "LINK": 0.5, "ATOMIC": 0.7}
RECENCY_HALF_LIFE_DAYS = 30.0
DUPLICATE_JACCARD = 0.8
DUPLICATE_COSINE = 0.92

# How much each kind of evidence counts towards relevance, per recall mode. "direct" is the share
# of the query's cues (IDF-weighted) an engram is filed under; "associative" is energy that
# reached its other cues by spreading — the part PromptX's network adds, strongest in creative.
CHANNEL_WEIGHTS = {
    "focused": {"text": 0.85, "direct": 0.85, "vector": 0.7, "associative": 0.15},
    "balanced": {"text": 0.8, "direct": 0.8, "vector": 0.7, "associative": 0.3},
    "creative": {"text": 0.7, "direct": 0.7, "vector": 0.7, "associative": 0.55},
}


@dataclass
class Candidate:
    id: int
    type: str
    strength: float
    importance: float
    happened_at: datetime  # occurred_at, else created_at
    last_access_at: datetime | None
    access_count: int
    token_count: int
    lemmas: frozenset[str]
    text: float = 0.0  # query-word coverage and normalised text rank, [0, 1]
    vector: float = 0.0  # rescaled cosine similarity, [0, 1]
    direct: float = 0.0  # IDF-weighted share of the query's cues it is filed under
    associative: float = 0.0  # noisy-or of spread energy on its other cues
    depth: int | None = None  # hops from a seed to its nearest activated cue
    in_window: bool | None = None  # inside the time the question names (None: it names none)
    pointed: bool = False  # spoken by whom the question asks about (memory.core.speakers)
    channels: set[str] = field(default_factory=set)
    embedding: Sequence[float] | None = None


@dataclass(frozen=True)
class Scored:
    candidate: Candidate
    score: float
    parts: dict[str, float]


def _days(later: datetime, earlier: datetime | None) -> float:
    if earlier is None:
        return 365.0
    return max((later - earlier).total_seconds() / 86400.0, 0.0)


AGREEMENT = (
    0.8  # how much the other channels add on top of the strongest one (tuned: see DECISIONS)
)
SALIENCE_SHARE = 0.2  # salience orders among the relevant: 0.8–1.0 of relevance
WINDOW_BOOST = 0.3  # a memory from the time the question names, over one from another time
SPEAKER_BOOST = 0.15  # a memory spoken by whom the question asks about, over the other side's


def relevance(c: Candidate, mode: str) -> float:
    """The strongest channel's weighted evidence, plus part of what the others add (their
    noisy-or, scaled by AGREEMENT into the room left). One strong channel is never outvoted by
    several weak ones agreeing: text at 0.9 alone beats three channels at 0.3 (0.48), which a
    plain noisy-or ranked above it (0.66)."""
    weights = CHANNEL_WEIGHTS.get(mode, CHANNEL_WEIGHTS["balanced"])
    depth_factor = 1.0 if not c.depth else 1.0 / (1.0 + 0.35 * (c.depth - 1))
    parts = (
        weights["text"] * c.text,
        weights["direct"] * c.direct,
        weights["vector"] * c.vector,
        weights["associative"] * c.associative * depth_factor,
    )
    clamped = sorted((min(max(part, 0.0), 1.0) for part in parts), reverse=True)
    strongest, others = clamped[0], clamped[1:]
    miss = 1.0
    for part in others:
        miss *= 1.0 - part
    return strongest + (1.0 - strongest) * AGREEMENT * (1.0 - miss)


def led_by(parts: dict[str, float], mode: str = "balanced") -> str:
    """The channel whose weighted evidence was strongest (relevance keeps it whole)."""
    weights = CHANNEL_WEIGHTS.get(mode, CHANNEL_WEIGHTS["balanced"])
    names = ("text", "direct", "vector", "associative")
    best = max(names, key=lambda name: weights[name] * parts.get(name, 0.0))
    return best if weights[best] * parts.get(best, 0.0) > 0 else ""


def salience(c: Candidate, now: datetime) -> dict[str, float]:
    type_part = TYPE_WEIGHT.get(c.type, 1.0) / TYPE_WEIGHT["PATTERN"]
    recency = 0.5 ** (_days(now, c.happened_at) / RECENCY_HALF_LIFE_DAYS)
    # One clock: recalled "after" a ``now`` in the past means not yet recalled at ``now``
    # (an evaluation replaying old questions must not see its own earlier look-ups).
    accessed = c.last_access_at is not None and c.last_access_at <= now
    count, last = (c.access_count, c.last_access_at) if accessed else (0, None)
    bla = base_level_activation(count, _days(now, last))
    bla_part = 1.0 / (1.0 + math.exp(-bla))
    overall = (
        0.25 * type_part
        + 0.25 * min(max(c.strength, 0.0), 1.0)
        + 0.15 * min(max(c.importance, 0.0), 1.0)
        + 0.2 * recency
        + 0.15 * bla_part
    )
    return {
        "type": type_part,
        "strength": c.strength,
        "importance": c.importance,
        "recency": recency,
        "base_level": bla_part,
        "salience": overall,
    }


def score(c: Candidate, *, mode: str, now: datetime) -> Scored:
    rel = relevance(c, mode)
    parts = salience(c, now)
    # Relevance decides, salience orders among the relevant
    total = rel * (1.0 - SALIENCE_SHARE + SALIENCE_SHARE * parts["salience"])
    if c.in_window is not None:
        parts["in_window"] = float(c.in_window)
        total *= 1.0 + WINDOW_BOOST if c.in_window else 1.0
    if c.pointed:
        parts["speaker"] = 1.0
        total *= 1.0 + SPEAKER_BOOST
    parts.update(
        relevance=rel, text=c.text, direct=c.direct, vector=c.vector, associative=c.associative
    )
    return Scored(c, total, parts)


def rounded(parts: dict[str, float]) -> dict[str, float]:
    """Score parts as shown to people (rounding only what is returned, not every candidate)."""
    return {name: round(value, 4) for name, value in parts.items()}


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    if not a or not b:
        return 0.0
    return len(a & b) / len(a | b)


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=False))
    na = math.sqrt(sum(x * x for x in a))
    nb = math.sqrt(sum(y * y for y in b))
    return dot / (na * nb) if na and nb else 0.0


def is_near_duplicate(
    a: Candidate, b: Candidate, twins: frozenset[frozenset[int]] = frozenset()
) -> bool:
    """Same words (Jaccard of lemmas), the same meaning by vectors held on the candidates, or
    a pair the caller found close by their stored vectors (``twins``)."""
    if frozenset((a.id, b.id)) in twins:
        return True
    if (
        a.embedding is not None
        and b.embedding is not None
        and cosine(a.embedding, b.embedding) >= DUPLICATE_COSINE
    ):
        return True
    return jaccard(a.lemmas, b.lemmas) >= DUPLICATE_JACCARD


def select(
    scored: Iterable[Scored], k: int, twins: frozenset[frozenset[int]] = frozenset()
) -> tuple[list[Scored], int]:
    """The top ``k`` by score under type quotas, without near-duplicates; and how many were
    suppressed as duplicates. Quotas only limit while other types can fill the slots."""
    ordered = sorted(scored, key=lambda s: (-s.score, s.candidate.id))
    chosen: list[Scored] = []
    suppressed = 0
    overflow: list[Scored] = []
    limits = {t: max(1, math.ceil(share * k)) for t, share in TYPE_QUOTA.items()}
    used: dict[str, int] = {}
    for item in ordered:
        if len(chosen) >= k:
            break
        if item.score <= 0:
            continue
        if any(is_near_duplicate(item.candidate, c.candidate, twins) for c in chosen):
            suppressed += 1
            continue
        kind = item.candidate.type
        if used.get(kind, 0) >= limits.get(kind, k):
            overflow.append(item)
            continue
        used[kind] = used.get(kind, 0) + 1
        chosen.append(item)
    for item in overflow:  # quotas never leave slots empty
        if len(chosen) >= k:
            break
        if any(is_near_duplicate(item.candidate, c.candidate, twins) for c in chosen):
            suppressed += 1
            continue
        chosen.append(item)
    return sorted(chosen, key=lambda s: (-s.score, s.candidate.id)), suppressed


# --- Pareto selection over three objectives (PRISM) ------------------------------------------

PARETO_INPUT = 200  # the best candidates by score that are sorted into fronts
RELEVANT_SHARE = 0.35  # of the best relevance: below it (and incoherent) a candidate is noise
COHERENT = 0.3  # coherence that makes a candidate worth a place without relevance


def coherence(hops: int | None, same_intent: bool, entity_share: float) -> float:
    """How well a candidate fits the work at hand, in [0, 1]: graph distance to the active
    step chain (1 at it, 1/2 one hop away, ...), else the query's intent among its own and
    the share of the focus's entities and identifiers it names."""
    near = 0.0 if hops is None else 1.0 / (1.0 + hops)
    loose = 0.5 * float(same_intent) + 0.5 * min(max(entity_share, 0.0), 1.0)
    return max(near, 0.6 * loose)


@dataclass(frozen=True)
class Placed:
    """Where a candidate stood in the Pareto sort (front 0 is the best)."""

    front: int
    crowding: float
    pooled: bool
    objectives: tuple[float, float, float]  # relevance, salience, coherence


def objectives_of(item: Scored, coherent: float) -> tuple[float, float, float]:
    relevance = item.parts.get("relevance", 0.0)
    if item.parts.get("in_window"):
        relevance = min(1.0, relevance * (1.0 + WINDOW_BOOST))
    return (round(relevance, 4), round(item.parts.get("salience", 0.0), 4), round(coherent, 4))


def select_pareto(
    scored: Iterable[Scored],
    k: int,
    coherent: dict[int, float],
    twins: frozenset[frozenset[int]] = frozenset(),
    quotas: dict[str, float] | None = None,
) -> tuple[list[Scored], int, dict[int, Placed]]:
    """``k`` candidates by Pareto selection over relevance, salience and coherence: the
    relevant or coherent ones (the rest is noise every objective but salience would call
    good) sorted into fronts, a pool of about 3k, then the diverse pick front by front
    (``memory.core.pareto``). Returns the picks (in pick order), the duplicates suppressed,
    and every sorted candidate's place."""
    items = list(scored)
    best = max((s.parts.get("relevance", 0.0) for s in items), default=0.0)
    eligible = [
        s
        for s in items
        if (best > 0 and s.parts.get("relevance", 0.0) >= RELEVANT_SHARE * best and s.score > 0)
        or coherent.get(s.candidate.id, 0.0) >= COHERENT
    ]
    eligible.sort(key=lambda s: (-(s.score + coherent.get(s.candidate.id, 0.0)), s.candidate.id))
    eligible = eligible[:PARETO_INPUT]
    points = [objectives_of(s, coherent.get(s.candidate.id, 0.0)) for s in eligible]
    ranked = pareto.pool(points, pareto.POOL_FACTOR * k)
    shares = quotas or TYPE_QUOTA
    limits = {t: max(1, math.ceil(share * k)) for t, share in shares.items()}
    picks, suppressed = pareto.pick(
        ranked,
        k,
        score=lambda i: eligible[i].score + coherent.get(eligible[i].candidate.id, 0.0),
        kind=lambda i: eligible[i].candidate.type,
        same=lambda a, b: is_near_duplicate(eligible[a].candidate, eligible[b].candidate, twins),
        quotas=limits,
    )
    places = {
        eligible[r.index].candidate.id: Placed(r.front, r.crowding, r.pooled, points[r.index])
        for r in ranked
    }
    return [eligible[i] for i in picks], suppressed, places


def select_sum(
    scored: Iterable[Scored],
    k: int,
    coherent: dict[int, float],
    twins: frozenset[frozenset[int]] = frozenset(),
) -> tuple[list[Scored], int]:
    """The baseline Pareto selection is measured against: the same candidates, the top ``k``
    by the plain sum of the three objectives."""
    items = list(scored)
    best = max((s.parts.get("relevance", 0.0) for s in items), default=0.0)
    summed = []
    for s in items:
        c = coherent.get(s.candidate.id, 0.0)
        if (best > 0 and s.parts.get("relevance", 0.0) >= RELEVANT_SHARE * best) or c >= COHERENT:
            total = sum(objectives_of(s, c))
            summed.append(Scored(s.candidate, total, s.parts))
    chosen, suppressed = select(summed, k, twins)
    original = {s.candidate.id: s for s in items}
    return [original[s.candidate.id] for s in chosen], suppressed
