"""Batches in the console: made from a kind with fields for its settings (no JSON),
refused with the reason beside the field, opened, closed and filled."""

import re
from decimal import Decimal

import pytest
from django.urls import reverse

from accounts.models import Qualification
from hits.models import Batch, WorkEvent

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_client(client, admin_user):
    client.force_login(admin_user)
    return client


def test_a_batch_of_trace_questions_takes_locales_and_its_kinds_settings_as_fields(admin_client, admin_user):
    qualification = Qualification.objects.create(slug="careful", name="Careful")
    page = admin_client.get(reverse("console:batch-new", args=["trace_qa"])).content.decode()
    assert 'type="checkbox" name="allowed_locales" value="en-GB"' in page
    assert 'name="questions_by"' in page and 'name="full_page"' in page
    assert 'name="sites"' not in page  # navigation batches only

    response = admin_client.post(reverse("console:batch-new", args=["trace_qa"]), {
        "name": "Shops, March", "description": "Record a shop.", "reward": "0.50", "spot_check_percent": 20,
        "min_approved_count": 3, "allowed_locales": ["en-GB", "en-US"], "required_qualifications": [qualification.pk],
        "questions_by": "anyone", "full_page": "stitch",
    })  # fmt: skip
    batch = Batch.objects.get()
    assert response.status_code == 302 and response["Location"] == reverse("console:batch", args=[batch.pk])
    assert (batch.kind, batch.state, batch.created_by) == ("trace_qa", "draft", admin_user)
    assert batch.allowed_locales == ["en-GB", "en-US"]
    assert batch.kind_settings == {"questions_by": "anyone", "capture": {"full_page": "stitch"}}
    assert (batch.reward, batch.spot_check_percent, batch.min_approved_count) == (Decimal("0.50"), 20, 3)
    assert list(batch.required_qualifications.all()) == [qualification]


def test_a_validation_batch_asks_for_the_family_it_serves(admin_client):
    page = admin_client.get(reverse("console:batch-new", args=["validation"])).content.decode()
    assert 'name="family"' in page and 'name="questions_by"' not in page
    admin_client.post(reverse("console:batch-new", args=["validation"]),
                      {"name": "Checks", "reward": "0", "spot_check_percent": 10, "min_approved_count": 0,
                       "family": "webqa"})  # fmt: skip
    assert Batch.objects.get().kind_settings == {"family": "webqa"}


def test_bad_input_is_refused_beside_its_field_and_nothing_is_lost_or_saved(admin_client):
    response = admin_client.post(reverse("console:batch-new", args=["trace_qa"]), {
        "name": "Shops, March", "description": "Keep me.", "reward": "-1", "spot_check_percent": 150,
        "min_approved_count": 0, "allowed_locales": ["en-GB", "xx-nowhere"], "questions_by": "anyone",
    })  # fmt: skip
    page = response.content.decode()
    assert response.status_code == 400
    assert "Ensure this value is greater than or equal to 0" in page
    assert "Ensure this value is less than or equal to 100" in page
    assert "Select a valid choice. xx-nowhere is not one of the available choices." in page
    assert 'value="Shops, March"' in page and "Keep me." in page
    assert re.search(r'value="en-GB"[^>]*checked', page)  # the ticks stay ticked
    assert not Batch.objects.exists()


def test_an_unknown_kind_is_a_404(admin_client):
    assert admin_client.get(reverse("console:batch-new", args=["no_such_kind"])).status_code == 404


def test_an_admin_opens_and_closes_a_batch_and_each_is_recorded(admin_client, admin_user):
    batch = Batch.objects.create(name="Demo", kind="demo_question")
    page = admin_client.get(reverse("console:batch", args=[batch.pk])).content.decode()
    assert 'data-testid="open-batch"' in page and 'data-testid="fill-batch"' not in page
    response = admin_client.post(reverse("console:batch-action", args=[batch.pk, "open"]), follow=True)
    assert "is open: workers can take its tasks" in response.content.decode()
    batch.refresh_from_db()
    assert batch.state == "open"
    response = admin_client.post(reverse("console:batch-action", args=[batch.pk, "open"]), follow=True)
    assert "Only a draft batch can be opened; this one is open." in response.content.decode()
    admin_client.post(reverse("console:batch-action", args=[batch.pk, "close"]))
    batch.refresh_from_db()
    assert batch.state == "closed"
    actions = list(WorkEvent.objects.filter(batch_id=batch.pk).order_by("id").values_list("action", "actor"))
    assert actions == [("batch_opened", admin_user.pk), ("batch_closed", admin_user.pk)]


