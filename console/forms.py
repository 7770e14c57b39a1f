"""The console's forms: fields for everything an admin used to type as JSON in the Django
admin (locales, a kind's settings, a release's families), with their checks."""

from django import forms

from accounts.models import Qualification, RaterProfile
from corpus.models import QAPair, Site
from hits.serializers import FULL_PAGE_MODES
from mining.models import MiningRun
from releases.models import FAMILIES, Release

# Offered on every batch form, with whatever locales raters' profiles already hold.
COMMON_LOCALES = ["en-US", "en-GB", "en-CA", "en-AU", "en-IN", "de-DE", "es-ES", "fr-FR", "it-IT", "ja-JP", "pt-BR"]


def locale_choices():
    held = RaterProfile.objects.exclude(locale="").values_list("locale", flat=True).distinct()
    return [(locale, locale) for locale in sorted({*COMMON_LOCALES, *held})]


class BatchForm(forms.Form):
    """A batch of one kind: what every batch has, then the settings its kind reads
    (``kind_settings``), shown only for kinds that declare what they are for."""

    name = forms.CharField(max_length=200)
    description = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 3}),
                                  help_text="Workers read it on their home page.")  # fmt: skip
    reward = forms.DecimalField(min_value=0, max_digits=8, decimal_places=2, initial=0,
                                help_text="Pay per approved assignment.")  # fmt: skip
    assignment_minutes = forms.IntegerField(min_value=1, max_value=10080, required=False,
                                            help_text="How long a worker may hold a task; empty for the site default.")  # fmt: skip
    spot_check_percent = forms.IntegerField(min_value=0, max_value=100, initial=10,
                                            help_text="Share of submissions drawn for a spot check.")  # fmt: skip
    min_approval_rate = forms.DecimalField(min_value=0, max_value=1, decimal_places=3, required=False,
                                           help_text="0–1; empty for none.")  # fmt: skip
    min_approved_count = forms.IntegerField(min_value=0, initial=0)
    allowed_locales = forms.MultipleChoiceField(choices=(), required=False, widget=forms.CheckboxSelectMultiple,
                                                help_text="None ticked: workers in any locale.")  # fmt: skip
    required_qualifications = forms.ModelMultipleChoiceField(
        queryset=Qualification.objects.order_by("name"), required=False, widget=forms.CheckboxSelectMultiple
    )

    def __init__(self, *args, kind, **kwargs):
        super().__init__(*args, **kwargs)
        self.kind = kind
        self.fields["allowed_locales"].choices = locale_choices()
        self.settings_fields = []
        if kind.takes_traces:
            self._setting("questions_by", forms.ChoiceField(
                choices=[("author", "Only the rater who recorded the trace"), ("anyone", "Any rater")],
                initial="author", label="Who writes questions on a trace"))  # fmt: skip
            self._setting("full_page", forms.ChoiceField(
                choices=[("", "The visible viewport"), ("stitch", "The whole page, viewport by viewport"),
                         ("debugger", "The whole page in one shot (where the rater allowed it)")],
                required=False, label="What the extension captures at each step"))  # fmt: skip
        if kind.shows_site:
            self._setting("sites", forms.ModelMultipleChoiceField(
                queryset=Site.objects.filter(nav_pages__isnull=False).distinct().order_by("name"), required=False,
                widget=forms.CheckboxSelectMultiple, help_text="None ticked: every active site with a graph."))  # fmt: skip
            self._setting("targets_per_site", forms.IntegerField(min_value=1, max_value=1000, initial=10,
                          help_text="Target pages drawn per site when the batch is filled."))  # fmt: skip
            self._setting("seed", forms.IntegerField(min_value=0, required=False,
                          help_text="The same seed draws the same targets; empty for the batch's id."))  # fmt: skip
        if getattr(kind, "auto_batch_title", ""):
            self._setting("family", forms.ChoiceField(
                choices=[("", "Any family"), *QAPair.Family.choices], required=False,
                help_text="New tasks for pairs of this family join this batch."))  # fmt: skip

    def _setting(self, name, field):
        self.fields[name] = field
        self.settings_fields.append(name)

    def common_fields(self):
        return [self[name] for name in self.fields if name not in self.settings_fields]

    def kind_fields(self):
        return [self[name] for name in self.settings_fields]

    def kind_settings(self):
        data, chosen = self.cleaned_data, {}
        if "questions_by" in data:
            chosen["questions_by"] = data["questions_by"]
        if data.get("full_page") in FULL_PAGE_MODES and data.get("full_page"):
            chosen["capture"] = {"full_page": data["full_page"]}
        if data.get("sites"):
            chosen["sites"] = sorted(site.pk for site in data["sites"])
        if data.get("targets_per_site"):
            chosen["targets_per_site"] = data["targets_per_site"]
        if data.get("seed") is not None:
            chosen["seed"] = data["seed"]
        if data.get("family"):
            chosen["family"] = data["family"]
        return chosen

    def batch_fields(self):
        data = self.cleaned_data
        names = ["description", "reward", "assignment_minutes", "spot_check_percent", "min_approval_rate",
                 "min_approved_count", "allowed_locales"]  # fmt: skip
        return {name: data[name] for name in names} | {"kind_settings": self.kind_settings()}


