"""``make run``: embedded services, migrations, the demo tenant, the web server and a worker.

Prints ``Dashboard:``, ``Login:``, ``API key:`` and ``MCP URL:`` once everything answers, then
keeps running until Ctrl-C, when it stops everything it started. Data lives in ``var/dev`` and is
reused by the next run. ``HOST`` and ``PORT`` choose the address (default 127.0.0.1:8000; the next
free port is used when 8000 is taken).
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from config.embedded import REPO_ROOT, EmbeddedServices, var_dir

PROFILE = "dev"


def _port_free(host: str, port: int) -> bool:
    with socket.socket() as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError:
            return False
    return True


def _pick_port(host: str, wanted: int) -> int:
    for port in range(wanted, wanted + 50):
        if _port_free(host, port):
            return port
    raise SystemExit(f"no free port between {wanted} and {wanted + 49} on {host}")


def _manage(env: dict[str, str], *args: str) -> str:
    result = subprocess.run(
        [sys.executable, str(REPO_ROOT / "manage.py"), *args],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if result.returncode != 0:
        sys.stderr.write(result.stdout + result.stderr)
        raise SystemExit(f"manage.py {args[0]} failed (exit {result.returncode})")
    return result.stdout


def _name(proc: subprocess.Popen[bytes]) -> str:
    """The module a child runs (``python -m <module> ...``)."""
    args = proc.args
    return str(args[2]) if isinstance(args, list | tuple) and len(args) > 2 else str(args)


def _wait_healthy(url: str, procs: list[subprocess.Popen[bytes]], timeout: float = 90) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for proc in procs:
            if proc.poll() is not None:
                raise SystemExit(f"{_name(proc)} exited early (code {proc.returncode}); see logs")
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            time.sleep(0.3)
    raise SystemExit(f"{url} did not answer within {timeout:.0f}s")


def _start(args: list[str], env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    handle = log.open("ab")
    return subprocess.Popen(
        args,
        env=env,
        stdout=handle,
        stderr=subprocess.STDOUT,
        cwd=REPO_ROOT,
        start_new_session=True,  # Ctrl-C reaches us; we stop the children in order
    )


def _stop(procs: list[subprocess.Popen[bytes]]) -> None:
    for proc in procs:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
    for proc in procs:
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()


def _raise_interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def main() -> int:
    host = os.environ.get("HOST", "127.0.0.1")
    port = _pick_port(host, int(os.environ.get("PORT", "8000")))
    public_url = os.environ.get("PUBLIC_URL", f"http://{host}:{port}")
    logs = var_dir(PROFILE) / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    # Ctrl-C and kill unwind alike (set explicitly: a shell may start us with SIGINT ignored).
    signal.signal(signal.SIGINT, _raise_interrupt)
    signal.signal(signal.SIGTERM, _raise_interrupt)
    services = EmbeddedServices(PROFILE)
    procs: list[subprocess.Popen[bytes]] = []
    try:
        print("Starting embedded Postgres and Redis ...", flush=True)
        services.start()
        env = {**os.environ, **services.env, "MNEMO_PROFILE": PROFILE, "PUBLIC_URL": public_url}
        print("Migrating the database ...", flush=True)
        owner_url = env.get("DATABASE_OWNER_URL") or env["DATABASE_URL"]
        _manage({**env, "DATABASE_URL": owner_url}, "migrate", "--noinput")
        state = json.loads(
            _manage(env, "demo_bootstrap", "--state", str(var_dir(PROFILE) / "demo.json"))
        )
        procs.append(
            _start(
                [sys.executable, "-m", "config.serve", "--host", host, "--port", str(port)],
                env,
                logs / "web.log",
            )
        )
        procs.append(
            _start(
                [
                    sys.executable,
                    "-m",
                    "celery",
                    "-A",
                    "config",
                    "worker",
                    "--loglevel",
                    "INFO",
                    "--concurrency",
                    "2",
                    "--beat",
                    "--schedule",
                    str(var_dir(PROFILE) / "beat-schedule"),
                ],
                env,
                logs / "worker.log",
            )
        )
        _wait_healthy(f"http://{host}:{port}/healthz", procs)
        print(f"Dashboard: {public_url}/", flush=True)
        print(f"Login: {state['email']} / {state['password']}", flush=True)
        print(f"API key: {state['api_key']}", flush=True)
        print(f"MCP URL: {public_url}/t/{state['slug']}/mcp", flush=True)
        print(f"(logs in {logs}; Ctrl-C stops everything)", flush=True)
        while all(proc.poll() is None for proc in procs):
            time.sleep(0.5)
        dead = next(proc for proc in procs if proc.poll() is not None)
        print(f"{_name(dead)} exited (code {dead.returncode}); see {logs}", flush=True)
        return 1
    except KeyboardInterrupt:
        return 0
    finally:
        # A second Ctrl-C must not abandon the children half-stopped.
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        print("Stopping ...", flush=True)
        _stop(procs)
        services.stop()
        print("Stopped.", flush=True)


if __name__ == "__main__":
    sys.exit(main())
