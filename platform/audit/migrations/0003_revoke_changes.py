"""Only the table owner keeps UPDATE/DELETE on the audit table; the trigger refuses them anyway."""

from __future__ import annotations

from django.db import migrations

REVOKE = """
DO $$
DECLARE grantee_name text;
BEGIN
  FOR grantee_name IN
    SELECT DISTINCT grantee FROM information_schema.role_table_grants
     WHERE table_name = 'audit_auditevent' AND grantee <> current_user
       AND privilege_type IN ('UPDATE', 'DELETE', 'TRUNCATE')
  LOOP
    EXECUTE format('REVOKE UPDATE, DELETE, TRUNCATE ON audit_auditevent FROM %I', grantee_name);
  END LOOP;
END $$;
"""


class Migration(migrations.Migration):
    dependencies = [("audit", "0002_append_only")]

    operations = [migrations.RunSQL(REVOKE, reverse_sql=migrations.RunSQL.noop)]
