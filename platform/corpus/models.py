"""The dataset's own records, which every stage reads and writes: the site catalogue,
screens, traces and their steps, pool images and snippets, image triples and groups,
question–answer pairs with their evidence, and reference answers for test items."""

from urllib.parse import urlsplit

from django.conf import settings
from django.db import models
from django.db.models import Q, Value


class Category(models.Model):
    """A kind of website (Shopping, Hotel, …). Capture tasks are set in one category."""

    slug = models.SlugField(unique=True)
    name = models.CharField(max_length=80, unique=True)
    description = models.TextField(blank=True)
    position = models.PositiveSmallIntegerField(default=0)

    def __str__(self):
        return self.name

    class Meta:
        verbose_name_plural = "categories"
        ordering = ["position", "name"]


def host_of(url):
    """The comparable host of a URL: lower case, without a leading ``www.``."""
    host = (urlsplit(url if "//" in url else f"//{url}").hostname or "").lower()
    return host.removeprefix("www.")


class Site(models.Model):
    """A popular website raters are sent to, listed under one category."""

    category = models.ForeignKey(Category, on_delete=models.PROTECT, related_name="sites")
    name = models.CharField(max_length=120)
    url = models.URLField(
        help_text="The site's homepage: where raters start, and where every navigation episode on it begins."
    )
    host = models.CharField(max_length=255, editable=False, help_text="Pages on this host count as this site.")
    active = models.BooleanField(default=True)
    notes = models.TextField(blank=True, help_text="Hints for raters, e.g. which pages have good material.")
    keep_query = models.BooleanField(
        default=False,
        help_text="Addresses on this site keep their query strings in releases (e.g. a search site, whose "
        "query is the page's content). Other sites' addresses lose them, since queries often carry "
        "personal data.",
    )
    graph_built_at = models.DateTimeField(null=True, blank=True, editable=False)
    graph_traces = models.PositiveIntegerField(
        default=0, editable=False, help_text="Recorded traces that fed the navigation graph."
    )

    def save(self, *args, **kwargs):
        self.host = host_of(self.url)
        super().save(*args, **kwargs)

    def __str__(self):
        return f"{self.name} ({self.category})"

    class Meta:
        ordering = ["category", "name"]
        constraints = [models.UniqueConstraint(fields=["category", "host"], name="one_site_per_host_and_category")]


class Screen(models.Model):
    """A screenshot of one web page, with where and when it was captured.

    The bytes are an ``assets.Asset`` (stored once, reviewed for personal data and
    safety there); the screen adds the page it shows and who captured it.
    """

    asset = models.ForeignKey("assets.Asset", on_delete=models.PROTECT, related_name="screens")
    author = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="screens")
    assignment = models.ForeignKey(
        "hits.Assignment", on_delete=models.SET_NULL, null=True, blank=True, related_name="screens"
    )
    url = models.URLField(max_length=2000, blank=True)
    title = models.CharField(max_length=500, blank=True)
    site = models.ForeignKey(Site, on_delete=models.SET_NULL, null=True, blank=True, related_name="screens")
    category = models.ForeignKey(Category, on_delete=models.SET_NULL, null=True, blank=True, related_name="screens")
    viewport_width = models.PositiveIntegerField(null=True, blank=True)
    viewport_height = models.PositiveIntegerField(null=True, blank=True)
    captured_at = models.DateTimeField(auto_now_add=True)

    @property
    def review_state(self):
        return self.asset.review_state

    def __str__(self):
        return f"screen {self.pk} of {self.url or 'an unknown page'}"

    class Meta:
        ordering = ["-captured_at"]


