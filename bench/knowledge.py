"""Knowledge extraction: fact precision and recall on a labelled sample, and throughput.

    make bench-knowledge                          # the tables
    make bench-knowledge KNOWLEDGE_ARGS=--errors  # and every miss and wrong fact

The sample (bench/data/knowledge_facts.jsonl, built by knowledge_facts_build.py) was written
and labelled by a helper who never saw the extractor: chat-like statements with the facts a
careful reader takes from them (subject, slot, object, whether it ends the slot), and look-alikes
with none (questions, hypotheticals, moods, other people's hearsay). A predicted fact is right
when a labelled one has its subject (by entity key: "Maya's" is Maya), its slot family
("uses", "works_at", an attribute's name), its object (the same words, or one containing the
other: "GitHub Actions" for "Actions") and its ``ends``. Recall counts labelled facts found.

Throughput: the rules extractor alone over LongMemEval_S chat turns (distinct, shuffled;
episodes a second, one core), beside the concept extractor every remember already runs on the
same turns: the baseline the same machine gives in the same run. Then the LLM extractor's own
cost — the real client, its request, the answer's checks — against a scripted OpenAI-compatible
server on loopback that answers at once (a real provider adds its own seconds per call; this row
says what Mnemo adds to them), four calls at once as extraction makes them.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from memory.core.extract import extract_schema  # noqa: E402
from memory.core.knowledge import entity_key, value_key  # noqa: E402
from memory.extraction import llm  # noqa: E402
from memory.extraction.rules import extract  # noqa: E402
from memory.firewall.train import CHAT, chat_turns  # noqa: E402
from tests.scripted_llm import scripted_llm  # noqa: E402

SAMPLE = ROOT / "bench" / "data" / "knowledge_facts.jsonl"


def family(slot: str) -> str:
    return slot.split(":", 1)[0].strip().lower()


def same_object(a: str, b: str) -> bool:
    left, right = value_key(a), value_key(b)
    return bool(left and right) and (left == right or left in right or right in left)


def matches(pred: dict[str, object], gold: dict[str, object]) -> bool:
    return (
        entity_key(str(pred["subject"])) == entity_key(str(gold["subject"]))
        and family(str(pred["slot"])) == family(str(gold["slot"]))
        and same_object(str(pred["object"]), str(gold["object"]))
        and bool(pred["ends"]) == bool(gold["ends"])
    )


def evaluate(rows: list[dict[str, object]], show: bool) -> None:
    right, predicted, found, labelled = Counter(), Counter(), Counter(), Counter()
    for row in rows:
        said = datetime.fromisoformat(str(row["occurred_at"]))
        speaker = row.get("speaker")
        facts = extract(
            str(row["text"]), speaker=str(speaker) if speaker else None, occurred_at=said
        ).facts
        preds = [
            {"subject": f.subject, "slot": f.slot, "object": f.object, "ends": f.ends}
            for f in facts
        ]
        golds: list[dict[str, object]] = list(row["facts"])  # type: ignore[arg-type]
        for pred in preds:
            fam = family(str(pred["slot"]))
            predicted[fam] += 1
            if any(matches(pred, gold) for gold in golds):
                right[fam] += 1
            elif show:
                print(f"  wrong  {pred}  <- {row['text']!r}")
        for gold in golds:
            fam = family(str(gold["slot"]))
            labelled[fam] += 1
            if any(matches(pred, gold) for pred in preds):
                found[fam] += 1
            elif show:
                print(f"  missed {gold}  <- {row['text']!r}")
    families = sorted(set(predicted) | set(labelled), key=lambda f: -labelled[f])
    named = [f for f in families if labelled[f] >= 3 or predicted[f] >= 3]
    print(
        f"\nFact extraction on {len(rows)} labelled statements "
        f"({sum(labelled.values())} facts, {sum(1 for r in rows if not r['facts'])} with none)"
    )
    print(f"{'family':<14}{'labelled':>9}{'predicted':>10}{'precision':>10}{'recall':>8}")
    other = Counter()
    for fam in families:
        if fam not in named:
            other["l"] += labelled[fam]
            other["p"] += predicted[fam]
            other["r"] += right[fam]
            other["f"] += found[fam]
            continue
        print(_row(fam, labelled[fam], predicted[fam], right[fam], found[fam]))
    if other["l"] or other["p"]:
        print(_row("(attributes)", other["l"], other["p"], other["r"], other["f"]))
    print(
        _row(
            "all",
            sum(labelled.values()),
            sum(predicted.values()),
            sum(right.values()),
            sum(found.values()),
        )
    )


def _row(name: str, labelled: int, predicted: int, right: int, found: int) -> str:
    precision = f"{right / predicted:.3f}" if predicted else "-"
    recall = f"{found / labelled:.3f}" if labelled else "-"
    return f"{name:<14}{labelled:>9}{predicted:>10}{precision:>10}{recall:>8}"


def throughput(limit: int, llm_turns: int) -> None:
    if not CHAT.exists():
        print("\n(no LongMemEval data: throughput skipped)")
        return
    turns = [t[:2000] for t in chat_turns()[:limit]]
    said = datetime(2023, 5, 20, tzinfo=UTC)
    print(f"\nThroughput on {len(turns):,} LongMemEval_S chat turns (one core)")
    timings = {}
    for name, work in (
        ("concepts (remember's own)", extract_schema),
        ("rules extractor", lambda t: extract(t, speaker="user", occurred_at=said)),
    ):
        started = time.perf_counter()
        facts = 0
        for text in turns:
            out = work(text)
            facts += len(getattr(out, "facts", ()))
        timings[name] = time.perf_counter() - started
        extra = f", {facts:,} facts" if facts else ""
        print(f"  {name:<28}{len(turns) / timings[name]:>9,.0f} episodes/s{extra}")
    ratio = timings["rules extractor"] / timings["concepts (remember's own)"]
    print(f"  rules / concepts time: {ratio:.2f}x")
    scripted = turns[:llm_turns]
    with scripted_llm() as (url, script):
        script.reply = quoting_reply
        provider = llm.Provider(url, "scripted", "sk-bench")
        started = time.perf_counter()
        with ThreadPoolExecutor(max_workers=4) as pool:
            found = list(
                pool.map(
                    lambda t: llm.extract(provider, t, speaker="user", occurred_at=said)[0],
                    scripted,
                )
            )
        took = time.perf_counter() - started
    facts = sum(len(f.facts) for f in found)
    print(
        f"  {'LLM extractor, scripted':<28}{len(scripted) / took:>9,.0f} episodes/s, "
        f"{facts:,} facts ({len(scripted):,} turns; a provider's own latency comes on top)"
    )


def quoting_reply(said: str) -> dict[str, object]:
    """The scripted provider's answer: the message's first clause as a fact about the speaker
    (a quote the client finds, so the checks run in full)."""
    text = said.split("<message>\n", 1)[-1].rsplit("\n</message>", 1)[0]
    quote = text.split(".")[0][:120].strip() or text[:120]
    return {
        "entities": [],
        "facts": [
            {
                "subject": "I",
                "predicate": "says",
                "object": quote[:40] or "it",
                "slot": "says",
                "quote": quote,
                "confidence": 0.7,
                "valid_from": None,
                "ends": False,
            }
        ],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--errors", action="store_true", help="print every miss and wrong fact")
    parser.add_argument("--turns", type=int, default=5000, help="chat turns for throughput")
    parser.add_argument("--llm-turns", type=int, default=1000, help="turns the scripted LLM reads")
    args = parser.parse_args()
    rows = [json.loads(line) for line in SAMPLE.read_text().splitlines() if line.strip()]
    evaluate(rows, args.errors)
    throughput(args.turns, args.llm_turns)


if __name__ == "__main__":
    main()
