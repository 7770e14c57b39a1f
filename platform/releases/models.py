"""Dataset releases: a definition, its immutable snapshot, and the files built from it."""

from django.conf import settings
from django.db import models
from django.db.models import Q

FAMILIES = ["webquest", "webqa", "webvln"]
SPLITS = ["train", "val", "test"]


def default_families():
    return list(FAMILIES)


def default_qa_states():
    return ["accepted"]


class Release(models.Model):
    """One version of a named dataset: what goes in (the definition), how far its build
    got, and once published, its manifest. Researchers see only published releases."""

    class State(models.TextChoices):
        DRAFT = "draft", "Draft"
        QUEUED = "queued", "Queued"
        BUILDING = "building", "Building"
        PUBLISHED = "published", "Published"
        FAILED = "failed", "Failed"

    class WebVLNSetting(models.TextChoices):
        SEEN = "seen", "Seen: every website in train, val and test, episodes split"
        UNSEEN = "unseen", "Unseen: whole websites per split"

    class SplitStrategy(models.TextChoices):
        RANDOM = "random", "Random by group"
        ADVERSARIAL = "adversarial", "Random by group, adversarial answers for color, shape and number"

    name = models.SlugField(max_length=80, help_text="The dataset's name; versions of one name form its history.")
    major = models.PositiveIntegerField()
    minor = models.PositiveIntegerField()
    patch = models.PositiveIntegerField()
    families = models.JSONField(default=default_families, help_text="Families included: webquest, webqa, webvln.")
    qa_states = models.JSONField(default=default_qa_states, help_text="QA pair states included, e.g. accepted.")
    split_strategy = models.CharField(max_length=12, choices=SplitStrategy.choices, default=SplitStrategy.ADVERSARIAL)
    webvln_setting = models.CharField(
        max_length=8, choices=WebVLNSetting.choices, default=WebVLNSetting.SEEN,
        help_text="How WebVLN episodes are split: by episode over every website (seen), or by website (unseen).",
    )  # fmt: skip
    seed = models.PositiveIntegerField(default=0, help_text="The same seed and snapshot give the same splits.")
    train_percent = models.PositiveSmallIntegerField(default=80)
    val_percent = models.PositiveSmallIntegerField(default=10)
    parent = models.ForeignKey(
        "self", on_delete=models.PROTECT, null=True, blank=True, related_name="children",
        help_text="The published release this one is compared with.",
    )  # fmt: skip
    notes = models.TextField(blank=True, help_text="Shown in the datasheet: what changed, what to know.")
    test_answers_public = models.BooleanField(
        default=False,
        help_text="Ship the test split's answers in the public download (for datasets meant to be fully open). "
        "Off: they go only into the evaluation set, which the evaluation service reads and only admins download.",
    )

    state = models.CharField(max_length=10, choices=State.choices, default=State.DRAFT, db_index=True)
    attempt = models.PositiveIntegerField(default=0, help_text="Build attempts so far; only the latest may publish.")
    stage = models.CharField(max_length=40, blank=True)
    progress_done = models.PositiveIntegerField(default=0)
    progress_total = models.PositiveIntegerField(default=0)
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    message = models.TextField(blank=True, help_text="Why the last build failed.")
    snapshot_at = models.DateTimeField(null=True, blank=True)
    split_plan = models.JSONField(default=dict, blank=True, help_text="Adversarial answer partition, if any.")
    counts = models.JSONField(default=dict, blank=True)
    storage_prefix = models.CharField(max_length=255, blank=True)
    manifest = models.JSONField(null=True, blank=True)
    datasheet = models.TextField(blank=True)
    rebuild_check = models.JSONField(null=True, blank=True, help_text="The last rebuild-and-compare result.")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    published_at = models.DateTimeField(null=True, blank=True)

    @property
    def version(self):
        return f"{self.major}.{self.minor}.{self.patch}"

    @property
    def version_key(self):
        return (self.major, self.minor, self.patch)

    @property
    def test_percent(self):
        return 100 - self.train_percent - self.val_percent

    @property
    def is_published(self):
        return self.state == self.State.PUBLISHED

    def __str__(self):
        return f"{self.name} {self.version}"

    class Meta:
        ordering = ["name", "-major", "-minor", "-patch"]
        constraints = [
            models.UniqueConstraint(fields=["name", "major", "minor", "patch"], name="release_version_unique"),
            models.CheckConstraint(
                condition=Q(state__in=["draft", "queued", "building", "published", "failed"]),
                name="release_state_known",
            ),
            models.CheckConstraint(
                condition=Q(split_strategy__in=["random", "adversarial"]), name="release_split_strategy_known"
            ),
            models.CheckConstraint(
                condition=Q(webvln_setting__in=["seen", "unseen"]), name="release_webvln_setting_known"
            ),
            models.CheckConstraint(
                condition=Q(train_percent__lte=100) & Q(val_percent__lte=100), name="release_percents_in_range"
            ),
        ]


