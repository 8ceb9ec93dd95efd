"""The rules extractor and the supersession decision, without a database: what people state
becomes facts with the right subject, slot, object, span and date; what they merely mention
does not; and a new value confirms, supersedes, ends or is kept as a past value."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memory.core.knowledge import Action, Known, Stated, decide, entity_key, more_confident
from memory.extraction.rules import extract

SAID = datetime(2024, 3, 14, 12, 0, tzinfo=UTC)  # a Thursday


def read(text: str, speaker: str | None = "Maya") -> list[tuple[str, str, str, bool]]:
    return [
        (f.subject, f.slot, f.object, f.ends)
        for f in extract(text, speaker=speaker, occurred_at=SAID).facts
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I work at Acme Corp as a data engineer.",
         [("Maya", "works_at", "Acme Corp", False), ("Maya", "role", "data engineer", False)]),
        ("I live in Lisbon and I'm allergic to peanuts.",
         [("Maya", "lives_in", "Lisbon", False),
          ("Maya", "allergic_to:peanuts", "peanuts", False)]),
        ("I left Initech and joined Globex.",
         [("Maya", "works_at", "Initech", True), ("Maya", "works_at", "Globex", False)]),
        ("We switched from Jenkins to GitHub Actions.",
         [("Maya", "uses:jenkins", "Jenkins", True),
          ("Maya", "uses:github actions", "GitHub Actions", False)]),
        ("Dana's manager is Priya.", [("Dana", "manager", "Priya", False)]),
        ("I've added 25 new postcards to my collection.",
         [("Maya", "count:postcards", "25 new postcards", False)]),
        ("I lead a team of five engineers now.",
         [("Maya", "count:engineers", "five engineers", False)]),
        ("I've been using my Fitbit Charge 3 for 6 months now.",
         [("Maya", "for:using fitbit charge 3", "6 months", False)]),
        ("I need 5 minutes and I just got back.", []),
        ("Maya's team uses Airflow.", [("Maya", "uses:airflow", "Airflow", False)]),
        ("I don't like cilantro.", [("Maya", "likes:cilantro", "cilantro", True)]),
        ("I prefer tea over coffee.", [("Maya", "prefers:coffee|tea", "tea", False)]),
        ("I've got a dog named Rex.", [("Maya", "owns:dog:rex", "Rex", False)]),
        ("I'm vegan these days.", [("Maya", "is:vegan", "vegan", False)]),
        ("Ana is a night owl.", [("Ana", "is:night owl", "night owl", False)]),
        ("Jonas works at Klarna and lives in Stockholm.",
         [("Jonas", "works_at", "Klarna", False), ("Jonas", "lives_in", "Stockholm", False)]),
        ("I work at Shopify and live in Ottawa.",
         [("Maya", "works_at", "Shopify", False), ("Maya", "lives_in", "Ottawa", False)]),
    ],
)  # fmt: skip
def test_statements_become_facts(text: str, expected: list[tuple[str, str, str, bool]]) -> None:
    assert read(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "Does anyone know who owns the billing service?",
        "I am a bit tired today.",
        "My guess is that it rains.",
        "If you live in Paris, the metro is great.",
        "If I lived in Paris I'd eat croissants every day.",
        "Imagine I worked at NASA, what would my day look like?",
        "Does Sam use Terraform?",
        "I'm not sure if I'm allergic to anything.",
        'Leo said "I love sushi" but I think he was joking.',
        "Everyone loves pizza.",
        "He works at Google.",
        "I am a running joke at work.",
    ],
)
def test_questions_moods_and_hypotheticals_are_not_facts(text: str) -> None:
    assert read(text) == []


def test_first_person_without_a_speaker_is_the_user_and_spans_are_evidence() -> None:
    text = "Sure. I moved to Porto last week, finally."
    found = extract(text, speaker=None, occurred_at=SAID)
    (fact,) = found.facts
    assert (fact.subject, fact.slot, fact.object) == ("user", "lives_in", "Porto")
    assert text[fact.start : fact.end] == "I moved to Porto"
    assert fact.valid_from is not None and fact.valid_from.date().isoformat() == "2024-03-07"


def test_entities_dates_and_money_are_found_with_their_kinds() -> None:
    text = "Email maya@acme.io or ping @maya_ops: Project Falcon's budget is 5000 EUR by June 30."
    found = extract(text, speaker="Leo", occurred_at=SAID)
    kinds = {m.name: m.kind for m in found.mentions}
    assert kinds["maya@acme.io"] == "email" and kinds["@maya_ops"] == "handle"
    assert kinds["Project Falcon"] == "project" and "EUR" not in kinds
    assert [(q.value, q.unit) for q in found.quantities] == [(5000.0, "EUR")]
    assert any(d.at.date().isoformat() == "2024-06-30" for d in found.dates)
    for m in found.mentions:
        assert text[m.start : m.end] == m.name


def test_entity_keys_join_the_ways_a_name_is_written() -> None:
    assert entity_key("Maya's") == entity_key("maya") == "maya"
    assert entity_key("Project Falcon") == entity_key("Falcon") == "falcon"
    assert entity_key("The Hague") != entity_key("Hague Street")


def test_a_new_value_supersedes_the_same_confirms_an_ending_ends_and_late_news_is_past() -> None:
    march = datetime(2024, 3, 1, tzinfo=UTC)
    current = Known("Lisbon", march)
    assert decide(None, Stated("Lisbon", march, ends=False)) is Action.CREATE
    assert decide(current, Stated("lisbon", SAID, ends=False)) is Action.CONFIRM
    assert decide(current, Stated("Porto", SAID, ends=False)) is Action.SUPERSEDE
    assert decide(current, Stated("Lisbon", SAID, ends=True)) is Action.END
    assert decide(current, Stated("Paris", SAID, ends=True)) is Action.RECORD_ENDED
    earlier = datetime(2023, 1, 1, tzinfo=UTC)
    assert decide(current, Stated("Madrid", earlier, ends=False)) is Action.RECORD_PAST
    promoted = Stated("senior data engineer", SAID, ends=False)
    assert decide(Known("data engineer", march), promoted) is Action.SUPERSEDE
    assert more_confident(0.5, 0.5) == 0.75 and more_confident(0.99, 0.99) == 0.99