class Trace(models.Model):
    """A browsing session recorded by the extension: the ordered steps a rater took."""

    class State(models.TextChoices):
        UPLOADING = "uploading", "Uploading"
        FINISHED = "finished", "Finished"

    client_id = models.UUIDField(unique=True, help_text="Made by the extension; makes creating a trace safe to retry.")
    author = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="traces")
    category = models.ForeignKey(Category, on_delete=models.PROTECT, related_name="traces")
    batch = models.ForeignKey(
        "hits.Batch", on_delete=models.SET_NULL, null=True, blank=True, related_name="traces",
        help_text="The trace QA batch whose questions will be written on this trace.",
    )  # fmt: skip
    state = models.CharField(max_length=10, choices=State.choices, default=State.UPLOADING)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    user_agent = models.CharField(max_length=400, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self):
        return f"trace {self.pk} by {self.author}"

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.CheckConstraint(condition=Q(state__in=["uploading", "finished"]), name="trace_state_known")
        ]


class TraceStep(models.Model):
    """One step of a trace: the page as it looked, and the action that led to it."""

    class Action(models.TextChoices):
        NAVIGATE = "navigate", "Navigate"
        CLICK = "click", "Click"
        TYPE = "type", "Type"
        SUBMIT = "submit", "Submit"
        SCROLL = "scroll", "Scroll"
        BACK = "back", "Back"
        FORWARD = "forward", "Forward"

    trace = models.ForeignKey(Trace, on_delete=models.CASCADE, related_name="steps")
    client_id = models.UUIDField()
    position = models.PositiveIntegerField()
    screen = models.ForeignKey(Screen, on_delete=models.PROTECT, related_name="trace_steps")
    url = models.URLField(max_length=2000)
    title = models.CharField(max_length=500, blank=True)
    captured_at = models.DateTimeField()
    viewport_width = models.PositiveIntegerField()
    viewport_height = models.PositiveIntegerField()
    device_pixel_ratio = models.FloatField(default=1.0)
    scroll_x = models.IntegerField(default=0)
    scroll_y = models.IntegerField(default=0)
    action = models.CharField(max_length=10, choices=Action.choices)
    target = models.JSONField(
        null=True, blank=True, help_text="The element acted on: tag, text, label, role, href, bbox, selector."
    )
    clickables = models.JSONField(default=list, blank=True, help_text="The page's visible clickable elements.")
    html_key = models.CharField(max_length=255, blank=True, help_text="Storage key of the page's HTML, when recorded.")
    full_page = models.BooleanField(
        default=False,
        help_text="The screenshot shows the whole page, and boxes are relative to the page's top left corner.",
    )

    def __str__(self):
        return f"step {self.position} of trace {self.trace_id}"

    @property
    def description(self):
        """The action in a few words, for people reviewing the trace."""
        target = self.target or {}
        name = (target.get("text") or target.get("label") or target.get("alt") or target.get("tag") or "").strip()
        name = f"“{name[:60]}”" if name else "the page"
        return {
            "navigate": f"Opened {self.url[:80]}",
            "click": f"Clicked {name}",
            "type": f"Typed into {name}",
            "submit": f"Submitted {name}",
            "scroll": f"Scrolled to {self.scroll_y}px",
            "back": "Went back",
            "forward": "Went forward",
        }[self.action]

    class Meta:
        ordering = ["trace", "position"]
        constraints = [
            models.UniqueConstraint(fields=["trace", "client_id"], name="trace_step_client_id_unique"),
            models.CheckConstraint(
                condition=Q(action__in=["navigate", "click", "type", "submit", "scroll", "back", "forward"]),
                name="trace_step_action_known",
            ),
        ]


class ReasoningType(models.TextChoices):
    ARITHMETIC = "arithmetic", "Arithmetic"
    COMPARISON = "comparison", "Comparison"
    COUNTING = "counting", "Counting"
    FILTERING = "filtering", "Filtering"


class AnswerType(models.TextChoices):
    INTEGER = "integer", "Whole number"
    DECIMAL = "decimal", "Decimal number"
    TEXT = "text", "Text"


