"""The navigation question kind: a target page picked on a site's graph, the episode's
path worked out by the server, refusals that say why, and path review by two assessors."""

import pytest
from django.contrib.admin.sites import site as admin_site
from django.test import RequestFactory

from corpus.models import Episode, NavPage, QAPair
from corpus.navigation import Graph
from hits import services as hits
from hits.models import Batch, Task
from tests.factories import UserFactory
from tests.navigation import recorded_site
from validation.models import PairValidation

pytestmark = pytest.mark.django_db
HOST = "https://shop.example"


def _batch(site, **settings):
    batch = hits.create_batch(name="Navigation questions", kind="navigation_qa", reward="0.30", kind_settings=settings)
    hits.add_tasks(batch=batch, payloads=[{"site": site.pk}])
    return hits.open_batch(batch=batch)


def _number(site, path):
    return NavPage.objects.get(site=site, url=f"{HOST}{path}").number


@pytest.fixture
def shop(rater):
    return recorded_site(rater)


def test_a_navigation_question_gets_the_shortest_path_and_goes_to_two_assessors(shop, other_rater, api_for):
    batch = _batch(shop)
    writer = api_for(other_rater)
    assignment = writer.post("/api/v1/assignments/", {"batch": batch.pk}, format="json").json()

    def submit(**answer):
        body = {"answer": {"question": "How much is the steel kettle?", "answer": "$34.99",
                           "description": "A 1.7 litre steel kettle, $34.99.", **answer}}  # fmt: skip
        return writer.post(f"/api/v1/assignments/{assignment['id']}/submit/", body, format="json")

    def refusal(**answer):
        response = submit(**answer)
        assert response.status_code == 400, response.json()
        return " ".join(" ".join(messages) for messages in response.json()["error"]["fields"].values())

    assert "1 click from the homepage" in refusal(target=_number(shop, "/about"))
    assert "0 clicks" in refusal(target=_number(shop, "/"))
    assert "No recorded route" in refusal(target=_number(shop, "/hidden/deal"))
    assert "not one of this site's recorded pages" in refusal(target=999)
    assert "Describe the target page" in refusal(target=_number(shop, "/kettles/steel"), description="")
    assert "Pick the target page" in refusal(target=None)
    assert not QAPair.objects.exists()

    done = submit(target=_number(shop, "/kettles/steel"))
    assert done.status_code == 200, done.json()
    pair = QAPair.objects.get()
    episode = Episode.objects.get(qa_pair=pair)
    expected = Graph.of_site(shop).shortest_path(f"{HOST}/kettles/steel")
    assert episode.path == expected == [f"{HOST}/", f"{HOST}/kettles", f"{HOST}/kettles/steel"]
    assert (pair.family, pair.split_kind, pair.state) == ("webvln", "navigation", "pending_validation")
    assert [piece.step.url for piece in pair.evidence.order_by("position")] == expected
    assert pair.evidence.order_by("position").last().note == episode.description
    validation = PairValidation.objects.get(qa_pair=pair)
    assert validation.task.assignments_wanted == 2
    assert Task.objects.get(pk=validation.task_id).batch.kind_settings == {"family": "webvln"}


def test_the_task_page_shows_the_sites_pages_and_the_writer_may_open_them(shop, other_rater, client, api_for):
    batch = _batch(shop)
    client.force_login(other_rater)
    steel = NavPage.objects.get(site=shop, url=f"{HOST}/kettles/steel")
    picture = f"/assets/{steel.step.screen.asset_id}/"
    assert client.get(picture).status_code == 404  # no task on the site yet
    assignment = api_for(other_rater).post("/api/v1/assignments/", {"batch": batch.pk}, format="json").json()
    page = client.get(f"/assignments/{assignment['id']}/")
    html = page.content.decode()
    assert page.status_code == 200
    assert html.count('data-testid="site-page"') == NavPage.objects.filter(site=shop).count()
    assert "2 clicks from the homepage" in html and "Not reachable from the homepage" in html
    assert client.get(picture).status_code == 200
    posted = client.post(f"/assignments/{assignment['id']}/", {"target": str(_number(shop, "/about")),
                                                          "question": "Q?", "answer": "A", "description": "D"})  # fmt: skip
    assert posted.status_code == 400 and "1 click from the homepage" in posted.content.decode()
    assert 'value="Q?"' not in posted.content.decode() and "Q?" in posted.content.decode()  # kept in the form


