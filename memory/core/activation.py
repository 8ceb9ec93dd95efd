"""Multi-centre spreading activation over the cue graph (phase 1 of recall).

PromptX spreads from a single keyword and stops when that word is not a cue. Here every query cue
(exact, fuzzy or semantic match, or primed) is a centre with its own starting energy; energy flows
along out-edges layer by layer, so a whole layer costs one batched graph read. A cue passes on
``energy · decay · w / max(1, Σw)`` to each neighbour — fan-normalised so hubs do not flood the
network — and incoming energies combine as a noisy-or, keeping every energy in [0, 1].
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from memory.core.mind import ActivatedCue, Connection

# (cue ids, max edges per cue) -> {cue id: [(target id, weight, kind), ...] strongest first}
OutEdges = Callable[[list[int], int], Mapping[int, list[tuple[int, float, str]]]]


@dataclass(frozen=True)
class Mode:
    threshold: float  # a cue spreads only if it gained at least this much energy
    max_edges: int  # strongest out-edges followed per cue
    max_cycles: int
    decay: float  # energy kept per hop
    max_active: int  # cap on activated cues


MODES: dict[str, Mode] = {
    "focused": Mode(threshold=0.2, max_edges=4, max_cycles=4, decay=0.6, max_active=60),
    "balanced": Mode(threshold=0.1, max_edges=8, max_cycles=10, decay=0.75, max_active=150),
    "creative": Mode(threshold=0.05, max_edges=16, max_cycles=14, decay=0.85, max_active=300),
}


@dataclass
class Activation:
    cues: dict[int, ActivatedCue]
    connections: list[Connection]
    cycles: int


def _combine(old: float, new: float) -> float:
    return 1.0 - (1.0 - old) * (1.0 - new)


def spread(
    seeds: Mapping[int, tuple[str, float, str]],
    out_edges: OutEdges,
    mode: Mode,
) -> Activation:
    """Spread from ``seeds`` ({cue id: (word, energy, how matched)}) and return what lit up.

    Cues reached by spreading have no word yet (""): the caller names them in one lookup.
    """
    cues: dict[int, ActivatedCue] = {
        cid: ActivatedCue(cid, word, min(max(energy, 0.0), 1.0), 0, None, via)
        for cid, (word, energy, via) in seeds.items()
    }
    connections: list[Connection] = []
    sent: dict[int, float] = {}  # energy each cue has already passed on
    frontier = [cid for cid, cue in cues.items() if cue.energy >= mode.threshold]
    cycles = 0
    while frontier and cycles < mode.max_cycles and len(cues) < mode.max_active:
        cycles += 1
        edges = out_edges(frontier, mode.max_edges)
        gained: dict[int, tuple[float, int]] = {}  # target -> (energy gained, best parent)
        for source in frontier:
            out = edges.get(source, [])[: mode.max_edges]
            total = max(1.0, sum(weight for _, weight, _ in out))
            fresh = cues[source].energy - sent.get(source, 0.0)  # only what it newly gained
            sent[source] = cues[source].energy
            for target, weight, kind in out:
                push = fresh * mode.decay * weight / total
                if push <= 0:
                    continue
                connections.append(Connection(source, target, weight, kind))
                before, parent = gained.get(target, (0.0, source))
                best_parent = source if push > before else parent
                gained[target] = (_combine(before, push), best_parent)
        frontier = []
        for target, (push, parent) in sorted(gained.items(), key=lambda kv: -kv[1][0]):
            current = cues.get(target)
            if current is None:
                if len(cues) >= mode.max_active:
                    continue
                cues[target] = ActivatedCue(target, "", push, cues[parent].depth + 1, parent)
                if push >= mode.threshold:
                    frontier.append(target)
            else:
                energy = _combine(current.energy, push)
                if energy - current.energy >= mode.threshold:
                    frontier.append(target)
                cues[target] = ActivatedCue(
                    target, current.word, energy, current.depth, current.parent, current.seed_via
                )
    return Activation(cues=cues, connections=_dedup(connections), cycles=cycles)


def _dedup(connections: list[Connection]) -> list[Connection]:
    seen: dict[tuple[int, int, str], Connection] = {}
    for connection in connections:
        seen.setdefault((connection.source, connection.target, connection.kind), connection)
    return list(seen.values())


def path_to(cue_id: int, cues: Mapping[int, ActivatedCue]) -> tuple[str, ...]:
    """Cue words from the seed that reached ``cue_id`` to it."""
    path: list[str] = []
    current: int | None = cue_id
    guard = 0
    while current is not None and current in cues and guard < 64:
        path.append(cues[current].word)
        current = cues[current].parent
        guard += 1
    return tuple(reversed(path))
