"""Row-level security on the dashboard's memory tables."""

from __future__ import annotations

from django.db import migrations

from tenants import rls


class Migration(migrations.Migration):
    dependencies = [("memory", "0010_dashboard")]

    operations = [rls.enable(table) for table in ("memory_recallevent", "memory_importjob")]
