"""The whole story over the API on PostgreSQL: a worker qualifies on the second
attempt, writes a QA pair, two validators disagree, a third decides."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection

from assets.tests.samples import png_bytes
from corpus.models import QAPair
from hits.models import Batch
from tests.factories import capture_batch, site
from validation.tasks import compute_batch_agreement
from validation.tests.factories import answers, small_test, validators

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "postgresql", reason="the end-to-end story runs on PostgreSQL"),
]


def _validate(client, batch, verdict):
    taken = client.post("/api/v1/assignments/", {"batch": batch.pk}, format="json")
    assert taken.status_code == 201, taken.json()
    response = client.post(f"/api/v1/assignments/{taken.json()['id']}/submit/", {"answer": verdict}, format="json")
    assert response.status_code == 200, response.json()
    return taken.json()


def test_qualify_on_second_attempt_write_a_pair_and_three_validators_decide_it(rater, api_for):
    site(category="shopping", url="https://shop-b.test/")
    test = small_test(slug="screen-basics")
    batch = capture_batch(kind="single_screen_qa")
    batch.required_qualifications.add(test.qualification)
    worker = api_for(rater)

    refused = worker.post("/api/v1/assignments/", {"batch": batch.pk}, format="json")
    assert refused.status_code == 403
    error = refused.json()["error"]
    assert (error["code"], error["message"]) == ("not_eligible", "You need the qualification: Small test.")

    first = worker.post(
        f"/api/v1/qualification-tests/{test.slug}/attempts/", {"answers": answers(test, right=7)}, format="json"
    )
    assert first.status_code == 201, first.json()
    assert (first.json()["score"], first.json()["outcome"]) == ("0.700", "second_chance")
    second = worker.post(
        f"/api/v1/qualification-tests/{test.slug}/attempts/", {"answers": answers(test, right=9)}, format="json"
    )
    assert (second.json()["number"], second.json()["outcome"]) == (2, "passed")
    standing = worker.get(f"/api/v1/qualification-tests/{test.slug}/").json()
    assert standing["qualified"] and not standing["may_attempt"]

    taken = worker.post("/api/v1/assignments/", {"batch": batch.pk}, format="json")
    assert taken.status_code == 201, taken.json()
    assignment = taken.json()["id"]
    upload = worker.post(
        "/api/v1/screens/",
        {"file": SimpleUploadedFile("s.png", png_bytes(size=(640, 400), seed=3), content_type="image/png"),
         "assignment": assignment},
        format="multipart",
    )  # fmt: skip
    assert upload.status_code == 201, upload.json()
    submitted = worker.post(
        f"/api/v1/assignments/{assignment}/submit/",
        {"answer": {
            "screens": [{"screen": upload.json()["id"], "url": "https://shop-b.test/kettles", "title": "Kettles"}],
            "question": "How much cheaper is the glass kettle than the steel one?", "answer": "$5.49",
            "reasoning_types": ["arithmetic"], "no_sign_in": True, "no_personal_data": True,
        }},
        format="json",
    )  # fmt: skip
    assert submitted.status_code == 200, submitted.json()
    pair = QAPair.objects.get(pk=submitted.json()["answer"]["qa_pair"])
    assert pair.state == "pending_validation"

    validation_batch = Batch.objects.get(kind="validation", state="open")
    # The author may not check their own pair (and as a rater, not validate at all).
    own = worker.post("/api/v1/assignments/", {"batch": validation_batch.pk}, format="json")
    assert own.status_code == 403 and "validator role" in own.json()["error"]["message"]

    yes, no, tie_breaker = (api_for(v) for v in validators(3))
    accepted = _validate(yes, validation_batch, {"answer_correct": True, "follows_guidelines": True,
                                                 "sources_needed": True})  # fmt: skip
    assert accepted["task"]["payload"] == {"qa_pair": pair.pk}
    _validate(no, validation_batch, {"answer_correct": False, "follows_guidelines": True, "sources_needed": True,
                                     "comment": "The glass kettle costs $29.50, so it is $5.00 cheaper.",
                                     "corrected_answer": "$5.00"})  # fmt: skip
    pair.refresh_from_db()
    assert pair.state == "pending_validation"
    assert pair.validation.task.assignments_wanted == 3

    _validate(tie_breaker, validation_batch, {"answer_correct": False, "follows_guidelines": True,
                                              "sources_needed": True, "comment": "Wrong sum."})  # fmt: skip
    pair.refresh_from_db()
    assert pair.state == "rejected"
    assert "2 of 3 validators rejected it: the answer is not correct" in pair.state_reason
    assert "Suggested answer: $5.00" in pair.state_reason
    assert [j.accept for j in pair.judgements.order_by("id")] == [True, False, False]

    author = worker.get("/api/v1/quality/").json()
    assert (author["pairs_accepted"], author["pairs_rejected"]) == (0, 1)
    assert yes.get("/api/v1/quality/").json()["agreement_rate"] == 0.0
    assert no.get("/api/v1/quality/").json()["agreement_rate"] == 1.0
    assert tie_breaker.get("/api/v1/quality/").json()["judgements_decided"] == 1
    assert author["qualification_history"][0]["action"] == "granted"

    # The agreement job (run here in-process) stores the statistic on both batches. One
    # unit [A, R, R]: o_AR = o_RA = o_RR = 1, n_A = 1, n_R = 2: alpha = 1 − 2·2 / 4 = 0.
    assert compute_batch_agreement(validation_batch.pk) == pytest.approx(0.0)
    assert compute_batch_agreement(batch.pk) == pytest.approx(0.0)
