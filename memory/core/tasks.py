"""A task's steps as a DAG — pure: the text a step is remembered as, which earlier steps a new
one was caused by when the agent did not say (shared entities and identifiers between their
observations and its action), distances on the DAG (coherence), and the causal ancestry walked
back from a step (trace).

Links are directed cause → effect and always point forward in recording order, so the graph
stays acyclic whatever an agent sends.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

INFERRED_MAX = 2  # inferred causes per step, at most
IDENTIFIER = re.compile(
    r"\b[A-Z][A-Z0-9]{1,9}-\d+\b"  # tickets
    r"|\b[\w.\-]+\.(?:csv|json|ya?ml|toml|txt|log|py|js|ts|sql|conf|ini|lock)\b"  # files
    r"|(?:~|\.{1,2})?/[\w.\-/]{3,}"  # paths
    r"|\bhttps?://[^\s'\"<>)]+"  # urls
    r"|\b[a-z]+[_-][a-z0-9_-]{2,}\b"  # snake or kebab identifiers
    r"|\b[A-Z][a-z]+[A-Z]\w+\b"  # CamelCase
    r"|\b[A-Z]{2,}[A-Z0-9_]*\b"  # ERRORS, ENV_VARS
    r"|\b\d{3,}\b"  # codes, ports, counts
)


@dataclass(frozen=True)
class StepView:
    """What inference reads of a step."""

    key: str
    index: int
    action: str
    observation: str = ""
    entities: tuple[str, ...] = ()
    outcome: str = ""


@dataclass(frozen=True)
class Cause:
    key: str  # the earlier step
    reason: str


def step_text(action: str, observation: str = "", outcome: str = "", action_type: str = "") -> str:
    """A step as one memory: the action, then what was observed, then how it went."""
    lead = f"({action_type}) " if action_type else ""  # not [..]: a bracketed tag reads as a marker
    text = f"{lead}{action.strip()}"
    if observation.strip():
        text += f" → {observation.strip()}"
    if outcome:
        text += f" ({outcome})"
    return text


def marks(text: str, entities: Iterable[str] = ()) -> set[str]:
    """What can tie two steps together: named entities (as given) and identifiers in the
    text (tickets, files, paths, URLs, codes, CONSTANTS, snake_case), lower-cased."""
    found = {e.strip().lower() for e in entities if e.strip()}
    found |= {m.group(0).lower().rstrip(".,;:") for m in IDENTIFIER.finditer(text)}
    return {f for f in found if len(f) >= 3}


def inferred_causes(new: StepView, earlier: Sequence[StepView]) -> list[Cause]:
    """Earlier steps whose *observation* (or entities) holds what the new step's action or
    entities use: the most recent ones first, each mark credited to its latest producer."""
    wanted = marks(new.action, new.entities)
    if not wanted:
        return []
    credited: dict[str, list[str]] = {}
    for step in sorted(earlier, key=lambda s: -s.index):
        if step.index >= new.index:
            continue
        produced = marks(step.observation, step.entities)
        shared = sorted((wanted & produced) - {m for ms in credited.values() for m in ms})
        if shared:
            credited[step.key] = shared
        if len(credited) >= INFERRED_MAX:
            break
    return [
        Cause(key, "shares " + ", ".join(repr(m) for m in shared[:3]))
        for key, shared in credited.items()
    ]


@dataclass
class Dag:
    """A task's steps and links: ``parent`` and ``causes`` by step id."""

    parent: dict[int, int | None] = field(default_factory=dict)
    causes: dict[int, set[int]] = field(default_factory=dict)

    def neighbours(self) -> dict[int, set[int]]:
        near: dict[int, set[int]] = {s: set() for s in self.parent}
        for step, parent in self.parent.items():
            if parent is not None and parent in near:
                near[step].add(parent)
                near[parent].add(step)
        for effect, causes in self.causes.items():
            for cause in causes:
                near.setdefault(effect, set()).add(cause)
                near.setdefault(cause, set()).add(effect)
        return near


