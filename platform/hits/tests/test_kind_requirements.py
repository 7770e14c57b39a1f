"""Requirements set once for a kind of work hold in every batch of that kind, with the
reason shown to the worker, on top of each batch's own rules."""

import pytest

from accounts.models import Qualification, QualificationGrant
from hits import selectors
from hits.models import KindRequirements
from tests.api import api_error
from tests.factories import open_batch

pytestmark = pytest.mark.django_db


@pytest.fixture
def needs_passages():
    qualification = Qualification.objects.create(slug="passages", name="Passage reading")
    rules = KindRequirements.objects.create(kind="demo_question", allowed_locales=["en-US", "en-GB"])
    rules.required_qualifications.add(qualification)
    return qualification


def test_every_batch_of_the_kind_needs_the_kinds_qualification(rater, api_for, needs_passages):
    first, second = open_batch(tasks=1, name="First"), open_batch(tasks=1, name="Second")
    rows = {row["batch"].name: row["eligibility"] for row in selectors.open_batches_for(worker=rater)}
    reason = "“Answer a question about a passage” needs the qualification: Passage reading."
    assert rows["First"].reason == rows["Second"].reason == reason
    refused = api_for(rater).post("/api/v1/assignments/", {"batch": second.pk}, format="json")
    assert api_error(refused, 403, "not_eligible")["message"] == reason

    QualificationGrant.objects.create(user=rater, qualification=needs_passages)
    assert api_for(rater).post("/api/v1/assignments/", {"batch": first.pk}, format="json").status_code == 201


def test_the_kinds_locales_and_the_batchs_own_rules_both_hold(rater, other_rater, needs_passages):
    for worker in (rater, other_rater):
        QualificationGrant.objects.create(user=worker, qualification=needs_passages)
    other_rater.profile.locale = "de-DE"
    other_rater.profile.save()
    batch = open_batch(tasks=1, min_approved_count=3)
    verdict = selectors.eligibility(worker=other_rater, batch=batch)
    assert verdict.reason == (  # every rule missed, the kind's and the batch's
        "“Answer a question about a passage” is for workers in en-US, en-GB; your profile says de-DE. "
        "This batch needs 3 approved assignments; you have 0."
    )
    verdict = selectors.eligibility(worker=rater, batch=batch)
    assert verdict.reason == "This batch needs 3 approved assignments; you have 0."


def test_the_home_page_shows_the_kinds_reason_with_a_link_to_training(client, rater, needs_passages):
    open_batch(tasks=1, name="Passages")
    client.force_login(rater)
    page = client.get("/").content.decode()
    assert "needs the qualification: Passage reading." in page
    assert "Tutorials and qualification tests" in page


def test_admin_sets_a_kinds_requirements(client, admin_user):
    qualification = Qualification.objects.create(slug="images", name="Image questions")
    client.force_login(admin_user)
    assert client.get("/admin/hits/kindrequirements/add/").status_code == 200
    response = client.post(
        "/admin/hits/kindrequirements/add/",
        {"kind": "six_image_qa", "required_qualifications": [qualification.pk], "min_approved_count": 0,
         "allowed_locales": "[]"},
    )  # fmt: skip
    assert response.status_code == 302
    assert list(KindRequirements.objects.get(kind="six_image_qa").required_qualifications.all()) == [qualification]


def test_every_rule_a_worker_misses_is_named_at_once(rater):
    from hits import selectors
    from tests.factories import QualificationFactory, open_batch

    batch = open_batch(tasks=1)
    batch.allowed_locales, batch.min_approved_count = ["de-DE"], 3
    batch.save()
    batch.required_qualifications.add(QualificationFactory(slug="passages", name="Passage readers"))
    verdict = selectors.eligibility(worker=rater, batch=batch)
    assert not verdict.eligible
    for rule in ("Passage readers", "de-DE", "3 approved assignments"):
        assert rule in verdict.reason, verdict.reason
