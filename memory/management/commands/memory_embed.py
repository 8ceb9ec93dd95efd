"""``manage.py memory_embed [--tenant SLUG] [--network KEY]``: fill in missing or outdated
embeddings in the foreground (backfills, a model change, benchmarks), with progress."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser
from django.db.models import Q

from memory.embeddings import embedder
from memory.models import Engram, Network
from memory.services.embedding import embed_missing
from tenants import rls
from tenants.models import Tenant

CHUNK = 1024


class Command(BaseCommand):
    help = "Embed engrams and cues that have no vector from the current model."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--tenant", help="tenant slug (default: all)")
        parser.add_argument("--network", help="network key (default: all)")

    def handle(self, *args: Any, **opts: Any) -> None:
        model = embedder().model_id
        tenants = Tenant.objects.all()
        if opts["tenant"]:
            tenants = tenants.filter(slug=opts["tenant"])
        for tenant in tenants:
            with rls.tenant_scope(tenant.pk):
                networks = list(Network.objects.filter(tenant=tenant))
            for network in networks:
                if opts["network"] and network.key != opts["network"]:
                    continue
                self._network(tenant, network, model)

    def _network(self, tenant: Tenant, network: Network, model: str) -> None:
        done = 0
        while True:
            with rls.tenant_scope(tenant.pk):
                ids = list(
                    Engram.objects.filter(tenant=tenant, network=network)
                    .filter(Q(embedding__isnull=True) | ~Q(embedding_model=model))
                    .order_by("id")
                    .values_list("id", flat=True)[:CHUNK]
                )
                if not ids:
                    break
                stored = embed_missing(tenant_id=tenant.pk, network_id=network.pk, engram_ids=ids)
            if stored == 0:  # everything left changed under us; its own task will embed it
                break
            done += stored
            self.stdout.write(f"{tenant.slug}/{network.key}: {done} embedded", ending="\r")
            self.stdout.flush()
        self.stdout.write(f"{tenant.slug}/{network.key}: {done} embedded")
