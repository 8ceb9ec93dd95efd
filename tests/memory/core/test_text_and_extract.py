"""The rules extractor and text helpers, without a database."""

from __future__ import annotations

import pytest

from memory.core.extract import extract_schema
from memory.core.text import content_lemmas, estimate_tokens, lemma, words


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("ports", "port"),
        ("Redis", "redis"),
        ("companies", "company"),
        ("running", "run"),
        ("deployed", "deploy"),
        ("Alice's", "alice"),
        ("classes", "class"),
    ],
)
def test_inflected_forms_share_a_lemma(a: str, b: str) -> None:
    assert lemma(a) == lemma(b)


@pytest.mark.parametrize("word", ["bus", "analysis", "class", "status", "gas"])
def test_words_ending_in_s_that_are_not_plurals_keep_their_s(word: str) -> None:
    assert lemma(word).endswith("s")


def test_query_words_drop_stop_words() -> None:
    assert content_lemmas("What is the default port of Redis?") == ["default", "port", "redis"]


def test_cjk_text_becomes_bigrams_without_function_characters() -> None:
    assert words("认知模型的训练") == ["认知", "知模", "模型", "训练"]


def test_token_estimates_grow_with_text_and_count_punctuation() -> None:
    assert estimate_tokens("") == 0
    assert estimate_tokens("hello") == 1
    assert estimate_tokens("hello, world!") == 4
    short, long = "a memory", "a memory " * 50
    assert estimate_tokens(long) > 40 * estimate_tokens(short) / 2


def test_the_schema_keeps_names_numbers_and_identifiers_in_order() -> None:
    schema = extract_schema(
        "The deploy script reads docker_compose.yml and ran on 2024-05-03 for Acme Corp."
    )
    assert (
        schema.index("docker_compose.yml") < schema.index("2024-05-03") < schema.index("Acme Corp")
    )
    assert "The" not in schema and "and" not in schema


def test_the_schema_drops_stop_words_and_keeps_facts() -> None:
    assert extract_schema("Redis listens on port 6379 by default.") == [
        "Redis",
        "listens",
        "port",
        "6379",
        "default",
    ]


def test_each_concept_appears_once_and_the_schema_is_bounded() -> None:
    text = " ".join(f"term{i} alpha" for i in range(40))
    schema = extract_schema(text, max_cues=8)
    assert len(schema) == 8
    assert len({lemma(word) for word in schema}) == 8


def test_a_sentence_opening_word_is_not_taken_for_a_name() -> None:
    assert extract_schema("Yesterday we met Grace Hopper.")[-1] == "Grace Hopper"
    assert "Yesterday" in extract_schema("Yesterday we met Grace Hopper.")  # as a term


def test_empty_and_filler_text_give_an_empty_schema() -> None:
    assert extract_schema("") == []
    assert extract_schema("it is what it is") == []
