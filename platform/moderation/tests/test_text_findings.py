"""Personal data in the texts stored with a screenshot or pool image: found when they are
stored, shown on the asset's review item with their field, masked by the reviewer."""

import json
import uuid

import pytest
from django.core.files.storage import default_storage
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import timezone

from assets.services import store_image
from assets.tests.samples import png_bytes
from collection import pools
from collection.services import add_step, start_trace
from corpus.models import ImageSource, Snippet, TraceStep
from moderation import services as review
from moderation import textscreen
from moderation.models import ReviewDecision, ReviewItem
from tests.factories import make_category

pytestmark = pytest.mark.django_db

EMAIL, PHONE = "jane.doe@example.com", "+44 20 7946 0958"


# --- The detectors on plain text ------------------------------------------------------


def test_text_findings_cut_the_address_out_of_its_word_and_list_each_once():
    found = textscreen.text_findings(f"Write to mailto:{EMAIL} or {EMAIL}\nCall {PHONE} today")
    assert found == [{"kind": "email", "text": EMAIL}, {"kind": "phone", "text": PHONE}]
    assert textscreen.text_findings("A kettle for £39.99, 1.7 litres, model 2024") == []


def test_url_findings_read_the_decoded_path_query_and_fragment_but_not_the_host():
    url = "https://jane.example.com/u/jane.doe%40example.com?phone=%2B44+20+7946+0958&q=kettle#top"
    assert textscreen.url_findings(url) == [{"kind": "email", "text": EMAIL}, {"kind": "phone", "text": PHONE}]
    assert textscreen.url_findings("https://shop.example/search?q=blue+kettle") == []


def test_masking_a_url_keeps_it_an_address_and_leaves_clean_parts_as_they_were():
    url = "https://shop.example/a%20b/contact?email=jane.doe%40example.com&q=kettle%21#x"
    masked = textscreen.mask_url(url, [{"kind": "email", "text": EMAIL}])
    assert masked == "https://shop.example/a%20b/contact?email=[%E2%80%A6]&q=kettle%21#x"
    assert textscreen.mask_url(url, [{"kind": "email", "text": "nobody@else.org"}]) == url


def test_masking_text_matches_across_any_whitespace():
    text = f"Call  +44 20\n7946 0958 or {EMAIL}."
    assert textscreen.mask(text, textscreen.text_findings(f"{PHONE} {EMAIL}")) == "Call  […] or […]."


def test_signs_of_a_signed_in_page_are_not_personal_but_a_greeting_names_someone():
    found = textscreen.text_findings("Sign out\nMy account\nHello Jane")
    assert [f["text"] for f in textscreen.personal(found)] == ["Hello Jane"]


# --- Trace steps -----------------------------------------------------------------------


@pytest.fixture
def category(db):
    return make_category("shopping")


def _step(trace, author, position, seed, **fields):
    step = {
        "client_id": str(uuid.uuid4()),
        "position": position,
        "url": "https://shop.example/contact",
        "title": "Contact us",
        "captured_at": timezone.now(),
        "viewport": {"width": 640, "height": 400},
        "action": {"type": "click", "target": {"tag": "a", "text": "Send", "href": "https://shop.example/send"}},
        "clickables": [{"text": "Home", "href": "https://shop.example/", "bbox": [1, 2, 3, 4]}],
        **fields,
    }
    screenshot = SimpleUploadedFile("s.png", png_bytes(size=(640, 400), seed=seed), content_type="image/png")
    stored, _ = add_step(trace_id=trace.pk, author=author, screenshot=screenshot, step=step)
    return stored


def _personal_step(rater, category, seed=1, **fields):
    trace, _ = start_trace(author=rater, client_id=uuid.uuid4(), category=category)
    return _step(
        trace,
        rater,
        3,
        seed,
        title=f"Jane's orders ({EMAIL})",
        url=f"https://shop.example/orders?email={EMAIL.replace('@', '%40')}&sort=new",
        clickables=[
            {"text": f"Call {PHONE}", "href": "tel:+442079460958", "bbox": [1, 2, 3, 4]},
            {"text": "Home", "href": "https://shop.example/", "bbox": [5, 6, 7, 8]},
        ],
        **fields,
    )


