"""Mining in the admin: starting a run from the add form, its progress on the list."""

import pytest

from mining.models import MiningRun

from . import factories as make

pytestmark = pytest.mark.django_db


def test_an_admin_starts_a_run_from_the_add_form_and_sees_its_progress(client, admin_user):
    client.force_login(admin_user)
    pair = make.qa_pair("What colour is the tram?", "Green.", keyword_answer="green", split_kind="image")
    response = client.post(
        "/admin/mining/miningrun/add/", {"job": "categorise", "scope": "qa_pairs", "qa_pairs": str(pair.pk)}
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    run = MiningRun.objects.get()
    assert (run.job, run.scope, run.qa_pair_ids, run.created_by) == ("categorise", "qa_pairs", [pair.pk], admin_user)
    page = client.get("/admin/mining/miningrun/").content.decode()
    assert "<progress" in page
    assert client.get(f"/admin/mining/miningrun/{run.pk}/change/").status_code == 200


def test_the_add_form_explains_what_is_missing(client, admin_user):
    client.force_login(admin_user)
    response = client.post("/admin/mining/miningrun/add/", {"job": "mine", "scope": "qa_pairs", "qa_pairs": "999"})
    assert response.status_code == 200 and "There are no QA pairs 999" in response.content.decode()
    assert not MiningRun.objects.exists()


def test_distractor_and_reasoning_check_lists_open(client, admin_user):
    client.force_login(admin_user)
    assert client.get("/admin/mining/distractor/").status_code == 200
    assert client.get("/admin/mining/reasoningcheck/").status_code == 200
