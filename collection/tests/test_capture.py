"""Single- and multi-screen capture through the API, good and bad."""

import json
import uuid

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from PIL import Image, ImageFile

from accounts.models import Role
from assets import images
from assets.models import Asset, IdempotencyKey
from assets.tests.bodies import post_unread
from assets.tests.samples import encode, huge_png, png_bytes, rgba_square_png, screenshot, strip_png, svg_bytes
from corpus.models import Evidence, QAPair, Screen, TraceStep
from hits.models import Assignment
from tests.api import api_error
from tests.concurrency import at_once
from tests.factories import UserFactory, capture_batch, make_category, site

pytestmark = pytest.mark.django_db

SHOPS = ["https://www.shop-a.test/", "https://shop-b.test/", "https://shop-c.test/", "https://shop-d.test/"]


@pytest.fixture
def shops(db):
    return [site(category="shopping", url=url) for url in SHOPS]


def _take(client, batch):
    response = client.post("/api/v1/assignments/", {"batch": batch.pk}, format="json")
    assert response.status_code == 201, response.json()
    return response.json()


def _upload(client, data, *, assignment=None, name="screen.png", key=None, **fields):
    body = {"file": SimpleUploadedFile(name, data, content_type="image/png"), **fields}
    if assignment:
        body["assignment"] = assignment
    headers = {"HTTP_IDEMPOTENCY_KEY": key} if key else {}
    return client.post("/api/v1/screens/", body, format="multipart", **headers)


def _screen(client, assignment, seed):
    response = _upload(client, png_bytes(size=(640, 400), seed=seed), assignment=assignment)
    assert response.status_code == 201, response.json()
    return response.json()["id"]


def _answer(screens, **overrides):
    return {
        "screens": screens,
        "question": "How much cheaper is the kettle at the cheapest shop than at the dearest?",
        "answer": "$12.50",
        "reasoning_types": ["arithmetic", "comparison"],
        "no_sign_in": True,
        "no_personal_data": True,
        **overrides,
    }


def _submit(client, assignment, answer):
    return client.post(f"/api/v1/assignments/{assignment}/submit/", {"answer": answer}, format="json")


def test_single_screen_task_makes_a_pending_qa_pair_on_a_pending_screen(rater, api_for, shops):
    client = api_for(rater)
    assignment = _take(client, capture_batch(kind="single_screen_qa"))
    assert assignment["task"]["payload"] == {"category": "shopping"}
    screen = _screen(client, assignment["id"], seed=1)
    entry = {"screen": screen, "url": "https://shop-b.test/kettles?sort=price", "title": "Kettles – Shop B"}
    response = _submit(client, assignment["id"], _answer([entry], answer="12.50", reasoning_types=["arithmetic"]))
    assert response.status_code == 200, response.json()

    pair = QAPair.objects.get()
    assert (pair.family, pair.split_kind, pair.state, pair.answer_type) == (
        "webquest",
        "single_screen",
        "pending_validation",
        "decimal",
    )
    assert pair.reasoning_types == ["arithmetic"] and pair.category.slug == "shopping"
    stored = Screen.objects.get(pk=screen)
    assert (stored.url, stored.site, stored.category.slug) == (entry["url"], shops[1], "shopping")
    assert stored.review_state == Asset.ReviewState.PENDING_REVIEW
    assert list(pair.evidence.values_list("screen_id", flat=True)) == [screen]
    assert response.json()["answer"]["qa_pair"] == pair.pk


def test_multi_screen_task_keeps_the_order_and_what_each_screen_adds(rater, api_for, shops):
    client = api_for(rater)
    assignment = _take(client, capture_batch(kind="multi_screen_qa"))
    ids = [_screen(client, assignment["id"], seed=n) for n in range(4)]
    entries = [
        {"screen": pk, "url": SHOPS[n], "title": f"Shop {n}", "note": f"price at shop {n}"} for n, pk in enumerate(ids)
    ]
    entries[3]["url"] = "https://shop-a.test/kettles/blue"  # two of four from one site is allowed
    entries.reverse()
    response = _submit(client, assignment["id"], _answer(entries))
    assert response.status_code == 200, response.json()
    pair = QAPair.objects.get()
    assert pair.split_kind == "multi_screen" and pair.answer_type == "decimal"
    assert list(Evidence.objects.filter(qa_pair=pair).values_list("screen_id", "note")) == [
        (e["screen"], e["note"]) for e in entries
    ]


