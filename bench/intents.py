"""Intent routing accuracy on a labelled query set (bench/data/intent_queries.jsonl).

    make bench-intents

The set (284 queries, 8 intents) was written apart from the router's rules, with look-alikes
meant to mislead them ("how old is Tom" is a fact, "when should we ship" is planning). Each
query is routed three ways — the rules alone, the prototypes alone (nearest mean embedding of
an intent's examples), and the router as recall runs it (rules when they are sure, else the
prototypes, else none) — and accuracy is printed per intent, with how often the router
abstains. The set is split by line into halves, printed apart: rules were reviewed against
the even lines only, so the odd lines are the honest estimate.
"""

from __future__ import annotations

import json
import os
from collections import Counter, defaultdict
from pathlib import Path

DATA = Path(__file__).resolve().parent / "data" / "intent_queries.jsonl"


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from memory.core.intents import DEFAULTS, by_prototypes, by_rules
    from memory.embeddings import embed_query
    from memory.services.intents import prototypes_of

    rows = [json.loads(line) for line in DATA.read_text().splitlines() if line.strip()]
    prototypes = prototypes_of(DEFAULTS)
    names = [d.name for d in DEFAULTS]
    right: dict[tuple[str, str, str], int] = Counter()
    seen: dict[tuple[str, str], int] = Counter()
    abstained: dict[tuple[str, str], int] = Counter()
    confused: dict[str, Counter[str]] = defaultdict(Counter)
    for number, row in enumerate(rows):
        half = "tuned" if number % 2 == 0 else "held out"
        gold = row["intent"]
        ruled = by_rules(row["query"], DEFAULTS)
        near = by_prototypes(embed_query(row["query"], 0), prototypes) if prototypes else ruled
        routed = ruled if ruled.intent else near
        seen[(half, gold)] += 1
        for way, got in (("rules", ruled), ("prototypes", near), ("router", routed)):
            right[(half, gold, way)] += got.intent == gold
        if not routed.intent:
            abstained[(half, gold)] += 1
        elif routed.intent != gold and half == "held out":
            confused[gold][routed.intent] += 1
    for half in ("tuned", "held out"):
        total = sum(seen[(half, n)] for n in names)
        print(f"\n{half} half: {total} queries — accuracy (abstaining counts as wrong)")
        print(f"{'intent':<12}{'n':>5}{'rules':>9}{'protos':>9}{'router':>9}{'abstain':>9}")
        for name in names:
            n = seen[(half, name)]
            cells = [right[(half, name, way)] / n for way in ("rules", "prototypes", "router")]
            print(
                f"{name:<12}{n:>5}"
                + "".join(f"{c:>9.3f}" for c in cells)
                + f"{abstained[(half, name)] / n:>9.3f}"
            )
        overall = [
            sum(right[(half, n, way)] for n in names) / total
            for way in ("rules", "prototypes", "router")
        ]
        print(f"{'all':<12}{total:>5}" + "".join(f"{c:>9.3f}" for c in overall))
    print("\nheld-out confusions (gold → routed):")
    for gold, wrong in sorted(confused.items()):
        print(f"  {gold:<12}" + ", ".join(f"{k} {v}" for k, v in wrong.most_common(3)))


if __name__ == "__main__":
    main()
