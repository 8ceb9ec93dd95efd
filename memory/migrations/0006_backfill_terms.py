"""Fill ``terms`` for engrams written before the field existed (tenant by tenant, under RLS)."""

from __future__ import annotations

from django.db import migrations


def backfill(apps, schema_editor):  # type: ignore[no-untyped-def]
    from memory.core.text import content_lemmas, lemma

    Engram = apps.get_model("memory", "Engram")
    Tenant = apps.get_model("tenants", "Tenant")
    connection = schema_editor.connection
    for tenant_id in Tenant.objects.values_list("pk", flat=True):
        with connection.cursor() as cursor:
            cursor.execute("SELECT set_config('app.tenant_id', %s, true)", [str(tenant_id)])
        pending = Engram.objects.filter(tenant_id=tenant_id, terms=[])
        batch = []
        for engram in pending.only("id", "content", "schema").iterator(chunk_size=2000):
            engram.terms = sorted(
                set(content_lemmas(engram.content)) | {lemma(w) for w in engram.schema}
            )
            batch.append(engram)
            if len(batch) >= 2000:
                Engram.objects.bulk_update(batch, ["terms"])
                batch = []
        if batch:
            Engram.objects.bulk_update(batch, ["terms"])


class Migration(migrations.Migration):
    dependencies = [("memory", "0005_edge_hot_updates")]

    operations = [migrations.RunPython(backfill, migrations.RunPython.noop)]