def _refused(client, assignment, answer, field):
    response = _submit(client, assignment, answer)
    assert response.status_code == 400, response.json()
    fields = response.json()["error"]["fields"]
    assert field in fields, fields
    assert not QAPair.objects.exists()
    assert Assignment.objects.get(pk=assignment).state == "assigned"
    return " ".join(fields[field])


def test_multi_screen_refusals_say_what_is_wrong(rater, api_for, shops):
    site(category="hotel", url="https://stay.test/")
    client = api_for(rater)
    assignment = _take(client, capture_batch(kind="multi_screen_qa"))["id"]
    ids = [_screen(client, assignment, seed=n) for n in range(6)]

    def entries(urls, notes=True):
        return [
            {"screen": ids[n], "url": url, "title": "Page", "note": "adds a price" if notes else ""}
            for n, url in enumerate(urls)
        ]

    assert "needs 3 to 5 screens; you gave 2" in _refused(
        client, assignment, _answer(entries(SHOPS[:2])), "answer.screens"
    )
    six = SHOPS + ["https://shop-a.test/2", "https://shop-b.test/2"]
    assert "you gave 6" in _refused(client, assignment, _answer(entries(six)), "answer.screens")
    two_categories = SHOPS[:2] + ["https://stay.test/rooms"]
    assert "stay.test is a Hotel site" in _refused(
        client, assignment, _answer(entries(two_categories)), "answer.screens"
    )
    one_site = ["https://shop-a.test/1", "https://shop-a.test/2", "https://www.shop-a.test/3"]
    assert "only 1" in _refused(client, assignment, _answer(entries(one_site)), "answer.screens")
    assert "contributes" in _refused(client, assignment, _answer(entries(SHOPS[:3], notes=False)), "answer.screens")
    unknown = SHOPS[:2] + ["https://elsewhere.test/"]
    assert "not on the site list" in _refused(client, assignment, _answer(entries(unknown)), "answer.screens")
    no_reasoning = _answer(entries(SHOPS[:3]), reasoning_types=[])
    assert "at least one kind of reasoning" in _refused(client, assignment, no_reasoning, "answer.reasoning_types")
    unconfirmed = _answer(entries(SHOPS[:3]), no_personal_data=False)
    assert "personal data" in _refused(client, assignment, unconfirmed, "answer.no_personal_data")
    bad_url = entries(SHOPS[:3])
    bad_url[1]["url"] = "shop-b"
    assert "http" in _refused(client, assignment, _answer(bad_url), "answer.screens.1.url")


def test_screens_must_be_your_own_and_unused(rater, other_rater, api_for, shops):
    mine, theirs = api_for(rater), api_for(other_rater)
    batch = capture_batch(kind="single_screen_qa", per_category=3)
    their_assignment = _take(theirs, batch)["id"]
    their_screen = _screen(theirs, their_assignment, seed=9)
    assignment = _take(mine, batch)["id"]
    entry = {"screen": their_screen, "url": SHOPS[0], "title": "Shop"}
    assert "not one of your uploads" in _refused(mine, assignment, _answer([entry]), "answer.screens")

    own = _screen(theirs, their_assignment, seed=10)
    done = _submit(theirs, their_assignment, _answer([{"screen": own, "url": SHOPS[0], "title": "Shop"}]))
    assert done.status_code == 200
    second = _take(theirs, batch)["id"]
    reuse = _submit(theirs, second, _answer([{"screen": own, "url": SHOPS[0], "title": "Shop"}]))
    assert "already part of another question" in " ".join(reuse.json()["error"]["fields"]["answer.screens"])


