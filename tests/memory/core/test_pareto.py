"""Pareto selection: fronts, crowding distance, the pool and the diverse pick."""

import math
import random

from memory.core.pareto import crowding, dominates, fronts, pick, pool


def brute_fronts(points):
    left = set(range(len(points)))
    result = []
    while left:
        front = sorted(i for i in left if not any(dominates(points[j], points[i]) for j in left))
        result.append(front)
        left -= set(front)
    return result


def test_dominance_needs_one_strictly_better_objective():
    assert dominates((0.5, 0.5), (0.5, 0.4))
    assert not dominates((0.5, 0.5), (0.5, 0.5))
    assert not dominates((0.9, 0.1), (0.1, 0.9))


def test_fronts_match_the_definition_on_random_points():
    rng = random.Random(7)
    for _ in range(30):
        points = [
            tuple(round(rng.random(), 1) for _ in range(3)) for _ in range(rng.randint(1, 60))
        ]
        assert fronts(points) == brute_fronts(points)


def test_a_trade_off_is_one_front_and_what_it_beats_comes_after():
    points = [(1.0, 0.0), (0.0, 1.0), (0.5, 0.5), (0.4, 0.4), (0.1, 0.1)]
    assert fronts(points) == [[0, 1, 2], [3], [4]]


def test_crowding_keeps_the_extremes_and_prefers_sparse_regions():
    points = [(0.0, 1.0), (0.1, 0.9), (0.12, 0.88), (0.5, 0.5), (1.0, 0.0)]
    distance = crowding([0, 1, 2, 3, 4], points)
    assert distance[0] == math.inf and distance[4] == math.inf
    assert distance[3] > distance[1] and distance[3] > distance[2]


def test_the_pool_takes_whole_fronts_then_the_last_by_crowding():
    points = [(1.0, 0.0), (0.0, 1.0), (0.6, 0.6), (0.9, 0.0), (0.0, 0.9), (0.5, 0.5), (0.0, 0.0)]
    ranked = pool(points, 4)
    assert [r.front for r in ranked] == [0, 0, 0, 1, 1, 1, 2]
    pooled = {r.index for r in ranked if r.pooled}
    assert {0, 1, 2} <= pooled and len(pooled) == 4
    assert 5 not in pooled  # the middle of the second front is its crowded part


def test_the_pick_goes_front_by_front_without_duplicates_and_with_quotas():
    points = [(1.0, 0.2), (0.2, 1.0), (0.9, 0.1), (0.1, 0.9), (0.5, 0.05)]
    ranked = pool(points, 5)
    kinds = ["A", "A", "A", "B", "B"]
    chosen, suppressed = pick(
        ranked,
        3,
        score=lambda i: points[i][0],
        kind=lambda i: kinds[i],
        same=lambda a, b: {a, b} == {0, 2},
        quotas={"A": 1},
    )
    # front 0 is {0, 1}: 0 first (score), 1 waits (quota A); 2 duplicates 0; 3 fills; then 1
    assert chosen == [0, 3, 4]
    assert suppressed == 1


def test_fronts_of_many_points_stay_quick():
    rng = random.Random(1)
    points = [tuple(rng.random() for _ in range(3)) for _ in range(400)]
    got = fronts(points)
    assert sorted(i for f in got for i in f) == list(range(400))
