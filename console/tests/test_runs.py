"""Mining and generation runs in the console: listed with their state and progress; a
mining run starts from a form that names what is wrong with its input."""

import pytest
from django.urls import reverse

from generation.models import GenerationRun
from mining.models import MiningRun
from releases.tests import data

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_client(client, admin_user):
    client.force_login(admin_user)
    return client


def test_a_mining_run_starts_over_the_pairs_named(admin_client, admin_user, rater):
    pair = data.screen_pair(rater)
    response = admin_client.post(reverse("console:runs"), {"job": "mine", "scope": "qa_pairs", "qa_pairs": f"{pair.pk}"},
                                 follow=True)  # fmt: skip
    run = MiningRun.objects.get()
    assert (run.job, run.scope, run.qa_pair_ids, run.state, run.created_by) == (
        "mine", "qa_pairs", [pair.pk], "queued", admin_user)  # fmt: skip
    page = response.content.decode()
    assert f"Mine distractors run {run.pk} is queued" in page
    assert 'data-testid="mining-run"' in page and "0 of 0" in page
    assert 'hx-trigger="every 3s"' in page  # followed while it runs


def test_bad_input_is_refused_and_no_run_starts(admin_client, rater):
    page = admin_client.post(reverse("console:runs"), {"job": "mine", "scope": "batch"}).content.decode()
    assert "Choose the batch to run over." in page
    page = admin_client.post(
        reverse("console:runs"), {"job": "mine", "scope": "qa_pairs", "qa_pairs": "4x"}
    ).content.decode()
    assert "Not QA pair ids: 4x." in page
    response = admin_client.post(
        reverse("console:runs"), {"job": "categorise", "scope": "qa_pairs", "qa_pairs": "987654"}
    )
    assert response.status_code == 400
    assert "There are no QA pairs 987654." in response.content.decode()
    assert 'value="987654"' in response.content.decode()
    assert not MiningRun.objects.exists()
    assert "every 3s" not in response.content.decode()  # nothing running: nothing to follow


def test_generation_runs_are_listed_with_links_to_their_pages(admin_client, admin_user):
    run = GenerationRun.objects.create(created_by=admin_user, state="running", total=10, processed=4)
    page = admin_client.get(reverse("console:runs")).content.decode()
    assert reverse("generation:run", args=[run.pk]) in page and "4 / 10" in page
    assert reverse("generation:runs") in page
