import io

import pytest
from django.core.management import call_command

from accounts.models import User
from corpus.models import ImageGroup, ImageSource, QAPair, Screen, Site, Snippet, Trace
from hits.models import Batch, Task

pytestmark = pytest.mark.django_db


def test_demo_loader_is_idempotent_and_fills_every_part():
    out = io.StringIO()
    call_command("load_demo", stdout=out)
    call_command("load_demo", stdout=io.StringIO())
    assert set(User.objects.values_list("username", "role")) == {
        ("rater", "rater"), ("validator", "validator"), ("reviewer", "reviewer"), ("admin", "admin")
    }  # fmt: skip
    batches = {batch.kind: batch for batch in Batch.objects.all()}
    assert set(batches) >= {
        "demo_question", "single_screen_qa", "multi_screen_qa", "trace_qa", "image_filter", "six_image_qa",
        "text_multihop_qa",
    }  # fmt: skip
    assert {batch.state for batch in batches.values()} == {"open"}
    assert Task.objects.filter(batch=batches["single_screen_qa"]).count() == 9
    assert Site.objects.filter(category__slug="shopping").count() == 5
    assert sorted(QAPair.objects.values_list("split_kind", flat=True)) == [
        "image", "image", "image", "multi_screen", "single_screen", "text",
    ]  # fmt: skip
    webqa = QAPair.objects.filter(family="webqa").order_by("id")
    assert list(webqa.values_list("question_category", flat=True)) == ["YesNo", "color", "number", "text"]
    assert all(pair.validation for pair in webqa)  # queued for the demo validator
    assert Screen.objects.filter(trace_steps__isnull=True).count() == 4
    assert all(s.site for s in Screen.objects.all())
    trace = Trace.objects.get()
    assert trace.state == "finished" and trace.steps.count() == 8
    task = Task.objects.get(batch=batches["trace_qa"])
    assert task.payload == {"trace": trace.pk} and task.reserved_for.username == "rater"
    assert "password for all: trailmark-demo" in out.getvalue()
    # The WebQA-style pools and their tasks.
    assert (ImageSource.objects.count(), Snippet.objects.count(), ImageGroup.objects.count()) == (20, 12, 2)
    counts = {kind: batches[kind].tasks.count() for kind in ("image_filter", "six_image_qa", "text_multihop_qa")}
    assert counts == {"image_filter": 2, "six_image_qa": 2, "text_multihop_qa": 3}