class QAPair(models.Model):
    """A question and its answer, with the ordered evidence it rests on."""

    class Family(models.TextChoices):
        WEBQUEST = "webquest", "WebQuest"
        WEBQA = "webqa", "WebQA"
        WEBVLN = "webvln", "WebVLN"

    class SplitKind(models.TextChoices):
        SINGLE_SCREEN = "single_screen", "Single screen"
        MULTI_SCREEN = "multi_screen", "Multi screen"
        TRACE = "trace", "Trace"
        NAVIGATION = "navigation", "Navigation"
        IMAGE = "image", "Images"
        TEXT = "text", "Text snippets"

    class State(models.TextChoices):
        DRAFT = "draft", "Draft"
        CANDIDATE = "candidate", "Generated candidate"
        PENDING_VALIDATION = "pending_validation", "Pending validation"
        ACCEPTED = "accepted", "Accepted"
        REJECTED = "rejected", "Rejected"

    family = models.CharField(max_length=16, choices=Family.choices)
    split_kind = models.CharField(max_length=16, choices=SplitKind.choices, blank=True)
    question = models.TextField()
    answer = models.TextField()
    answer_type = models.CharField(max_length=8, choices=AnswerType.choices, default=AnswerType.TEXT)
    keyword_answer = models.CharField(max_length=200, blank=True)
    answer_variants = models.JSONField(
        default=list,
        db_default=Value([], output_field=models.JSONField()),
        blank=True,
        help_text="Other ways to write the same answer, added by validators.",
    )
    reasoning_types = models.JSONField(default=list, blank=True)
    question_category = models.CharField(max_length=16, blank=True)
    question_category_manual = models.BooleanField(
        default=False, help_text="Set by staff: the categorisation job leaves it alone."
    )
    category = models.ForeignKey(Category, on_delete=models.SET_NULL, null=True, blank=True, related_name="qa_pairs")
    trace = models.ForeignKey(
        Trace, on_delete=models.PROTECT, null=True, blank=True, related_name="qa_pairs",
        help_text="For trace questions: the whole trace, of which the evidence is the relevant part.",
    )  # fmt: skip
    image_group = models.ForeignKey(
        "ImageGroup", on_delete=models.PROTECT, null=True, blank=True, related_name="qa_pairs",
        help_text="For image questions: the six-image group the question was written on.",
    )  # fmt: skip
    state = models.CharField(max_length=20, choices=State.choices, default=State.PENDING_VALIDATION, db_index=True)
    state_reason = models.TextField(blank=True, help_text="Why the pair was rejected, for its author.")
    decided_at = models.DateTimeField(null=True, blank=True, help_text="When validation accepted or rejected it.")
    author = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="qa_pairs")
    assignment = models.ForeignKey(
        "hits.Assignment", on_delete=models.SET_NULL, null=True, blank=True, related_name="qa_pairs"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self):
        return self.question[:80]

    class Meta:
        verbose_name = "QA pair"
        ordering = ["-created_at"]
        constraints = [
            models.CheckConstraint(
                condition=Q(state__in=["draft", "candidate", "pending_validation", "accepted", "rejected"]),
                name="qapair_state_known",
            ),
            models.CheckConstraint(condition=~Q(question="") & ~Q(answer=""), name="qapair_has_question_and_answer"),
        ]