def test_filling_a_kind_without_a_source_says_so(admin_client):
    batch = Batch.objects.create(name="Demo", kind="demo_question")
    response = admin_client.post(reverse("console:batch-action", args=[batch.pk, "fill"]), follow=True)
    assert "not filled from a pool or the site graphs" in response.content.decode()
    assert admin_client.post(reverse("console:batch-action", args=[batch.pk, "explode"])).status_code == 404


def test_the_list_shows_each_batchs_progress(admin_client):
    from hits import services as hits

    batch = Batch.objects.create(name="Demo", kind="demo_question")
    hits.add_tasks(
        batch=batch,
        payloads=[{"passage": "p", "question": "a?"}, {"passage": "p", "question": "b?"}],
        assignments_wanted=2,
    )
    page = admin_client.get(reverse("console:batches")).content.decode()
    assert "Demo" in page and "0 approved, 0 submitted, 0 out, of 4" in page


def test_a_navigation_batch_picks_its_sites_and_is_filled_from_their_graphs(admin_client, rater):
    from corpus.models import Site
    from tests.navigation import recorded_site

    shop = recorded_site(rater)
    other = recorded_site(rater, host="other.example")
    page = admin_client.get(reverse("console:batch-new", args=["navigation_qa"])).content.decode()
    assert f'name="sites" value="{shop.pk}"' in page and f'name="sites" value="{other.pk}"' in page
    admin_client.post(reverse("console:batch-new", args=["navigation_qa"]), {
        "name": "Shop routes", "reward": "0.2", "spot_check_percent": 10, "min_approved_count": 0,
        "sites": [shop.pk], "targets_per_site": 2, "seed": 7,
    })  # fmt: skip
    batch = Batch.objects.get()
    assert batch.kind_settings == {"sites": [shop.pk], "targets_per_site": 2, "seed": 7}
    page = admin_client.get(reverse("console:batch", args=[batch.pk])).content.decode()
    assert 'data-testid="fill-batch"' in page
    response = admin_client.post(reverse("console:batch-action", args=[batch.pk, "fill"]), follow=True)
    assert "Shop routes”: 2 navigation tasks added" in response.content.decode()
    assert {task.payload["site"] for task in batch.tasks.all()} == {shop.pk}
    assert batch.tasks.count() == 2 and Site.objects.count() == 2


def test_tasks_are_added_by_hand_from_the_kinds_own_fields(admin_client):
    from tests.factories import make_category

    make_category("shopping")
    batch = Batch.objects.create(name="Captures", kind="single_screen_qa")
    page = admin_client.get(reverse("console:batch", args=[batch.pk])).content.decode()
    assert 'data-testid="add-tasks-link"' in page and 'data-testid="fill-batch"' not in page
    page = admin_client.get(reverse("console:batch-tasks", args=[batch.pk])).content.decode()
    assert '<option value="shopping">' in page
    response = admin_client.post(reverse("console:batch-tasks", args=[batch.pk]),
                                 {"category": "shopping", "count": 3, "assignments_wanted": 2}, follow=True)  # fmt: skip
    assert "3 tasks added to “Captures”." in response.content.decode()
    assert [(task.payload, task.assignments_wanted) for task in batch.tasks.all()] == [
        ({"category": "shopping"}, 2)
    ] * 3


def test_tasks_with_bad_fields_are_refused_and_none_is_added(admin_client):
    batch = Batch.objects.create(name="Demo", kind="demo_question")
    response = admin_client.post(reverse("console:batch-tasks", args=[batch.pk]),
                                 {"passage": "A long text.", "question": "", "count": 0, "assignments_wanted": 1})  # fmt: skip
    page = response.content.decode()
    assert response.status_code == 400
    assert "This field is required." in page and "Ensure this value is greater than or equal to 1." in page
    assert "A long text." in page
    too_long = {"passage": "p", "question": "q" * 501, "count": 2, "assignments_wanted": 1}
    page = admin_client.post(reverse("console:batch-tasks", args=[batch.pk]), too_long).content.decode()
    assert "Ensure this field has no more than 500 characters." in page
    assert not batch.tasks.exists()
