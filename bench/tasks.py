"""Pareto selection on agent trajectories: are a step's causal ancestors in the context?

    .venv/bin/python -m config.embedded --profile bench -- .venv/bin/python bench/tasks.py

Generates agent tasks (incident fixes, data jobs, releases) whose steps form a DAG with known
causal ancestry — each step caused by one or two earlier ones — many of them in one network, on
the same services and in the same words, so plain relevance cannot tell one task's steps from
another's. Every step is recorded through ``step_record`` (a Step, an engram, an episode, the
given causal links). Then, for late steps, it asks "why did we <that step's action>?" scoped to
the step's task, and counts how many of the step's causal ancestors (up to three hops) the
packed context holds, at equal token budgets, selecting by

* pareto — non-dominated fronts over relevance, salience and coherence (Mnemo's default),
* sum — the top k by the plain sum of the same three objectives,
* score — relevance weighted by salience, coherence ignored (Mnemo before PRISM).

Same candidates, same objectives, same packer: only the selection differs.
"""

from __future__ import annotations

import argparse
import os
import random
import time
from collections import defaultdict
from datetime import UTC, datetime, timedelta

from recall import migrate

SERVICES = ["billing", "ledger", "search", "auth", "notifier", "exporter", "scheduler", "gateway"]
ERRORS = ["timeout", "ImportError", "OOM kill", "deadlock", "401 Unauthorized", "disk full"]
KINDS = ["nightly job", "API", "worker", "migration", "cache", "webhook"]
# (action, observation) templates: {s} service, {k} kind, {e} error, {f} file, {h} host, {n} n
STEPS = [
    ("run the {s} {k} by hand", "it fails with {e} after {n} seconds"),
    ("read the {s} logs on {h}", "the {e} starts right after a config reload"),
    ("open {f} and look at the settings", "pool size is {n}, far below the load"),
    ("check the metrics dashboard for {s}", "latency doubled at 02:{n}"),
    ("ask the on-call engineer about {h}", "{h} was patched yesterday evening"),
    ("diff {f} against the last release", "the retry limit was removed"),
    ("raise the pool size in {f}", "the {k} starts"),
    ("restart the {s} {k} on {h}", "it runs for {n} minutes, then stops"),
    ("add the retry limit back to {f}", "no more errors in a test run"),
    ("roll back {h} to the previous image", "the {k} is healthy again"),
    ("write a regression test for the {e}", "the test fails before the fix, passes after"),
    ("deploy the fix to staging", "all {n} checks pass"),
    ("deploy the fix to production", "the {s} {k} is green"),
    ("post the incident summary", "the team acknowledged it"),
]


def make_task(rng: random.Random, number: int, length: int) -> dict:
    service, kind, error = rng.choice(SERVICES), rng.choice(KINDS), rng.choice(ERRORS)
    host = f"{service}-{rng.randint(1, 9)}.prod"
    file = f"{service}_{rng.choice(['settings', 'pool', 'retry'])}.yaml"
    order = rng.sample(range(len(STEPS)), length)
    steps = []
    for i, template in enumerate(order):
        action, observation = STEPS[template]
        fill = {"s": service, "k": kind, "e": error, "f": file, "h": host,
                "n": rng.randint(10, 59)}  # fmt: skip
        causes = []
        if i:
            causes.append(rng.randint(max(0, i - 3), i - 1))  # mostly a recent step
            if i > 2 and rng.random() < 0.5:
                causes.append(rng.randint(0, i - 1))  # sometimes one long before
        steps.append(
            {
                "key": f"s{i + 1}",
                "action": action.format(**fill),
                "observation": observation.format(**fill),
                "causes": sorted({f"s{c + 1}" for c in causes}),
            }
        )
    return {"key": f"incident-{number}", "goal": f"fix the {service} {kind}", "steps": steps}