def test_filling_a_batch_samples_reachable_targets_two_or_more_clicks_away(shop, admin_user):
    batch = hits.create_batch(name="Sampled", kind="navigation_qa", reward="0.30",
                              kind_settings={"targets_per_site": 2, "seed": 7})  # fmt: skip
    request = RequestFactory().post("/")
    request.user = admin_user
    request._messages = type("Messages", (), {"add": lambda *args, **kwargs: None})()
    model_admin = admin_site._registry[Batch]
    model_admin.fill_batches(request, Batch.objects.filter(pk=batch.pk))
    targets = [task.payload["target"] for task in batch.tasks.all()]
    eligible = set(NavPage.objects.filter(site=shop, depth__gte=2).values_list("url", flat=True))
    assert len(targets) == 2 and set(targets) <= eligible and len(set(targets)) == 2
    model_admin.fill_batches(request, Batch.objects.filter(pk=batch.pk))  # 3 eligible pages: one left
    assert batch.tasks.count() == 3 and {t.payload["target"] for t in batch.tasks.all()} == eligible
    model_admin.fill_batches(request, Batch.objects.filter(pk=batch.pk))
    assert batch.tasks.count() == 3


def test_a_sampled_task_asks_about_its_own_target(shop, other_rater, api_for):
    batch = hits.create_batch(name="One target", kind="navigation_qa", reward="0.30")
    hits.add_tasks(batch=batch, payloads=[{"site": shop.pk, "target": f"{HOST}/mugs/blue"}])
    hits.open_batch(batch=batch)
    writer = api_for(other_rater)
    assignment = writer.post("/api/v1/assignments/", {"batch": batch.pk}, format="json").json()
    body = {"answer": {"target": _number(shop, "/kettles/steel"), "question": "Q?", "answer": "A", "description": "D"}}
    wrong = writer.post(f"/api/v1/assignments/{assignment['id']}/submit/", body, format="json")
    assert wrong.status_code == 400 and "marked as its target" in str(wrong.json())
    body["answer"]["target"] = _number(shop, "/mugs/blue")
    assert writer.post(f"/api/v1/assignments/{assignment['id']}/submit/", body, format="json").status_code == 200


def test_assessors_reject_an_episode_on_its_path_and_its_author_reads_why(shop, other_rater, api_for):
    batch = _batch(shop)
    writer = api_for(other_rater)
    assignment = writer.post("/api/v1/assignments/", {"batch": batch.pk}, format="json").json()
    body = {"answer": {"target": _number(shop, "/mugs/blue"), "question": "What colour is the mug?",
                       "answer": "Blue", "description": "A blue mug."}}  # fmt: skip
    assert writer.post(f"/api/v1/assignments/{assignment['id']}/submit/", body, format="json").status_code == 200
    pair = QAPair.objects.get()
    validation = PairValidation.objects.get(qa_pair=pair)
    for _ in range(2):
        assessor = api_for(UserFactory(role="validator"))
        held = assessor.post("/api/v1/assignments/", {"batch": validation.task.batch_id}, format="json").json()
        verdict = {"answer_correct": True, "follows_guidelines": False, "sources_needed": True,
                   "comment": "The route goes through the about page."}  # fmt: skip
        sent = assessor.post(f"/api/v1/assignments/{held['id']}/submit/", {"answer": verdict}, format="json")
        assert sent.status_code == 200, sent.json()
    pair.refresh_from_db()
    assert pair.state == "rejected"
    assert "the path is not a reasonable way to reach the target page" in pair.state_reason
