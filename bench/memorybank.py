"""Retrieval quality on MemoryBank: Mnemo's recall against BM25, dense and hybrid retrieval.

    make bench-memorybank                         # MEMORYBANK_ARGS="--ablation" adds channels

MemoryBank (Zhong et al. 2023) holds 15 users' chats with an AI companion over ten days or so and
100 probing questions, without gold evidence. The gold is ``bench/data/memorybank_gold.json``:
for each question, the turn pairs (date, index) that hold its answer, labelled by reading each
user's history (its ``about`` says how). Each user's history is remembered message by message
(the user's turns as "<name>: …", the companion's as "AI: …", ``occurred_at`` at noon of the day)
into a network of its own, then each question is asked as of the day after the last one.

Metrics over the 100 questions, each method ranking the same messages:

* pair recall@k — share of the gold pairs with a message among the top k;
* MRR — 1 / rank of the first message of a gold pair (0 beyond 50).

Questions whose gold is empty (not answerable from the history) are left out and counted.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import defaultdict
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))  # bench/ scripts import each other
from longmemeval import BM25, reuse_vectors, rrf
from recall import migrate

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "eval-data" / "memorybank" / "memory_bank_en.json"
GOLD = ROOT / "bench" / "data" / "memorybank_gold.json"


def messages_of(user: str, history: dict[str, list[dict[str, str]]]) -> list[dict[str, Any]]:
    out = []
    for day in sorted(history):
        when = datetime.fromisoformat(day).replace(hour=12, tzinfo=UTC)
        for index, pair in enumerate(history[day]):
            for side, speaker, text in (("q", user, pair["query"]), ("r", "AI", pair["response"])):
                if text and text.strip():
                    out.append(
                        {
                            "pair": (day, index),
                            "content": f"{speaker}: {text.strip()}",
                            "external_id": f"{day}#{index}#{side}",
                            "occurred_at": when.isoformat(),
                        }
                    )
    return out


def remember_user(tenant: Any, user: str, messages: list[dict[str, Any]], index: str) -> list[int]:
    from audit.actors import Actor
    from memory.contracts import engram_items
    from memory.services.embedding import embed_missing
    from memory.services.remember import engrams_remember
    from tenants import rls

    items = [
        {k: m[k] for k in ("content", "external_id", "occurred_at")} | {"type": "ATOMIC"}
        for m in messages
    ]
    with rls.tenant_scope(tenant.pk):
        result = engrams_remember(
            tenant=tenant,
            actor=Actor.system("memorybank"),
            network_key=f"mb{index}:{user}".lower(),
            source="import",
            items=engram_items(items),
        )
        ids = [o.id for o in result.outcomes]
        reuse_vectors(tenant.pk, result.network.pk)
        embed_missing(tenant_id=tenant.pk, network_id=result.network.pk, engram_ids=ids)
    return ids


def scores(ranked: list[int], messages: list[dict[str, Any]], gold: set[tuple]) -> dict:
    out: dict[str, float] = {}
    for k in (5, 10):
        found = {messages[i]["pair"] for i in ranked[:k]} & gold
        out[f"pair recall@{k}"] = len(found) / len(gold)
    out["MRR"] = next(
        (1 / rank for rank, i in enumerate(ranked[:50], 1) if messages[i]["pair"] in gold), 0.0
    )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--index", default="", help="build name: a new one remembers again")
    parser.add_argument("--ablation", action="store_true", help="each channel left out, alone")
    parser.add_argument("--gold", type=Path, default=GOLD, help="the labelled evidence")
    args = parser.parse_args()
    migrate()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    import numpy as np

    from audit.actors import Actor
    from memory.core.text import content_lemmas
    from memory.embeddings import embed_query
    from memory.firewall import FAMILIES
    from memory.models import Engram
    from memory.services.recall import RecallOptions, network_recall
    from tenants import rls
    from tenants.models import Tenant, User
    from tenants.services import tenant_create, user_create

    # some names in the bank's keys carry stray spaces (" Jason "); the gold's do not
    users = {name.strip(): value for name, value in json.loads(DATA.read_text()).items()}
    gold = json.loads(args.gold.read_text())["questions"]
    owner = User.objects.filter(email="mb@mnemo.local").first() or user_create(
        email="mb@mnemo.local", password="memorybank-bench-only"
    )
    tenant = Tenant.objects.filter(slug="memorybank").first()
    if tenant is None:
        with rls.tenant_scope(0):
            tenant = tenant_create(name="MemoryBank", slug="memorybank", owner=owner)
    # retrieval quality, not moderation: nothing in the chats is held or queued
    tenant.settings = {
        **tenant.settings,
        "moderation": {"firewall": dict.fromkeys(FAMILIES, "allow")},
    }
    tenant.save(update_fields=["settings"])
    every = frozenset({"text", "vector", "activation"})
    variants = {"mnemo": every}
    if args.ablation:
        for channel in sorted(every):
            variants[f"-{channel}"] = every - {channel}
            variants[f"{channel} only"] = frozenset({channel})
    totals: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    built: dict[str, tuple[list[dict[str, Any]], list[int], dict[int, Any]]] = {}
    skipped = 0
    started = time.perf_counter()
    for number, item in enumerate(gold, 1):
        user = item["user"]
        pairs = {(e["date"], e["index"]) for e in item["evidence"]}
        if not pairs:
            skipped += 1
            continue
        if user not in built:
            messages = messages_of(user, users[user]["history"])
            ids = remember_user(tenant, user, messages, args.index)
            with rls.tenant_scope(tenant.pk):
                vectors = dict(
                    Engram.objects.filter(tenant=tenant, pk__in=ids).values_list("id", "embedding")
                )
            built[user] = (messages, ids, vectors)
        messages, ids, vectors = built[user]
        index_of = {engram_id: i for i, engram_id in enumerate(ids)}
        last_day = max(users[user]["history"])
        now = datetime.fromisoformat(last_day).replace(tzinfo=UTC) + timedelta(days=1, hours=12)
        ranked: dict[str, list[int]] = {}
        for method, channels in variants.items():
            with rls.tenant_scope(tenant.pk):
                mind = network_recall(
                    tenant=tenant,
                    actor=Actor.system("memorybank"),
                    network_key=f"mb{args.index}:{user}".lower(),
                    query=item["question"],
                    options=RecallOptions(
                        k=50, token_budget=100_000, now=now, record=False, channels=channels
                    ),
                )
            ranked[method] = [index_of[e.id] for e in mind.engrams]
        bm25 = BM25([content_lemmas(m["content"]) for m in messages])
        lexical = bm25.scores(content_lemmas(item["question"]))
        ranked["bm25"] = sorted(range(len(messages)), key=lambda i: -lexical[i])[:50]
        q = np.array(embed_query(item["question"]))
        sims = np.array([vectors[engram_id] for engram_id in ids]) @ q
        ranked["dense"] = [int(i) for i in np.argsort(-sims)[:50]]
        ranked["hybrid"] = rrf([ranked["bm25"], ranked["dense"]])[:50]
        for method, order in ranked.items():
            for name, value in scores(order, messages, pairs).items():
                totals[method][name].append(value)
        elapsed = time.perf_counter() - started
        print(f"  {number}/{len(gold)} questions, {elapsed:,.0f} s", end="\r", flush=True)
    print()
    asked = len(gold) - skipped
    print(f"\nMemoryBank, {asked} questions with gold evidence ({skipped} not answerable)\n")
    names = list(next(iter(totals.values())))
    print(f"{'method':<16}" + "".join(f"{n:>16}" for n in names))
    for method in [*variants, "bm25", "dense", "hybrid"]:
        row = totals[method]
        print(f"{method:<16}" + "".join(f"{sum(row[n]) / len(row[n]):>16.3f}" for n in names))


if __name__ == "__main__":
    sys.exit(main())
