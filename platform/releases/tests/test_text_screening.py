"""No personal data in any text of a release: step titles, addresses, clickables, page
titles and buttons of the WebVLN maps, questions — grepped in every file it ships."""

import pytest

from corpus.models import NavPage, TraceStep
from corpus.navigation import rebuild
from tests import navigation

from . import data
from .helpers import build_now, paths, read, release

pytestmark = pytest.mark.django_db
EMAIL, PHONE = "jane.example@mail.test", "+1 415 555 0199"


def _leak_into(step, *, query=True):
    TraceStep.objects.filter(pk=step.pk).update(
        title=f"Orders of {EMAIL}",
        url=f"{step.url}?email={EMAIL}&ref=mail" if query else step.url,
        clickables=[*step.clickables, {"tag": "a", "text": f"Call us on {PHONE}", "href": step.url}],
        target={**(step.target or {}), "text": f"Write to {EMAIL}"},
    )


def test_no_email_or_phone_number_reaches_any_file_of_a_release(admin_user, rater):
    recorded, steps = data.trace(rater, ["/", "/a", "/b"], host="quest.example")
    data.trace_pair(rater, recorded, steps, relevant=(0, 1, 2), question=f"Who is {EMAIL}?", answer=PHONE)
    for step in steps:
        _leak_into(step)
    site = navigation.recorded_site(rater)
    for step in TraceStep.objects.filter(url__startswith="https://shop.example/kettles"):
        _leak_into(step, query=False)  # the page keeps its address, so the episode's target stays
    rebuild(site)
    assert NavPage.objects.filter(site=site, title__contains=EMAIL).exists()  # on the platform, for reviewers
    navigation.episode(rater, site, "/kettles/steel", description=f"Ask {EMAIL} about it.")

    built = build_now(release(admin_user, families=["webquest", "webvln"], test_answers_public=True))
    assert built.state == "published", built.message
    texts = [path for path in paths(built) if not path.startswith(("images/", "webvln/imgs/"))]
    assert {"records/webquest/train.jsonl", "webvln/map.json", "webvln/pages.json"} & set(texts)
    for path in texts:
        content = read(built, path).decode()
        for secret in (EMAIL, "jane.example", "555 0199", "5550199", "mail.test"):
            assert secret not in content, (path, secret)
    screened = built.counts["text_screening"]
    assert screened["masked_email"] >= 4 and screened["masked_phone"] >= 2 and screened["query_removed"] >= 3
    assert screened["masked_question_or_answer"] == 1
    assert "[…]" in read(built, "webvln/pages.json").decode()
    assert "masked email" in built.datasheet and "query removed" in built.datasheet
