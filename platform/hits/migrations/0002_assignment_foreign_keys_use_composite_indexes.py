import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

# The foreign keys' own indexes, by the names Django gave them (the same on every database).
INDEXES = {
    "hits_assignment_task_id_70a6e7a0": "task_id",
    "hits_assignment_batch_id_7aee3f46": "batch_id",
    "hits_assignment_worker_id_304809b4": "worker_id",
}


class Migration(migrations.Migration):
    """An assignment's task, batch and worker lose their single-column indexes, which the
    composite indexes they lead already serve. Only the indexes are dropped: Django's own
    operation would also drop the foreign keys and add them again, checking every row
    under lock."""

    dependencies = [
        ("hits", "0001_initial"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="assignment",
                    name=name,
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="assignments",
                        to=to,
                    ),
                )
                for name, to in (("task", "hits.task"), ("batch", "hits.batch"), ("worker", settings.AUTH_USER_MODEL))
            ],
            database_operations=[
                migrations.RunSQL(
                    f"DROP INDEX IF EXISTS {name}", f"CREATE INDEX IF NOT EXISTS {name} ON hits_assignment ({column})"
                )
                for name, column in INDEXES.items()
            ],
        ),
    ]
