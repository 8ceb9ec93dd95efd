"""The engram search index merges its pending list at 256 kB instead of 4 MB (see the model).

ALTER INDEX changes the storage parameter in place; Django would rebuild the whole index."""

import django.contrib.postgres.indexes
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("memory", "0026_cue_counts_hot")]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[
                migrations.RunSQL(
                    "ALTER INDEX engram_search_gin SET (gin_pending_list_limit = 256)",
                    reverse_sql="ALTER INDEX engram_search_gin RESET (gin_pending_list_limit)",
                )
            ],
            state_operations=[
                migrations.RemoveIndex(model_name="engram", name="engram_search_gin"),
                migrations.AddIndex(
                    model_name="engram",
                    index=django.contrib.postgres.indexes.GinIndex(
                        models.F("network"),
                        models.F("search"),
                        gin_pending_list_limit=256,
                        name="engram_search_gin",
                    ),
                ),
            ],
        )
    ]
