from __future__ import annotations

from datetime import UTC, datetime, timedelta

from memory.core.mind import KnownFact
from memory.core.packing import Packable, pack
from memory.core.ranking import Candidate, led_by, score, select
from memory.core.text import estimate_tokens

NOW = datetime(2026, 6, 1, tzinfo=UTC)


def cand(i: int, kind: str = "ATOMIC", **kw: object) -> Candidate:
    base: dict[str, object] = dict(
        id=i,
        type=kind,
        strength=0.5,
        importance=0.5,
        happened_at=NOW - timedelta(days=1),
        last_access_at=None,
        access_count=0,
        token_count=10,
        lemmas=frozenset({f"w{i}", "x"}),
        text=0.5,
    )
    base.update(kw)
    return Candidate(**base)  # type: ignore[arg-type]


def test_more_relevant_scores_higher_and_unrelated_scores_zero() -> None:
    assert (
        score(cand(1, text=0.9), mode="balanced", now=NOW).score
        > score(cand(2, text=0.3), mode="balanced", now=NOW).score
    )
    assert score(cand(3, text=0.0), mode="balanced", now=NOW).score == 0


def test_patterns_outrank_links_outrank_atoms_at_equal_relevance() -> None:
    scores = [
        score(cand(i, kind), mode="balanced", now=NOW).score
        for i, kind in enumerate(["PATTERN", "LINK", "ATOMIC"])
    ]
    assert scores[0] > scores[1] > scores[2]


def test_recent_strong_and_often_used_memories_rank_higher() -> None:
    old = score(cand(1, happened_at=NOW - timedelta(days=400)), mode="balanced", now=NOW)
    new = score(cand(2), mode="balanced", now=NOW)
    assert new.score > old.score
    weak = score(cand(3, strength=0.1), mode="balanced", now=NOW)
    strong = score(cand(4, strength=0.9), mode="balanced", now=NOW)
    assert strong.score > weak.score
    used = score(cand(5, access_count=20, last_access_at=NOW), mode="balanced", now=NOW)
    assert used.score > new.score


def test_association_far_from_the_query_counts_less() -> None:
    near = score(cand(1, text=0, associative=0.6, depth=1), mode="balanced", now=NOW)
    far = score(cand(2, text=0, associative=0.6, depth=4), mode="balanced", now=NOW)
    assert near.score > far.score > 0


def test_direct_evidence_outranks_mere_association() -> None:
    direct = score(cand(1, text=0, direct=0.6), mode="balanced", now=NOW)
    associated = score(cand(2, text=0, associative=0.6, depth=1), mode="balanced", now=NOW)
    assert direct.score > associated.score
    creative = score(cand(3, text=0, associative=0.6, depth=1), mode="creative", now=NOW)
    assert creative.score > associated.score


def test_score_parts_explain_the_score() -> None:
    parts = score(cand(1, text=0.7, vector=0.4), mode="balanced", now=NOW).parts
    assert {"relevance", "text", "direct", "vector", "associative", "type", "salience"} <= set(
        parts
    )


def test_near_duplicates_are_suppressed_and_counted() -> None:
    same = frozenset({"redis", "port", "6379"})
    items = [
        score(cand(i, lemmas=same, text=0.9 - i / 10), mode="balanced", now=NOW) for i in range(3)
    ]
    chosen, suppressed = select(items, k=3)
    assert [s.candidate.id for s in chosen] == [0] and suppressed == 2


def test_type_quotas_limit_one_type_but_never_leave_slots_empty() -> None:
    atoms = [score(cand(i, "ATOMIC", text=0.9), mode="balanced", now=NOW) for i in range(10)]
    links = [score(cand(i, "LINK", text=0.2), mode="balanced", now=NOW) for i in range(10, 13)]
    chosen, _ = select(atoms + links, k=10)
    assert sum(1 for s in chosen if s.candidate.type == "LINK") == 3  # quota made room
    only_atoms, _ = select(atoms, k=10)
    assert len(only_atoms) == 10  # and filled up when nothing else was there


