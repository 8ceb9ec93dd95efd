"""``make run``: embedded services, migrations, the demo tenant, the web server and a worker.

Prints ``Dashboard:``, ``Login:``, ``API key:`` and ``MCP URL:`` once everything answers, then
keeps running until Ctrl-C, when it stops everything it started. Data lives in ``var/dev`` and is
reused by the next run. ``HOST`` and ``PORT`` choose the address (default 127.0.0.1:8000; the next
free port is used when 8000 is taken).
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from config.embedded import REPO_ROOT, EmbeddedServices, var_dir
from config.env import queues

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


@dataclass
class Child:
    """A process make run keeps alive: restarted (its whole process group cleared first, so no
    orphaned pool process survives) with a growing delay if it dies."""

    name: str
    args: list[str]
    env: dict[str, str]
    log: Path
    proc: subprocess.Popen[bytes] | None = None
    started: float = 0.0
    delay: float = 1.0
    due: float = 0.0  # when a dead child is started again

    def start(self) -> None:
        handle = self.log.open("ab")
        self.proc = subprocess.Popen(
            self.args,
            env=self.env,
            stdout=handle,
            stderr=subprocess.STDOUT,
            cwd=REPO_ROOT,
            start_new_session=True,  # its own process group: Ctrl-C reaches us, we stop it
        )
        self.started = time.monotonic()

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def kill_group(self, sig: int = signal.SIGKILL) -> None:
        if self.proc is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.proc.pid, sig)

    def tend(self) -> None:
        """Restart the child if it died (after the delay); report it once."""
        if self.proc is None or self.alive():
            if self.alive() and time.monotonic() - self.started > 60:
                self.delay = 1.0  # a minute up: the next crash restarts at once again
            return
        now = time.monotonic()
        if not self.due:
            print(
                f"{self.name} exited (code {self.proc.returncode}); restarting in "
                f"{self.delay:.0f} s (log: {self.log})",
                flush=True,
            )
            self.kill_group()  # pool processes the dead main process left behind
            self.due = now + self.delay
            self.delay = min(self.delay * 2, 30.0)
        elif now >= self.due:
            self.due = 0.0
            self.start()

    def stop(self) -> None:
        if self.alive():
            self.kill_group(signal.SIGTERM)
        if self.proc is not None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(timeout=20)
            self.kill_group()


def _wait_healthy(url: str, children: list[Child], timeout: float = 90) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for child in children:
            if not child.alive() and child.proc is not None:
                code = child.proc.returncode
                raise SystemExit(f"{child.name} exited early (code {code}); see {child.log}")
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            time.sleep(0.3)
    raise SystemExit(f"{url} did not answer within {timeout:.0f}s")


CORES = os.cpu_count() or 1
WORKER_PROCESSES = 2


def _celery(*args: str) -> list[str]:
    return [sys.executable, "-m", "celery", "-A", "config", "worker", "--loglevel", "INFO", *args]


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
    children: list[Child] = []
    try:
        print("Starting embedded Postgres and Redis ...", flush=True)
        services.start()
        env = {**os.environ, **services.env, "MNEMO_PROFILE": PROFILE, "PUBLIC_URL": public_url}
        print("Migrating the database ...", flush=True)
        owner_url = env.get("DATABASE_OWNER_URL") or env["DATABASE_URL"]
        _manage({**env, "DATABASE_URL": owner_url}, "migrate", "--noinput")
        state_file = str(var_dir(PROFILE) / "demo.json")
        state = json.loads(_manage(env, "demo_bootstrap", "--state", state_file))
        try:  # the demo's contents are a convenience: Mnemo starts without them
            print(_manage(env, "demo_seed", "--state", state_file).strip(), flush=True)
        except SystemExit as failed:
            print(f"demo: not seeded ({failed}); Mnemo starts anyway", flush=True)
        names = queues(PROFILE)
        children = [
            Child(
                "the web server",
                [sys.executable, "-m", "config.serve", "--host", host, "--port", str(port)],
                env,
                logs / "web.log",
            ),
            Child(
                "the worker",
                _celery(
                    "--queues",
                    ",".join([names["default"], names["embeddings"], names["maintenance"]]),
                    "--concurrency",
                    str(WORKER_PROCESSES),
                    "--hostname",
                    "work@%h",
                    "--beat",
                    "--schedule",
                    str(var_dir(PROFILE) / "beat-schedule"),
                ),
                # the pool's processes share the cores: one ONNX thread each, not two each
                {"EMBEDDINGS_THREADS": str(max(1, CORES // WORKER_PROCESSES)), **env},
                logs / "worker.log",
            ),
            Child(
                "the import and extraction worker",  # long jobs, off the quick work's way
                _celery(
                    "--queues",
                    ",".join([names["imports"], names["extraction"]]),
                    "--concurrency",
                    "1",
                    "--hostname",
                    "imports@%h",
                ),
                env,
                logs / "imports.log",
            ),
        ]
        for child in children:
            child.start()
        _wait_healthy(f"http://{host}:{port}/healthz", children)
        print(f"Dashboard: {public_url}/", flush=True)
        print(f"Login: {state['email']} / {state['password']}", flush=True)
        print(f"API key: {state['api_key']}", flush=True)
        print(f"MCP URL: {public_url}/t/{state['slug']}/mcp", flush=True)
        print(f"(logs in {logs}; Ctrl-C stops everything)", flush=True)
        while True:  # until Ctrl-C: a child that dies is started again
            time.sleep(0.5)
            for child in children:
                child.tend()
    except KeyboardInterrupt:
        return 0
    finally:
        # A second Ctrl-C must not abandon the children half-stopped.
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        print("Stopping ...", flush=True)
        for child in children:
            child.stop()
        services.stop()
        print("Stopped.", flush=True)


if __name__ == "__main__":
    sys.exit(main())
