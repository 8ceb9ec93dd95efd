"""A learned injection detector: logistic regression over hashed word n-grams.

The rules in ``injection`` name the shapes someone has already seen; each new writer of attacks
finds phrasings they miss (on a set written by a writer who never saw them, the rules found 48%
of the injections). This model reads every word, pair and triple of words, each hashed into one
of 2^18 weights, learned from the labelled sets the rules were built on *and* tens of thousands
of ordinary chat turns as negatives (so it learns what people normally write to an assistant).
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

FAMILY = "injection"
DETECTOR = "learned_injection"
BUCKETS = 1 << 18
FLOOR = 0.8  # chosen on the training side: ~0.06% of ordinary chat turns above it
MAX_CHARS = 4000
WEIGHTS = Path(__file__).with_name("injection_weights.npz")
WORD = re.compile(r"[^\W_]+(?:'[^\W_]+)?|[^\w\s]")


def features(text: str) -> list[int]:
    """The buckets of the text's lower-cased words, word pairs and word triples (each once)."""
    words = WORD.findall(text[:MAX_CHARS].lower())
    grams = set(words)
    grams.update(f"{a} {b}" for a, b in pairwise(words))
    grams.update(f"{a} {b} {c}" for a, b, c in zip(words, words[1:], words[2:], strict=False))
    return [zlib.crc32(gram.encode()) % BUCKETS for gram in grams]


@cache
def model() -> tuple[np.ndarray, float] | None:
    """(weights, bias), or None when the weights file is absent (the detector is then off)."""
    if not WEIGHTS.exists():
        return None
    with np.load(WEIGHTS) as data:
        weights = np.zeros(BUCKETS, dtype=np.float32)
        weights[data["index"]] = data["value"].astype(np.float32)
        return weights, float(data["bias"])


def probability(text: str) -> float:
    loaded = model()
    if loaded is None or not text.strip():
        return 0.0
    weights, bias = loaded
    buckets = features(text)
    z = float(weights[buckets].sum()) + bias if buckets else bias
    return 1.0 / (1.0 + math.exp(-max(-50.0, min(50.0, z))))


def scan(text: str) -> list[Hit]:
    p = probability(text)
    if p < FLOOR:
        return []
    start = len(text) - len(text.lstrip())
    end = len(text.rstrip())
    return [Hit(DETECTOR, FAMILY, start, max(start, end), round(p, 4))]
