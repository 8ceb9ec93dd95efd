"""Knowledge in recall, on LongMemEval_S: does the *current* value reach the context?

    make bench-knowledge                                    # after the extraction tables
    make bench-knowledge KNOWLEDGE_RECALL_ARGS="--questions 60"

For knowledge-update questions (a value said, then changed: "17 postcards", later "25") and
temporal-reasoning questions, stratified and deterministic (abstention questions, whose answer
is "not enough information", left out): each haystack is ingested as episodes (one per chat
turn, the speaker its role, ``occurred_at`` its session's date) into its own network, extracted
by the rules extractor as the worker would, embedded, and the question is recalled as of its
date — memories only (``facts: false``, the engrams alone) and with facts — at two budgets, and
a guide (≤ 300 tokens) is made for it.

Rows, before (engrams alone) → after (with facts):
* answer in context — the gold answer's numbers all appear (number words count), or, for an
  answer without numbers, two thirds of its content words do;
* evidence in context — a gold turn is among the memories packed (``context_ids``), or a fact
  packed was stated by one;
* latest evidence in context — the *last* gold turn (for a knowledge update, the one stating
  the current value) is packed, or a packed fact was stated by it. The answer row cannot see a
  yes/no answer ("Did I finish …?" → "Yes": the word is in no memory), this row can;
* guide: answer in the guide, and its largest size in tokens.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from longmemeval import DATA, load, parse_date, pick, turns_of  # noqa: E402
from recall import migrate  # noqa: E402

TYPES = ("knowledge-update", "temporal-reasoning")
BUDGETS = (300, 2000)
NUMBER = re.compile(r"\d+(?:\.\d+)?")
NUMBER_WORDS = {
    w: str(i)
    for i, w in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve".split()
    )
}


def numbers_in(text: str) -> set[str]:
    found = set(NUMBER.findall(text.replace(",", "")))
    words = re.findall(r"[a-z]+", text.lower())
    return found | {NUMBER_WORDS[w] for w in words if w in NUMBER_WORDS}


def answer_in(answer: str, text: str, lemmas: Any) -> bool:
    """The answer's numbers all in ``text``; without numbers, 2/3 of its content words."""
    if not text:
        return False
    wanted = numbers_in(answer)
    if wanted:
        return wanted <= numbers_in(text)
    words = set(lemmas(answer))
    return bool(words) and len(words & set(lemmas(text))) >= 2 / 3 * len(words)


