"""Recall and remember speed over REST, Mnemo against full-text-only and vector-only baselines.

    make bench                       # 10k and 100k engrams
    make bench BENCH_ARGS="--sizes 10000 --queries 100"
    make bench BENCH_ARGS="--million"   # adds 1M (long)
    make bench BENCH_ARGS="--clients 0"  # without the throughput run

Last, on the largest network: recall throughput at 50 clients at once against a bare pgvector
KNN through a connection pool (bench/throughput.py), side by side.

Runs against embedded Postgres + Redis (profile ``bench``, data kept in var/bench so a second run
skips the ingest), one uvicorn worker, a client on the same 2-core machine. Prints one table;
the baselines are the same recall endpoint restricted to one channel, on the same data and
queries, so the ratios are what to read (the machine is noisy).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

import httpx2

sys.path.insert(0, str(Path(__file__).resolve().parent))  # bench/ scripts import each other
from synthetic import corpus

ROOT = Path(__file__).resolve().parents[1]
# English words the synthetic corpus never uses (its topic words are invented)
UNKNOWN = ("initially", "honestly", "wonderful", "neighborhood", "delicious", "tomorrow")
PY = sys.executable


def manage(*args: str) -> str:
    result = subprocess.run(
        [PY, str(ROOT / "manage.py"), *args], capture_output=True, text=True, check=False, cwd=ROOT
    )
    if result.returncode != 0:
        raise SystemExit(f"manage.py {args[0]} failed:\n{result.stdout}\n{result.stderr}")
    return result.stdout


def migrate() -> None:
    """Bring the bench database up to date, as its owner (the app role cannot)."""
    owner = os.environ.get("DATABASE_OWNER_URL")
    if owner:
        subprocess.run(
            [PY, str(ROOT / "manage.py"), "migrate", "--noinput"],
            check=True,
            env={**os.environ, "DATABASE_URL": owner},
            capture_output=True,
            cwd=ROOT,
        )


def fresh_database(name: str) -> None:
    """Drop and create database ``name`` in the bench cluster and point this process (and
    ``migrate``, and servers it starts) at it: a run that shares nothing with earlier ones (the
    vector index is one graph for a whole table, and statistics follow what else is stored)."""
    from urllib.parse import urlsplit, urlunsplit

    import psycopg

    def on(url: str) -> str:
        return urlunsplit(urlsplit(url)._replace(path=f"/{name}"))

    owner = os.environ["DATABASE_OWNER_URL"]
    with psycopg.connect(owner, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        conn.execute(f"CREATE DATABASE {name}")
    os.environ["DATABASE_OWNER_URL"] = on(owner)
    os.environ["DATABASE_URL"] = on(os.environ["DATABASE_URL"])


def analyze() -> None:
    """Fresh planner statistics after a bulk ingest, as autovacuum would give within a minute or
    so in a running system (a benchmark starts measuring sooner than that)."""
    owner = os.environ.get("DATABASE_OWNER_URL")
    if owner:
        import psycopg

        with psycopg.connect(owner, autocommit=True) as conn:
            conn.execute("ANALYZE")


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def start_server(port: int) -> subprocess.Popen[bytes]:
    log = open(ROOT / "var" / "bench" / "web.log", "ab")  # noqa: SIM115
    proc = subprocess.Popen(
        [
            PY,
            "-m",
            "uvicorn",
            "config.asgi:application",
            "--port",
            str(port),
            "--no-access-log",
            "--log-level",
            "warning",
        ],
        cwd=ROOT,
        stdout=log,
        stderr=log,
    )
    for _ in range(200):
        try:
            if httpx2.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200:
                return proc
        except httpx2.HTTPError:
            time.sleep(0.1)
    raise SystemExit("the server did not start; see var/bench/web.log")


def tenant(size: int) -> str:
    state = ROOT / "var" / "bench" / f"tenant-{size}.json"
    if state.exists():
        return str(json.loads(state.read_text())["key"])
    out = manage("tenant_create", f"bench-{size}", "--owner", f"bench{size}@mnemo.local")
    key = next(line.split(": ", 1)[1] for line in out.splitlines() if line.startswith("API key"))
    state.write_text(json.dumps({"key": key}))
    return key


def ingest(http: httpx2.Client, size: int, seed: int) -> tuple[float, list[dict[str, object]]]:
    data = corpus(seed)
    engrams = [data.engram(i) for i in range(size)]
    have = http.get("/api/v1/networks/default")
    already = have.json()["engrams"] if have.status_code == 200 else 0
    if already >= size:
        return 0.0, engrams
    started = time.perf_counter()
    for start in range(0, size, 1000):
        response = http.post("/api/v1/remember", json={"engrams": engrams[start : start + 1000]})
        response.raise_for_status()
        done = start + 1000
        rate = done / (time.perf_counter() - started)
        print(f"  ingest {done:>8,}/{size:,}  {rate:,.0f} engrams/s", end="\r", flush=True)
    print()
    return size / (time.perf_counter() - started), engrams


def timed(http: httpx2.Client, path: str, body: dict[str, object]) -> tuple[float, float, dict]:
    started = time.perf_counter()
    response = http.post(path, json=body)
    wall = (time.perf_counter() - started) * 1000
    response.raise_for_status()
    payload = response.json()
    return wall, float(payload.get("took_ms", 0.0)), payload


def run_size(size: int, port: int, queries: int, seed: int) -> tuple[list[tuple], list[str]]:
    key = tenant(size)
    http = httpx2.Client(
        base_url=f"http://127.0.0.1:{port}", headers={"Authorization": f"Bearer {key}"}, timeout=120
    )
    print(f"== {size:,} engrams")
    throughput, engrams = ingest(http, size, seed)
    analyze()
    started = time.perf_counter()
    manage("memory_embed", "--tenant", f"bench-{size}")
    embed_s = time.perf_counter() - started
    rng = random.Random(seed + size)
    data = corpus(seed)
    sample = rng.sample(range(size), queries)
    asks = [(data.query_for(engrams[i]), f"syn-{i}") for i in sample]
    for query, _ in asks[:20]:  # warm caches and the query-embedding model
        timed(http, "/api/v1/recall", {"query": query})
    rows: list[tuple] = []
    # The three ways to recall take turns on each query (each goes first on a third of them):
    # run one after another, the machine's drift and the warmed caches (a query's word counts)
    # landed on the ratio between them.
    # The synthetic queries are words of their memory, so every word is a cue; an agent's
    # question also holds words no memory has ("initially", "honestly"), and recall then looks
    # for concepts near them by meaning: the second mode asks each query with one such word.
    modes = (
        ("mnemo", None),
        ("mnemo + a word no memory holds", None),
        ("full-text only", ["text"]),
        ("vector only", ["vector"]),
    )
    walls_of: dict[str, list[float]] = {label: [] for label, _ in modes}
    servers_of: dict[str, list[float]] = {label: [] for label, _ in modes}
    hits_of: dict[str, int] = dict.fromkeys(walls_of, 0)
    for n, (query, wanted) in enumerate(asks):
        turn = n % len(modes)
        for label, channels in modes[turn:] + modes[:turn]:
            asked = f"{query} {UNKNOWN[n % len(UNKNOWN)]}" if "no memory" in label else query
            body: dict[str, object] = {"query": asked, "k": 10}
            if channels:
                body["channels"] = channels
            wall, server, mind = timed(http, "/api/v1/recall", body)
            walls_of[label].append(wall)
            servers_of[label].append(server)
            hits_of[label] += any(e["external_id"] == wanted for e in mind["engrams"])
    vector_p95 = percentile(walls_of["vector only"], 95)
    for label, _ in modes:
        walls, servers = walls_of[label], servers_of[label]
        ratio = (
            f", p95 {percentile(walls, 95) / vector_p95:.2f}x vector"
            if label.startswith("mnemo")
            else ""
        )
        rows.append(
            (
                size,
                f"recall: {label}",
                percentile(walls, 50),
                percentile(walls, 95),
                percentile(servers, 50),
                percentile(servers, 95),
                f"hit@10 {hits_of[label] / len(asks):.0%}, p99 {percentile(walls, 99):.1f}{ratio}",
            )
        )
    walls = []
    run = int(time.time())  # new memories each run: a repeat would only reinforce the old one
    for i in range(queries):
        wall, _, _ = timed(
            http,
            "/api/v1/remember",
            {
                "engrams": [
                    {
                        "content": f"single write {size}-{run}-{i}: "
                        f"{data.engram(size + i)['content']}"
                    }
                ]
            },
        )
        walls.append(wall)
    rows.append(
        (
            size,
            "remember (1 engram)",
            percentile(walls, 50),
            percentile(walls, 95),
            0,
            0,
            f"batch {throughput:,.0f}/s" if throughput else "batch: reused data",
        )
    )
    rows.append((size, "embedding backfill", 0, 0, 0, 0, f"{embed_s:,.0f} s"))
    return rows, [query for query, _ in asks]


def run_new_tenant(port: int, seed: int) -> list[tuple]:
    """A tenant created now (no planner statistics of its own yet): its first 2,000 engrams in
    batches of 500, recall in them, then 2,000 more after ANALYZE (steady state), over REST."""
    slug = f"new-{int(time.time())}"
    out = manage("tenant_create", slug, "--owner", f"{slug}@mnemo.local")
    key = next(line.split(": ", 1)[1] for line in out.splitlines() if line.startswith("API key"))
    http = httpx2.Client(
        base_url=f"http://127.0.0.1:{port}", headers={"Authorization": f"Bearer {key}"}, timeout=300
    )
    data = corpus(seed + 1)

    def batches(first: int) -> list[float]:
        took = []
        for start in range(first, first + 2000, 500):
            engrams = [data.engram(i) for i in range(start, start + 500)]
            started = time.perf_counter()
            http.post("/api/v1/remember", json={"engrams": engrams}).raise_for_status()
            took.append(time.perf_counter() - started)
        return took

    fresh = batches(0)
    # Recall in the new network before any worker embedded it (the bench runs none here): the
    # query's own embedding finds no engram or cue vector yet, as for a tenant whose worker lags.
    asks = [data.query_for(data.engram(i)) for i in range(0, 2000, 20)]
    walls = [timed(http, "/api/v1/recall", {"query": query, "k": 10})[0] for query in asks]
    analyze()
    steady = batches(2000)
    rate = 2000 / sum(fresh)
    steady_rate = 2000 / sum(steady)
    return [
        (
            2000,
            "new tenant: recall",
            percentile(walls, 50),
            percentile(walls, 95),
            0,
            0,
            f"{len(walls)} queries, before any vector",
        ),
        (
            0,
            "new tenant 4x500",
            0,
            0,
            0,
            0,
            f"{rate:,.0f}/s ({', '.join(f'{t:.1f}' for t in fresh)} s); after ANALYZE "
            f"{steady_rate:,.0f}/s: {rate / steady_rate:.0%} of steady",
        ),
    ]


def run_embedder(port: int, seed: int, count: int = 2000) -> list[tuple]:
    """The Celery embedder against the same model in this process, with the worker ``make run``
    starts (its processes, its ONNX threads), in a new tenant:

    * end to end: ``count`` new engrams remembered over REST (batches of 500) while the worker
      embeds, timed until the network reports no pending engram or cue embedding;
    * the worker alone: ``count`` more into a second network while the worker leaves the
      embeddings queue alone, then timed from the moment it starts consuming it again;

    then the same texts embedded here, in the batches the worker uses."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    from config.celery import app
    from config.devserver import CORES, WORKER_PROCESSES, _celery
    from config.env import queues

    slug = f"embed-{int(time.time())}"
    out = manage("tenant_create", slug, "--owner", f"{slug}@mnemo.local")
    key = next(line.split(": ", 1)[1] for line in out.splitlines() if line.startswith("API key"))
    http = httpx2.Client(
        base_url=f"http://127.0.0.1:{port}", headers={"Authorization": f"Bearer {key}"}, timeout=300
    )
    texts = {}
    for network, offset in (("default", 2), ("alone", 3)):
        data = corpus(seed + offset)
        texts[network] = [data.engram(i)["content"] for i in range(count)]
    names = queues(os.environ.get("MNEMO_PROFILE", "bench"))
    log = open(ROOT / "var" / "bench" / "embedder-worker.log", "ab")  # noqa: SIM115
    # The bench profile has no standing worker (ingests embed with memory_embed): its queues
    # hold the leftovers of earlier runs, all of them already done. Start from empty queues.
    subprocess.run(
        [PY, "-m", "celery", "-A", "config", "purge", "-f", "-Q", names["embeddings"]],
        cwd=ROOT,
        capture_output=True,
        check=True,
    )
    hostname = f"bench-embed-{os.getpid()}@127.0.0.1"
    worker = subprocess.Popen(
        _celery(
            "--queues",
            ",".join([names["default"], names["embeddings"]]),
            "--concurrency",
            str(WORKER_PROCESSES),
            "--hostname",
            hostname,
        ),
        cwd=ROOT,
        env={**os.environ, "EMBEDDINGS_THREADS": str(max(1, CORES // WORKER_PROCESSES))},
        stdout=log,
        stderr=log,
    )

    def ingest(network: str) -> None:
        for start in range(0, count, 500):
            batch = [{"content": text} for text in texts[network][start : start + 500]]
            http.post(
                "/api/v1/remember", json={"network": network, "engrams": batch}
            ).raise_for_status()

    def embedded(network: str, started: float) -> float:
        while True:
            state = http.get(f"/api/v1/networks/{network}").json()
            if not state["pending_embeddings"] and not state["pending_cue_embeddings"]:
                return count / (time.perf_counter() - started)
            if time.perf_counter() - started > 1200:
                raise SystemExit("the worker did not embed the network in 20 minutes")
            time.sleep(0.1)

    try:
        time.sleep(10)  # the worker's processes start and load the model
        started = time.perf_counter()
        ingest("default")
        end_to_end = embedded("default", started)
        app.control.cancel_consumer(names["embeddings"], destination=[hostname], reply=True)
        ingest("alone")
        app.control.add_consumer(names["embeddings"], destination=[hostname], reply=True)
        alone = embedded("alone", time.perf_counter())
    finally:
        worker.terminate()
        worker.wait(timeout=60)
    import django

    django.setup()
    from memory.embeddings import embedder
    from memory.services.embedding import BATCH

    model = embedder()
    model.embed(texts["default"][:8])  # loaded before the clock starts
    both = texts["default"] + texts["alone"]
    started = time.perf_counter()
    for start in range(0, len(both), BATCH):
        model.embed(both[start : start + BATCH])
    local_rate = len(both) / (time.perf_counter() - started)
    return [
        (
            0,
            "embedder (Celery)",
            0,
            0,
            0,
            0,
            f"worker alone {alone:,.0f} engrams/s = {alone / local_rate:.0%} of in-process "
            f"{local_rate:,.0f}/s; end to end over REST {end_to_end:,.0f}/s = "
            f"{end_to_end / local_rate:.0%}",
        )
    ]


def run_throughput(size: int, port: int, queries: list[str], clients: int, seconds: float) -> list:
    """Recall at ``clients`` at once against the bare KNN (bench/throughput.py), one run."""
    from throughput import bare_knn_throughput, mnemo_throughput

    print(f"== {clients} clients at once, {seconds:.0f} s each, {size:,} engrams")
    bare = bare_knn_throughput(f"bench-{size}", "default", queries, clients, seconds)
    mnemo = mnemo_throughput(port + 1, tenant(size), queries, clients, seconds)
    share = mnemo["per_s"] / bare["per_s"] if bare["per_s"] else 0.0
    return [
        (
            size,
            f"recall x{clients}: mnemo",
            0,
            mnemo["p95_ms"],
            0,
            0,
            f"{mnemo['per_s']:,.0f} req/s ({share:.0%} of bare KNN), {mnemo['errors']} errors",
        ),
        (size, f"bare KNN x{clients}", 0, 0, 0, 0, f"{bare['per_s']:,.0f} req/s (pool of 8)"),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--million", action="store_true", help="add 1,000,000 engrams")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument(
        "--clients", type=int, default=50, help="recall throughput at this many (0: skip)"
    )
    parser.add_argument("--seconds", type=float, default=15, help="... for this long")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",") if s] + ([1_000_000] if args.million else [])
    (ROOT / "var" / "bench").mkdir(parents=True, exist_ok=True)
    migrate()
    server = start_server(args.port)
    rows: list[tuple] = []
    asked: list[str] = []
    try:
        for size in sizes:
            measured, asked = run_size(size, args.port, args.queries, args.seed)
            rows += measured
        rows += run_new_tenant(args.port, args.seed)
        rows += run_embedder(args.port, args.seed)
    finally:
        server.terminate()
        server.wait(timeout=30)
    if args.clients and sizes:
        rows += run_throughput(max(sizes), args.port, asked, args.clients, args.seconds)
    print()
    heads = ("p50 ms", "p95 ms", "srv p50", "srv p95")
    print(f"{'engrams':>10}  {'what':<22} " + " ".join(f"{h:>8}" for h in heads) + "  note")
    for size, what, p50, p95, s50, s95, note in rows:
        cells = (
            f"{p50:8.1f} {p95:8.1f} {s50:8.1f} {s95:8.1f}"
            if p50
            else f"{'':>8} {p95:8.1f} {'':>8} {'':>8}"
            if p95
            else f"{'':>8} {'':>8} {'':>8} {'':>8}"
        )
        where = f"{size:>10,}" if size else f"{'':>10}"
        print(f"{where}  {what:<22} {cells}  {note}")
    print("\n(p50/p95: client wall time over REST; srv: the server's own took_ms for recall)")


if __name__ == "__main__":
    main()
