"""Background work queued when the current transaction commits, named by its Celery task name.

A task module imports the services it adapts, so a service that queues follow-up work cannot
import that task module back (it would close an import circle). It names the task instead;
Celery resolves the name to the registered task, so eager mode and task options still apply.
A test checks that every name passed here is a registered task.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque

from celery import Celery, current_app
from django.conf import settings
from django.db import transaction
from kombu.exceptions import OperationalError as KombuOperationalError
from redis.exceptions import RedisError

from base.redis_client import redis_breaker

log = logging.getLogger(__name__)
BROKER_ERRORS = (KombuOperationalError, RedisError, OSError)


def after_commit(task_name: str, *args: object, robust: bool = True) -> None:
    """Queue ``task_name(*args)`` after commit. ``robust``: a broker outage never fails a
    request whose writes are already committed; the message waits in this process and is sent
    when the broker answers again (``Pending``), and the maintenance sweep finds whatever a
    process that died meanwhile still held."""
    if robust:
        transaction.on_commit(lambda: pending.send(task_name, args), robust=True)
    else:
        transaction.on_commit(lambda: _publish(task_name, args))


def _publish(task_name: str, args: tuple[object, ...], app: Celery | None = None) -> None:
    (app or current_app).signature(task_name, args=args).delay()


class Pending:
    """Messages the broker did not take, sent again every few seconds by a thread of their own
    (oldest first, at most ``limit`` kept: past that the sweep is the safety net)."""

    def __init__(self, limit: int = 10_000, every: float = 2.0, app: Celery | None = None) -> None:
        self.app = app
        self.messages: deque[tuple[str, tuple[object, ...]]] = deque(maxlen=limit)
        self.every = every
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def send(self, task_name: str, args: tuple[object, ...]) -> None:
        if not self.messages and not redis_breaker.away():
            try:
                _publish(task_name, args, self.app)
                return
            except BROKER_ERRORS:
                redis_breaker.failed()
                log.warning("the broker did not take %s; it waits in this process", task_name)
        with self._lock:
            self.messages.append((task_name, args))
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._drain, name="pending", daemon=True)
                self._thread.start()

    def _drain(self) -> None:
        while True:
            time.sleep(self.every)
            with self._lock:
                if not self.messages:
                    self._thread = None
                    return
            if redis_breaker.away():
                continue
            try:
                while self.messages:
                    task_name, args = self.messages[0]
                    _publish(task_name, args, self.app)
                    self.messages.popleft()
                log.info("the broker is back: queued messages sent")
            except BROKER_ERRORS:
                redis_breaker.failed()


pending = Pending()


def queue_is_empty(kind: str) -> bool:
    """Whether nothing waits in queue ``kind`` (settings.QUEUES: imports, embeddings, ...).

    Reads the broker's list for that queue; False when the broker cannot be read, so a caller
    deciding "nothing is on its way" errs on the side of waiting."""
    from base.redis_client import client

    try:
        return not pending.messages and int(client().llen(settings.QUEUES[kind])) == 0
    except Exception:  # the broker is away: we cannot know
        log.warning("could not read the length of the %s queue", kind, exc_info=True)
        return False
