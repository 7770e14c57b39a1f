"""Pages for admins: the generation runs, a form to start one, and each run's progress,
failed pages and per-site samples."""

from django import forms
from django.contrib import messages
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_http_methods

from accounts.models import Role
from accounts.permissions import role_required
from config.errors import DomainError
from corpus.models import Site

from . import services
from .generators import names as generator_names
from .models import GeneratedPage, GenerationRun

ONLY_ADMINS = "Only admins start and follow generation runs."


class StartForm(forms.Form):
    generator = forms.ChoiceField(choices=())
    sites = forms.ModelMultipleChoiceField(
        queryset=Site.objects.filter(nav_pages__isnull=False).distinct().order_by("name"), required=False,
        widget=forms.CheckboxSelectMultiple, help_text="None ticked: every active site.",
    )  # fmt: skip
    sample_size = forms.IntegerField(
        min_value=1, max_value=100000, initial=100, help_text="Candidates checked per site."
    )
    threshold = forms.FloatField(min_value=0, max_value=1, initial=0.8, help_text="Acceptance rate the sample needs.")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["generator"].choices = [(name, name) for name in generator_names()]


@role_required(Role.ADMIN, ONLY_ADMINS)
@require_http_methods(["GET", "POST"])
def run_list(request):
    form = StartForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            run = services.start_run(created_by=request.user, generator=data["generator"], sites=data["sites"],
                                     sample_size=data["sample_size"], threshold=data["threshold"])  # fmt: skip
        except DomainError as error:
            form.add_error(None, error.message)
        else:
            messages.success(request, f"Generation run {run.pk} started.")
            return redirect("generation:run", run_id=run.pk)
    runs = GenerationRun.objects.order_by("-id")[:100]
    return render(request, "generation/runs.html", {"form": form, "runs": runs}, status=400 if form.errors else 200)


@role_required(Role.ADMIN, ONLY_ADMINS)
def run_detail(request, run_id):
    run = get_object_or_404(GenerationRun, pk=run_id)
    samples = run.samples.select_related("site").order_by("site__host")
    failed = run.pages.filter(state=GeneratedPage.State.FAILED).order_by("id")[:100]
    return render(request, "generation/run.html", {"run": run, "samples": samples, "failed": failed})
