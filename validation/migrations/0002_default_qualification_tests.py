from django.db import migrations


def install_default_tests(apps, schema_editor):
    from validation.default_tests import install

    install(apps)


class Migration(migrations.Migration):
    dependencies = [("validation", "0001_initial")]

    operations = [migrations.RunPython(install_default_tests, migrations.RunPython.noop)]