class ReleaseForm(forms.Form):
    """A release definition; ``definition()`` is an unsaved ``Release`` the preview reads."""

    name = forms.SlugField(max_length=80, help_text="Versions of one name form its history.")
    version = forms.CharField(max_length=40, help_text="major.minor.patch, higher than the name's latest.")
    families = forms.MultipleChoiceField(choices=[(f, f) for f in FAMILIES], widget=forms.CheckboxSelectMultiple,
                                         initial=FAMILIES)  # fmt: skip
    qa_states = forms.MultipleChoiceField(choices=QAPair.State.choices, widget=forms.CheckboxSelectMultiple,
                                          initial=["accepted"], label="QA states")  # fmt: skip
    split_strategy = forms.ChoiceField(choices=Release.SplitStrategy.choices, initial="adversarial")
    webvln_setting = forms.ChoiceField(choices=Release.WebVLNSetting.choices, initial="seen", label="WebVLN setting")
    seed = forms.IntegerField(min_value=0, initial=0, help_text="The same seed and snapshot give the same splits.")
    train_percent = forms.IntegerField(min_value=1, max_value=100, initial=80)
    val_percent = forms.IntegerField(min_value=0, max_value=99, initial=10)
    notes = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 4}),
                            help_text="Shown in the datasheet: what changed, what to know.")  # fmt: skip
    test_answers_public = forms.BooleanField(required=False, label="Ship the test answers in the public download")

    def clean(self):
        data = super().clean()
        train, val = data.get("train_percent"), data.get("val_percent")
        if train is not None and val is not None and train + val >= 100:
            self.add_error("val_percent", f"Train and val take {train + val}%: leave some for test.")
        return data

    def definition(self):
        data = {key: value for key, value in self.cleaned_data.items() if key not in ("name", "version")}
        return Release(name=self.cleaned_data["name"], **data)