class Evidence(models.Model):
    """One piece of evidence of a QA pair, in order, with what it contributes.

    Exactly one source: a screen (screen and trace questions), a pool image or snippet
    (WebQA questions), or a fact the worker researched, with the page it came from.
    """

    qa_pair = models.ForeignKey(QAPair, on_delete=models.CASCADE, related_name="evidence")
    position = models.PositiveSmallIntegerField()
    screen = models.ForeignKey(Screen, on_delete=models.PROTECT, null=True, blank=True, related_name="evidence")
    step = models.ForeignKey(
        "TraceStep", on_delete=models.PROTECT, null=True, blank=True, related_name="evidence",
        help_text="For trace questions: the step whose screen this is.",
    )  # fmt: skip
    image = models.ForeignKey("ImageSource", on_delete=models.PROTECT, null=True, blank=True, related_name="evidence")
    snippet = models.ForeignKey("Snippet", on_delete=models.PROTECT, null=True, blank=True, related_name="evidence")
    fact = models.TextField(blank=True, help_text="A fact the worker found themselves, when there is no pool source.")
    url = models.URLField(max_length=2000, blank=True, help_text="Where the researched fact comes from.")
    note = models.TextField(blank=True, help_text="What this piece contributes to the answer.")

    def __str__(self):
        return f"evidence {self.position} of QA pair {self.qa_pair_id}"

    class Meta:
        verbose_name_plural = "evidence"
        ordering = ["qa_pair", "position"]
        constraints = [
            models.UniqueConstraint(fields=["qa_pair", "position"], name="evidence_position_unique"),
            models.CheckConstraint(
                condition=(
                    Q(screen__isnull=False, image__isnull=True, snippet__isnull=True, fact="")
                    | Q(screen__isnull=True, image__isnull=False, snippet__isnull=True, fact="")
                    | Q(screen__isnull=True, image__isnull=True, snippet__isnull=False, fact="")
                    | (Q(screen__isnull=True, image__isnull=True, snippet__isnull=True) & ~Q(fact="") & ~Q(url=""))
                ),
                name="evidence_names_one_source",
            ),
        ]


class ImageSource(models.Model):
    """A pool image (e.g. from Wikipedia) with its title, description and origin.

    One per asset: importing the same picture again finds this record.
    """

    asset = models.OneToOneField("assets.Asset", on_delete=models.PROTECT, related_name="image_source")
    title = models.CharField(max_length=500)
    description = models.TextField(blank=True)
    source_url = models.URLField(max_length=2000, blank=True)
    topic = models.CharField(max_length=200, blank=True, db_index=True, help_text="The search term it was found by.")
    licence = models.CharField(max_length=200, blank=True)
    imported_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self):
        return self.title

    class Meta:
        ordering = ["id"]


class Snippet(models.Model):
    """A pool text snippet: a few sentences from a web page, with its title and address."""

    digest = models.CharField(max_length=64, unique=True, help_text="SHA-256 of title and text, to import once.")
    title = models.CharField(max_length=500)
    text = models.TextField()
    url = models.URLField(max_length=2000, blank=True)
    topic = models.CharField(max_length=200, blank=True, db_index=True)
    imported_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self):
        return self.title

    class Meta:
        ordering = ["id"]


class ImageTriple(models.Model):
    """Three related images a worker picked in an image filter task, and what they share."""

    assignment = models.OneToOneField(
        "hits.Assignment", on_delete=models.CASCADE, null=True, blank=True, related_name="image_triple"
    )
    author = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="image_triples")
    topic = models.CharField(max_length=200, blank=True)
    label = models.CharField(max_length=200)
    images = models.ManyToManyField(ImageSource, related_name="triples")
    group = models.ForeignKey("ImageGroup", on_delete=models.SET_NULL, null=True, blank=True, related_name="triples")
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self):
        return self.label

    class Meta:
        ordering = ["id"]


class ImageGroup(models.Model):
    """Six images (two triples with similar labels) that a six-image QA task is written on."""

    label = models.CharField(max_length=420)
    similarity = models.FloatField(help_text="Similarity of the two triples' labels, 0–1.")
    task = models.OneToOneField(
        "hits.Task", on_delete=models.SET_NULL, null=True, blank=True, related_name="image_group"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    def images(self):
        return ImageSource.objects.filter(triples__group=self).order_by("triples__id", "id")

    def __str__(self):
        return self.label

    class Meta:
        ordering = ["id"]


class ReferenceSet(models.Model):
    """The reference answers wanted for a test candidate: five full sentences by five
    different workers, and one keyword answer."""

    qa_pair = models.OneToOneField(QAPair, on_delete=models.CASCADE, related_name="reference_set")
    task = models.OneToOneField("hits.Task", on_delete=models.CASCADE, related_name="reference_set")
    keyword_answer = models.CharField(max_length=200, blank=True)
    keyword_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    chosen_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    agreement = models.FloatField(
        null=True, blank=True,
        help_text="How far the five sentences agree with the keyword answers (0 to 1), set when the fifth arrives; "
        "releases leave out test items below REFERENCE_MIN_AGREEMENT.",
    )  # fmt: skip

    def __str__(self):
        return f"references of QA pair {self.qa_pair_id}"


class ReferenceAnswer(models.Model):
    reference_set = models.ForeignKey(ReferenceSet, on_delete=models.CASCADE, related_name="answers")
    assignment = models.OneToOneField("hits.Assignment", on_delete=models.CASCADE, related_name="reference_answer")
    worker = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="reference_answers")
    answer = models.TextField(help_text="A full sentence.")
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self):
        return self.answer[:80]

    class Meta:
        ordering = ["created_at", "id"]
        constraints = [
            models.UniqueConstraint(fields=["reference_set", "worker"], name="one_reference_answer_per_worker")
        ]


