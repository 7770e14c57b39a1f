from django.db import migrations

# Pages the extension never records: webmail, online banking, account and payment pages.
DEFAULT_BLOCKS = [
    ("mail.google.com", "", "webmail"), ("outlook.live.com", "", "webmail"), ("mail.yahoo.com", "", "webmail"),
    ("", "/account", "account pages"), ("", "/signin", "sign-in pages"), ("", "/login", "sign-in pages"),
    ("", "/checkout/payment", "payment pages"),
]  # fmt: skip



def add_blocks(apps, schema_editor):
    BlockedSite = apps.get_model("collection", "BlockedSite")
    for host, path, reason in DEFAULT_BLOCKS:
        BlockedSite.objects.get_or_create(host=host, path_contains=path, defaults={"reason": reason})


class Migration(migrations.Migration):
    dependencies = [("collection", "0001_initial")]

    operations = [migrations.RunPython(add_blocks, migrations.RunPython.noop)]
