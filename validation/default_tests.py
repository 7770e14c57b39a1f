"""The two qualification tests every install starts with: image questions and screen
questions, 15 items each, some following the guidelines and some breaking one rule.

The pictures are drawn by ``validation.figures`` from the descriptions below. A data
migration installs the tests; ``install`` is safe to run again (the demo and the tests
call it after a database flush).
"""

# Each rule is worded as the problem it names, so that a verdict reads plainly:
# "Follows the guidelines" or "Problem: <this>", never "breaks: <something good>".
IMAGE_RULES = {
    "wrong_answer": "The answer is wrong: the images and their descriptions say otherwise.",
    "image_not_needed": "The question can be answered without the images (from general knowledge or the descriptions alone).",
    "not_a_sentence": "The answer is a bare word or number instead of a complete sentence.",
    "source_not_needed": "An image cited is not needed, or two cited images give the same information.",
    "about_people": "The question asks who a person is or about their private life.",
}

SCREEN_RULES = {
    "wrong_answer": "The answer is wrong for what the screens show.",
    "no_reasoning": "The answer is one value read off the page: nothing is added up, compared, counted or filtered.",
    "not_on_screen": "Something needed for the answer is not on the screens.",
    "personal_data": "The screens show personal data or a signed-in page.",
    "screen_not_needed": "One of the screens is not needed to answer.",
}


def _picture(caption, *things, sky="#9fd3f0", ground="#5a9a4a"):
    return {"draw": "picture", "caption": caption, "sky": sky, "ground": ground, "things": [list(t) for t in things]}


def _screen(url, title, rows, **extra):
    return {"draw": "screen", "url": url, "title": title, "rows": [list(r) for r in rows], **extra}


BALLOONS = _picture("Balloons at the Riverside spring fair", ("circle", "red", 3), ("circle", "yellow", 2))
KITES = _picture("Kites over the north beach", ("triangle", "orange", 4), ("triangle", "blue", 1), ground="#e8d7a0")
TILES = _picture(
    "Tiles on the old station floor", ("square", "navy", 5), ("square", "white", 4), sky="#d0c8b8", ground="#8a7a6a"
)
BADGES = _picture("Badges of the hill walking club", ("pentagon", "green", 2), ("pentagon", "gold", 1))
LANTERNS = _picture("Lanterns at the harbour festival", ("circle", "orange", 6), sky="#1c2444", ground="#2c3c5c")
SIGNS = _picture("Road signs near the mountain pass", ("triangle", "red", 2), ("circle", "blue", 2), ground="#777777")
BALLOONS_AGAIN = _picture(
    "Balloons at the Riverside spring fair, seen from the bridge",
    ("circle", "red", 3),
    ("circle", "yellow", 2),
    sky="#a8d8f0",
)

IMAGE_ITEMS = [
    ("How many more red balloons than yellow balloons were at the Riverside spring fair?",
     "There was one more red balloon than yellow balloons at the fair.", [BALLOONS], None),
    ("What colour is the only kite over the north beach that is not orange?",
     "The only kite that is not orange is blue.", [KITES], None),
    ("How many tiles on the old station floor are navy?", "Five.", [TILES], "not_a_sentence"),
    ("Do the hill walking club's badges and the road signs near the mountain pass share a shape?",
     "No, the badges are pentagons while the signs are triangles and circles.", [BADGES, SIGNS], None),
    ("How many lanterns were there at the harbour festival?",
     "There were eight lanterns at the harbour festival.", [LANTERNS], "wrong_answer"),
    ("What is the capital of France?", "The capital of France is Paris.", [TILES], "image_not_needed"),
    ("Are there more kites over the north beach than balloons at the Riverside spring fair?",
     "No, there are five kites and five balloons, so there are as many of each.", [KITES, BALLOONS], None),
    ("How many red balloons were at the Riverside spring fair?",
     "There were three red balloons at the fair.", [BALLOONS, BALLOONS_AGAIN], "source_not_needed"),
    ("What shape are the badges of the hill walking club?",
     "The badges of the hill walking club are pentagons.", [BADGES], None),
    ("Which festival, the harbour one or the spring fair, had more round decorations?",
     "The harbour festival had more, with six lanterns against five balloons.", [LANTERNS, BALLOONS], None),
    ("What is the name of the man who made the kites?",
     "The kites were made by a man called Tom Hale.", [KITES], "about_people"),
    ("What colours are the tiles on the old station floor?",
     "The tiles on the old station floor are navy and white.", [TILES], None),
    ("How many of the road signs near the mountain pass are triangles?",
     "Three of the road signs are triangles.", [SIGNS], "wrong_answer"),
    ("How many more orange kites are there than blue ones?", "Three.", [KITES], "not_a_sentence"),
    ("Counting the signs near the mountain pass and the club's badges together, how many are red or green?",
     "Four of them are: two red signs and two green badges.", [SIGNS, BADGES], None),
]  # fmt: skip

