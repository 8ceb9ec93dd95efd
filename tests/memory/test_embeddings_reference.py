"""The local embedder gives the vectors it gave before the lean install (issue 8): the tokenizer
now ships in memory/minilm/ instead of coming from a package that needed torch."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from memory.embeddings import TOKENIZER_FILE, LocalMiniLM

REFERENCE = Path(__file__).resolve().parent / "data" / "minilm_reference.json"


def cosine(a: list[float], b: list[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    return dot / (math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b)))


@pytest.fixture(scope="module")
def reference() -> dict[str, list]:
    return json.loads(REFERENCE.read_text())


def test_the_shipped_tokenizer_gives_the_vectors_of_the_old_install(
    reference: dict[str, list],
) -> None:
    vectors = LocalMiniLM().embed(reference["sentences"])
    assert len(vectors) == len(reference["vectors"]) == 12
    for sentence, got, want in zip(
        reference["sentences"], vectors, reference["vectors"], strict=True
    ):
        assert len(got) == 384
        assert cosine(got, want) >= 0.999, sentence


def test_the_tokenizer_file_is_the_published_one_with_its_licence() -> None:
    import hashlib

    digest = hashlib.sha256(TOKENIZER_FILE.read_bytes()).hexdigest()
    assert digest == "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"
    assert "Apache License" in (TOKENIZER_FILE.parent / "LICENSE").read_text()


def test_no_torch_or_sentence_transformers_is_installed() -> None:
    from importlib.util import find_spec

    assert find_spec("torch") is None
    assert find_spec("sentence_transformers") is None
