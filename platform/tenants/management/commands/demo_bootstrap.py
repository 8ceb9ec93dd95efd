"""``manage.py demo_bootstrap --state FILE``: the demo tenant for ``make run``, created once.

The state file (under var/, never committed) keeps the demo password and API key so that every
``make run`` can print them again; the database only ever holds the key's digest.
"""

from __future__ import annotations

import json
import secrets
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandParser
from django.db import transaction

from audit.actors import Actor
from tenants import rls, services
from tenants.access import apikey_authenticate
from tenants.models import Tenant, User

DEMO_SLUG = "demo"
DEMO_EMAIL = "demo@mnemo.local"


class Command(BaseCommand):
    help = "Create the demo tenant, owner and API key once; print them as JSON."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--state", required=True, type=Path)

    def handle(self, *args: Any, **opts: Any) -> None:
        path: Path = opts["state"]
        state = json.loads(path.read_text()) if path.exists() else {}
        with transaction.atomic():
            state = self._ensure(state)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(state, indent=2))
        path.chmod(0o600)
        self.stdout.write(json.dumps(state))

    def _ensure(self, state: dict[str, str]) -> dict[str, str]:
        user = User.objects.filter(email=DEMO_EMAIL).first()
        if user is None or not state.get("password") or not user.check_password(state["password"]):
            state["password"] = secrets.token_urlsafe(9)
            if user is None:
                user = services.user_create(email=DEMO_EMAIL, password=state["password"])
            else:
                user.set_password(state["password"])
                user.save(update_fields=["password"])
        tenant = Tenant.objects.filter(slug=DEMO_SLUG).first()
        if tenant is None:
            tenant = services.tenant_create(
                name="Demo", slug=DEMO_SLUG, owner=user, actor=Actor.system("make run")
            )
        rls.activate(tenant_id=tenant.pk)
        key = apikey_authenticate(secret=state.get("api_key", ""), tenant_slug=DEMO_SLUG)
        if key is None:
            rls.activate(tenant_id=tenant.pk)
            _, state["api_key"] = services.apikey_create(
                tenant=tenant,
                actor=Actor.for_user(user, role="owner"),
                name="demo",
                scopes=["read", "write"],
            )
        state.update(email=DEMO_EMAIL, slug=DEMO_SLUG)
        return state
