"""A fingerprint of what recall returns, to show that a change left retrieval exactly as it was.

    make bench-fingerprint                              # 6 LongMemEval_S questions
    make bench-fingerprint FINGERPRINT_ARGS="--questions 20 --show"

Each run starts from an empty database of its own (``mnemo_fingerprint`` in the bench cluster,
dropped and migrated again: the vector index is one graph for the whole table, so rows left by
other runs would change what an approximate search visits). Each question's haystack is
remembered into a network of its own, embedded with the local model, and the question recalled
with the question's own date as ``now``. The fingerprint is a SHA-256 over every question's ranked
memories (external ids and scores) and packed context size; run it on two commits and compare
the last line. Equal digests mean the same memories in the same order with the same scores.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sys
import time
import uuid

from longmemeval import DATA, load, parse_date, pick, remember_haystack
from recall import fresh_database, migrate


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--questions", type=int, default=6)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--show", action="store_true", help="print each question's top 10")
    args = parser.parse_args()
    fresh_database("mnemo_fingerprint")
    migrate()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from audit.actors import Actor
    from memory.services.recall import RecallOptions, network_recall
    from tenants import rls
    from tenants.services import tenant_create, user_create

    data = load(DATA)
    questions = pick(data["questions"], args.questions, args.seed)
    run = uuid.uuid4().hex[:8]
    owner = user_create(email=f"fingerprint-{run}@mnemo.local", password="recall-digest-bench-only")
    with rls.tenant_scope(0):
        tenant = tenant_create(name="Fingerprint", slug=f"fp-{run}", owner=owner)
    actor = Actor.system("fingerprint")
    digest = hashlib.sha256()
    started = time.perf_counter()
    for question in questions:
        _, _, key = remember_haystack(tenant, question, data["sessions"])
        with rls.tenant_scope(tenant.pk):
            mind = network_recall(
                tenant=tenant,
                actor=actor,
                network_key=key,
                query=question["question"],
                options=RecallOptions(
                    k=50, token_budget=2000, now=parse_date(question["question_date"])
                ),
            )
        ranked = [f"{e.external_id}:{e.score:.4f}" for e in mind.engrams]
        line = f"{question['question_id']}|{mind.context_tokens}|{','.join(ranked)}"
        digest.update(line.encode())
        if args.show:
            print(question["question_id"], ranked[:10])
    elapsed = time.perf_counter() - started
    print(f"{len(questions)} questions in {elapsed:,.0f} s")
    print(f"recall fingerprint: {digest.hexdigest()}")


if __name__ == "__main__":
    sys.exit(main())
