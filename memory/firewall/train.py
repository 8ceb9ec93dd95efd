"""Train the learned injection detector (``memory.firewall.learned``): ``make firewall-model``.

Positives: the texts labelled ``injection`` in the sets the rules were built on (bench/data:
tuning, holdout-1 to holdout-9, and the helper-written training sets in 36 languages).
Negatives: every other text of those sets (benign look-alikes, secrets, personal data, ordinary
multilingual notes) and ordinary chat — distinct LongMemEval_S turns, real conversations with
an assistant. Each holdout was measured once before it joined (see bench/firewall.py);
the next one, written blind, is what measures the model. Plain logistic regression by
stochastic gradient descent, classes weighted to balance, a fixed seed: the same data gives
the same weights.
"""

from __future__ import annotations

import argparse
import json
import lzma
import random
from pathlib import Path

import numpy as np

from memory.firewall.learned import BUCKETS, WEIGHTS, features

ROOT = Path(__file__).resolve().parents[2]
SETS = (
    "firewall_labelled.jsonl",
    "firewall_holdout.jsonl",
    "firewall_holdout2.jsonl",
    "firewall_holdout3.jsonl",
    "firewall_holdout4.jsonl",
    "firewall_holdout5.jsonl",
    "firewall_holdout6.jsonl",
    "firewall_holdout7.jsonl",
    "firewall_holdout8.jsonl",
    "firewall_holdout9.jsonl",
    "firewall_train_data.jsonl",
    "firewall_train_injection.jsonl",
    "firewall_train_benign.jsonl",
    "firewall_train_preferences.jsonl",
)
CHAT = ROOT.parent / "shared" / "eval-data" / "longmemeval" / "longmemeval_s_dedup.json.xz"
CHAT_TURNS = 8000  # the first 8,000 of the shuffled turns; the next ones measure false alarms
SEED = 7


def chat_turns() -> list[str]:
    """Distinct LongMemEval_S turns, shuffled with the seed (bench/firewall.py reads past
    ``CHAT_TURNS`` of the same order to count false alarms on turns the model never saw)."""
    with lzma.open(CHAT) as handle:
        sessions = json.load(handle)["sessions"]
    turns = sorted({turn["content"] for sid in sorted(sessions) for turn in sessions[sid]})
    random.Random(SEED).shuffle(turns)
    return turns


def labelled() -> list[tuple[str, int]]:
    out = []
    for name in SETS:
        for line in (ROOT / "bench" / "data" / name).read_text().splitlines():
            if line.strip():
                example = json.loads(line)
                out.append((example["text"], int("injection" in example["families"])))
    return out


def train(
    examples: list[tuple[str, int]], epochs: int = 8, rate: float = 0.5
) -> tuple[np.ndarray, float]:
    rows = [(features(text), label) for text, label in examples]
    positives = sum(label for _, label in rows)
    balance = {1: len(rows) / (2 * positives), 0: len(rows) / (2 * (len(rows) - positives))}
    weights = np.zeros(BUCKETS)
    bias = 0.0
    order = list(range(len(rows)))
    rng = random.Random(SEED)
    for _ in range(epochs):
        rng.shuffle(order)
        for i in order:
            buckets, label = rows[i]
            z = weights[buckets].sum() + bias
            gradient = (1 / (1 + np.exp(-z)) - label) * balance[label]
            weights[buckets] -= rate * (
                gradient / max(1, len(buckets)) ** 0.5 + 1e-6 * weights[buckets]
            )
            bias -= rate * gradient * 0.1
    return weights, bias


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", type=Path, default=WEIGHTS)
    args = parser.parse_args()
    examples = labelled() + [(text, 0) for text in chat_turns()[:CHAT_TURNS]]
    weights, bias = train(examples)
    index = np.flatnonzero(np.abs(weights) >= 1e-3).astype(np.int32)
    np.savez_compressed(
        args.out, index=index, value=weights[index].astype(np.float16), bias=np.float64(bias)
    )
    positives = sum(label for _, label in examples)
    print(f"trained on {len(examples):,} texts ({positives} injections), {len(index):,} weights")
    print(f"wrote {args.out} ({args.out.stat().st_size / 1024:.0f} KiB)")


if __name__ == "__main__":
    main()
