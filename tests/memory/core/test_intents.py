"""Intents: the rules route what they are sure of, a tenant's own intents join or change the
vocabulary, units are tagged by their text, and a client's names are cleaned."""

import math

from memory.core.intents import (
    DEFAULTS,
    LLM_MIN,
    IntentDef,
    by_llm,
    by_prototypes,
    by_rules,
    clean_names,
    keyword_rules,
    profile_of,
    tag,
    unit,
    vocabulary,
)


def test_rules_route_what_they_are_sure_of_and_abstain_otherwise():
    assert by_rules("how do I rotate the signing key", DEFAULTS).intent == "procedure"
    assert by_rules("when did we move to Postgres", DEFAULTS).intent == "temporal"
    assert by_rules("the deploy keeps timing out with a 504", DEFAULTS).intent == "debugging"
    assert by_rules("where did we leave off on the migration", DEFAULTS).intent == "status"
    unsure = by_rules("bananas", DEFAULTS)
    assert unsure.intent == "" and unsure.via == "none"


def test_a_language_models_answer_routes_only_when_it_is_sure_enough():
    sure = by_llm("debugging", 0.9)
    assert (sure.intent, sure.via, sure.confidence) == ("debugging", "llm", 0.9)
    assert by_llm("debugging", LLM_MIN - 0.01).intent == ""
    none = by_llm("", 1.0)
    assert (none.intent, none.via, none.scores) == ("", "none", ())


def test_a_tenants_intent_joins_and_a_default_can_be_changed_or_disabled():
    legal = IntentDef("contract", "contract terms", keyword_rules(["clause", "indemnity"]))
    mine = vocabulary([legal], disabled=["planning"])
    names = [d.name for d in mine]
    assert "contract" in names and "planning" not in names
    assert by_rules("which indemnity clause applies", mine).intent == "contract"
    changed = vocabulary([IntentDef("status", "", keyword_rules(["burndown"]))])
    status = next(d for d in changed if d.name == "status")
    assert by_rules("show the burndown", changed).intent == "status"
    assert status.profile == profile_of("status", DEFAULTS)  # the default's effects stay


def test_prototypes_pick_the_nearest_examples_and_abstain_on_a_tie():
    examples = {"fact": [(1.0, 0.0)], "temporal": [(0.0, 1.0)]}
    assert by_prototypes((0.9, 0.1), examples).intent == "fact"
    assert by_prototypes((0.5, 0.5), examples).intent == ""  # no margin, no answer
    assert by_prototypes((9.0, 1.0), examples).intent == "fact"  # the query's length is not asked
    assert by_prototypes((9.0, 1.0), examples).confidence == round(9 / math.hypot(9, 1), 3)
    assert unit((3.0, 4.0)) == (0.6, 0.8) and unit((0.0, 0.0)) == (0.0, 0.0)


def test_units_are_tagged_by_their_text_and_client_names_cleaned():
    assert "preference" in tag("Maya prefers tea over coffee", DEFAULTS)
    assert "debugging" in tag("the import failed with a traceback", DEFAULTS)
    assert tag("the sky", DEFAULTS) == ()
    assert clean_names(["Debugging", "multi-hop", "nonsense", 3], ["debugging", "multi_hop"]) == (
        "debugging",
        "multi_hop",
    )
    assert profile_of("temporal", DEFAULTS).past is True
    assert profile_of("status", DEFAULTS).task_scope is True
