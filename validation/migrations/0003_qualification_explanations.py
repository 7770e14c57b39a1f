from django.db import migrations, models


def reword_default_tests(apps, schema_editor):
    """Databases made before the explanations were written get them, and the plainer
    wording of the rules."""
    from validation.default_tests import install

    install(apps)


class Migration(migrations.Migration):
    dependencies = [
        ("validation", "0002_default_qualification_tests"),
    ]

    operations = [
        migrations.AlterField(
            model_name="qualificationitem",
            name="explanation",
            field=models.TextField(
                blank=True, help_text="Why this is the right verdict; shown to a worker who got the item wrong."
            ),
        ),
        migrations.RunPython(reword_default_tests, migrations.RunPython.noop),
    ]
