"""make reliability: the long reliability suite, four parts, one table.

    python bench/reliability.py                  # what make reliability runs
    python bench/reliability.py --examples 50 --load-seconds 30 --only schema --only load

1. **schema** — schemathesis against /api/v1/schema/ (tests/reliability/test_api_schema.py) with
   ``--examples`` per operation instead of make test's 3: no server error, no disagreement with
   the document in either direction.
2. **cross-tenant** — tests/reliability/test_cross_tenant.py: every id, slug, cursor and session
   of tenant A tried with tenant B's key and login over REST, MCP, dashboard and websocket.
3. **load** — bench/load.py: 1 client, then 50, 70% remember / 30% recall, over loopback;
   green with 0 errors and p95 recall at 50 clients within 10x the single client's.
4. **faults** — bench/faults.py: the ``make run`` stack with a worker, Postgres and Redis killed
   or hung; green when nothing acknowledged is lost and nothing stays stuck.

Each part runs in its own process against its own services (the test profile for 1-2, the bench
profile for 3, make run's stack in var/faults for 4) and writes its numbers to bench/results/;
this script reads them back, prints the table, writes bench/results/reliability.json and exits 1
unless every part is green.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results"
PY = sys.executable
P95_RATIO_BOUND = 10.0


@dataclass
class Part:
    name: str
    green: bool
    summary: str
    seconds: float
    exit_code: int


def read(name: str) -> Any:
    path = RESULTS / f"{name}.json"
    return json.loads(path.read_text()) if path.exists() else None


def embedded(profile: str, *command: str) -> list[str]:
    return [PY, "-m", "config.embedded", "--profile", profile, "--", *command]


def pytest_part(test: str) -> list[str]:
    args = [PY, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"tests/reliability/{test}"]
    return embedded("test", *args)


def judge_schema(numbers: Any) -> tuple[bool, str]:
    if not numbers:
        return False, "no results written"
    green = numbers.get("failures") == 0 and numbers.get("exit_code") == 0
    summary = (
        f"{numbers.get('operations')} operations, {numbers.get('test_cases')} cases "
        f"({numbers.get('examples_per_operation')} examples each, seed {numbers.get('seed')}), "
        f"{numbers.get('failures')} failures"
    )
    return green, summary


def judge_cross_tenant(numbers: Any) -> tuple[bool, str]:
    if not numbers:
        return False, "no results written"
    channels = {k: v for k, v in numbers.items() if isinstance(v, dict) and "attempts" in v}
    attempts = sum(c["attempts"] for c in channels.values())
    leaks = sum(c["leaks"] for c in channels.values())
    errors = sum(c["server_errors"] for c in channels.values())
    changes = numbers.get("state", {}).get("changes")
    each = ", ".join(f"{name} {c['attempts']}" for name, c in channels.items())
    summary = (
        f"{attempts} attempts ({each}): {leaks} leaks, {errors} server errors, "
        f"{changes} changes to A's data"
    )
    return attempts > 0 and leaks == 0 and errors == 0 and changes == 0, summary


def judge_load(numbers: Any) -> tuple[bool, str]:
    if not numbers:
        return False, "no results written"
    one, many = numbers["phases"]
    ratio = numbers.get("p95_recall_ratio")
    errors = one["errors"] + many["errors"]

    def phase(row: dict[str, Any]) -> str:
        return (
            f"{row['clients']} client(s) {row['requests_per_s']} req/s, recall p50/p95/p99 "
            f"{row['recall_p50_ms']}/{row['recall_p95_ms']}/{row['recall_p99_ms']} ms"
        )

    summary = f"{phase(one)}; {phase(many)}; p95 ratio {ratio} (<= 10), {errors} errors"
    green = errors == 0 and ratio is not None and ratio <= P95_RATIO_BOUND
    return green, summary


def judge_faults(numbers: Any) -> tuple[bool, str]:
    if not numbers:
        return False, "no results written"
    rows = [
        f"{d['name']} {d['found']}/{d['acknowledged']} found, back in {d['recovered_s']} s, "
        f"settled in {d['settled_s']} s"
        for d in numbers
    ]
    return all(d["ok"] for d in numbers), "; ".join(rows)


PARTS: dict[str, tuple[str, Callable[[Any], tuple[bool, str]]]] = {
    "schema": ("schema", judge_schema),
    "cross-tenant": ("cross_tenant", judge_cross_tenant),
    "load": ("load", judge_load),
    "faults": ("faults", judge_faults),
}


def command(name: str, args: argparse.Namespace) -> list[str]:
    if name == "schema":
        return pytest_part("test_api_schema.py")
    if name == "cross-tenant":
        return pytest_part("test_cross_tenant.py")
    if name == "load":
        load = [PY, "bench/load.py", "--seconds", str(args.load_seconds)]
        return embedded("bench", *load)
    return [PY, "bench/faults.py"]


def run(name: str, args: argparse.Namespace) -> Part:
    result_name, judge = PARTS[name]
    (RESULTS / f"{result_name}.json").unlink(missing_ok=True)  # never judge a stale run
    env = os.environ | {
        "RELIABILITY_EXAMPLES": str(args.examples),
        "RELIABILITY_RESULTS": str(RESULTS),
    }
    print(f"\n=== {name}: {' '.join(command(name, args))}", flush=True)
    started = time.monotonic()
    exit_code = subprocess.run(command(name, args), cwd=ROOT, env=env, check=False).returncode
    green, summary = judge(read(result_name))
    if exit_code != 0:
        green, summary = False, f"exit code {exit_code}; {summary}"
    return Part(name, green, summary, round(time.monotonic() - started, 1), exit_code)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--examples", type=int, default=25, help="schemathesis, per operation")
    parser.add_argument("--load-seconds", type=float, default=30, help="per load phase")
    parser.add_argument("--only", choices=list(PARTS), action="append")
    args = parser.parse_args()
    RESULTS.mkdir(parents=True, exist_ok=True)
    parts = [run(name, args) for name in args.only or list(PARTS)]
    print("\nreliability")
    for part in parts:
        mark = "GREEN" if part.green else "RED  "
        print(f"  {mark} {part.name:<13} {part.seconds:>6.0f} s  {part.summary}")
    (RESULTS / "reliability.json").write_text(
        json.dumps([asdict(part) for part in parts], indent=2)
    )
    return 0 if all(part.green for part in parts) else 1


if __name__ == "__main__":
    sys.exit(main())