def ancestors(task: dict, key: str, depth: int = 3) -> set[str]:
    causes = {s["key"]: s["causes"] for s in task["steps"]}
    found: set[str] = set()
    frontier = {key}
    for _ in range(depth):
        frontier = {c for k in frontier for c in causes[k]} - found
        found |= frontier
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tasks", type=int, default=24)
    parser.add_argument("--steps", type=int, default=12)
    parser.add_argument("--questions", type=int, default=3, help="late steps asked per task")
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--budgets", default="300,600")
    args = parser.parse_args()
    migrate()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from audit.actors import Actor
    from memory.contracts.work import StepIn
    from memory.firewall import FAMILIES
    from memory.models import Network, Step
    from memory.services.embedding import embed_missing
    from memory.services.recall import RecallOptions, network_recall
    from memory.services.tasks import step_record, task_open
    from tenants import rls
    from tenants.models import Tenant, User
    from tenants.services import tenant_create, user_create

    rng = random.Random(args.seed)
    owner = User.objects.filter(email="tasks@mnemo.local").first() or user_create(
        email="tasks@mnemo.local", password="tasks-bench-only"
    )
    slug = f"tasks-{args.seed}-{args.tasks}-{args.steps}"
    tenant = Tenant.objects.filter(slug=slug).first()
    actor = Actor.system("bench-tasks")
    tasks = [make_task(rng, n, args.steps) for n in range(args.tasks)]
    network_key = "agents"
    if tenant is None:
        with rls.tenant_scope(0):
            tenant = tenant_create(name="Task trajectories", slug=slug, owner=owner)
        tenant.settings = {"moderation": {"firewall": dict.fromkeys(FAMILIES, "allow")}}
        tenant.save(update_fields=["settings"])
        started = time.perf_counter()
        clock = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
        with rls.tenant_scope(tenant.pk):
            for task in tasks:
                opened, _ = task_open(
                    tenant=tenant,
                    actor=actor,
                    network_key=network_key,
                    key=task["key"],
                    goal=task["goal"],
                )
                for step in task["steps"]:
                    clock += timedelta(minutes=rng.randint(1, 30))
                    item = StepIn(
                        step=step["key"],
                        action=step["action"],
                        observation=step["observation"],
                        caused_by=step["causes"],
                        occurred_at=clock,
                    )
                    step_record(tenant=tenant, actor=actor, task=opened, item=item)
            network = Network.objects.get(tenant=tenant, key=network_key)
            ids = list(Step.objects.filter(tenant=tenant).values_list("engram_id", flat=True))
            embed_missing(tenant_id=tenant.pk, network_id=network.pk, engram_ids=ids)
        took = time.perf_counter() - started
        total = args.tasks * args.steps
        print(f"recorded {total} steps in {took:.1f} s ({total / took:.0f} steps/s)")
    with rls.tenant_scope(tenant.pk):
        engram_of = {
            (task_key, key): engram
            for task_key, key, engram in Step.objects.filter(tenant=tenant).values_list(
                "task__key", "key", "engram_id"
            )
        }
    budgets = [int(b) for b in args.budgets.split(",")]
    hits: dict[tuple[int, str], list[float]] = defaultdict(list)
    found_target: dict[tuple[int, str], list[float]] = defaultdict(list)
    asked = 0
    for task in tasks:
        late = [s for s in task["steps"][len(task["steps"]) // 2 :] if ancestors(task, s["key"])]
        for step in rng.sample(late, min(args.questions, len(late))):
            gold = {engram_of[(task["key"], k)] for k in ancestors(task, step["key"])}
            target = engram_of[(task["key"], step["key"])]
            asked += 1
            for budget in budgets:
                for selection in ("pareto", "sum", "score"):
                    with rls.tenant_scope(tenant.pk):
                        mind = network_recall(
                            tenant=tenant,
                            actor=actor,
                            network_key=network_key,
                            query=f"why did we {step['action']}?",
                            options=RecallOptions(
                                k=10,
                                token_budget=budget,
                                record=False,
                                task=task["key"],
                                selection=selection,
                                facts=False,
                            ),
                        )
                    packed = set(mind.context_ids)
                    hits[(budget, selection)].append(len(gold & packed) / len(gold))
                    found_target[(budget, selection)].append(float(target in packed))
    print(
        f"\n{asked} questions on {args.tasks} tasks of {args.steps} steps "
        f"(seed {args.seed}): causal ancestors (≤ 3 hops) in the context\n"
    )
    print(f"{'budget':>8}{'selection':>12}{'ancestors':>12}{'the step':>11}{'vs sum':>9}")
    for budget in budgets:
        base = sum(hits[(budget, "sum")]) / len(hits[(budget, "sum")])
        for selection in ("pareto", "sum", "score"):
            got = hits[(budget, selection)]
            mean = sum(got) / len(got)
            step_rate = sum(found_target[(budget, selection)]) / len(got)
            ratio = f"{mean / base:.2f}x" if base else "-"
            print(f"{budget:>8}{selection:>12}{mean:>12.3f}{step_rate:>11.3f}{ratio:>9}")


if __name__ == "__main__":
    main()
