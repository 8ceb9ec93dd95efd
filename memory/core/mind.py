"""What a recall returns: the activated part of the network and the memories it points to."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime


@dataclass(frozen=True)
class ActivatedCue:
    id: int
    word: str
    energy: float
    depth: int  # 0 for a seed (a query word's cue), n for n hops away
    parent: int | None = None  # the cue it was reached from, for paths
    seed_via: str = ""  # exact | alias | fuzzy | semantic | prime | hub (seeds only)


@dataclass(frozen=True)
class Connection:
    source: int
    target: int
    weight: float
    kind: str


@dataclass(frozen=True)
class Why:
    channels: tuple[str, ...]  # text | vector | activation
    path: tuple[str, ...]  # cue words from a seed to this memory's best cue
    parts: dict[str, float]
    led_by: str = ""  # the strongest evidence: text | vector | direct | associative
    front: int | None = None  # its Pareto front (0 best), when selected that way
    crowding: float | None = None  # its crowding distance in that front (inf: an extreme)


@dataclass(frozen=True)
class RankedEngram:
    id: int
    external_id: str | None
    type: str
    content: str
    metadata: dict[str, object]
    score: float
    token_count: int
    why: Why


@dataclass(frozen=True)
class KnownFact:
    """A fact recall found through the memories that said it: the slot's current value, or
    (for a question about the past) a value it held before."""

    id: int
    subject: str
    predicate: str
    object: str
    status: str  # current | superseded
    valid_from: datetime | None
    valid_to: datetime | None
    confidence: float
    score: float  # the best score of a memory that said a value of its slot
    evidence: tuple[int, ...] = ()  # engram ids among the candidates that said its slot
    said_by: tuple[int, ...] = ()  # the engrams that stated this value (its own evidence)


@dataclass(frozen=True)
class KnownSkill:
    """A skill recall found: by its goal's and steps' words, or through the steps' memories."""

    id: int
    goal: str
    steps: tuple[str, ...]
    preconditions: tuple[str, ...] = ()
    pitfalls: tuple[str, ...] = ()
    placeholders: tuple[tuple[str, str], ...] = ()  # (name, a literal one run used)
    successes: int = 0
    failures: int = 0
    version: int = 1
    score: float = 0.0
    evidence: tuple[int, ...] = ()  # found engrams it was learned from


@dataclass(frozen=True)
class OpenTask:
    """An open task at session start: where the work stands."""

    id: int
    key: str
    goal: str
    steps: int
    last: tuple[str, ...] = ()  # its latest steps, as remembered


@dataclass(frozen=True)
class Objective:
    """One candidate on the three objectives, for the playground's picture."""

    id: int
    relevance: float
    salience: float
    coherence: float
    front: int
    chosen: bool


@dataclass
class Mind:
    network: str
    query: str | None
    mode: str
    cues: list[ActivatedCue] = field(default_factory=list)
    connections: list[Connection] = field(default_factory=list)
    engrams: list[RankedEngram] = field(default_factory=list)
    context: str = ""
    context_tokens: int = 0
    context_ids: tuple[int, ...] = ()  # the engrams the context holds, within the budget
    facts: list[KnownFact] = field(default_factory=list)
    context_fact_ids: tuple[int, ...] = ()  # the facts the context holds
    skills: list[KnownSkill] = field(default_factory=list)
    context_skill_ids: tuple[int, ...] = ()  # the skills the context holds
    suppressed: int = 0  # near-duplicates left out
    took_ms: float = 0.0
    notice: str = ""  # said when the network holds no memories
    intent: str = ""  # the query's intent ("" for none)
    intent_via: str = ""  # forced | rules | prototype | llm | none
    intent_confidence: float = 0.0
    selection: str = "score"  # how the engrams were picked: pareto | sum | score
    task: str = ""  # the task the recall was scoped to (its key)
    objectives: list[Objective] = field(default_factory=list)  # the sorted candidates
    open_tasks: list[OpenTask] = field(default_factory=list)  # prime: work in progress
