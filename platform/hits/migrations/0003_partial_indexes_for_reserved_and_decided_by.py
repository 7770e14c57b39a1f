import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

# The foreign keys' own indexes, by the names Django gave them (the same on every database).
DROPPED = {
    "hits_task_reserved_for_id_767e4874": ("hits_task", "reserved_for_id"),
    "hits_assignment_decided_by_id_ea5de46b": ("hits_assignment", "decided_by_id"),
}


class Migration(migrations.Migration):
    """A task's reserved worker and an assignment's decider are indexed only where they are
    set: most rows have neither, and every claim and submission writes a new version of
    its rows, with an entry in each index that takes it. (As in 0002, only the old
    indexes are dropped; the foreign keys stay as they are.)"""

    dependencies = [
        ("hits", "0002_assignment_foreign_keys_use_composite_indexes"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="assignment",
                    name="decided_by",
                    field=models.ForeignKey(
                        blank=True,
                        db_index=False,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                migrations.AlterField(
                    model_name="task",
                    name="reserved_for",
                    field=models.ForeignKey(
                        blank=True,
                        db_index=False,
                        help_text="Only this worker may take the task (e.g. questions on the trace they recorded).",
                        null=True,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="reserved_tasks",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            database_operations=[
                migrations.RunSQL(f"DROP INDEX IF EXISTS {name}", f"CREATE INDEX IF NOT EXISTS {name} ON {table} ({column})")
                for name, (table, column) in DROPPED.items()
            ],
        ),
        migrations.AddIndex(
            model_name="assignment",
            index=models.Index(
                condition=models.Q(("decided_by__isnull", False)), fields=["decided_by"], name="assignment_decided_by"
            ),
        ),
        migrations.AddIndex(
            model_name="task",
            index=models.Index(
                condition=models.Q(("reserved_for__isnull", False)), fields=["reserved_for"], name="task_reserved_for"
            ),
        ),
    ]