def test_a_step_with_personal_data_in_its_texts_puts_its_screenshot_first_in_the_pii_queue(rater, category, reviewer):
    trace, _ = start_trace(author=rater, client_id=uuid.uuid4(), category=category)
    clean = _step(trace, rater, 0, seed=7)
    review.record_prescreen(asset_id=clean.screen.asset_id, result={"findings": [], "pii_risk": 0.3, "safety_risk": 0})
    step = _personal_step(rater, category)

    item = ReviewItem.objects.get(asset=step.screen.asset)
    found = {(f["field"], f["kind"], f["text"]) for f in item.text_findings}
    assert found == {
        ("step 3 title", "email", EMAIL),
        ("step 3 URL", "email", EMAIL),
        ("step 3 clickable 1 text", "phone", PHONE),
        ("step 3 clickable 1 link", "phone", "+442079460958"),
    }
    assert all(f["record"] == {"type": "trace_step", "id": step.pk} and not f["masked"] for f in item.text_findings)
    assert (item.queue, item.text_risk, item.risk) == ("pii", 0.8, 0.8)
    assert not ReviewItem.objects.get(asset=clean.screen.asset).text_findings
    assert review.claim_next(reviewer=reviewer, queue="pii").asset_id == step.screen.asset_id


def test_the_picture_pre_screen_arriving_later_keeps_the_text_risk(rater, category):
    step = _personal_step(rater, category)
    item = review.record_prescreen(
        asset_id=step.screen.asset_id, result={"findings": [], "pii_risk": 0.1, "safety_risk": 0.5}
    )
    assert (item.queue, item.risk, len(item.text_findings)) == ("pii", 0.8, 4)


def test_personal_data_in_a_steps_html_is_found_too(rater, category):
    html = f"<html><body><main><p>Signed in as {EMAIL}</p><p>Sign out</p></main></body></html>"
    trace, _ = start_trace(author=rater, client_id=uuid.uuid4(), category=category)
    step = _step(trace, rater, 0, seed=2, html=html)
    item = ReviewItem.objects.get(asset=step.screen.asset)
    assert [(f["field"], f["kind"]) for f in item.text_findings] == [("step 0 page HTML", "email")]


def test_masking_all_replaces_the_found_texts_in_the_step_and_logs_the_decision(rater, category, reviewer):
    html = f"<p>Orders of {EMAIL}</p>"
    step = _personal_step(rater, category, html=html)
    item = review.claim_next(reviewer=reviewer, queue="pii")
    review.mask_texts(item_id=item.pk, reviewer=reviewer)

    step = TraceStep.objects.get(pk=step.pk)
    assert step.title == "Jane's orders ([…])"
    assert step.url == "https://shop.example/orders?email=[%E2%80%A6]&sort=new"
    assert step.clickables[0]["text"] == "Call […]" and step.clickables[0]["href"] == "tel:[%E2%80%A6]"
    assert step.clickables[1] == {
        "text": "Home",
        "href": "https://shop.example/",
        "bbox": [5, 6, 7, 8],
    }
    with default_storage.open(step.html_key) as handle:
        assert handle.read().decode() == "<p>Orders of […]</p>"
    item.refresh_from_db()
    assert all(f["masked"] for f in item.text_findings) and item.text_risk == 0 and item.decided_at is None
    decision = ReviewDecision.objects.get()
    assert (decision.decision, decision.reviewer, len(decision.findings)) == ("masked", reviewer, 5)
    # The picture is still to be decided, and the audit keeps what was masked.
    review.approve(item_id=item.pk, reviewer=reviewer)
    assert ReviewDecision.objects.filter(decision="approved").get().findings[0]["field"] == "step 3 title"


