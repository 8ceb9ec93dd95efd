"""Each cue vector records the model that made it, as an engram does (a vector of another
model is replaced by the embedder). Vectors moved by 0028 keep a blank model: unknown, kept."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("memory", "0028_cue_vectors"),
    ]

    operations = [
        migrations.AddField(
            model_name="cuevector",
            name="model",
            field=models.CharField(blank=True, db_default="", default="", max_length=80),
        ),
    ]
