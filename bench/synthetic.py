"""A synthetic but realistic memory corpus: topics with their own vocabulary, people, products,
places, numbers and dates, Zipf-distributed so some concepts are hubs and most are rare.

Deterministic for a given seed, so runs compare like with like.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

SYLLABLES = [
    "ka",
    "lo",
    "mi",
    "ra",
    "te",
    "zu",
    "no",
    "shi",
    "va",
    "dre",
    "pol",
    "qui",
    "sen",
    "tor",
    "bel",
    "fa",
    "gri",
    "hum",
    "jor",
    "lex",
    "mor",
    "nix",
    "oph",
    "pra",
]
FIRST = [
    "Ada",
    "Grace",
    "Linus",
    "Ken",
    "Barbara",
    "Edsger",
    "Alan",
    "Margaret",
    "Dennis",
    "Frances",
    "Donald",
    "Radia",
    "Whitfield",
    "Shafi",
    "Leslie",
    "Tim",
    "Sophie",
    "Yukihiro",
]
TEMPLATES = [
    "{person} prefers {a} over {b} when working on {c}",
    "The {a} service depends on {b} and fails without {c}",
    "{person} decided to move {a} to {place} on {date}",
    "To fix {a}: restart {b}, clear the {c} cache, then check {d}",
    "{product} version {number} changed how {a} handles {b}",
    "Meeting with {person} about {a}: agreed to ship {b} before {date}",
    "{a} is measured in {b}; the limit is {number} per {c}",
    "{person} owns the {a} runbook and the {b} dashboards in {place}",
    "Customers in {place} report slow {a} when {b} is enabled",
    "The {a} pipeline: ingest {b}, validate {c}, publish {d}",
]


def _word(rng: random.Random) -> str:
    return "".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 3)))


@dataclass
class Corpus:
    topics: list[list[str]]
    people: list[str]
    products: list[str]
    places: list[str]
    rng: random.Random

    def zipf_topic(self) -> list[str]:
        rank = min(int(self.rng.paretovariate(1.1)), len(self.topics)) - 1
        return self.topics[rank]

    def engram(self, index: int) -> dict[str, object]:
        terms = self.zipf_topic()
        pick = self.rng.sample(terms, 4)
        text = self.rng.choice(TEMPLATES).format(
            person=self.rng.choice(self.people),
            product=self.rng.choice(self.products),
            place=self.rng.choice(self.places),
            a=pick[0],
            b=pick[1],
            c=pick[2],
            d=pick[3],
            number=self.rng.randint(2, 9999),
            date=f"2026-{self.rng.randint(1, 12):02d}-{self.rng.randint(1, 28):02d}",
        )
        kind = self.rng.choices(["ATOMIC", "LINK", "PATTERN"], weights=[6, 3, 1])[0]
        return {
            "content": text,
            "type": kind,
            "strength": round(self.rng.uniform(0.2, 1.0), 2),
            "importance": round(self.rng.uniform(0.1, 1.0), 2),
            "external_id": f"syn-{index}",
        }

    def query_for(self, engram: dict[str, object]) -> str:
        """A query an agent might send for this memory: 2-3 of its content words."""
        words = [
            w
            for w in str(engram["content"]).replace(":", " ").replace(";", " ").split()
            if len(w) > 3
            and w[0].islower()
            and w not in {"when", "then", "with", "about", "before", "over", "without"}
        ]
        chosen = self.rng.sample(words, min(len(words), self.rng.randint(2, 3)))
        return " ".join(chosen)


def corpus(seed: int = 7, topics: int = 400, terms_per_topic: int = 25) -> Corpus:
    rng = random.Random(seed)
    vocabulary: set[str] = set()
    topic_terms: list[list[str]] = []
    for _ in range(topics):
        terms: list[str] = []
        while len(terms) < terms_per_topic:
            word = _word(rng)
            if word not in vocabulary:
                vocabulary.add(word)
                terms.append(word)
        topic_terms.append(terms)
    people = [f"{rng.choice(FIRST)} {_word(rng).title()}" for _ in range(300)]
    products = [
        _word(rng).title() + rng.choice(["DB", "Cloud", "Kit", "Hub", "OS"]) for _ in range(80)
    ]
    places = [_word(rng).title() for _ in range(60)]
    return Corpus(topic_terms, people, products, places, rng)