class NavPage(models.Model):
    """A page of a site's navigation graph: a distinct URL (without fragment) that
    recorded traces visited, with the screenshot that shows it. Its number is kept across
    rebuilds of the graph, so its id (``<site>_<number>``) stays the same."""

    site = models.ForeignKey(Site, on_delete=models.CASCADE, related_name="nav_pages")
    number = models.PositiveIntegerField()
    url = models.URLField(max_length=2000)
    title = models.CharField(max_length=500, blank=True)
    step = models.ForeignKey(
        TraceStep, on_delete=models.SET_NULL, null=True, blank=True, related_name="+",
        help_text="The step whose screenshot is the page's observation (a full-page one when there is one).",
    )  # fmt: skip
    traces = models.PositiveIntegerField(default=0, help_text="Recorded traces that visited the page.")
    depth = models.PositiveIntegerField(
        null=True, blank=True, help_text="Clicks from the homepage on a shortest path; empty when unreachable."
    )

    def __str__(self):
        return f"{self.site.host}_{self.number}: {self.url}"

    class Meta:
        ordering = ["site", "number"]
        constraints = [
            models.UniqueConstraint(fields=["site", "number"], name="nav_page_number_unique"),
            models.UniqueConstraint(fields=["site", "url"], name="nav_page_url_unique"),
        ]


class NavEdge(models.Model):
    """A way from one page to another: a recorded click or submit, or a recorded link
    that resolves to a page of the graph. The box is on ``step``'s screenshot."""

    site = models.ForeignKey(Site, on_delete=models.CASCADE, related_name="nav_edges")
    source = models.ForeignKey(NavPage, on_delete=models.CASCADE, related_name="edges_out")
    destination = models.ForeignKey(NavPage, on_delete=models.CASCADE, related_name="edges_in")
    text = models.CharField(max_length=500, blank=True, help_text="The button's text, alt text or label.")
    clickable = models.JSONField(default=dict, help_text="The element: tag, text, alt, href, bbox, selector.")
    step = models.ForeignKey(TraceStep, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    clicked = models.BooleanField(default=False, help_text="A rater was recorded clicking it (not only a link).")

    def __str__(self):
        return f"{self.source_id} → {self.destination_id}"

    class Meta:
        ordering = ["source", "destination", "text"]
        constraints = [
            models.UniqueConstraint(fields=["source", "destination", "text"], name="nav_edge_unique"),
        ]


class Episode(models.Model):
    """A navigation question (WebVLN): start at the site's homepage, reach the target page,
    answer there. The path is the shortest one over the graph when it was written."""

    qa_pair = models.OneToOneField(QAPair, on_delete=models.CASCADE, related_name="episode")
    site = models.ForeignKey(Site, on_delete=models.PROTECT, related_name="episodes")
    target_url = models.URLField(max_length=2000)
    path = models.JSONField(help_text="Page URLs from the homepage to the target.")
    description = models.TextField(help_text="What the target page shows (the instruction's description of it).")

    def __str__(self):
        return f"episode of QA pair {self.qa_pair_id}"

    class Meta:
        constraints = [models.CheckConstraint(condition=~Q(description=""), name="episode_has_description")]
