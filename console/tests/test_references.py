"""Choosing test items for reference answers in the console: from the accepted pairs of
a draft release's test split; an unknown or ineligible id is refused by name, and then
nothing at all is chosen."""

import pytest
from django.urls import reverse

from corpus.models import QAPair, ReferenceSet
from releases.tests import data
from releases.tests.helpers import release

pytestmark = pytest.mark.django_db


@pytest.fixture
def draft(admin_user, rater):
    """Colour questions split by answer, half to train and half to test: the white ones
    are train, the teal and pink ones test (as in releases' reference protocol tests)."""
    for _ in range(5):
        data.webqa_image_pair(rater, keyword="white", negatives=0)
    for colour in ("teal", "pink"):
        data.webqa_image_pair(rater, keyword=colour, negatives=0, question=f"What colour is the {colour} roof?")
    return release(admin_user, families=["webqa"], train_percent=50, val_percent=0)


@pytest.fixture
def admin_client(client, admin_user):
    client.force_login(admin_user)
    return client


def _pair(keyword):
    return QAPair.objects.filter(keyword_answer=keyword).order_by("id").first()


def test_the_test_split_is_offered_and_the_ticked_pairs_are_chosen(admin_client, draft, admin_user):
    teal, pink = _pair("teal"), _pair("pink")
    page = admin_client.get(reverse("console:reference-answers")).content.decode()
    assert f'name="qa_pairs" value="{teal.pk}"' in page and f'name="qa_pairs" value="{pink.pk}"' in page
    assert f'name="qa_pairs" value="{_pair("white").pk}"' not in page  # train
    response = admin_client.post(reverse("console:reference-answers"), {"release": draft.pk, "qa_pairs": [teal.pk]},
                                 follow=True)  # fmt: skip
    assert "1 pair of the test split of trail 1.0.0 now collect reference answers." in response.content.decode()
    chosen = ReferenceSet.objects.get()
    assert (chosen.qa_pair, chosen.chosen_by) == (teal, admin_user)
    assert f'name="qa_pairs" value="{teal.pk}"' not in response.content.decode()  # offered once


def test_an_unknown_id_is_refused_by_name_and_nothing_is_chosen(admin_client, draft):
    teal = _pair("teal")
    response = admin_client.post(reverse("console:reference-answers"),
                                 {"release": draft.pk, "qa_pairs": [teal.pk], "typed": "987654"})  # fmt: skip
    page = response.content.decode()
    assert response.status_code == 400
    assert "No QA pair has the id 987654. Nothing was chosen." in page
    assert 'value="987654"' in page  # what was typed stays
    assert not ReferenceSet.objects.exists()


def test_an_ineligible_pair_is_refused_with_its_reason_and_nothing_is_chosen(admin_client, draft, rater):
    teal, white = _pair("teal"), _pair("white")
    pending = data.webqa_image_pair(rater, keyword="teal", negatives=0, state="pending_validation")
    typed = f"{white.pk}, {pending.pk}"
    response = admin_client.post(reverse("console:reference-answers"),
                                 {"release": draft.pk, "qa_pairs": [teal.pk], "typed": typed})  # fmt: skip
    page = response.content.decode()
    assert response.status_code == 400
    assert f"pair {white.pk}: not in the test split of trail 1.0.0" in page
    assert f"pair {pending.pk}: not accepted" in page
    assert not ReferenceSet.objects.exists()


def test_typing_what_is_not_an_id_or_nothing_is_refused(admin_client, draft):
    page = admin_client.post(
        reverse("console:reference-answers"), {"release": draft.pk, "typed": "12, abc"}
    ).content.decode()
    assert "Not QA pair ids: abc. Type whole numbers only." in page
    page = admin_client.post(reverse("console:reference-answers"), {"release": draft.pk}).content.decode()
    assert "Tick at least one pair, or type its id." in page
    assert not ReferenceSet.objects.exists()


def test_without_a_draft_release_the_page_says_to_define_one(admin_client, rater):
    data.webqa_image_pair(rater, negatives=0)
    page = admin_client.get(reverse("console:reference-answers")).content.decode()
    assert "Define the next WebQA release first" in page