class ReleaseItem(models.Model):
    """One QA pair as it was at the snapshot: its record (everything the formats write),
    the hash of that record, and its split. Builds read these, never the live tables."""

    release = models.ForeignKey(Release, on_delete=models.CASCADE, related_name="items")
    qa_pair = models.ForeignKey("corpus.QAPair", on_delete=models.SET_NULL, null=True, related_name="+")
    guid = models.CharField(max_length=32, help_text="Stable across versions: the same pair keeps its id.")
    family = models.CharField(max_length=16)
    split = models.CharField(max_length=8, blank=True)
    group_key = models.CharField(max_length=300, help_text="Items sharing it always land in the same split.")
    content_hash = models.CharField(max_length=64)
    record = models.JSONField()

    def __str__(self):
        return f"{self.guid} in {self.release}"

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["release", "guid"], name="release_item_guid_unique"),
            models.CheckConstraint(condition=Q(split__in=["", *SPLITS]), name="release_item_split_known"),
        ]
        indexes = [
            models.Index(fields=["release", "split", "guid"], name="release_item_split_guid"),
            # Builds read a release's items in id order, a chunk at a time.
            models.Index(fields=["release", "id"], name="release_item_order"),
        ]


class ReleaseGraph(models.Model):
    """A website's navigation graph as the snapshot froze it: the environment of the
    release's WebVLN episodes on that site. ``graph`` holds ``homepage`` (a page number
    or null), ``pages`` (``[{"number", "url", "title", "screen": {sha256, format, width,
    height}}]``, only pages with a cleared screenshot) and ``edges`` (``[{"source",
    "destination", "text", "alt", "href_full", "bbox", "screen"}]``, the box on that
    screen)."""

    release = models.ForeignKey(Release, on_delete=models.CASCADE, related_name="graphs")
    host = models.CharField(max_length=255)
    site_id = models.CharField(max_length=255, help_text="The website id in WebVLN's files.")
    graph = models.JSONField()

    def __str__(self):
        return f"{self.host} in {self.release}"

    class Meta:
        constraints = [models.UniqueConstraint(fields=["release", "host"], name="release_graph_once")]


class ReleaseAsset(models.Model):
    """An image file a release ships, by content hash; WebQA images get their dense
    ``image_index`` (image_id = 30,000,000 + index)."""

    release = models.ForeignKey(Release, on_delete=models.CASCADE, related_name="assets")
    asset = models.ForeignKey("assets.Asset", on_delete=models.SET_NULL, null=True, related_name="+")
    sha256 = models.CharField(max_length=64)
    format = models.CharField(max_length=8)
    storage_key = models.CharField(max_length=255)
    size = models.PositiveBigIntegerField(null=True, blank=True, help_text="Bytes, once copied into the release.")
    webqa_image = models.BooleanField(default=False)
    image_index = models.PositiveIntegerField(null=True, blank=True)

    def __str__(self):
        return f"{self.sha256[:12]} in {self.release}"

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["release", "sha256"], name="release_asset_once"),
            models.UniqueConstraint(fields=["release", "image_index"], name="release_image_index_unique"),
        ]


EVALUATION_FOLDER = "evaluation/"


class ReleaseFile(models.Model):
    """A file of a published release, with its size and SHA-256 (the manifest's list).

    Files under ``evaluation/`` form the evaluation set (test answers and the gold the
    scorers read): private unless the release publishes its test answers."""

    release = models.ForeignKey(Release, on_delete=models.CASCADE, related_name="files")
    path = models.CharField(max_length=400)
    size = models.PositiveBigIntegerField()
    sha256 = models.CharField(max_length=64)
    private = models.BooleanField(default=False, help_text="In the evaluation set: only admins download it.")

    def __str__(self):
        return self.path

    class Meta:
        ordering = ["path"]
        constraints = [models.UniqueConstraint(fields=["release", "path"], name="release_file_path_unique")]


class Evaluation(models.Model):
    """A model's predictions scored against one split of a release with its family's
    metric; a job resource the researcher polls. Public runs make the leaderboard."""

    class State(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"

    release = models.ForeignKey(Release, on_delete=models.CASCADE, related_name="evaluations")
    family = models.CharField(max_length=16)
    split = models.CharField(max_length=8)
    name = models.CharField(max_length=120, help_text="The model or run, as the leaderboard shows it.")
    public = models.BooleanField(default=False, help_text="Shown on the release's leaderboard.")
    submitted_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="evaluations")
    predictions_key = models.CharField(max_length=255, help_text="Storage key of the uploaded predictions.")
    predictions_sha256 = models.CharField(max_length=64)
    state = models.CharField(max_length=8, choices=State.choices, default=State.QUEUED)
    metrics = models.JSONField(default=dict, blank=True)
    per_category = models.JSONField(default=dict, blank=True)
    missing = models.PositiveIntegerField(default=0)
    count = models.PositiveIntegerField(default=0)
    message = models.TextField(blank=True, help_text="Why the run failed, if it did.")
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    def __str__(self):
        return f"{self.name} on {self.release} {self.family}/{self.split}"

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(condition=Q(family__in=FAMILIES), name="evaluation_family_known"),
            models.CheckConstraint(condition=Q(split__in=["val", "test"]), name="evaluation_split_known"),
            models.CheckConstraint(
                condition=Q(state__in=["queued", "running", "done", "failed"]), name="evaluation_state_known"
            ),
        ]
        indexes = [models.Index(fields=["release", "public", "family", "split"], name="evaluation_leaderboard")]
