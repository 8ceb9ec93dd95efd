"""Many agents at once: one client, then 50, remembering and recalling over REST, same run.

    make bench-load                               # 20 s per phase
    make bench-load LOAD_ARGS="--seconds 60 --clients 50 --workers 2 --waits"

Each run starts from an empty database of its own (``mnemo_load``), starts the real server
(``python -m config.serve``, as ``make run`` does), seeds a network with synthetic memories, then
runs a closed loop of clients (each sends its next request when the last one answered): 70%
remember (one engram of its own), 30% recall. Each phase starts with a warm-up (connections
opened, pools filled; its slowest answer is printed but not counted). Prints requests per
second and p50 / p95 / p99 per operation for each phase, side by side, the CPU each part used,
and the ratio the hardening issue asks about: p95 recall at 50 clients over p95 at 1. Writes
bench/results/load.json. Loopback only; client, server and Postgres share the machine's cores.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import subprocess
import sys
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import httpx2

sys.path.insert(0, str(Path(__file__).resolve().parent))
from recall import PY, ROOT, analyze, fresh_database, manage, migrate, percentile
from synthetic import corpus

RESULTS = ROOT / "bench" / "results"


def start(port: int, workers: int) -> subprocess.Popen[bytes]:
    log = open(ROOT / "var" / "bench" / "load-web.log", "ab")  # noqa: SIM115
    env = {**os.environ, "API_RATE_LIMIT_PER_MINUTE": "10000000"}  # measure serving, not limits
    args = [PY, "-m", "config.serve", "--port", str(port), "--workers", str(workers)]
    proc = subprocess.Popen(args, cwd=ROOT, stdout=log, stderr=log, env=env)
    for _ in range(300):
        try:
            if httpx2.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200:
                return proc
        except httpx2.HTTPError:
            time.sleep(0.1)
    raise SystemExit("the server did not start; see var/bench/load-web.log")


def key() -> str:
    slug = f"load-{int(time.time())}"
    out = manage("tenant_create", slug, "--owner", f"{slug}@mnemo.local")
    return next(line.split(": ", 1)[1] for line in out.splitlines() if line.startswith("API key"))


@dataclass
class Sample:
    op: str
    ok: bool
    at: float  # seconds into the phase when the request was sent
    ms: float


async def client(
    http: httpx2.AsyncClient, t0: float, until: float, rng: random.Random, out: list[Sample]
) -> None:
    """One agent: its own memories (its own external ids), queries about the seeded ones."""
    data = corpus(rng.randrange(10**6))
    name = f"agent-{rng.randrange(10**9)}"
    n = 0
    while time.perf_counter() < until:
        n += 1
        if rng.random() < 0.7:
            op, path = "remember", "/api/v1/remember"
            engram = {**data.engram(n), "external_id": f"{name}-{n}"}
            body: dict[str, object] = {"network": "load", "engrams": [engram]}
        else:
            op, path = "recall", "/api/v1/recall"
            body = {"network": "load", "query": data.query_for(data.engram(rng.randrange(500)))}
        started = time.perf_counter()
        try:
            response = await http.post(path, json=body)
            ok = response.status_code < 400
        except httpx2.HTTPError:
            ok = False
        out.append(Sample(op, ok, started - t0, (time.perf_counter() - started) * 1000))


async def phase(
    base: str, secret: str, clients: int, seconds: float, warmup: float
) -> dict[str, object]:
    """``clients`` agents for ``warmup + seconds``; the numbers count requests sent after the
    warm-up (connections opened, pools filled); the warm-up's slowest answer is printed too."""
    out: list[Sample] = []
    limits = httpx2.Limits(max_connections=clients, max_keepalive_connections=clients)
    async with httpx2.AsyncClient(
        base_url=base, headers={"Authorization": f"Bearer {secret}"}, timeout=60, limits=limits
    ) as http:
        t0 = time.perf_counter()
        until = t0 + warmup + seconds
        await asyncio.gather(
            *(client(http, t0, until, random.Random(i), out) for i in range(clients))
        )
        wall = time.perf_counter() - t0 - warmup
    counted = [s for s in out if s.at >= warmup]
    early = [s.ms for s in out if s.at < warmup]
    slowest = sorted(counted, key=lambda s: -s.ms)[:5]
    print(f"{clients} client(s): slowest counted requests (ms @ seconds into the phase): ", end="")
    print(", ".join(f"{s.op} {s.ms:.0f} @{s.at:.1f}" for s in slowest), end="")
    print(f"; slowest in the warm-up {max(early, default=0):.0f} ms")
    row: dict[str, object] = {"clients": clients, "seconds": round(wall, 1)}
    row["requests_per_s"] = round(sum(s.ok for s in counted) / wall, 1)
    row["errors"] = sum(not s.ok for s in out)  # warm-up errors count too
    for op in ("recall", "remember"):
        values = [s.ms for s in counted if s.ok and s.op == op]
        for p in (50, 95, 99):
            row[f"{op}_p{p}_ms"] = round(percentile(values, p), 1) if values else None
    return row


