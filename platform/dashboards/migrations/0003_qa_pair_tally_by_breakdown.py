from django.db import migrations, models

import dashboards.triggers


class Migration(migrations.Migration):
    """The QA pair tally counts each breakdown's values on their own (a few dozen rows)
    instead of every combination of them (thousands)."""

    dependencies = [
        ('dashboards', '0002_tasks_qa_pairs_screens'),
    ]

    operations = [
        # The views read the old tally: they go first; the next migrate's check puts the
        # new ones and the triggers back, and rebuilds the tallies.
        migrations.RunPython(dashboards.triggers.uninstall, migrations.RunPython.noop),
        migrations.DeleteModel(name='QAPairTally'),
        migrations.CreateModel(
            name='QAPairTally',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('breakdown', models.CharField(max_length=20)),
                ('value', models.TextField()),
                ('pairs', models.IntegerField()),
            ],
            options={
                'constraints': [models.UniqueConstraint(fields=('breakdown', 'value'), name='qa_pair_tally_unique')],
            },
        ),
        migrations.DeleteModel(name='QAPairTotal'),
        migrations.CreateModel(
            name='QAPairTotal',
            fields=[
                ('pk', models.CompositePrimaryKey('breakdown', 'value', blank=True, editable=False, primary_key=True, serialize=False)),
                ('breakdown', models.CharField(max_length=20)),
                ('value', models.TextField()),
                ('pairs', models.IntegerField()),
            ],
            options={
                'db_table': 'dashboards_qapairtotal',
                'managed': False,
            },
        ),
    ]
