"""Celery tasks for tenants: thin adapters around services and Django's mailer."""

from __future__ import annotations

from celery import shared_task
from django.conf import settings
from django.core.mail import send_mail
from django.urls import reverse

from tenants import rls
from tenants.models import Invitation


@shared_task(bind=True, autoretry_for=(OSError,), retry_backoff=True, max_retries=5)
def send_invitation_email(self: object, tenant_id: int, invitation_id: int, token: str) -> str:
    """Mail the invitation link. Idempotent enough: a retry sends the same link again."""
    with rls.tenant_scope(tenant_id):
        invitation = (
            Invitation.objects.select_related("tenant")
            .filter(tenant_id=tenant_id, pk=invitation_id)
            .first()
        )
        if invitation is None or not invitation.is_pending:
            return "skipped"
        link = settings.PUBLIC_URL + reverse("invitation_accept", args=[token])
        send_mail(
            subject=f"You are invited to {invitation.tenant.name} on Mnemo",
            message=(
                f"You have been invited to join {invitation.tenant.name} on Mnemo as "
                f"{invitation.get_role_display()}.\n\nAccept: {link}\n\n"
                f"The link works once and expires on {invitation.expires_at:%Y-%m-%d}."
            ),
            from_email=settings.DEFAULT_FROM_EMAIL,
            recipient_list=[invitation.email],
        )
    return "sent"
