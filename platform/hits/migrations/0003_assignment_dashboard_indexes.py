# Indexes the staff dashboards read by (platform/dashboards): submissions by time, for the
# part-hour at the start of a time window and the oldest submission waiting for a
# decision; and a worker's assignments by state with their active time and submission
# time, for the median and latest submission of workers with changes not yet tallied.

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('hits', '0002_disqualification'),
    ]

    operations = [
        migrations.AddIndex(
            model_name='assignment',
            index=models.Index(condition=models.Q(('submitted_at__isnull', False)), fields=['submitted_at'], name='assignment_submitted_at'),
        ),
        migrations.AddIndex(
            model_name='assignment',
            index=models.Index(fields=['worker', 'state', 'active_seconds', 'submitted_at'], name='assignment_worker_work_time'),
        ),
    ]
