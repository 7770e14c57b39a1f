"""Generation runs end to end: rules candidates from the demo websites' pages, samples per
site that decide for the rest, fixes by assessors, failures recorded, re-runs skipped,
and what a release carries."""

import pytest
from celery import current_app
from django.test import Client

from conftest import token_client
from corpus.models import QAPair, Site
from generation import services
from generation.models import Candidate, GeneratedPage, GenerationRun, SiteSample
from hits.models import Batch
from outbox.models import Job
from releases.tests.helpers import build_now, read, release
from tests.factories import UserFactory
from validation.models import PairValidation

pytestmark = pytest.mark.django_db
HOSTS = ("demo-kitchen.test", "demo-books.test", "demo-stays.test")


def drain():
    """Runs every queued generation job here, as a worker would, until none is left."""
    import generation.tasks  # noqa: F401  (registers the tasks)

    jobs = Job.objects.filter(sent_at__isnull=True, task__startswith="generation.")
    while job := jobs.order_by("id").first():
        Job.objects.filter(pk=job.pk).update(sent_at=job.created_at)
        current_app.tasks[job.task].apply(args=job.args).get()


@pytest.fixture
def demo(db):
    from collection import webvln_demo

    for username, role in (("rater", "rater"), ("reviewer", "reviewer"), ("admin", "admin")):
        UserFactory(username=username, role=role)
    webvln_demo.load(out=lambda line: None)
    QAPair.objects.all().delete()  # only what the runs write, below
    return Site.objects.filter(host__in=HOSTS)


def _run(**fields):
    admin = UserFactory(role="admin")
    run = services.start_run(created_by=admin, **fields)
    drain()
    run.refresh_from_db()
    return run


def assess(verdict_of):
    """Two assessors each take every open candidate-review task in turn and judge it as
    ``verdict_of(candidate)`` says: ``(accept, extra fields)``, or None to stop there."""
    from hits import services as hits
    from hits.errors import NoTaskAvailable

    batch = Batch.objects.get(kind="candidate_review", state="open")
    for _ in range(2):
        assessor = UserFactory(role="validator")
        while True:
            try:
                assignment, _ = hits.request_next_task(worker=assessor, batch_id=batch.pk)
            except NoTaskAvailable:
                break
            candidate = Candidate.objects.get(qa_pair_id=assignment.task.payload["qa_pair"])
            if verdict_of(candidate) is None:
                hits.return_assignment(assignment_id=assignment.pk, worker=assessor)
                break
            accept, extra = verdict_of(candidate)
            verdict = {"answer_correct": accept, "follows_guidelines": accept, "sources_needed": accept,
                       "comment": "" if accept else "The page does not say this.", **extra}  # fmt: skip
            hits.submit_assignment(assignment_id=assignment.pk, worker=assessor, data=verdict)


def test_a_rules_run_writes_candidates_found_in_the_pages_text_with_their_provenance(demo):
    run = _run(sample_size=2, threshold=0.5)
    assert run.state == "sampling" and run.failures == 0 and run.total == 14 and run.processed == 14
    candidates = Candidate.objects.select_related("qa_pair__episode")
    assert candidates.count() == run.candidates > 14  # up to three per page
    for candidate in candidates:
        pair = candidate.qa_pair
        assert pair.family == "webvln" and pair.state in ("candidate", "pending_validation")
        assert pair.answer in candidate.evidence and candidate.generator == "rules" and candidate.generator_version
        assert pair.episode.target_url == candidate.page_url and len(pair.episode.path) == 3
    samples = {sample.site.host: sample for sample in SiteSample.objects.select_related("site")}
    assert set(samples) == set(HOSTS) and all(sample.size == 2 for sample in samples.values())
    sampled = Candidate.objects.filter(decision="sampled")
    assert sampled.count() == 6 and all(c.qa_pair.state == "pending_validation" for c in sampled)
    assert all(PairValidation.objects.get(qa_pair=c.qa_pair).task.batch.kind == "candidate_review" for c in sampled)
    assert not Candidate.objects.filter(decision="", qa_pair__state="pending_validation").exists()


def test_a_sample_that_holds_up_accepts_the_rest_and_one_that_falls_short_holds_it(demo):
    run = _run(sample_size=2, threshold=0.5)
    kitchen, books = (Site.objects.get(host=host) for host in HOSTS[:2])
    assess(lambda candidate: (candidate.site_id != books.pk, {}) if candidate.decision == "sampled" else None)
    passed = SiteSample.objects.get(run=run, site=kitchen)
    failed = SiteSample.objects.get(run=run, site=books)
    assert (passed.state, passed.accepted, passed.acceptance) == ("passed", 2, 1.0)
    assert (failed.state, failed.rejected, failed.acceptance) == ("failed", 2, 0.0)
    rest = Candidate.objects.filter(run=run, site=kitchen).exclude(decision="sampled")
    assert rest and all(c.decision == "by_sample" and c.qa_pair.state == "accepted" for c in rest)
    held = Candidate.objects.filter(run=run, site=books).exclude(decision="sampled")
    assert held and all(c.decision == "held" and c.qa_pair.state == "pending_validation" for c in held)
    assert all(PairValidation.objects.filter(qa_pair=c.qa_pair).exists() for c in held)  # each checked now
    run.refresh_from_db()
    assert run.state == "done" and run.finished_at
    page = Client()
    page.force_login(UserFactory(role="admin"))
    html = page.get(f"/generation/runs/{run.pk}/").content.decode()
    assert "Passed: the rest accepted" in html and "Fell short: the rest held for full review" in html

    built = build_now(release(UserFactory(role="admin"), families=["webvln"], test_answers_public=True))
    assert built.state == "published", built.message
    shipped = [line for split in ("train", "val", "test") for line in
               read(built, f"records/webvln/{split}.jsonl").decode().splitlines()]  # fmt: skip
    import json

    records = [json.loads(line) for line in shipped]
    from releases.snapshot import guid_of

    accepted = {guid_of(pk) for pk in QAPair.objects.filter(state="accepted").values_list("id", flat=True)}
    assert {record["id"] for record in records} == accepted  # nothing unaccepted ships
    assert all(record["source"] == "generated" and record["generator"]["name"] == "rules" for record in records)
    assert built.counts["generated"]["pairs"] == len(records)
    assert "| demo-kitchen.test | " in built.datasheet and "passed" in built.datasheet


