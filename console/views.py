"""The console's front page: what needs an admin now, with a way into each part."""

from django.shortcuts import render
from django.views.decorators.http import require_safe

from generation.models import GenerationRun
from hits.models import Batch
from mining.models import MiningRun
from releases.models import Release

from .access import staff_only

RUNNING = {"queued", "indexing", "running", "sampling"}


@staff_only
@require_safe
def index(request):
    context = {
        "open_batches": Batch.objects.filter(state=Batch.State.OPEN).count(),
        "draft_batches": Batch.objects.filter(state=Batch.State.DRAFT).count(),
        "building": Release.objects.filter(state__in=["queued", "building"]).count(),
        "drafts": Release.objects.filter(state__in=["draft", "failed"]).count(),
        "published": Release.objects.filter(state=Release.State.PUBLISHED).count(),
        "mining_running": MiningRun.objects.filter(state__in=RUNNING).count(),
        "generation_running": GenerationRun.objects.filter(state__in=RUNNING).count(),
        "failed_releases": Release.objects.filter(state=Release.State.FAILED).order_by("-created_at")[:10],
        "failed_mining": MiningRun.objects.filter(state=MiningRun.State.FAILED).order_by("-created_at")[:10],
        "failed_generation": GenerationRun.objects.filter(state=GenerationRun.State.FAILED).order_by("-created_at")[
            :10
        ],
    }
    return render(request, "console/index.html", context)