SHOES_A = _screen(
    "https://www.stridesports.example/running",
    "Stride Sports · Running shoes",
    [
        ("Trail runner X2", "$89.00"),
        ("Road racer Lite", "$120.00"),
        ("Daily trainer", "$64.50"),
        ("Kids runner", "$39.99"),
    ],
)
SHOES_B = _screen(
    "https://www.fleetfoot.example/shoes",
    "Fleetfoot · Shoes",
    [("Trail runner X2", "$94.00"), ("Road racer Lite", "$112.00"), ("Walking shoe", "$58.00")],
)
HOTEL = _screen(
    "https://www.harbourinn.example/rooms",
    "Harbour Inn · Rooms for 12–14 May",
    [
        ("Single room, 2 nights", "$180"),
        ("Double room, 2 nights", "$240"),
        ("Family suite, 2 nights", "$390"),
        ("Breakfast per person per day", "$15"),
    ],
)
TRAINS = _screen(
    "https://www.railway.example/times",
    "Northern Rail · Leeds to York",
    [
        ("07:12 → 07:41", "29 min"),
        ("07:40 → 08:19", "39 min"),
        ("08:05 → 08:31", "26 min"),
        ("08:35 → 09:10", "35 min"),
    ],
)
MOVIES = _screen(
    "https://www.cinemalist.example/week",
    "Cinema list · This week",
    [
        ("The Long Road (PG)", "★ 4.5"),
        ("Night Harbour (15)", "★ 3.8"),
        ("Paper Kites (U)", "★ 4.1"),
        ("Ice Line (12A)", "★ 3.2"),
    ],
)
ACCOUNT = _screen(
    "https://www.stridesports.example/account/orders",
    "Stride Sports · Your orders",
    [("Order 4471 · Trail runner X2", "$89.00"), ("Order 4502 · Daily trainer", "$64.50")],
    signed_in_as="Maria Jensen",
    headings=["Delivery: 14 Elm Road, Leeds LS6 2QT"],
)
NEWS = _screen(
    "https://www.dailybrief.example",
    "Daily Brief · Top stories",
    [("Sport", "7 stories"), ("Politics", "11 stories"), ("Science", "4 stories"), ("Culture", "6 stories")],
)

SCREEN_ITEMS = [
    ("How much more does the Road racer Lite cost than the Daily trainer?", "$55.50", [SHOES_A], None),
    ("How much does the Kids runner cost?", "$39.99", [SHOES_A], "no_reasoning"),
    ("Which shop sells the Trail runner X2 for less, and by how much?", "Stride Sports, by $5.00", [SHOES_A, SHOES_B], None),
    ("How much do two nights in a double room with breakfast for two people cost?", "$300", [HOTEL], None),
    ("Which train from Leeds to York is the fastest?", "The 08:05", [TRAINS], None),
    ("How many trains take more than half an hour?", "3", [TRAINS], "wrong_answer"),
    ("How much did Maria Jensen spend on her two orders?", "$153.50", [ACCOUNT], "personal_data"),
    ("How many films this week are rated above 4 stars?", "2", [MOVIES], None),
    ("What does the cheapest film ticket cost this week?", "$8.50", [MOVIES], "not_on_screen"),
    ("Which section has the most stories?", "Politics", [NEWS], None),
    ("How many stories are there in total?", "28", [NEWS], None),
    ("How much does the Road racer Lite cost at Fleetfoot?", "$112.00", [SHOES_A, SHOES_B], "screen_not_needed"),
    ("How much does a single room for 2 nights cost per night?", "$90", [HOTEL], None),
    ("How many minutes longer is the 07:40 train than the 08:05 train?", "11", [TRAINS], "wrong_answer"),
    ("Which films rated U or PG score at least 4 stars?", "The Long Road and Paper Kites", [MOVIES], None),
]  # fmt: skip

