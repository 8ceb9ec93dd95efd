from __future__ import annotations

from django.apps import AppConfig


class GatewayConfig(AppConfig):
    name = "gateway"
    verbose_name = "Gateways"

    def ready(self) -> None:
        from gateway.rest import schema  # noqa: F401  (registers the OpenAPI auth extension)
