from django.db import migrations

# Every claim leaves the task's entry in ``task_open_slots`` dead once its slots are taken,
# at the front of the batch's range, where every later claim's scan starts: until a vacuum
# removes them, each claim steps over all of them (~0.5 ms at 20,000). PostgreSQL's
# default waits for a fifth of the table to change (200,000 claims in a batch of 1M
# tasks), and may leave the indexes as they are when few pages changed.
OPTIONS = {"autovacuum_vacuum_scale_factor": "0.0", "autovacuum_vacuum_threshold": "5000", "vacuum_index_cleanup": "on"}


def set_options(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        settings = ", ".join(f"{name} = {value}" for name, value in OPTIONS.items())
        schema_editor.execute(f"ALTER TABLE hits_task SET ({settings})")


def reset_options(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(f"ALTER TABLE hits_task RESET ({', '.join(OPTIONS)})")


class Migration(migrations.Migration):
    """Tasks are vacuumed after every 5,000 changed rows, their indexes included."""

    dependencies = [("hits", "0003_partial_indexes_for_reserved_and_decided_by")]

    operations = [migrations.RunPython(set_options, reset_options)]
