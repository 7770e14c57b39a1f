from django.db import migrations


def add_blocked_domains(apps, schema_editor):
    from moderation.prescreen import DEFAULT_BLOCKED_DOMAINS

    BlockedDomain = apps.get_model("moderation", "BlockedDomain")
    for domain in DEFAULT_BLOCKED_DOMAINS:
        BlockedDomain.objects.get_or_create(domain=domain, defaults={"reason": "default list"})


class Migration(migrations.Migration):
    dependencies = [("moderation", "0001_initial")]

    operations = [migrations.RunPython(add_blocked_domains, migrations.RunPython.noop)]
