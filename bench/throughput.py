"""Recall throughput at many clients against a bare pgvector KNN through a connection pool.

Used by ``make bench`` (bench/recall.py) on its largest network; side by side in one run:

* **mnemo** — ``python -m config.serve`` (one worker per core, as ``make run`` serves), N
  asyncio clients in a closed loop, each posting a full recall (every channel, query embedded
  by the server) and sending the next when the answer came;
* **bare KNN** — the same query vectors embedded beforehand, N threads each drawing a
  connection from a psycopg pool and running the cosine KNN on the same table, tenant and
  network (row-level security settings set once per connection): what Postgres and pgvector do
  with no service around them.

Client, server and Postgres share the machine's cores, as they do in every bench here.
"""

from __future__ import annotations

import asyncio
import os
import threading
import time
from pathlib import Path

import httpx2

ROOT = Path(__file__).resolve().parents[1]


async def _mnemo(base: str, key: str, queries: list[str], clients: int, seconds: float) -> dict:
    done, errors, latencies = 0, 0, []
    limits = httpx2.Limits(max_connections=clients, max_keepalive_connections=clients)
    async with httpx2.AsyncClient(
        base_url=base, headers={"Authorization": f"Bearer {key}"}, timeout=60, limits=limits
    ) as http:

        async def agent(offset: int, until: float, count: bool) -> None:
            nonlocal done, errors
            i = offset
            while time.perf_counter() < until:
                started = time.perf_counter()
                response = await http.post(
                    "/api/v1/recall", json={"query": queries[i % len(queries)], "k": 10}
                )
                i += clients
                if not count:
                    continue
                if response.status_code == 200:
                    done += 1
                    latencies.append((time.perf_counter() - started) * 1000)
                else:
                    errors += 1

        warm = time.perf_counter() + 3  # connections opened, caches and pools filled
        await asyncio.gather(*(agent(i, warm, False) for i in range(clients)))
        started = time.perf_counter()
        await asyncio.gather(*(agent(i, started + seconds, True) for i in range(clients)))
        wall = time.perf_counter() - started
    latencies.sort()
    p95 = latencies[int(0.95 * (len(latencies) - 1))] if latencies else 0.0
    return {"per_s": done / wall, "errors": errors, "p95_ms": p95}


def mnemo_throughput(port: int, key: str, queries: list[str], clients: int, seconds: float) -> dict:
    from load import start  # the server as make run starts it, rate limits lifted

    server = start(port, workers=0)
    try:
        return asyncio.run(_mnemo(f"http://127.0.0.1:{port}", key, queries, clients, seconds))
    finally:
        server.terminate()
        server.wait(timeout=30)


def bare_knn_throughput(
    tenant_slug: str, network_key: str, queries: list[str], clients: int, seconds: float
) -> dict:
    """The KNN alone, as fast as this machine serves it to ``clients`` threads."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    import psycopg
    from django.conf import settings
    from psycopg_pool import ConnectionPool

    from memory.embeddings import query_vector
    from memory.models import Network
    from tenants import rls
    from tenants.models import Tenant

    tenant = Tenant.objects.get(slug=tenant_slug)
    with rls.tenant_scope(tenant.pk):
        network = Network.objects.get(tenant=tenant, key=network_key)
    vectors = [query_vector(q, tenant.pk) for q in queries]
    values = [str(tenant.pk), "", "", ""]
    signed = dict(zip(rls.SIGNED, values, strict=True))
    signed["app.sig"] = rls.signature(values)

    def configure(conn) -> None:  # type: ignore[no-untyped-def]
        conn.autocommit = True
        for name, value in signed.items():  # session level: once per connection
            conn.execute("SELECT set_config(%s, %s, false)", [name, value])
        conn.execute("SET hnsw.ef_search = 80; SET hnsw.iterative_scan = relaxed_order")

    db = settings.DATABASES["default"]
    url = (
        f"postgresql://{db['USER']}:{db['PASSWORD']}@{db['HOST']}:{db['PORT']}/{db['NAME']}"
        if not str(db["HOST"]).startswith("/")
        else f"postgresql://{db['USER']}@/{db['NAME']}?host={db['HOST']}&port={db['PORT']}"
    )
    sql = (
        "SELECT id, embedding <=> %s::vector AS distance FROM memory_engram "
        "WHERE tenant_id = %s AND network_id = %s AND status = 'active' "
        "AND embedding IS NOT NULL ORDER BY distance LIMIT 10"
    )
    counts = [0] * clients
    stop = threading.Event()
    counting = threading.Event()

    # client-side binding, as Django's backend does: the planner sees the values (with server-
    # side parameters it plans the KNN without the index)
    kwargs = {"cursor_factory": psycopg.ClientCursor}
    with ConnectionPool(
        url, min_size=8, max_size=8, configure=configure, open=True, kwargs=kwargs
    ) as pool:

        def worker(index: int) -> None:
            i = index
            while not stop.is_set():
                with pool.connection() as conn:
                    rows = conn.execute(sql, [vectors[i % len(vectors)], tenant.pk, network.pk])
                    rows.fetchall()
                i += clients
                if counting.is_set():
                    counts[index] += 1

        threads = [threading.Thread(target=worker, args=(i,)) for i in range(clients)]
        for thread in threads:
            thread.start()
        time.sleep(3)  # warm-up
        counting.set()
        started = time.perf_counter()
        time.sleep(seconds)
        counting.clear()
        wall = time.perf_counter() - started
        stop.set()
        for thread in threads:
            thread.join()
    return {"per_s": sum(counts) / wall, "errors": 0, "p95_ms": 0.0}
