"""Cue embeddings move to a narrow table of their own (``memory.models.CueVector``): a cue row
shrinks from ~1.6 KB to ~100 bytes, and a network's vectors are read together.

The vectors are copied in one statement, ordered by network so that each network's rows sit
together. ``memory_cue`` forces row-level security on its owner too; the copy is the owner's
own data move, so RLS is lifted for it inside this migration's transaction (the ALTER holds
the table's exclusive lock until commit: no other session ever sees it lifted). The new table
has no policy until the copy is done, then gets the same tenant isolation as the others.

The whole migration is one transaction holding the cue table's exclusive lock: remember and
recall wait for it (2 minutes for 300k vectors on the bench machine, most of it building the
new HNSW graph)."""

from __future__ import annotations

import django.db.models.deletion
import pgvector.django.indexes
import pgvector.django.vector
from django.db import migrations, models

from tenants import rls

COPY = """
ALTER TABLE memory_cue NO FORCE ROW LEVEL SECURITY;
INSERT INTO memory_cuevector (cue_id, tenant_id, network_id, embedding)
SELECT id, tenant_id, network_id, embedding FROM memory_cue
 WHERE embedding IS NOT NULL ORDER BY tenant_id, network_id, id;
ALTER TABLE memory_cue FORCE ROW LEVEL SECURITY;
ANALYZE memory_cuevector;
"""
COPY_BACK = """
ALTER TABLE memory_cue NO FORCE ROW LEVEL SECURITY;
UPDATE memory_cue c SET embedding = v.embedding FROM memory_cuevector v WHERE c.id = v.cue_id;
ALTER TABLE memory_cue FORCE ROW LEVEL SECURITY;
"""


class Migration(migrations.Migration):
    dependencies = [
        ("memory", "0027_search_pending_list"),
        ("tenants", "0004_moderation"),
    ]

    operations = [
        # first: undone last, after the vectors are back (one bulk build, not 300k inserts)
        migrations.RemoveIndex(model_name="cue", name="cue_embedding_hnsw"),
        migrations.CreateModel(
            name="CueVector",
            fields=[
                (
                    "cue",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        primary_key=True,
                        related_name="vector",
                        serialize=False,
                        to="memory.cue",
                    ),
                ),
                (
                    "tenant",
                    models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to="tenants.tenant",
                    ),
                ),
                (
                    "network",
                    models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to="memory.network",
                    ),
                ),
                ("embedding", pgvector.django.vector.VectorField(dimensions=384)),
            ],
        ),
        migrations.RunSQL(COPY, reverse_sql=COPY_BACK),
        migrations.AddIndex(
            model_name="cuevector",
            index=models.Index(fields=["tenant", "network"], name="cuevector_network"),
        ),
        migrations.AddIndex(
            model_name="cuevector",
            index=pgvector.django.indexes.HnswIndex(
                ef_construction=64,
                fields=["embedding"],
                m=16,
                name="cuevector_hnsw",
                opclasses=["vector_cosine_ops"],
            ),
        ),
        migrations.RunSQL(
            "CREATE STATISTICS IF NOT EXISTS memory_cuevector_tenant_network "
            "(dependencies, ndistinct) ON tenant_id, network_id FROM memory_cuevector",
            reverse_sql="DROP STATISTICS IF EXISTS memory_cuevector_tenant_network",
        ),
        rls.enable("memory_cuevector"),
        migrations.RemoveField(model_name="cue", name="embedding"),
    ]