def test_an_assessors_fix_is_applied_when_the_candidate_is_accepted(demo):
    _run(sample_size=1, threshold=1.0)
    candidate = Candidate.objects.filter(decision="sampled").order_by("qa_pair_id").first()
    before = candidate.qa_pair.answer
    assess(lambda other: (True, {"edited_answer": f"{before} (checked)"} if other == candidate else {}))
    candidate.refresh_from_db()
    assert candidate.qa_pair.answer == f"{before} (checked)" and candidate.original_answer == before
    assert candidate.edited_by_id is not None and candidate.qa_pair.state == "accepted"


def test_a_fix_with_a_rejection_is_refused(demo):
    _run(sample_size=1)
    candidate = Candidate.objects.filter(decision="sampled").first()
    validation = PairValidation.objects.get(qa_pair=candidate.qa_pair)
    assessor = token_client(UserFactory(role="validator"))
    held = assessor.post("/api/v1/assignments/", {"batch": validation.task.batch_id}, format="json").json()
    verdict = {"answer_correct": False, "follows_guidelines": True, "sources_needed": True, "comment": "Wrong.",
               "edited_answer": "Something"}  # fmt: skip
    sent = assessor.post(f"/api/v1/assignments/{held['id']}/submit/", {"answer": verdict}, format="json")
    assert sent.status_code == 400 and "only when you accept it" in str(sent.json())


def test_a_page_that_fails_is_recorded_and_the_run_goes_on(demo):
    from django.core.files.base import ContentFile
    from django.core.files.storage import default_storage

    from corpus.models import NavPage

    broken = NavPage.objects.filter(site__host="demo-kitchen.test", depth=2).order_by("number").first()
    key = default_storage.save("html/empty.html", ContentFile(b"<html><body><script>x()</script></body></html>"))
    type(broken.step).objects.filter(pk=broken.step_id).update(html_key=key)
    run = _run(sample_size=1)
    page = GeneratedPage.objects.get(run=run, url=broken.url)
    assert page.state == "failed" and "no text" in page.reason
    assert run.failures == 1 and run.processed == run.total == 14 and run.candidates > 0


def test_a_rerun_of_the_same_generator_version_skips_the_pages_it_did(demo):
    first = _run(sample_size=1)
    again = _run(sample_size=1)
    assert again.skipped == again.total == first.total and again.candidates == 0
    assert again.state == "done" and Candidate.objects.filter(run=again).count() == 0


def test_only_admins_start_runs_and_bad_runs_are_refused(demo, api_for):
    rater, admin = UserFactory(role="rater"), api_for(UserFactory(role="admin"))
    assert api_for(rater).post("/api/v1/generation-runs/", {}, format="json").status_code == 403
    assert api_for(rater).get("/api/v1/generation-runs/").status_code == 403
    unknown = admin.post("/api/v1/generation-runs/", {"generator": "magic"}, format="json")
    assert unknown.status_code == 400 and "no generator named" in unknown.json()["error"]["message"]
    secret = admin.post("/api/v1/generation-runs/", {"generator": "openai-compatible",
                                                     "parameters": {"api_key": "sk-x"}}, format="json")  # fmt: skip
    assert secret.status_code == 400 and "settings" in secret.json()["error"]["message"]
    wrong = admin.post("/api/v1/generation-runs/", {"parameters": {"colour": "red"}}, format="json")
    assert wrong.status_code == 400
    sites = list(Site.objects.filter(host="demo-books.test").values_list("pk", flat=True))
    started = admin.post("/api/v1/generation-runs/", {"sites": sites, "sample_size": 1}, format="json")
    assert started.status_code == 202, started.json()
    drain()
    shown = admin.get(started.json()["url"]).json()
    assert shown["state"] == "sampling" and shown["sites"] == ["demo-books.test"] and shown["total"] == 5
    assert [sample["site"] for sample in shown["samples"]] == ["demo-books.test"]
    assert GenerationRun.objects.count() == 1


def test_the_runs_page_starts_a_run_for_admins_only(demo, client):
    client.force_login(UserFactory(role="rater"))
    assert client.get("/generation/").status_code == 403
    admin = UserFactory(role="admin")
    client.force_login(admin)
    page = client.get("/generation/")
    assert page.status_code == 200 and 'href="/generation/"' in page.content.decode()  # in the staff menu
    bad = client.post("/generation/", {"generator": "rules", "sample_size": "0", "threshold": "0.8"})
    assert bad.status_code == 400 and not GenerationRun.objects.exists()
    books = Site.objects.get(host="demo-books.test")
    started = client.post("/generation/", {"generator": "rules", "sites": [books.pk], "sample_size": "2",
                                           "threshold": "0.8"})  # fmt: skip
    run = GenerationRun.objects.get()
    assert started.status_code == 302 and started["Location"] == f"/generation/runs/{run.pk}/"
    drain()
    shown = client.get(started["Location"]).content.decode()
    assert "demo-books.test" in shown and "Being assessed" in shown
