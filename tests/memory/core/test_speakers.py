"""Whose words a question asks about (memory.core.speakers)."""

from __future__ import annotations

import pytest

from memory.core.speakers import meant


@pytest.mark.parametrize(
    ("question", "agent", "user"),
    [
        ("What was the dish you recommended I try with snapper?", True, False),
        ("You mentioned a few companies earlier; which ones?", True, False),
        ("Which music did you recommend to me on April 27th?", True, False),
        ("What was your advice about the landlord?", True, False),
        ("I recommended a science fiction movie before, what was it?", False, True),
        ("Do you remember what I said about the museum?", False, True),
        ("I told you about my trip and you suggested a hotel. Which?", True, True),
        # asking for something new points back at nobody
        ("Can you recommend a show for me to watch tonight?", False, False),
        ("Could you suggest some accessories for my phone?", False, False),
        ("When did we deploy the billing service?", False, False),
    ],
)
def test_who_a_question_asks_about(question: str, agent: bool, user: bool) -> None:
    asked = meant(question)
    assert (asked.agent, asked.user) == (agent, user)


def test_the_sides_labels_and_named_people() -> None:
    asked = meant("What did you recommend for Maya's birthday?")
    assert asked.points_at("assistant") and asked.points_at("AI")
    assert not asked.points_at("user")
    assert asked.points_at("Maya") and asked.points_at("maya chen")
    assert not asked.points_at("John") and not asked.points_at(None) and not asked.points_at("")
    mine = meant("What did I tell you about John?")
    assert mine.points_at("user") and mine.points_at("John") and not mine.points_at("assistant")
