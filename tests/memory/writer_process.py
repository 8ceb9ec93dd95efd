"""A separate OS process that remembers, for the concurrency and persistence tests.

``python -m tests.memory.writer_process remember TENANT N START`` waits until the clock reaches
START (so two processes collide), then remembers N engrams on the same two cues.
``python -m tests.memory.writer_process recall TENANT QUERY`` prints the recalled contents and
the query cue's recall count, as a process that has no memory of its own would see them.
"""

from __future__ import annotations

import json
import os
import sys
import time


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from audit.actors import Actor
    from memory.contracts import engram_items
    from memory.models import Cue
    from memory.services import access
    from memory.services.recall import RecallOptions, network_recall
    from memory.services.remember import engrams_remember
    from tenants import rls
    from tenants.models import Tenant

    command, tenant_id = sys.argv[1], int(sys.argv[2])
    actor = Actor.system(f"process {os.getpid()}")
    if command == "remember":
        count, start = int(sys.argv[3]), float(sys.argv[4])
        while time.time() < start:
            time.sleep(0.001)
        for i in range(count):
            with rls.tenant_scope(tenant_id):
                tenant = Tenant.objects.get(pk=tenant_id)
                engrams_remember(
                    tenant=tenant,
                    actor=actor,
                    network_key="default",
                    source="api",
                    items=engram_items(
                        [{"content": f"{os.getpid()} #{i}", "schema": ["alpha", "beta"]}]
                    ),
                )
    else:
        query = sys.argv[3]
        with rls.tenant_scope(tenant_id):
            tenant = Tenant.objects.get(pk=tenant_id)
            mind = network_recall(
                tenant=tenant,
                actor=actor,
                network_key="default",
                query=query,
                options=RecallOptions(channels=frozenset({"text", "activation"})),
            )
            access.flush()  # the counts noted so far, this process's recall too
            cue = Cue.objects.get(tenant=tenant, lemma=query.lower())
            print(
                json.dumps(
                    {
                        "contents": [e.content for e in mind.engrams],
                        "recall_count": cue.recall_count,
                    }
                )
            )


if __name__ == "__main__":
    main()
