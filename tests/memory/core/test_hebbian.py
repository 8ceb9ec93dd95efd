from __future__ import annotations

import pytest

from memory.core.hebbian import (
    ETA_COOCCUR,
    ETA_SEQUENCE,
    base_level_activation,
    decay,
    edge_uses,
    reinforce,
)


def test_reinforcement_moves_toward_one_and_never_reaches_it() -> None:
    w = 0.0
    for _ in range(50):
        w = reinforce(w, 0.3)
    assert 0.99 < w < 1.0


def test_k_reinforcements_at_once_equal_k_one_at_a_time() -> None:
    step = 0.2
    for _ in range(5):
        step = reinforce(step, 0.3)
    assert reinforce(0.2, 0.3, times=5) == pytest.approx(step)


def test_bad_learning_rates_are_refused() -> None:
    with pytest.raises(ValueError):
        reinforce(0.5, 1.5)


def test_decay_halves_after_a_half_life() -> None:
    assert decay(0.8, idle_days=45, half_life_days=45) == pytest.approx(0.4)
    assert decay(0.8, idle_days=-3) == 0.8


def test_a_schema_gives_forward_sequence_and_two_way_cooccurrence() -> None:
    uses = {(u.source, u.target, u.kind): u for u in edge_uses([["a", "b", "c"]], window=3)}
    assert set(uses) == {
        ("a", "b", "sequence"),
        ("b", "c", "sequence"),
        ("b", "a", "cooccur"),
        ("c", "b", "cooccur"),
        ("a", "c", "cooccur"),
        ("c", "a", "cooccur"),
    }
    assert uses[("a", "b", "sequence")].eta == ETA_SEQUENCE
    assert uses[("a", "c", "cooccur")].eta == ETA_COOCCUR


def test_the_same_pair_in_two_engrams_counts_twice_but_once_within_one() -> None:
    uses = edge_uses([["a", "b", "a", "b"], ["a", "b"]])
    sequence = next(u for u in uses if (u.source, u.target, u.kind) == ("a", "b", "sequence"))
    assert sequence.times == 2


def test_uses_come_sorted_so_writers_lock_rows_in_one_order() -> None:
    uses = edge_uses([["z", "y", "x"], ["b", "a"]])
    keys = [(u.source, u.target, u.kind) for u in uses]
    assert keys == sorted(keys)


def test_base_level_activation_favours_frequent_and_recent() -> None:
    assert base_level_activation(10, 1) > base_level_activation(1, 1)
    assert base_level_activation(3, 0.5) > base_level_activation(3, 30)