@pytest.mark.parametrize(
    ("data", "code"),
    [
        (b"this is a text file, not a picture\n", "not_an_image"),
        (b"", "empty_file"),
        (png_bytes(seed=3)[:400], "truncated_image"),
        (huge_png(), "too_many_pixels"),
        (strip_png(), "side_too_long"),
        (rgba_square_png(), "decoded_too_large"),
        (svg_bytes(), "unsupported_format"),
        (encode(screenshot((64, 48)), "GIF"), "unsupported_format"),
    ],
    ids=["text-renamed-png", "empty", "truncated-png", "30000x30000", "1x49000000", "7000x7100-rgba", "svg", "gif"],
)
def test_bad_files_are_refused_with_a_clear_error_and_nothing_stored(rater, api_for, data, code):
    client = api_for(rater)
    assignment = _take(client, capture_batch(kind="single_screen_qa"))["id"]
    response = _upload(client, data, assignment=assignment, name="screen.png")
    assert response.status_code == 400, response.content
    error = response.json()["error"]
    assert error["code"] == code and error["message"]
    assert not Screen.objects.exists() and not Asset.objects.exists()


def test_same_file_twice_is_one_blob_and_two_screens(rater, api_for):
    client = api_for(rater)
    data = png_bytes(size=(400, 300), seed=5)
    first, second = _upload(client, data).json(), _upload(client, data).json()
    assert first["id"] != second["id"] and first["asset"] == second["asset"]
    assert Asset.objects.count() == 1


def test_screen_bytes_and_records_are_private_to_their_author_and_reviewers(
    rater, other_rater, reviewer, api_for, client
):
    screen = _upload(api_for(rater), png_bytes(seed=8)).json()
    assert api_for(other_rater).get(f"/api/v1/screens/{screen['id']}/").status_code == 404
    client.force_login(other_rater)
    assert client.get(screen["image_url"]).status_code == 404
    assert client.get(screen["thumbnail_url"]).status_code == 404
    client.force_login(rater)
    assert client.get(screen["image_url"]).status_code == 200
    client.force_login(reviewer)
    assert client.get(screen["image_url"]).status_code == 200
    assert api_for(reviewer).get(f"/api/v1/screens/{screen['id']}/").status_code == 200


def test_uploads_attach_only_to_your_own_open_assignment(rater, other_rater, api_for, shops):
    batch = capture_batch(kind="single_screen_qa", per_category=2)
    theirs = _take(api_for(other_rater), batch)["id"]
    refused = _upload(api_for(rater), png_bytes(seed=11), assignment=theirs)
    assert refused.status_code == 403 and not Screen.objects.exists()
    client = api_for(rater)
    mine = _take(client, batch)["id"]
    client.post(f"/api/v1/assignments/{mine}/return/")
    late = _upload(client, png_bytes(seed=12), assignment=mine)
    assert late.status_code == 409 and late.json()["error"]["code"] == "assignment_closed"


def test_removing_screens(rater, other_rater, api_for, shops):
    client = api_for(rater)
    assignment = _take(client, capture_batch(kind="single_screen_qa"))["id"]
    spare, used = _screen(client, assignment, seed=20), _screen(client, assignment, seed=21)
    assert api_for(other_rater).delete(f"/api/v1/screens/{spare}/").status_code == 404
    assert client.delete(f"/api/v1/screens/{spare}/").status_code == 204
    _submit(client, assignment, _answer([{"screen": used, "url": SHOPS[0], "title": "Shop"}]))
    refused = client.delete(f"/api/v1/screens/{used}/")
    assert refused.status_code == 409 and refused.json()["error"]["code"] == "screen_in_use"


def test_catalogue_over_the_api(rater, api_for, shops):
    client = api_for(rater)
    assert len(client.get("/api/v1/categories/").json()["results"]) == 11
    listed = client.get("/api/v1/sites/?category=shopping").json()["results"]
    assert {s["host"] for s in listed} == {"shop-a.test", "shop-b.test", "shop-c.test", "shop-d.test"}
    assert client.get("/api/v1/sites/?category=hotel").json()["count"] == 0


