"""Demo data of the work engine: an open batch of the small demo kind."""

from accounts.models import User
from hits import services
from hits.models import Batch

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


def open_demo_batch(*, name, kind, description, reward, payloads, out, assignments_wanted=None):
    """Creates and opens a demo batch once (by name); returns it, or None if it was there."""
    if Batch.objects.filter(name=name).exists():
        return None
    admin = User.objects.get(username="admin")
    batch = services.create_batch(name=name, kind=kind, description=description, reward=reward, created_by=admin)
    if payloads:
        services.add_tasks(batch=batch, payloads=payloads, assignments_wanted=assignments_wanted)
    services.open_batch(batch=batch, actor=admin)
    out(f"Opened the batch “{name}” ({len(payloads)} tasks).")
    return batch


def load(*, out):
    open_demo_batch(
        name=DEMO_BATCH,
        kind="demo_question",
        description="Read a short passage and answer one question about it.",
        reward="0.15",
        payloads=[{"passage": p, "question": q} for p, q in PASSAGES],
        assignments_wanted=2,
        out=out,
    )
