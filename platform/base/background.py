"""Background work queued when the current transaction commits, named by its Celery task name.

A task module imports the services it adapts, so a service that queues follow-up work cannot
import that task module back (it would close an import circle). It names the task instead;
Celery resolves the name to the registered task, so eager mode and task options still apply.
A test checks that every name passed here is a registered task.
"""

from __future__ import annotations

from celery import current_app
from django.db import transaction


def after_commit(task_name: str, *args: object, robust: bool = True) -> None:
    """Queue ``task_name(*args)`` after commit. ``robust``: a broker outage is logged by Django
    instead of failing a request whose writes are already committed."""
    transaction.on_commit(
        lambda: current_app.signature(task_name, args=args).delay(), robust=robust
    )
