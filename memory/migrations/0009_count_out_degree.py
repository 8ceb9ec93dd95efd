"""Count existing out-edges into Cue.out_degree and apply the bound (tenant by tenant, under RLS)."""

from __future__ import annotations

from django.db import migrations


def count(apps, schema_editor):  # type: ignore[no-untyped-def]
    from memory.core.hebbian import MAX_OUT_DEGREE

    Tenant = apps.get_model("tenants", "Tenant")
    with schema_editor.connection.cursor() as cursor:
        for tenant_id in Tenant.objects.values_list("pk", flat=True):
            cursor.execute("SELECT set_config('app.tenant_id', %s, true)", [str(tenant_id)])
            cursor.execute(
                """
                DELETE FROM memory_edge e USING (
                    SELECT id, row_number() OVER (PARTITION BY source_id ORDER BY weight DESC, id) rn
                      FROM memory_edge WHERE tenant_id = %s) r
                WHERE e.id = r.id AND r.rn > %s
                """,
                [tenant_id, MAX_OUT_DEGREE],
            )
            cursor.execute(
                """
                UPDATE memory_cue c SET out_degree = d.n
                  FROM (SELECT source_id, count(*) AS n FROM memory_edge WHERE tenant_id = %s
                         GROUP BY source_id) d
                 WHERE c.tenant_id = %s AND c.id = d.source_id
                """,
                [tenant_id, tenant_id],
            )


class Migration(migrations.Migration):
    dependencies = [("memory", "0008_cue_out_degree")]

    operations = [migrations.RunPython(count, migrations.RunPython.noop)]
