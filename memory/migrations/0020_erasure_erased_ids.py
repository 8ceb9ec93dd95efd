"""The ids an erasure removed, so a redelivered run probes and signs instead of erasing again."""

import django.contrib.postgres.fields
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("memory", "0019_network_retention")]

    operations = [
        migrations.AddField(
            model_name="erasure",
            name="erased_ids",
            field=django.contrib.postgres.fields.ArrayField(
                base_field=models.BigIntegerField(), blank=True, default=list, size=None
            ),
        ),
    ]
