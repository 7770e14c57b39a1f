"""Loads demo data: one user per role, then each app's own demo (``<app>.demo.load``):
open batches of work, a site catalogue, example screens. Safe to run twice."""

from importlib import import_module
from importlib.util import find_spec

from django.apps import apps
from django.core.management.base import BaseCommand
from django.db import transaction

from accounts import services as accounts
from accounts.models import Role, User

DEMO_PASSWORD = "trailmark-demo"
DEMO_USERS = [
    ("rater", Role.RATER),
    ("validator", Role.VALIDATOR),
    ("reviewer", Role.REVIEWER),
    ("admin", Role.ADMIN),
]


class Command(BaseCommand):
    help = "Load demo users (one per role) and each app's demo data."

    @transaction.atomic
    def handle(self, *args, **options):
        for username, role in DEMO_USERS:
            user = User.objects.filter(username=username).first()
            if user is None:
                accounts.create_user(
                    username=username, password=DEMO_PASSWORD, role=role, email=f"{username}@example.org"
                )
            elif user.role != role:
                user.role = role
                user.save()
        for app in apps.get_app_configs():
            if find_spec(f"{app.name}.demo"):
                import_module(f"{app.name}.demo").load(out=self.stdout.write)

        self.stdout.write(f"Demo data is loaded. Sign in with any of these (password for all: {DEMO_PASSWORD}):")
        for username, role in DEMO_USERS:
            self.stdout.write(f"  {role.label:<10} {username}")