def test_capture_tasks_need_a_known_category(admin_user, api_for):
    admin = api_for(admin_user)
    batch = admin.post("/api/v1/batches/", {"name": "Capture", "kind": "single_screen_qa"}, format="json").json()
    bad = admin.post(f"/api/v1/batches/{batch['id']}/tasks/", {"payloads": [{"category": "spaceships"}]}, format="json")
    assert bad.status_code == 400 and "payloads.0.category" in bad.json()["error"]["fields"]


# --- What an upload costs -----------------------------------------------------------------


def _trace(client):
    make_category("shopping")
    response = client.post("/api/v1/traces/", {"client_id": str(uuid.uuid4()), "category": "shopping"}, format="json")
    assert response.status_code == 201, response.content
    return response.json()["id"]


def _send_step(client, trace, screenshot, **fields):
    step = {
        "client_id": str(uuid.uuid4()),
        "position": 0,
        "url": "https://shop-a.test/",
        "captured_at": "2026-11-29T14:03:11.250Z",
        "viewport": {"width": 1280, "height": 800},
        "action": {"type": "navigate", "target": None},
        **fields,
    }
    upload = SimpleUploadedFile("step.png", screenshot, content_type="image/png")
    return client.post(
        f"/api/v1/traces/{trace}/steps/", {"screenshot": upload, "step": json.dumps(step)}, format="multipart"
    )


def test_screen_and_step_uploads_over_the_cap_get_413_unread(rater, api_for, settings):
    settings.ASSET_MAX_BYTES = 1024 * 1024
    client = api_for(rater)
    trace = _trace(client)
    screen = api_error(post_unread(client, "/api/v1/screens/", str(2 * 1024 * 1024)), 413, "file_too_large")
    assert "1.0 MB" in screen["message"]
    # A step leaves room for its page's HTML (Django's cap on form fields), no more.
    step_cap = settings.ASSET_MAX_BYTES + settings.DATA_UPLOAD_MAX_MEMORY_SIZE + 64 * 1024
    api_error(post_unread(client, f"/api/v1/traces/{trace}/steps/", str(step_cap + 1)), 413, "file_too_large")
    assert not Screen.objects.exists() and not TraceStep.objects.exists() and not Asset.objects.exists()


@pytest.mark.parametrize("path", ["/api/v1/screens/", "/api/v1/traces/{trace}/steps/"])
def test_uploads_without_a_content_length_are_refused_unread(rater, api_for, path):
    client = api_for(rater)
    url = path.format(trace=_trace(client))
    api_error(post_unread(client, url, ""), 411, "length_required")


def test_a_step_file_over_the_limit_stops_the_parser_but_its_html_fits(rater, api_for, settings):
    client = api_for(rater)
    trace = _trace(client)
    data = png_bytes(size=(640, 400), seed=40)
    settings.ASSET_MAX_BYTES = len(data) - 1000
    page = "<p>" + "x" * 500_000 + "</p>"  # far more than the 64 KB left for small fields

    too_large = api_error(_send_step(client, trace, data, html=page), 400, "file_too_large")
    assert "larger than" in too_large["message"]  # the parser's refusal, before the file was whole
    assert _send_step(client, trace, png_bytes(size=(200, 100), seed=41), html=page).status_code == 201


def test_a_busy_decoder_answers_a_step_upload_with_retry_after(rater, api_for, settings):
    settings.ASSET_DECODE_SLOTS, settings.ASSET_DECODE_WAIT_SECONDS = 1, 0.2
    client = api_for(rater)
    trace = _trace(client)
    with images.decode_slot():  # this thread holds the only slot
        response = _send_step(client, trace, png_bytes(seed=42))
    api_error(response, 503, "busy")
    assert response["Retry-After"] == "1" and not TraceStep.objects.exists()


