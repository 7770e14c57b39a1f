"""Demo data for navigation questions (WebVLN): three local websites (``demo_sites``)
recorded by the demo rater as the extension would upload them, their screenshots
cleared, their navigation graphs built; a batch of sampled target pages to write
questions on; and episodes on every website, most already accepted by two assessors and
two waiting for path review, so that a release built from the demo has every website in
its train, val and test episodes."""

import uuid
from datetime import timedelta

from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import timezone

from accounts.models import User
from corpus.models import Category, Episode, Evidence, NavPage, QAPair, Site, TraceStep
from corpus.navigation import episode_path, rebuild
from hits.demo import open_demo_batch
from moderation import services as moderation
from moderation.models import ReviewItem

from . import services
from .answers import answer_type
from .demo_sites import SITES, button_boxes, page_html, screenshot
from .kinds.navigation_qa import fill_targets

NAVIGATION_BATCH = "Demo: questions that need navigating a site"
# (path of the target, question, answer): four per site, two items left for raters.
EPISODES = {
    "demo-kitchen.test": [
        ("/kettles/0", "How much is the stainless steel kettle?", "$34.99"),
        ("/kettles/1", "How many litres does the glass kettle hold?", "1.5 litres"),
        ("/kettles/2", "Is the travel kettle in stock?", "No"),
        ("/mugs/0", "What size is the blue mug?", "350 ml"),
    ],
    "demo-books.test": [
        ("/novels/0", "How many pages does The Quiet Harbour have?", "320"),
        ("/novels/1", "In which format is Salt and Stone sold?", "Hardback"),
        ("/cooking/0", "How many recipes are in Soup Every Day?", "180"),
        ("/cooking/2", "What does Small Plates cost?", "$16.00"),
    ],
    "demo-stays.test": [
        ("/lisbon/0", "Is breakfast included at Casa do Rio?", "Included"),
        ("/lisbon/1", "What is Alfama Rooms' rating?", "8.1"),
        ("/porto/0", "How much is a night at Ribeira Loft?", "$131"),
        ("/porto/1", "What is Hotel Douro's rating?", "7.8"),
    ],
}
WAITING_FOR_REVIEW = {("demo-kitchen.test", "/mugs/0"), ("demo-books.test", "/cooking/2")}


def _record(author, host, walk, category):
    """One trace over ``walk`` (paths), each step after the first a click on the page before."""
    _name, _category, pages = SITES[host]
    trace, _ = services.start_trace(author=author, client_id=uuid.uuid4(), category=category)
    previous = None
    for position, path in enumerate(walk):
        url = f"https://{host}{path}"
        target = None
        if previous is not None:
            text, _to, box = next(b for b in button_boxes(pages[previous]) if b[1] == path)
            target = {"tag": "a", "text": text, "role": "link", "href": url, "bbox": box}
        clickables = [
            {"tag": "a", "text": text, "href": f"https://{host}{to}", "bbox": box}
            for text, to, box in button_boxes(pages[path])
        ]
        services.add_step(
            trace_id=trace.pk,
            author=author,
            screenshot=SimpleUploadedFile("step.png", screenshot(host, path), content_type="image/png"),
            step={
                "client_id": uuid.uuid4(), "position": position, "url": url, "title": pages[path].title,
                "captured_at": timezone.now(), "viewport": {"width": 1280, "height": 800}, "scroll": {"x": 0, "y": 0},
                "action": {"type": "click" if previous else "navigate", "target": target}, "clickables": clickables,
                "html": page_html(host, path),
            },
        )  # fmt: skip
        previous = path
    services.finish_trace(trace_id=trace.pk, author=author, step_count=len(walk))


def _clear(steps, reviewer):
    """The demo's own drawn pages hold no personal data: the demo reviewer clears them."""
    assets = {step.screen.asset for step in steps.select_related("screen__asset")}
    for asset in sorted(assets, key=lambda asset: asset.pk):
        if asset.review_state == asset.ReviewState.CLEARED:
            continue
        item = moderation.enqueue(asset=asset)
        ReviewItem.objects.filter(pk=item.pk).update(
            claimed_by=reviewer, claimed_until=timezone.now() + timedelta(minutes=5)
        )
        moderation.approve(item_id=item.pk, reviewer=reviewer)


def _episode(author, site, target, question, answer, *, state):
    path = episode_path(site, f"https://{site.host}{target}")
    pair = QAPair.objects.create(
        family=QAPair.Family.WEBVLN, split_kind=QAPair.SplitKind.NAVIGATION, question=question, answer=answer,
        answer_type=answer_type(answer), category=site.category, author=author, state=state,
    )  # fmt: skip
    pages = {page.url: page for page in NavPage.objects.filter(site=site, url__in=path).select_related("step")}
    target_page = pages[path[-1]]
    details = "; ".join(f"{label} {value}" for label, value in SITES[site.host][2][target].details)
    description = f"{target_page.title.split(' – ')[0]}: {details}."
    for position, url in enumerate(path):
        Evidence.objects.create(
            qa_pair=pair, position=position, screen=pages[url].step.screen, step=pages[url].step,
            note=description if position == len(path) - 1 else "",
        )  # fmt: skip
    Episode.objects.create(qa_pair=pair, site=site, target_url=path[-1], path=path, description=description)


def load(*, out):
    rater = User.objects.get(username="rater")
    reviewer = User.objects.get(username="reviewer")
    sites = []
    for host, (name, category, pages) in SITES.items():
        site = Site.objects.filter(host=host).first() or Site.objects.create(
            category=Category.objects.get(slug=category), name=name, url=f"https://{host}/"
        )
        sites.append(site)
        if not TraceStep.objects.filter(url__startswith=f"https://{host}/").exists():
            for path in sorted(p for p in pages if p.count("/") == 2):
                section = path.rsplit("/", 1)[0]
                _record(rater, host, ["/", section, path], category)
            out(f"Recorded demo traces on {name} ({host}).")
        _clear(TraceStep.objects.filter(url__startswith=f"https://{host}/"), reviewer)
        rebuild(site)
    batch = open_demo_batch(
        name=NAVIGATION_BATCH,
        kind="navigation_qa",
        description="Pick a page two or more clicks from a site's homepage and ask a question it answers.",
        reward="0.80",
        payloads=[],
        out=out,
    )
    if batch is not None and not batch.tasks.exists():
        batch.kind_settings = {"targets_per_site": 2, "seed": 1, "sites": [site.pk for site in sites]}
        batch.save(update_fields=["kind_settings"])
        out(f"Sampled {fill_targets(batch=batch)} target pages for navigation questions.")
    if not Episode.objects.filter(site__in=sites).exists():
        for site in sites:
            for target, question, answer in EPISODES[site.host]:
                waiting = (site.host, target) in WAITING_FOR_REVIEW
                _episode(rater, site, target, question, answer, state="pending_validation" if waiting else "accepted")
        out("Added navigation questions on the three demo websites (two wait for path review).")