# Why each item is right or wrong, in item order: shown to a worker who judged it wrongly.
IMAGE_EXPLANATIONS = [
    "Three red balloons and two yellow ones: one more red, as the answer says, in a full sentence.",
    "Four kites are orange and one is blue, so the answer is right.",
    "The count is right, but the answer is a bare number; it should be a sentence, e.g. “Five of the tiles are navy.”",
    "Both pictures are needed, and the answer matches them: pentagons against triangles and circles.",
    "The picture shows six lanterns, not eight.",
    "Anyone can answer this without looking at the picture of the tiles.",
    "Five kites and five balloons: the answer is right and needs both pictures.",
    "Both pictures show the same balloons at the same fair, so the second adds nothing.",
    "The badges are pentagons, as the answer says, in a full sentence.",
    "Six lanterns against five balloons: the answer is right and needs both pictures.",
    "It asks who a person is, which the guidelines rule out (and the picture cannot show).",
    "The tiles are navy and white, as the answer says.",
    "Two of the signs are triangles, not three.",
    "Four orange kites and one blue make the count right, but a bare number is not a sentence.",
    "Two red signs and two green badges make four, as the answer says.",
]
SCREEN_EXPLANATIONS = [
    "$120.00 − $64.50 = $55.50: the question takes a subtraction and the answer is right.",
    "The price is read straight off the page; nothing is added up, compared, counted or filtered.",
    "$89.00 at Stride Sports against $94.00 at Fleetfoot: cheaper by $5.00, and it needs both screens.",
    "$240 for the room plus 2 people × 2 days × $15 for breakfast = $300.",
    "The 08:05 takes 26 minutes, the shortest of the four.",
    "Only two trains take more than 30 minutes (39 and 35 minutes), not three.",
    "The screen is a signed-in orders page with a person's name and home address.",
    "Two films are rated above 4 stars: The Long Road (4.5) and Paper Kites (4.1).",
    "The cinema list shows ratings, not ticket prices.",
    "Politics has 11 stories, more than any other section: a comparison across the page.",
    "7 + 11 + 4 + 6 = 28 stories.",
    "Only the Fleetfoot screen is needed; the Stride Sports one adds nothing.",
    "$180 for 2 nights is $90 a night.",
    "The 07:40 takes 39 minutes and the 08:05 takes 26: 13 minutes longer, not 11.",
    "The Long Road (PG, 4.5) and Paper Kites (U, 4.1), as the answer says.",
]

DEFAULT_TESTS = [
    {
        "slug": "image-questions",
        "title": "Image questions",
        "family": "images",
        "qualification": ("image-questions", "Image questions", "Passed the image questions qualification test."),
        "introduction": (
            "Fifteen questions written on pictures and their descriptions. Some follow the guidelines "
            "for image questions, some break one rule. Mark each one, and for every one you mark as "
            "breaking a rule, say what is wrong with it."
        ),
        "rules": IMAGE_RULES,
        "items": IMAGE_ITEMS,
        "explanations": IMAGE_EXPLANATIONS,
    },
    {
        "slug": "screen-questions",
        "title": "Screen questions",
        "family": "screens",
        "qualification": ("screen-questions", "Screen questions", "Passed the screen questions qualification test."),
        "introduction": (
            "Fifteen questions written on screenshots of web pages. Some follow the guidelines for "
            "screen questions, some break one rule. Mark each one, and for every one you mark as "
            "breaking a rule, say what is wrong with it."
        ),
        "rules": SCREEN_RULES,
        "items": SCREEN_ITEMS,
        "explanations": SCREEN_EXPLANATIONS,
    },
]


def install(apps):
    """Creates the default tests (and their qualifications) that are missing, and brings
    the wording of those already installed up to date (rules, and item explanations an
    admin has not written).

    ``apps`` is a migration's app registry or ``django.apps.apps``.
    """
    Qualification = apps.get_model("accounts", "Qualification")
    QualificationTest = apps.get_model("validation", "QualificationTest")
    QualificationItem = apps.get_model("validation", "QualificationItem")
    for spec in DEFAULT_TESTS:
        existing = QualificationTest.objects.filter(slug=spec["slug"]).first()
        if existing is not None:
            _reword(existing, spec, QualificationItem)
            continue
        slug, name, description = spec["qualification"]
        qualification, _ = Qualification.objects.get_or_create(
            slug=slug, defaults={"name": name, "description": description}
        )
        test = QualificationTest.objects.create(
            slug=spec["slug"],
            title=spec["title"],
            family=spec["family"],
            qualification=qualification,
            introduction=spec["introduction"],
            rules=spec["rules"],
        )
        QualificationItem.objects.bulk_create(
            QualificationItem(
                test=test,
                position=position,
                question=question,
                answer=answer,
                figures=figures,
                follows_guidelines=broken is None,
                broken_rule=broken or "",
                explanation=explanation,
            )
            for position, ((question, answer, figures, broken), explanation) in enumerate(
                zip(spec["items"], spec["explanations"], strict=True), start=1
            )
        )


def _reword(test, spec, QualificationItem):
    if set(test.rules) == set(spec["rules"]) and test.rules != spec["rules"]:
        test.rules = spec["rules"]
        test.save(update_fields=["rules"])
    for position, explanation in enumerate(spec["explanations"], start=1):
        QualificationItem.objects.filter(test=test, position=position, explanation="").update(explanation=explanation)
