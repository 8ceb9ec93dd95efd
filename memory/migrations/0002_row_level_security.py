"""Row-level security on every memory table."""

from __future__ import annotations

from django.db import migrations

from tenants import rls

TABLES = ("memory_network", "memory_cue", "memory_edge", "memory_engram", "memory_engramcue")


class Migration(migrations.Migration):
    dependencies = [("memory", "0001_initial"), ("tenants", "0002_row_level_security")]

    operations = [rls.enable(table) for table in TABLES]
