"""Cue counts updated in place (HOT): no index holds engram_count any more, and a cue page
keeps room for a second version of a row that carries its 1.5 KB embedding inline.

Every remember raises the engram counts of its cues. An update that changes an indexed
column, or finds no room on its page, writes the row into every index again, the embedding's
HNSW graph included (~2,000 pages read, 6-28 ms of each remember at 100k engrams); a HOT
update takes ~0.25 ms. At fillfactor 85 four cue rows of ~1.6 KB fill a page and leave 1.2 KB:
no room for a new version. At 70 a page holds three and leaves 3.2 KB. Rows already stored
move to such pages on their next update (no table rewrite here: VACUUM FULL or pg_repack
does it at once, under a lock).
"""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("memory", "0025_work"),
        ("tenants", "0004_moderation"),
    ]

    operations = [
        migrations.RemoveIndex(
            model_name="cue",
            name="cue_tenant_network_degree",
        ),
        migrations.RemoveIndex(
            model_name="cue",
            name="cue_names",
        ),
        migrations.AddIndex(
            model_name="cue",
            index=models.Index(
                models.F("tenant"),
                models.F("network"),
                condition=models.Q(("lemma__contains", " ")),
                name="cue_names",
            ),
        ),
        migrations.RunSQL(
            "ALTER TABLE memory_cue SET (fillfactor = 70);",
            reverse_sql="ALTER TABLE memory_cue SET (fillfactor = 85);",
        ),
    ]