class CandidatesForm(forms.Form):
    """Test items for reference answers: ticked from the list, or typed as ids."""

    release = forms.ModelChoiceField(queryset=Release.objects.none(), label="Draft release",
                                     help_text="Its seed and shares decide which pairs are in test.")  # fmt: skip
    qa_pairs = forms.TypedMultipleChoiceField(coerce=int, choices=(), required=False,
                                              widget=forms.CheckboxSelectMultiple, label="Accepted test pairs")  # fmt: skip
    typed = forms.CharField(required=False, label="Or type QA pair ids",
                            help_text="Separated by commas or spaces, e.g. 12, 40 41.")  # fmt: skip

    def __init__(self, *args, candidates=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["release"].queryset = Release.objects.exclude(state=Release.State.PUBLISHED).filter(
            families__contains=["webqa"]
        )
        self.fields["qa_pairs"].choices = [(pair.pk, f"{pair.pk}: {pair.question}") for pair in candidates]

    def clean_typed(self):
        words = self.cleaned_data["typed"].replace(",", " ").split()
        bad = [word for word in words if not word.isdigit()]
        if bad:
            raise forms.ValidationError(f"Not QA pair ids: {', '.join(bad)}. Type whole numbers only.")
        return [int(word) for word in words]

    def clean(self):
        data = super().clean()
        if not self.errors and not data.get("qa_pairs") and not data.get("typed"):
            raise forms.ValidationError("Tick at least one pair, or type its id.")
        return data

    def wanted(self):
        return sorted({*self.cleaned_data.get("qa_pairs", []), *self.cleaned_data.get("typed", [])})


class CompareForm(forms.Form):
    one = forms.ModelChoiceField(queryset=Release.objects.none(), label="From")
    other = forms.ModelChoiceField(queryset=Release.objects.none(), label="To")

    def __init__(self, *args, versions, **kwargs):
        super().__init__(*args, **kwargs)
        for name in ("one", "other"):
            self.fields[name].queryset = versions
            self.fields[name].label_from_instance = lambda release: release.version


class MiningForm(forms.Form):
    job = forms.ChoiceField(choices=MiningRun.Job.choices)
    scope = forms.ChoiceField(choices=MiningRun.Scope.choices, initial=MiningRun.Scope.NEW)
    batch = forms.ModelChoiceField(queryset=None, required=False, help_text="For the “One batch” scope.")
    qa_pairs = forms.CharField(required=False, label="QA pair ids", help_text="For the “Chosen QA pairs” scope.")

    def __init__(self, *args, **kwargs):
        from hits.models import Batch

        super().__init__(*args, **kwargs)
        self.fields["batch"].queryset = Batch.objects.order_by("-created_at")

    def clean_qa_pairs(self):
        words = self.cleaned_data["qa_pairs"].replace(",", " ").split()
        bad = [word for word in words if not word.isdigit()]
        if bad:
            raise forms.ValidationError(f"Not QA pair ids: {', '.join(bad)}.")
        return sorted({int(word) for word in words})

    def clean(self):
        data = super().clean()
        if data.get("scope") == MiningRun.Scope.BATCH and not data.get("batch"):
            self.add_error("batch", "Choose the batch to run over.")
        if data.get("scope") == MiningRun.Scope.QA_PAIRS and not data.get("qa_pairs") and "qa_pairs" not in self.errors:
            self.add_error("qa_pairs", "Type the ids of the QA pairs to run over.")
        return data


def _payload_field(field):
    """A form field for one field of a kind's input serializer (a task's payload)."""
    from rest_framework import serializers

    common = {"required": field.required, "label": field.label or field.field_name.replace("_", " ").capitalize(),
              "help_text": field.help_text or ""}  # fmt: skip
    if isinstance(field, serializers.SlugRelatedField):
        rows = field.get_queryset()[:500]
        return forms.ChoiceField(choices=[(getattr(row, field.slug_field), str(row)) for row in rows], **common)
    if isinstance(field, serializers.PrimaryKeyRelatedField):
        return forms.ChoiceField(choices=[(row.pk, str(row)) for row in field.get_queryset()[:500]], **common)
    if isinstance(field, serializers.ChoiceField):
        return forms.ChoiceField(choices=list(field.choices.items()), **common)
    if isinstance(field, serializers.BooleanField):
        return forms.BooleanField(**{**common, "required": False})
    if isinstance(field, serializers.IntegerField):
        return forms.IntegerField(**common)
    max_length = getattr(field, "max_length", None)
    widget = forms.Textarea(attrs={"rows": 4}) if (max_length or 0) > 500 else None
    return forms.CharField(widget=widget, **common)


class TasksForm(forms.Form):
    """Tasks added by hand to a batch whose kind is not filled from a pool: what each
    task shows (the kind's input fields), how many such tasks, and how many workers each."""

    count = forms.IntegerField(min_value=1, max_value=1000, initial=1, label="How many tasks")
    assignments_wanted = forms.IntegerField(min_value=1, max_value=50, label="Workers per task")

    def __init__(self, *args, kind, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["assignments_wanted"].initial = kind.default_assignments_wanted
        self.payload_fields = []
        for name, field in kind.input_serializer().fields.items():
            if not field.read_only:
                self.fields[name] = _payload_field(field)
                self.payload_fields.append(name)

    def payload(self):
        return {name: self.cleaned_data[name] for name in self.payload_fields}
