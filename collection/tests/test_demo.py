import io

import pytest
from django.core.management import call_command

from accounts.models import User
from collection.demo_sites import SITES
from corpus.models import Episode, ImageGroup, ImageSource, NavPage, QAPair, Screen, Site, Snippet, Trace
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
        "text_multihop_qa", "navigation_qa",
    }  # fmt: skip
    assert {batch.state for batch in batches.values()} == {"open"}
    assert Task.objects.filter(batch=batches["single_screen_qa"]).count() == 9
    assert Site.objects.filter(category__slug="shopping").count() == 7  # five in the catalogue, two demo shops
    assert sorted(QAPair.objects.exclude(family="webvln").values_list("split_kind", flat=True)) == [
        "image", "image", "image", "multi_screen", "single_screen", "text",
    ]  # fmt: skip
    webqa = QAPair.objects.filter(family="webqa").order_by("id")
    assert list(webqa.values_list("question_category", flat=True)) == ["YesNo", "color", "number", "text"]
    assert all(pair.validation for pair in webqa)  # queued for the demo validator
    assert Screen.objects.filter(trace_steps__isnull=True).count() == 4
    assert all(s.site for s in Screen.objects.all())
    trace = Trace.objects.get(batch=batches["trace_qa"])
    assert trace.state == "finished" and trace.steps.count() == 8
    task = Task.objects.get(batch=batches["trace_qa"])
    assert task.payload == {"trace": trace.pk} and task.reserved_for.username == "rater"
    assert "password for all: trailmark-demo" in out.getvalue()
    # The WebQA-style pools and their tasks.
    assert (ImageSource.objects.count(), Snippet.objects.count(), ImageGroup.objects.count()) == (20, 12, 2)
    counts = {kind: batches[kind].tasks.count() for kind in ("image_filter", "six_image_qa", "text_multihop_qa")}
    assert counts == {"image_filter": 2, "six_image_qa": 2, "text_multihop_qa": 3}
    assert not ImageSource.objects.exclude(asset__review_state="cleared").exists()  # only cleared ones go out
    text_tasks = [task.payload for task in batches["text_multihop_qa"].tasks.all()]
    assert all(payload["topic"] for payload in text_tasks)
    assert len({pk for payload in text_tasks for pk in payload["snippets"]}) == 12


def test_the_demo_records_three_websites_and_navigation_questions_on_them():
    call_command("load_demo", stdout=io.StringIO())
    call_command("load_demo", stdout=io.StringIO())
    sites = Site.objects.filter(host__in=["demo-kitchen.test", "demo-books.test", "demo-stays.test"])
    assert sites.count() == 3
    for site in sites:
        items = [path for path in SITES[site.host][2] if path.count("/") == 2]
        pages = NavPage.objects.filter(site=site)
        assert pages.filter(depth__gte=2).count() == len(items) and not pages.filter(depth__isnull=True).exists()
        assert site.graph_traces == len(items) and pages.count() == len(SITES[site.host][2])
        assert Episode.objects.filter(site=site).count() == 4
    episodes = QAPair.objects.filter(family="webvln")
    assert episodes.filter(state="accepted").count() == 10
    assert all(pair.validation for pair in episodes.filter(state="pending_validation"))  # path review
    batch = Batch.objects.get(kind="navigation_qa")
    assert batch.tasks.count() == 6 and all(task.payload["target"] for task in batch.tasks.all())
