from django.db import migrations
from django.utils.text import slugify

# The website categories of the WebQuest collection; admins can add more.
DEFAULT_CATEGORIES = [
    "Restaurant", "Shopping", "Hotel", "Transportation", "Landmark", "News", "Media Sharing",
    "Education & Information", "Movies", "Real Estate", "Other",
]  # fmt: skip


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


def add_categories(apps, schema_editor):
    Category = apps.get_model("collection", "Category")
    for position, name in enumerate(DEFAULT_CATEGORIES):
        Category.objects.get_or_create(slug=slugify(name), defaults={"name": name, "position": position})


class Migration(migrations.Migration):
    dependencies = [("collection", "0002_initial")]

    operations = [
        migrations.RunPython(add_categories, migrations.RunPython.noop),
        migrations.RunPython(add_blocks, migrations.RunPython.noop),
    ]
