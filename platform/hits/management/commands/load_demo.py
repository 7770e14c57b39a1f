"""Loads demo data: one user per role and an open batch of work. Safe to run twice."""

from django.core.management.base import BaseCommand
from django.db import transaction

from accounts import services as accounts
from accounts.models import Role, User
from hits import services
from hits.models import Batch

DEMO_PASSWORD = "trailmark-demo"
DEMO_USERS = [
    ("rater", Role.RATER),
    ("validator", Role.VALIDATOR),
    ("reviewer", Role.REVIEWER),
    ("admin", Role.ADMIN),
]
DEMO_BATCH = "Demo: questions about short passages"
PASSAGES = [
    (
        "The museum opens at 9:30 and closes at 17:00 on weekdays; on weekends it closes two hours earlier.",
        "When does the museum close on Saturday?",
    ),
    (
        "A hotel room costs $120 a night. Guests staying 3 nights or more get 15% off the whole stay.",
        "How much do 3 nights cost?",
    ),
    (
        "The 42 bus leaves every 12 minutes from 6:00. The first 17 bus leaves at 6:05 and then every 20 minutes.",
        "Which bus runs more often?",
    ),
    (
        "The bakery sells croissants for $2.50 and muffins for $3.10. Today croissants are two for $4.",
        "What do two croissants cost today?",
    ),
    (
        "Of the 30 listings on the page, 12 are apartments, 11 are houses and the rest are studios.",
        "How many studios are listed?",
    ),
    (
        "The film runs 2 hours 14 minutes and the trailers before it take 18 minutes.",
        "How long from the start of the trailers to the end of the film?",
    ),
    (
        "The course has 8 modules; each module has 5 lessons except the last, which has 3.",
        "How many lessons does the course have?",
    ),
    (
        "The red jacket costs $80 and is 25% off; the blue one costs $70 and is not on sale.",
        "Which jacket is cheaper today?",
    ),
    ("The landmark tower is 324 m tall; the viewing deck is at 276 m.", "How far below the top is the viewing deck?"),
    ("The news page lists 6 stories on sport, 9 on politics and 4 on science.", "Which topic has the fewest stories?"),
]


class Command(BaseCommand):
    help = "Load demo users (one per role) and an open batch of demo tasks."

    @transaction.atomic
    def handle(self, *args, **options):
        for username, role in DEMO_USERS:
            user = User.objects.filter(username=username).first()
            if user is None:
                user = accounts.create_user(
                    username=username, password=DEMO_PASSWORD, role=role, email=f"{username}@example.org"
                )
            elif user.role != role:
                user.role = role
                user.save()
        admin = User.objects.get(username="admin")
        if not Batch.objects.filter(name=DEMO_BATCH).exists():
            batch = services.create_batch(
                name=DEMO_BATCH,
                kind="demo_question",
                description="Read a short passage and answer one question about it.",
                reward="0.15",
                created_by=admin,
            )
            services.add_tasks(
                batch=batch, payloads=[{"passage": p, "question": q} for p, q in PASSAGES], assignments_wanted=2
            )
            services.open_batch(batch=batch, actor=admin)

        self.stdout.write(f"Demo data is loaded. Sign in with any of these (password for all: {DEMO_PASSWORD}):")
        for username, role in DEMO_USERS:
            self.stdout.write(f"  {role.label:<10} {username}")
