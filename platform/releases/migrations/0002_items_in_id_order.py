from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("releases", "0001_initial"),
    ]

    operations = [
        migrations.AddIndex(
            model_name="releaseitem",
            index=models.Index(fields=["release", "id"], name="release_item_order"),
        ),
    ]
