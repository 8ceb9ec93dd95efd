"""``manage.py tenant_create SLUG --owner EMAIL``: a tenant, its owner and a read+write key."""

from __future__ import annotations

import secrets
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import transaction

from audit.actors import Actor
from base.errors import MnemoError
from tenants import services
from tenants.models import User


class Command(BaseCommand):
    help = "Create a tenant with an owner and a read+write API key; prints 'API key: <key>'."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("slug")
        parser.add_argument("--owner", required=True, help="owner email (created if new)")
        parser.add_argument("--name", default="", help="display name (default: the slug)")
        parser.add_argument("--password", default="", help="password for a new owner")
        parser.add_argument("--key-name", default="cli")

    def handle(self, *args: Any, **opts: Any) -> None:
        try:
            with transaction.atomic():
                self._create(opts)
        except MnemoError as exc:
            raise CommandError(exc.message) from exc

    def _create(self, opts: dict[str, Any]) -> None:
        email = opts["owner"].strip().lower()
        owner = User.objects.filter(email=email).first()
        password = ""
        if owner is None:
            password = opts["password"] or secrets.token_urlsafe(12)
            owner = services.user_create(email=email, password=password)
        actor = Actor.system("manage.py tenant_create")
        tenant = services.tenant_create(
            name=opts["name"] or opts["slug"], slug=opts["slug"], owner=owner, actor=actor
        )
        owner_actor = Actor.for_user(owner, role="owner")
        _, secret = services.apikey_create(
            tenant=tenant, actor=owner_actor, name=opts["key_name"], scopes=["read", "write"]
        )
        self.stdout.write(f"Tenant: {tenant.slug}")
        self.stdout.write(f"Owner: {owner.email}")
        if password:
            self.stdout.write(f"Password: {password}")
        self.stdout.write(f"API key: {secret}")
