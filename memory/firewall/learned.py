"""A learned injection detector: logistic regression over hashed word n-grams, character
n-grams of scripts written without spaces, and the injection concepts of ``lexicon``.

The rules in ``injection`` name the shapes someone has already seen; each new writer of attacks
finds phrasings they miss (on a set written by a writer who never saw them, the rules found 48%
of the injections). This model reads every word, pair and triple of words (and, for Chinese,
Japanese, Korean and Thai, character pairs and triples), each hashed into one of 2^18 weights,
and the
concepts the text holds and their pairs ("addressed to an AI" with "keep it from the user"),
which carry what it learned from one language into the others. A quotation that the text only
talks about is one placeholder word (``quotes.neutralise``). It learns from the labelled sets
the rules were built on, the helper-written multilingual sets, *and* thousands of ordinary chat
turns as negatives (so it learns what people normally write to an assistant).
It reports the whole text, with the model's probability as the confidence, when that is at
least ``FLOOR``. ``memory/firewall/train.py`` trains it (``make firewall-model``); the held-out
set it never saw is measured by ``make bench-firewall``.
"""

from __future__ import annotations

import math
import re
import zlib
from functools import cache
from itertools import pairwise
from pathlib import Path

import numpy as np

from memory.firewall.hits import Hit
from memory.firewall.lexicon import concepts
from memory.firewall.quotes import neutralise

FAMILY = "injection"
DETECTOR = "learned_injection"
BUCKETS = 1 << 18
FLOOR = 0.8  # chosen on the training side: ~0.06% of ordinary chat turns above it
MAX_CHARS = 4000
WEIGHTS = Path(__file__).with_name("injection_weights.npz")
WORD = re.compile(r"[^\W_]+(?:'[^\W_]+)?|[^\w\s]")
# scripts written without spaces between words: Japanese kana, CJK ideographs, Hangul, Thai
UNSPACED = re.compile("[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\u0e00-\u0e7f]+")


Found = dict[str, list[tuple[int, int]]]


def features(text: str, found: Found | None = None) -> list[int]:
    """The buckets of the text's lower-cased words, word pairs and word triples, the character
    pairs and triples of its unspaced scripts, and its concepts and concept pairs (each once);
    ``found``: the concepts of ``text`` when the caller has them (used when nothing in the
    text was neutralised)."""
    original = text
    text = neutralise(text[:MAX_CHARS])
    if found is None or text != original:
        found = concepts(text)
    lowered = text.lower()
    words = WORD.findall(lowered)
    grams = set(words)
    grams.update(f"{a} {b}" for a, b in pairwise(words))
    grams.update(f"{a} {b} {c}" for a, b, c in zip(words, words[1:], words[2:], strict=False))
    for run in UNSPACED.findall(lowered):
        for n in (2, 3):
            grams.update("#" + run[i : i + n] for i in range(len(run) - n + 1))
    names = sorted(found)
    grams.update("\u00a7" + name for name in names)
    grams.update(f"\u00a7{a}+{b}" for i, a in enumerate(names) for b in names[i + 1 :])
    return [zlib.crc32(gram.encode("utf-8", "surrogatepass")) % BUCKETS for gram in grams]


@cache
def model() -> tuple[np.ndarray, float] | None:
    """(weights, bias), or None when the weights file is absent (the detector is then off)."""
    if not WEIGHTS.exists():
        return None
    with np.load(WEIGHTS) as data:
        weights = np.zeros(BUCKETS, dtype=np.float32)
        weights[data["index"]] = data["value"].astype(np.float32)
        return weights, float(data["bias"])


def probability(text: str, found: Found | None = None) -> float:
    loaded = model()
    if loaded is None or not text.strip():
        return 0.0
    weights, bias = loaded
    buckets = features(text, found)
    z = float(weights[buckets].sum()) + bias if buckets else bias
    return 1.0 / (1.0 + math.exp(-max(-50.0, min(50.0, z))))


def scan(text: str, found: Found | None = None) -> list[Hit]:
    p = probability(text, found)
    if p < FLOOR:
        return []
    start = len(text) - len(text.lstrip())
    end = len(text.rstrip())
    return [Hit(DETECTOR, FAMILY, start, max(start, end), round(p, 4))]
