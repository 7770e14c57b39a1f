"""Reference answers in the console: an admin picks test items (accepted pairs in the
test split of a draft release) to collect five reference answers each. Ids that name no
pair, or a pair that cannot be a test item, are refused by name; nothing is chosen then,
and the form keeps what was ticked and typed."""

from django.contrib import messages
from django.db import transaction
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from config.errors import DomainError
from corpus.models import QAPair, ReferenceSet
from releases.models import Release
from releases.splits import test_candidates
from validation.services import choose_test_candidates, draft_release

from .access import staff_only
from .forms import CandidatesForm

SHOWN = 200


class _Skipped(Exception):
    """Some pairs could not be chosen: undo the others, so the admin decides again."""

    def __init__(self, skipped):
        self.skipped = skipped


def _candidates(release):
    """Accepted pairs of the release's test split that no one chose yet (the first few)."""
    if release is None:
        return []
    selected = QAPair.objects.filter(family__in=release.families, state__in=release.qa_states)
    ids = test_candidates(
        seed=release.seed, percents=(release.train_percent, release.val_percent, release.test_percent),
        strategy=release.split_strategy, pairs=selected,
    )  # fmt: skip
    chosen = ReferenceSet.objects.filter(qa_pair_id__in=ids).values_list("qa_pair_id", flat=True)
    pairs = QAPair.objects.filter(pk__in=ids, state=QAPair.State.ACCEPTED).exclude(pk__in=chosen)
    return list(pairs.order_by("id").only("id", "question")[:SHOWN])


def _release(request):
    wanted = request.POST.get("release") or request.GET.get("release")
    if wanted and wanted.isdigit():
        release = Release.objects.exclude(state=Release.State.PUBLISHED).filter(pk=wanted).first()
        if release is not None:
            return release
    return draft_release()


def _reasons(skipped):
    return "; ".join(f"pair {pair_id}: {reason}" for pair_id, reason in sorted(skipped.items()))


@staff_only
@require_http_methods(["GET", "POST"])
def references(request):
    release = _release(request)
    candidates = _candidates(release)
    initial = {"release": release.pk} if release else {}
    form = CandidatesForm(request.POST or None, candidates=candidates, initial=initial)
    if request.method == "POST" and form.is_valid():
        wanted = form.wanted()
        pairs = list(QAPair.objects.filter(pk__in=wanted).order_by("id"))
        unknown = sorted(set(wanted) - {pair.pk for pair in pairs})
        if unknown:
            form.add_error("typed", f"No QA pair has the id {', '.join(map(str, unknown))}. Nothing was chosen.")
        else:
            try:
                with transaction.atomic():
                    result = choose_test_candidates(actor=request.user, release=form.cleaned_data["release"],
                                                    qa_pairs=pairs)  # fmt: skip
                    if result.skipped:
                        raise _Skipped(result.skipped)
            except _Skipped as refusal:
                form.add_error(None, f"Nothing was chosen: {_reasons(refusal.skipped)}. Untick or remove those pairs.")
            except DomainError as refusal:
                form.add_error(None, f"Nothing was chosen. {refusal.message}")
            else:
                made = len(result.created)
                messages.success(request, f"{made} pair{'s' if made != 1 else ''} of the test split of "
                                          f"{result.release} now collect reference answers.")  # fmt: skip
                return redirect(f"{request.path}?release={result.release.pk}")
    recent = ReferenceSet.objects.select_related("qa_pair").order_by("-id")[:50]
    context = {"form": form, "release": release, "candidates": candidates, "recent": recent, "shown": SHOWN}
    return render(request, "console/references.html", context, status=400 if form.errors else 200)