class Waits:
    """What the database's sessions are doing, sampled every 50 ms while a phase runs (needs a
    role that sees every session: the embedded cluster's ``postgres``)."""

    def __init__(self) -> None:
        import threading

        self.counts: dict[tuple[str, str], int] = defaultdict(int)
        self.samples = 0
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)

    def run(self) -> None:
        import psycopg

        url = os.environ["DATABASE_OWNER_URL"].replace("mnemo_owner@", "postgres@")
        with psycopg.connect(url, autocommit=True) as conn:
            while not self.stop.wait(0.05):
                rows = conn.execute(
                    "SELECT state, coalesce(wait_event_type || ':' || wait_event, 'on CPU') "
                    "|| CASE WHEN wait_event_type = 'Lock' THEN ' ' || "
                    "regexp_replace(left(query, 70), '\\s+', ' ', 'g') ELSE '' END "
                    "FROM pg_stat_activity WHERE backend_type = 'client backend' "
                    "AND pid <> pg_backend_pid() AND state <> 'idle'"
                ).fetchall()
                for state, wait in rows:
                    self.counts[(state, wait)] += 1
                self.samples += 1

    def report(self) -> None:
        print("\ndatabase sessions during the last phase (average number in each state):")
        for (state, wait), n in sorted(self.counts.items(), key=lambda kv: -kv[1])[:10]:
            print(f"  {n / max(self.samples, 1):6.2f}  {state:<22} {wait}")


def cpu_seconds() -> dict[str, float]:
    """CPU time used so far by every process, grouped: postgres, the server, this client."""
    tick = os.sysconf("SC_CLK_TCK")
    used: dict[str, float] = defaultdict(float)
    me = os.getpid()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        seconds = (int(fields[11]) + int(fields[12])) / tick
        if int(entry.name) == me:
            group = "load client"
        elif "postgres" in stat.split(")")[0] or "postgres" in cmdline:
            group = "postgres"
        elif "config.serve" in cmdline or "multiprocessing" in cmdline:
            group = "web server"
        else:
            continue
        used[group] += seconds
    return used


def seed(base: str, secret: str, size: int) -> None:
    data = corpus(7)
    with httpx2.Client(base_url=base, headers={"Authorization": f"Bearer {secret}"}) as http:
        for start in range(0, size, 500):
            batch = [data.engram(i) for i in range(start, min(size, start + 500))]
            http.post(
                "/api/v1/remember", json={"network": "load", "engrams": batch}, timeout=120
            ).raise_for_status()


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--warmup", type=float, default=5, help="seconds not counted, per phase")
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--workers", type=int, default=0, help="0: the server's default")
    parser.add_argument("--seed-engrams", type=int, default=2000)
    parser.add_argument("--port", type=int, default=8766)
    parser.add_argument("--waits", action="store_true", help="sample what the database waits on")
    args = parser.parse_args()
    fresh_database("mnemo_load")
    migrate()
    secret = key()
    server = start(args.port, args.workers)
    base = f"http://127.0.0.1:{args.port}"
    try:
        seed(base, secret, args.seed_engrams)
        analyze()  # planner statistics for the seeded network, as autovacuum would give soon
        rows = [asyncio.run(phase(base, secret, 1, args.seconds, args.warmup))]
        waits = Waits() if args.waits else None
        if waits:
            waits.thread.start()
        before = cpu_seconds()
        rows.append(asyncio.run(phase(base, secret, args.clients, args.seconds, args.warmup)))
        after = cpu_seconds()
        wall = float(rows[-1]["seconds"]) + args.warmup  # type: ignore[arg-type]
        print(f"\nCPU during the {args.clients}-client phase (cores busy on average):")
        for group in sorted(after):
            print(f"  {group:<12} {(after[group] - before.get(group, 0.0)) / wall:5.2f}")
        if waits:
            waits.stop.set()
            waits.thread.join()
            waits.report()
    finally:
        server.terminate()
        server.wait(timeout=30)
    names = list(rows[0])
    print(f"\nload over REST, {args.seconds:.0f} s per phase, 70% remember / 30% recall")
    print("".join(f"{n:>16}" for n in names))
    for row in rows:
        print("".join(f"{row[n]!s:>16}" for n in names))
    one, many = rows
    ratio = None
    if one["recall_p95_ms"] and many["recall_p95_ms"]:
        ratio = round(float(many["recall_p95_ms"]) / float(one["recall_p95_ms"]), 1)  # type: ignore[arg-type]
    print(f"\np95 recall at {args.clients} clients / at 1 client: {ratio}  (target <= 10)")
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "load.json").write_text(
        json.dumps({"phases": rows, "p95_recall_ratio": ratio, "workers": args.workers}, indent=2)
    )


if __name__ == "__main__":
    sys.exit(main())
