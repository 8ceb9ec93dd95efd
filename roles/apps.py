from __future__ import annotations

from django.apps import AppConfig


class RolesConfig(AppConfig):
    name = "roles"
    verbose_name = "Roles"
