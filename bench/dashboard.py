"""Dashboard speed at 100k engrams: memory browser pages (first and deep, by date and strength,
filtered, searched), the engram detail, graph neighbourhoods, the recall playground and the
overview, over HTTP with a logged-in session; and, in the same run, the keyset cursor the
browser uses against OFFSET pagination at the same depths (the baseline it replaces).

    make bench-dashboard                          # 100k engrams (ingested once, kept in var/bench)
    make bench-dashboard DASHBOARD_ARGS="--size 10000 --repeat 20"

Prints one table of p50 / p95 in milliseconds; compare rows within a run (the machine is noisy).
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import time
from pathlib import Path

import httpx2

sys.path.insert(0, str(Path(__file__).resolve().parent))
from recall import ROOT, analyze, ingest, manage, migrate, percentile, start_server, tenant

PASSWORD = "bench-dashboard-password-1"  # a local benchmark account

SQL_BASELINE = """
import time
from django.db import connection, transaction
from memory.models import Engram, Network
from tenants import rls
from tenants.models import Tenant
t = Tenant.objects.get(slug="{slug}")
with rls.tenant_scope(t.pk):
    net = Network.objects.get(tenant=t, key="default")
    base = Engram.objects.filter(tenant=t, network=net, status="active").defer("embedding", "terms")
    for depth in (0, 5000, 50000):
        rows = list(base.order_by("-created_at", "-id")[depth:depth + 1])
        if not rows:
            continue
        anchor = rows[0]
        def offset():
            return list(base.order_by("-created_at", "-id")[depth:depth + 50])
        from memory import selectors
        cursor = selectors._cursor_of(anchor, "created_at")
        def keyset():  # the browser's own query
            return selectors.engrams_browse(tenant=t, network=net, browse=selectors.Browse(),
                                            cursor=cursor)[0]
        for label, fn in (("offset", offset), ("keyset", keyset)):
            fn()
            times = []
            for _ in range({repeat}):
                s = time.perf_counter(); fn(); times.append((time.perf_counter() - s) * 1000)
            times.sort()
            p50, p95 = times[len(times) // 2], times[int(len(times) * 0.95)]
            print(f"{{label}} {{depth}} {{p50:.2f}} {{p95:.2f}}")
"""


def login(base: str, email: str) -> httpx2.Client:
    http = httpx2.Client(base_url=base, timeout=120, follow_redirects=False)
    page = http.get("/login/")
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text)
    assert token, "no CSRF token on the login page"
    done = http.post(
        "/login/",
        data={"username": email, "password": PASSWORD, "csrfmiddlewaretoken": token.group(1)},
        headers={"Referer": base + "/login/"},
    )
    if done.status_code != 302:
        raise SystemExit("could not log in to the dashboard")
    return http


def timed(http: httpx2.Client, path: str, repeat: int) -> tuple[float, float, str]:
    walls, body = [], ""
    for _ in range(repeat):
        started = time.perf_counter()
        response = http.get(path)
        walls.append((time.perf_counter() - started) * 1000)
        response.raise_for_status()
        body = response.text
    return percentile(walls, 50), percentile(walls, 95), body


def walk(http: httpx2.Client, path: str, pages: int) -> list[float]:
    """Follow the browser's "Load more" cursor ``pages`` times; each page's time."""
    walls: list[float] = []
    url = path
    for _ in range(pages):
        started = time.perf_counter()
        response = http.get(url, headers={"HX-Request": "true"})
        walls.append((time.perf_counter() - started) * 1000)
        response.raise_for_status()
        found = re.search(r'hx-get="\?([^"]*cursor=[^"]+)"', response.text)
        if not found:
            break
        url = path.split("?")[0] + "?" + found.group(1).replace("&amp;", "&")
    return walls


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=30)
    parser.add_argument("--pages", type=int, default=60, help="cursor pages to walk")
    parser.add_argument("--port", type=int, default=8731)
    args = parser.parse_args()
    (ROOT / "var" / "bench").mkdir(parents=True, exist_ok=True)
    migrate()
    key = tenant(args.size)
    slug, email = f"bench-{args.size}", f"bench{args.size}@mnemo.local"
    manage(
        "shell",
        "-c",
        f"from tenants.models import User; u = User.objects.get(email='{email}');"
        f" u.set_password('{PASSWORD}'); u.save()",
    )
    server = start_server(args.port)
    base = f"http://127.0.0.1:{args.port}"
    try:
        api = httpx2.Client(base_url=base, headers={"Authorization": f"Bearer {key}"}, timeout=120)
        ingest(api, args.size, seed=7)
        analyze()
        http = login(base, email)
        net = f"/t/{slug}/memory/default"
        _, _, first = timed(http, f"{net}/", 1)
        engram = re.search(r"/engrams/(\d+)/", first)
        hub = re.search(r'data-center="(\d+)"', http.get(f"{net}/graph/").text)
        rows: list[tuple[str, float, float, str]] = []

        def row(label: str, path: str, note: str = "") -> None:
            p50, p95, _ = timed(http, path, args.repeat)
            rows.append((label, p50, p95, note))

        row("browse: first page (newest)", f"{net}/")
        deep = walk(http, f"{net}/?sort=newest", args.pages)
        rows.append(
            (
                f"browse: pages 2–{len(deep)} by cursor",
                percentile(deep[1:], 50),
                percentile(deep[1:], 95),
                f"page {len(deep)}: {deep[-1]:.0f} ms",
            )
        )
        strong = walk(http, f"{net}/?sort=strongest", args.pages // 2)
        rows.append(
            (
                "browse: strongest, by cursor",
                percentile(strong, 50),
                percentile(strong, 95),
                f"{len(strong)} pages",
            )
        )
        row("browse: PATTERN, strength ≥ 0.6", f"{net}/?type=PATTERN&min_strength=0.6")
        word = re.search(r'<small class="muted">([a-z]+) ·', first)
        row("browse: full-text search", f"{net}/?q={word.group(1) if word else 'release'}")
        if engram:
            row("engram detail", f"{net}/engrams/{engram.group(1)}/")
        if hub:
            for depth in (2, 3):
                p50, p95, body = timed(
                    http, f"{net}/graph.json?cue={hub.group(1)}&depth={depth}", args.repeat
                )
                nodes = body.count('"word"')
                rows.append((f"graph: hub, depth {depth}", p50, p95, f"{nodes} nodes"))
        row("playground: recall", f"{net}/playground/?run=1&query=release+deploy+service")
        row("overview (plots, counts, latency)", f"/t/{slug}/", "")
        baseline = subprocess.run(
            [
                sys.executable,
                str(ROOT / "manage.py"),
                "shell",
                "-c",
                SQL_BASELINE.format(slug=slug, repeat=args.repeat),
            ],
            capture_output=True,
            text=True,
            cwd=ROOT,
            check=True,
        ).stdout.split("\n")
    finally:
        server.terminate()
        server.wait(timeout=30)
    print(f"\nDashboard at {args.size:,} engrams, one network (HTTP, logged-in session)")
    print(f"{'what':<38} {'p50 ms':>8} {'p95 ms':>8}  note")
    for label, p50, p95, note in rows:
        print(f"{label:<38} {p50:>8.1f} {p95:>8.1f}  {note}")
    print("\nOne page of 50 at a depth, SQL only: OFFSET (baseline) vs the browser's keyset")
    print(f"{'pagination':<12} {'depth':>7} {'p50 ms':>8} {'p95 ms':>8}")
    for line in baseline:
        parts = line.split()
        if len(parts) == 4:
            label, depth, p50, p95 = parts[0], int(parts[1]), float(parts[2]), float(parts[3])
            print(f"{label:<12} {depth:>7,} {p50:>8.2f} {p95:>8.2f}")


if __name__ == "__main__":
    main()