def distances(
    neighbours: Mapping[int, Iterable[int]], sources: Iterable[int], limit: int = 12
) -> dict[int, int]:
    """Hops from the nearest of ``sources`` to every step reachable within ``limit``."""
    seen: dict[int, int] = {}
    queue: deque[int] = deque()
    for source in sources:
        if source in neighbours and source not in seen:
            seen[source] = 0
            queue.append(source)
    while queue:
        node = queue.popleft()
        if seen[node] >= limit:
            continue
        for other in neighbours.get(node, ()):
            if other not in seen:
                seen[other] = seen[node] + 1
                queue.append(other)
    return seen


def closeness(hops: int | None) -> float:
    """Coherence from graph distance: 1 at the active step, 1/2 one hop away, ... 0 unreached."""
    return 0.0 if hops is None else 1.0 / (1.0 + hops)


def ancestry(dag: Dag, start: int, limit: int = 50) -> list[tuple[int, int, str, int]]:
    """The steps that led to ``start``, walked back along causes and parents: (step, hops,
    how: "caused" | "parent", the step it led to), nearest first, each once."""
    found: dict[int, tuple[int, str, int]] = {}
    queue: deque[tuple[int, int]] = deque([(start, 0)])
    while queue and len(found) < limit:
        node, hops = queue.popleft()
        back = [(c, "caused") for c in sorted(dag.causes.get(node, ()))]
        parent = dag.parent.get(node)
        if parent is not None:
            back.append((parent, "parent"))
        for other, how in back:
            if other != start and other not in found:
                found[other] = (hops + 1, how, node)
                queue.append((other, hops + 1))
    return sorted(
        ((s, h, how, child) for s, (h, how, child) in found.items()), key=lambda t: (t[1], t[0])
    )


@dataclass(frozen=True)
class Node:
    kind: str
    id: int
    label: str
    depth: int
    via: str
    parent: str | None


@dataclass
class Trace:
    unit: str
    label: str
    nodes: list[Node] = field(default_factory=list)

    def summary(self) -> str:
        lines = []
        for node in self.nodes[:12]:
            lines.append(f"{node.parent} ← {node.via} ← {node.kind}:{node.id} ({node.label})")
        return "\n".join(lines) if lines else f"{self.unit} was written directly: no provenance"


@dataclass(frozen=True)
class Standing:
    """A line of where a task stands, for the guide: the text and the step's engram."""

    text: str
    engram: int | None


def standing(steps: Sequence[StepView], engrams: Mapping[str, int | None], dag: Dag,
             ids: Mapping[str, int], limit: int = 2) -> list[Standing]:  # fmt: skip
    """Where the work stands, from its DAG: the latest failures, each with the later step that
    succeeded downstream of it (its fix) or "not fixed yet", then the latest step."""
    if not steps:
        return []
    by_id = {ids[s.key]: s for s in steps}
    ordered = sorted(steps, key=lambda s: s.index)
    out: list[Standing] = []
    failures = [s for s in ordered if s.outcome == "failure"][-limit:]
    wins = [s for s in ordered if s.outcome == "success"]
    causes = {s.key: [a for a, _, _, _ in ancestry(dag, ids[s.key])] for s in wins}
    for failed in failures:
        fix = next(
            (w for w in wins if w.index > failed.index and ids[failed.key] in causes[w.key]),
            None,
        )
        seen = f" → {failed.observation}" if failed.observation else ""
        text = f"step {failed.key} failed: {failed.action}{seen}"
        if fix is not None:
            path = [by_id[a].key for a in causes[fix.key] if a in by_id]
            between = [k for k in path if by_id[ids[k]].index > failed.index][:3]
            via = f" (after {', '.join(sorted(between, key=lambda k: by_id[ids[k]].index))})"
            text += f"; fixed by step {fix.key}: {fix.action}" + (via if between else "")
        else:
            text += "; not fixed yet"
        out.append(Standing(text, engrams.get(failed.key)))
    last = ordered[-1]
    told = f" → {last.observation}" if last.observation else ""
    done = f" ({last.outcome})" if last.outcome else ""
    out.append(
        Standing(f"latest step {last.key}: {last.action}{told}{done}", engrams.get(last.key))
    )
    return out
