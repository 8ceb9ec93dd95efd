"""The audit table is tenant-isolated and append-only: UPDATE and DELETE raise."""

from __future__ import annotations

from django.db import migrations

from tenants import rls

APPEND_ONLY = """
CREATE OR REPLACE FUNCTION audit_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'audit events are append-only (% refused)', TG_OP
    USING ERRCODE = 'insufficient_privilege';
END $$;
CREATE TRIGGER audit_append_only BEFORE UPDATE OR DELETE ON audit_auditevent
  FOR EACH ROW EXECUTE FUNCTION audit_refuse_change();
"""


class Migration(migrations.Migration):
    dependencies = [("audit", "0001_initial"), ("tenants", "0002_row_level_security")]

    operations = [
        rls.enable("audit_auditevent"),
        migrations.RunSQL(
            APPEND_ONLY,
            reverse_sql="DROP TRIGGER IF EXISTS audit_append_only ON audit_auditevent; "
            "DROP FUNCTION IF EXISTS audit_refuse_change();",
        ),
    ]