def test_packing_never_exceeds_the_budget_and_reports_the_real_count() -> None:
    items = [Packable(i, "ATOMIC", f"memory number {i} " * 5, 1.0 - i / 100, 30) for i in range(50)]
    for budget in (0, 10, 50, 200, 1000):
        packed = pack(items, budget)
        assert packed.tokens <= budget
        assert packed.tokens == estimate_tokens(packed.text)


def test_packing_keeps_rank_order_and_skips_what_does_not_fit() -> None:
    """The best memory goes in even when it is long (trading it for several short weak ones
    dropped 171 of 1,218 gold hits); a memory too long for what is left is skipped."""
    big = Packable(1, "PATTERN", "long " * 40, 0.9, 40)
    too_big = Packable(2, "PATTERN", "huge " * 500, 0.8, 500)
    small = [Packable(i, "ATOMIC", f"fact {i}", 0.5, 3) for i in range(3, 7)]
    packed = pack([big, too_big, *small], budget=150)
    assert packed.ids == (1, 3, 4, 5, 6)


def test_packing_leaves_out_padding_under_the_relevance_floor() -> None:
    items = [Packable(1, "ATOMIC", "strong", 0.8, 2), Packable(2, "ATOMIC", "weak", 0.03, 2)]
    assert pack(items, budget=100).ids == (1,)
    assert pack([Packable(3, "ATOMIC", "faint", 0.04, 2)], budget=100).ids == ()


def test_items_held_back_by_a_quota_are_still_deduplicated() -> None:
    same = frozenset({"deploy", "steps", "tag"})
    patterns = [
        score(
            cand(i, "PATTERN", lemmas=same if i >= 4 else frozenset({f"p{i}"}), text=0.9 - i / 100),
            mode="balanced",
            now=NOW,
        )
        for i in range(8)
    ]
    chosen, suppressed = select(patterns, k=10)
    duplicates = [s for s in chosen if s.candidate.lemmas == same]
    assert len(duplicates) == 1 and suppressed == 3


def test_why_names_the_channel_that_led() -> None:
    by_text = score(cand(1, text=0.9, vector=0.3), mode="balanced", now=NOW)
    by_vector = score(cand(2, text=0.1, vector=0.8), mode="balanced", now=NOW)
    assert led_by(by_text.parts) == "text" and led_by(by_vector.parts) == "vector"
    assert led_by(score(cand(3, text=0.0), mode="balanced", now=NOW).parts) == ""


def _fact(fid: int, subject: str, said_by: tuple[int, ...], score: float = 0.8) -> KnownFact:
    return KnownFact(
        id=fid,
        subject=subject,
        predicate="lives in",
        object=f"Town{fid}",
        status="current",
        valid_from=datetime(2024, 2, 24, tzinfo=UTC),
        valid_to=None,
        confidence=0.9,
        score=score,
        said_by=said_by,
    )


def test_facts_lead_the_context_only_when_they_say_what_the_packed_memories_do_not() -> None:
    memories = [
        Packable(i, "ATOMIC", f"memory {i} " + "word " * 30, 1 - i / 10, 40) for i in range(1, 5)
    ]
    new = _fact(7, "Maya", said_by=(99,))  # stated by a memory that ranked nowhere
    repeated = _fact(8, "Maya", said_by=(1,))  # stated by the best memory, packed anyway
    packed = pack(memories, 400, [new, repeated])
    assert packed.fact_ids == (7,)
    assert packed.text.index("[facts of Maya] lives in: Town7, since 2024-02-24 (fact #7)") < (
        packed.text.index("[atomic #1]")
    )
    assert packed.ids == (1, 2, 3, 4) and packed.tokens <= 400
    # a tight budget: the weakest memories make room, the best stays, the count holds
    tight = pack(memories, 130, [new])
    assert tight.fact_ids == (7,) and tight.ids[0] == 1 and 4 not in tight.ids
    assert tight.tokens <= 130
