"""Spreading activation on a small in-memory graph."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

import pytest

from memory.core.activation import MODES, Mode, path_to, spread

Graph = dict[int, list[tuple[int, float, str]]]


def run(graph: Graph, seeds: dict[int, float], mode: str | Mode = "balanced") -> dict[int, float]:
    calls: list[list[int]] = []

    def out_edges(ids: list[int], limit: int) -> Mapping[int, list[tuple[int, float, str]]]:
        calls.append(ids)
        return {i: sorted(graph.get(i, []), key=lambda e: -e[1])[:limit] for i in ids}

    chosen = MODES[mode] if isinstance(mode, str) else mode
    result = spread(
        {cid: (f"c{cid}", energy, "exact") for cid, energy in seeds.items()}, out_edges, chosen
    )
    run.calls = calls  # type: ignore[attr-defined]
    run.result = result  # type: ignore[attr-defined]
    return {cid: cue.energy for cid, cue in result.cues.items()}


CHAIN: Graph = {1: [(2, 0.9, "sequence")], 2: [(3, 0.9, "sequence")], 3: [(4, 0.9, "sequence")]}


def test_a_seed_activates_its_neighbours_less_and_less_with_distance() -> None:
    energy = run(CHAIN, {1: 1.0})
    assert energy[1] > energy[2] > energy[3]
    cues = run.result.cues  # type: ignore[attr-defined]
    assert [cues[i].depth for i in (1, 2, 3)] == [0, 1, 2]
    named = {i: replace(cue, word=f"c{i}") for i, cue in cues.items()}
    assert path_to(3, named) == ("c1", "c2", "c3")


def test_one_batched_graph_read_per_layer() -> None:
    run(CHAIN, {1: 1.0})
    assert run.calls[:3] == [[1], [2], [3]]  # type: ignore[attr-defined]


def test_energy_below_the_threshold_stops_spreading() -> None:
    weak = {1: [(2, 0.05, "cooccur")], 2: [(3, 0.9, "sequence")]}
    energy = run(weak, {1: 1.0})
    assert 2 in energy and 3 not in energy


def test_two_centres_light_a_shared_neighbour_more_than_one() -> None:
    graph = {1: [(3, 0.6, "cooccur")], 2: [(3, 0.6, "cooccur")]}
    one = run(graph, {1: 1.0})[3]
    two = run(graph, {1: 1.0, 2: 1.0})[3]
    assert two > one
    assert two <= 1.0


def test_a_hub_shares_its_energy_among_its_many_edges() -> None:
    hub = {1: [(n, 0.9, "cooccur") for n in range(10, 18)]}
    single = {1: [(10, 0.9, "cooccur")]}
    assert run(hub, {1: 1.0})[10] < run(single, {1: 1.0})[10]


def test_focused_reaches_less_than_creative() -> None:
    graph = {i: [(i + 1, 0.5, "sequence"), (i + 100, 0.4, "cooccur")] for i in range(1, 40)}
    assert len(run(graph, {1: 1.0}, "focused")) < len(run(graph, {1: 1.0}, "creative"))


def test_the_number_of_active_cues_is_capped() -> None:
    star = {1: [(n, 0.9, "cooccur") for n in range(2, 500)]}
    mode = Mode(threshold=0.0001, max_edges=500, max_cycles=3, decay=0.9, max_active=50)
    assert len(run(star, {1: 1.0}, mode)) == 50


def test_cycles_in_the_graph_terminate() -> None:
    loop = {1: [(2, 0.9, "sequence")], 2: [(1, 0.9, "sequence")]}
    energy = run(loop, {1: 1.0})
    assert set(energy) == {1, 2}


def test_a_cue_reached_again_passes_on_only_what_it_newly_gained() -> None:
    # 2 is lit from 1 (cycle 1) and again from 3 (cycle 2); its second push to 4 carries only
    # the energy it gained the second time, not all of it again.
    graph = {1: [(2, 0.5, "s"), (3, 0.5, "s")], 3: [(2, 0.5, "s")], 2: [(4, 0.5, "s")]}
    mode = Mode(threshold=0.01, max_edges=8, max_cycles=10, decay=0.9, max_active=50)
    energy = run(graph, {1: 1.0}, mode)
    first = 0.45 * 0.9 * 0.5  # 2's first push to 4
    gained = (1 - (1 - 0.45) * (1 - 0.45 * 0.9 * 0.5)) - 0.45  # what 2 gained from 3
    assert energy[4] == pytest.approx(1 - (1 - first) * (1 - gained * 0.9 * 0.5))
