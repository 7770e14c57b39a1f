"""The pre-screen's blocked domains: a real list on a new install, kept by admins, and
used by the job that pre-screens every new screenshot."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from assets.tests.samples import png_bytes
from collection.services import capture_screen
from moderation.models import BlockedDomain, ReviewItem
from moderation.prescreen import DEFAULT_BLOCKED_DOMAINS
from moderation.tasks import prescreen_asset

pytestmark = pytest.mark.django_db


def _prescreened(author, seed, url):
    screen = capture_screen(
        file=SimpleUploadedFile("s.png", png_bytes(size=(320, 200), seed=seed), content_type="image/png"), author=author
    )
    prescreen_asset(screen.asset_id, url)
    return ReviewItem.objects.get(asset=screen.asset)


def test_a_new_install_blocks_real_domains_not_placeholders():
    domains = set(BlockedDomain.objects.values_list("domain", flat=True))
    assert domains == set(DEFAULT_BLOCKED_DOMAINS)
    assert {"pornhub.com", "bet365.com"} <= domains
    assert not any(domain.endswith((".example", ".test", ".invalid")) for domain in domains)


def test_the_prescreen_job_sends_a_page_on_a_blocked_domain_to_the_safety_queue(rater):
    item = _prescreened(rater, 1, "https://www.pornhub.com/view_video.php?viewkey=1")
    assert item.queue == "safety" and item.safety_risk == 1.0
    assert [f["kind"] for f in item.findings if f["kind"] == "blocked_domain"] == ["blocked_domain"]
    assert _prescreened(rater, 2, "https://shop.example/kettles").queue == "pii"


def test_admins_keep_the_list_in_the_admin_and_the_job_follows_it(client, admin_user, rater):
    client.force_login(admin_user)
    response = client.post(
        "/admin/moderation/blockeddomain/add/", {"domain": " WWW.Casino-Night.example ", "reason": "gambling"}
    )
    assert response.status_code == 302
    assert BlockedDomain.objects.filter(domain="casino-night.example").exists()
    assert _prescreened(rater, 3, "https://play.casino-night.example/lobby").queue == "safety"

    BlockedDomain.objects.filter(domain="pornhub.com").delete()
    assert _prescreened(rater, 4, "https://www.pornhub.com/").queue == "pii"
    empty = client.post("/admin/moderation/blockeddomain/add/", {"domain": "", "reason": "nothing"})
    assert empty.status_code == 200 and "This field is required" in empty.content.decode()