def test_masking_one_finding_masks_that_text_only(rater, category, reviewer):
    step = _personal_step(rater, category)
    item = review.claim_next(reviewer=reviewer, queue="pii")
    phone = next(i for i, f in enumerate(item.text_findings) if f["kind"] == "phone")
    review.mask_texts(item_id=item.pk, reviewer=reviewer, indexes=[phone])
    step.refresh_from_db()
    assert step.clickables[0]["text"] == "Call […]" and EMAIL in step.title
    item.refresh_from_db()
    assert [f["masked"] for f in item.text_findings].count(True) == 1 and item.text_risk == 0.8
    with pytest.raises(review.BadBoxes):
        review.mask_texts(item_id=item.pk, reviewer=reviewer, indexes=[phone])


def test_only_the_reviewer_holding_the_item_masks_its_texts(rater, category, reviewer):
    step = _personal_step(rater, category)
    item = ReviewItem.objects.get(asset=step.screen.asset)
    with pytest.raises(review.NotYourItem):
        review.mask_texts(item_id=item.pk, reviewer=reviewer)
    with pytest.raises(review.NotAReviewer):
        review.mask_texts(item_id=item.pk, reviewer=rater)
    assert EMAIL in TraceStep.objects.get(pk=step.pk).title and not ReviewDecision.objects.exists()


def test_texts_found_after_the_screenshot_was_decided_are_masked_at_once(rater, category, reviewer):
    trace, _ = start_trace(author=rater, client_id=uuid.uuid4(), category=category)
    first = _step(trace, rater, 0, seed=5)
    item = review.claim_next(reviewer=reviewer, queue="pii")
    review.approve(item_id=item.pk, reviewer=reviewer)
    # The same picture again (stored once), now with an address in its title.
    again = _step(trace, rater, 1, seed=5, title=f"Mail {EMAIL}")
    assert again.screen.asset_id == first.screen.asset_id
    assert TraceStep.objects.get(pk=again.pk).title == "Mail […]"
    masked = ReviewDecision.objects.get(decision="masked")
    assert masked.reviewer is None and "without review" in masked.reason


# --- Pools -----------------------------------------------------------------------------


def test_a_pool_images_title_and_description_are_screened_and_masked(admin_user, reviewer):
    image = SimpleUploadedFile("p.png", png_bytes(size=(300, 200), seed=9), content_type="image/png")
    asset, _ = store_image(file=image, uploaded_by=admin_user)
    source = ImageSource.objects.create(
        asset=asset, title="Lighthouse keeper's cottage", description=f"Bookings: {PHONE}", imported_by=admin_user
    )
    pools._screen_image_texts(source)
    item = ReviewItem.objects.get(asset=asset)
    assert [(f["field"], f["kind"]) for f in item.text_findings] == [("image description", "phone")]
    held = review.claim_next(reviewer=reviewer, queue="pii")
    review.mask_texts(item_id=held.pk, reviewer=reviewer)
    source.refresh_from_db()
    assert (source.title, source.description) == ("Lighthouse keeper's cottage", "Bookings: […]")


def test_snippets_are_masked_as_they_are_imported(tmp_path, settings, admin_user):
    from collection.models import PoolImport

    settings.POOL_IMPORT_ROOT = tmp_path
    row = {"title": "Hello World in Python", "text": f"Questions to {EMAIL}.", "url": "https://example.org/p?who=jo"}
    (tmp_path / "snippets.jsonl").write_text(json.dumps(row))
    job = PoolImport.objects.create(kind="snippets", source=str(tmp_path / "snippets.jsonl"), created_by=admin_user)
    assert pools.run_import(job.pk).created_count == 1
    snippet = Snippet.objects.get()
    assert (snippet.title, snippet.text) == ("Hello World in Python", "Questions to […].")
    again = PoolImport.objects.create(kind="snippets", source=str(tmp_path / "snippets.jsonl"), created_by=admin_user)
    assert pools.run_import(again.pk).existing_count == 1
