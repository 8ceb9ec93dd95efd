"""Extended statistics: a network belongs to one tenant. Without them the planner multiplies the
selectivities of ``tenant_id = …`` and ``network_id = …`` as if independent (2% × 2% of the rows
instead of 2%), thinks a 10k-engram network holds a few dozen rows, and scans it row by row
instead of using the full-text index (48 ms instead of 12 for one text recall)."""

from __future__ import annotations

from django.db import migrations

TABLES = ("memory_engram", "memory_cue", "memory_engramcue", "memory_edge")


class Migration(migrations.Migration):
    dependencies = [("memory", "0015_engram_search_by_network")]

    operations = [
        migrations.RunSQL(
            [
                f"CREATE STATISTICS IF NOT EXISTS {table}_tenant_network (dependencies, ndistinct) "
                f"ON tenant_id, network_id FROM {table}"
                for table in TABLES
            ],
            reverse_sql=[f"DROP STATISTICS IF EXISTS {table}_tenant_network" for table in TABLES],
        ),
    ]
