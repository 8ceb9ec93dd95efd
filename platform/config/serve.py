"""Serve Mnemo: ``python -m config.serve [--host H] [--port P] [--workers N]``.

The one way the ASGI app is started (``make run``, the benchmarks, the container image), so the
serving model is set in one place: uvicorn with several worker processes. Python runs one
thread's bytecode at a time per process; recall spends its time in Python (scoring, packing)
between database round trips, so on a machine with C cores, C worker processes serve C requests
at once. ``WEB_WORKERS`` (or ``--workers``) overrides the default of one worker per core.
"""

from __future__ import annotations

import argparse
import os

import uvicorn


def default_workers() -> int:
    configured = os.environ.get("WEB_WORKERS", "")
    if configured.isascii() and configured.isdigit() and int(configured) > 0:
        return int(configured)
    return max(1, os.cpu_count() or 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--host", default=os.environ.get("HOST", "127.0.0.1"))
    parser.add_argument("--port", type=int, default=int(os.environ.get("PORT", "8000")))
    parser.add_argument("--workers", type=int, default=0, help="0: WEB_WORKERS or one per core")
    parser.add_argument("--log-level", default="warning")
    args = parser.parse_args()
    # A web worker embeds one short query per recall: a second ONNX thread does not make that
    # faster (2.1 ms with one, 2.2 with two), and between runs it spins on a core that Postgres
    # and the other workers need (profiled: statements took 0.5 ms to send instead of 0.03;
    # recall p95 63 -> 56 ms in process). Bulk embedding (the Celery worker) sets its own.
    os.environ.setdefault("EMBEDDINGS_THREADS", "1")
    uvicorn.run(
        "config.asgi:application",
        host=args.host,
        port=args.port,
        workers=args.workers or default_workers(),
        lifespan="on",
        access_log=False,
        log_level=args.log_level,
        proxy_headers=True,
        forwarded_allow_ips=os.environ.get("FORWARDED_ALLOW_IPS", ""),
    )


if __name__ == "__main__":
    main()
