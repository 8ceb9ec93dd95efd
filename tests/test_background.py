"""Background work survives a broker outage: a message the broker did not take waits in the
process and is sent when the broker answers again; while Redis fails, callers skip it."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis
from celery import Celery

from base.background import Pending
from base.redis_client import Breaker, redis_breaker
from config.embedded import free_port, redis_command


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[tuple[int, list[subprocess.Popen[bytes]]]]:
    """A Redis of the test's own (stopping the suite's Redis would stop everything else)."""
    port = free_port()
    started: list[subprocess.Popen[bytes]] = []
    yield port, started
    for proc in started:
        proc.terminate()
        proc.wait(timeout=10)


def start_redis(port: int, folder: Path, started: list[subprocess.Popen[bytes]]) -> None:
    folder.mkdir(exist_ok=True)
    proc = subprocess.Popen(redis_command(folder, port), stdout=subprocess.DEVNULL)
    started.append(proc)
    for _ in range(100):
        try:
            redis.Redis(port=port).ping()
            return
        except redis.ConnectionError:
            time.sleep(0.05)
    raise RuntimeError("the test's Redis did not start")


def test_a_message_the_broker_missed_is_sent_when_it_is_back(
    broker: tuple[int, list[subprocess.Popen[bytes]]], tmp_path: Path
) -> None:
    port, started = broker
    url = f"redis://127.0.0.1:{port}/0"
    app = Celery("outage", broker=url)
    app.conf.broker_transport_options = {"socket_timeout": 1, "socket_connect_timeout": 1}
    app.conf.broker_connection_timeout = 1
    app.conf.task_publish_retry_policy = {"max_retries": 0}
    app.conf.task_default_queue = "outage"
    pending = Pending(every=0.2, app=app)
    try:
        pending.send("tests.nothing", (1, 2))  # nothing listens on the port yet
        assert len(pending.messages) == 1
        redis_breaker.reset()
        start_redis(port, tmp_path / "redis", started)
        deadline = time.monotonic() + 15
        while pending.messages and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not pending.messages
        assert redis.Redis(port=port).llen("outage") == 1
    finally:
        redis_breaker.reset()


def test_the_breaker_skips_redis_for_a_moment_after_it_failed() -> None:
    breaker = Breaker(pause=0.2)
    assert not breaker.away()
    breaker.failed()
    assert breaker.away()
    time.sleep(0.25)
    assert not breaker.away()  # one caller probes Redis again ...
    assert breaker.away()  # ... while the others keep skipping it
    breaker.ok()  # the probe answered
    assert not breaker.away() and not breaker.away()


def test_past_its_limit_a_new_message_is_dropped_not_an_old_one() -> None:
    app = Celery("full", broker="redis://127.0.0.1:1/0")  # nothing listens there
    pending = Pending(limit=2, every=60, app=app)
    redis_breaker.failed()  # as after a failure: messages go straight to the queue
    try:
        for number in range(3):
            pending.send("tests.nothing", (number,))
        assert list(pending.messages) == [("tests.nothing", (0,)), ("tests.nothing", (1,))]
    finally:
        redis_breaker.reset()


def test_in_eager_mode_nothing_waits_for_a_broker() -> None:
    app = Celery("eager", broker="redis://127.0.0.1:1/0")
    app.conf.task_always_eager = True
    ran: list[int] = []

    @app.task(name="tests.eager")
    def eager(number: int) -> None:
        ran.append(number)

    redis_breaker.failed()
    try:
        Pending(app=app).send("tests.eager", (7,))
    finally:
        redis_breaker.reset()
    assert ran == [7]


def test_a_request_never_waits_for_the_broker_to_take_its_message(
    broker: tuple[int, list[subprocess.Popen[bytes]]], tmp_path: Path
) -> None:
    """Sending hands the message to the process's sending thread and returns: while the broker
    holds every write (CLIENT PAUSE), the message has been sent from the caller's point of view
    but still waits here; once the broker answers, every message is there."""
    port, started = broker
    start_redis(port, tmp_path / "redis", started)
    app = Celery("paused", broker=f"redis://127.0.0.1:{port}/0")
    app.conf.task_default_queue = "paused"
    pending = Pending(every=0.2, app=app)
    pending.send("tests.nothing", (0,))
    assert pending.flush(timeout=10)  # the connection is open, the first message delivered
    admin = redis.Redis(port=port)
    admin.execute_command("CLIENT", "PAUSE", 1500, "WRITE")
    try:
        for number in (1, 2):
            pending.send("tests.nothing", (number,))
        assert [args for _, args in pending.messages] == [(1,), (2,)]
        assert pending.flush(timeout=15)
    finally:
        redis_breaker.reset()
    assert admin.llen("paused") == 3 and not pending.messages
