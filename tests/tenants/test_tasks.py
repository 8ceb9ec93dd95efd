"""Invitation mail goes out through a real Celery worker, after the transaction commits."""

from __future__ import annotations

import email
import time
from pathlib import Path

from audit.actors import Actor
from tenants import rls, services
from tests.factories import make_cast


def wait_for_files(folder: Path, timeout: float = 30) -> list[Path]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        files = sorted(folder.glob("*.log")) if folder.exists() else []
        if files:
            return files
        time.sleep(0.2)
    return []


def test_an_invitation_email_is_sent_by_the_worker_with_a_working_link(
    celery_worker: Path,
) -> None:
    cast = make_cast()
    with rls.tenant_scope(cast.tenant.pk):
        _, token = services.invitation_create(
            tenant=cast.tenant,
            actor=Actor.for_user(cast.owner, role="owner"),
            email="invitee@example.com",
            role="member",
        )
    files = wait_for_files(celery_worker)
    assert files, "the worker sent no mail"
    raw = files[0].read_text().split("\n" + "-" * 79, 1)[0]
    message = email.message_from_string(raw)
    body = message.get_payload(decode=True).decode()
    assert message["To"] == "invitee@example.com"
    assert f"/invite/{token}/" in body
    assert "Acme" in message["Subject"]


def test_a_rolled_back_invitation_sends_nothing(celery_worker: Path) -> None:
    cast = make_cast()
    try:
        with rls.tenant_scope(cast.tenant.pk):
            services.invitation_create(
                tenant=cast.tenant,
                actor=Actor.for_user(cast.owner, role="owner"),
                email="ghost@example.com",
                role="member",
            )
            raise RuntimeError("the request failed after the service call")
    except RuntimeError:
        pass
    assert wait_for_files(celery_worker, timeout=3) == []
