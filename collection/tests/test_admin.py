import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from corpus.models import Site

pytestmark = pytest.mark.django_db


def _import(client, text, encoding="utf-8"):
    upload = SimpleUploadedFile("sites.csv", text.encode(encoding), content_type="text/csv")
    return client.post(reverse("admin:corpus_site_import"), {"file": upload}, follow=True)


def test_admin_imports_sites_from_csv_and_sees_line_numbered_errors(client, admin_user):
    client.force_login(admin_user)
    assert "Import from CSV" in client.get(reverse("admin:corpus_site_changelist")).content.decode()
    bad = _import(client, "category,name,url\nShopping,Shop,https://shop.test/\nNowhere,X,https://x.test/\n")
    assert "Line 3: Unknown category" in bad.content.decode() and not Site.objects.exists()
    good = _import(client, "category,name,url\nShopping,Shop,https://shop.test/\nHotel,Stay,https://stay.test/\n")
    assert "2 sites added, 0 updated." in good.content.decode()
    assert Site.objects.count() == 2
    latin = _import(client, "category,name,url\nShopping,Café,https://cafe.test/\n", encoding="latin-1")
    assert "not UTF-8" in latin.content.decode()


def test_raters_cannot_import_sites(client, rater):
    client.force_login(rater)
    response = client.post(reverse("admin:corpus_site_import"))
    assert response.status_code == 302 and "login" in response["Location"]


def test_capture_admin_pages_render(client, admin_user):
    client.force_login(admin_user)
    for model in (
        "category",
        "site",
        "screen",
        "qapair",
        "imagesource",
        "snippet",
        "poolimport",
        "imagetriple",
        "imagegroup",
    ):
        app = "collection" if model == "poolimport" else "corpus"
        assert client.get(f"/admin/{app}/{model}/").status_code == 200, model
    assert client.get("/admin/hits/disqualification/").status_code == 200


def test_staff_correction_of_a_question_category_sticks(client, admin_user, rater):
    from corpus.models import QAPair

    pair = QAPair.objects.create(
        family="webqa", split_kind="image", question="Is the barn red?", answer="Yes, the barn is red.",
        keyword_answer="yes", question_category="Others", author=rater,
    )  # fmt: skip
    client.force_login(admin_user)
    form = client.get(f"/admin/corpus/qapair/{pair.pk}/change/").context["adminform"].form
    data = {key: value for key, value in form.initial.items() if value is not None and key != "reasoning_types"}
    data.update({"question_category": "YesNo", "reasoning_types": "[]", "author": rater.pk})
    data.update({"evidence-TOTAL_FORMS": 0, "evidence-INITIAL_FORMS": 0})
    response = client.post(f"/admin/corpus/qapair/{pair.pk}/change/", data)
    assert response.status_code == 302, response.context["adminform"].form.errors
    pair.refresh_from_db()
    assert (pair.question_category, pair.question_category_manual) == ("YesNo", True)


def test_admin_disqualifies_and_lifts(client, admin_user, rater):
    from hits.models import Disqualification

    client.force_login(admin_user)
    response = client.post(
        "/admin/hits/disqualification/add/",
        {"worker": rater.pk, "kind": "image_filter", "reason": "Copied labels from other workers."},
    )
    assert response.status_code == 302
    record = Disqualification.objects.get(worker=rater)
    assert record.created_by == admin_user and not record.automatic
    client.post("/admin/hits/disqualification/", {"action": "lift", "_selected_action": [record.pk]})
    record.refresh_from_db()
    assert record.lifted_at is not None


def test_admin_chooses_test_candidates_from_the_draft_releases_test_split(client, admin_user, rater):
    from corpus.models import ReferenceSet
    from releases import services as releases
    from releases.splits import test_candidates
    from releases.tests import data

    client.force_login(admin_user)
    pairs = [data.webqa_text_pair(rater, keyword=f"City {n}") for n in range(6)]
    pending = data.webqa_text_pair(rater, keyword="Porto", state="pending_validation")
    refused = client.post("/admin/corpus/qapair/", {"action": "collect_reference_answers",
                                                    "_selected_action": [pairs[0].pk]}, follow=True)  # fmt: skip
    assert "Define the next WebQA release first" in refused.content.decode() and not ReferenceSet.objects.exists()

    draft = releases.create_release(name="trail", version="1.0.0", families=["webqa"], split_strategy="random",
                                    train_percent=50, val_percent=0, created_by=admin_user)  # fmt: skip
    in_test = set(test_candidates(seed=draft.seed, percents=(50, 0, 50), strategy="random",
                                  pairs=_queryset_of(pairs)))  # fmt: skip
    assert in_test and in_test != {pair.pk for pair in pairs}  # some in test, some not
    response = client.post(
        "/admin/corpus/qapair/",
        {"action": "collect_reference_answers", "_selected_action": [pair.pk for pair in pairs] + [pending.pk]},
        follow=True,
    )
    page = response.content.decode()
    assert f"{len(in_test)} pair" in page and "of the test split of trail 1.0.0 now get reference answers" in page
    assert "not in the test split of trail 1.0.0" in page and "not accepted" in page
    assert set(ReferenceSet.objects.values_list("qa_pair_id", flat=True)) == in_test
    assert all(reference_set.task.assignments_wanted == 5 for reference_set in ReferenceSet.objects.all())


def _queryset_of(pairs):
    from corpus.models import QAPair

    return QAPair.objects.filter(pk__in=[pair.pk for pair in pairs])
