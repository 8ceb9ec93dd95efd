"""Background work queued when the current transaction commits, named by its Celery task name.

A task module imports the services it adapts, so a service that queues follow-up work cannot
import that task module back (it would close an import circle). It names the task instead;
Celery resolves the name to the registered task, so eager mode and task options still apply.
A test checks that every name passed here is a registered task.
"""

from __future__ import annotations

import atexit
import logging
import os
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
    """Messages on their way to the broker, sent in order by a thread of their own, so a
    request never waits on Redis (publishing was ~1.9 ms of each remember, profiled). A message the
    broker does not take stays, and is tried again every ``every`` seconds, oldest first. At
    most ``limit`` wait: past that new ones are dropped with an error in the log, and the
    maintenance sweep finds the work they stood for (imports, embeddings); so does it for
    whatever a process that dies meanwhile still held. At a normal exit the thread is given a
    few seconds to send what is left (``flush``)."""

    def __init__(self, limit: int = 10_000, every: float = 2.0, app: Celery | None = None) -> None:
        self.app = app
        self.limit = limit
        self.messages: deque[tuple[str, tuple[object, ...]]] = deque()
        self.every = every
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._idle = threading.Event()
        self._idle.set()
        self._thread: threading.Thread | None = None
        os.register_at_fork(after_in_child=self._forked)

    def _forked(self) -> None:
        """A forked child (a Celery pool process) starts empty: the parent sends its own
        messages, and a lock its sending thread held at the fork would never be released."""
        self.messages = deque()
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._idle = threading.Event()
        self._idle.set()
        self._thread = None

    def send(self, task_name: str, args: tuple[object, ...]) -> None:
        if (self.app or current_app).conf.task_always_eager:
            _publish(task_name, args, self.app)  # runs here and now: no broker involved
            return
        with self._lock:
            if len(self.messages) >= self.limit:
                log.error(
                    "%s dropped: %d messages already wait for the broker", task_name, self.limit
                )
                return
            self.messages.append((task_name, args))
            self._idle.clear()
            self._wake.set()
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._drain, name="pending", daemon=True)
                self._thread.start()

    def flush(self, timeout: float = 5.0) -> bool:
        """Wait until every message was handed to the broker (or ``timeout``); True if so."""
        return self._idle.wait(timeout)

    def _drain(self) -> None:
        while True:
            self._wake.wait()
            self._wake.clear()
            while not self._send_all():  # the broker is away: try again in a moment
                time.sleep(self.every)
                log.info("messages waiting for the broker: %d", len(self.messages))

    def _send_all(self) -> bool:
        """Send every waiting message, oldest first; False when the broker did not take one."""
        while True:
            with self._lock:
                if not self.messages:
                    self._idle.set()
                    return True
                message = self.messages[0]
            if redis_breaker.away():
                return False
            try:
                _publish(*message, self.app)
            except BROKER_ERRORS:
                redis_breaker.failed()
                log.warning("the broker did not take %s; it waits in this process", message[0])
                return False
            except Exception:  # a message that can never be sent must not block the rest
                log.exception("dropping %s: it cannot be sent", message[0])
            else:
                redis_breaker.ok()
            with self._lock:  # only this thread removes, so the head is still ``message``
                self.messages.popleft()


pending = Pending()
atexit.register(pending.flush)


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
