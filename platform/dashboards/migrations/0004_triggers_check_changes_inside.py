from django.db import migrations

import dashboards.triggers


class Migration(migrations.Migration):
    """The triggers on tasks, QA pairs, evidence and trace steps check for a counted change
    inside their function, not in a WHEN clause that would keep those tables' columns from
    changing type: dropped here, the next migrate's check puts the new ones in place and
    rebuilds the tallies."""

    dependencies = [
        ('dashboards', '0003_qa_pair_tally_by_breakdown'),
    ]

    operations = [
        migrations.RunPython(dashboards.triggers.uninstall, migrations.RunPython.noop),
    ]
