"""Row-level security on every roles table."""

from __future__ import annotations

from django.db import migrations

from tenants import rls

TABLES = ("roles_role", "roles_roleresource", "roles_roleversion", "roles_resourceversion")


class Migration(migrations.Migration):
    dependencies = [("roles", "0001_initial"), ("tenants", "0002_row_level_security")]

    operations = [rls.enable(table) for table in TABLES]
