"""Mining and generation runs in the console: the latest of each with their state and
progress, a form to start a mining run; generation runs start and are followed on their
own pages (/generation/), which this page links to."""

from django.contrib import messages
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from config.errors import DomainError
from generation.models import GenerationRun
from mining import services as mining
from mining.models import MiningRun

from .access import staff_only
from .forms import MiningForm


@staff_only
@require_http_methods(["GET", "POST"])
def runs(request):
    form = MiningForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            run = mining.start_run(job=data["job"], scope=data["scope"], batch=data["batch"],
                                   qa_pair_ids=data["qa_pairs"], created_by=request.user)  # fmt: skip
        except DomainError as refusal:
            form.add_error(None, refusal.message)
        else:
            messages.success(request, f"{run} is queued: this page shows its progress.")
            return redirect("console:runs")
    mining_runs = list(MiningRun.objects.select_related("batch").order_by("-created_at", "-id")[:50])
    context = {
        "form": form,
        "mining_runs": mining_runs,
        "generation_runs": GenerationRun.objects.order_by("-created_at", "-id")[:50],
        "waiting": any(run.state not in (MiningRun.State.DONE, MiningRun.State.FAILED) for run in mining_runs),
    }
    return render(request, "console/runs.html", context, status=400 if form.errors else 200)
