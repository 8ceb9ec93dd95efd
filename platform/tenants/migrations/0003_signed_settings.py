"""Signed row-level-security settings (see tenants/rls.py): the key table, the checking
functions, and every policy rewritten to check once per statement."""

from __future__ import annotations

from typing import Any

from django.db import migrations

from tenants import rls


def forwards(apps: Any, schema_editor: Any) -> None:
    with schema_editor.connection.cursor() as cursor:
        rls.store_signing_key(cursor)
        rls.wrap_policies(cursor)


class Migration(migrations.Migration):
    dependencies = [
        ("tenants", "0002_row_level_security"),
        ("audit", "0003_revoke_changes"),
        ("memory", "0013_jobs_lease_and_unembedded"),
        ("roles", "0002_row_level_security"),
    ]

    operations = [
        migrations.RunSQL(rls.SIGNED_FUNCTIONS_SQL),
        migrations.RunPython(forwards, migrations.RunPython.noop),
    ]