def test_the_same_idempotency_key_gives_the_same_screen_once(rater, api_for, monkeypatch):
    client = api_for(rater)
    assignment = _take(client, capture_batch(kind="single_screen_qa"))["id"]
    key = str(uuid.uuid4())
    data = png_bytes(size=(400, 300), seed=30)
    first = _upload(client, data, assignment=assignment, key=key)
    assert first.status_code == 201, first.content

    def refuse(*args, **kwargs):
        raise AssertionError("the retry was decoded")

    monkeypatch.setattr(ImageFile.ImageFile, "load", refuse)
    monkeypatch.setattr(Image, "open", refuse)
    retry = _upload(client, data, assignment=assignment, key=key)
    assert retry.status_code == 200 and retry.json() == first.json()
    # Sent as a form field instead of the header, it is the same key.
    as_field = _upload(client, data, assignment=assignment, idempotency_key=key)
    assert as_field.status_code == 200 and as_field.json()["id"] == first.json()["id"]
    assert Screen.objects.count() == 1 and IdempotencyKey.objects.count() == 1


def test_a_retry_with_the_key_is_answered_before_its_body_is_read(rater, api_for):
    client = api_for(rater)
    first = _upload(client, png_bytes(seed=31), key="screen-31")
    retry = post_unread(client, "/api/v1/screens/", "5000", HTTP_IDEMPOTENCY_KEY="screen-31")
    assert retry.status_code == 200 and retry.json()["id"] == first.json()["id"]


def test_the_same_key_from_another_user_is_their_own(rater, other_rater, api_for):
    data = png_bytes(seed=32)
    mine = _upload(api_for(rater), data, key="shared-key")
    theirs = _upload(api_for(other_rater), data, key="shared-key")
    assert (mine.status_code, theirs.status_code) == (201, 201)
    assert mine.json()["id"] != theirs.json()["id"] and Screen.objects.count() == 2
    assert mine.json()["asset"] == theirs.json()["asset"]  # one image, stored once


def test_different_keys_make_different_screens(rater, api_for):
    client = api_for(rater)
    data = png_bytes(seed=33)
    first, second = _upload(client, data, key="a"), _upload(client, data, key="b")
    assert (first.status_code, second.status_code) == (201, 201)
    assert first.json()["id"] != second.json()["id"]


def test_a_refused_screen_does_not_use_up_its_key(rater, other_rater, api_for, shops):
    client = api_for(rater)
    batch = capture_batch(kind="single_screen_qa", per_category=2)
    theirs = _take(api_for(other_rater), batch)["id"]
    refused = _upload(client, png_bytes(seed=34), assignment=theirs, key="k1")
    assert refused.status_code == 403 and not IdempotencyKey.objects.exists()
    assert _upload(client, png_bytes(seed=34), key="k1").status_code == 201


def test_a_key_used_for_an_asset_is_not_a_screen(rater, api_for):
    client = api_for(rater)
    upload = SimpleUploadedFile("a.png", png_bytes(seed=35), content_type="image/png")
    asset = client.post("/api/v1/assets/", {"file": upload}, format="multipart", HTTP_IDEMPOTENCY_KEY="one-key")
    assert asset.status_code == 201
    api_error(_upload(client, png_bytes(seed=35), key="one-key"), 422, "idempotency_key_reused")
    assert not Screen.objects.exists()


def test_a_deleted_screen_frees_its_key(rater, api_for):
    client = api_for(rater)
    first = _upload(client, png_bytes(seed=36), key="again").json()
    assert client.delete(f"/api/v1/screens/{first['id']}/").status_code == 204
    again = _upload(client, png_bytes(seed=36), key="again")
    assert again.status_code == 201 and again.json()["id"] != first["id"]


@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(connection.vendor != "postgresql", reason="concurrent writers need a database server (PostgreSQL)")
def test_simultaneous_requests_with_one_key_make_one_screen(api_for, media):
    """The retries of a client that gave up waiting arrive while the first request is
    still decoding: they wait for it and answer with its screen."""
    user = UserFactory(role=Role.RATER)
    data = png_bytes(size=(800, 500), seed=37)
    clients = [api_for(user) for _ in range(4)]
    results, errors = at_once(lambda client: _upload(client, data, key="same-moment"), clients)
    assert not errors, errors
    assert sorted(response.status_code for response in results) == [200, 200, 200, 201]
    assert len({response.json()["id"] for response in results}) == 1
    assert Screen.objects.count() == 1 and IdempotencyKey.objects.count() == 1