def ingest(tenant: Any, question: dict, sessions: dict) -> tuple[str, dict[str, int], float]:
    """The haystack as episodes, extracted and embedded: the network key, the engram id of
    each turn (by session#index), and the seconds extraction took."""
    from audit.actors import Actor
    from memory.contracts import MAX_CONTENT_CHARS
    from memory.contracts.knowledge import EpisodeIn
    from memory.models import Episode, Network
    from memory.services.embedding import embed_missing
    from memory.services.episodes import episodes_ingest
    from memory.services.extraction import job_run
    from tenants import rls

    key = f"lmk:{question['question_id']}".lower()
    turns = turns_of(question, sessions)
    actor = Actor.system("bench-knowledge")
    took = 0.0
    with rls.tenant_scope(tenant.pk):
        for start in range(0, len(turns), 500):
            batch = [
                EpisodeIn(
                    kind="message",
                    content=t["content"].split(": ", 1)[1][:MAX_CONTENT_CHARS] or "…",
                    speaker=t["role"],
                    occurred_at=t["date"],
                    external_id=f"{t['session']}#{t['index']}",
                )
                for t in turns[start : start + 500]
            ]
            done = episodes_ingest(tenant=tenant, actor=actor, network_key=key, items=batch)
            started = time.perf_counter()
            job_run(tenant_id=tenant.pk, job_id=done.job.pk)
            took += time.perf_counter() - started
        network = Network.objects.get(tenant=tenant, key=key)
        ids = dict(
            Episode.objects.filter(tenant=tenant, network=network).values_list(
                "external_id", "engram_id"
            )
        )
        embed_missing(
            tenant_id=tenant.pk, network_id=network.pk, engram_ids=[i for i in ids.values() if i]
        )
    return key, ids, took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--questions", type=int, default=30)
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument(
        "--workspace", default="lmk", help="tenant slug (a new one reads the haystacks again)"
    )
    args = parser.parse_args()
    if not DATA.exists():
        print("(no LongMemEval data: knowledge in recall skipped)")
        return
    migrate()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from audit.actors import Actor
    from memory.core.text import content_lemmas
    from memory.firewall import FAMILIES
    from memory.services.guide import network_guide
    from memory.services.recall import RecallOptions, network_recall
    from tenants import rls
    from tenants.models import Tenant, User
    from tenants.services import tenant_create, user_create

    data = load(DATA)
    pool = [
        q
        for q in data["questions"]
        if q["question_type"] in TYPES and not q["question_id"].endswith("_abs")
    ]
    questions = pick(pool, args.questions, args.seed)
    owner = User.objects.filter(email="lmk@mnemo.local").first() or user_create(
        email="lmk@mnemo.local", password="knowledge-bench-only"
    )
    tenant = Tenant.objects.filter(slug=args.workspace).first()
    if tenant is None:
        with rls.tenant_scope(0):
            tenant = tenant_create(name="LongMemEval knowledge", slug=args.workspace, owner=owner)
    tenant.settings = {
        **tenant.settings,
        "moderation": {"firewall": dict.fromkeys(FAMILIES, "allow")},
    }
    tenant.save(update_fields=["settings"])
    actor = Actor.system("bench-knowledge")
    hits: dict[tuple[str, str], list[float]] = defaultdict(list)
    guide_tokens: list[int] = []
    episodes = 0
    extraction_s = 0.0
    started = time.perf_counter()
    print(f"Knowledge in recall: {len(questions)} LongMemEval_S questions {', '.join(TYPES)}")
    for number, question in enumerate(questions, 1):
        key, ids, took = ingest(tenant, question, data["sessions"])
        episodes += len(ids)
        extraction_s += took
        golden = [
            (t["date"], ids[f"{t['session']}#{t['index']}"])
            for t in turns_of(question, data["sessions"])
            if t["gold"] and ids.get(f"{t['session']}#{t['index']}")
        ]
        gold = {engram for _, engram in golden}
        latest = max(golden)[1] if golden else None
        kind = question["question_type"]
        now = parse_date(question["question_date"])
        answer = str(question["answer"])
        with rls.tenant_scope(tenant.pk):
            for budget in BUDGETS:
                for facts in (False, True):
                    mind = network_recall(
                        tenant=tenant,
                        actor=actor,
                        network_key=key,
                        query=question["question"],
                        options=RecallOptions(
                            k=10, token_budget=budget, now=now, record=False, facts=facts
                        ),
                    )
                    said = set(mind.context_ids) | {
                        e for f in mind.facts if f.id in mind.context_fact_ids for e in f.evidence
                    }
                    variant = f"{budget} tokens, {'facts' if facts else 'engrams'}"
                    hits[(kind, f"answer · {variant}")].append(
                        answer_in(answer, mind.context, content_lemmas)
                    )
                    hits[(kind, f"evidence · {variant}")].append(bool(gold & said))
                    stated = set(mind.context_ids) | {
                        e for f in mind.facts if f.id in mind.context_fact_ids for e in f.said_by
                    }
                    hits[(kind, f"latest evidence · {variant}")].append(latest in stated)
            _, guide, _, _ = network_guide(
                tenant=tenant,
                actor=actor,
                network_key=key,
                task=question["question"],
                token_budget=300,
                record=False,
            )
        guide_tokens.append(guide.tokens)
        hits[(kind, "answer · guide")].append(answer_in(answer, guide.text, content_lemmas))
        if number % 5 == 0:
            print(f"  {number}/{len(questions)} ({time.perf_counter() - started:.0f} s)")
    print(f"\n{'question type':<20}{'row':<37}{'engrams':>9}{'facts':>8}{'gain':>8}")
    for kind in TYPES:
        count = len(hits[(kind, "answer · guide")])
        for measure in ("answer", "evidence", "latest evidence"):
            for budget in BUDGETS:
                before = hits[(kind, f"{measure} · {budget} tokens, engrams")]
                after = hits[(kind, f"{measure} · {budget} tokens, facts")]
                if not before:
                    continue
                b, a = sum(before) / len(before), sum(after) / len(after)
                row = f"{measure} in context, {budget} tok"
                print(f"{kind:<20}{row:<37}{b:>9.3f}{a:>8.3f}{(a - b) * 100:>+7.1f}p")
        guided = hits[(kind, "answer · guide")]
        if guided:
            print(f"{kind:<20}{'answer in guide (≤300 tok)':<37}{'':>9}{sum(guided) / count:>8.3f}")
    print(
        f"\nguide tokens: max {max(guide_tokens, default=0)}, mean "
        f"{sum(guide_tokens) / max(len(guide_tokens), 1):.0f}"
    )
    if extraction_s > 1:  # the haystacks were read in this run (a rerun finds them read)
        print(
            f"extraction in the job, with the database: {episodes / extraction_s:,.0f} "
            f"episodes/s ({episodes:,} episodes)"
        )


if __name__ == "__main__":
    main()
