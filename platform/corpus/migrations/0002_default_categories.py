from django.db import migrations
from django.utils.text import slugify

# The website categories of the WebQuest collection; admins can add more.
DEFAULT_CATEGORIES = [
    "Restaurant", "Shopping", "Hotel", "Transportation", "Landmark", "News", "Media Sharing",
    "Education & Information", "Movies", "Real Estate", "Other",
]  # fmt: skip



def add_categories(apps, schema_editor):
    Category = apps.get_model("corpus", "Category")
    for position, name in enumerate(DEFAULT_CATEGORIES):
        Category.objects.get_or_create(slug=slugify(name), defaults={"name": name, "position": position})


class Migration(migrations.Migration):
    dependencies = [("corpus", "0001_initial")]

    operations = [migrations.RunPython(add_categories, migrations.RunPython.noop)]
