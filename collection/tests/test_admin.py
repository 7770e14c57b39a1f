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


def test_admin_chooses_accepted_pairs_as_test_candidates(client, admin_user, rater):
    from corpus.models import QAPair, ReferenceSet

    accepted, pending = (
        QAPair.objects.create(family="webqa", question=f"Q{n}?", answer="A full answer.", state=state, author=rater)
        for n, state in enumerate(["accepted", "pending_validation"])
    )
    client.force_login(admin_user)
    response = client.post(
        "/admin/corpus/qapair/",
        {"action": "collect_reference_answers", "_selected_action": [accepted.pk, pending.pk]},
        follow=True,
    )
    assert "1 pairs now collect reference answers; 1 skipped" in response.content.decode()
    reference_set = ReferenceSet.objects.get()
    assert reference_set.qa_pair == accepted and reference_set.task.assignments_wanted == 5
