"""Background work queued when the current transaction commits, named by its Celery task name.

A task module imports the services it adapts, so a service that queues follow-up work cannot
import that task module back (it would close an import circle). It names the task instead;
Celery resolves the name to the registered task, so eager mode and task options still apply.
A test checks that every name passed here is a registered task.
"""

from __future__ import annotations

import logging

from celery import current_app
from django.conf import settings
from django.db import transaction

log = logging.getLogger(__name__)


def after_commit(task_name: str, *args: object, robust: bool = True) -> None:
    """Queue ``task_name(*args)`` after commit. ``robust``: a broker outage is logged by Django
    instead of failing a request whose writes are already committed."""
    transaction.on_commit(
        lambda: current_app.signature(task_name, args=args).delay(), robust=robust
    )


def queue_is_empty(kind: str) -> bool:
    """Whether nothing waits in queue ``kind`` (settings.QUEUES: imports, embeddings, ...).

    Reads the broker's list for that queue; False when the broker cannot be read, so a caller
    deciding "nothing is on its way" errs on the side of waiting."""
    from base.redis_client import client

    try:
        return int(client().llen(settings.QUEUES[kind])) == 0
    except Exception:  # the broker is away: we cannot know
        log.warning("could not read the length of the %s queue", kind, exc_info=True)
        return False
